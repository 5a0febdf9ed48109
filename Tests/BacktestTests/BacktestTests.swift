import Backtest
import JSON
import Testing
import TradingCore

func d(_ text: String) -> FixedDecimal { FixedDecimal(text)! }

/// Daily bars from (open, close) pairs, one per weekday from Tuesday 2024-01-02, stamped at the New York close;
/// high and low 0.50 beyond them, volume 1,000.
func dailyBars(_ pairs: [(String, String)], zone: ExchangeTimeZone = .newYork, closeHour: Int = 16) -> [HistoricalBar] {
    var date = CivilDate(2024, 1, 2)
    var bars: [HistoricalBar] = []
    for (open, close) in pairs {
        let (o, c) = (d(open), d(close))
        bars.append(
            HistoricalBar(
                time: Timestamp(date, hour: closeHour, in: zone), open: o, high: max(o, c) + d("0.5"),
                low: min(o, c) - d("0.5"), close: c, volume: 1000))
        date = date.adding(days: date.weekday == .friday ? 3 : 1)
    }
    return bars
}

let aapl = Instrument.usEquity("AAPL", name: "Apple Inc.")

/// Buys 10 shares at the first bar's close.
struct BuyAtFirstBar: Strategy {
    var done = false

    mutating func onBar(_ bar: BarContext, orders: inout OrderBook) {
        guard !done else { return }
        done = true
        orders.market(bar.symbol, .buy, qty: 10)
    }
}

/// Buys at the first bar, then sells whatever it holds at every bar.
struct BuyThenSell: Strategy {
    var qty: Quantity
    var bought = false

    mutating func onBar(_ bar: BarContext, orders: inout OrderBook) {
        if !bought {
            bought = true
            orders.market(bar.symbol, .buy, qty: qty)
        } else if bar.position.isPositive {
            orders.market(bar.symbol, .sell, qty: bar.position)
        }
    }
}

@Suite("Backtests through the engine")
struct BacktestTests {
    let series = BarSeries(
        symbol: "AAPL",
        bars: dailyBars([
            ("12.00", "12"), ("11.75", "11"), ("10.75", "10"), ("9.75", "9"), ("9.25", "10"), ("10.25", "11"),
            ("11.25", "12"), ("12.25", "11"), ("10.75", "10"), ("9.75", "9"),
        ]))

    @Test("no look-ahead: each bar shows only the closes so far, and an order fills at the next bar's open")
    func noLookAhead() throws {
        let result = try Backtester(settings: BacktestSettings(cash: 10_000, fees: .free)).run(
            [series], instruments: ["AAPL": aapl], strategy: BuyAtFirstBar())
        let trade = try #require(result.openTrades.first)
        #expect(trade.entryPrice == d("11.75")) // bar 1's open, not bar 0's close (12)
        #expect(trade.entryTime == series.bars[1].time)
        #expect(trade.pnl == d("-27.5")) // still open: 10 shares at the last close of 9 against 117.50 paid
        #expect(result.warnings.isEmpty)
    }

    @Test("the strategy never sees a bar before it closed")
    func contextGrowsByOne() throws {
        // A strategy is a value: run it, then look at what the run's copy saw through a class box.
        final class Box: @unchecked Sendable { var seen: [(Int, Price, Price)] = [] }
        struct Spy: Strategy {
            let box: Box
            mutating func onBar(_ bar: BarContext, orders: inout OrderBook) {
                box.seen.append((bar.closes.count, bar.closes.last ?? .zero, bar.bar.close))
            }
        }
        let box = Box()
        _ = try Backtester().run([series], instruments: ["AAPL": aapl], strategy: Spy(box: box))
        #expect(box.seen.map(\.0) == Array(1...10))
        #expect(box.seen.allSatisfy { $0.1 == $0.2 })
    }

