import TradingCore

/// Crypto pairs in the simulated market: every minute of every UTC day (`SessionGrid.crypto`: no overnight gap,
/// as busy at any hour), a common crypto factor that carries most of bitcoin's moves and about half of an altcoin's,
/// fat-tailed walks, and volumes and spreads of the coin's size. Calibrated to the figures in
/// `CryptoCalibration.published`; `MarketDataBench` prints the simulated figures beside them.
extension SimulatedProfile {
    /// A directory entry's profile: a crypto pair's, a currency pair's, or a listing's.
    static func make(_ entry: DirectoryEntry, model: SimulationModel) -> SimulatedProfile {
        switch entry.instrument.kind {
        case .crypto: return SimulatedProfile(crypto: entry, model: model)
        case .forex: return SimulatedProfile(forex: entry, model: model)
        default: return SimulatedProfile(entry: entry, model: model)
        }
    }

    init(crypto entry: DirectoryEntry, model: SimulationModel) {
        let instrument = entry.instrument
        // A pair priced in another coin follows its two coins' dollar paths: BTC/USDT is BTC/USD ÷ USDT/USD at every
        // instant. It trades less than either (a seventh of the base coin's dollar volume) at a wider spread.
        let coins = instrument.coinPair.map {
            (
                base: CryptoCalibration.coins[$0.baseLeg] ?? .altcoin,
                quote: CryptoCalibration.coins[$0.quoteLeg] ?? .altcoin
            )
        }
        let calibration = CryptoCalibration.coins[entry.symbol] ?? coins?.base ?? .altcoin
        symbol = entry.symbol
        market = instrument.market
        tick = instrument.tick
        limit = nil
        isIndex = false
        kind = .crypto
        isWarrantRightOrUnit = false
        grid = .crypto
        let key = CounterRandom.hash(model.configuration.seed, CounterRandom.key(entry.symbol))
        anchor = coins.map { $0.base.anchor / $0.quote.anchor } ?? calibration.anchor
        capitalisation = calibration.capitalisation
        tier = SizeTier(capitalisationUSD: calibration.capitalisation)
        // A lot is a round amount worth about $1,000 (0.01 BTC, 0.1 ETH), on the pair's quantity steps.
        let increment: Quantity =
            if case .fractional(_, let step) = instrument.lot { step } else { FixedDecimal(units: 1, exponent: 4) }
        let dollars = coins.map { $0.base.anchor } ?? anchor
        let round = Self.powerOfTen(below: 1_000 / dollars)
        lotSize = max(round, increment)
        lotLevel = Quantize.level(lotSize)
        bookLot = lotSize
        lot = 1
        if let pair = instrument.coinPair, let coins {
            path = LatentPath(
                key: key,
                source: .ratio(
                    LatentPath.RatioPath(
                        Self.cryptoPath(pair.baseLeg, calibration: coins.base, model: model),
                        over: Self.cryptoPath(pair.quoteLeg, calibration: coins.quote, model: model))))
            baseVolume = coins.base.dailyDollarVolume / 7 / coins.base.anchor
        } else {
            path = Self.cryptoPath(entry.symbol, calibration: calibration, model: model)
            baseVolume = calibration.dailyDollarVolume / anchor
        }
        let spread = calibration.spreadBasisPoints * (coins == nil ? 1 : 1.5)
        let tickLevel = Quantize.level(instrument.tick.tick(at: Quantize.price(anchor, tick: instrument.tick)))
        spreadTicks = max(1, Int((spread / 10_000 * anchor / tickLevel).rounded()))
        haltRule = nil
    }

