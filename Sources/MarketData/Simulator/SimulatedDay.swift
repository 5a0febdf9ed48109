import TradingCore

/// One instrument's trading day, minute by minute, drawn to agree with the day's outline (its daily bar): the
/// path's values at the minute boundaries, made visible (A-share limit events and bands applied), with highs, lows
/// and volumes per minute. The path's excursions beyond the open and close are stretched (in log terms) so the
/// highest minute high is the outline's high and the lowest low its low; the outline's volume is shared out by
/// the minutes' intensity.
struct SimulatedDay: Sendable {
    let date: CivilDate
    let dayIndex: Int
    let minuteStarts: [Timestamp]
    /// Price levels per minute (visible), and the previous session's visible close.
    let open: [Double]
    let high: [Double]
    let low: [Double]
    let close: [Double]
    /// Shares per minute (whole lots, as Doubles for the quote's running sums).
    let volume: [Double]
    let previousClose: Double
    /// The log of the raw-price factor on this day (corporate actions since the anchor day).
    let logFactor: Double
    let band: PriceBand?
    /// Every minute's bar, halted minutes included (no volume, at the last price): the minute index is the bar's.
    /// Readers skip the halted ones (`halted`), which did not trade.
    let bars: [PriceBar]
    let halted: [Bool]
    /// The session's halts, in order.
    let halts: [TradingHalt]
    let outline: DayOutline
    private let grid: SessionGrid
    private let stretch: Stretch

    typealias LimitEvent = DayOutline.LimitEvent

    init(profile: SimulatedProfile, outline: DayOutline, grid: SessionGrid, configuration: SimulatorConfiguration) {
        self.outline = outline
        date = outline.date
        dayIndex = outline.dayIndex
        minuteStarts = grid.minuteStarts(on: outline.date)
        previousClose = outline.previousClose
        logFactor = outline.logFactor
        band = outline.band(profile)
        self.grid = grid
        let n = minuteStarts.count
        let fractions = (0...n).map { grid.fraction(Double($0) / Double(max(n, 1))) }
        let latent = profile.path.logLevels(day: dayIndex, fractions: fractions).map { $0 + outline.logFactor }
        let event = outline.limitEvent
        let bandRange = band.map { (down: Quantize.level($0.limitDown), up: Quantize.level($0.limitUp)) }
        let openLevel = outline.latentOpen
        var boundary = latent.enumerated().map {
            DayOutline.visible(exp($0.element), minute: $0.offset, event: event, open: openLevel, band: bandRange)
        }
        boundary[n] = outline.close
        // A session that opens halted has no price until its reopening print, which is the day's open.
        let opening = min(outline.openingHalt, max(n - 1, 0))
        for k in 0...opening { boundary[k] = outline.open }
        // Per-minute log variance, for the high/low of a Brownian bridge between the minute's endpoints.
        let key = profile.path.key
        let sigma2 = profile.path.dailyVolatility * profile.path.dailyVolatility * profile.path.activity(day: dayIndex)
        var o = [Double](repeating: 0, count: n), h = o, l = o, c = o
        var weights = o
        for k in 0..<n {
            let a = boundary[k], b = boundary[k + 1]
            let variance = sigma2 * (fractions[k + 1] - fractions[k])
            let seed = CounterRandom.hash(key, 0x3141, UInt64(bitPattern: Int64(dayIndex)), UInt64(k))
            let la = log(a), lb = log(b)
            let u1 = CounterRandom.uniform(seed), u2 = CounterRandom.uniform(seed ^ 0xFFFF)
            var hi = exp((la + lb + ((lb - la) * (lb - la) - 2 * variance * log(u1)).squareRoot()) / 2)
            var lo = exp((la + lb - ((lb - la) * (lb - la) - 2 * variance * log(u2)).squareRoot()) / 2)
            if let (down, up) = bandRange {
                hi = min(hi, up)
                lo = max(lo, down)
            }
            o[k] = a
            c[k] = b
            h[k] = max(hi, a, b)
            l[k] = min(lo, a, b)
            let pinned = bandRange.map { a == b && (a == $0.up || a == $0.down) } ?? false
            let intensity = 1 + 3 * pow(2 * (Double(k) + 0.5) / Double(n) - 1, 2)
            let noise = 0.6 + 0.8 * CounterRandom.uniform(seed ^ 0xABCD)
            weights[k] = intensity * noise * (pinned ? 0.15 : 1)
        }
        // Halts: minutes that do not trade stand at the last price (the open's, for a session that opens halted)
        // with no volume; the minute after reopens at the path's level.
        var halted = [Bool](repeating: false, count: n)
        var spans: [(minutes: Range<Int>, reason: TradingHalt.Reason)] = []
        if opening > 0 { spans.append((0..<opening, .newsPending)) }
        if let rule = profile.haltRule, n > 0 {
            let reopenings = boundary
            for pause in rule.pauses(closes: c, reopenings: { reopenings[$0] }, first: opening) {
                spans.append((pause, .volatilityPause))
            }
        }
        for span in spans {
            let frozen = span.minutes.lowerBound == 0 ? outline.open : c[span.minutes.lowerBound - 1]
            for k in span.minutes {
                halted[k] = true
                (o[k], h[k], l[k], c[k]) = (frozen, frozen, frozen, frozen)
                weights[k] = 0
            }
        }
        self.halted = halted
        let starts = minuteStarts
        halts = spans.map {
            TradingHalt(
                symbol: profile.symbol, reason: $0.reason, start: starts[$0.minutes.lowerBound],
                end: starts[$0.minutes.upperBound])
        }
        stretch = Stretch(outline: outline, highs: h, lows: l, halted: halted)
        stretch.apply(open: &o, high: &h, low: &l, close: &c)
        open = o
        high = h
        low = l
        close = c
        let lots = DayOutline.apportion(outline.volumeLots, weights: weights)
        let prints = DayOutline.apportion(outline.tradeCount, weights: weights)
        volume = lots.map { Double($0) * profile.lotLevel }
        let tick = profile.tick
        var bars: [PriceBar] = []
        bars.reserveCapacity(n)
        for k in 0..<n {
            let op = Quantize.price(o[k], tick: tick), cl = Quantize.price(c[k], tick: tick)
            let hp = Quantize.price(h[k], tick: tick), lp = Quantize.price(l[k], tick: tick)
            let vol = profile.lotSize.times(lots[k])
            let typical = (h[k] + l[k] + c[k]) / 3
            let vw = min(max(Quantize.price(typical, tick: .fixed(FixedDecimal(units: 1, exponent: 4))), lp), hp)
            bars.append(
                PriceBar(
                    time: minuteStarts[k], open: op, high: hp, low: lp, close: cl, volume: vol, tradeCount: prints[k],
                    vwap: vw, turnover: vol.multiplied(by: vw, places: 2, rule: .halfUp)))
        }
        self.bars = bars
    }

