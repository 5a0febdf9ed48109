import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import MarketData
import Server
import Testing
import TradingCore

@Suite("Alpaca trading API over a real server and SQLite")
struct AlpacaTradingTests {
    @Test("health needs no key; everything under /v2 needs one (401 in Alpaca's shape)")
    func auth() async throws {
        try await ServerFixture.with() { f in
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
                try await client.execute(uri: "/v2/account", method: .get) { response in
                    #expect(response.status == .unauthorized)
                    #expect(f.json(response)["code"]?.int == 40110000)
                }
                var wrong = f.auth
                wrong[HTTPField.Name("APCA-API-SECRET-KEY")!] = "nope"
                try await client.execute(uri: "/v2/account", method: .get, headers: wrong) {
                    #expect($0.status == .unauthorized)
                }
                try await client.execute(uri: "/v2/account", method: .get, headers: f.auth) { response in
                    #expect(response.status == .ok)
                    let account = f.json(response)
                    #expect(account["cash"] == .string("100000"))
                    #expect(account["status"] == .string("ACTIVE"))
                    #expect(account["id"]?.string == f.accountID.description)
                }
            }
        }
    }

    @Test("the answer to an order placement is byte for byte the order as GET /v2/orders/{id} shows it")
    func placementBodyMatchesGet() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                for order in [
                    #"{"symbol":"AAPL","qty":"2","side":"buy","type":"limit","limit_price":"1.5","time_in_force":"gtc","client_order_id":"a\\\"b"}"#,
                    #"{"symbol":"MSFT","notional":"100","side":"buy","type":"market","time_in_force":"day"}"#,
                    #"{"symbol":"AAPL","qty":"1","side":"buy","type":"stop_limit","stop_price":"900","limit_price":"901","time_in_force":"day"}"#,
                ] {
                    let placed = try await client.execute(
                        uri: "/v2/orders", method: .post, headers: f.auth, body: body(order)
                    ) { response in
                        #expect(response.status == .ok)
                        return Array(response.body.readableBytesView)
                    }
                    let id = (try? JSONValue(parsing: placed))?["id"]?.string ?? ""
                    try await client.execute(uri: "/v2/orders/\(id)", method: .get, headers: f.auth) { response in
                        let shown = Array(response.body.readableBytesView)
                        // The clock is manual and does not move between the calls, so nothing can change the order meanwhile.
                        #expect(String(decoding: placed, as: UTF8.self) == String(decoding: shown, as: UTF8.self))
                        #expect((try? JSONValue(parsing: placed))?["legs"] == .null)
                    }
                }
            }
        }
    }

    @Test("a market order fills at the ask, shows in orders and positions, and survives a restart")
    func marketOrderDurable() async throws {
        try await ServerFixture.with() { f in
            try await f.app.test(.router) { client in
                let quote = try #require(f.services.market.quote("AAPL", at: ServerFixture.morning))
                let orderID = try await client.execute(
                    uri: "/v2/orders", method: .post, headers: f.auth,
                    body: body(
                        #"{"symbol":"AAPL","qty":10.0,"side":"buy","type":"market","time_in_force":"day","client_order_id":"my-1"}"#
                    )
                ) { response in
                    #expect(response.status == .ok)
                    let order = f.json(response)
                    #expect(order["status"] == .string("filled"))
                    #expect(order["filled_qty"] == .string("10"))
                    #expect(order["filled_avg_price"]?.decimal == quote.asks.best?.price)
                    #expect(order["order_class"] == .string(""))
                    return order["id"]?.string ?? ""
                }
                try await client.execute(uri: "/v2/orders?status=closed", method: .get, headers: f.auth) { response in
                    #expect(f.json(response).array?.first?["id"]?.string == orderID)
                }
                try await client.execute(
                    uri: "/v2/orders:by_client_order_id?client_order_id=my-1", method: .get, headers: f.auth
                ) { response in
                    #expect(f.json(response)["id"]?.string == orderID)
                }
                try await client.execute(uri: "/v2/positions/AAPL", method: .get, headers: f.auth) { response in
                    #expect(f.json(response)["qty"] == .string("10"))
                }
            }
            await f.services.shutdown()
            // Restart on the same file: the fill, position and cash are all there.
            let restarted = try await Papertrade.start(
                {
                    var c = ServerConfiguration()
                    c.dataDirectory = f.directory
                    return c
                }(),
                clock: MarketClock(.manual(start: ServerFixture.morning)))
            let summary = try await restarted.brokerage.summary(f.accountID)
            #expect(summary.positions.first?.position.qty == 10)
            #expect(summary.account.cash == 100_000 - summary.positions[0].position.costBasis)
            let activities = try await restarted.brokerage.activities(f.accountID)
            #expect(activities.contains { if case .fill = $0.kind { return true } else { return false } })
            await restarted.shutdown()
        }
    }

    @Test("bad input gets a 4xx with a clear message, never a 5xx")
    func badInput() async throws {
        try await ServerFixture.with() { f in
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("{", .badRequest, "malformed JSON"),
                ("[1,2]", .unprocessableContent, "request body must be a JSON object"),
                (
                    #"{"symbol":"AAPL","qty":1,"side":"buy","type":"market","time_in_force":"day","colour":"red"}"#,
                    .unprocessableContent, "unknown field colour"
                ),
                (
                    #"{"symbol":"AAPL","qty":-5,"side":"buy","type":"market","time_in_force":"day"}"#,
                    .unprocessableContent, "qty must be > 0"
                ),
                (
                    #"{"symbol":"AAPL","qty":"NaN","side":"buy","type":"market","time_in_force":"day"}"#,
                    .unprocessableContent, "invalid qty NaN"
                ),
                (
                    #"{"symbol":"AAPL","qty":1e40,"side":"buy","type":"market","time_in_force":"day"}"#,
                    .unprocessableContent, "invalid qty 1e40"
                ),
                (
                    #"{"symbol":"AAPL","qty":1,"side":"hold","type":"market","time_in_force":"day"}"#,
                    .unprocessableContent, "invalid side"
                ),
                (
                    #"{"symbol":"AAPL","qty":1,"side":"buy","type":"market"}"#, .unprocessableContent,
                    "time_in_force is required"
                ),
                (
                    #"{"symbol":"ZZZZZZ","qty":1,"side":"buy","type":"market","time_in_force":"day"}"#, .notFound,
                    "asset not found for ZZZZZZ"
                ),
                (
                    #"{"symbol":"AAPL","qty":1,"side":"buy","type":"limit","limit_price":290.123,"time_in_force":"day"}"#,
                    .unprocessableContent,
                    "invalid limit_price 290.123. sub-penny increment does not fulfill minimum pricing criteria"
                ),
                (
                    #"{"symbol":"AAPL","qty":10000,"side":"buy","type":"market","time_in_force":"day"}"#, .forbidden,
                    "insufficient buying power"
                ),
            ]
            try await f.app.test(.router) { client in
                for (text, status, message) in cases {
                    try await client.execute(uri: "/v2/orders", method: .post, headers: f.auth, body: body(text)) {
                        response in
                        #expect(response.status == status, "\(text)")
                        let error = f.json(response)
                        #expect(error["message"]?.string?.hasPrefix(message) == true, "\(text): \(error)")
                        #expect(error["code"]?.int != nil)
                    }
                }
                try await client.execute(
                    uri: "/v2/orders", method: .post, headers: f.auth,
                    body: body(String(repeating: " ", count: 70_000))
                ) { #expect($0.status == .contentTooLarge) }
                try await client.execute(uri: "/v2/orders/not-a-uuid", method: .get, headers: f.auth) {
                    #expect($0.status == .notFound)
                }
                try await client.execute(uri: "/v2/nothing-here", method: .get, headers: f.auth) {
                    #expect($0.status == .notFound)
                }
            }
        }
    }

    @Test(
        "50 simultaneous buys that exceed buying power: exactly those that fit succeed, the rest get 403",
        arguments: [AccountType.cash, .margin])
    func concurrentBuys(type: AccountType) async throws {
        // $10,000 buys $10,000 on a cash account and $20,000 on a margin account (Reg T: twice the equity).
        let budget = FixedDecimal(type == .cash ? 10_000 : 20_000)
        try await ServerFixture.with(cash: 10_000, type: type) { f in
            let price = try #require(f.services.market.quote("KO", at: ServerFixture.morning)?.asks.best?.price)
            // Each order reserves 10 × its limit; limit orders below the market rest, so nothing fills.
            let limit = (price - 1).rounded(places: 2, rule: .down)
            let perOrder = limit.times(10)
            let fit = Int((budget.divided(by: perOrder, places: 0, rule: .down) ?? 0).integerPart ?? 0)
            let statuses = try await f.app.test(.router) { client in
                try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for _ in 0..<50 {
                        group.addTask {
                            try await client.execute(
                                uri: "/v2/orders", method: .post, headers: f.auth,
                                body: body(
                                    #"{"symbol":"KO","qty":10,"side":"buy","type":"limit","limit_price":"\#(limit)","time_in_force":"gtc"}"#
                                )
                            ) { $0.status }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(statuses.filter { $0 == .ok }.count == fit)
            #expect(statuses.filter { $0 == .forbidden }.count == 50 - fit)
            let summary = try await f.services.brokerage.summary(f.accountID)
            #expect(summary.buyingPower >= 0 && summary.buyingPower < perOrder)
            #expect(summary.account.reservedCash == perOrder.times(fit))
        }
    }

    @Test("cancel: 204, then 422 once it is no longer cancelable; another account's order is 404")
    func cancel() async throws {
        try await ServerFixture.with() { f in
            let someoneElse = try await f.services.access.createUser(username: "mallory", password: "not-alice-123")
            let other = try await f.services.brokerage.openAccount(
                userID: someoneElse.id, market: .us, cash: nil, name: nil)
            try await f.app.test(.router) { client in
                let id = try await client.execute(
                    uri: "/v2/orders", method: .post, headers: f.auth,
                    body: body(
                        #"{"symbol":"AAPL","qty":1,"side":"buy","type":"limit","limit_price":"1.00","time_in_force":"gtc"}"#
                    )
                ) {
                    f.json($0)["id"]?.string ?? ""
                }
                try await client.execute(uri: "/v2/orders/\(id)", method: .delete, headers: f.auth) {
                    #expect($0.status == .noContent)
                }
                try await client.execute(uri: "/v2/orders/\(id)", method: .delete, headers: f.auth) { response in
                    #expect(response.status == .unprocessableContent)
                }
                let otherKey = try await f.services.access.createKey(account: other.id)
                let otherAuth: HTTPFields = [
                    HTTPField.Name("APCA-API-KEY-ID")!: otherKey.keyID,
                    HTTPField.Name("APCA-API-SECRET-KEY")!: otherKey.secret,
                ]
                try await client.execute(uri: "/v2/orders/\(id)", method: .get, headers: otherAuth) {
                    #expect($0.status == .notFound)
                }
                try await client.execute(uri: "/v2/orders", method: .delete, headers: f.auth) { response in
                    #expect(response.status.code == 207)
                }
            }
        }
    }

    @Test("assets, clock and activities in Alpaca's shapes; A-shares map to exchange \"\" with an attribute")
    func reference() async throws {
        try await ServerFixture.with() { f in
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/assets/AAPL", method: .get, headers: f.auth) { response in
                    let asset = f.json(response)
                    #expect(asset["class"] == .string("us_equity"))
                    #expect(asset["exchange"] == .string("NASDAQ"))
                    #expect(asset["fractionable"] == .bool(true))
                }
                try await client.execute(uri: "/v2/assets/600519", method: .get, headers: f.auth) { response in
                    let asset = f.json(response)
                    #expect(asset["exchange"] == .string(""))
                    #expect(asset["attributes"]?[0] == .string("exchange:SSE"))
                }
                try await client.execute(uri: "/v2/clock", method: .get, headers: f.auth) { response in
                    let clock = f.json(response)
                    #expect(clock["is_open"] == .bool(true))
                    #expect(clock["next_close"] == .string("2026-11-20T16:00:00-05:00"))
                    #expect(clock["next_open"] == .string("2026-11-23T09:30:00-05:00"))
                }
            }
        }
    }
}
