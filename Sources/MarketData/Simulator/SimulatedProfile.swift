import Synchronization
import TradingCore

/// The parameters of one simulated instrument, derived from (seed, symbol): starting level, size, volatility and its
/// parts (market, sector, own), drift, volume, spread. Nothing is stored; computing a profile is a few hashes (an
/// index or a fund that tracks one reads its basket, built once per market).
struct SimulatedProfile: Sendable {
    let symbol: String
    let market: Market
    let tick: TickRule
    let lot: Int
    /// The exact size of one lot of the model's volumes and prints (`lot` shares; a round amount of a coin).
    let lotSize: Quantity
    let lotLevel: Double
    /// The unit of the quote book's sizes (100 shares; a coin's lot).
    let bookLot: Quantity
    /// Its trading minutes and how a day's variance spreads over them.
    let grid: SessionGrid
    let limit: PriceLimitRule?
    let isIndex: Bool
    let kind: InstrumentKind
    /// The price level on `anchorDate`.
    let anchor: Double
    let path: LatentPath
    /// Market value on the anchor day in the listing's currency (funds: assets under management), and its tier.
    let capitalisation: Double
    let tier: SizeTier
    /// Average daily volume in shares (index: the members' shares, for display only).
    let baseVolume: Double
    /// Half-spread in ticks at the top of the book.
    let spreadTicks: Int
    /// US trading pauses and news halts (nil for A-shares, which keep their daily limits, and for indices).
    let haltRule: HaltRule?
    /// A warrant, a right or a unit (`DirectoryEntry.isWarrantRightOrUnit`): no reports, dividends or splits.
    let isWarrantRightOrUnit: Bool

    /// Levels at the end of 2025 for a few well-known symbols, so the demo looks familiar. They only anchor
    /// the simulated path on its anchor day; everything after is simulated.
    static let anchors: [String: Double] = [
        "AAPL": 272, "MSFT": 485, "NVDA": 187, "AMZN": 231, "GOOGL": 313, "META": 660, "TSLA": 454,
        "SPY": 687, "QQQ": 621, "IBM": 296, "JPM": 320, "KO": 70, "600519": 1415, "000001": 11.4,
        "300750": 368, "601318": 68, "000858": 117, "688981": 119, "000338": 16.5, "002594": 98,
        "DIA": 480, "IVV": 690, "VOO": 632,
    ]
    static let anchorDate = CivilDate(2026, 1, 2)
    static var anchorDay: Int { PricePath.weekdayIndex(anchorDate) }
    /// Yuan to the dollar, for size tiers of A-shares.
    static let yuanPerDollar = 7.1

