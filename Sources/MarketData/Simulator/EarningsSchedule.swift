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
/// - A US company reports each quarter of its fiscal year a company-specific number of days after the quarter ends
///   (larger companies sooner; the fourth quarter, with the annual report, about a week later), always before the
///   open or always after the close. Most fiscal years end in December; some in January (retailers, NVIDIA), in
///   May, June or September (Oracle, Microsoft, Apple), so reports come in every month, in seasons. A-shares follow
///   their reporting seasons: the annual report between late March and April (the first quarter's by the end of
///   April), the half-year's in August, the third quarter's in the second half of October, published in the
///   evening.
/// - Each report moves the price by a jump sized by the company's tier (mega caps a few percent, micro caps ten),
///   landing in the overnight gap before the next session: a report before the open gaps that day's open, one after
///   the close the next day's.
///
/// Reports are counted by the quarter they cover (four a year since 1970), and their jumps add up as a random walk
/// over that count, drawn as a dyadic bridge like the price path's: the price at any instant costs a few hashes,
/// with no history kept.
struct EarningsSchedule: Sendable {
    typealias Report = (date: CivilDate, fiscalYear: Int, fiscalQuarter: Int)

    let key: UInt64
    let market: Market
    let time: EarningsTime
    /// Days after a quarter's end (US).
    let lag: Int
    /// The month the fiscal year ends in (A-shares: December).
    let fiscalYearEnd: Int
    /// The standard deviation of a report's log jump.
    let jumpScale: Double

    static let firstYear = 1970
    static let walkLevels = 10 // 1,024 reports: beyond 2200

    /// Fiscal years that do not end in December, of well-known companies.
    static let knownFiscalYearEnds: [String: Int] = [
        "AAPL": 9, "MSFT": 6, "NVDA": 1, "WMT": 1, "HD": 1, "LOW": 1, "TGT": 1, "CRM": 1, "ORCL": 5, "NKE": 5,
        "FDX": 5, "GIS": 5, "MU": 8, "COST": 8, "CSCO": 7, "INTU": 7, "ADBE": 11, "AVGO": 10, "DE": 10, "AMAT": 10,
        "ADI": 10, "V": 9, "DIS": 9, "SBUX": 9, "PG": 6, "KLAC": 6, "LRCX": 6, "QCOM": 9, "ACN": 8,
    ]

    /// Nil for what does not report (funds, indices). S&P 500 members (`largeListed`) keep December fiscal years
    /// unless known otherwise; other companies draw theirs.
    init?(symbol: String, key: UInt64, market: Market, kind: InstrumentKind, tier: SizeTier, largeListed: Bool) {
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
            fiscalYearEnd = 12
        } else if let known = Self.knownFiscalYearEnds[symbol] {
            fiscalYearEnd = known
        } else if largeListed {
            fiscalYearEnd = 12
        } else {
            let w = CounterRandom.uniform(CounterRandom.hash(self.key, 4))
            fiscalYearEnd = w < 0.7 ? 12 : w < 0.8 ? 1 : w < 0.85 ? 3 : w < 0.9 ? 6 : w < 0.95 ? 9 : 5
        }
        if market == .cn {
            jumpScale = tier == .mega ? 0.025 : 0.035
        } else {
            switch tier {
            case .mega: jumpScale = 0.055
            case .large: jumpScale = 0.055
            case .mid: jumpScale = 0.065
            case .small: jumpScale = 0.08
            case .micro: jumpScale = 0.1
            }
        }
    }

    /// The months of a calendar year in which the company's fiscal quarters end, ascending.
    var quarterEndMonths: [Int] {
        let first = (fiscalYearEnd - 1) % 3 + 1 // 1, 2 or 3
        return [first, first + 3, first + 6, first + 9]
    }

    /// The reports on the quarters that end in a calendar year, in order (each comes out weeks after its quarter;
    /// a quarter ending in the autumn may be reported in the next calendar year).
    func reports(quartersEndingIn year: Int, calendar: TradingCalendar) -> [Report] {
        func jitter(_ n: Int, _ span: Int) -> Int {
            Int(
                CounterRandom.uniform(CounterRandom.hash(key, 3, UInt64(bitPattern: Int64(year)), UInt64(n)))
                    * Double(span))
        }
        switch market {
        case .us:
            return quarterEndMonths.enumerated().map { n, month in
                let end = (month == 12 ? CivilDate(year + 1, 1, 1) : CivilDate(year, month + 1, 1)).adding(days: -1)
                let fiscalYear = month <= fiscalYearEnd ? year : year + 1
                let quarter = ((month - fiscalYearEnd + 11) % 12) / 3 + 1
                var date = end.adding(days: lag + (quarter == 4 ? 8 : 0) + jitter(n, 4))
                // Forward to a trading day.
                if !calendar.isTradingDay(date) { date = calendar.nextTradingDay(after: date) }
                return (date, fiscalYear, quarter)
            }
        case .cn:
            // Back to a trading day: the seasons end on legal deadlines.
            func roll(_ d: CivilDate) -> CivilDate {
                calendar.isTradingDay(d) ? d : calendar.previousTradingDay(before: d)
            }
            func annual(_ y: Int) -> CivilDate {
                roll(CivilDate(y + 1, 3, 20).adding(days: Self.seasonJitter(key, y, 38)))
            }
            var first = roll(CivilDate(year, 4, 22).adding(days: jitter(1, 8)))
            let previousAnnual = annual(year - 1)
            if first <= previousAnnual { first = calendar.nextTradingDay(after: previousAnnual) }
            return [
                (first, year, 1), (roll(CivilDate(year, 8, 10).adding(days: jitter(2, 20))), year, 2),
                (roll(CivilDate(year, 10, 15).adding(days: jitter(3, 14))), year, 3), (annual(year), year, 4),
            ]
        }
    }

    /// A day count in [0, span) for an A-share's annual report on the year `year`, stable per company.
    static func seasonJitter(_ key: UInt64, _ year: Int, _ span: Int) -> Int {
        Int(CounterRandom.uniform(CounterRandom.hash(key, 5, UInt64(bitPattern: Int64(year)))) * Double(span))
    }

    /// The reports published in a calendar year, in order.
    func reports(year: Int, calendar: TradingCalendar) -> [Report] {
        (reports(quartersEndingIn: year - 1, calendar: calendar) + reports(quartersEndingIn: year, calendar: calendar))
            .filter { $0.date.year == year }
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
