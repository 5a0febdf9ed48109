import Testing
import TradingCore

@Suite("Account ledger")
struct LedgerTests {
    var f = Fixture()
    let t = Fixture.usMorning
    let c = Fixture.cnMorning

    @Test("open buy orders reserve buying power; canceling releases it")
    mutating func reservations() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        let o = try #require(f.place(buy("AAPL", "100", .limit, limit: "140.00"), at: t).order)
        #expect(f.engine.account(f.us)?.buyingPower == d("86000"))
        #expect(f.cash(f.us) == d("100000"))
        try f.engine.cancel(o.id, account: f.us, at: t)
        #expect(f.engine.account(f.us)?.buyingPower == d("100000"))
        #expect(f.engine.order(o.id)?.status == .canceled)
        #expect(throws: OrderRejection(.notCancelable, "order is canceled and can no longer be canceled")) {
            try f.engine.cancel(o.id, account: f.us, at: t)
        }
    }

    @Test("buy reservations include the fees the order will pay (per-share commission with a minimum)")
    mutating func reservationIncludesFees() throws {
        // An IB-style schedule: $0.005 a share, at least $1 an order, on both sides.
        let perShare = FeeSchedule(components: [
            FeeComponent(
                kind: .commission, sides: .both,
                basis: .shares(perShare: d("0.005")), minimum: d("1"), rounding: .halfUp)
        ])
        f = Fixture(usFees: perShare)
        f.quote(f.aapl, bid: "20.00", ask: "20.05", at: t)
        _ = try #require(f.place(buy("AAPL", "100", .limit, limit: "10.00"), at: t).order)
        #expect(f.engine.account(f.us)?.buyingPower == d("100000") - d("1001")) // 100 × 10 + max(0.50, 1)
        let big = try #require(f.place(buy("AAPL", "1000", .limit, limit: "10.00"), at: t).order)
        #expect(big.reservedCash == d("10005")) // 1000 × 10 + 5.00
    }

    @Test("positions: quantity, average entry price, cost basis, realized and unrealized P&L, day change")
    mutating func positions() throws {
        f.quote(f.aapl, bid: "99.90", ask: "100.00", at: t)
        _ = f.place(buy("AAPL", "10"), at: t)
        f.quote(f.aapl, bid: "109.90", ask: "110.00", at: t.adding(seconds: 1))
        _ = f.place(buy("AAPL", "10"), at: t.adding(seconds: 1))
        var p = try #require(f.position(f.us, f.aapl))
        #expect(p.qty == d("20"))
        #expect(p.averageEntryPrice == d("105"))
        #expect(p.costBasis == d("2100"))
        _ = f.place(sell("AAPL", "5"), at: t.adding(seconds: 1)) // at the 109.90 bid
        p = try #require(f.position(f.us, f.aapl))
        #expect(p.qty == d("15"))
        #expect(p.costBasis == d("1575"))
        #expect(p.realizedPnL == d("24.49")) // 5 × (109.90 − 105) = 24.50, less TAF 0.01
        let v = p.valuation(at: d("120"), previousClose: d("118"))
        #expect(v.marketValue == d("1800"))
        #expect(v.unrealizedPnL == d("225"))
        #expect(v.unrealizedPnLPercent == d("0.142857"))
        #expect(v.dayChange == d("30"))
    }

    @Test("A-share fees are charged per order: the ¥5 minimum once, even over partial fills")
    mutating func feesPerOrder() throws {
        f.reference(f.moutai, previousClose: "1763.00", at: c)
        let quote = Quote(bids: BookSide([(d("1760.00"), 100)]), asks: BookSide([(d("17.60"), 0)]))
        _ = quote
        f.engine.apply(
            MarketEvent(
                instrument: f.moutai, time: c,
                kind: .quote(
                    Quote(
                        bids: BookSide([(d("1760.00"), 100)]),
                        asks: BookSide([(d("1760.50"), 100), (d("1761.00"), 100)])))))
        let o = try #require(f.place(buy("600519", "300", .limit, limit: "1761.00"), at: c).order)
        // 100 @ 1760.50 + 100 @ 1761.00 = 352,150: commission 88.04 (> ¥5), transfer 3.52; no stamp duty on buys.
        #expect(o.filledQty == d("200"))
        #expect(o.fees == d("91.56"))
        let feeEntries = f.ledger(f.cn).filter { if case .fee = $0.kind { return true } else { return false } }
        #expect(feeEntries.reduce(FixedDecimal.zero) { $0 - $1.cashChange } == d("91.56"))
        #expect(f.cash(f.cn) == d("1000000") - d("352150") - d("91.56"))
    }

    @Test("deposits and withdrawals carry a method and note; withdrawals never exceed buying power")
    mutating func cashMovements() throws {
        let e = try f.engine.deposit(d("2500.00"), to: f.cn, method: .card, note: "birthday", at: c)
        #expect(e.kind == .deposit(method: .card, note: "birthday"))
        #expect(f.cash(f.cn) == d("1002500"))
        try f.engine.withdraw(d("500"), from: f.cn, method: .bank, note: nil, at: c)
        #expect(f.cash(f.cn) == d("1002000"))
        #expect(
            throws: OrderRejection(
                .insufficientBuyingPower, "cannot withdraw 2000000.00 CNY: only 1002000.00 is available")
        ) {
            try f.engine.withdraw(d("2000000"), from: f.cn, at: c)
        }
        #expect(throws: OrderRejection(.invalidInput, "amount must be greater than 0")) {
            try f.engine.deposit(d("-5"), to: f.cn, method: .bank, at: c)
        }
        #expect(throws: OrderRejection(.invalidInput, "amount 1.005 has more than 2 decimal places")) {
            try f.engine.deposit(d("1.005"), to: f.cn, method: .bank, at: c)
        }
    }

    @Test("deposits cannot build a balance past the maximum, one large deposit at a time")
    mutating func maximumBalance() throws {
        // (Deposits are at most 10^12 each; a thousand of them would pass 10^15.)
        for _ in 0..<999 { try f.engine.deposit(d("1000000000000"), to: f.cn, method: .bank, at: c) }
        #expect(f.cash(f.cn) == d("999000001000000"))
        #expect(
            throws: OrderRejection(
                .invalidInput, "this deposit would take the cash balance above the maximum of 1000000000000000")
        ) {
            try f.engine.deposit(d("1000000000000"), to: f.cn, method: .bank, at: c)
        }
        try f.engine.deposit(d("999999000000"), to: f.cn, method: .bank, at: c)
        #expect(f.cash(f.cn) == TradingEngine.maximumBalance)
    }

    @Test("reset cancels open orders, clears positions and restores the starting balance")
    mutating func reset() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        _ = f.place(buy("AAPL", "10"), at: t)
        let open = try #require(f.place(buy("AAPL", "1", .limit, limit: "100.00"), at: t).order)
        try f.engine.reset(f.us, at: t)
        #expect(f.cash(f.us) == d("100000"))
        #expect(f.engine.account(f.us)?.positions.isEmpty == true)
        #expect(f.engine.account(f.us)?.buyingPower == d("100000"))
        #expect(f.engine.order(open.id)?.status == .canceled)
        #expect(f.engine.order(open.id)?.reason == "account reset")
        try f.engine.reset(f.us, startingCash: d("25000"), at: t)
        #expect(f.cash(f.us) == d("25000"))
    }

    @Test("the activity log replays to the live balances")
    mutating func replay() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        _ = f.place(buy("AAPL", "10"), at: t)
        _ = f.place(sell("AAPL", "3"), at: t)
        try f.engine.deposit(d("10"), to: f.us, method: .transfer, at: t)
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
        #expect(replay.holdings["AAPL"]?.qty == f.position(f.us, f.aapl)?.qty)
        #expect(replay.holdings["AAPL"]?.costBasis == f.position(f.us, f.aapl)?.costBasis)
        #expect(replay.holdings["AAPL"]?.realizedPnL == f.position(f.us, f.aapl)?.realizedPnL)
    }

    @Test("snapshot and restore carry balances, positions and working orders into a new engine")
    mutating func snapshotRestore() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        _ = f.place(buy("AAPL", "10"), at: t)
        let working = try #require(f.place(buy("AAPL", "5", .limit, limit: "149.00"), at: t).order)
        let snapshot = try #require(f.engine.snapshot(of: f.us))

        // A new engine registering instruments in another order still restores by symbol.
        var engine = TradingEngine()
        engine.register(Instrument.aShare("600519", name: "贵州茅台")!)
        let aapl = engine.register(.usEquity("AAPL", name: "Apple Inc."))
        try engine.restore(snapshot)
        #expect(engine.account(f.us)?.cash == f.cash(f.us))
        #expect(engine.account(f.us)?.positions[aapl]?.qty == d("10"))
        #expect(engine.account(f.us)?.buyingPower == f.engine.account(f.us)?.buyingPower)
        engine.apply(
            .quote(aapl, at: t.adding(seconds: 5), bid: d("148.90"), bidSize: 100, ask: d("148.95"), askSize: 100))
        #expect(engine.order(working.id)?.status == .filled)
        #expect(engine.account(f.us)?.positions[aapl]?.qty == d("15"))
    }
}

