import TradingCore

/// One random-access multifractal walk with unit daily variance: a building block of the simulated market's latent
/// log-prices (`LatentPath` adds up a market factor, a sector factor and the instrument's own walk, each one of these).
///
/// Model (a multifractal random walk, after Mandelbrot–Calvet–Fisher's MMAR):
/// - Time is counted in weekdays since 1970-01-05 (weekends do not exist; exchange holidays are weekdays on
///   which nobody trades, so the next open gaps by a day's variance).
/// - "Trading time" θ is a multiplicative cascade over 2^16 weekdays: each dyadic interval gives its left half
///   a random share W ∈ [0.5 − δ, 0.5 + δ] of its mass. Neighbouring days share ancestors, so busy periods
///   cluster (volatility clustering) and daily variance is a mixture (fat tails).
/// - The walk is 2^8 · B(θ), with B a Brownian motion on [0, 1] built as a dyadic Brownian bridge: B at any point
///   is found by descending the bridge tree, each node's midpoint drawn from the counter hash of (key, level, node).
///   Any instant costs O(depth), no history is stored; an average day's increment has variance 1.
/// - Inside a day, the first `overnightShare` of the day's trading time is the overnight gap; the rest is
///   spread over the session minutes with a U-shaped intensity (busy open and close).
struct PricePath: Sendable {
    static let cascadeLevels = 16
    static let days = 1 << cascadeLevels
    /// Depth of the Brownian bridge below the root: resolution 2^-30 of the whole span (~1/16,000 of a day).
    static let bridgeLevels = 30
    static let epoch = CivilDate(1970, 1, 5) // a Monday

    let key: UInt64
    /// Cascade spread δ: 0 gives a plain random walk; larger gives fatter tails and stronger clustering.
    let cascadeSpread: Double
    /// Whose draws the cascade's top levels follow (`regimeLevels`): the walk's own key, or its market's.
    let regimeKey: UInt64
    /// Multiples of `levelScale` for levels 6–11 (months) and 12–15 (weeks and days), 1 for most walks: A-shares'
    /// own walks cluster more over months and less from day to day than US stocks' (their figures in
    /// `CalibrationReport`), US mega caps' days are a little wilder.
    let monthsScale: Double
    let weeksScale: Double

    init(
        key: UInt64, cascadeSpread: Double, regimeKey: UInt64? = nil, monthsScale: Double = 1, weeksScale: Double = 1
    ) {
        self.key = key
        self.cascadeSpread = cascadeSpread
        self.regimeKey = regimeKey ?? key
        self.monthsScale = monthsScale
        self.weeksScale = weeksScale
    }

    /// The cascade's spread at each level, as a multiple of δ. Levels 0–5 split spans of 8 years and more: narrow
    /// there, so one decade is not ten times as wild as the next. Levels 6–11 (4 years down to a month): wide, so
    /// calm and stormy months and years cluster as real ones do. Levels 12–15 (two weeks down to a day): in between,
    /// so single days are not wilder than real ones.
    @inline(__always)
    static func levelScale(_ level: Int) -> Double {
        level <= 5 ? 0.5 : level <= 11 ? 1.25 : 0.9
    }

    /// The cascade's spread at a level: δ × `levelScale` × the walk's months or weeks scale, at most 0.48.
    @inline(__always)
    func spread(_ level: Int) -> Double {
        let scale = level >= 12 ? weeksScale : level >= 6 ? monthsScale : 1
        return min(max(cascadeSpread * Self.levelScale(level) * scale, 0), 0.48)
    }

    /// The cascade's levels above this one (spans of half a year and more) follow `regimeKey`'s draws: walks that
    /// share a regime key have the same calm and stormy half-years (a stock's own moves grow wild when its market
    /// does), and differ below it.
    static let regimeLevels = 9

    /// Weekday index of a date (Saturday and Sunday map to the following Monday).
    static func weekdayIndex(_ date: CivilDate) -> Int {
        let days = date.daysSinceEpoch - epoch.daysSinceEpoch
        let weeks = days >= 0 ? days / 7 : (days - 6) / 7
        let inWeek = days - weeks * 7
        return weeks * 5 + min(inWeek, 5)
    }

