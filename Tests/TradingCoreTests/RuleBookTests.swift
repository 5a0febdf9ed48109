import Testing
import TradingCore

@Suite("Queue rules")
struct RuleBookTests {
    let account = AccountID(high: 9, low: 9)
    let moutai = InstrumentID(0)
    let aapl = InstrumentID(1)
    let t = Fixture.cnMorning
    /// 600519 after a 1763.00 close: limit-up 1939.30.
    let band = PriceBand(limitDown: d("1586.70"), limitUp: d("1939.30"))

    func rule(
        _ n: UInt64, _ condition: RuleCondition, lifetime: RuleLifetime = .untilTriggered, symbol: String = "600519"
    ) -> QueueRule {
        QueueRule(
            id: QueueRuleID(high: 1, low: n), accountID: account, symbol: symbol, condition: condition,
            action: RuleAction(side: .buy, qty: 100, pricing: .limitUp), lifetime: lifetime, createdAt: t)
    }

    func fire(
        _ book: inout RuleBook, _ price: String, instrument: InstrumentID? = nil, previousClose: String = "1763.00"
    ) -> [UInt64] {
        var fired: [QueueRule] = []
        book.evaluate(instrument ?? moutai, price: d(price), previousClose: d(previousClose), band: band, into: &fired)
        return fired.map(\.id.low)
    }

    @Test("price and change conditions fire at their level, once")
    func priceConditions() {
        var book = RuleBook()
        book.add(rule(1, .priceAtLeast(d("1800"))), instrument: moutai)
        book.add(rule(2, .priceAtMost(d("1700"))), instrument: moutai)
        book.add(rule(3, .changePercentAtLeast(d("5"))), instrument: moutai) // ≥ 1851.15
        book.add(rule(4, .changePercentAtMost(d("-3"))), instrument: moutai) // ≤ 1710.11
        #expect(fire(&book, "1799.99").isEmpty)
        #expect(fire(&book, "1800.00") == [1])
        #expect(fire(&book, "1851.14").isEmpty)
        #expect(fire(&book, "1851.15") == [3])
        #expect(fire(&book, "1710.12").isEmpty)
        #expect(fire(&book, "1710.11") == [4])
        #expect(fire(&book, "1700") == [2])
        #expect(fire(&book, "1900").isEmpty) // fired rules are gone: exactly once
        #expect(book.count == 0)
    }

    @Test("limit-up conditions: within an amount, within a percentage, touching")
    func limitUp() {
        var book = RuleBook()
        book.add(rule(1, .withinOfLimitUp(d("10"))), instrument: moutai) // ≥ 1929.30
        book.add(rule(2, .withinPercentOfLimitUp(d("1"))), instrument: moutai) // ≥ 1919.907
        book.add(rule(3, .touchesLimitUp), instrument: moutai)
        book.add(rule(4, .withinOfLimitDown(d("5"))), instrument: moutai) // ≤ 1591.70
        #expect(fire(&book, "1919.90").isEmpty)
        #expect(fire(&book, "1919.91") == [2])
        #expect(fire(&book, "1929.30") == [1])
        #expect(fire(&book, "1939.29").isEmpty)
        #expect(fire(&book, "1939.30") == [3])
        #expect(fire(&book, "1591.70") == [4])
        #expect(
            rule(9, .withinOfLimitUp(d("10"))).condition.triggerLevel(previousClose: d("1763"), band: band)
                == d("1929.30"))
        #expect(RuleCondition.touchesLimitUp.triggerLevel(previousClose: nil, band: band) == d("1939.30"))
    }

    @Test("moving-average crosses fire on the crossing, not while above")
    func movingAverage() {
        var book = RuleBook()
        book.add(rule(1, .crossesAboveMovingAverage(bars: 3), symbol: "AAPL"), instrument: aapl)
        book.add(rule(2, .crossesBelowMovingAverage(bars: 3), symbol: "AAPL"), instrument: aapl)
        for close in ["100", "101", "102"] { book.recordClose(aapl, close: d(close)) } // average 101
        #expect(fire(&book, "100.50", instrument: aapl).isEmpty) // below: remembered
        #expect(fire(&book, "101.50", instrument: aapl) == [1]) // crossed above
        #expect(fire(&book, "100.90", instrument: aapl) == [2]) // crossed below
    }

    @Test("a price update evaluates only that instrument's rules")
    func noWorkForOtherSymbols() {
        var book = RuleBook()
        for n in 0..<50 { book.add(rule(UInt64(n), .priceAtLeast(d("5000"))), instrument: moutai) }
        book.add(rule(99, .priceAtLeast(d("500")), symbol: "AAPL"), instrument: aapl)
        _ = fire(&book, "100", instrument: aapl)
        #expect(book.evaluations == 1)
        _ = fire(&book, "1800")
        #expect(book.evaluations == 51)
        _ = fire(&book, "1800", instrument: InstrumentID(7)) // nothing queued there
        #expect(book.evaluations == 51)
    }

    @Test("lifetimes: until a date, for one session; canceled rules never fire")
    func lifetimes() {
        var book = RuleBook()
        book.add(rule(1, .priceAtLeast(d("1800")), lifetime: .until(CivilDate(2026, 11, 20))), instrument: moutai)
        book.add(rule(2, .priceAtLeast(d("1800")), lifetime: .session(CivilDate(2026, 11, 20))), instrument: moutai)
        book.add(rule(3, .priceAtLeast(d("1800"))), instrument: moutai)
        #expect(book.expire(on: CivilDate(2026, 11, 20)).isEmpty)
        #expect(book.expire(on: CivilDate(2026, 11, 23)).map(\.id.low).sorted() == [1, 2])
        #expect(book.remove(QueueRuleID(high: 1, low: 3)) != nil)
        #expect(fire(&book, "1900").isEmpty)
    }

    @Test("the action becomes an order: limit at limit-up needs today's band")
    func actions() throws {
        let action = RuleAction(side: .buy, qty: 100, pricing: .limitUp)
        let request = try action.request(symbol: "600519", band: band, clientOrderID: "rule-1").get()
        #expect(request.type == .limit && request.limitPrice == d("1939.30") && request.qty == 100)
        #expect(action.request(symbol: "600519", band: nil, clientOrderID: "rule-1").rejection?.reason == .noQuote)
        let market = try RuleAction(side: .buy, notional: 1000).request(symbol: "AAPL", band: nil, clientOrderID: "r")
            .get()
        #expect(market.type == .market && market.notional == 1000)
    }
}