    @Test("a context the strategy keeps is the bar it was given: the run moving on does not change it")
    func keptContextStays() throws {
        final class Box: @unchecked Sendable { var kept: [(count: Int, close: Price, equity: FixedDecimal)] = [] }
        struct Keeper: Strategy {
            let box: Box
            var previous: BarContext?
            mutating func onBar(_ bar: BarContext, orders: inout OrderBook) {
                if let previous {
                    box.kept.append((previous.closes.count, previous.bar.close, previous.equity))
                }
                previous = bar
                if bar.closes.count == 2 { orders.market(bar.symbol, .buy, qty: 10) }
            }
        }
        let box = Box()
        _ = try Backtester(settings: BacktestSettings(cash: 10_000, fees: .free)).run(
            [series], instruments: ["AAPL": aapl], strategy: Keeper(box: box))
        // At bar k the context kept from bar k − 1 still shows k − 1 closes, that bar's close and its equity
        // (the 10 shares bought at bar 2's open move the equity from bar 2 on).
        #expect(box.kept.map(\.count) == Array(1...9))
        #expect(box.kept.map(\.close) == series.bars.prefix(9).map(\.close))
        #expect(box.kept[0].equity == 10_000 && box.kept[1].equity == 10_000)
        let bought = series.bars[2].open
        #expect(box.kept[2].equity == 10_000 + (series.bars[2].close - bought).times(10))
    }

    @Test("a hand-checked SMA(2)/SMA(3) crossover: one round trip, bought at 11.25 and sold at 9.75")
    func handChecked() throws {
        // Closes 12 11 10 9 10 11 12 11 10 9. 2×SMA3 vs 3×SMA2 (sums scaled): below from bar 2; above at bar 5
        // (21×3 = 63 > 30×2 = 60) → buy, filled at bar 6's open 11.25; below again at bar 8 (63 < 66) → sell, filled
        // at bar 9's open 9.75. 10 shares: (9.75 − 11.25) × 10 = −15.00, no fees.
        let result = try Backtester(settings: BacktestSettings(cash: 10_000, fees: .free)).run(
            [series], instruments: ["AAPL": aapl], strategy: SMACross(fast: 2, slow: 3, qty: 10))
        #expect(result.trades.count == 1 && result.openTrades.isEmpty)
        let trade = try #require(result.trades.first)
        #expect(trade.entryPrice == d("11.25") && trade.exitPrice == d("9.75"))
        #expect(trade.entryTime == series.bars[6].time && trade.exitTime == series.bars[9].time)
        #expect(trade.pnl == d("-15"))
        #expect(result.finalEquity == d("9985"))
        #expect(result.totalReturn == d("-0.0015"))
        #expect(result.winRate == .zero)
        #expect(result.bars == 10)
        // Exposure: held at the close of bars 6, 7 and 8.
        #expect(result.exposure == d("0.3"))
    }

    @Test("averages compared exactly: equal is no cross; the cross is the bar they part")
    func exactTies() throws {
        // SMA(1) vs SMA(2) is the close against the previous one: down (10 → 9), equal (9 → 9), up (9 → 10).
        let bars = dailyBars([("10", "10"), ("9.5", "9"), ("9.25", "9"), ("9.5", "10"), ("10.5", "11")])
        let result = try Backtester(settings: BacktestSettings(cash: 10_000, fees: .free)).run(
            [BarSeries(symbol: "AAPL", bars: bars)], instruments: ["AAPL": aapl],
            strategy: SMACross(fast: 1, slow: 2, qty: 1))
        #expect(result.openTrades.first?.entryPrice == d("10.5")) // signalled at bar 3, filled at bar 4's open
    }

