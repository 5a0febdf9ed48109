import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import MarketData
import Server
import Testing
import TradingCore

@Suite("Trading halts through the API")
struct HaltAPITests {
    /// The first halt of `reason` from `from` through `through` among US primary listings outside the S&P 500 that
    /// starts at least `after` into the session (so an order can be placed during it).
    static func firstHalt(
        _ market: SimulatedMarket, reason: TradingHalt.Reason, from: CivilDate, through: CivilDate
    ) throws -> (symbol: String, halt: TradingHalt)? {
        let names = try SymbolDirectory.bundled().entries.filter {
            $0.instrument.market == .us && $0.instrument.kind == .stock && $0.sector.isEmpty
                && $0.instrument.exchange != .otc && $0.symbol.allSatisfy(\.isLetter)
        }
        let step = max(names.count / 300, 1)
        for i in stride(from: 0, to: names.count, by: step) {
            let symbol = names[i].symbol
            if let halt = market.halts(symbol, from: from, through: through).first(where: { $0.reason == reason }) {
                return (symbol, halt)
            }
        }
        return nil
    }

    @Test(
        "a market order during a volatility pause rests and fills at the reopening; the native quote says halted and why"
    )
    func orderDuringPause() async throws {
        let first = CivilDate(2026, 11, 2)
        try await ServerFixture.with(at: Timestamp(first, hour: 8, in: .newYork)) { f in
            let services = f.services
            let found = try Self.firstHalt(
                services.market, reason: .volatilityPause, from: first, through: CivilDate(2026, 11, 24))
            let (symbol, halt) = try #require(found, "no volatility pause in November among the smaller companies")
            try await f.app.test(.router) { client in
                services.brokerage.clock.set(halt.start.adding(seconds: 40))
                let quote = try await client.execute(uri: "/api/v1/quotes/\(symbol)", method: .get) { f.json($0) }
                #expect(quote["halted"] == .bool(true))
                #expect(quote["halt"]?["reason"] == .string("volatility_pause"))
                #expect(quote["halt"]?["code"] == .string("LUDP"))
                #expect(quote["halt"]?["end"] == .string(halt.end.description))
                #expect(quote["bids"] == .array([]) && quote["asks"] == .array([]))

                // A learner's account (signed up on the web app): a market order during the pause.
                let (cookie, usd) = try await client.execute(
                    uri: "/api/v1/auth/signup", method: .post,
                    body: body(#"{"username":"hal","password":"long-enough-password"}"#)
                ) { response in
                    let cookie = response.headers[.setCookie]?.split(separator: ";").first.map(String.init) ?? ""
                    return (cookie, f.json(response)["accounts"]?[0]?["id"]?.string ?? "")
                }
                let auth: HTTPFields = [.cookie: cookie]
                let id = try await client.execute(
                    uri: "/api/v1/accounts/\(usd)/orders", method: .post, headers: auth,
                    body: body(#"{"symbol":"\#(symbol)","qty":"3","side":"buy","type":"market","time_in_force":"day"}"#)
                ) { response in
                    #expect(response.status == .created)
                    return f.json(response)["id"]?.string ?? ""
                }
                func order() async throws -> JSONValue {
                    try await client.execute(uri: "/api/v1/accounts/\(usd)/orders", method: .get, headers: auth) {
                        f.json($0).array?.first { $0["id"] == .string(id) } ?? .null
                    }
                }
                #expect(try await order()["status"] == .string("new"), "nothing fills during a halt")
                try await services.brokerage.pumpMarket()
                #expect(try await order()["status"] == .string("new"), "nothing fills during a halt")
                services.brokerage.clock.set(halt.start.adding(seconds: 200))
                try await services.brokerage.pumpMarket()
                #expect(try await order()["status"] == .string("new"), "nothing fills during a halt")
                // The owner hears of the halt once, with the time trading resumes.
                let notices = try await client.execute(uri: "/api/v1/notifications", method: .get, headers: auth) {
                    f.json($0)["notifications"]?.array ?? []
                }
                let halted = notices.filter { $0["kind"] == .string("trading_halt") }
                #expect(halted.count == 1)
                #expect(halted.first?["title"] == .string("\(symbol) halted"))
                #expect(halted.first?["body"]?.string?.contains("a volatility pause") == true)

                // The reopening: the order fills at the first offer.
                let reopening = halt.end.adding(seconds: 10)
                services.brokerage.clock.set(reopening)
                try await services.brokerage.pumpMarket()
                let filled = try await order()
                #expect(filled["status"] == .string("filled"))
                let ask = try #require(services.market.quote(symbol, at: reopening)?.asks.best?.price)
                #expect(filled["filled_avg_price"]?.decimal == ask)
                let after = try await client.execute(uri: "/api/v1/quotes/\(symbol)", method: .get) { f.json($0) }
                #expect(after["halted"] == .bool(false) && after["halt"] == .null)
            }
        }
    }
}
