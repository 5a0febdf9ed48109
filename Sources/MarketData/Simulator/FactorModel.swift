import Synchronization
import TradingCore

/// How big a company is, by its simulated market capitalisation on the anchor day (A-shares converted at 7.1 yuan to
/// the dollar). Volatility, tails, earnings moves, ties to the market and trading volume follow it.
public enum SizeTier: String, Sendable, CaseIterable, Hashable {
    case mega, large, mid, small, micro

    init(capitalisationUSD cap: Double) {
        switch cap {
        case 200e9...: self = .mega
        case 10e9..<200e9: self = .large
        case 2e9..<10e9: self = .mid
        case 300e6..<2e9: self = .small
        default: self = .micro
        }
    }
}

/// The simulated market's common factors: one walk per market (the US, A-shares) and one per sector (GICS sectors in
/// the US; boards for A-shares, where main-board and growth-board stocks move apart), each a unit-variance
/// `PricePath` with its own trading-time cascade, so market-wide storms are shared by every stock. Thousands of
/// stocks read the same few factors on the same days, so each factor's daily open and close (and its day's
/// activity) are computed once and kept, and so are its levels at a session's minute boundaries.
final class FactorModel: Sendable {
    struct Factor: Sendable, Hashable {
        let key: UInt64
        /// The walk's cascade spread: the market's storms are wilder than a sector's.
        let cascadeSpread: Double
        /// The market factor's key: a sector's stormy half-years are its market's (see `PricePath.regimeKey`).
        let regimeKey: UInt64
    }

    struct Day: Sendable {
        var open: Double
        var close: Double
        var activity: Double
    }

    private struct DayKey: Hashable, Sendable {
        var factor: UInt64
        var day: Int
    }

    private struct MinuteKey: Hashable, Sendable {
        var factor: UInt64
        var day: Int
        var count: Int
        var first: Double
    }

    private struct LandingKey: Hashable, Sendable {
        var schedule: UInt64
        var year: Int
    }

    let seed: UInt64
    let cascadeSpread: Double
    let overnightShare: Double
    private let days = Mutex([DayKey: Day]())
    private let minutes = Mutex([MinuteKey: [Double]]())
    private let landings = Mutex([LandingKey: [Int]]())
    static let dayCapacity = 400_000
    static let minuteCapacity = 2_048

    init(seed: UInt64, cascadeSpread: Double, overnightShare: Double) {
        self.seed = seed
        self.cascadeSpread = cascadeSpread
        self.overnightShare = overnightShare
    }

    func market(_ market: Market) -> Factor {
        let key = CounterRandom.hash(seed, CounterRandom.key("factor/market/" + market.rawValue))
        return Factor(key: key, cascadeSpread: min(cascadeSpread + Self.marketExtraSpread, 0.45), regimeKey: key)
    }

    /// The crypto market's common factor: what moves every coin together (most of bitcoin's moves, about half of an
    /// altcoin's). Its storms are the market factors'.
    func crypto() -> Factor {
        let key = CounterRandom.hash(seed, CounterRandom.key("factor/market/crypto"))
        return Factor(key: key, cascadeSpread: min(cascadeSpread + Self.marketExtraSpread, 0.45), regimeKey: key)
    }

    /// A currency factor (`dollar`, `europe`, `commodity`): what moves a group of currencies together. Its storms are
    /// the US market factor's.
    func currency(_ name: String) -> Factor {
        Factor(
            key: CounterRandom.hash(seed, CounterRandom.key("factor/fx/" + name)), cascadeSpread: cascadeSpread,
            regimeKey: market(.us).key)
    }

    func sector(_ market: Market, _ name: String) -> Factor {
        Factor(
            key: CounterRandom.hash(seed, CounterRandom.key("factor/sector/" + market.rawValue + "/" + name)),
            cascadeSpread: cascadeSpread, regimeKey: self.market(market).key)
    }

    /// How much more the market factor's cascade spreads than the configured δ (its volatility clusters most).
    static let marketExtraSpread = 0.04

    func path(_ factor: Factor) -> PricePath {
        PricePath(key: factor.key, cascadeSpread: factor.cascadeSpread, regimeKey: factor.regimeKey)
    }

