import Testing
import TradingCore

@Suite("Order validation: every rejection says why")
struct OrderValidationTests {
    var f = Fixture()
    let t = Fixture.usMorning
    let c = Fixture.cnMorning

    init() {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        f.reference(f.moutai, previousClose: "1763.00", at: c)
        f.quote(f.moutai, bid: "1760.00", ask: "1760.50", at: c)
    }

    @Test("sub-penny limit price is rejected with Alpaca's message")
    mutating func subPenny() {
        let r = f.place(buy("AAPL", "1", .limit, limit: "290.123"), at: t)
        #expect(
            r.message == "invalid limit_price 290.123. sub-penny increment does not fulfill minimum pricing criteria")
        #expect(r.rejection?.reason == .subPenny)
        // Below $1 four decimals are fine.
        f.quote(f.penny, bid: "0.5000", ask: "0.5100", at: t)
        #expect(f.place(buy("PNNY", "100", .limit, limit: "0.5123"), at: t).order != nil)
    }

    @Test("A-share prices must be on the 0.01 grid")
    mutating func aShareTick() {
        let r = f.place(buy("600519", "100", .limit, limit: "1760.005"), at: c)
        #expect(r.message == "invalid limit_price 1760.005: SSE prices move in steps of 0.01")
    }

    @Test("A-share buys must be whole board lots")
    mutating func lotSize() {
        let r = f.place(buy("600519", "150", .limit, limit: "1760.00"), at: c)
        #expect(
            r.message
                == "600519 trades in lots of 100 shares, and 150 is not a whole number of lots: buy 100 or 200 shares instead"
        )
        #expect(r.rejection?.reason == .lotSize)
    }

    @Test("limit prices outside the day's price limits are rejected")
    mutating func outsideLimits() {
        let r = f.place(buy("600519", "100", .limit, limit: "1939.31"), at: c)
        #expect(r.message == "limit_price 1939.31 is outside today's price limits for 600519: 1586.7 – 1939.3")
        #expect(f.place(buy("600519", "100", .limit, limit: "1939.30"), at: c).order != nil)
    }

    @Test("selling more than is held is rejected (403 insufficient qty)")
    mutating func sellMoreThanHeld() {
        let r = f.place(sell("AAPL", "1"), at: t)
        #expect(r.rejection?.reason == .insufficientQty)
        _ = f.place(buy("AAPL", "5"), at: t)
        #expect(
            f.place(sell("AAPL", "6"), at: t).message
                == "insufficient qty available for order (requested: 6, available: 5)")
        #expect(f.place(sell("AAPL", "5"), at: t).order?.status == .filled)
    }

    @Test("T+1: A-shares bought today cannot be sold today")
    mutating func tPlusOne() {
        #expect(f.place(buy("600519", "100"), at: c).order?.status == .filled)
        let r = f.place(sell("600519", "100"), at: c.adding(seconds: 60))
        #expect(
            r.message
                == "T+1: 100 of your 100 shares of 600519 were bought today and can be sold from the next trading day; sellable now: 0"
        )
        #expect(r.rejection?.reason == .notSellableToday)
        // Next trading day (Monday) it can be sold.
        let monday = Timestamp(CivilDate(2026, 11, 23), hour: 10, in: .shanghai)
        f.reference(f.moutai, previousClose: "1760.00", at: monday)
        f.quote(f.moutai, bid: "1761.00", ask: "1761.50", at: monday)
        #expect(f.place(sell("600519", "100"), at: monday).order?.status == .filled)
    }

    @Test("insufficient buying power is rejected with the figures")
    mutating func buyingPower() {
        let r = f.place(buy("AAPL", "1000", .limit, limit: "150.00"), at: t)
        #expect(r.message == "insufficient buying power (required: 150000.00, available: 100000.00)")
        #expect(r.rejection?.reason == .insufficientBuyingPower)
    }

    @Test("market orders reserve buying power with a cushion above the ask")
    mutating func marketCushion() {
        // 660 × 150.05 = 99,033 fits, but with the 3% cushion (150.05 × 1.03 = 154.5515) it needs 102,003.99.
        let r = f.place(buy("AAPL", "660"), at: Timestamp(CivilDate(2026, 11, 20), hour: 8, in: .newYork))
        #expect(r.message == "insufficient buying power (required: 102003.99, available: 100000.00)")
        // What fits is held back at exactly the price validation asked for: 600 × 154.5515 = 92,730.90.
        let placed = f.place(buy("AAPL", "600"), at: Timestamp(CivilDate(2026, 11, 20), hour: 8, in: .newYork))
        #expect(placed.order?.reservedCash == d("92730.90"))
        #expect(f.engine.account(f.us)?.reservedCash == d("92730.90"))
        #expect(f.engine.account(f.us)?.buyingPower == d("7269.10"))
    }

    @Test("client_order_id must be unique per account")
    mutating func duplicateClientOrderID() {
        var request = buy("AAPL", "1", .limit, limit: "100.00")
        request.clientOrderID = "my-1"
        #expect(f.place(request, at: t).order?.clientOrderID == "my-1")
        let again = f.place(request, at: t)
        #expect(again.message == "client_order_id must be unique")
        #expect(again.rejection?.reason == .duplicateClientOrderID)
        #expect(f.engine.order(clientOrderID: "my-1", account: f.us) != nil)
    }

    @Test(
        "a client_order_id the engine made (a UUID) is taken too: reusing its text is refused; another case is another id"
    )
    mutating func generatedClientOrderIDs() throws {
        let made = try #require(f.place(buy("AAPL", "1", .limit, limit: "100.00"), at: t).order)
        let text = made.clientOrderID.text
        #expect(text.count == 36 && text == text.lowercased() && Identifier(text) != nil)
        #expect(f.engine.order(clientOrderID: ClientOrderID(text), account: f.us)?.id == made.id)

        var reuse = buy("AAPL", "1", .limit, limit: "100.00")
        reuse.clientOrderID = ClientOrderID(text)
        #expect(f.place(reuse, at: t).rejection?.reason == .duplicateClientOrderID)
        // Upper case is other text, so another id; it stays as given.
        reuse.clientOrderID = ClientOrderID(text.uppercased())
        #expect(f.place(reuse, at: t).order?.clientOrderID.text == text.uppercased())
        #expect(f.place(reuse, at: t).rejection?.reason == .duplicateClientOrderID)
        // A caller's own UUID is unique like any text.
        reuse.clientOrderID = "0192f3a4-5b6c-7d8e-9fa0-b1c2d3e4f506"
        #expect(f.place(reuse, at: t).order?.clientOrderID.text == "0192f3a4-5b6c-7d8e-9fa0-b1c2d3e4f506")
        #expect(f.place(reuse, at: t).rejection?.reason == .duplicateClientOrderID)
        #expect(
            ClientOrderID(text) == made.clientOrderID && ClientOrderID(text).hashValue == made.clientOrderID.hashValue)
        #expect(ClientOrderID(text.uppercased()) != made.clientOrderID)
    }

    @Test(
        "the engine knows the client_order_ids of the orders it holds: thousands taken while held, forgotten once pruned (the owner's storage has them)"
    )
    mutating func clientOrderIDsFollowTheOrdersHeld() throws {
        // Orders placed and canceled, so the account's cash never runs out; every third with an id of its own.
        var closed: [Order] = []
        for k in 0..<4_500 {
            var request = buy("AAPL", "1", .limit, limit: "100.00")
            if k % 3 == 0 { request.clientOrderID = ClientOrderID("mine-\(k)") }
            let order = try #require(f.place(request, at: t.adding(seconds: Int64(k))).order)
            closed.append(try f.engine.cancel(order.id, account: f.us, at: t.adding(seconds: Int64(k))))
        }
        var open = buy("AAPL", "1", .limit, limit: "100.00")
        open.clientOrderID = "still-open"
        let resting = try #require(f.place(open, at: t.adding(seconds: 4_500)).order)
        for k in [0, 1, 2_047, 4_095, 4_096, 4_497, 4_499] {
            #expect(f.engine.order(clientOrderID: closed[k].clientOrderID, account: f.us)?.id == closed[k].id)
            var reuse = buy("AAPL", "1", .limit, limit: "100.00")
            reuse.clientOrderID = closed[k].clientOrderID
            #expect(f.place(reuse, at: t.adding(seconds: 5_000)).rejection?.reason == .duplicateClientOrderID)
        }
        // Pruned (their owner made them durable): the engine no longer holds them or their ids.
        #expect(f.engine.prune(closed.map(\.id)).isEmpty)
        for k in [0, 2_047, 4_497, 4_499] {
            #expect(f.engine.order(clientOrderID: closed[k].clientOrderID, account: f.us) == nil)
        }
        #expect(f.engine.order(clientOrderID: "still-open", account: f.us)?.id == resting.id)
        #expect(f.place(open, at: t.adding(seconds: 5_001)).rejection?.reason == .duplicateClientOrderID)
        // The restored engine knows the open order's id, nothing else.
        var restored = Fixture()
        try restored.engine.restore(try #require(f.engine.snapshot(of: f.us)))
        #expect(restored.engine.order(clientOrderID: "still-open", account: f.us)?.id == resting.id)
        #expect(restored.place(open, at: t.adding(seconds: 5_001)).rejection?.reason == .duplicateClientOrderID)
    }

    @Test(
        "engine-made client_order_ids are per account and an open order's survives a snapshot: another account may use one; restored, it is still taken"
    )
    mutating func madeClientOrderIDsAcrossAccounts() throws {
        let first = try #require(f.place(buy("AAPL", "1", .limit, limit: "100.00"), at: t).order)
        let second = try #require(f.place(buy("AAPL", "1", .limit, limit: "100.00"), at: t).order)
        #expect(first.clientOrderID < second.clientOrderID)
        // The CNY account may use the USD account's id as its own.
        var mine = OrderRequest(
            symbol: "600519", side: .buy, type: .limit, timeInForce: .day, qty: 100, limitPrice: d("1700.00"))
        mine.clientOrderID = first.clientOrderID
        let theirs = try #require(f.place(mine, at: Fixture.cnMorning).order)
        #expect(f.engine.order(clientOrderID: first.clientOrderID, account: f.cn)?.id == theirs.id)
        #expect(f.engine.order(clientOrderID: first.clientOrderID, account: f.us)?.id == first.id)

        let snapshot = try #require(f.engine.snapshot(of: f.us))
        #expect(Set(snapshot.openOrders.map(\.clientOrderID)) == [first.clientOrderID, second.clientOrderID])
        var restored = Fixture()
        try restored.engine.restore(snapshot)
        var reuse = buy("AAPL", "1", .limit, limit: "100.00")
        reuse.clientOrderID = second.clientOrderID
        #expect(restored.place(reuse, at: t).rejection?.reason == .duplicateClientOrderID)
        #expect(restored.engine.order(clientOrderID: second.clientOrderID, account: f.us)?.id == second.id)
    }

    @Test("opg orders are refused between 09:28 and 19:00 ET, cls between 15:50 and 19:00")
    mutating func auctionWindows() {
        let r = f.place(
            buy("AAPL", "1", tif: .opg), at: Timestamp(CivilDate(2026, 11, 20), hour: 9, minute: 29, in: .newYork))
        #expect(r.message == "opg orders are not accepted between 09:28 and 19:00 ET")
        let early = f.place(buy("AAPL", "1", tif: .opg), at: Timestamp(CivilDate(2026, 11, 20), hour: 8, in: .newYork))
        #expect(early.order?.status == .new)
        let cls = f.place(
            buy("AAPL", "1", tif: .cls), at: Timestamp(CivilDate(2026, 11, 20), hour: 15, minute: 55, in: .newYork))
        #expect(cls.message == "cls orders are not accepted between 15:50 and 19:00 ET")
    }

    @Test("ioc and fok need continuous trading; A-share market orders too")
    mutating func marketClosedForTIF() {
        let night = Timestamp(CivilDate(2026, 11, 20), hour: 22, in: .newYork)
        var request = buy("AAPL", "1", .limit, limit: "150.00", tif: .ioc)
        #expect(f.place(request, at: night).message == "market is closed; ioc orders need continuous trading")
        request.timeInForce = .fok
        #expect(f.place(request, at: night).rejection?.reason == .marketClosed)
        let lunch = Timestamp(CivilDate(2026, 11, 20), hour: 12, in: .shanghai)
        #expect(
            f.place(buy("600519", "100"), at: lunch).message
                == "market orders for SSE are accepted only during continuous trading (09:30–11:30, 13:00–14:57 CST); market is lunch break"
        )
        // A limit order at lunch is accepted and waits.
        #expect(f.place(buy("600519", "100", .limit, limit: "1700.00"), at: lunch).order?.status == .new)
    }

    @Test("request shape: qty xor notional, positive, prices required by type")
    mutating func requestShape() {
        #expect(f.place(OrderRequest(symbol: "AAPL", side: .buy), at: t).message == "qty or notional is required")
        #expect(
            f.place(OrderRequest(symbol: "AAPL", side: .buy, qty: 1, notional: 100), at: t).message
                == "only one of qty or notional may be given")
        #expect(f.place(buy("AAPL", "0"), at: t).message == "qty must be > 0")
        #expect(f.place(buy("AAPL", "-1"), at: t).message == "qty must be > 0")
        #expect(f.place(buy("AAPL", "1", .limit), at: t).message == "limit_price is required for limit orders")
        #expect(f.place(buy("AAPL", "1", .stop), at: t).message == "stop_price is required for stop orders")
        #expect(
            f.place(buy("AAPL", "1", .stopLimit, stop: "151.00"), at: t).message
                == "stop_price and limit_price are required for stop_limit orders")
        #expect(
            f.place(buy("AAPL", "1", .trailingStop), at: t).message
                == "trailing_stop orders need exactly one of trail_price or trail_percent")
        #expect(f.place(buy("AAPL", "1", .limit, limit: "-5"), at: t).message == "limit_price must be > 0")
        #expect(f.place(buy("ZZZZ", "1"), at: t).message == "asset ZZZZ not found")
        #expect(
            f.place(buy("600519", "100"), account: f.us, at: t).message
                == "600519 trades in CNY; this account holds USD")
    }

    @Test("fractional and notional orders: market day only, fractionable instruments only")
    mutating func fractional() {
        #expect(
            f.place(buy("AAPL", "0.5", .limit, limit: "150.00"), at: t).message
                == "fractional orders must be market orders with time_in_force day")
        #expect(f.place(buy("AAPL", "0.5"), at: t).order?.status == .filled)
        #expect(
            f.place(OrderRequest(symbol: "AAPL", side: .buy, notional: d("100.50")), at: t).order?.status == .filled)
        #expect(
            f.place(OrderRequest(symbol: "600519", side: .buy, notional: d("1000")), at: c).message
                == "notional orders are not available for 600519: it trades in whole shares")
        #expect(
            f.place(
                OrderRequest(symbol: "AAPL", side: .buy, type: .limit, notional: d("100"), limitPrice: d("150")), at: t
            ).message
                == "notional orders must be market orders with time_in_force day")
    }

    @Test("extended hours: US limit orders with day or gtc only")
    mutating func extendedHours() {
        var request = buy("AAPL", "1")
        request.extendedHours = true
        #expect(
            f.place(request, at: t).message
                == "extended hours orders must be limit orders with time_in_force day or gtc")
        var cn = buy("600519", "100", .limit, limit: "1760.00")
        cn.extendedHours = true
        #expect(f.place(cn, at: c).message == "extended hours trading is not available on SSE")
    }
}