    /// A coin's dollar path: a share of the common crypto factor and its own fat-tailed walk, on every day of the
    /// year. Keyed by the pair's symbol, so `BTC/USD`'s path is the same wherever it is made.
    static func cryptoPath(_ symbol: String, calibration: CryptoCalibration, model: SimulationModel) -> LatentPath {
        let key = CounterRandom.hash(model.configuration.seed, CounterRandom.key(symbol))
        func z(_ salt: UInt64) -> Double { CounterRandom.normal(CounterRandom.hash(key, salt)) }
        let factors = model.cryptoFactors
        let market = factors.crypto()
        // Daily (calendar-day) volatility from the annual figure: the path's days are every day of the year.
        let sigma = calibration.annualVolatility / 365.0.squareRoot()
        let marketLoading = sigma * calibration.factorShare.squareRoot()
        let ownLoading = sigma * (1 - calibration.factorShare).squareRoot()
        let grid = SessionGrid.crypto
        return LatentPath(
            key: key,
            source: .stock(
                StockPath(
                    own: PricePath(key: key, cascadeSpread: calibration.cascadeSpread, regimeKey: market.key),
                    ownLoading: ownLoading, market: market, marketLoading: marketLoading, sector: nil,
                    sectorLoading: 0, drift: calibration.factorShare == 0 ? 0 : 0.00002 * z(3), factors: factors,
                    earnings: nil, grid: .crypto,
                    anchorLevel: calibration.anchor, anchorDay: grid.dayIndex(Self.anchorDate))))
    }

    /// The largest power of ten at or below `amount` (at least 10⁻⁹), exactly.
    static func powerOfTen(below amount: Double) -> Quantity {
        guard amount.isFinite, amount > 0 else { return .one }
        let exponent = min(max(Int(log10(amount).rounded(.down)), -9), 15)
        return exponent >= 0
            ? FixedDecimal(units: Int(pow(10, Double(exponent))), exponent: 0)
            : FixedDecimal(units: 1, exponent: -exponent)
    }
}

/// What a simulated coin is calibrated to. Levels anchor the path on 2 January 2026 (everything after is simulated);
/// volatilities, the common factor's share and volumes follow the published figures named in `published`.
struct CryptoCalibration: Sendable {
    /// The price on the anchor day, in dollars.
    let anchor: Double
    /// Annualised volatility of daily (UTC) returns.
    let annualVolatility: Double
    /// The share of its daily variance the common crypto factor explains (its correlation with another coin is
    /// about the square root of the product of their shares).
    let factorShare: Double
    /// Spot volume across the large venues, dollars a day.
    let dailyDollarVolume: Double
    /// Market value on the anchor day, dollars.
    let capitalisation: Double
    /// Half the book's spread at the top, in basis points of the price.
    let spreadBasisPoints: Double
    /// The own walk's cascade spread (fat tails; the stocks' 0.28, small caps' up to 0.39).
    var cascadeSpread = 0.4

    /// The figures the calibration aims at, as published (the calibration report prints the simulated ones beside
    /// them): realised volatility of BTC 50–60% a year and of large altcoins 60–100% over 2021–2025 (Coin Metrics'
    /// and Kaiko's volatility research), pairwise correlation of large coins' daily returns 0.5–0.8 (Kaiko's
    /// correlation research), and stablecoins within about 1% of a dollar.
    static let published:
        (
            bitcoinVolatility: ClosedRange<Double>, altcoinVolatility: ClosedRange<Double>,
            correlation: ClosedRange<Double>, stablecoinBand: ClosedRange<Double>
        ) = (
            bitcoinVolatility: 0.50...0.60, altcoinVolatility: 0.60...1.10, correlation: 0.5...0.8,
            stablecoinBand: 0.99...1.01
        )

    static let altcoin = CryptoCalibration(
        anchor: 1, annualVolatility: 0.95, factorShare: 0.5, dailyDollarVolume: 50e6, capitalisation: 1e9,
        spreadBasisPoints: 8)

