import TradingCore

/// Alpaca's `adjustment` for bars: `raw` as traded, `split` for splits and stock dividends, `dividend` for cash
/// dividends, `all` for both. Each bar before an action's ex-date is restated as of the latest bar given: split
/// adjustment divides prices by the ratio (and multiplies volume by it); dividend adjustment multiplies prices by
/// 1 − dividend ÷ the close before the ex-date (the CRSP factor), so returns across the ex-date are total returns.
public enum BarAdjustment: String, Sendable, Hashable, CaseIterable {
    case raw, split, dividend, all

    var adjustsSplits: Bool { self == .split || self == .all }
    var adjustsDividends: Bool { self == .dividend || self == .all }

    /// `bars` (oldest first) restated as of `through`: for the `actions` whose ex-dates fall after a bar's trading
    /// day (in `zone`) and on or before `through`. A dividend whose ex-date is past the last bar takes the last
    /// close as its base. Prices keep 4 decimal places, volumes 9.
    public func apply(
        to bars: [PriceBar], actions: [CorporateAction], zone: ExchangeTimeZone, through: CivilDate
    ) -> [PriceBar] {
        guard self != .raw, !bars.isEmpty else { return bars }
        let relevant = actions.filter { action in
            action.exDate <= through
                && (action.kind.changesShares ? adjustsSplits : adjustsDividends && action.cash.isPositive)
        }.sorted { $0.exDate > $1.exDate }
        guard !relevant.isEmpty else { return bars }
        var out = bars
        var priceFactor = FixedDecimal.one
        var volumeFactor = FixedDecimal.one
        var next = 0 // the next action (newest first) whose ex-date the walk back has not crossed yet
        for i in out.indices.reversed() {
            let date = zone.localTime(of: out[i].time).date
            while next < relevant.count, date < relevant[next].exDate {
                let action = relevant[next]
                if action.kind.changesShares {
                    priceFactor =
                        priceFactor.multiplied(by: action.oldRate).divided(by: action.newRate, rule: .halfEven)
                        ?? priceFactor
                    volumeFactor = volumeFactor.multiplied(by: action.ratio)
                } else if out[i].close.isPositive {
                    // This bar is the last one before the ex-date: its close is the dividend's base.
                    let kept = FixedDecimal.one - (action.cash.divided(by: out[i].close, rule: .halfEven) ?? .zero)
                    priceFactor = priceFactor.multiplied(by: kept)
                }
                next += 1
            }
            guard priceFactor != .one || volumeFactor != .one else { continue }
            func adjust(_ p: Price) -> Price { p.multiplied(by: priceFactor, places: 4, rule: .halfEven) }
            out[i].open = adjust(out[i].open)
            out[i].high = adjust(out[i].high)
            out[i].low = adjust(out[i].low)
            out[i].close = adjust(out[i].close)
            out[i].vwap = adjust(out[i].vwap)
            out[i].volume = out[i].volume.multiplied(by: volumeFactor)
        }
        return out
    }
}