    /// The factor's open (the end of the day's overnight gap), close and activity on a weekday.
    func day(_ factor: Factor, _ day: Int) -> Day {
        let key = DayKey(factor: factor.key, day: day)
        if let hit = days.withLock({ $0[key] }) { return hit }
        let path = path(factor)
        let levels = path.logLevels(day: day, fractions: [overnightShare, 1])
        let value = Day(open: levels[0], close: levels[1], activity: path.activity(day: day))
        days.withLock {
            if $0.count >= Self.dayCapacity { $0.removeAll(keepingCapacity: true) }
            $0[key] = value
        }
        return value
    }

    /// The factor at a point of a weekday (see `PricePath.logLevel`); the day's open and close come from the cache.
    func level(_ factor: Factor, day: Int, fraction: Double) -> Double {
        if fraction == 1 { return self.day(factor, day).close }
        if fraction == overnightShare { return self.day(factor, day).open }
        return path(factor).logLevel(day: day, fraction: fraction)
    }

    /// The path days on which a company's reports on the quarters ending in a calendar year land (the calendar's
    /// holidays make working them out the dearest part of a price, so each company-year is worked out once).
    func landingDays(_ schedule: EarningsSchedule, year: Int, grid: SessionGrid) -> [Int] {
        let key = LandingKey(schedule: schedule.key, year: year)
        if let hit = landings.withLock({ $0[key] }) { return hit }
        let value = schedule.reports(quartersEndingIn: year, calendar: grid.calendar).map {
            schedule.effectiveDay($0.date, grid: grid)
        }
        landings.withLock {
            if $0.count >= Self.dayCapacity { $0.removeAll(keepingCapacity: true) }
            $0[key] = value
        }
        return value
    }

    /// The factor at a day's minute boundaries (every stock of a market asks for the same fractions).
    func levels(_ factor: Factor, day: Int, fractions: [Double]) -> [Double] {
        let key = MinuteKey(factor: factor.key, day: day, count: fractions.count, first: fractions.first ?? 0)
        if let hit = minutes.withLock({ $0[key] }) { return hit }
        let value = path(factor).logLevels(day: day, fractions: fractions)
        minutes.withLock {
            if $0.count >= Self.minuteCapacity { $0.removeAll(keepingCapacity: true) }
            $0[key] = value
        }
        return value
    }
}

/// A stock's latent log-price: its loadings on its market's factor and its sector's, plus its own walk, a drift and
/// the offset that puts it at its anchor level on the anchor day:
///
///     x(t) = ℓm·M(t) + ℓs·S(t) + ℓe·E(t) + μ·t + offset
///
/// with M, S and E unit-variance walks, so the daily variance is ℓm² + ℓs² + ℓe² on an average day and two stocks of
/// one sector correlate by (ℓm ℓm' + ℓs ℓs') ÷ (σ σ'). The sum reflects off anchor ÷ 12 and × 25, so decades of
/// history neither sink to the minimum tick nor explode (reflection keeps every return's size).
struct StockPath: Sendable {
    let own: PricePath
    let ownLoading: Double
    let market: FactorModel.Factor
    let marketLoading: Double
    let sector: FactorModel.Factor?
    let sectorLoading: Double
    /// Further factors and their loadings (a currency pair's bloc and the stock market; none for a stock).
    let extra: [(factor: FactorModel.Factor, loading: Double)]
    /// Drift per weekday.
    let drift: Double
    let factors: FactorModel
    /// The company's reports and their jumps (nil: no earnings), on its market's session grid.
    let earnings: EarningsSchedule?
    let grid: SessionGrid
    private(set) var offset = 0.0
    private(set) var floor = -Double.infinity
    private(set) var ceiling = Double.infinity

    init(
        own: PricePath, ownLoading: Double, market: FactorModel.Factor, marketLoading: Double,
        sector: FactorModel.Factor?, sectorLoading: Double, drift: Double, factors: FactorModel,
        earnings: EarningsSchedule?, grid: SessionGrid, anchorLevel: Double, anchorDay: Int,
        extra: [(factor: FactorModel.Factor, loading: Double)] = []
    ) {
        self.own = own
        self.extra = extra
        self.ownLoading = ownLoading
        self.market = market
        self.marketLoading = marketLoading
        self.sector = sector
        self.sectorLoading = sectorLoading
        self.drift = drift
        self.factors = factors
        self.earnings = earnings
        self.grid = grid
        offset = log(anchorLevel) - raw(day: anchorDay, fraction: 0)
        floor = log(anchorLevel / 12)
        ceiling = log(anchorLevel * 25)
    }