    init(entry: DirectoryEntry, model: SimulationModel) {
        let instrument = entry.instrument
        symbol = entry.symbol
        market = instrument.market
        tick = instrument.tick
        lot = instrument.market == .cn ? 100 : 1
        lotSize = FixedDecimal(lot)
        lotLevel = Double(lot)
        bookLot = 100
        grid = model.grid(instrument.market)
        limit = instrument.priceLimit.fraction == nil ? nil : instrument.priceLimit
        isIndex = false
        kind = instrument.kind
        isWarrantRightOrUnit = entry.isWarrantRightOrUnit
        let seed = model.configuration.seed
        let key = CounterRandom.hash(seed, CounterRandom.key(entry.symbol))
        func u(_ salt: UInt64) -> Double { CounterRandom.uniform(CounterRandom.hash(key, salt)) }
        func z(_ salt: UInt64) -> Double { CounterRandom.normal(CounterRandom.hash(key, salt)) }
        let etf = instrument.kind == .etf || instrument.kind == .fund
        let anchor: Double
        if let known = Self.anchors[entry.symbol] {
            anchor = known
        } else if entry.isWarrantRightOrUnit {
            // A SPAC's unit trades near its $10 trust value; a warrant or a right for cents to a few dollars.
            let unit = entry.symbol.hasSuffix("U") || entry.symbol.hasSuffix("UN")
            anchor = unit ? 9.5 + 1.5 * u(1) : min(max(exp(log(0.6) + 0.9 * z(1)), 0.02), 6)
        } else if market == .us {
            anchor = min(max(exp(log(40) + 1.1 * z(1)), etf ? 10 : 1.5), 1500)
        } else {
            anchor = instrument.kind == .fund ? 0.6 + 3 * u(1) : min(max(exp(log(14) + 0.8 * z(1)), 2.5), 600)
        }
        self.anchor = anchor
        let size = Self.capitalisation(entry, anchor: anchor, z: z(5))
        capitalisation = size
        tier = SizeTier(capitalisationUSD: market == .cn ? size / Self.yuanPerDollar : size)

        if let tracked = IndexBasket.tracked[entry.symbol], let basket = model.basket(tracked) {
            // A fund that tracks an index: the index's path at the fund's level.
            path = LatentPath(key: key, source: .basket(basket, shift: log(anchor / basket.anchorLevel)))
        } else {
            let shape = Self.shape(entry, tier: tier, u: u(2), v: u(6), w: u(7))
            let factors = model.factors
            let sectorName = Self.sectorFactorName(entry)
            let listing = instrument.market
            let marketFactor = factors.market(listing)
            let sectorFactor = sectorName.map { factors.sector(listing, $0) }
            let sigma = shape.volatility
            let marketLoading = sigma * shape.marketShare.squareRoot()
            let sectorLoading = sectorName == nil ? 0 : sigma * shape.sectorShare.squareRoot()
            // Warrants, rights and units do not report: their company does, under its own ticker.
            let earnings =
                entry.isWarrantRightOrUnit
                ? nil
                : EarningsSchedule(
                    symbol: entry.symbol, key: key, market: listing, kind: instrument.kind, tier: tier,
                    largeListed: !entry.sector.isEmpty)
            // Four reports a year carry part of the year's variance; the own walk carries the rest.
            let jumps = earnings.map { 4 * $0.jumpScale * $0.jumpScale / 252 } ?? 0
            let ownVariance = max(
                sigma * sigma - marketLoading * marketLoading - sectorLoading * sectorLoading - jumps,
                0.1 * sigma * sigma)
            // The market pays a premium for its risk: the drift is the stock's beta times the market's, plus a
            // little of its own.
            let premium = market == .us ? 0.0003 / 0.01 : 0.0002 / 0.013
            path = LatentPath(
                key: key,
                source: .stock(
                    StockPath(
                        own: PricePath(
                            key: key, cascadeSpread: shape.cascadeSpread, regimeKey: marketFactor.key,
                            monthsScale: shape.monthsScale, weeksScale: shape.weeksScale),
                        ownLoading: ownVariance.squareRoot(),
                        market: marketFactor, marketLoading: marketLoading,
                        sector: sectorFactor, sectorLoading: sectorLoading,
                        drift: premium * marketLoading + 0.00008 * z(3), factors: factors, earnings: earnings,
                        grid: model.grid(listing), anchorLevel: anchor, anchorDay: Self.anchorDay)))
        }
        baseVolume = Self.averageVolume(entry, capitalisation: size, anchor: anchor, tier: tier, u: u(4))
        spreadTicks = market == .cn ? 1 : (anchor > 200 ? 3 : 1)
        haltRule =
            market == .us
            ? HaltRule(
                tier1: etf || !entry.sector.isEmpty || tier == .mega || tier == .large,
                newsHaltChance: etf ? 0 : HaltRule.newsHaltChance(tier)) : nil
    }

