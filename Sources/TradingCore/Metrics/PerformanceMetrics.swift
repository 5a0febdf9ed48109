/// An account's (or a backtest's) value at one day's close, with what crossed its boundary that day.
public struct ValuationPoint: Sendable, Hashable, Codable {
    public var date: CivilDate
    /// Cash plus positions at the close.
    public var value: FixedDecimal
    /// Net external money that came in since the previous point (deposits +, withdrawals −, a reset's change),
    /// counted as arriving at the start of the day.
    public var flow: FixedDecimal
    /// Dividends received that day (part of the value already).
    public var dividends: FixedDecimal
    /// Fees paid that day (already out of the value).
    public var fees: FixedDecimal

    public init(
        date: CivilDate, value: FixedDecimal, flow: FixedDecimal = .zero, dividends: FixedDecimal = .zero,
        fees: FixedDecimal = .zero
    ) {
        self.date = date
        self.value = value
        self.flow = flow
        self.dividends = dividends
        self.fees = fees
    }
}

/// The largest fall of the time-weighted value from a peak.
public struct Drawdown: Sendable, Hashable {
    /// The fall as a (negative) fraction of the peak: -0.25 is 25% down.
    public var depth: FixedDecimal
    public var peak: CivilDate
    public var trough: CivilDate
    /// The first close back at the peak; nil while still below it.
    public var recovery: CivilDate?
}

/// The time-weighted return of one calendar month.
public struct MonthlyReturn: Sendable, Hashable {
    public var year: Int
    public var month: Int
    public var twr: FixedDecimal
}

/// Every figure of a performance report, computed from a series of closes and the flows between them.
public struct PerformanceFigures: Sendable, Hashable {
    public var start: CivilDate
    public var end: CivilDate
    public var startValue: FixedDecimal
    public var endValue: FixedDecimal
    /// Σ flows after the first point.
    public var netFlows: FixedDecimal
    /// Profit over the period in money: end − start − net flows (dividends in, fees out).
    public var totalReturn: FixedDecimal
    /// The part of the profit from price changes alone: total return − dividends + fees.
    public var priceReturn: FixedDecimal
    public var dividends: FixedDecimal
    public var fees: FixedDecimal
    /// Time-weighted return over the period (fraction); nil when nothing was ever invested.
    public var twr: FixedDecimal?
    /// Money-weighted return over the period (the XIRR compounded over the period's length); nil when the flows
    /// have no rate (e.g. nothing invested).
    public var mwr: FixedDecimal?
    /// The XIRR itself (annual), only for periods of a year or more.
    public var mwrAnnualized: FixedDecimal?
    /// The points' dates, and the daily returns the statistics use (one per point after the first).
    public var dates: [CivilDate]
    public var dailyReturns: [FixedDecimal]
    /// Annualized standard deviation of daily returns (√252); nil below `PerformanceMetrics.minimumReturns`.
    public var volatility: FixedDecimal?
    public var sharpe: FixedDecimal?
    public var sortino: FixedDecimal?
    public var maxDrawdown: Drawdown?
    /// Each point's fall from the running peak of the time-weighted value (0 at a peak, -0.1 when 10% below).
    public var drawdowns: [FixedDecimal]
    public var monthly: [MonthlyReturn]
}

/// Performance figures from an equity series: time-weighted and money-weighted returns, volatility, Sharpe,
/// Sortino, drawdown and monthly returns, by the definitions in `definitions` (shown next to every figure in the
/// API and the app). Pure and exact: the account performance screen, the Alpaca portfolio history, game
/// leaderboards and backtest reports all compute with this one type.
public enum PerformanceMetrics {
    /// Trading days in a year: the annualization factor of daily statistics.
    public static let periodsPerYear = 252
    /// Days in a year of a record kept every day (an account or a backtest trading crypto around the clock).
    public static let calendarDaysPerYear = 365
    /// Fewer daily returns than this give no volatility, Sharpe or Sortino: annualizing a few days says nothing.
    public static let minimumReturns = 20

