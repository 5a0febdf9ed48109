import Testing
import TradingCore

@Suite("Short selling on margin accounts")
struct ShortSellingTests {
    // No fees, so every figure below is the trade itself (fees on shorts are those of any sale: LedgerTests).
    var f = Fixture(usCash: 100_000, usFees: .free)
    let t = Fixture.usMorning
    let ko: InstrumentID // hard to borrow (5% a year) at papertrade's simulated loan desk
    let pltr: InstrumentID // cannot be borrowed

    init() throws {
        ko = f.engine.register(.usEquity("KO", name: "Coca-Cola Co", exchange: .nyse))
        pltr = f.engine.register(.usEquity("PLTR", name: "Palantir Technologies", exchange: .nasdaq))
        try f.engine.setMarginTerms(.margin, for: f.us)
    }

    @Test("the loan desk is deterministic: most names easy to borrow, some hard (with a fee), a few not at all")
    func borrowAvailability() {
        #expect(f.engine.instrument(f.aapl).borrow == .easy)
        #expect(f.engine.instrument(ko).borrow.easyToBorrow == false)
        #expect(f.engine.instrument(ko).borrow.feeRate == d("0.05"))
        #expect(f.engine.instrument(pltr).borrow.shortable == false)
        #expect(f.engine.instrument(f.moutai).borrow.shortable == false) // no 融券 for A-shares here
    }

