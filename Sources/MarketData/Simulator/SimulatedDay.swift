import TradingCore

/// One instrument's trading day, minute by minute: the path's values at the minute boundaries, made visible
/// (A-share limit events and bands applied), with highs, lows and volumes drawn per minute.
struct SimulatedDay: Sendable {
    let date: CivilDate
    let dayIndex: Int
    let minuteStarts: [Timestamp]
    /// Price levels per minute (visible), and the previous session's visible close.
    let open: [Double]
    let high: [Double]
    let low: [Double]
    let close: [Double]
    let volume: [Double]
    let previousClose: Double
    /// The log of the raw-price factor on this day (corporate actions since the anchor day).
    let logFactor: Double
    let band: PriceBand?
    let bars: [PriceBar]
    private let overnightShare: Double
    private let limitEvent: LimitEvent

    enum LimitEvent: Sendable {
        case none
        /// The price is pulled to the limit by minute `by` and pinned there.
        case up(by: Int)
        case down(by: Int)
    }

    /// `previousClose` is the day's reference price: the last close, adjusted when this is an ex-date.
    init(
        profile: SimulatedProfile, date: CivilDate, grid: SessionGrid, configuration: SimulatorConfiguration,
        previousClose: Double, logFactor: Double
    ) {
        self.date = date
        dayIndex = grid.dayIndex(date)
        minuteStarts = grid.minuteStarts(on: date)
        self.previousClose = previousClose
        self.logFactor = logFactor
        overnightShare = configuration.overnightShare
        let n = minuteStarts.count
        let g = configuration.overnightShare
        let fractions = (0...n).map { g + (1 - g) * SessionGrid.intensityShare(Double($0) / Double(max(n, 1))) }
        let latent = profile.path.logLevels(day: dayIndex, fractions: fractions).map { $0 + logFactor }
        let band = Self.band(profile, previousClose: previousClose)
        let event = Self.limitEvent(
            profile, dayIndex: dayIndex, minutes: n, configuration: configuration,
            dayReturn: exp(latent[n]) / previousClose - 1)
        self.band = band
        limitEvent = event
        let key = profile.path.key
        let bandRange = band.map { (Quantize.level($0.limitDown), Quantize.level($0.limitUp)) }
        let openLevel = exp(latent[0])
        func visible(_ level: Double, _ k: Int) -> Double {
            Self.visible(level, minute: k, event: event, open: openLevel, band: bandRange)
        }
        var boundary = latent.enumerated().map { visible(exp($0.element), $0.offset) }
        if boundary.isEmpty { boundary = [previousClose] }
        // Per-minute log variance, for the high/low of a Brownian bridge between the minute's endpoints.
        let day = grid.dayIndex(date)
        let sigma2 = profile.path.dailyVolatility * profile.path.dailyVolatility * profile.path.activity(day: day)
        let dailyVolume =
            profile.baseVolume * profile.path.activity(day: day).squareRoot()
            * exp(0.25 * CounterRandom.normal(CounterRandom.hash(key, 0x701, UInt64(bitPattern: Int64(day)))))
        var o: [Double] = [], h: [Double] = [], l: [Double] = [], c: [Double] = [], v: [Double] = []
        o.reserveCapacity(n)
        h.reserveCapacity(n)
        l.reserveCapacity(n)
        c.reserveCapacity(n)
        v.reserveCapacity(n)
        for k in 0..<n {
            let a = boundary[k], b = boundary[k + 1]
            let share = fractions[k + 1] - fractions[k]
            let variance = sigma2 * share
            let seed = CounterRandom.hash(key, 0x3141, UInt64(bitPattern: Int64(day)), UInt64(k))
            let la = log(a), lb = log(b)
            let u1 = CounterRandom.uniform(seed), u2 = CounterRandom.uniform(seed ^ 0xFFFF)
            var hi = exp((la + lb + ((lb - la) * (lb - la) - 2 * variance * log(u1)).squareRoot()) / 2)
            var lo = exp((la + lb - ((lb - la) * (lb - la) - 2 * variance * log(u2)).squareRoot()) / 2)
            if let (down, up) = bandRange {
                hi = min(hi, up)
                lo = max(lo, down)
            }
            hi = max(hi, a, b)
            lo = min(lo, a, b)
            let pinned = bandRange.map { a == b && (a == $0.1 || a == $0.0) } ?? false
            let weight = (1 + 3 * pow(2 * (Double(k) + 0.5) / Double(n) - 1, 2)) / 2 / Double(n)
            let noise = 0.6 + 0.8 * CounterRandom.uniform(seed ^ 0xABCD)
            o.append(a)
            c.append(b)
            h.append(hi)
            l.append(lo)
            v.append(dailyVolume * weight * noise * (pinned ? 0.15 : 1))
        }
        open = o
        high = h
        low = l
        close = c
        volume = v
        let tick = profile.tick
        var bars: [PriceBar] = []
        bars.reserveCapacity(n)
        for k in 0..<n {
            let op = Quantize.price(o[k], tick: tick), cl = Quantize.price(c[k], tick: tick)
            let hp = Quantize.price(h[k], tick: tick), lp = Quantize.price(l[k], tick: tick)
            let vol = Quantize.shares(v[k], lot: profile.lot)
            let typical = (h[k] + l[k] + c[k]) / 3
            let vw = min(max(Quantize.price(typical, tick: .fixed(FixedDecimal(units: 1, exponent: 4))), lp), hp)
            bars.append(
                PriceBar(
                    time: minuteStarts[k], open: op, high: hp, low: lp, close: cl, volume: vol,
                    tradeCount: max(1, Int(v[k] / Double(profile.lot * 4))),
                    vwap: vw, turnover: vol.multiplied(by: vw, places: 2, rule: .halfUp)))
        }
        self.bars = bars
    }