    /// One sentence per figure, keyed by its API field name.
    public static let definitions: [String: String] = [
        "twr":
            "Time-weighted return: the period split at every deposit, withdrawal or reset, each day's return on the value after that day's flow, linked as the product of (1 + r) minus 1; flows do not move it.",
        "mwr":
            "Money-weighted return: the internal rate of return of the dated flows (starting value, deposits, withdrawals, ending value; XIRR on actual days / 365), compounded over the period; it weighs the days more money was invested.",
        "mwr_annualized": "The money-weighted rate per year (XIRR); shown only for periods of a year or more.",
        "total_return":
            "Profit over the period in money: ending value minus starting value minus net deposits; includes dividends and is net of fees.",
        "price_return": "The profit from price changes alone: total return minus dividends plus fees.",
        "realized_pnl": "Profit or loss of shares sold in the period against their average cost, before fees.",
        "unrealized_pnl": "Market value of the shares held at the end minus their average cost.",
        "dividends": "Cash dividends received in the period.",
        "fees": "Commissions and regulatory fees paid in the period.",
        "volatility":
            "Standard deviation of daily time-weighted returns (sample, n − 1), annualized by √252 (√365 for a record kept every day, as crypto trades); needs 20 daily returns.",
        "sharpe":
            "Mean daily return minus the daily risk-free rate, over the standard deviation of daily returns, annualized by √252; risk-free rate 0 unless configured.",
        "sortino":
            "Like Sharpe, over the downside deviation: √(mean of squared daily shortfalls below the risk-free rate), annualized by √252.",
        "max_drawdown":
            "The largest peak-to-trough fall of the time-weighted value (so deposits and withdrawals do not count), with the peak and trough dates and the recovery date.",
        "beta":
            "The slope of the daily returns on the benchmark's daily returns over the same days: sample covariance over the benchmark's variance; 1 moves with the index, 0 apart from it. Needs 20 daily returns.",
        "alpha":
            "Jensen's alpha: the mean daily return above the risk-free rate that beta times the benchmark's excess return does not explain, times 252; a yearly rate.",
        "treynor":
            "Treynor's ratio: the mean daily return above the risk-free rate times 252, over beta: the yearly excess return per unit of market risk. None when beta is within 0.01 of 0.",
        "benchmark":
            "The index's price return over the same dates: S&P 500 for US accounts, SSE Composite for A-share accounts.",
    ]

    /// Figures for `points` (closes in date order; the first is the starting point, its flow ignored).
    /// `riskFreeRate` is annual (e.g. 0.04), applied as rate/`periodsPerYear` per day. `periodsPerYear` is how many
    /// closes a year has: 252 trading days, or 365 for a record kept every day (crypto trades around the clock).
    public static func figures(
        _ points: [ValuationPoint], riskFreeRate: FixedDecimal = .zero, periodsPerYear: Int = periodsPerYear
    ) -> PerformanceFigures? {
        guard let first = points.first, let last = points.last else { return nil }
        let rest = points.dropFirst()
        let netFlows = rest.reduce(FixedDecimal.zero) { $0 + $1.flow }
        let dividends = rest.reduce(FixedDecimal.zero) { $0 + $1.dividends }
        let fees = rest.reduce(FixedDecimal.zero) { $0 + $1.fees }
        let total = last.value - first.value - netFlows
        let returns = dailyReturns(points)
        let invested = points.contains { $0.value.isPositive || $0.flow.isPositive }
        var figures = PerformanceFigures(
            start: first.date, end: last.date, startValue: first.value, endValue: last.value, netFlows: netFlows,
            totalReturn: total, priceReturn: total - dividends + fees, dividends: dividends, fees: fees,
            twr: invested ? link(returns) : nil, mwr: nil, mwrAnnualized: nil, dates: points.map(\.date),
            dailyReturns: returns,
            volatility: nil, sharpe: nil, sortino: nil, maxDrawdown: maxDrawdown(points, returns: returns),
            drawdowns: drawdownCurve(returns), monthly: monthlyReturns(points, returns: returns))
        if let rate = moneyWeightedRate(points) {
            let years = Wide(last.date.daysSinceEpoch - first.date.daysSinceEpoch).dividedBy(365)
            figures.mwr = Wide.exp(rate * years).map { ($0 - .one).rounded }
            if last.date.daysSinceEpoch - first.date.daysSinceEpoch >= 365 {
                figures.mwrAnnualized = Wide.exp(rate).map { ($0 - .one).rounded }
            }
        }
        if returns.count >= minimumReturns {
            let dailyFree = Wide(riskFreeRate).dividedBy(periodsPerYear)
            let statistics = Statistics(returns, target: dailyFree)
            let yearRoot = Wide.squareRoot(Wide(periodsPerYear)) ?? .zero
            figures.volatility = statistics.deviation.map { ($0 * yearRoot).rounded }
            if let deviation = statistics.deviation, deviation.raw > 0 {
                figures.sharpe = ((statistics.mean - dailyFree) / deviation * yearRoot).rounded
            }
            if statistics.downsideDeviation.raw > 0 {
                figures.sortino = ((statistics.mean - dailyFree) / statistics.downsideDeviation * yearRoot).rounded
            }
        }
        return figures
    }