    init(index: MarketIndex, model: SimulationModel) {
        symbol = index.rawValue
        market = index.market
        tick = .cent
        lot = 1
        lotSize = 1
        lotLevel = 1
        bookLot = 100
        grid = model.grid(index.market)
        limit = nil
        isIndex = true
        kind = .index
        isWarrantRightOrUnit = false
        let key = CounterRandom.hash(model.configuration.seed, CounterRandom.key(index.rawValue))
        let basket = model.basket(index)
        anchor = basket?.anchorLevel ?? IndexBasket.anchorLevel(index)
        if let basket {
            path = LatentPath(key: key, source: .basket(basket, shift: 0))
        } else {
            // A directory without the index's members (a test's small directory): the market factor alone.
            let factors = model.factors
            path = LatentPath(
                key: key,
                source: .stock(
                    StockPath(
                        own: PricePath(key: key, cascadeSpread: factors.cascadeSpread), ownLoading: 0.002,
                        market: factors.market(index.market), marketLoading: 0.009, sector: nil, sectorLoading: 0,
                        drift: 0.0003, factors: factors, earnings: nil, grid: model.grid(index.market),
                        anchorLevel: anchor, anchorDay: Self.anchorDay)))
        }
        capitalisation = 0
        tier = .mega
        baseVolume = 400_000_000
        spreadTicks = 0
        haltRule = nil
    }

    /// The company's reporting calendar (nil for funds and indices).
    var earnings: EarningsSchedule? {
        if case .stock(let path) = path.source { return path.earnings }
        return nil
    }

    /// Whether a report's jump lands in the day's overnight gap (the day trades about three times its usual volume).
    func isReportDay(_ day: Int) -> Bool {
        if case .stock(let path) = path.source { return path.isReportDay(day) }
        return false
    }

    // MARK: Size

    /// Market values at the end of 2025 (billions, in the listing's currency) of the largest companies, so index
    /// weights look like the real ones; Alphabet's is split over its two share classes. Everything else is drawn.
    static let knownCapitalisations: [String: Double] = [
        "NVDA": 4500, "AAPL": 4000, "MSFT": 3600, "GOOGL": 1900, "GOOG": 1900, "AMZN": 2500, "META": 1700,
        "AVGO": 1600, "TSLA": 1500, "BRK.B": 1050, "LLY": 950, "JPM": 870, "WMT": 850, "V": 670, "ORCL": 560,
        "MA": 520, "XOM": 500, "JNJ": 480, "PLTR": 430, "NFLX": 400, "COST": 400, "BAC": 400, "ABBV": 400,
        "HD": 360, "PG": 350, "AMD": 350, "GE": 320, "UNH": 300, "KO": 300, "CSCO": 300, "CVX": 300, "IBM": 280,
        "WFC": 280, "MS": 280, "GS": 270, "CAT": 270, "AXP": 250, "MU": 250, "CRM": 240, "PM": 240, "TMUS": 230,
        "RTX": 230, "ABT": 220, "MCD": 215, "LIN": 210, "DIS": 200,
        // A-shares (yuan)
        "601398": 2400, "601939": 2200, "601288": 2000, "600519": 1800, "300750": 1600, "601857": 1600,
        "601988": 1500, "601318": 1200, "601628": 1100, "600036": 1000, "600900": 700, "601088": 700, "600028": 700,
        "000858": 500, "002594": 900, "000333": 550, "600276": 400, "000001": 220, "688981": 900,
    ]

    /// Market value on the anchor day: known for the largest companies; drawn for the rest by where they list
    /// (S&P 500 members are large, other primary listings spread from mid to micro, OTC names are small, penny
    /// stocks smaller still).
    static func capitalisation(_ entry: DirectoryEntry, anchor: Double, z: Double) -> Double {
        if let known = knownCapitalisations[entry.symbol] { return known * 1e9 }
        let instrument = entry.instrument
        func draw(_ median: Double, _ spread: Double, _ low: Double, _ high: Double) -> Double {
            min(max(median * exp(spread * z), low), high)
        }
        if instrument.kind == .etf || instrument.kind == .fund {
            return instrument.market == .us ? draw(1e9, 1.6, 5e6, 150e9) : draw(2e9, 1.2, 5e7, 100e9)
        }
        switch instrument.market {
        case .us:
            if !entry.sector.isEmpty { return draw(45e9, 0.8, 7e9, 190e9) }
            // Warrants, rights and units: the market value of the claims outstanding, micro-cap sized.
            if entry.isWarrantRightOrUnit { return draw(40e6, 1.0, 1e6, 290e6) }
            let cap = instrument.exchange == .otc ? draw(80e6, 1.3, 1e6, 5e9) : draw(1.2e9, 1.6, 2e7, 60e9)
            return anchor < 5 ? cap * 0.2 : cap
        case .cn:
            switch instrument.board {
            case .chinext, .star: return draw(9e9, 1.0, 1e9, 500e9)
            case .beijing: return draw(2e9, 0.8, 3e8, 60e9)
            default: return draw(12e9, 1.1, 1.5e9, 900e9)
            }
        }
    }