@Suite("Order classes, replace and cancel")
struct OrderGroupTests {
    var f = Fixture()
    let t = Fixture.usMorning

    @Test("bracket: exits are held until the entry fills, then one exit filling cancels the other")
    mutating func bracket() throws {
        f.quote(f.aapl, bid: "149.95", ask: "150.00", at: t)
        let request = OrderRequest(
            symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 10,
            limitPrice: d("145.00"), orderClass: .bracket,
            takeProfit: .init(limitPrice: d("160.00")), stopLoss: .init(stopPrice: d("140.00")))
        let entry = try #require(f.place(request, at: t).order)
        #expect(entry.legs.count == 2)
        let tp = entry.legs[0], sl = entry.legs[1]
        #expect(f.engine.order(tp)?.status == .held)
        #expect(f.engine.order(sl)?.status == .held)
        f.quote(f.aapl, bid: "144.90", ask: "145.00", at: t.adding(seconds: 1))
        #expect(f.engine.order(entry.id)?.status == .filled)
        #expect(f.engine.order(tp)?.status == .new)
        #expect(f.engine.order(sl)?.status == .new)
        #expect(f.position(f.us, f.aapl)?.reservedForSale == d("10")) // held once for both exits
        f.quote(f.aapl, bid: "160.10", ask: "160.20", at: t.adding(seconds: 2))
        #expect(f.engine.order(tp)?.status == .filled)
        #expect(f.engine.order(sl)?.status == .canceled)
        #expect(f.position(f.us, f.aapl) == nil)
    }