    var variance: Double {
        ownLoading * ownLoading + marketLoading * marketLoading + sectorLoading * sectorLoading
            + extra.reduce(0) { $0 + $1.loading * $1.loading }
    }

    private func raw(day: Int, fraction: Double) -> Double {
        let d = min(max(day, 0), PricePath.days - 1)
        var x = ownLoading * own.logLevel(day: d, fraction: fraction)
        x += marketLoading * factors.level(market, day: d, fraction: fraction)
        if let sector { x += sectorLoading * factors.level(sector, day: d, fraction: fraction) }
        for (factor, loading) in extra { x += loading * factors.level(factor, day: d, fraction: fraction) }
        if let earnings { x += earnings.cumulativeJump(reports(day: d, fraction: fraction)) }
        return x + drift * (Double(d) + fraction)
    }

    /// How many reports have moved the price by a point of day `day` (a report's jump lands half-way through the
    /// overnight gap): those on every quarter that ended before last year (reported by now), and those on last year's
    /// and this year's quarters that have landed.
    func reports(day: Int, fraction: Double) -> Int {
        guard let earnings else { return 0 }
        let year = grid.date(ofDay: day).year
        let first = EarningsSchedule.firstYear
        guard year >= first else { return 0 }
        var n = 4 * max(year - 1 - first, 0)
        let gap = factors.overnightShare
        for quarters in max(year - 1, first)...year {
            for landing in factors.landingDays(earnings, year: quarters, grid: grid)
            where landing < day || (landing == day && fraction >= gap / 2) {
                n += 1
            }
        }
        return n
    }

    /// Whether a report's jump lands in the day's overnight gap.
    func isReportDay(_ day: Int) -> Bool {
        earnings != nil && reports(day: day, fraction: 1) > reports(day: day, fraction: 0)
    }

    func logLevel(day: Int, fraction: Double) -> Double {
        reflected(raw(day: day, fraction: fraction) + offset)
    }

    func logLevels(day: Int, fractions: [Double]) -> [Double] {
        let d = min(max(day, 0), PricePath.days - 1)
        var out = own.logLevels(day: d, fractions: fractions)
        let m = factors.levels(market, day: d, fractions: fractions)
        let s = sector.map { factors.levels($0, day: d, fractions: fractions) }
        let e = extra.map { ($0.loading, factors.levels($0.factor, day: d, fractions: fractions)) }
        // The reports counted at the day's start and end (a report's jump lands in the overnight gap).
        let gap = factors.overnightShare
        var jumps: (start: Double, end: Double)?
        if let earnings {
            let start = reports(day: d, fraction: 0)
            let end = reports(day: d, fraction: 1)
            let before = earnings.cumulativeJump(start)
            jumps = (before, end == start ? before : earnings.cumulativeJump(end))
        }
        for i in out.indices {
            var x = ownLoading * out[i] + marketLoading * m[i]
            if let s { x += sectorLoading * s[i] }
            for (loading, levels) in e { x += loading * levels[i] }
            if let jumps { x += fractions[i] >= gap / 2 ? jumps.end : jumps.start }
            out[i] = reflected(x + drift * (Double(d) + fractions[i]) + offset)
        }
        return out
    }

    /// The path at a day's start (the previous close), open and close, given its factors' levels at those points
    /// (an index asks hundreds of members for the same day: it reads each factor once).
    func dayLevels(day: Int, factorLevels: [UInt64: (start: Double, open: Double, close: Double)]) -> (
        start: Double, open: Double, close: Double
    ) {
        let d = min(max(day, 0), PricePath.days - 1)
        let g = factors.overnightShare
        let own = own.logLevels(day: d, fractions: [0, g, 1])
        let m = factorLevels[market.key] ?? (0, 0, 0)
        let s = sector.flatMap { factorLevels[$0.key] } ?? (0, 0, 0)
        var e = (start: 0.0, open: 0.0, close: 0.0)
        for (factor, loading) in extra {
            let l = factorLevels[factor.key] ?? (0, 0, 0)
            e = (e.start + loading * l.start, e.open + loading * l.open, e.close + loading * l.close)
        }
        var jumps = (start: 0.0, end: 0.0)
        if let earnings {
            let start = reports(day: d, fraction: 0), end = reports(day: d, fraction: 1)
            jumps.start = earnings.cumulativeJump(start)
            jumps.end = end == start ? jumps.start : earnings.cumulativeJump(end)
        }
        func level(_ o: Double, _ m: Double, _ s: Double, _ j: Double, _ f: Double) -> Double {
            reflected(ownLoading * o + marketLoading * m + sectorLoading * s + j + drift * (Double(d) + f) + offset)
        }
        return (
            level(own[0], m.start, s.start, jumps.start + e.start, 0),
            level(own[1], m.open, s.open, jumps.end + e.open, g),
            level(own[2], m.close, s.close, jumps.end + e.close, 1)
        )
    }