    /// Each day's return on the value after its flow: (V_i − (V_{i−1} + F_i)) / (V_{i−1} + F_i); zero on a day
    /// that started with nothing invested.
    public static func dailyReturns(_ points: [ValuationPoint]) -> [FixedDecimal] {
        guard points.count > 1 else { return [] }
        var returns: [FixedDecimal] = []
        returns.reserveCapacity(points.count - 1)
        for i in 1..<points.count {
            let base = points[i - 1].value + points[i].flow
            guard base.isPositive else {
                returns.append(.zero)
                continue
            }
            returns.append((points[i].value - base).divided(by: base) ?? .zero)
        }
        return returns
    }

    /// Π(1 + r_i) − 1, linked at 18 digits and rounded once.
    public static func link(_ returns: some Sequence<FixedDecimal>) -> FixedDecimal {
        var wealth = Wide.one
        for r in returns { wealth = wealth * (Wide.one + Wide(r)) }
        return (wealth - .one).rounded
    }

    /// The internal rate of return of dated amounts (negative paid in, positive paid out), annual, on actual
    /// days / 365 as Excel's XIRR; nil when the amounts have no rate (all one sign), it lies outside
    /// −99.99%…+99,900% (a year, or the whole span if shorter), or a year of it is beyond 2^66.
    public static func xirr(_ flows: [(date: CivilDate, amount: FixedDecimal)]) -> FixedDecimal? {
        guard let rate = internalRate(flows) else { return nil }
        return Wide.exp(rate).map { ($0 - .one).rounded }
    }

    /// An account's returns against a benchmark's on the same days: beta, the slope of the account's daily returns on
    /// the benchmark's (sample covariance over the benchmark's variance), and Jensen's alpha, the mean daily excess
    /// return the benchmark's beta-weighted excess does not explain, annualized by the periods per year.
    public struct Relative: Sendable, Hashable {
        public var beta: FixedDecimal
        /// Annual, as a fraction (0.05: 5% a year above what the beta explains).
        public var alpha: FixedDecimal
        /// Treynor's ratio: the yearly return above the risk-free rate per unit of beta; nil when beta is within 0.01
        /// of 0 (a portfolio that does not move with the index has no market risk to reward).
        public var treynor: FixedDecimal?
        /// The days both series had a return.
        public var days: Int
    }

    /// `returns[i]` is the account's return from `dates[i]` to `dates[i + 1]` (as `figures` gives them); the
    /// benchmark's return on the same span comes from its closes on both dates. Days the benchmark has no close
    /// are left out; nil below `minimumReturns` days, or when the benchmark did not move.
    public static func relative(
        _ returns: [FixedDecimal], dates: [CivilDate], benchmark closes: [CivilDate: FixedDecimal],
        riskFreeRate: FixedDecimal = .zero, periodsPerYear: Int = periodsPerYear
    ) -> Relative? {
        var pairs: [(FixedDecimal, FixedDecimal)] = []
        for (i, r) in returns.enumerated() where i + 1 < dates.count {
            guard let before = closes[dates[i]], let after = closes[dates[i + 1]], before.isPositive,
                let b = (after - before).divided(by: before)
            else { continue }
            pairs.append((r, b))
        }
        return relative(pairs, riskFreeRate: riskFreeRate, periodsPerYear: periodsPerYear)
    }