    /// The walk at a point of a weekday: fraction 0 is the start of its overnight gap, 1 the next day's start.
    func logLevel(day: Int, fraction: Double) -> Double {
        let d = min(max(day, 0), Self.days - 1)
        let (start, mass) = tradingTime(day: d)
        return 256 * brownian(start + mass * min(max(fraction, 0), 1))
    }

    /// The walk at several fractions of one day (sorted ascending), sharing the day's cascade and the top of the
    /// bridge tree: ~4× cheaper than one call per point.
    func logLevels(day: Int, fractions: [Double]) -> [Double] {
        let d = min(max(day, 0), Self.days - 1)
        let (start, mass) = tradingTime(day: d)
        let xs = fractions.map { start + mass * min(max($0, 0), 1) }
        var out = [Double](repeating: 0, count: xs.count)
        let b0 = CounterRandom.normal(CounterRandom.hash(key, 0xB0, 0, 0))
        descend(xs, 0..<xs.count, lo: 0, hi: 1, bLo: 0, bHi: b0, level: 0, node: 1, into: &out)
        for i in out.indices { out[i] *= 256 }
        return out
    }

    private func descend(
        _ xs: [Double], _ range: Range<Int>, lo: Double, hi: Double, bLo: Double, bHi: Double,
        level: Int, node: UInt64, into out: inout [Double]
    ) {
        guard !range.isEmpty else { return }
        let width = hi - lo
        if level == Self.bridgeLevels {
            for i in range { out[i] = bLo + (bHi - bLo) * (width > 0 ? (xs[i] - lo) / width : 0) }
            return
        }
        let mid = (lo + hi) * 0.5
        let z = CounterRandom.normal(CounterRandom.hash(key, 0xB1, UInt64(level), node))
        let bMid = (bLo + bHi) * 0.5 + (width * 0.25).squareRoot() * z
        var split = range.lowerBound
        while split < range.upperBound && xs[split] < mid { split += 1 }
        descend(
            xs, range.lowerBound..<split, lo: lo, hi: mid, bLo: bLo, bHi: bMid, level: level + 1, node: node * 2,
            into: &out)
        descend(
            xs, split..<range.upperBound, lo: mid, hi: hi, bLo: bMid, bHi: bHi, level: level + 1, node: node * 2 + 1,
            into: &out)
    }

    /// The day's share of trading time relative to an average day (1 = average): its variance multiplier.
    func activity(day: Int) -> Double {
        tradingTime(day: min(max(day, 0), Self.days - 1)).mass * Double(Self.days)
    }

    /// Start of a weekday in trading time and its mass (share of the whole span).
    func tradingTime(day: Int) -> (start: Double, mass: Double) {
        var start = 0.0
        var mass = 1.0
        var node: UInt64 = 1
        for level in 0..<Self.cascadeLevels {
            let owner = level < Self.regimeLevels ? regimeKey : key
            let u = CounterRandom.uniform(CounterRandom.hash(owner, 0xCA5C, UInt64(level), node))
            let left = 0.5 + spread(level) * (2 * u - 1)
            let goRight = (day >> (Self.cascadeLevels - 1 - level)) & 1 == 1
            if goRight {
                start += mass * left
                mass *= 1 - left
                node = node * 2 + 1
            } else {
                mass *= left
                node = node * 2
            }
        }
        return (start, mass)
    }

    /// Standard Brownian motion on [0, 1] at x, by descending the dyadic bridge; linear below the last level.
    func brownian(_ x: Double) -> Double {
        var lo = 0.0, hi = 1.0
        var bLo = 0.0
        var bHi = CounterRandom.normal(CounterRandom.hash(key, 0xB0, 0, 0))
        var node: UInt64 = 1
        var width = 1.0
        for level in 0..<Self.bridgeLevels {
            let mid = (lo + hi) * 0.5
            let z = CounterRandom.normal(CounterRandom.hash(key, 0xB1, UInt64(level), node))
            let bMid = (bLo + bHi) * 0.5 + (width * 0.25).squareRoot() * z
            width *= 0.5
            if x < mid {
                hi = mid
                bHi = bMid
                node = node * 2
            } else {
                lo = mid
                bLo = bMid
                node = node * 2 + 1
            }
        }
        let t = width > 0 ? (x - lo) / width : 0
        return bLo + (bHi - bLo) * t
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
