import TradingCore

/// When in the day a company publishes its results.
public enum EarningsTime: String, Sendable, Hashable, CaseIterable {
    case beforeOpen = "before_open"
    case duringHours = "during_hours"
    case afterClose = "after_close"
}

/// One scheduled earnings report.
public struct EarningsReport: Sendable, Hashable {
    public var symbol: String
    public var date: CivilDate
    /// Nil when the company has not said (a provider's calendar).
    public var time: EarningsTime?
    /// The fiscal period reported: quarter 1–4 of a fiscal year (an A-share's annual report is quarter 4, its
    /// half-year report quarter 2).
    public var fiscalYear: Int
    public var fiscalQuarter: Int
    /// The company's market value in millions of its currency, where the source knows it (to show the largest
    /// reports first).
    public var marketCapMillions: FixedDecimal?

    public init(
        symbol: String, date: CivilDate, time: EarningsTime?, fiscalYear: Int, fiscalQuarter: Int,
        marketCapMillions: FixedDecimal? = nil
    ) {
        self.symbol = symbol
        self.date = date
        self.time = time
        self.fiscalYear = fiscalYear
        self.fiscalQuarter = fiscalQuarter
        self.marketCapMillions = marketCapMillions
    }
}

/// A simulated company's reporting calendar and what its reports do to the price, as a pure function of (seed,
/// symbol):
///
/// - US companies report four times a calendar year, a company-specific number of days after each quarter's end
///   (larger companies sooner; the fourth quarter, with the annual report, about a week later), always before the
///   open or always after the close. A-shares follow their reporting seasons: the annual report between late March
///   and April (the first quarter's by the end of April), the half-year's in August, the third quarter's in the
///   second half of October, published in the evening.
/// - Each report moves the price by a jump sized by the company's tier (mega caps a few percent, micro caps ten),
///   landing in the overnight gap before the next session: a report before the open gaps that day's open, one after
///   the close the next day's.
///
/// The jumps add up as a random walk over the reports counted since 1970, drawn as a dyadic bridge like the price
/// path's: the price at any instant costs a few hashes, with no history kept.
struct EarningsSchedule: Sendable {
    let key: UInt64
    let market: Market
    let time: EarningsTime
    /// Days after a quarter's end (US).
    let lag: Int
    /// The standard deviation of a report's log jump.
    let jumpScale: Double

    static let firstYear = 1970
    static let walkLevels = 10 // 1,024 reports: beyond 2200

    /// Nil for what does not report (funds, indices).
    init?(key: UInt64, market: Market, kind: InstrumentKind, tier: SizeTier) {
        guard kind == .stock else { return nil }
        self.key = CounterRandom.hash(key, 0xEA41)
        self.market = market
        let u = CounterRandom.uniform(CounterRandom.hash(self.key, 1))
        time = market == .cn || u < 0.45 ? .afterClose : .beforeOpen
        let v = CounterRandom.uniform(CounterRandom.hash(self.key, 2))
        switch tier {
        case .mega: lag = 22 + Int(v * 10)
        case .large: lag = 22 + Int(v * 16)
        case .mid, .small: lag = 28 + Int(v * 16)
        case .micro: lag = 32 + Int(v * 14)
        }
        if market == .cn {
            jumpScale = tier == .mega ? 0.025 : 0.035
        } else {
            switch tier {
            case .mega: jumpScale = 0.045
            case .large: jumpScale = 0.055
            case .mid: jumpScale = 0.065
            case .small: jumpScale = 0.08
            case .micro: jumpScale = 0.1
            }
        }
    }

