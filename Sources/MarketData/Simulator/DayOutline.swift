import TradingCore

/// One instrument's trading day as its daily bar shows it — open, high, low, close, volume — drawn at the day level
/// from a few points of the path, without the day's minutes.
///
/// The minutes (`SimulatedDay`) are drawn afterwards to agree with it exactly: the first minute opens at the day's
/// open and the last closes at its close, the highest minute high is the day's high and the lowest low its low, and
/// the minute volumes add up to the day's volume. So a daily bar costs two path points and a few draws (years of
/// daily history for a universe take about a second), and every timeframe still agrees with every other.
///
/// The day's VWAP is its typical price ((high + low + close) ÷ 3) and its turnover volume × VWAP; the minute bars
/// have their own typical prices, so their turnovers add up to about, not exactly, the day's.
struct DayOutline: Sendable {
    enum LimitEvent: Sendable {
        case none
        /// The price is pulled to the limit by minute `by` and pinned there.
        case up(by: Int)
        case down(by: Int)
    }

    let date: CivilDate
    /// The daily bar's time: local midnight (Alpaca labels daily bars at midnight ET).
    let time: Timestamp
    let dayIndex: Int
    let minutes: Int
    /// The reference price (the last visible close, adjusted on an ex-date) and the log of the raw-price factor
    /// (corporate actions since the anchor day).
    let previousClose: Double
    let logFactor: Double
    let limitEvent: LimitEvent
    /// The latent (unlimited) level at the open, which a limit event's pull starts from.
    let latentOpen: Double
    /// Visible levels, limits applied.
    let open: Double
    let close: Double
    let high: Double
    let low: Double
    /// The close is the latent path's own (neither the band nor a limit event moved it).
    let closeIsLatent: Bool
    /// Minutes the session opens halted for news pending (0: it opens on time); the open is then the reopening
    /// print's, at the path's level when trading starts.
    let openingHalt: Int
    /// Shares traded (whole lots, at least one per minute) and prints.
    let volumeLots: Int
    let tradeCount: Int

    /// `previousClose` is the day's reference price: the last close, adjusted when this is an ex-date. Nil when the
    /// date has no trading minutes.
    init?(
        profile: SimulatedProfile, date: CivilDate, grid: SessionGrid, configuration: SimulatorConfiguration,
        previousClose: Double, logFactor: Double
    ) {
        let minutes = grid.minuteCount(on: date)
        guard minutes > 0 else { return nil }
        self.date = date
        time = Timestamp(date, in: grid.zone)
        self.minutes = minutes
        self.previousClose = previousClose
        self.logFactor = logFactor
        let day = grid.dayIndex(date)
        dayIndex = day
        let ends = Self.ends(
            profile, day: day, minutes: minutes, grid: grid, configuration: configuration, previousClose: previousClose,
            logFactor: logFactor)
        limitEvent = ends.event
        openingHalt = ends.openingHalt
        latentOpen = ends.latentOpen
        open = ends.open
        close = ends.close
        closeIsLatent = ends.close == ends.latentClose

        // The session's extremes: those of a Brownian bridge from the open to the close with the session's share of
        // the day's variance (the distribution the minutes' own extremes have), kept inside the day's band.
        let key = profile.path.key
        let activity = profile.path.activity(day: day)
        let traded = 1 - grid.intensity(Double(ends.openingHalt) / Double(minutes))
        let variance =
            profile.path.dailyVolatility * profile.path.dailyVolatility * activity * (1 - grid.overnightShare)
            * traded
        let la = log(open), lb = log(close)
        let seed = CounterRandom.hash(key, 0xD417, UInt64(bitPattern: Int64(day)))
        let u1 = CounterRandom.uniform(seed), u2 = CounterRandom.uniform(seed ^ 0xFFFF)
        var hi = exp((la + lb + ((lb - la) * (lb - la) - 2 * variance * log(u1)).squareRoot()) / 2)
        var lo = exp((la + lb - ((lb - la) * (lb - la) - 2 * variance * log(u2)).squareRoot()) / 2)
        if let band = ends.bandLevels {
            hi = min(hi, band.up)
            lo = max(lo, band.down)
        }
        high = max(hi, open, close)
        low = min(lo, open, close)

        // Volume: the average day's, more on busy days, on big moves (a 4σ day trades about twice the average) and on
        // earnings days, with a day-level draw; minutes pinned at a limit trade little (0.15 of their share).
        let move = abs(log(ends.latentClose / previousClose)) / max(profile.path.dailyVolatility, 1e-4)
        var dailyVolume =
            profile.baseVolume * (0.55 + 0.45 * activity.squareRoot()) * (0.65 + 0.4 * min(move, 8))
            * exp(0.25 * CounterRandom.normal(CounterRandom.hash(key, 0x701, UInt64(bitPattern: Int64(day)))))
            * (profile.isReportDay(day) ? 2.5 : 1)
        switch ends.event {
        case .none: break
        case .up(let by), .down(let by):
            dailyVolume *= 1 - 0.85 * (1 - grid.intensity(Double(by) / Double(minutes)))
        }
        let lots = dailyVolume.isFinite ? Int(min(max(dailyVolume / profile.lotLevel, 0), 1e12)) : 0
        volumeLots = max(minutes, lots)
        tradeCount = max(minutes, volumeLots / 4)

    }

    /// The day's price band (nil without limits), from its reference price.
    func band(_ profile: SimulatedProfile) -> PriceBand? { Self.band(profile, previousClose: previousClose) }