    /// The day's variance relative to an average day's: each part's trading-time mass weighted by its loading.
    func activity(day: Int) -> Double {
        let d = min(max(day, 0), PricePath.days - 1)
        var v = ownLoading * ownLoading * own.activity(day: d)
        v += marketLoading * marketLoading * factors.day(market, d).activity
        if let sector { v += sectorLoading * sectorLoading * factors.day(sector, d).activity }
        for (factor, loading) in extra { v += loading * loading * factors.day(factor, d).activity }
        let total = variance
        return total > 0 ? v / total : 1
    }

    /// Folds a log-level into [floor, ceiling] by reflection.
    func reflected(_ x: Double) -> Double {
        guard floor.isFinite, ceiling.isFinite, x < floor || x > ceiling else { return x }
        let width = ceiling - floor
        var y = (x - floor).truncatingRemainder(dividingBy: 2 * width)
        if y < 0 { y += 2 * width }
        return floor + (y <= width ? y : 2 * width - y)
    }
}

/// An instrument's latent (unlimited, split-adjusted) log-price as a pure, random-access function of time: a stock's
/// factor model, or an index computed from its members (and the funds that track one).
struct LatentPath: Sendable {
    enum Source: Sendable {
        case stock(StockPath)
        /// An index basket's level, shifted (a fund that tracks the index at a fraction of its level).
        case basket(IndexBasket, shift: Double)
        /// One path's level over another's: a coin priced in another coin (BTC/USDT is BTC/USD ÷ USDT/USD), so the
        /// pairs never drift apart.
        case ratio(RatioPath)
    }

    /// Two paths, one over the other (a class: the enum holds it by reference, as an `indirect` case would).
    final class RatioPath: Sendable {
        let top: LatentPath
        let bottom: LatentPath

        init(_ top: LatentPath, over bottom: LatentPath) {
            self.top = top
            self.bottom = bottom
        }
    }

    /// A stable key per instrument, from which every other draw about it (ranges, volumes, prints) is hashed.
    let key: UInt64
    let source: Source

    /// Daily volatility of log-price on an average day.
    var dailyVolatility: Double {
        switch source {
        case .stock(let path): return path.variance.squareRoot()
        case .basket(let basket, _): return basket.dailyVolatility
        case .ratio(let ratio):
            let (top, bottom) = (ratio.top.dailyVolatility, ratio.bottom.dailyVolatility)
            return (top * top + bottom * bottom).squareRoot()
        }
    }

    /// Log-price at a point of a weekday: fraction 0 is the start of its overnight gap, 1 the next day's start.
    func logLevel(day: Int, fraction: Double) -> Double {
        switch source {
        case .stock(let path): return path.logLevel(day: day, fraction: fraction)
        case .basket(let basket, let shift): return basket.logLevel(day: day, fraction: fraction) + shift
        case .ratio(let ratio):
            return ratio.top.logLevel(day: day, fraction: fraction)
                - ratio.bottom.logLevel(day: day, fraction: fraction)
        }
    }

    /// Log-levels at several fractions of one day (sorted ascending).
    func logLevels(day: Int, fractions: [Double]) -> [Double] {
        switch source {
        case .stock(let path): return path.logLevels(day: day, fractions: fractions)
        case .basket(let basket, let shift):
            return basket.logLevels(day: day, fractions: fractions).map { $0 + shift }
        case .ratio(let ratio):
            let (top, bottom) = (ratio.top, ratio.bottom)
            return zip(top.logLevels(day: day, fractions: fractions), bottom.logLevels(day: day, fractions: fractions))
                .map { $0 - $1 }
        }
    }

    /// The day's variance multiplier (1 = an average day).
    func activity(day: Int) -> Double {
        switch source {
        case .stock(let path): return path.activity(day: day)
        case .basket(let basket, _): return basket.activity(day: day)
        case .ratio(let ratio): return ratio.top.activity(day: day)
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