    /// The position in the path of a moment inside minute `k` (`x` ∈ [0, 1) of the minute).
    func fraction(minute k: Int, within x: Double) -> Double {
        let n = Double(max(minuteStarts.count, 1))
        return overnightShare + (1 - overnightShare) * SessionGrid.intensityShare((Double(k) + x) / n)
    }

    /// A latent log-level (of the adjusted path) made visible at minute `k`, in the day's raw prices.
    func visible(_ logLevel: Double, minute k: Int) -> Double {
        let bandRange = band.map { (Quantize.level($0.limitDown), Quantize.level($0.limitUp)) }
        let level = exp(logLevel + logFactor)
        return Self.visible(level, minute: k, event: limitEvent, open: open.first ?? level, band: bandRange)
    }

    static func visible(_ level: Double, minute k: Int, event: LimitEvent, open: Double, band: (Double, Double)?)
        -> Double
    {
        var x = level
        if let (down, up) = band {
            switch event {
            case .none: break
            case .up(let by):
                let ramp = open * pow(up / open, min(1, Double(k) / Double(max(by, 1))))
                x = max(x, ramp)
            case .down(let by):
                let ramp = open * pow(down / open, min(1, Double(k) / Double(max(by, 1))))
                x = min(x, ramp)
            }
            x = min(max(x, down), up)
        }
        return x
    }

    /// The visible close of a day without building its minutes (for chaining A-share limits).
    static func closingLevel(
        profile: SimulatedProfile, date: CivilDate, grid: SessionGrid,
        configuration: SimulatorConfiguration, previousClose: Double, logFactor: Double
    ) -> Double {
        let dayIndex = grid.dayIndex(date)
        let latent = exp(profile.path.logLevel(day: dayIndex, fraction: 1) + logFactor)
        guard let band = band(profile, previousClose: previousClose) else { return latent }
        let n = grid.minuteCount(on: date)
        let event = limitEvent(
            profile, dayIndex: dayIndex, minutes: n, configuration: configuration,
            dayReturn: latent / previousClose - 1)
        return visible(
            latent, minute: n, event: event, open: latent,
            band: (Quantize.level(band.limitDown), Quantize.level(band.limitUp)))
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

    /// Prints inside minute `k`: one to six, at distinct nanosecond times and prices drawn from the minute's range.
    func trades(minute k: Int, profile: SimulatedProfile) -> [TradeTick] {
        let seed = CounterRandom.hash(profile.path.key, 0x7EAD, UInt64(bitPattern: Int64(dayIndex)), UInt64(k))
        let count = 1 + Int(CounterRandom.uniform(seed) * 6)
        var offsets = (0..<count).map {
            Int64(CounterRandom.uniform(CounterRandom.hash(seed, UInt64($0), 1)) * 59_999_000_000)
        }
        offsets.sort()
        for i in offsets.indices.dropFirst() where offsets[i] <= offsets[i - 1] { offsets[i] = offsets[i - 1] + 1 }
        let bar = bars[k]
        let span = high[k] - low[k]
        return offsets.enumerated().map { i, offset in
            let t = Double(offset) / 60e9
            let base = open[k] + (close[k] - open[k]) * t
            let jitter = (CounterRandom.uniform(CounterRandom.hash(seed, UInt64(i), 2)) - 0.5) * span * 0.5
            let price = min(max(Quantize.price(base + jitter, tick: profile.tick), bar.low), bar.high)
            let lots = 1 + Int(CounterRandom.uniform(CounterRandom.hash(seed, UInt64(i), 3)) * 20)
            return TradeTick(
                symbol: profile.symbol, time: minuteStarts[k].adding(nanoseconds: offset),
                price: price, size: FixedDecimal(lots * (profile.lot == 1 ? 100 : profile.lot)))
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
