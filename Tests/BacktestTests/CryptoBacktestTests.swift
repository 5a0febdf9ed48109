import Backtest
import Testing
import TradingCore

/// Backtests of crypto pairs: bars every day of the week (a CSV of 24/7 bars, stamped at the end of each UTC day),
/// Alpaca's crypto fees taken in what each fill receives, and the statistics of a record kept every day.
@Suite("Backtests of crypto pairs")
struct CryptoBacktestTests {
    let btc = Instrument.cryptoPair(
        "BTC/USD", name: "Bitcoin", minimumOrder: d("0.0001"), increment: d("0.0001"), priceIncrement: d("1"))

    /// Sixty days of bars from Monday 2026-09-07, every day, weekends included, from a CSV as a crypto exchange's
    /// export has them (dates only, read as UTC days).
    func series() throws -> BarSeries {
        var lines = ["date,open,high,low,close,volume"]
        var date = CivilDate(2026, 9, 7)
        var price = 90_000
        for day in 0..<60 {
            let next = price + (day % 7 < 4 ? 400 : -300)
            lines.append("\(date),\(price),\(max(price, next) + 200),\(min(price, next) - 200),\(next),12.5")
            price = next
            date = date.adding(days: 1)
        }
        let parsed = try CSVBars.parse(
            lines.joined(separator: "\n"), symbol: "BTC/USD", zone: .utc, closeHour: btc.dailyBarEnd.hour,
            closeMinute: btc.dailyBarEnd.minute)
        return try #require(parsed.first)
    }

    @Test("a coin pair (BTC/USDT) is refused with what to backtest instead: the account holds dollars, not tether")
    func coinPairRefused() throws {
        let pair = Instrument.cryptoPair(
            "BTC/USDT", name: "Bitcoin / Tether", minimumOrder: d("0.0001"), increment: d("0.0001"),
            priceIncrement: d("0.1"))
        var bars = try series()
        bars.symbol = "BTC/USDT"
        #expect(throws: Backtester.Problem.self) {
            try Backtester().run([bars], instruments: ["BTC/USDT": pair], strategy: BuyThenSell(qty: d("0.5")))
        }
        do {
            _ = try Backtester().run([bars], instruments: ["BTC/USDT": pair], strategy: BuyThenSell(qty: d("0.5")))
        } catch {
            #expect(error.description.hasSuffix("backtest BTC/USD"))
        }
    }

    @Test("a CSV of 24/7 bars backtests as the pair: every day a close, no weekend warning, the round trip closed")
    func everyDay() throws {
        let result = try Backtester(settings: BacktestSettings(cash: 100_000)).run(
            [try series()], instruments: ["BTC/USD": btc], strategy: BuyThenSell(qty: d("0.5")))
        #expect(result.aroundTheClock)
        #expect(result.points.count == 60 && result.points.contains { $0.date.isWeekend })
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        // Bought 0.5 BTC at the second day's open, its 0.25% taken in bitcoin; the 0.49875 left sold the next day.
        let trade = try #require(result.trades.first)
        #expect(result.trades.count == 1 && result.openTrades.isEmpty)
        #expect(trade.entryQty == d("0.5") && trade.exitQty == d("0.49875"))
        let bought = d("0.5").multiplied(by: d("90400"))
        let soldValue = d("0.49875").multiplied(by: d("90800"), places: 2, rule: .halfUp)
        let soldFee = soldValue.multiplied(by: d("0.0025"), places: 2, rule: .halfUp)
        let coinFee = d("0.00125").multiplied(by: d("90400"), places: 2, rule: .halfUp)
        #expect(result.fees == coinFee + soldFee)
        #expect(result.finalEquity == d("100000") - bought + soldValue - soldFee)
        #expect(
            result.points.first?.date == CivilDate(2026, 9, 7) && result.points.last?.date == CivilDate(2026, 11, 5))
    }

    @Test("volatility and Sharpe of a record kept every day are annualized over 365 days, a stock's over 252")
    func annualized() throws {
        let result = try Backtester(settings: BacktestSettings(cash: 100_000, fees: .free)).run(
            [try series()], instruments: ["BTC/USD": btc], strategy: BuyAndHold(qty: d("1")))
        let figures = try #require(result.figures)
        let daily = try #require(
            PerformanceMetrics.figures(result.points, periodsPerYear: PerformanceMetrics.periodsPerYear))
        let volatility = try #require(figures.volatility)
        let asIfTradingDays = try #require(daily.volatility)
        // The same daily returns: √365 / √252 ≈ 1.2035 apart.
        let ratio = try #require(volatility.divided(by: asIfTradingDays, places: 3, rule: .halfEven))
        #expect(ratio == d("1.204") || ratio == d("1.203"))
    }
}