    /// Average daily volume in shares: the company's market value turned over at its tier's daily rate (A-shares
    /// turn over several times faster than US shares), or the real figure for a few of the most traded symbols.
    static func averageVolume(
        _ entry: DirectoryEntry, capitalisation: Double, anchor: Double, tier: SizeTier, u: Double
    ) -> Double {
        if let known = knownVolumes[entry.symbol] { return known }
        let etf = entry.instrument.kind == .etf || entry.instrument.kind == .fund
        let rate: Double
        switch (entry.instrument.market, tier) {
        case (.us, _) where etf: rate = 0.02
        case (.us, .mega): rate = 0.004
        case (.us, .large): rate = 0.006
        case (.us, .mid): rate = 0.008
        case (.us, .small): rate = 0.009
        case (.us, .micro): rate = 0.006
        case (.cn, _) where etf: rate = 0.03
        case (.cn, .mega): rate = 0.003
        case (.cn, .large): rate = 0.009
        case (.cn, _): rate = 0.02
        }
        let shares = capitalisation * rate * (0.6 + 0.8 * u) / max(anchor, 0.01)
        return min(max(shares, 1_000), 5e9)
    }

    /// Average daily volumes (shares) of the most traded symbols, late 2025.
    static let knownVolumes: [String: Double] = [
        "NVDA": 180e6, "TSLA": 95e6, "AAPL": 50e6, "AMZN": 45e6, "GOOGL": 30e6, "MSFT": 20e6, "META": 12e6,
        "SPY": 70e6, "QQQ": 45e6, "IWM": 30e6, "AMD": 45e6, "PLTR": 60e6, "BAC": 38e6, "INTC": 90e6, "F": 60e6,
        "600519": 3.5e6, "000001": 110e6, "601318": 45e6, "300750": 25e6, "000858": 18e6,
    ]

    // MARK: Shape

    struct Shape {
        var volatility: Double
        /// Shares of the daily variance that the market and the sector explain.
        var marketShare: Double
        var sectorShare: Double
        /// The own walk's cascade spread: fatter tails for smaller companies.
        var cascadeSpread: Double
        /// The own walk's clustering over months and over days (`PricePath.monthsScale`, `weeksScale`).
        var monthsScale: Double = 1
        var weeksScale: Double = 1
    }