    /// The daily bar: the outline's levels on the tick grid (made when asked, so the cache keeps only the outline).
    func bar(_ profile: SimulatedProfile) -> PriceBar {
        let tick = profile.tick
        let o = Quantize.price(open, tick: tick), c = Quantize.price(close, tick: tick)
        let h = Quantize.price(high, tick: tick), l = Quantize.price(low, tick: tick)
        let volume = profile.lotSize.times(volumeLots)
        let typical = (high + low + close) / 3
        let vwap = min(max(Quantize.price(typical, tick: .fixed(FixedDecimal(units: 1, exponent: 4))), l), h)
        return PriceBar(
            time: time, open: o, high: h, low: l, close: c, volume: volume, tradeCount: tradeCount, vwap: vwap,
            turnover: volume.multiplied(by: vwap, places: 2, rule: .halfUp))
    }

    /// The day's open and close (latent and visible), its band and limit event: all a day needs to chain to the
    /// next one, without drawing its range or volume.
    static func ends(
        _ profile: SimulatedProfile, day: Int, minutes: Int, grid: SessionGrid, configuration: SimulatorConfiguration,
        previousClose: Double, logFactor: Double
    ) -> (
        latentOpen: Double, latentClose: Double, open: Double, close: Double, band: PriceBand?,
        bandLevels: (down: Double, up: Double)?, event: LimitEvent, openingHalt: Int
    ) {
        // A session that opens halted opens where the path is when trading starts.
        let halted =
            profile.haltRule?.openingHalt(
                key: profile.path.key, day: day, minutes: minutes, isReportDay: { profile.isReportDay(day) }) ?? 0
        let openFraction = grid.fraction(Double(halted) / Double(max(minutes, 1)))
        let latentOpen = exp(profile.path.logLevel(day: day, fraction: openFraction) + logFactor)
        let latentClose = exp(profile.path.logLevel(day: day, fraction: 1) + logFactor)
        let band = band(profile, previousClose: previousClose)
        let levels = band.map { (down: Quantize.level($0.limitDown), up: Quantize.level($0.limitUp)) }
        let event = limitEvent(
            profile, dayIndex: day, minutes: minutes, configuration: configuration,
            dayReturn: latentClose / previousClose - 1)
        let open = visible(latentOpen, minute: 0, event: event, open: latentOpen, band: levels)
        let close = visible(latentClose, minute: minutes, event: event, open: latentOpen, band: levels)
        return (latentOpen, latentClose, open, close, band, levels, event, halted)
    }

    /// A latent level made visible at minute `k`: pulled toward the limit on a limit day (reaching it at minute `by`
    /// and pinned from then on), and kept inside the band.
    static func visible(
        _ level: Double, minute k: Int, event: LimitEvent, open: Double, band: (down: Double, up: Double)?
    ) -> Double {
        guard let (down, up) = band else { return level }
        var x = level
        switch event {
        case .none: break
        case .up(let by):
            x = max(x, k >= by ? up : open * pow(up / open, Double(k) / Double(max(by, 1))))
        case .down(let by):
            x = min(x, k >= by ? down : open * pow(down / open, Double(k) / Double(max(by, 1))))
        }
        return min(max(x, down), up)
    }

    static func band(_ profile: SimulatedProfile, previousClose: Double) -> PriceBand? {
        guard let limit = profile.limit else { return nil }
        return limit.band(previousClose: Quantize.price(previousClose, tick: profile.tick), tick: profile.tick)
    }

    /// Strong days run to the limit: the pull starts at the open and reaches the limit at a random minute.
    static func limitEvent(
        _ profile: SimulatedProfile, dayIndex: Int, minutes: Int,
        configuration: SimulatorConfiguration, dayReturn: Double
    ) -> LimitEvent {
        guard let fraction = profile.limit?.fraction, minutes > 0,
            abs(dayReturn) >= configuration.limitPullThreshold * Quantize.level(fraction)
        else { return .none }
        let h = CounterRandom.hash(profile.path.key, 0x11A1, UInt64(bitPattern: Int64(dayIndex)))
        let by = Int(Double(minutes) * (0.05 + 0.85 * CounterRandom.uniform(h)))
        return dayReturn > 0 ? .up(by: by) : .down(by: by)
    }

    /// Splits `total` whole units over minutes in proportion to `weights`, each minute with a positive weight getting
    /// at least one unit and a minute weighted zero (halted) none (`total` ≥ the number of weighted minutes): the
    /// units beyond one each go by cumulative share (a minute gets the whole units its running total crosses), so
    /// the parts always add up to `total`. With no positive weight every minute counts alike.
    static func apportion(_ total: Int, weights: [Double]) -> [Int] {
        let n = weights.count
        guard n > 0 else { return [] }
        let weighted = weights.contains { $0 > 0 && $0.isFinite }
        func counts(_ k: Int) -> Bool { !weighted || (weights[k] > 0 && weights[k].isFinite) }
        var parts = (0..<n).map { counts($0) ? 1 : 0 }
        let spare = max(total - parts.reduce(0, +), 0)
        let sum = weighted ? weights.reduce(0) { $1 > 0 && $1.isFinite ? $0 + $1 : $0 } : 0
        guard sum > 0, sum.isFinite else {
            for k in 0..<n { parts[k] += spare / n + (k < spare % n ? 1 : 0) }
            return parts
        }
        let lastWeighted = (0..<n).last(where: counts) ?? n - 1
        var running = 0.0
        var given = 0
        for k in 0..<n where counts(k) {
            running += weights[k]
            let due = k == lastWeighted ? spare : min(Int(Double(spare) * (running / sum)), spare)
            parts[k] += max(due - given, 0)
            given = max(due, given)
        }
        return parts
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
