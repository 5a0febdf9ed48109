import JSON
import TradingCore

/// What a backtest did, and the report figures (`../shared/reference/analytics.md`'s backtest list). Returns,
/// volatility, Sharpe, Sortino, drawdown and monthly returns come from `PerformanceMetrics` over the daily closes —
/// the same code as an account's performance screen.
public struct BacktestResult: Sendable {
    public var symbols: [String]
    public var currency: Currency
    public var frequency: BarFrequency
    public var start: Timestamp
    public var end: Timestamp
    public var bars: Int
    public var startingCash: FixedDecimal
    public var finalEquity: FixedDecimal
    /// Equity at each trading day's last bar.
    public var points: [ValuationPoint]
    /// The highest equity at any bar's close.
    public var peakEquity: FixedDecimal
    public var trades: [BacktestTrade]
    public var openTrades: [BacktestTrade]
    public var fees: FixedDecimal
    /// Bars (of any symbol) at whose close a position was held.
    public var exposureBars: Int
    /// Orders the engine refused: each message once (with its first rejection, for wording it in another language),
    /// how often, most frequent first.
    public var refusals: [Refusal]
    /// The average of each symbol's first-to-last close return.
    public var buyAndHoldReturn: FixedDecimal?
    /// The market index over the same dates (its name and return), when the data source has it.
    public var index: (name: String, return: FixedDecimal)?
    public var fill: FillTiming
    /// Whether every symbol trades around the clock (crypto pairs): the days are UTC days, weekends included, and the
    /// daily statistics are annualized over 365 of them.
    public var aroundTheClock = false

    public var figures: PerformanceFigures? {
        var series = points
        if let first = series.first, first.value != startingCash {
            // The starting cash, the day before the first close.
            series.insert(ValuationPoint(date: first.date.adding(days: -1), value: startingCash), at: 0)
        }
        return PerformanceMetrics.figures(
            series,
            periodsPerYear: aroundTheClock ? PerformanceMetrics.calendarDaysPerYear : PerformanceMetrics.periodsPerYear)
    }

    /// An index's return from its first close to its last over the run's dates.
    public static func indexReturn(closes: [Price]) -> FixedDecimal? {
        guard let first = closes.first, let last = closes.last, first.isPositive else { return nil }
        return (last - first).divided(by: first, places: 6, rule: .halfEven)
    }

    public var totalReturn: FixedDecimal {
        (finalEquity - startingCash).divided(by: startingCash, places: 6, rule: .halfEven) ?? .zero
    }

    /// Calendar days from the first bar to the last.
    public var days: Int {
        Int((end.nanoseconds - start.nanoseconds) / Duration64.day)
    }

    /// Compound annual growth rate; nil under a month (annualizing a few days says nothing).
    public var cagr: FixedDecimal? {
        guard days >= 30, startingCash.isPositive, finalEquity.isPositive,
            let ratio = finalEquity.divided(by: startingCash, places: 9, rule: .halfEven),
            let years = FixedDecimal(days).divided(by: FixedDecimal(365), places: 9, rule: .halfEven),
            let inverse = FixedDecimal.one.divided(by: years, places: 9, rule: .halfEven),
            let grown = DecimalFunctions.power(ratio, inverse)
        else { return nil }
        return (grown - .one).rounded(places: 6, rule: .halfEven)
    }

    public var winRate: FixedDecimal? {
        guard !trades.isEmpty else { return nil }
        let wins = trades.filter { $0.pnl.isPositive }.count
        return FixedDecimal(wins).divided(by: FixedDecimal(trades.count), places: 6, rule: .halfEven)
    }

    /// Gross profit over gross loss; nil without a losing trade.
    public var profitFactor: FixedDecimal? {
        let profit = trades.filter { $0.pnl.isPositive }.reduce(FixedDecimal.zero) { $0 + $1.pnl }
        let loss = trades.filter { $0.pnl.isNegative }.reduce(FixedDecimal.zero) { $0 + $1.pnl }.magnitude
        guard loss.isPositive else { return nil }
        return profit.divided(by: loss, places: 4, rule: .halfEven)
    }

    /// Mean P&L per trade.
    public var expectancy: FixedDecimal? {
        guard !trades.isEmpty else { return nil }
        return trades.reduce(FixedDecimal.zero) { $0 + $1.pnl }.divided(
            by: FixedDecimal(trades.count), places: 2, rule: .halfEven)
    }

