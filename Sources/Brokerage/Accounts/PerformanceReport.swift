import MarketData
import TradingCore

/// The periods a performance request can name.
public enum PerformancePeriod: String, Sendable, CaseIterable {
    case day = "1D"
    case week = "1W"
    case month = "1M"
    case threeMonths = "3M"
    case sixMonths = "6M"
    case yearToDate = "YTD"
    case year = "1Y"
    case all = "ALL"

    /// The last close before the period, counted back from `end` (nil for ALL: from the account's opening).
    func anchor(before end: CivilDate, calendar: TradingCalendar) -> CivilDate? {
        switch self {
        case .day: return calendar.previousTradingDay(before: end)
        case .week: return end.adding(days: -7)
        case .month: return end.addingMonths(-1)
        case .threeMonths: return end.addingMonths(-3)
        case .sixMonths: return end.addingMonths(-6)
        case .yearToDate: return CivilDate(end.year - 1, 12, 31)
        case .year: return end.addingMonths(-12)
        case .all: return nil
        }
    }

    /// Points through the trading day instead of one per close: 5-minute for a day, 30-minute for a week.
    var intradayStep: Int64? {
        switch self {
        case .day: return 5 * Duration64.minute
        case .week: return 30 * Duration64.minute
        default: return nil
        }
    }
}

/// How densely the chart is drawn.
public enum ChartResolution: Sendable, Hashable {
    /// 5-minute points for 1D, 30-minute for 1W, one per close otherwise.
    case periodDefault
    /// One point per close.
    case daily
    /// A point every so many nanoseconds through the sessions (1D and 1W only; longer periods are daily).
    case every(Int64)
}

/// One point of the performance chart: the value at a time and the money that came in since the last point.
public struct PerformancePoint: Sendable, Hashable {
    public var time: Timestamp
    public var value: FixedDecimal
    public var flow: FixedDecimal
}

/// A holding in the performance report.
public struct HoldingPerformance: Sendable {
    public var summary: PositionSummary
    /// Realized P&L of the position to date, net of its fees.
    public var realizedPnL: FixedDecimal
    public var dividends: FixedDecimal
    /// Market value as a fraction of the account's equity (6 places).
    public var share: FixedDecimal
}

/// The benchmark index over the report's dates.
public struct BenchmarkPerformance: Sendable {
    public var index: MarketIndex
    /// Price return from the close at the report's start to the last value (nil when the feed has no bars).
    public var periodReturn: FixedDecimal?
    public var series: [(time: Timestamp, value: FixedDecimal)]
}

/// An account's performance over a period: the figures (`PerformanceMetrics`), the chart, the benchmark and the
/// holdings.
public struct PerformanceReport: Sendable {
    public var accountID: AccountID
    public var currency: Currency
    public var period: PerformancePeriod?
    public var figures: PerformanceFigures
    /// Realized P&L of the period's sales, before fees.
    public var realizedPnL: FixedDecimal
    /// Unrealized P&L of what is held now.
    public var unrealizedPnL: FixedDecimal
    public var series: [PerformancePoint]
    public var benchmark: BenchmarkPerformance?
    public var holdings: [HoldingPerformance]
}

extension CivilDate {
    /// The same day `months` months away, clamped to the month's last day.
    public func addingMonths(_ months: Int) -> CivilDate {
        let index = year * 12 + (month - 1) + months
        // Floor division, so a month before year 0 is still a month (1...12), never an invalid date.
        let y = index >= 0 ? index / 12 : (index - 11) / 12
        let m = index - y * 12 + 1
        return CivilDate(y, m, Swift.min(day, CivilDate.daysIn(month: m, year: y)))
    }
}