    @Test("slippage moves fills against the order, stops included, never past the bar's range")
    func slippage() throws {
        func entry(_ settings: BacktestSettings, _ strategy: some Strategy) throws -> Price? {
            try Backtester(settings: settings).run([series], instruments: ["AAPL": aapl], strategy: strategy)
                .openTrades.first?.entryPrice
        }
        // The next open is 11.75: two ticks make 11.77; 100 bps (11.75 × 1% = 0.1175, up to the cent) 11.87.
        #expect(try entry(BacktestSettings(cash: 10_000, fees: .free, slippageTicks: 2), BuyAtFirstBar()) == d("11.77"))
        #expect(
            try entry(BacktestSettings(cash: 10_000, fees: .free, slippageBasisPoints: 100), BuyAtFirstBar())
                == d("11.87"))
        // A buy stop at 12.40 triggers on bar 6 (opened at 11.25, high 12.50): it fills at the stop, and slipped by
        // 50 ticks no higher than the bar's high.
        struct StopAt: Strategy {
            var placed = false
            mutating func onBar(_ bar: BarContext, orders: inout OrderBook) {
                guard !placed else { return }
                placed = true
                orders.place(
                    OrderRequest(
                        symbol: bar.symbol, side: .buy, type: .stop, timeInForce: .gtc, qty: 1, stopPrice: d("12.40")))
            }
        }
        #expect(try entry(BacktestSettings(cash: 10_000, fees: .free), StopAt()) == d("12.4"))
        #expect(try entry(BacktestSettings(cash: 10_000, fees: .free, slippageTicks: 50), StopAt()) == d("12.5"))
    }

    @Test("fees come from the account's schedule, as live")
    func fees() throws {
        let schedule = FeeSchedule(components: [
            FeeComponent(kind: .commission, sides: .both, basis: .value(rate: .zero), minimum: 1, rounding: .up)
        ])
        let result = try Backtester(settings: BacktestSettings(cash: 10_000, fees: schedule)).run(
            [series], instruments: ["AAPL": aapl], strategy: SMACross(fast: 2, slow: 3, qty: 10))
        #expect(result.fees == d("2") && result.trades.first?.pnl == d("-17") && result.finalEquity == d("9983"))
    }

    @Test("close fills are available, with a look-ahead warning in the report")
    func closeFills() throws {
        let result = try Backtester(settings: BacktestSettings(cash: 10_000, fill: .close, fees: .free)).run(
            [series], instruments: ["AAPL": aapl], strategy: BuyAtFirstBar())
        #expect(result.openTrades.first?.entryPrice == d("12"))
        #expect(result.warnings.first?.contains("look-ahead") == true)
    }

    @Test("A-shares: a buy is not filled at limit-up from bars, and shares bought today are sold tomorrow (T+1)")
    func aShares() throws {
        let moutai = try #require(Instrument.aShare("600519", name: "贵州茅台"))
        // Day 1 opens and stays at limit-up (100 → 110): the buy from day 0 cannot fill there; day 2 opens at 108.
        var bars = dailyBars(
            [("100", "100"), ("110", "110"), ("108", "111"), ("111.5", "112")], zone: .shanghai, closeHour: 15)
        bars[1].high = d("110")
        bars[1].low = d("110")
        let daily = try Backtester(settings: BacktestSettings(cash: 1_000_000)).run(
            [BarSeries(symbol: "600519", bars: bars)], instruments: ["600519": moutai],
            strategy: BuyThenSell(qty: 100))
        let trade = try #require(daily.trades.first)
        #expect(trade.entryPrice == d("108") && trade.entryTime == bars[2].time)
        #expect(trade.exitPrice == d("111.5") && trade.exitTime == bars[3].time)

        // Five-minute bars: the sale decided the minute after the purchase is refused by T+1, and goes through the
        // next morning.
        let day = CivilDate(2024, 1, 2)
        let minutes =
            [10, 15, 20].map { Timestamp(day, hour: 10, minute: $0, in: .shanghai) } + [
                Timestamp(day.adding(days: 1), hour: 9, minute: 35, in: .shanghai)
            ]
        let intraday = minutes.map {
            HistoricalBar(time: $0, open: d("100"), high: d("101"), low: d("99"), close: d("100.5"), volume: 10_000)
        }
        let result = try Backtester(settings: BacktestSettings(cash: 1_000_000)).run(
            [BarSeries(symbol: "600519", bars: intraday)], instruments: ["600519": moutai],
            strategy: BuyThenSell(qty: 100))
        #expect(result.refusals.contains { $0.rejection.message.contains("T+1") })
        #expect(result.trades.first?.exitTime == minutes[3])
    }

    @Test("queue rules replayed: buy near limit-up at the next day's limit-up price, sell on a rise; re-armed daily")
    func queueRules() throws {
        let moutai = try #require(Instrument.aShare("600519", name: "贵州茅台"))
        // Day 1 closes at 109.5, within 1% of its limit-up 110 (100 + 10%): the buy is a limit at day 2's limit-up
        // (109.5 + 10% = 120.45), filled at day 2's open of 110. Day 3 closes at 116 ≥ 115: the sell fills at day 4's
        // open of 117. Day 4 closes near limit-up again (128.5 vs 127.6 × 1.1 = 128.7 after rounding): a second buy
        // fills at day 5's open.
        let bars = dailyBars(
            [("100", "100"), ("101", "109.5"), ("110", "112"), ("113", "116"), ("117", "128.5"), ("127", "126")],
            zone: .shanghai, closeHour: 15)
        let rules = """
            [{"side": "buy", "qty": "100", "condition": {"type": "within_percent_of_limit_up", "value": "1"},
              "order_type": "limit_up"},
             {"symbol": "600519", "side": "sell", "qty": "100", "condition": {"type": "price_at_least", "value": "115"}}]
            """
        let strategy = QueueRuleStrategy(rules: try QueueRuleStrategy.rules(try JSONValue(parsing: Array(rules.utf8))))
        let result = try Backtester(settings: BacktestSettings(cash: 1_000_000, fees: .free)).run(
            [BarSeries(symbol: "600519", bars: bars)], instruments: ["600519": moutai], strategy: strategy)
        let first = try #require(result.trades.first)
        #expect(first.entryPrice == d("110") && first.exitPrice == d("117") && first.pnl == d("700"))
        #expect(first.entryTime == bars[2].time && first.exitTime == bars[4].time)
        #expect(result.openTrades.first?.entryPrice == d("127"))
        let bad = #"[{"side": "buy", "qty": "1", "condition": {"type": "soon"}}]"#
        #expect(throws: QueueRuleJSON.Problem.self) {
            try QueueRuleStrategy.rules(try JSONValue(parsing: Array(bad.utf8)))
        }
    }

    @Test(
        "corporate actions: a 2:1 split doubles the shares on the ex-date, so equity does not fall with the raw price")
    func split() throws {
        let bars = dailyBars([("100", "100"), ("101", "102"), ("103", "104"), ("52", "53"), ("53.5", "54")])
        let exDate = CivilDate(2024, 1, 5)
        let split = CorporateAction(
            symbol: "AAPL", kind: .forwardSplit, declarationDate: CivilDate(2023, 12, 1), exDate: exDate,
            recordDate: exDate, payableDate: exDate, newRate: 2, oldRate: 1)
        let tester = Backtester(settings: BacktestSettings(cash: 100_000, fees: .free))
        let series = BarSeries(symbol: "AAPL", bars: bars)
        let adjusted = try tester.run(
            [series], instruments: ["AAPL": aapl], strategy: BuyAndHold(qty: 10), actions: ["AAPL": [split]])
        // 10 bought at 101; 20 held after the split, worth 54 each at the end.
        #expect(adjusted.finalEquity == d("100070"))
        #expect(adjusted.openTrades.first?.qty == 20 && adjusted.openTrades.first?.pnl == d("70"))
        // Without the action the same prices read as a halving.
        let raw = try tester.run([series], instruments: ["AAPL": aapl], strategy: BuyAndHold(qty: 10))
        #expect(raw.finalEquity == d("99530"))
    }

    @Test("several symbols are merged in time order; one currency per run")
    func universe() throws {
        let msft = Instrument.usEquity("MSFT", name: "Microsoft")
        let other = BarSeries(symbol: "MSFT", bars: dailyBars([("300", "301"), ("302", "303"), ("304", "305")]))
        let result = try Backtester(settings: BacktestSettings(cash: 100_000, fees: .free)).run(
            [series, other], instruments: ["AAPL": aapl, "MSFT": msft], strategy: BuyAndHold(qty: 10))
        #expect(Set(result.openTrades.map(\.symbol)) == ["AAPL", "MSFT"])
        #expect(result.openTrades.first { $0.symbol == "MSFT" }?.entryPrice == d("302"))
        let moutai = try #require(Instrument.aShare("600519", name: "贵州茅台"))
        #expect(throws: Backtester.Problem.self) {
            try Backtester().run(
                [series, BarSeries(symbol: "600519", bars: dailyBars([("10", "10")]))],
                instruments: ["AAPL": aapl, "600519": moutai], strategy: BuyAndHold(qty: 100))
        }
    }

    @Test("the JSON report has the figures a tool reads")
    func jsonReport() throws {
        let result = try Backtester(settings: BacktestSettings(cash: 10_000, fees: .free)).run(
            [series], instruments: ["AAPL": aapl], strategy: SMACross(fast: 2, slow: 3, qty: 10))
        let json = result.json
        #expect(json["bars"] == .int(10) && json["trades"] == .int(1))
        #expect(json["final_equity"] == .string("9985") && json["return"] == .string("-0.0015"))
        #expect(json["max_drawdown"]?.decimal?.isNegative == true)
        #expect(json["trade_list"]?[0]?["pnl"] == .string("-15"))
        #expect(json["sharpe"] == .null) // 10 daily returns are too few to annualize
        #expect(result.text.contains("1 round trips") || result.text.contains("Trades            1"))
    }
}

