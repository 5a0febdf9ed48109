import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import MarketData
import Server
import Testing
import TradingCore

@Suite("Auctions from the market pump")
struct AuctionTests {
    @Test(
        "an opg order fills at the day's opening price after the open; a cls order at the closing price after the close"
    )
    func openingAndClosingAuctions() async throws {
        let day = CivilDate(2026, 11, 20)
        try await ServerFixture.with(at: Timestamp(day, hour: 9, in: .newYork)) { f in
            let services = f.services
            try await f.app.test(.router) { client in
                func order(_ tif: String, qty: Int) async throws -> String {
                    try await client.execute(
                        uri: "/v2/orders", method: .post, headers: f.auth,
                        body: body(
                            """
                            {"symbol":"AAPL","qty":"\(qty)","side":"buy","type":"market","time_in_force":"\(tif)"}
                            """)
                    ) { response in
                        #expect(response.status == .ok)
                        return f.json(response)["id"]?.string ?? ""
                    }
                }
                func status(_ id: String) async throws -> JSONValue {
                    try await client.execute(uri: "/v2/orders/\(id)", method: .get, headers: f.auth) { f.json($0) }
                }
                let opening = try await order("opg", qty: 5)
                try await services.brokerage.pumpMarket()
                #expect(try await status(opening)["status"] == .string("new"), "nothing fills before the open")

                services.brokerage.clock.set(Timestamp(day, hour: 9, minute: 31, in: .newYork))
                try await services.brokerage.pumpMarket()
                let open = try await services.brokerage.feed.quote("AAPL").open
                let filled = try await status(opening)
                #expect(filled["status"] == .string("filled"))
                #expect(filled["filled_avg_price"]?.decimal == open, "the opening auction's price is the day's open")

                services.brokerage.clock.set(Timestamp(day, hour: 15, in: .newYork))
                let closing = try await order("cls", qty: 2)
                try await services.brokerage.pumpMarket()
                #expect(try await status(closing)["status"] == .string("new"), "a cls order waits for the close")
                services.brokerage.clock.set(Timestamp(day, hour: 16, minute: 1, in: .newYork))
                try await services.brokerage.pumpMarket()
                let bars = try await services.brokerage.feed.bars(
                    "AAPL", timeframe: .day, from: Timestamp(day, in: .newYork),
                    to: Timestamp(day, hour: 23, in: .newYork))
                let closed = try await status(closing)
                #expect(closed["status"] == .string("filled"))
                #expect(
                    closed["filled_avg_price"]?.decimal == bars.last?.close,
                    "the closing auction's price is the day's close")
            }
        }
    }
}