    /// Daily volatility and its parts by kind and size: large US stocks move about 1.5–2.4% a day with 30% of it the
    /// market's and a quarter their sector's; small and micro caps move more and more on their own; funds are calmer
    /// and mostly market. A-shares move together more than US stocks and the growth boards are wilder.
    static func shape(_ entry: DirectoryEntry, tier: SizeTier, u: Double, v: Double, w: Double) -> Shape {
        let instrument = entry.instrument
        let jitter = v - 0.5 // ±0.5 of a tier's range for the market share
        if instrument.kind == .etf || instrument.kind == .fund {
            if sectorFunds[entry.symbol] != nil {
                return Shape(volatility: 0.011 + 0.004 * u, marketShare: 0.5, sectorShare: 0.4, cascadeSpread: 0.26)
            }
            return Shape(
                volatility: 0.008 + 0.008 * u, marketShare: 0.35 + 0.2 * jitter, sectorShare: 0, cascadeSpread: 0.26)
        }
        switch instrument.market {
        case .us:
            switch tier {
            case .mega:
                return Shape(
                    volatility: 0.017 + 0.007 * u, marketShare: 0.44 + 0.1 * jitter, sectorShare: 0.18,
                    cascadeSpread: 0.38, weeksScale: 1.1)
            case .large:
                return Shape(
                    volatility: 0.015 + 0.009 * u, marketShare: 0.38 + 0.12 * jitter,
                    sectorShare: 0.22 + 0.1 * (w - 0.5), cascadeSpread: 0.35)
            case .mid:
                return Shape(
                    volatility: 0.02 + 0.01 * u, marketShare: 0.3 + 0.1 * jitter, sectorShare: 0.2, cascadeSpread: 0.36)
            case .small:
                return Shape(
                    volatility: 0.026 + 0.014 * u, marketShare: 0.15 + 0.08 * jitter, sectorShare: 0.12,
                    cascadeSpread: 0.37)
            case .micro:
                return Shape(
                    volatility: 0.035 + 0.025 * u, marketShare: 0.07 + 0.05 * jitter, sectorShare: 0.05,
                    cascadeSpread: 0.39)
            }
        case .cn:
            let growth = instrument.board == .chinext || instrument.board == .star
            let base: Double
            switch tier {
            case .mega: base = 0.016
            case .large: base = 0.018
            default: base = 0.02
            }
            return Shape(
                volatility: base + 0.007 * u + (growth ? 0.004 : 0), marketShare: 0.3 + 0.12 * jitter,
                sectorShare: 0.1, cascadeSpread: 0.2, monthsScale: 1.55, weeksScale: 0.6)
        }
    }

    /// The factor a stock's sector moves with: its GICS sector (S&P 500 members), a sector fund's sector, or an
    /// A-share's board (main boards, the growth boards, Beijing).
    static func sectorFactorName(_ entry: DirectoryEntry) -> String? {
        if let sector = sectorFunds[entry.symbol] { return sector }
        switch entry.instrument.market {
        case .us: return entry.sector.isEmpty ? nil : entry.sector
        case .cn:
            switch entry.instrument.board {
            case .chinext, .star: return "growth"
            case .beijing: return "beijing"
            default: return "main"
            }
        }
    }

    /// The Select Sector SPDR funds and their GICS sectors.
    static let sectorFunds: [String: String] = [
        "XLK": "Information Technology", "XLF": "Financials", "XLE": "Energy", "XLV": "Health Care",
        "XLI": "Industrials", "XLY": "Consumer Discretionary", "XLP": "Consumer Staples", "XLU": "Utilities",
        "XLB": "Materials", "XLRE": "Real Estate", "XLC": "Communication Services",
    ]
}

/// What every profile of one simulated market shares: its configuration, its factors and its index baskets (built
/// once, when first asked for, from the directory's members).
final class SimulationModel: Sendable {
    let directory: SymbolDirectory
    let configuration: SimulatorConfiguration
    let factors: FactorModel
    /// Crypto's factors: the same walks, without an overnight gap (the market never closes).
    let cryptoFactors: FactorModel
    /// Currencies' factors: the same walks (the stock market's among them), without an overnight gap.
    let forexFactors: FactorModel
    private let baskets = Mutex([MarketIndex: IndexBasket?]())

    init(directory: SymbolDirectory, configuration: SimulatorConfiguration) {
        self.directory = directory
        self.configuration = configuration
        factors = FactorModel(
            seed: configuration.seed, cascadeSpread: configuration.cascadeSpread,
            overnightShare: configuration.overnightShare)
        cryptoFactors = FactorModel(
            seed: configuration.seed, cascadeSpread: configuration.cascadeSpread, overnightShare: 0)
        forexFactors = FactorModel(
            seed: configuration.seed, cascadeSpread: configuration.cascadeSpread, overnightShare: 0)
    }

    func grid(_ market: Market) -> SessionGrid {
        SessionGrid(market: market, policy: configuration.sessions, overnightShare: configuration.overnightShare)
    }

    /// The index's basket, or nil when the directory has none of its members.
    func basket(_ index: MarketIndex) -> IndexBasket? {
        if let built = baskets.withLock({ $0[index] }) { return built }
        let basket = IndexBasket.make(index, model: self)
        baskets.withLock { $0[index] = basket }
        return basket
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