@Suite("CSV bars")
struct CSVBarsTests {
    @Test("yfinance/pandas layout: Date, Open, High, Low, Close, Adj Close, Volume; dates stamped at the close")
    func yfinance() throws {
        let text = """
            Date,Open,High,Low,Close,Adj Close,Volume
            2024-01-02,187.15,188.44,183.89,185.64,184.29,82488700
            2024-01-03,184.22,185.88,183.43,184.25,182.91,58414500
            """
        let series = try CSVBars.parse(text, symbol: "AAPL", zone: .newYork)
        #expect(series.count == 1 && series[0].bars.count == 2)
        #expect(series[0].bars[0].time == Timestamp(CivilDate(2024, 1, 2), hour: 16, in: .newYork))
        #expect(series[0].bars[1].close == d("184.25") && series[0].bars[1].volume == d("58414500"))
        #expect(series[0].frequency == .daily)
    }

    @Test(
        "Excel's CSV UTF-8 (a byte order mark, CRLF line ends) reads as the plain file; bytes that are not UTF-8 are refused with the line"
    )
    func excel() throws {
        let plain = "Date,Open,High,Low,Close,Volume\n2024-01-02,187.15,188.44,183.89,185.64,82488700\n"
        let excel = Array("\u{FEFF}".utf8) + plain.utf8.flatMap { $0 == 10 ? [13, 10] : [$0] }
        let read = try excel.withUnsafeBufferPointer { b throws(CSVBars.Problem) in
            try CSVBars.parse(bytes: b, symbol: "AAPL", zone: .newYork)
        }
        #expect(read == (try CSVBars.parse(plain, symbol: "AAPL", zone: .newYork)))
        #expect(read.first?.bars.first?.close == d("185.64"))
        let latin1 = Array(plain.utf8).map { $0 == UInt8(ascii: "7") ? 0xB7 : $0 } // a stray byte in a price
        #expect {
            try latin1.withUnsafeBufferPointer { b throws(CSVBars.Problem) in
                try CSVBars.parse(bytes: b, symbol: "AAPL", zone: .newYork)
            }
        } throws: { error in
            "\(error)".hasPrefix("line 2: \"18\u{FFFD}.15\" is not a positive price (open)")
        }
    }

    @Test("several symbols in one file, date-times local to the zone, RFC 3339 and Unix times")
    func formats() throws {
        let text = """
            code,name,timestamp,open,high,low,close,volume,turnover
            000001,平安银行,2005-01-04 09:35:00,1.49,1.49,1.46,1.48,7674030.0,11465603.0
            000001,平安银行,2005-01-04 09:40:00,1.48,1.48,1.44,1.46,14042696.0,20718559.0
            600519,贵州茅台,2005-01-04 09:35:00,50,51,49,50.5,1000,50500
            """
        let series = try CSVBars.parse(text, symbol: "X", zone: .shanghai)
        #expect(series.map(\.symbol) == ["000001", "600519"])
        #expect(series[0].bars[0].time == Timestamp(CivilDate(2005, 1, 4), hour: 9, minute: 35, in: .shanghai))
        #expect(series[0].frequency == .intraday(seconds: 300))
        #expect(series[0].frequency.description == "5Min")
        // A symbol's rows in two runs (sorted by time, not by symbol) make one series, in order; prices with up to
        // nine decimals and negative-free volumes read exactly.
        let runs = try CSVBars.parse(
            """
            symbol,date,open,high,low,close,volume
            AAA,2024-01-02,1.5,2,1,1.75,100
            BBB,2024-01-02,10,11,9,10.123456789,7
            AAA,2024-01-03,1.75,2,1.5,1.25,0
            """, symbol: "X", zone: .newYork)
        #expect(runs.map(\.symbol) == ["AAA", "BBB"])
        #expect(runs[0].bars.map(\.close) == [d("1.75"), d("1.25")])
        #expect(runs[1].bars.map(\.close) == [d("10.123456789")] && runs[1].bars[0].volume == 7)

        let zoned = try CSVBars.parse(
            "datetime,open,high,low,close\n2024-01-02T14:30:00Z,1,1,1,1\n2024-01-02T09:31:00-05:00,1,1,1,1\n",
            symbol: "S", zone: .shanghai)
        #expect(zoned[0].bars[1].time == Timestamp(CivilDate(2024, 1, 2), hour: 14, minute: 31, in: .utc))
        let unix = try CSVBars.parse("timestamp,open,high,low,close\n1704205800,1,1,1,1\n", symbol: "S", zone: .utc)
        #expect(unix[0].bars[0].time == Timestamp(seconds: 1_704_205_800))
    }

    @Test("times past what a timestamp holds, and offsets of absurd size, are unreadable rows, never a trap")
    func timesOutOfRange() {
        for row in [
            "9223372036854775807000,1,1,1,1", "0399080148293957131,1,1,1,1",
            "2024-01-02T09:30:00+99999999999999:00,1,1,1,1",
            "2024-01-02T09:30:00-24:00,1,1,1,1", "2024-01-02T09:30:00+05:75,1,1,1,1",
        ] {
            #expect(throws: CSVBars.Problem.self, "\(row)") {
                try CSVBars.parse("timestamp,open,high,low,close\n" + row + "\n", symbol: "S", zone: .utc)
            }
        }
        // Milliseconds within range still read.
        let millis = try? CSVBars.parse(
            "timestamp,open,high,low,close\n1704205800000,1,1,1,1\n", symbol: "S", zone: .utc)
        #expect(millis?.first?.bars.first?.time == Timestamp(seconds: 1_704_205_800))
    }

    @Test("a daily index written with midnight times is stamped at the close, like plain dates")
    func midnight() throws {
        let text = "timestamp,open,high,low,close\n2005-01-04 00:00:00,1,1,1,1\n2005-01-05 00:00:00,1,1,1,1\n"
        let series = try CSVBars.parse(text, symbol: "000001", zone: .shanghai, closeHour: 15)
        #expect(series[0].bars[0].time == Timestamp(CivilDate(2005, 1, 4), hour: 15, in: .shanghai))
        #expect(series[0].frequency == .daily)
        // Minutes without seconds: the same, and intraday times are read as written.
        let short = try CSVBars.parse(
            "datetime,open,high,low,close\n2005-01-04 00:00,1,1,1,1\n2005-01-05 00:00,1,1,1,1\n", symbol: "000001",
            zone: .shanghai, closeHour: 15)
        #expect(short[0].bars.map(\.time) == series[0].bars.map(\.time))
        let minutes = try CSVBars.parse(
            "datetime,open,high,low,close\n2007-04-30 09:35,3.6,3.6,3.35,3.4\n2007-04-30 09:40,3.4,3.45,3.4,3.43\n",
            symbol: "000338", zone: .shanghai, closeHour: 15)
        #expect(minutes[0].bars[1].time == Timestamp(CivilDate(2007, 4, 30), hour: 9, minute: 40, in: .shanghai))
        #expect(minutes[0].frequency == .intraday(seconds: 300))
    }

    @Test("bad files are refused with the line and the reason")
    func problems() {
        func message(_ text: String) -> String? {
            do {
                _ = try CSVBars.parse(text, symbol: "S", zone: .utc)
                return nil
            } catch { return error.description }
        }
        #expect(
            message("open,high,low,close\n1,1,1,1")
                == "the header needs a date, datetime, timestamp or time column: open,high,low,close")
        #expect(message("date,open,high,low\n2024-01-02,1,1,1")?.contains("close") == true)
        #expect(
            message("date,open,high,low,close\n2024-01-02,1,1,abc,1") == "line 2: \"abc\" is not a positive price (low)"
        )
        #expect(
            message("date,open,high,low,close\n2024-01-03,1,1,1,1\n2024-01-02,1,1,1,1")?.contains("not in time order")
                == true)
        #expect(message("date,open,high,low,close\n") == "the CSV file has a header and no bars")
    }

    /// Minute bars through one night, `from`–`through` local wall-clock minutes of `date` (each an hour and a minute).
    static func nightCSV(_ date: String, _ minutes: [(Int, Int)]) -> String {
        "datetime,open,high,low,close,volume\n"
            + minutes.map { h, m in
                "\(date) \(h < 10 ? "0" : "")\(h):\(m < 10 ? "0" : "")\(m):00,1,1,1,1,100"
            }.joined(separator: "\n")
    }

    @Test("a time the spring-forward night skips (2015-03-08 02:00–02:59 in New York) is named, with the way out")
    func skippedHour() {
        let night = (0..<4).flatMap { h in stride(from: 0, to: 60, by: 15).map { (h, $0) } }
        do {
            _ = try CSVBars.parse(Self.nightCSV("2015-03-08", night), symbol: "BARS", zone: .newYork)
            Issue.record("bars at local times that do not exist were read")
        } catch {
            // The first row of 02:00 is line 10 (header, then 00:00 … 01:45).
            #expect(error.description.hasPrefix("line 10: 2015-03-08 02:00:00 does not exist in America/New_York"))
            #expect(error.description.contains("--timezone UTC") && !error.description.contains("not in time order"))
        }
        // A lone row in the missing hour is refused too (no silent shift to 03:xx), and every minute of it.
        for minute in [0, 1, 30, 59] {
            #expect(throws: CSVBars.Problem.self) {
                try CSVBars.parse(Self.nightCSV("2015-03-08", [(2, minute)]), symbol: "S", zone: .newYork)
            }
        }
        // The same file read as UTC (what such files usually are) is in order; minutes either side of the gap read.
        let utc = try? CSVBars.parse(Self.nightCSV("2015-03-08", night), symbol: "S", zone: .utc)
        #expect(utc?.first?.bars.count == night.count)
        let around = try? CSVBars.parse(
            Self.nightCSV("2015-03-08", [(1, 59), (3, 0)]), symbol: "S", zone: .newYork)
        #expect(around?.first?.bars.map(\.time.seconds) == [1_425_797_940, 1_425_798_000], "one minute apart in UTC")
        // Every year's spring-forward night, and never Shanghai's (no daylight saving time).
        for (year, day) in [(2007, 11), (2016, 13), (2024, 10), (2026, 8)] {
            let date = CivilDate(year, 3, day).description
            #expect(throws: CSVBars.Problem.self, "\(date)") {
                try CSVBars.parse(Self.nightCSV(date, [(2, 30)]), symbol: "S", zone: .newYork)
            }
            #expect((try? CSVBars.parse(Self.nightCSV(date, [(2, 30)]), symbol: "S", zone: .shanghai)) != nil)
        }
    }

    @Test("the hour clocks go back over (2015-11-01 01:00–01:59) is read in order: first daylight time, then standard")
    func repeatedHour() throws {
        // 00:00 … 01:45 (daylight), 01:00 … 01:45 again (standard), 02:00 … 02:45: every bar 15 minutes after the last.
        let first = (0..<2).flatMap { h in stride(from: 0, to: 60, by: 15).map { (h, $0) } }
        let again = stride(from: 0, to: 60, by: 15).map { (1, $0) }
        let after = stride(from: 0, to: 60, by: 15).map { (2, $0) }
        let bars = try CSVBars.parse(Self.nightCSV("2015-11-01", first + again + after), symbol: "S", zone: .newYork)
        let times = bars[0].bars.map(\.time.seconds)
        #expect(times.count == 16)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 900 }, "\(times)")
        #expect(bars[0].bars[0].time == Timestamp(CivilDate(2015, 11, 1), hour: 4, in: .utc))
        // Only the first pass through the hour: each is its daylight (first) instant.
        let once = try CSVBars.parse(Self.nightCSV("2015-11-01", first), symbol: "S", zone: .newYork)
        #expect(once[0].bars.last?.time == Timestamp(CivilDate(2015, 11, 1), hour: 5, minute: 45, in: .utc))
        // Only the second pass, after a bar at 01:50 daylight time: it is the standard one.
        let second = try CSVBars.parse(
            "datetime,open,high,low,close\n2015-11-01T01:50:00-04:00,1,1,1,1\n2015-11-01 01:10:00,1,1,1,1\n",
            symbol: "S", zone: .newYork)
        #expect(second[0].bars[1].time == Timestamp(CivilDate(2015, 11, 1), hour: 6, minute: 10, in: .utc))
        // Going back a third time cannot be read in order: said, with the offsets to write.
        do {
            _ = try CSVBars.parse(Self.nightCSV("2015-11-01", first + again + [(1, 30)]), symbol: "S", zone: .newYork)
            Issue.record("a third 01:30 was read")
        } catch {
            #expect(error.description.contains("happened twice in America/New_York"), "\(error)")
            #expect(error.description.contains("-05:00"))
        }
    }
}