    static let coins: [String: CryptoCalibration] = [
        "BTC/USD": .init(
            anchor: 88_000, annualVolatility: 0.55, factorShare: 0.85, dailyDollarVolume: 30e9,
            capitalisation: 1.75e12, spreadBasisPoints: 1, cascadeSpread: 0.36),
        "ETH/USD": .init(
            anchor: 3_000, annualVolatility: 0.70, factorShare: 0.75, dailyDollarVolume: 15e9,
            capitalisation: 360e9, spreadBasisPoints: 1, cascadeSpread: 0.38),
        "SOL/USD": .init(
            anchor: 125, annualVolatility: 0.85, factorShare: 0.6, dailyDollarVolume: 3e9, capitalisation: 70e9,
            spreadBasisPoints: 3),
        "XRP/USD": .init(
            anchor: 1.85, annualVolatility: 0.85, factorShare: 0.5, dailyDollarVolume: 2.5e9,
            capitalisation: 110e9, spreadBasisPoints: 3),
        "DOGE/USD": .init(
            anchor: 0.125, annualVolatility: 0.95, factorShare: 0.55, dailyDollarVolume: 1.2e9,
            capitalisation: 19e9, spreadBasisPoints: 3),
        "LTC/USD": .init(
            anchor: 78, annualVolatility: 0.75, factorShare: 0.6, dailyDollarVolume: 400e6, capitalisation: 6e9,
            spreadBasisPoints: 4),
        "BCH/USD": .init(
            anchor: 590, annualVolatility: 0.80, factorShare: 0.55, dailyDollarVolume: 300e6, capitalisation: 12e9,
            spreadBasisPoints: 4),
        "LINK/USD": .init(
            anchor: 12.5, annualVolatility: 0.85, factorShare: 0.6, dailyDollarVolume: 500e6, capitalisation: 8e9,
            spreadBasisPoints: 4),
        "AVAX/USD": .init(
            anchor: 12.5, annualVolatility: 0.95, factorShare: 0.6, dailyDollarVolume: 350e6, capitalisation: 5e9,
            spreadBasisPoints: 5),
        "DOT/USD": .init(
            anchor: 1.8, annualVolatility: 0.85, factorShare: 0.6, dailyDollarVolume: 200e6, capitalisation: 3e9,
            spreadBasisPoints: 5),
        "UNI/USD": .init(
            anchor: 5.8, annualVolatility: 0.95, factorShare: 0.55, dailyDollarVolume: 200e6, capitalisation: 3.5e9,
            spreadBasisPoints: 5),
        "AAVE/USD": .init(
            anchor: 160, annualVolatility: 0.90, factorShare: 0.55, dailyDollarVolume: 250e6, capitalisation: 2.4e9,
            spreadBasisPoints: 5),
        "SHIB/USD": .init(
            anchor: 0.0000072, annualVolatility: 1.0, factorShare: 0.5, dailyDollarVolume: 200e6,
            capitalisation: 4.2e9, spreadBasisPoints: 6),
        "PEPE/USD": .init(
            anchor: 0.0000043, annualVolatility: 1.1, factorShare: 0.45, dailyDollarVolume: 400e6,
            capitalisation: 1.8e9, spreadBasisPoints: 6),
        "XTZ/USD": .init(
            anchor: 0.45, annualVolatility: 0.90, factorShare: 0.5, dailyDollarVolume: 20e6, capitalisation: 0.47e9,
            spreadBasisPoints: 8),
        "CRV/USD": .init(
            anchor: 0.37, annualVolatility: 1.0, factorShare: 0.5, dailyDollarVolume: 100e6, capitalisation: 0.5e9,
            spreadBasisPoints: 8),
        "GRT/USD": .init(
            anchor: 0.04, annualVolatility: 1.0, factorShare: 0.5, dailyDollarVolume: 50e6, capitalisation: 0.43e9,
            spreadBasisPoints: 8),
        "BAT/USD": .init(
            anchor: 0.2, annualVolatility: 0.90, factorShare: 0.5, dailyDollarVolume: 20e6, capitalisation: 0.3e9,
            spreadBasisPoints: 8),
        "SUSHI/USD": .init(
            anchor: 0.3, annualVolatility: 1.05, factorShare: 0.5, dailyDollarVolume: 30e6, capitalisation: 0.08e9,
            spreadBasisPoints: 8),
        "YFI/USD": .init(
            anchor: 3_400, annualVolatility: 0.90, factorShare: 0.5, dailyDollarVolume: 20e6, capitalisation: 0.11e9,
            spreadBasisPoints: 8),
        // Stablecoins: a dollar, give or take a few hundredths of a cent; nothing of the crypto factor.
        "USDC/USD": .init(
            anchor: 1, annualVolatility: 0.0015, factorShare: 0, dailyDollarVolume: 8e9, capitalisation: 75e9,
            spreadBasisPoints: 1, cascadeSpread: 0.2),
        "USDT/USD": .init(
            anchor: 1, annualVolatility: 0.0015, factorShare: 0, dailyDollarVolume: 50e9, capitalisation: 185e9,
            spreadBasisPoints: 1, cascadeSpread: 0.2),
    ]
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