    /// Van Tharp's system quality number: √N × mean(P&L) / stdev(P&L), N capped at 100.
    public var sqn: FixedDecimal? {
        guard trades.count >= 2 else { return nil }
        let n = FixedDecimal(trades.count)
        let pnls = trades.map(\.pnl)
        guard let mean = pnls.reduce(FixedDecimal.zero, +).divided(by: n, rule: .halfEven) else { return nil }
        let squares = pnls.reduce(FixedDecimal.zero) { $0 + ($1 - mean).multiplied(by: $1 - mean) }
        guard let variance = squares.divided(by: FixedDecimal(trades.count - 1), rule: .halfEven),
            let deviation = DecimalFunctions.squareRoot(variance), deviation.isPositive,
            let root = DecimalFunctions.squareRoot(FixedDecimal(min(trades.count, 100)))
        else { return nil }
        return root.multiplied(by: mean).divided(by: deviation, places: 2, rule: .halfEven)
    }

    public var exposure: FixedDecimal {
        bars == 0
            ? .zero : FixedDecimal(exposureBars).divided(by: FixedDecimal(bars), places: 4, rule: .halfEven) ?? .zero
    }

    /// Stock bars on weekends: the always-open clock's market trades every day, its history too, which no exchange
    /// does (a crypto pair's weekends are real).
    public var hasUnexpectedWeekends: Bool { !aroundTheClock && points.contains { $0.date.isWeekend } }

    public var warnings: [String] {
        var out: [String] = []
        if fill == .close {
            out.append(
                "orders filled at the close of the bar that produced them: the strategy saw that close before trading at it (look-ahead); next-open is the realistic setting"
            )
        }
        if hasUnexpectedWeekends {
            out.append(
                "This server's market trades every day (its always-open clock), so these bars include weekends, which no exchange trades; a server on the real calendar has none."
            )
        }
        for refusal in refusals.prefix(5) {
            let count = refusal.count
            out.append("\(count) \(count == 1 ? "order was" : "orders were") refused: \(refusal.rejection.message)")
        }
        return out
    }

    /// Refused orders of one message: the first such rejection and how many there were.
    public struct Refusal: Sendable, Hashable {
        public var rejection: OrderRejection
        public var count: Int
    }

    /// Refusals gathered during a run, by message.
    struct Refusals {
        var byMessage: [String: Refusal] = [:]

        mutating func add(_ rejection: OrderRejection) {
            byMessage[rejection.message, default: Refusal(rejection: rejection, count: 0)].count += 1
        }

        /// Most frequent first; ties by message, so a report reads the same every run.
        var list: [Refusal] {
            byMessage.values.sorted {
                ($0.count, $1.rejection.message) > ($1.count, $0.rejection.message)
            }
        }
    }

    // MARK: Report

    public var json: JSONValue {
        let f = figures
        func trade(_ t: BacktestTrade) -> JSONValue {
            .object([
                "symbol": .string(t.symbol), "side": .string(t.side.rawValue),
                "entry_time": .string(t.entryTime.description), "entry_price": .decimal(t.entryPrice),
                "exit_time": t.exitTime.map { .string($0.description) } ?? .null, "exit_price": .decimal(t.exitPrice),
                "qty": .decimal(t.qty), "pnl": .decimal(t.pnl), "return": .decimal(t.returnFraction),
                "fees": .decimal(t.fees),
                "bars_held": t.exitBar.map { .int($0 - t.entryBar) } ?? .null,
            ])
        }
        var o: [String: JSONValue] = [
            "symbols": .array(symbols.map(JSONValue.string)), "currency": .string(currency.rawValue),
            "frequency": .string(frequency.description), "fill": .string(fill.rawValue),
            "start": .string(start.description), "end": .string(end.description), "days": .int(days),
            "bars": .int(bars),
        ]
        o["starting_cash"] = .decimal(startingCash)
        o["final_equity"] = .decimal(finalEquity)
        o["peak_equity"] = .decimal(peakEquity)
        o["return"] = .decimal(totalReturn)
        o["buy_and_hold_return"] = .decimal(buyAndHoldReturn)
        o["index"] = index.map { .object(["name": .string($0.name), "return": .decimal($0.return)]) } ?? .null
        o["cagr"] = .decimal(cagr)
        o["volatility"] = .decimal(f?.volatility)
        o["sharpe"] = .decimal(f?.sharpe)
        o["sortino"] = .decimal(f?.sortino)
        o["max_drawdown"] = .decimal(f?.maxDrawdown?.depth)
        o["max_drawdown_peak"] = f?.maxDrawdown.map { .string($0.peak.description) } ?? .null
        o["max_drawdown_trough"] = f?.maxDrawdown.map { .string($0.trough.description) } ?? .null
        o["calmar"] = .decimal(calmar)
        o["exposure"] = .decimal(exposure)
        o["trades"] = .int(trades.count)
        o["open_trades"] = .int(openTrades.count)
        o["win_rate"] = .decimal(winRate)
        o["best_trade"] = .decimal(trades.map(\.returnFraction).max())
        o["worst_trade"] = .decimal(trades.map(\.returnFraction).min())
        o["average_trade"] = .decimal(averageTradeReturn)
        o["profit_factor"] = .decimal(profitFactor)
        o["expectancy"] = .decimal(expectancy)
        o["sqn"] = .decimal(sqn)
        o["fees"] = .decimal(fees)
        o["warnings"] = .array(warnings.map(JSONValue.string))
        o["trade_list"] = .array((trades + openTrades).map(trade))
        o["monthly_returns"] = .array(
            (f?.monthly ?? []).map {
                .object(["year": .int($0.year), "month": .int($0.month), "return": .decimal($0.twr)])
            })
        let values = pointsWithStart
        var curve: [JSONValue] = []
        if let f {
            for (i, date) in f.dates.enumerated() {
                curve.append(
                    .object([
                        "date": .string(date.description),
                        "equity": .decimal(i < values.count ? values[i].value : nil),
                        "drawdown": .decimal(i < f.drawdowns.count ? f.drawdowns[i] : nil),
                    ]))
            }
        }
        o["equity"] = .array(curve)
        return .object(o)
    }

