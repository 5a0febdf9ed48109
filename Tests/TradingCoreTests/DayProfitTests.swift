import Testing
import TradingCore

/// Today's P&L from a close and the ledger since: the figures Home, the holdings and the 1D report share.
@Suite("Day profit")
struct DayProfitTests {
    let friday = CivilDate(2026, 11, 20)
    let monday = Timestamp(CivilDate(2026, 11, 23), hour: 10, in: .newYork)

    /// Friday: 10 AAPL bought at 150, the day closed at 151.
    func heldOverFriday() -> (Fixture, EquityDay, Int) {
        var f = Fixture()
        f.quote(f.aapl, bid: "150.00", ask: "150.00", at: Fixture.usMorning)
        _ = f.place(buy("AAPL", "10"), at: Fixture.usMorning)
        var builder = EquityDayBuilder(accountID: f.us, currency: .usd, openingCash: d("100000"))
        for entry in f.ledger(f.us) { builder.apply(entry) }
        return (f, builder.close(date: friday, closes: ["AAPL": d("151.00")]), f.ledger(f.us).count)
    }

    func tracker(_ f: Fixture, from close: EquityDay?, after count: Int) -> DayProfitTracker {
        var tracker = DayProfitTracker(close: close, currency: .usd, openingCash: d("100000"), accountID: f.us)
        for entry in f.ledger(f.us).dropFirst(count) { tracker.apply(entry) }
        return tracker
    }

    @Test("shares bought today count from the price paid, not from yesterday's close; deposits are not profit")
    func purchasesCountFromTheirPrice() throws {
        var (f, close, count) = heldOverFriday()
        f.quote(f.aapl, bid: "148.00", ask: "148.00", at: monday)
        _ = f.place(buy("AAPL", "5"), at: monday)
        try f.engine.deposit(d("500"), to: f.us, method: .bank, at: monday)
        let value = d("2250") // the mark now
        let profit = tracker(f, from: close, after: count).profit(equity: f.cash(f.us) + value, values: ["AAPL": value])
        // 10 held from 151 to 150 (−10), 5 bought at 148 now 150 (+10).
        #expect(profit.total == .zero)
        #expect(profit.bySymbol == ["AAPL": FixedDecimal.zero])
        #expect(profit.flows == d("500"))
        // The price change alone says −15: what the day change was before it counted today's purchases.
        let position = try #require(f.position(f.us, f.aapl))
        #expect(position.valuation(at: d("150.00"), previousClose: d("151.00")).dayChange == d("-15"))
    }

    @Test("a holding sold out today keeps its part, and the parts add up to the total")
    func soldOutKeepsItsPart() throws {
        var (f, close, count) = heldOverFriday()
        f.quote(f.aapl, bid: "153.00", ask: "153.00", at: monday)
        _ = f.place(sell("AAPL", "10"), at: monday)
        let profit = tracker(f, from: close, after: count).profit(equity: f.cash(f.us), values: [:])
        // 10 shares from 151 to 153, less the sale's regulatory fees.
        let fees = try #require(f.engine.account(f.us)).totalFees
        #expect(fees > .zero)
        #expect(profit.total == d("20") - fees)
        #expect(profit.bySymbol == ["AAPL": d("20") - fees])
    }

    @Test("fees are in the holding's part; an account opened today counts from its opening cash")
    func feesAndANewAccount() throws {
        var f = Fixture()
        f.quote(f.moutai, bid: "1500.00", ask: "1500.00", at: Fixture.cnMorning)
        _ = f.place(buy("600519", "100"), at: Fixture.cnMorning)
        let account = try #require(f.engine.account(f.cn))
        #expect(account.totalFees > .zero)
        var tracker = DayProfitTracker(close: nil, currency: .cny, openingCash: d("1000000"), accountID: f.cn)
        for entry in f.ledger(f.cn) { tracker.apply(entry) }
        let value = d("151000")
        let profit = tracker.profit(equity: account.cash + value, values: ["600519": value])
        #expect(profit.total == d("1000") - account.totalFees)
        #expect(profit.bySymbol == ["600519": profit.total])
        #expect(profit.flows == d("1000000"))
        #expect(tracker.since == nil)
    }

    @Test("a reset is money moved, not a loss: the holdings' parts start again")
    func resetIsAFlow() throws {
        var (f, close, count) = heldOverFriday()
        try f.engine.reset(f.us, at: monday)
        let profit = tracker(f, from: close, after: count).profit(equity: f.cash(f.us), values: [:])
        #expect(profit.total == .zero)
        #expect(profit.bySymbol.isEmpty)
    }

    @Test("a reset starts the day's figure afresh: a loss before it is not shown after it; what follows counts")
    func resetStartsAfresh() throws {
        var (f, close, count) = heldOverFriday()
        // Monday: AAPL falls to 140 (−110 on the 10 held), a purchase at that price, then the learner resets.
        f.quote(f.aapl, bid: "140.00", ask: "140.00", at: monday)
        _ = f.place(buy("AAPL", "1"), at: monday)
        try f.engine.reset(f.us, at: monday)
        let start = try #require(f.engine.account(f.us)).startingCash
        #expect(f.cash(f.us) == start)
        var profit = tracker(f, from: close, after: count).profit(equity: start, values: [:])
        #expect(profit.total == .zero, "equity is the starting cash with nothing held: nothing gained or lost")
        #expect(profit.startEquity == start && profit.flows == .zero)
        // After it: a deposit is money moved, and a purchase counts from its price.
        let later = monday.adding(seconds: 600)
        try f.engine.deposit(d("1000"), to: f.us, method: .bank, at: later)
        f.quote(f.aapl, bid: "141.00", ask: "141.00", at: later)
        _ = f.place(buy("AAPL", "10"), at: later)
        let value = d("1430") // 10 at 143 now
        profit = tracker(f, from: close, after: count).profit(equity: f.cash(f.us) + value, values: ["AAPL": value])
        let fees = try #require(f.engine.account(f.us)).totalFees
        #expect(profit.flows == d("1000"))
        #expect(profit.total == d("20") - fees)
        #expect(profit.bySymbol == ["AAPL": d("20") - fees])
    }

    @Test("entries already folded are skipped")
    func foldedOnce() throws {
        var (f, close, count) = heldOverFriday()
        f.quote(f.aapl, bid: "152.00", ask: "152.00", at: monday)
        _ = f.place(sell("AAPL", "4"), at: monday)
        var twice = tracker(f, from: close, after: count)
        for entry in f.ledger(f.us) { twice.apply(entry) }
        let value = d("912")
        let once = tracker(f, from: close, after: count).profit(equity: f.cash(f.us) + value, values: ["AAPL": value])
        #expect(twice.profit(equity: f.cash(f.us) + value, values: ["AAPL": value]) == once)
        #expect(once.total == d("10") - (try #require(f.engine.account(f.us)).totalFees))
    }
}