    @Test("bracket validation: take-profit above stop-loss, buy entries only")
    mutating func bracketValidation() {
        var request = OrderRequest(
            symbol: "AAPL", side: .buy, type: .limit, qty: 10, limitPrice: d("150"), orderClass: .bracket,
            takeProfit: .init(limitPrice: d("140")), stopLoss: .init(stopPrice: d("145")))
        #expect(
            f.place(request, at: t).message == "take_profit.limit_price must be above stop_loss.stop_price for a buy")
        request.takeProfit = nil
        #expect(
            f.place(request, at: t).message == "bracket orders need take_profit.limit_price and stop_loss.stop_price")
    }

    @Test("oco: a take-profit and a stop-loss on a held position; the stop filling cancels the limit")
    mutating func oco() throws {
        f.quote(f.aapl, bid: "149.95", ask: "150.00", at: t)
        _ = f.place(buy("AAPL", "10"), at: t)
        let request = OrderRequest(
            symbol: "AAPL", side: .sell, type: .limit, timeInForce: .gtc, qty: 10,
            limitPrice: d("160.00"), orderClass: .oco,
            takeProfit: .init(limitPrice: d("160.00")), stopLoss: .init(stopPrice: d("140.00")))
        let parent = try #require(f.place(request, at: t).order)
        let stop = try #require(parent.legs.first)
        #expect(f.position(f.us, f.aapl)?.reservedForSale == d("10"))
        f.trade(f.aapl, "139.90", size: 1000, at: t.adding(seconds: 1))
        #expect(f.engine.order(stop)?.status == .filled)
        #expect(f.engine.order(parent.id)?.status == .canceled)
        #expect(f.position(f.us, f.aapl) == nil)
    }

    @Test("oto: one exit activates when the entry fills")
    mutating func oto() throws {
        f.quote(f.aapl, bid: "149.95", ask: "150.00", at: t)
        let request = OrderRequest(
            symbol: "AAPL", side: .buy, qty: 10, orderClass: .oto, stopLoss: .init(stopPrice: d("140.00")))
        let entry = try #require(f.place(request, at: t).order)
        #expect(entry.status == .filled)
        #expect(f.engine.order(entry.legs[0])?.status == .new)
        #expect(f.engine.order(entry.legs[0])?.type == .stop)
    }

    @Test("replace creates a new order that replaces the old one (Alpaca's PATCH)")
    mutating func replace() throws {
        f.quote(f.aapl, bid: "149.95", ask: "150.00", at: t)
        let old = try #require(f.place(buy("AAPL", "10", .limit, limit: "140.00"), at: t).order)
        let new = try f.engine.replace(
            old.id, account: f.us, with: ReplaceRequest(qty: 3, limitPrice: d("141.00")), at: t)
        #expect(new.id != old.id)
        #expect(new.replaces == old.id)
        #expect(new.qty == d("3"))
        #expect(new.limitPrice == d("141.00"))
        #expect(f.engine.order(old.id)?.status == .replaced)
        #expect(f.engine.order(old.id)?.replacedBy == new.id)
        #expect(f.engine.account(f.us)?.buyingPower == d("100000") - d("423"))
    }

    @Test("a replace that would be invalid leaves the old order working")
    mutating func failedReplace() throws {
        f.quote(f.aapl, bid: "149.95", ask: "150.00", at: t)
        let old = try #require(f.place(buy("AAPL", "10", .limit, limit: "140.00"), at: t).order)
        #expect(
            throws: OrderRejection(
                .insufficientBuyingPower, "insufficient buying power (required: 1400000.00, available: 100000.00)")
        ) {
            try f.engine.replace(old.id, account: f.us, with: ReplaceRequest(qty: 10000), at: t)
        }
        #expect(f.engine.order(old.id)?.status == .new)
        #expect(f.engine.account(f.us)?.buyingPower == d("98600"))
    }

    @Test("cancel all cancels every open order of the account only")
    mutating func cancelAll() throws {
        f.quote(f.aapl, bid: "149.95", ask: "150.00", at: t)
        _ = f.place(buy("AAPL", "1", .limit, limit: "140.00"), at: t)
        _ = f.place(buy("AAPL", "1", .limit, limit: "141.00"), at: t)
        let results = try f.engine.cancelAll(account: f.us, at: t)
        #expect(results.count == 2)
        #expect(f.engine.openOrders(of: f.us).isEmpty)
        #expect(throws: OrderRejection(.orderNotFound, "order not found")) {
            try f.engine.cancel(results[0].0, account: f.cn, at: t)
        }
    }
}