    /// The four reports of a calendar year, in order.
    func reports(year: Int, calendar: TradingCalendar) -> [(date: CivilDate, fiscalYear: Int, fiscalQuarter: Int)] {
        func jitter(_ n: Int, _ span: Int) -> Int {
            Int(
                CounterRandom.uniform(CounterRandom.hash(key, 3, UInt64(bitPattern: Int64(year)), UInt64(n)))
                    * Double(span))
        }
        switch market {
        case .us:
            // Forward to a trading day.
            func roll(_ d: CivilDate) -> CivilDate { calendar.isTradingDay(d) ? d : calendar.nextTradingDay(after: d) }
            return [
                (roll(CivilDate(year - 1, 12, 31).adding(days: lag + 8 + jitter(0, 4))), year - 1, 4),
                (roll(CivilDate(year, 3, 31).adding(days: lag + jitter(1, 4))), year, 1),
                (roll(CivilDate(year, 6, 30).adding(days: lag + jitter(2, 4))), year, 2),
                (roll(CivilDate(year, 9, 30).adding(days: lag + jitter(3, 4))), year, 3),
            ]
        case .cn:
            // Back to a trading day: the seasons end on legal deadlines.
            func roll(_ d: CivilDate) -> CivilDate {
                calendar.isTradingDay(d) ? d : calendar.previousTradingDay(before: d)
            }
            let annual = roll(CivilDate(year, 3, 20).adding(days: jitter(0, 38)))
            var first = roll(CivilDate(year, 4, 22).adding(days: jitter(1, 8)))
            if first <= annual { first = calendar.nextTradingDay(after: annual) }
            return [
                (annual, year - 1, 4), (first, year, 1),
                (roll(CivilDate(year, 8, 10).adding(days: jitter(2, 20))), year, 2),
                (roll(CivilDate(year, 10, 15).adding(days: jitter(3, 14))), year, 3),
            ]
        }
    }

    /// The path's day on which a report's jump lands (in its overnight gap): the report's own day before the open,
    /// the next one after the close.
    func effectiveDay(_ date: CivilDate, grid: SessionGrid) -> Int {
        grid.dayIndex(date) + (time == .afterClose ? 1 : 0)
    }

    /// The sum of the first `count` reports' log jumps: a Gaussian random walk over reports, read at any point by
    /// descending a dyadic bridge.
    func cumulativeJump(_ count: Int) -> Double {
        let span = 1 << Self.walkLevels
        let k = min(max(count, 0), span)
        var lo = 0, hi = span
        var wLo = 0.0
        var wHi = Double(span).squareRoot() * CounterRandom.normal(CounterRandom.hash(key, 0xE0))
        var node: UInt64 = 1
        var level: UInt64 = 0
        while k != lo && k != hi {
            let mid = (lo + hi) / 2
            let wMid =
                (wLo + wHi) / 2
                + (Double(hi - lo) / 4).squareRoot() * CounterRandom.normal(CounterRandom.hash(key, 0xE1, level, node))
            if k < mid {
                hi = mid
                wHi = wMid
                node = node * 2
            } else {
                lo = mid
                wLo = wMid
                node = node * 2 + 1
            }
            level += 1
        }
        return jumpScale * (k == lo ? wLo : wHi)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SimulatedMarket {
    /// Scheduled earnings reports with dates from `from` through `through` (at most ten years, 1970–2200), by date
    /// then symbol: of `symbols` when given (unknown symbols and funds have none), else of every primary-listed
    /// company of both markets. The calendar is known ahead: reports are on it before they happen.
    public func earnings(from: CivilDate, through: CivilDate, symbols: [String]? = nil) -> [EarningsReport] {
        guard from <= through, through.daysSinceEpoch - from.daysSinceEpoch <= 3_700,
            through.year >= EarningsSchedule.firstYear, from.year <= 2200
        else { return [] }
        let entries =
            symbols.map { $0.compactMap { directory.entry($0) } }
            ?? directory.entries.filter { $0.isMoverCandidate && $0.instrument.kind == .stock }
        var out: [EarningsReport] = []
        for entry in entries {
            let profile = profile(entry)
            guard let schedule = profile.earnings else { continue }
            let calendar = entry.instrument.calendar
            let size = FixedDecimal(Int(min(max(profile.capitalisation / 1e6, 0), 1e12).rounded()))
            for year in max(
                from.year, EarningsSchedule.firstYear)...max(min(through.year, 2200), EarningsSchedule.firstYear)
            {
                for report in schedule.reports(year: year, calendar: calendar)
                where report.date >= from && report.date <= through {
                    out.append(
                        EarningsReport(
                            symbol: entry.symbol, date: report.date, time: schedule.time,
                            fiscalYear: report.fiscalYear, fiscalQuarter: report.fiscalQuarter,
                            marketCapMillions: size))
                }
            }
        }
        return out.sorted { ($0.date, $0.symbol) < ($1.date, $1.symbol) }
    }
}
