import TradingCore

/// The parameters of one simulated instrument, derived from (seed, symbol): starting level, volatility,
/// drift, liquidity, spread. Nothing is stored; computing a profile is a few hashes.
struct SimulatedProfile: Sendable {
    let symbol: String
    let market: Market
    let tick: TickRule
    let lot: Int
    let limit: PriceLimitRule?
    let isIndex: Bool
    let kind: InstrumentKind
    /// The price level on `anchorDate`.
    let anchor: Double
    let path: PricePath
    /// Average daily volume in shares (index: in lots of the index's constituents, for display only).
    let baseVolume: Double
    /// Half-spread in ticks at the top of the book.
    let spreadTicks: Int

    /// Levels at the end of 2025 for a few well-known symbols, so the demo looks familiar. They only anchor
    /// the simulated path on its anchor day; everything after is simulated.
    static let anchors: [String: Double] = [
        "AAPL": 272, "MSFT": 485, "NVDA": 187, "AMZN": 231, "GOOGL": 313, "META": 660, "TSLA": 454,
        "SPY": 687, "QQQ": 621, "IBM": 296, "JPM": 320, "KO": 70, "600519": 1415, "000001": 11.4,
        "300750": 368, "601318": 68, "000858": 117, "688981": 119, "000338": 16.5, "002594": 98,
    ]
    static let anchorDate = CivilDate(2026, 1, 2)

    init(entry: DirectoryEntry, seed: UInt64, cascadeSpread: Double) {
        let instrument = entry.instrument
        symbol = entry.symbol
        market = instrument.market
        tick = instrument.tick
        lot = instrument.market == .cn ? 100 : 1
        limit = instrument.priceLimit.fraction == nil ? nil : instrument.priceLimit
        isIndex = false
        kind = instrument.kind
        let key = CounterRandom.hash(seed, CounterRandom.key(entry.symbol))
        func u(_ salt: UInt64) -> Double { CounterRandom.uniform(CounterRandom.hash(key, salt)) }
        func z(_ salt: UInt64) -> Double { CounterRandom.normal(CounterRandom.hash(key, salt)) }
        let etf = instrument.kind == .etf || instrument.kind == .fund
        let anchor: Double
        if let known = Self.anchors[entry.symbol] {
            anchor = known
        } else if market == .us {
            anchor = min(max(exp(log(40) + 1.1 * z(1)), etf ? 10 : 1.5), 1500)
        } else {
            anchor = instrument.kind == .fund ? 0.6 + 3 * u(1) : min(max(exp(log(14) + 0.8 * z(1)), 2.5), 600)
        }
        let volatility: Double
        switch (market, etf) {
        case (_, true): volatility = 0.008 + 0.008 * u(2)
        case (.us, false): volatility = 0.011 + 0.014 * u(2) + (anchor < 5 ? 0.015 : 0)
        case (.cn, false): volatility = 0.02 + 0.012 * u(2)
        }
        self.anchor = anchor
        path = PricePath(
            key: key, dailyVolatility: volatility, cascadeSpread: cascadeSpread, drift: 0.0002 * z(3),
            anchorLevel: anchor, anchorDay: PricePath.weekdayIndex(Self.anchorDate))
        let shares = market == .us ? exp(log(1_500_000) + 1.2 * z(4)) : exp(log(9_000_000) + 0.9 * z(4))
        baseVolume = etf ? shares * 2 : shares
        spreadTicks = market == .cn ? 1 : (anchor > 200 ? 3 : anchor > 20 ? 1 : 1)
    }

    init(index: MarketIndex, seed: UInt64, cascadeSpread: Double) {
        symbol = index.rawValue
        market = index.market
        tick = .cent
        lot = 1
        limit = nil
        isIndex = true
        kind = .index
        let anchor: Double
        switch index {
        case .sseComposite: anchor = 3969
        case .szseComponent: anchor = 13525
        case .nasdaqComposite: anchor = 23242
        case .dowJones: anchor = 48063
        case .sp500: anchor = 6845
        }
        self.anchor = anchor
        let key = CounterRandom.hash(seed, CounterRandom.key(index.rawValue))
        path = PricePath(
            key: key, dailyVolatility: 0.009, cascadeSpread: cascadeSpread,
            drift: 0.0003, anchorLevel: anchor, anchorDay: PricePath.weekdayIndex(Self.anchorDate))
        baseVolume = 400_000_000
        spreadTicks = 0
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