    @Test("a short sale credits the proceeds, holds 50% more as initial margin, and covering realizes the difference")
    mutating func shortAndCover() throws {
        f.quote(f.aapl, bid: "199.99", ask: "200.00", at: t)
        let order = try #require(f.place(sell("AAPL", "100"), at: t).order)
        #expect(order.status == .filled && order.positionIntent == .sellToOpen)
        #expect(f.cash(f.us) == d("119999"))
        let position = try #require(f.position(f.us, f.aapl))
        #expect(position.qty == d("-100") && position.costBasis == d("-19999"))
        #expect(position.averageEntryPrice == d("199.99"))
        f.trade(f.aapl, "200.00", at: t)
        let m = try #require(f.engine.margin(of: f.us))
        #expect(m.shortMarketValue == d("-20000") && m.longMarketValue == .zero)
        #expect(m.equity == d("99999"))
        // Reg T: 50% of the short's value; maintenance the greater of $5 a share and 30%.
        #expect(m.initialMargin == d("10000") && m.maintenanceMargin == d("6000"))
        #expect(m.regtBuyingPower == d("179998") && m.buyingPower == d("179998"))
        let valuation = position.valuation(at: d("200.00"), previousClose: d("198.00"))
        #expect(valuation.marketValue == d("-20000") && valuation.unrealizedPnL == d("-1"))
        #expect(valuation.dayChange == d("-200"))

        // Buying back at $190 covers: a buy of more than the short is refused, with the reason.
        f.quote(f.aapl, bid: "189.99", ask: "190.00", at: t.adding(seconds: 60))
        let tooMany = f.place(buy("AAPL", "150"), at: t.adding(seconds: 60)).rejection
        #expect(tooMany?.reason == .insufficientQty)
        #expect(
            tooMany?.message
                == "a buy of 150 would cover the 100 shares short in AAPL and open a long position: buy at most 100 to cover, then buy again"
        )
        let cover = try #require(f.place(buy("AAPL", "100"), at: t.adding(seconds: 60)).order)
        #expect(cover.status == .filled && cover.positionIntent == .buyToClose)
        #expect(f.position(f.us, f.aapl) == nil)
        #expect(f.cash(f.us) == d("100999"))
        // The activity log alone says the same: cash, and $999 realized on the round trip.
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == d("100999"))
        #expect(replay.holdings["AAPL"]?.qty == .zero && replay.holdings["AAPL"]?.realizedPnL == d("999"))
    }

    @Test(
        "short sales are refused with the reason: cash and A-share accounts, no_shorting, under $2,000, not shortable, fractions, buying power"
    )
    mutating func refusals() throws {
        f.quote(f.aapl, bid: "199.99", ask: "200.00", at: t)
        f.quote(pltr, bid: "20.00", ask: "20.01", at: t)
        f.quote(f.moutai, bid: "1500.00", ask: "1500.01", at: Fixture.cnMorning)
        #expect(
            f.place(sell("PLTR", "10"), at: t).message
                == "asset PLTR is not shortable: no shares are available to borrow")
        #expect(f.place(sell("PLTR", "10"), at: t).rejection?.reason == .notShortable)
        let fraction = f.place(sell("AAPL", "1.5"), at: t).rejection
        #expect(fraction?.message == "fractional orders cannot be sold short")
        // Orders spend Reg T buying power: twice the $100,000 of equity.
        let big = f.place(sell("AAPL", "1001", .limit, limit: "200.00"), at: t).rejection
        #expect(big?.reason == .insufficientBuyingPower)
        #expect(big?.message == "insufficient buying power (required: 200200.00, available: 200000.00)")
        let cn = f.place(sell("600519", "100", .limit, limit: "1500.00"), account: f.cn, at: Fixture.cnMorning)
        #expect(
            cn.message
                == "insufficient qty available for order: no position in 600519 (A-share accounts cannot sell short)")

        try f.engine.setMarginTerms(MarginTerms(type: .margin, noShorting: true), for: f.us)
        let configured = f.place(sell("AAPL", "10"), at: t).rejection
        #expect(configured?.reason == .shortingNotAllowed)
        try f.engine.setMarginTerms(.cash, for: f.us)
        #expect(
            f.place(sell("AAPL", "10"), at: t).message
                == "insufficient qty available for order: no position in AAPL (short selling needs a margin account)")

        var small = Fixture(usCash: 1_500)
        try small.engine.setMarginTerms(.margin, for: small.us)
        small.quote(small.aapl, bid: "199.99", ask: "200.00", at: t)
        #expect(small.place(sell("AAPL", "1"), at: t).rejection?.reason == .shortingNotAllowed)
    }

    @Test("an open short sale holds buying power like a buy, and releases it when canceled")
    mutating func reservation() throws {
        f.quote(f.aapl, bid: "199.99", ask: "200.00", at: t)
        let order = try #require(f.place(sell("AAPL", "100", .limit, limit: "210.00"), at: t).order)
        #expect(order.status == .new)
        #expect(f.engine.margin(of: f.us)?.buyingPower == d("179000")) // 200,000 − 100 × $210
        _ = try f.engine.cancel(order.id, account: f.us, at: t)
        #expect(f.engine.margin(of: f.us)?.buyingPower == d("200000"))
    }

    @Test("a bracket opened by a short sale exits with buys: take-profit below, stop-loss above")
    mutating func shortBracket() throws {
        f.quote(f.aapl, bid: "200.00", ask: "200.01", at: t)
        var request = sell("AAPL", "100", .limit, limit: "200.00")
        request.orderClass = .bracket
        request.takeProfit = .init(limitPrice: d("180.00"))
        request.stopLoss = .init(stopPrice: d("210.00"))
        var wrong = request
        wrong.takeProfit = .init(limitPrice: d("220.00"))
        #expect(
            f.place(wrong, at: t).message
                == "take_profit.limit_price must be below stop_loss.stop_price for a short sale")
        let entry = try #require(f.place(request, at: t).order)
        #expect(f.position(f.us, f.aapl)?.qty == d("-100"))
        let legs = entry.legs.compactMap { f.engine.order($0) }
        #expect(legs.count == 2 && legs.allSatisfy { $0.side == .buy && $0.positionIntent == .buyToClose })
        #expect(legs.allSatisfy { $0.status == .new })
        // The price falls to $180: the take-profit covers, the stop-loss is canceled.
        f.quote(f.aapl, bid: "179.99", ask: "180.00", at: t.adding(seconds: 60))
        #expect(f.position(f.us, f.aapl) == nil)
        let after = entry.legs.compactMap { f.engine.order($0) }.map(\.status)
        #expect(Set(after) == [.filled, .canceled])
        #expect(f.cash(f.us) == d("102000"))
    }

    @Test("an oco exits a short with buys; a sell oco with no long position is refused")
    mutating func shortOCO() throws {
        f.quote(f.aapl, bid: "200.00", ask: "200.01", at: t)
        var exit = buy("AAPL", "50", .limit, limit: "190.00")
        exit.orderClass = .oco
        exit.stopLoss = .init(stopPrice: d("215.00"))
        #expect(f.place(exit, at: t).rejection?.reason == .invalidInput) // nothing short yet
        _ = try #require(f.place(sell("AAPL", "50"), at: t).order)
        let oco = try #require(f.place(exit, at: t).order)
        #expect(oco.status == .new && oco.positionIntent == .buyToClose)
        // The stop above: a trade at $215 triggers it and covers at the market.
        f.trade(f.aapl, "215.00", at: t.adding(seconds: 60))
        #expect(f.position(f.us, f.aapl) == nil)
        #expect(f.engine.order(oco.id)?.status == .canceled)
    }

    @Test("hard-to-borrow shorts pay a nightly fee: value rounded up to the dollar × rate / 360, easy ones none")
    mutating func borrowFee() throws {
        f.quote(ko, bid: "60.00", ask: "60.01", at: t)
        f.quote(f.aapl, bid: "199.99", ask: "200.00", at: t)
        _ = try #require(f.place(sell("KO", "100"), at: t).order)
        _ = try #require(f.place(sell("AAPL", "10"), at: t).order)
        let friday = CivilDate(2026, 11, 20)
        let close = Timestamp(friday, hour: 16, in: .newYork)
        let marks: [InstrumentID: Price] = [ko: d("60.004"), f.aapl: d("200")]
        let fees = f.engine.chargeBorrowFees(f.us, close: friday, marks: { marks[$0] }, at: close)
        // 100 × $60.004 = $6,000.40 → $6,001; × 5% × 3 nights (Friday to Monday) / 360 = $2.500416… → $2.50.
        #expect(fees.count == 1)
        #expect(fees.first?.cashChange == d("-2.50"))
        #expect(fees.first?.kind == .borrowFee(symbol: "KO", qty: d("100"), rate: d("0.05"), value: d("6001")))
        #expect(f.cash(f.us) == d("100000") + d("6000") + d("1999.90") - d("2.50"))
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us) && replay.holdings["KO"]?.qty == d("-100"))
    }

    @Test("day trades: opened and closed the same day, once per closing order, longs and shorts alike")
    mutating func dayTrades() throws {
        f.quote(f.aapl, bid: "199.99", ask: "200.00", size: 1000, at: t)
        let friday = CivilDate(2026, 11, 20)
        _ = try #require(f.place(buy("AAPL", "10"), at: t).order)
        #expect(f.engine.account(f.us)?.dayTradeCount(on: friday) == 0)
        _ = try #require(f.place(sell("AAPL", "10"), at: t).order)
        #expect(f.engine.account(f.us)?.dayTradeCount(on: friday) == 1)
        // A short sold and covered the same day is one more.
        _ = try #require(f.place(sell("AAPL", "5"), at: t).order)
        _ = try #require(f.place(buy("AAPL", "5"), at: t).order)
        #expect(f.engine.account(f.us)?.dayTradeCount(on: friday) == 2)
        // Shares bought on Friday and sold on Monday are no day trade; Friday's still count in Monday's window.
        _ = try #require(f.place(buy("AAPL", "3"), at: t).order)
        let monday = Timestamp(CivilDate(2026, 11, 23), hour: 10, in: .newYork)
        f.quote(f.aapl, bid: "199.99", ask: "200.00", at: monday)
        _ = try #require(f.place(sell("AAPL", "3"), at: monday).order)
        let account = try #require(f.engine.account(f.us))
        #expect(account.dayTradeCount(on: CivilDate(2026, 11, 23)) == 2)
        // Five trading days later Friday has left the window.
        #expect(account.dayTradeCount(on: CivilDate(2026, 11, 30)) == 0)
        #expect(account.isPatternDayTrader(on: friday) == false)
    }

    @Test("the pattern day trader rule, when turned on: the fourth day trade under $25,000 is refused at entry or exit")
    func patternDayTrader() throws {
        for check in [DayTradeCheck.entry, .exit, .both] {
            var small = Fixture(usCash: 20_000)
            try small.engine.setMarginTerms(
                MarginTerms(type: .margin, dayTradeProtection: true, dayTradeCheck: check), for: small.us)
            small.quote(small.aapl, bid: "99.99", ask: "100.00", at: t)
            for _ in 0..<3 {
                _ = try #require(small.place(buy("AAPL", "10"), at: t).order)
                _ = try #require(small.place(sell("AAPL", "10"), at: t).order)
            }
            #expect(small.engine.account(small.us)?.dayTradeCount(on: CivilDate(2026, 11, 20)) == 3)
            let entry = small.place(buy("AAPL", "10"), at: t)
            if check == .exit {
                _ = try #require(entry.order)
                let exit = small.place(sell("AAPL", "10"), at: t).rejection
                #expect(exit?.reason == .patternDayTrading)
                // The house's own sale for a margin call is not the customer's day trade to refuse.
                var liquidation = sell("AAPL", "10")
                liquidation.isLiquidation = true
                #expect(small.place(liquidation, at: t).order?.status == .filled)
            } else {
                #expect(entry.rejection?.reason == .patternDayTrading)
                #expect(
                    entry.message
                        == "trade denied due to pattern day trading protection: 3 day trades in the last 5 trading days and equity under $25,000"
                )
            }
        }
        // Off (the default), the same fourth day trade goes through and the count says 4: a pattern day trader.
        var free = Fixture(usCash: 20_000)
        try free.engine.setMarginTerms(.margin, for: free.us)
        free.quote(free.aapl, bid: "99.99", ask: "100.00", at: t)
        for _ in 0..<4 {
            _ = try #require(free.place(buy("AAPL", "10"), at: t).order)
            _ = try #require(free.place(sell("AAPL", "10"), at: t).order)
        }
        #expect(free.engine.account(free.us)?.isPatternDayTrader(on: CivilDate(2026, 11, 20)) == true)
    }
}