    /// The halt under way at `time`, if any.
    func halt(at time: Timestamp) -> TradingHalt? {
        halts.first { $0.covers(time) }
    }

    /// The last minute before `k` that traded.
    func lastTradedMinute(before k: Int) -> Int? {
        (0..<min(k, halted.count)).last { !halted[$0] }
    }

    /// The minute bars that traded, in order.
    var tradedBars: [PriceBar] {
        halts.isEmpty ? bars : bars.indices.compactMap { halted[$0] ? nil : bars[$0] }
    }

    /// The position in the path of a moment inside minute `k` (`x` ∈ [0, 1) of the minute).
    func fraction(minute k: Int, within x: Double) -> Double {
        let n = Double(max(minuteStarts.count, 1))
        return grid.fraction((Double(k) + x) / n)
    }

    /// A latent log-level (of the adjusted path) made visible at minute `k`, in the day's raw prices, on the same
    /// stretched scale as the minute bars.
    func visible(_ logLevel: Double, minute k: Int) -> Double {
        let bandRange = band.map { (down: Quantize.level($0.limitDown), up: Quantize.level($0.limitUp)) }
        let level = DayOutline.visible(
            exp(logLevel + logFactor), minute: k, event: outline.limitEvent, open: outline.latentOpen,
            band: bandRange)
        return stretch.map(level)
    }

    /// Maps the minute path's levels so its extremes become the outline's: levels above the higher of the day's
    /// open and close are scaled (in log terms) so the path's highest high lands on the day's high, levels below the
    /// lower one so its lowest low lands on the day's low; levels between stay put (so do the open and close).
    struct Stretch: Sendable {
        var top: Double, bottom: Double
        var high: Double, low: Double
        var up: Double = 1, down: Double = 1
        /// Minutes whose high (low) is set to the day's exactly.
        var highest: Int, lowest: Int

