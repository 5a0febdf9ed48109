import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import MarketData
import Server
import Testing
import TradingCore

/// Queue purchase end to end with the manual clock: a simulated A-share limit-up day, driven minute by minute.
@Suite("Queue purchase")
struct QueueTests {
    /// A main-board A-share and a recent trading day on which the simulated market closed pinned at limit-up.
    static func limitUpDay(_ market: SimulatedMarket, _ feed: any MarketDataFeed, _ directory: SymbolDirectory)
        async throws -> (String, CivilDate, PriceBand)
    {
        let calendar = Market.cn.calendar
        let end = CivilDate(2026, 11, 20)
        let days = calendar.tradingDays(from: CivilDate(2026, 8, 1), through: end)
        for n in 0..<400 {
            let code = String(600000 + n)
            guard let entry = directory.entry(code), entry.instrument.priceLimit == .mainBoard,
                !entry.instrument.isRiskWarning,
                let listed = entry.instrument.listingDate, listed < CivilDate(2025, 1, 1)
            else { continue }
            let bars = try await feed.bars(
                code, timeframe: .day, from: Timestamp(days[0], in: .shanghai),
                to: Timestamp(end, hour: 23, in: .shanghai))
            for (previous, bar) in zip(bars, bars.dropFirst()) {
                guard
                    let band = entry.instrument.priceLimit.band(
                        previousClose: previous.close, tick: entry.instrument.tick),
                    bar.close == band.limitUp, bar.open < band.limitUp
                else { continue }
                return (code, calendar.tradingDate(at: bar.time), band)
            }
        }
        throw CancellationError()
    }

    struct Setup {
        let services: Papertrade
        let directory: String
        let accountID: AccountID
        let poorAccountID: AccountID
        let headers: HTTPFields
        let poorHeaders: HTTPFields
        let userID: String
    }

    static func start(at time: Timestamp, directory: String) async throws -> Papertrade {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory
        return try await Papertrade.start(configuration, clock: MarketClock(.manual(start: time)))
    }

    func headers(_ key: (keyID: String, secret: String)) -> HTTPFields {
        [HTTPField.Name("APCA-API-KEY-ID")!: key.keyID, HTTPField.Name("APCA-API-SECRET-KEY")!: key.secret]
    }

    func json(_ response: TestResponse) -> JSONValue {
        (try? JSONValue(parsing: Array(response.body.readableBytesView))) ?? .null
    }

    /// Advances the clock a minute at a time through the session, pumping the market each minute.
    func pumpMinutes(_ services: Papertrade, _ minutes: Int) async throws {
        for _ in 0..<minutes {
            services.brokerage.clock.advance(by: Duration64.minute)
            try await services.brokerage.pumpMarket()
        }
    }

    @Test(
        "a limit-up day fires a queued limit-up buy exactly once, survives a restart, and reports a rule without cash")
    func limitUpDay() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-queue-\(UUID())").path
        let probe = try await Self.start(
            at: Timestamp(CivilDate(2026, 11, 20), hour: 12, in: .shanghai), directory: dir + "-probe")
        let (code, day, band) = try await Self.limitUpDay(probe.market, probe.brokerage.feed, probe.brokerage.directory)
        await probe.shutdown()

        let open = Timestamp(day, hour: 9, minute: 31, in: .shanghai)
        var services = try await Self.start(at: open, directory: dir)
        let user = try await services.access.createUser(username: "queuer", password: "correct horse")
        let rich = try await services.brokerage.openAccount(
            userID: user.id, market: .cn, cash: 10_000_000, name: "rich")
        let poor = try await services.brokerage.openAccount(userID: user.id, market: .cn, cash: 100, name: "poor")
        let richKey = headers(try await services.access.createKey(account: rich.id))
        let poorKey = headers(try await services.access.createKey(account: poor.id))
        let rule =
            #"{"symbol":"\#(code)","side":"buy","qty":"100","condition":{"type":"touches_limit_up"},"order_type":"limit_up"}"#
        let ruleID = try await buildApplication(services).test(.router) { client in
            let id = try await client.execute(
                uri: "/api/v1/accounts/\(rich.id)/queue", method: .post, headers: richKey,
                body: ByteBuffer(string: rule)
            ) { r in
                #expect(r.status == .created)
                #expect(json(r)["trigger_level"] == .string(band.limitUp.description))
                #expect(json(r)["status"] == .string("queued"))
                return json(r)["id"]?.string ?? ""
            }
            try await client.execute(
                uri: "/api/v1/accounts/\(poor.id)/queue", method: .post, headers: poorKey,
                body: ByteBuffer(string: rule)
            ) { r in
                #expect(r.status == .created)
            }
            // Another account's key cannot see this queue.
            try await client.execute(uri: "/api/v1/accounts/\(rich.id)/queue", method: .get, headers: poorKey) { r in
                #expect(r.status == .notFound)
            }
            // Bad input is a 422 with a message.
            try await client.execute(
                uri: "/api/v1/accounts/\(rich.id)/queue", method: .post, headers: richKey,
                body: ByteBuffer(
                    string: #"{"symbol":"AAPL","side":"buy","qty":"1","condition":{"type":"touches_limit_up"}}"#)
            ) { r in
                #expect(r.status == .unprocessableContent)
            }
            try await client.execute(
                uri: "/api/v1/accounts/\(rich.id)/queue", method: .post, headers: richKey,
                body: ByteBuffer(
                    string:
                        #"{"symbol":"\#(code)","side":"buy","qty":"-5","condition":{"type":"price_at_least","value":"1"}}"#
                )
            ) { r in
                #expect(r.status == .unprocessableContent)
                #expect(json(r)["message"] == .string("Cannot buy non-positive shares"))
            }
            return id
        }
        // The whole session, minute by minute: the rule fires once, when the price reaches limit-up.
        try await pumpMinutes(services, 335) // 09:31 → 15:06, through the lunch break and the close
        var q = OrderQuery()
        q.status = .all
        let orders = try await services.brokerage.orders(account: rich.id, q)
        #expect(orders.count == 1)
        #expect(orders.first?.clientOrderID == "queue-\(ruleID)")
        #expect(orders.first?.limitPrice == band.limitUp)
        #expect(orders.first?.qty == 100)
        let history = try await services.brokerage.queueHistory(account: rich.id).map(\.record)
        #expect(history.map(\.status) == [.fired])
        #expect((history.first?.firedPrice ?? 0) >= band.limitUp)
        #expect(try await services.brokerage.queueHistory(account: poor.id).first?.record.status == .failed)
        #expect(try await services.brokerage.orders(account: poor.id, q).isEmpty)
        let kinds = try await services.brokerage.notifications.recent(user: user.id).items.map(\.kind)
        #expect(kinds.filter { $0 == "order_placed_automatically" }.count == 1)
        #expect(kinds.filter { $0 == "automatic_order_failed" }.count == 1)
        #expect(kinds.filter { $0 == "queue_empty" }.count == 2)
        let failure = try await services.brokerage.notifications.recent(user: user.id).items.first {
            $0.kind == "automatic_order_failed"
        }
        #expect(failure?.body.contains("not enough cash") == true)

        // Restart (same database, same moment): nothing fires again, whether or not the order has filled.
        let now = services.brokerage.clock.now()
        await services.shutdown()
        services = try await Self.start(at: now, directory: dir)
        try await pumpMinutes(services, 30)
        #expect(try await services.brokerage.orders(account: rich.id, q).count == 1)
        try await buildApplication(services).test(.router) { client in
            try await client.execute(uri: "/api/v1/accounts/\(rich.id)/queue", method: .get, headers: richKey) { r in
                #expect(json(r) == .array([]))
            }
            try await client.execute(uri: "/api/v1/accounts/\(rich.id)/queue/history", method: .get, headers: richKey) {
                r in
                #expect(json(r)[0]?["status"] == .string("fired"))
                #expect(json(r)[0]?["order_id"] == .string(orders.first?.id.description ?? "?"))
            }
        }
        await services.shutdown()
    }