    var pointsWithStart: [ValuationPoint] {
        if let first = points.first, first.value != startingCash {
            return [ValuationPoint(date: first.date.adding(days: -1), value: startingCash)] + points
        }
        return points
    }

    public var calmar: FixedDecimal? {
        guard let cagr, let depth = figures?.maxDrawdown?.depth, depth.isNegative else { return nil }
        return cagr.divided(by: depth.magnitude, places: 4, rule: .halfEven)
    }

    public var averageTradeReturn: FixedDecimal? {
        guard !trades.isEmpty else { return nil }
        return trades.reduce(FixedDecimal.zero) { $0 + $1.returnFraction }.divided(
            by: FixedDecimal(trades.count), places: 6, rule: .halfEven)
    }

    /// The report as text for a terminal.
    public var text: String {
        let f = figures
        func percent(_ v: FixedDecimal?) -> String {
            guard let v else { return "—" }
            let p = v.times(100).rounded(places: 2, rule: .halfEven)
            return (p.isPositive ? "+" : "") + p.formatted(minimumPlaces: 2) + "%"
        }
        func share(_ v: FixedDecimal?) -> String {
            v.map { $0.times(100).rounded(places: 2, rule: .halfEven).formatted(minimumPlaces: 2) + "%" } ?? "—"
        }
        func number(_ v: FixedDecimal?, _ places: Int = 2) -> String {
            v.map { $0.rounded(places: places, rule: .halfEven).formatted(minimumPlaces: places) } ?? "—"
        }
        let money = { (v: FixedDecimal) in
            (v.isNegative ? "-" : "") + self.currency.symbol
                + v.magnitude.rounded(places: 2, rule: .halfEven).formatted(minimumPlaces: 2)
        }
        var lines = [
            "Backtest of \(symbols.joined(separator: ", ")) · \(frequency) bars · fills at \(fill == .nextOpen ? "the next bar's open" : "the signal bar's close")",
            "Period            \(start.minuteText) → \(end.minuteText) UTC (\(days) days, \(bars) bars)",
            "Starting cash     \(money(startingCash))",
            "Final equity      \(money(finalEquity))   peak \(money(peakEquity))",
            "Return            \(percent(totalReturn))   buy & hold \(percent(buyAndHoldReturn))   CAGR \(percent(cagr))",
            "Index             \(index.map { "\($0.name) \(percent($0.return))" } ?? "—")",
            "Volatility        \(share(f?.volatility))   Sharpe \(number(f?.sharpe))   Sortino \(number(f?.sortino))   Calmar \(number(calmar))",
            "Max drawdown      \(percent(f?.maxDrawdown?.depth))\(f?.maxDrawdown.map { " (\($0.peak) → \($0.trough))" } ?? "")",
            "Exposure          \(share(exposure)) of bars with a position",
            "Trades            \(trades.count) round trips\(openTrades.isEmpty ? "" : ", \(openTrades.count) open")   win rate \(share(winRate))",
            "Trade returns     best \(percent(trades.map(\.returnFraction).max()))   worst \(percent(trades.map(\.returnFraction).min()))   average \(percent(averageTradeReturn))",
            "Profit factor     \(number(profitFactor))   expectancy \(expectancy.map(money) ?? "—")   SQN \(number(sqn))",
            "Fees              \(money(fees))",
        ]
        for warning in warnings { lines.append("Warning: \(warning)") }
        if !trades.isEmpty {
            lines.append("")
            lines.append("Trades (last 10)")
            for t in trades.suffix(10) {
                lines.append(
                    "  \(t.symbol) \(t.side.rawValue) \(t.qty.formatted(minimumPlaces: 0)) @ \(number(t.entryPrice)) \(t.entryTime.minuteText) → \(number(t.exitPrice)) \(t.exitTime?.minuteText ?? "")  P&L \(money(t.pnl))"
                )
            }
        }
        return lines.joined(separator: "\n")
    }
}
