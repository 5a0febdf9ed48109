import TradingCore

/// Builds larger bars from smaller ones: intraday timeframes from the minute bars, weeks and months from the days
/// (whose bars their minutes agree with), so every timeframe agrees.
enum BarAggregation {
    static func combine(_ bars: [PriceBar]) -> PriceBar? {
        var running = Running()
        for bar in bars { running.add(bar) }
        return running.bar
    }

    /// A bar combined from bars added one by one, oldest first (what `combine` makes of them, without an array of
    /// them: a day's minute bars are ~200 KB, and the streams ask for a bar of them every second).
    struct Running {
        private var first: PriceBar?
        private var high = FixedDecimal.zero, low = FixedDecimal.zero, close = FixedDecimal.zero
        private var volume = FixedDecimal.zero, turnover = FixedDecimal.zero
        private var count = 0

        var isEmpty: Bool { first == nil }

        mutating func add(_ bar: PriceBar) {
            if first == nil {
                first = bar
                (high, low) = (bar.high, bar.low)
            } else {
                high = max(high, bar.high)
                low = min(low, bar.low)
            }
            close = bar.close
            volume += bar.volume
            turnover += bar.turnover
            count += bar.tradeCount
        }

        /// The combined bar (nil before any was added).
        var bar: PriceBar? {
            guard let first else { return nil }
            let vwap =
                volume.isPositive ? (turnover.divided(by: volume, places: 4, rule: .halfUp) ?? first.open) : first.open
            return PriceBar(
                time: first.time, open: first.open, high: high, low: low, close: close, volume: volume,
                tradeCount: count, vwap: min(max(vwap, low), high), turnover: turnover)
        }
    }

    /// A bar made of prints (the minute under way, read part-way through): nil without any.
    static func combine(prints: [TradeTick], at time: Timestamp) -> PriceBar? {
        guard let first = prints.first, let last = prints.last else { return nil }
        var high = first.price, low = first.price
        var volume = FixedDecimal.zero, turnover = FixedDecimal.zero
        for print in prints {
            high = max(high, print.price)
            low = min(low, print.price)
            volume += print.size
            turnover += print.size.multiplied(by: print.price, places: 2, rule: .halfUp)
        }
        let vwap = turnover.divided(by: volume, places: 4, rule: .halfUp) ?? first.price
        return PriceBar(
            time: time, open: first.price, high: high, low: low, close: last.price, volume: volume,
            tradeCount: prints.count, vwap: min(max(vwap, low), high), turnover: turnover)
    }
}
