import Testing
import TradingCore

@Suite("Price alerts")
struct AlertBookTests {
    let aapl = InstrumentID(0)
    let msft = InstrumentID(1)
    /// 10:00 New York on a trading day.
    let t0 = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)
    let day = CivilDate(2026, 11, 20)

    func alert(
        _ n: UInt64, _ condition: AlertCondition, frequency: AlertFrequency = .once,
        timeframe: AlertTimeframe = .day, expiresAt: Timestamp? = nil
    ) -> PriceAlert {
        PriceAlert(
            id: AlertID(high: 1, low: n), symbol: "AAPL", condition: condition, frequency: frequency,
            timeframe: timeframe, expiresAt: expiresAt, createdAt: t0)
    }

    /// Feeds prices one a minute from `start` (minutes after t0); returns, per tick, the alerts that triggered.
    func run(_ book: inout AlertBook, _ prices: [String], start: Int = 0, instrument: InstrumentID? = nil)
        -> [[UInt64]]
    {
        prices.enumerated().map { i, price in
            var triggered: [AlertBook.Trigger] = []
            let now = t0.adding(seconds: Int64(60 * (start + i)))
            book.evaluate(instrument ?? aapl, price: d(price), at: now, tradingDate: day, into: &triggered)
            return triggered.map(\.alert.id.low)
        }
    }

    @Test("crossings trigger on the update that reaches the level from the other side, and only then")
    func crossings() {
        var book = AlertBook()
        book.add(alert(1, .crossing(.value(d("150")))), instrument: aapl)
        book.add(alert(2, .crossingUp(.value(d("150")))), instrument: aapl)
        book.add(alert(3, .crossingDown(.value(d("149")))), instrument: aapl)
        // The first update only sets the previous price: 151 is above 150 but nothing crossed.
        #expect(run(&book, ["151", "150.50", "149.99", "150.00"]) == [[], [], [1], [2]])
        #expect(run(&book, ["149.50", "148.99", "151"], start: 4) == [[], [3], []])
        #expect(book.count == 0)
    }

    @Test("greater and less than hold on every update beyond the level; a once-only alert triggers once")
    func comparisons() {
        var book = AlertBook()
        book.add(alert(1, .greaterThan(.value(d("150")))), instrument: aapl)
        book.add(alert(2, .lessThan(.value(d("140")))), instrument: aapl)
        #expect(run(&book, ["150", "150.01", "151", "140", "139.99", "120"]) == [[], [1], [], [], [2], []])
    }

    @Test("channels: entering and exiting need the previous price; inside and outside include the bounds")
    func channels() {
        var book = AlertBook()
        book.add(alert(1, .enteringChannel(lower: d("100"), upper: d("110"))), instrument: aapl)
        book.add(alert(2, .exitingChannel(lower: d("100"), upper: d("110"))), instrument: aapl)
        #expect(run(&book, ["105", "110", "110.01", "109"]) == [[], [], [2], [1]])
        var inside = AlertBook()
        inside.add(alert(3, .insideChannel(lower: d("100"), upper: d("110"))), instrument: aapl)
        inside.add(alert(4, .outsideChannel(lower: d("100"), upper: d("110"))), instrument: aapl)
        #expect(run(&inside, ["99.99", "100"]) == [[4], [3]])
    }

    @Test("moving up and down compare with the low or high inside the window, by amount or percent")
    func moving() {
        var book = AlertBook()
        // Up 2 within 3 minutes: the 3-minute window's low is what counts.
        book.add(alert(1, .movingUp(d("2"), within: .seconds(180))), instrument: aapl)
        // Down 1% within 2 bars of 1 minute.
        book.add(alert(2, .movingDownPercent(d("1"), within: .bars(2)), timeframe: .minute), instrument: aapl)
        // 100 at 0, 101 at 1, 101.5 at 2, 101.9 at 3 (low 100 still inside 3 minutes: +1.9), 102.5 at 4 (the low
        // of 100 left the window; low 101: +1.5), 103.5 at 5 (low 101.5: +2.0 → triggers).
        #expect(run(&book, ["100", "101", "101.5", "101.9", "102.5", "103.5"]) == [[], [], [], [], [], [1]])
        // From a high of 103.5: 102.47 is −0.995%, 102.46 is −1.005% (minute 7: 103.5 at minute 5 is inside 2 bars).
        #expect(run(&book, ["102.47", "102.46"], start: 6) == [[], [2]])

        var percent = AlertBook()
        percent.add(alert(3, .movingUpPercent(d("5"), within: .seconds(600))), instrument: aapl)
        percent.add(alert(4, .movingDown(d("3"), within: .seconds(600))), instrument: aapl)
        #expect(run(&percent, ["200", "209.99", "210", "206.99"]) == [[], [], [3], [4]])
    }

    @Test("a moving-average operand waits for enough closes and compares with their mean")
    func movingAverage() {
        var book = AlertBook()
        book.add(alert(1, .crossingUp(.movingAverage(bars: 3))), instrument: aapl)
        #expect(run(&book, ["90", "110"]) == [[], []]) // no average yet
        for close in ["100", "101", "102"] { book.recordClose(aapl, close: d(close)) } // mean 101
        #expect(book.level(.movingAverage(bars: 3), instrument: aapl) == d("101"))
        #expect(run(&book, ["100.99", "101"], start: 2) == [[], [1]])
    }

    @Test("once per minute triggers again only 60 seconds after the last trigger; once per bar once in each bar")
    func frequencies() {
        var book = AlertBook()
        book.add(alert(1, .greaterThan(.value(d("10"))), frequency: .oncePerMinute), instrument: aapl)
        book.add(
            alert(2, .greaterThan(.value(d("10"))), frequency: .oncePerBar, timeframe: .fiveMinutes), instrument: aapl)
        var perTick: [[UInt64]] = []
        // Every 30 seconds for 6 minutes from 10:00:00 (5-minute bars start at 10:00 and 10:05).
        for k in 0..<12 {
            var triggered: [AlertBook.Trigger] = []
            book.evaluate(
                aapl, price: d("11"), at: t0.adding(seconds: Int64(30 * k)), tradingDate: day, into: &triggered)
            perTick.append(triggered.map(\.alert.id.low).sorted())
            #expect(triggered.allSatisfy { !$0.isFinal })
        }
        #expect(perTick == [[1, 2], [], [1], [], [1], [], [1], [], [1], [], [1, 2], []])
        #expect(book.count == 2, "repeating alerts stay")
    }

    @Test("a restored last trigger keeps a repeating alert quiet for the rest of its bar")
    func restoredTrigger() {
        var book = AlertBook()
        let a = alert(1, .greaterThan(.value(d("10"))), frequency: .oncePerBar, timeframe: .day)
        book.add(a, instrument: aapl, lastTriggered: (t0, day))
        #expect(run(&book, ["11", "12"], start: 30) == [[], []])
        var tomorrow: [AlertBook.Trigger] = []
        book.evaluate(
            aapl, price: d("11"), at: t0.adding(seconds: 86_400), tradingDate: day.adding(days: 1), into: &tomorrow)
        #expect(tomorrow.map(\.alert.id.low) == [1])
    }

    @Test("expiry removes alerts at their time; other instruments cost nothing")
    func expiryAndIndex() {
        var book = AlertBook()
        book.add(alert(1, .greaterThan(.value(d("10"))), expiresAt: t0.adding(seconds: 120)), instrument: aapl)
        book.add(alert(2, .greaterThan(.value(d("10")))), instrument: aapl)
        #expect(book.expire(at: t0.adding(seconds: 119)).isEmpty)
        #expect(book.expire(at: t0.adding(seconds: 120)).map(\.id.low) == [1])
        let before = book.evaluations
        #expect(run(&book, ["11"], instrument: msft) == [[]])
        #expect(book.evaluations == before)
        #expect(run(&book, ["11"]) == [[2]])
    }

    @Test("unsound conditions are refused with a reason")
    func problems() {
        #expect(
            AlertCondition.insideChannel(lower: d("110"), upper: d("100")).problem
                == "lower (110) must be below upper (100)")
        #expect(AlertCondition.greaterThan(.movingAverage(bars: 1)).problem == "a moving average needs 2 to 250 bars")
        #expect(AlertCondition.movingUp(d("0"), within: .bars(3)).problem == "value must be positive")
        #expect(AlertCondition.movingUp(d("1"), within: .bars(0)).problem == "within must be 1 to 1000 bars")
        #expect(AlertCondition.crossing(.value(d("150"))).problem == nil)
    }
}