    @Test("the history says the price a rule fired at and, apart, the price its order filled at")
    func historyShowsTheFillPrice() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-queue-\(UUID())").path
        let services = try await Self.start(
            at: Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork), directory: dir)
        let user = try await services.access.createUser(username: "filler", password: "correct horse")
        let account = try await services.brokerage.openAccount(userID: user.id, market: .us, cash: nil, name: nil)
        let key = headers(try await services.access.createKey(account: account.id))
        // A market order, fired as soon as the rule is checked: it fills at the ask, the rule fired at the last price.
        let rule = #"{"symbol":"AAPL","side":"buy","qty":"3","condition":{"type":"price_at_least","value":"1"}}"#
        try await buildApplication(services).test(.router) { client in
            try await client.execute(
                uri: "/api/v1/accounts/\(account.id)/queue", method: .post, headers: key, body: ByteBuffer(string: rule)
            ) { r in
                #expect(r.status == .created)
            }
            try await pumpMinutes(services, 2)
            var q = OrderQuery()
            q.status = .all
            let order = try #require(try await services.brokerage.orders(account: account.id, q).first)
            let filled = try #require(order.filledAvgPrice, "the rule's market order filled")
            try await client.execute(
                uri: "/api/v1/accounts/\(account.id)/queue/history", method: .get, headers: key
            ) { r in
                let entry = json(r)[0]
                #expect(entry?["status"] == .string("fired"))
                #expect(entry?["fill_price"] == .string(filled.description))
                #expect(entry?["fired_price"]?.string != nil)
            }
        }
        await services.shutdown()
    }

    @Test("a queued rule can be canceled; a canceled or unknown rule is 404 afterwards")
    func cancel() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-queue-\(UUID())").path
        let services = try await Self.start(
            at: Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork), directory: dir)
        let user = try await services.access.createUser(username: "canceler", password: "correct horse")
        let account = try await services.brokerage.openAccount(userID: user.id, market: .us, cash: nil, name: nil)
        let key = headers(try await services.access.createKey(account: account.id))
        try await buildApplication(services).test(.router) { client in
            let id = try await client.execute(
                uri: "/api/v1/accounts/\(account.id)/queue", method: .post, headers: key,
                body: ByteBuffer(
                    string:
                        #"{"symbol":"AAPL","side":"buy","qty":"1","condition":{"type":"price_at_least","value":"100000"},"lifetime":{"type":"until","date":"2026-12-31"}}"#
                )
            ) { r in
                #expect(r.status == .created)
                #expect(json(r)["price"]?.decimal != nil)
                return json(r)["id"]?.string ?? ""
            }
            try await client.execute(uri: "/api/v1/accounts/\(account.id)/queue", method: .get, headers: key) { r in
                #expect(json(r)[0]?["id"] == .string(id))
            }
            try await client.execute(uri: "/api/v1/accounts/\(account.id)/queue/\(id)", method: .delete, headers: key) {
                r in
                #expect(r.status == .ok)
                #expect(json(r)["status"] == .string("canceled"))
            }
            try await client.execute(uri: "/api/v1/accounts/\(account.id)/queue/\(id)", method: .delete, headers: key) {
                r in
                #expect(r.status == .notFound)
            }
        }
        await services.shutdown()
    }
}