    /// Beta and alpha of paired daily returns (account, benchmark).
    public static func relative(
        _ pairs: [(FixedDecimal, FixedDecimal)], riskFreeRate: FixedDecimal = .zero,
        periodsPerYear: Int = periodsPerYear
    ) -> Relative? {
        let n = pairs.count
        guard n >= minimumReturns else { return nil }
        let meanR = pairs.reduce(Wide.zero) { $0 + Wide($1.0) }.dividedBy(n)
        let meanB = pairs.reduce(Wide.zero) { $0 + Wide($1.1) }.dividedBy(n)
        var covariance = Wide.zero
        var variance = Wide.zero
        for (r, b) in pairs {
            let db = Wide(b) - meanB
            covariance = covariance + (Wide(r) - meanR) * db
            variance = variance + db * db
        }
        guard variance.raw > 0 else { return nil }
        let beta = covariance / variance
        let dailyFree = Wide(riskFreeRate).dividedBy(periodsPerYear)
        let alpha = ((meanR - dailyFree) - beta * (meanB - dailyFree)) * Wide(periodsPerYear)
        let minimumBeta = Wide(FixedDecimal(units: 1, exponent: 2))
        let treynor =
            beta < minimumBeta && -beta < minimumBeta ? nil : (meanR - dailyFree) * Wide(periodsPerYear) / beta
        return Relative(beta: beta.rounded, alpha: alpha.rounded, treynor: treynor?.rounded, days: n)
    }

    // MARK: - The pieces

    /// ln(1 + XIRR) of the series seen as an investor's flows: the starting value paid in on the first date,
    /// each flow paid in on the date of the close before it (flows arrive at the start of a day), the ending
    /// value paid out on the last date.
    static func moneyWeightedRate(_ points: [ValuationPoint]) -> Wide? {
        guard points.count > 1, let last = points.last else { return nil }
        var flows: [(date: CivilDate, amount: FixedDecimal)] = [(points[0].date, -points[0].value)]
        for i in 1..<points.count where !points[i].flow.isZero {
            flows.append((points[i - 1].date, -points[i].flow))
        }
        flows.append((last.date, last.value))
        return internalRate(flows)
    }

    /// Solves Σ a_j e^(−g t_j) = 0 for g = ln(1 + rate), t_j in years of 365 days since the first date:
    /// safeguarded Newton inside a bisection bracket. Amounts are scaled to the largest and each term to the
    /// largest exponent, so nothing overflows for any rate in the bracket.
    static func internalRate(_ flows: [(date: CivilDate, amount: FixedDecimal)]) -> Wide? {
        let nonzero = flows.filter { !$0.amount.isZero }
        guard let origin = nonzero.map(\.date.daysSinceEpoch).min(),
            nonzero.contains(where: { $0.amount.isPositive }), nonzero.contains(where: { $0.amount.isNegative })
        else { return nil }
        let largest = nonzero.map(\.amount.magnitude).max() ?? .one
        let terms = nonzero.map { flow in
            (
                years: Wide(flow.date.daysSinceEpoch - origin).dividedBy(365),
                amount: Wide(raw: flow.amount.raw) / Wide(raw: largest.raw)
            )
        }
        // f(g) scaled by a positive factor (the sign is what bisection needs; Newton uses f/f', which the factor
        // does not change).
        func evaluate(_ g: Wide) -> (value: Wide, slope: Wide) {
            let exponents = terms.map { -(g * $0.years) }
            let top = exponents.max() ?? .zero
            var value = Wide.zero
            var slope = Wide.zero
            for (term, exponent) in zip(terms, exponents) {
                let factor = Wide.exp(exponent - top) ?? .zero
                let weighted = term.amount * factor
                value = value + weighted
                slope = slope - term.years * weighted
            }
            return (value, slope)
        }
        // The rate lies between −99.99% and +99,900% a year — over the whole span when it is shorter than a year
        // (two days at +10% is thousands of percent a year).
        let span = terms.map(\.years).max() ?? .one
        let years = span.raw > 0 && span < .one ? span : .one
        var low = Wide.ln(Wide(raw: Wide.unit / 10_000)) / years
        var high = Wide.ln(Wide(1000)) / years
        let lowSign = evaluate(low).value.raw.signum()
        guard lowSign != 0 else { return low }
        guard evaluate(high).value.raw.signum() != lowSign else { return nil }
        var g = Wide.zero
        for _ in 0..<200 {
            let (value, slope) = evaluate(g)
            if value.raw == 0 { return g }
            if value.raw.signum() == lowSign { low = g } else { high = g }
            var next = (low + high).dividedBy(2)
            if slope.raw != 0 {
                let newton = g - value / slope
                if low < newton && newton < high { next = newton }
            }
            if (next - g).raw.magnitude <= 1 || (high - low).raw <= 1 { return next }
            g = next
        }
        return g
    }