        /// The extremes go to minutes that trade (`halted` marks those that do not).
        init(outline: DayOutline, highs: [Double], lows: [Double], halted: [Bool]) {
            top = max(outline.open, outline.close)
            bottom = min(outline.open, outline.close)
            high = outline.high
            low = outline.low
            let trading = highs.indices.filter { !halted[$0] }
            let first = trading.first ?? 0, last = trading.last ?? max(highs.count - 1, 0)
            highest = trading.max { highs[$0] < highs[$1] } ?? first
            lowest = trading.min { lows[$0] < lows[$1] } ?? first
            let rawHigh = highs.isEmpty ? top : highs[highest]
            let rawLow = lows.isEmpty ? bottom : lows[lowest]
            if rawHigh > top { up = log(high / top) / log(rawHigh / top) }
            if rawLow < bottom { down = log(low / bottom) / log(rawLow / bottom) }
            // A path that never left the open–close range (pinned all day): the extreme minute is the one at the end.
            if rawHigh <= top { highest = outline.open >= outline.close ? first : last }
            if rawLow >= bottom { lowest = outline.open <= outline.close ? first : last }
        }

        func map(_ x: Double) -> Double {
            let y: Double
            if x > top {
                y = top * exp(log(x / top) * up)
            } else if x < bottom {
                y = bottom * exp(log(x / bottom) * down)
            } else {
                return x
            }
            return min(max(y, low), high)
        }

        func apply(open: inout [Double], high highs: inout [Double], low lows: inout [Double], close: inout [Double]) {
            for k in open.indices {
                open[k] = map(open[k])
                close[k] = map(close[k])
                highs[k] = map(highs[k])
                lows[k] = map(lows[k])
            }
            if !highs.isEmpty {
                highs[highest] = high
                lows[lowest] = low
            }
        }
    }

    /// The price `within` (0–1) of the way through minute `k`: a point of the day's path, kept within that minute's
    /// range.
    func level(_ profile: SimulatedProfile, minute k: Int, within: Double) -> Double {
        let latent = profile.path.logLevel(day: dayIndex, fraction: fraction(minute: k, within: within))
        return min(max(visible(latent, minute: k), low[k]), high[k])
    }

    /// The prints of minute `k`: its volume split into one to six trades at distinct nanosecond times, the first in
    /// the minute's first second at its open, the last at its close, its high and its low among them when it has four or
    /// more, the others on the path. So the minute bar is exactly its prints — open, close, high and low among their
    /// prices, volume their sum — and a bar, a quote or the latest trade read part-way through a minute is the prints
    /// so far.
    func trades(minute k: Int, profile: SimulatedProfile) -> [TradeTick] {
        let bar = bars[k]
        let lots = Int((volume[k] / profile.lotLevel).rounded())
        guard lots > 0 else { return [] }
        let seed = CounterRandom.hash(profile.path.key, 0x7EAD, UInt64(bitPattern: Int64(dayIndex)), UInt64(k))
        let n = min(4 + Int(CounterRandom.uniform(seed) * 3), lots)
        // The opening print within the minute's first second (never on the boundary itself, which a range's
        // inclusive end would then share with the next minute), the others anywhere after it.
        var offsets = (0..<n).map {
            let u = CounterRandom.uniform(CounterRandom.hash(seed, UInt64($0), 1))
            return $0 == 0 ? 1_000 + Int64(u * 998_000_000) : 1_000_000_000 + Int64(u * 58_999_000_000)
        }
        offsets.sort()
        for i in offsets.indices.dropFirst() where offsets[i] <= offsets[i - 1] { offsets[i] = offsets[i - 1] + 1 }
        var prices = offsets.map { offset in
            min(
                max(
                    Quantize.price(level(profile, minute: k, within: Double(offset) / 60e9), tick: profile.tick),
                    bar.low), bar.high)
        }
        prices[0] = bar.open
        prices[n - 1] = bar.close
        if n >= 4 {
            // The high and the low at two of the middle prints, in an order of the minute's own.
            let first = 1 + Int(CounterRandom.uniform(CounterRandom.hash(seed, 4)) * Double(n - 2))
            let second = first == n - 2 ? 1 : first + 1
            prices[first] = bar.high
            prices[second] = bar.low
        }
        let weights = (0..<n).map { 0.2 + CounterRandom.uniform(CounterRandom.hash(seed, UInt64($0), 3)) }
        let sizes = DayOutline.apportion(lots, weights: weights)
        return (0..<n).map { i in
            TradeTick(
                symbol: profile.symbol, time: minuteStarts[k].adding(nanoseconds: offsets[i]), price: prices[i],
                size: profile.lotSize.times(sizes[i]))
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
