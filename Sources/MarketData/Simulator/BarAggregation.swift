import TradingCore

/// Builds larger bars from smaller ones: intraday timeframes from the minute bars, weeks and months from the days
/// (whose bars their minutes agree with), so every timeframe agrees.
enum BarAggregation {
    static func combine(_ bars: [PriceBar]) -> PriceBar? {
        guard let first = bars.first, let last = bars.last else { return nil }
        var high = first.high, low = first.low
        var volume = FixedDecimal.zero, turnover = FixedDecimal.zero
        var count = 0
        for bar in bars {
            high = max(high, bar.high)
            low = min(low, bar.low)
            volume += bar.volume
            turnover += bar.turnover
            count += bar.tradeCount
        }
        let vwap =
            volume.isPositive ? (turnover.divided(by: volume, places: 4, rule: .halfUp) ?? first.open) : first.open
        return PriceBar(
            time: first.time, open: first.open, high: high, low: low, close: last.close, volume: volume,
            tradeCount: count, vwap: min(max(vwap, low), high), turnover: turnover)
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