    /// The deepest fall of the wealth index (1 linked with the daily returns) from its running peak.
    static func maxDrawdown(_ points: [ValuationPoint], returns: [FixedDecimal]) -> Drawdown? {
        guard let first = points.first else { return nil }
        var wealth = Wide.one
        var peak = Wide.one
        var peakDate = first.date
        var worst: Drawdown?
        var worstPeak = Wide.one
        for (i, r) in returns.enumerated() {
            let date = points[i + 1].date
            wealth = wealth * (Wide.one + Wide(r))
            if wealth >= peak {
                if let w = worst, w.recovery == nil, wealth >= worstPeak { worst?.recovery = date }
                peak = wealth
                peakDate = date
                continue
            }
            let depth = (wealth / peak - .one).rounded
            if depth < (worst?.depth ?? .zero) {
                worst = Drawdown(depth: depth, peak: peakDate, trough: date, recovery: nil)
                worstPeak = peak
            }
        }
        return worst
    }

    static func drawdownCurve(_ returns: [FixedDecimal]) -> [FixedDecimal] {
        var wealth = Wide.one
        var peak = Wide.one
        var curve: [FixedDecimal] = [.zero]
        curve.reserveCapacity(returns.count + 1)
        for r in returns {
            wealth = wealth * (Wide.one + Wide(r))
            peak = Swift.max(peak, wealth)
            curve.append(wealth >= peak ? .zero : (wealth / peak - .one).rounded)
        }
        return curve
    }

    static func monthlyReturns(_ points: [ValuationPoint], returns: [FixedDecimal]) -> [MonthlyReturn] {
        var months: [MonthlyReturn] = []
        var wealth = Wide.one
        for (i, r) in returns.enumerated() {
            let date = points[i + 1].date
            if let last = months.last, last.year == date.year, last.month == date.month {
                wealth = wealth * (Wide.one + Wide(r))
            } else {
                wealth = Wide.one + Wide(r)
                months.append(MonthlyReturn(year: date.year, month: date.month, twr: .zero))
            }
            months[months.count - 1].twr = (wealth - .one).rounded
        }
        return months
    }

    /// Mean, sample deviation and downside deviation of daily returns, at 18 digits.
    struct Statistics {
        var mean: Wide
        var deviation: Wide?
        var downsideDeviation: Wide

        init(_ returns: [FixedDecimal], target: Wide) {
            let n = returns.count
            mean = returns.reduce(Wide.zero) { $0 + Wide($1) }.dividedBy(max(n, 1))
            var squares = Wide.zero
            var shortfalls = Wide.zero
            for r in returns {
                let d = Wide(r) - mean
                squares = squares + d * d
                let below = Wide(r) - target
                if below.raw < 0 { shortfalls = shortfalls + below * below }
            }
            deviation = n > 1 ? Wide.squareRoot(squares.dividedBy(n - 1)) : nil
            downsideDeviation = Wide.squareRoot(shortfalls.dividedBy(max(n, 1))) ?? .zero
        }
    }
}
