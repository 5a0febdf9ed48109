import Testing
import TradingCore

@Suite("Corporate actions on positions and open orders")
struct CorporateActionTests {
    var f = Fixture(usCash: 100_000, usFees: .free)
    let t = Fixture.usMorning
    let friday = CivilDate(2026, 11, 20)

    init() throws {
        try f.engine.setMarginTerms(.margin, for: f.us)
    }

    func action(
        _ symbol: String, _ kind: CorporateAction.Kind, cash: String = "0", new: Int = 1, old: Int = 1
    ) -> CorporateAction {
        CorporateAction(
            symbol: symbol, kind: kind, declarationDate: CivilDate(2026, 10, 23), exDate: CivilDate(2026, 11, 23),
            recordDate: CivilDate(2026, 11, 23), payableDate: CivilDate(2026, 12, 14), cash: d(cash),
            newRate: FixedDecimal(new), oldRate: FixedDecimal(old))
    }

    @Test("a 4-for-1 split: four times the shares at the same cost basis; open orders ×4 in size, ÷4 in price")
    mutating func forwardSplit() throws {
        f.quote(f.aapl, bid: "199.99", ask: "200.00", at: t)
        _ = try #require(f.place(buy("AAPL", "10"), at: t).order)
        let sell = try #require(f.place(sell("AAPL", "10", .limit, limit: "220.00", tif: .gtc), at: t).order)
        let buyMore = try #require(f.place(buy("AAPL", "5", .limit, limit: "180.01", tif: .gtc), at: t).order)
        let reservedBefore = f.engine.account(f.us)!.reservedCash
        let monday = Timestamp(CivilDate(2026, 11, 23), hour: 4, in: .newYork)
        let applied = f.engine.applyCorporateAction(
            action("AAPL", .forwardSplit, new: 4, old: 1), to: f.us, referencePrice: d("50.00"), at: monday)
        let entry = try #require(applied)
        #expect(entry.cashChange == .zero)
        let position = try #require(f.position(f.us, f.aapl))
        #expect(position.qty == d("40") && position.costBasis == d("2000") && position.averageEntryPrice == d("50"))
        let s = try #require(f.engine.order(sell.id)), b = try #require(f.engine.order(buyMore.id))
        #expect(s.qty == d("40") && s.limitPrice == d("55.00") && s.status == .new)
        // 180.01 ÷ 4 = 45.0025 → 45.00 on the cent grid; 20 × $45.00 holds $900.00 where 5 × $180.01 held $900.05.
        #expect(b.qty == d("20") && b.limitPrice == d("45.00"))
        #expect(reservedBefore == d("900.05") && f.engine.account(f.us)!.reservedCash == d("900.00"))
        #expect(position.reservedForSale == d("40"))
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.holdings["AAPL"]?.qty == d("40") && replay.holdings["AAPL"]?.costBasis == d("2000"))
        #expect(replay.cash == f.cash(f.us))
    }

    @Test("a 1-for-10 reverse split pays the fraction in cash at the reference price and releases its cost")
    mutating func reverseSplitCashInLieu() throws {
        f.quote(f.aapl, bid: "2.99", ask: "3.00", at: t)
        _ = try #require(f.place(buy("AAPL", "25"), at: t).order)
        let cashBefore = f.cash(f.us)
        let order = try #require(f.place(sell("AAPL", "5", .limit, limit: "3.50", tif: .gtc), at: t).order)
        let applied = f.engine.applyCorporateAction(
            action("AAPL", .reverseSplit, new: 1, old: 10), to: f.us, referencePrice: d("31.00"), at: t)
        let entry = try #require(applied)
        // 25 ÷ 10 = 2.5 shares: 2 kept, 0.5 × $31.00 = $15.50 paid; cost $75 × 0.5/2.5 = $15 released.
        guard case .corporateAction(let booking) = entry.kind else {
            Issue.record("not a corporate action")
            return
        }
        #expect(booking.qtyAfter == d("2") && booking.fractionPaid == d("0.5") && booking.releasedCost == d("15"))
        #expect(entry.cashChange == d("15.50") && f.cash(f.us) == cashBefore + d("15.50"))
        let position = try #require(f.position(f.us, f.aapl))
        #expect(position.qty == d("2") && position.costBasis == d("60") && position.realizedPnL == d("0.50"))
        // The open sale of 5 would be half a share: less than one share is left, so it is canceled.
        #expect(f.engine.order(order.id)?.status == .canceled)
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us) && replay.holdings["AAPL"]?.realizedPnL == d("0.50"))
    }

    @Test("a cash dividend credits longs and charges shorts, per share held on the ex-date")
    mutating func dividends() throws {
        f.quote(f.aapl, bid: "199.99", ask: "200.00", at: t)
        _ = try #require(f.place(buy("AAPL", "100"), at: t).order)
        let before = f.cash(f.us)
        let paid = f.engine.applyCorporateAction(
            action("AAPL", .cashDividend, cash: "0.26"), to: f.us, referencePrice: nil, at: t)
        #expect(paid?.cashChange == d("26.00") && f.cash(f.us) == before + d("26"))
        #expect(f.position(f.us, f.aapl)?.qty == d("100") && f.position(f.us, f.aapl)?.costBasis == d("20000"))
        // Sold out and 50 sold short: the short pays the next dividend.
        _ = try #require(f.place(sell("AAPL", "100"), at: t).order)
        _ = try #require(f.place(sell("AAPL", "50"), at: t).order)
        let charged = f.engine.applyCorporateAction(
            action("AAPL", .cashDividend, cash: "0.26"), to: f.us, referencePrice: nil, at: t)
        #expect(charged?.cashChange == d("-13.00"))
        // Nothing held, nothing booked.
        #expect(
            f.engine.applyCorporateAction(
                action("PNNY", .cashDividend, cash: "0.01"), to: f.us, referencePrice: nil, at: t) == nil)
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
    }

    @Test("A-share bonus shares (10送3): 130 shares for 100, the same cost; T+1 locked shares grow with them")
    mutating func bonusShares() throws {
        let cnT = Fixture.cnMorning
        f.engine.apply(MarketEvent(instrument: f.moutai, time: cnT, kind: .reference(previousClose: d("1500.00"))))
        f.quote(f.moutai, bid: "1499.99", ask: "1500.00", at: cnT)
        _ = try #require(f.place(buy("600519", "100"), account: f.cn, at: cnT).order)
        let cost = try #require(f.position(f.cn, f.moutai)?.costBasis)
        let bonus = CorporateAction(
            symbol: "600519", kind: .stockDividend, declarationDate: CivilDate(2026, 11, 6),
            exDate: CivilDate(2026, 11, 20), recordDate: CivilDate(2026, 11, 19), payableDate: CivilDate(2026, 11, 20),
            newRate: 13, oldRate: 10)
        let applied = f.engine.applyCorporateAction(bonus, to: f.cn, referencePrice: d("1153.85"), at: cnT)
        #expect(applied != nil)
        let position = try #require(f.position(f.cn, f.moutai))
        #expect(position.qty == d("130") && position.costBasis == cost && position.lockedQty == d("130"))
    }
}
