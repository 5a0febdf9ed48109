import Testing
import TradingCore

/// Market rules as the engine applies them to orders (the rule types themselves are in InstrumentRuleTests).
@Suite("Market rules in the engine")
struct MarketRuleEngineTests {
    var f = Fixture()
    let t = Fixture.usMorning
    let c = Fixture.cnMorning

    @Test("bars: a limit buy fills at the open if the open is below it, else at the limit when the low goes through")
    mutating func barFills() throws {
        f.trade(f.aapl, "100.00", at: t)
        let a = try #require(f.place(buy("AAPL", "10", .limit, limit: "99.00"), at: t).order)
        let b = try #require(f.place(buy("AAPL", "10", .limit, limit: "101.00"), at: t).order)
        f.engine.apply(
            MarketEvent(
                instrument: f.aapl, time: t.adding(seconds: 60),
                kind: .bar(
                    Bar(
                        open: d("100.50"), high: d("100.90"), low: d("98.50"), close: d("99.20"), volume: 10_000))))
        #expect(f.engine.order(a.id)?.filledAvgPrice == d("99.00"))
        #expect(f.engine.order(b.id)?.filledAvgPrice == d("100.50"))
    }

    @Test("STAR: buys of at least 200 shares, then any whole number")
    mutating func starLots() {
        f.reference(f.star, previousClose: "50.00", at: c)
        f.quote(f.star, bid: "50.00", ask: "50.01", size: 10_000, at: c)
        #expect(
            f.place(buy("688981", "150"), at: c).message
                == "qty 150 for 688981 is below the minimum order of 200 shares")
        #expect(f.place(buy("688981", "201"), at: c).order?.status == .filled)
    }

    @Test("an odd lot can be sold only together with the whole remaining position")
    mutating func oddLotSellOut() throws {
        f.reference(f.moutai, previousClose: "1763.00", at: c)
        f.quote(f.moutai, bid: "1760.00", ask: "1760.50", at: c)
        _ = f.place(buy("600519", "200"), at: c)
        let monday = Timestamp(CivilDate(2026, 11, 23), hour: 10, in: .shanghai)
        f.reference(f.moutai, previousClose: "1760.00", at: monday)
        f.quote(f.moutai, bid: "1761.00", ask: "1761.50", at: monday)
        _ = f.place(sell("600519", "100"), at: monday)
        // 100 left: selling 50 of it is refused, selling all 100 (a lot) is fine; an odd remainder likewise.
        #expect(f.place(sell("600519", "50"), at: monday).rejection?.reason == .lotSize)
        #expect(f.place(sell("600519", "100"), at: monday).order?.status == .filled)
    }

    @Test("no price limit in an IPO's first five trading days")
    mutating func ipoNoLimit() throws {
        let listed = Instrument.aShare("603999", name: "新股", listingDate: CivilDate(2026, 11, 18))!
        let id = f.engine.register(listed)
        f.reference(id, previousClose: "10.00", at: c) // day 3 of trading
        f.quote(id, bid: "15.00", ask: "15.01", at: c)
        #expect(f.engine.priceBand(id) == nil)
        #expect(f.place(buy("603999", "100", .limit, limit: "15.01"), at: c).order?.status == .filled)
        let later = Timestamp(CivilDate(2026, 11, 26), hour: 10, in: .shanghai) // day 7
        f.reference(id, previousClose: "15.00", at: later)
        #expect(f.engine.priceBand(id) == PriceBand(limitDown: d("13.50"), limitUp: d("16.50")))
    }

    @Test("a US market order placed while the market is closed waits for the open")
    mutating func queuedMarketOrder() throws {
        let night = Timestamp(CivilDate(2026, 11, 19), hour: 21, in: .newYork)
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: night)
        let o = try #require(f.place(buy("AAPL", "5"), at: night).order)
        #expect(o.status == .new)
        #expect(o.expiresAt == Timestamp(CivilDate(2026, 11, 20), hour: 16, in: .newYork))
        f.quote(f.aapl, bid: "151.00", ask: "151.05", at: t)
        #expect(f.engine.order(o.id)?.filledAvgPrice == d("151.05"))
    }

    @Test("gtc orders expire after 90 days, at that day's close")
    mutating func gtcLifetime() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        let o = try #require(f.place(buy("AAPL", "1", .limit, limit: "100.00", tif: .gtc), at: t).order)
        #expect(o.expiresAt == Timestamp(CivilDate(2027, 2, 18), hour: 16, in: .newYork))
        f.engine.advance(to: Timestamp(CivilDate(2027, 2, 19), hour: 10, in: .newYork))
        #expect(f.engine.order(o.id)?.status == .expired)
    }

    @Test("notional sells sell the amount's worth, in fractions")
    mutating func notionalSell() throws {
        f.quote(f.aapl, bid: "200.00", ask: "200.02", at: t)
        _ = f.place(buy("AAPL", "10"), at: t)
        let o = try #require(f.place(OrderRequest(symbol: "AAPL", side: .sell, notional: d("300")), at: t).order)
        #expect(o.status == .filled)
        #expect(o.filledQty == d("1.5"))
        #expect(f.position(f.us, f.aapl)?.qty == d("8.5"))
    }

    @Test("the A-share opening call auction fills opg orders at the auction price")
    mutating func aShareOpeningAuction() throws {
        let early = Timestamp(CivilDate(2026, 11, 20), hour: 9, minute: 16, in: .shanghai)
        f.reference(f.moutai, previousClose: "1763.00", at: early)
        let o = try #require(
            f.place(
                OrderRequest(
                    symbol: "600519", side: .buy, type: .limit, timeInForce: .opg, qty: 100,
                    limitPrice: d("1770.00")), at: early
            ).order)
        let uncross = Timestamp(CivilDate(2026, 11, 20), hour: 9, minute: 25, in: .shanghai)
        f.engine.apply(
            MarketEvent(instrument: f.moutai, time: uncross, kind: .auction(.open, price: d("1765.00"), volume: 50_000))
        )
        #expect(f.engine.order(o.id)?.filledAvgPrice == d("1765.00"))
        #expect(f.engine.order(o.id)?.status == .filled)
    }
}
