import TradingCore

/// Currency pairs in the simulated market: the forex week (`SessionGrid.forex`: each weekday's day from 17:00 New
/// York the evening before, busiest in London and New York hours), moved by a dollar factor that carries most of a
/// major's moves, a European and a commodity bloc, the US stock market's factor (the same walk the stocks follow, so
/// the Australian dollar rises with stocks and the yen falls), and each pair's own walk. Calibrated to the figures in
/// `ForexCalibration.published`; `MarketDataBench` prints the simulated figures beside them.
extension SimulatedProfile {
    init(forex entry: DirectoryEntry, model: SimulationModel) {
        let instrument = entry.instrument
        let calibration = ForexCalibration.pairs[entry.symbol] ?? .minor
        symbol = entry.symbol
        market = instrument.market
        tick = instrument.tick
        limit = nil
        isIndex = false
        kind = .forex
        isWarrantRightOrUnit = false
        grid = .forex(policy: model.configuration.sessions)
        let key = CounterRandom.hash(model.configuration.seed, CounterRandom.key(entry.symbol))
        anchor = calibration.anchor
        capitalisation = 0
        tier = .mega
        // Prints in thousands of the base currency; the book in half-millions, IDEALPRO's sizes.
        lotSize = 1_000
        lotLevel = 1_000
        bookLot = 500_000
        lot = 1
        let factors = model.forexFactors
        // The path's days are weekdays (the forex week's value dates).
        let sigma = calibration.annualVolatility / 260.0.squareRoot()
        func loading(_ share: Double) -> Double { (share < 0 ? -1 : 1) * sigma * abs(share).squareRoot() }
        let equity = factors.market(.us)
        var extra: [(factor: FactorModel.Factor, loading: Double)] = []
        if calibration.europe != 0 { extra.append((factors.currency("europe"), loading(calibration.europe))) }
        if calibration.equity != 0 { extra.append((equity, loading(calibration.equity))) }
        let shared =
            abs(calibration.dollar) + abs(calibration.europe) + abs(calibration.commodity)
            + abs(calibration.equity)
        path = LatentPath(
            key: key,
            source: .stock(
                StockPath(
                    own: PricePath(key: key, cascadeSpread: calibration.cascadeSpread, regimeKey: equity.key),
                    ownLoading: sigma * max(1 - shared, 0.05).squareRoot(), market: factors.currency("dollar"),
                    marketLoading: loading(calibration.dollar),
                    sector: calibration.commodity == 0 ? nil : factors.currency("commodity"),
                    sectorLoading: loading(calibration.commodity), drift: 0, factors: factors, earnings: nil,
                    grid: grid, anchorLevel: anchor, anchorDay: grid.dayIndex(Self.anchorDate), extra: extra)))
        baseVolume = calibration.dailyVolume
        spreadTicks = calibration.spreadTicks
        haltRule = nil
    }
}

/// What a simulated currency pair is calibrated to. Levels anchor the path on 2 January 2026 (everything after is
/// simulated); volatilities and the factors' shares follow the published figures named in `published`.
///
/// Each share is the part of the pair's daily variance a factor explains, signed by how the pair's price (quote
/// currency per unit of the base) moves when the factor rises: the dollar factor is the dollar's strength (EUR.USD
/// falls, USD.JPY rises), the European and commodity blocs those currencies' strength beyond it, the equity factor the
/// US stock market. Two pairs' correlation is about Σ sign·√(share·share') over the factors they share.
struct ForexCalibration: Sendable {
    /// The price on the anchor day.
    let anchor: Double
    /// Annualised volatility of daily returns.
    let annualVolatility: Double
    let dollar: Double
    var europe = 0.0
    var commodity = 0.0
    var equity = 0.0
    /// Base-currency units traded a day (the prints' scale, not a venue's share of the world's turnover).
    let dailyVolume: Double
    /// The top of the book's spread, in ticks (tenths of a pip; thousandths of a yen).
    let spreadTicks: Int
    var cascadeSpread = 0.3

    /// The figures the calibration aims at, as published (the calibration report prints the simulated ones beside
    /// them): realised volatility of daily returns over 2021–2025 — EUR/USD about 7% a year, USD/CNH about 4%, the
    /// other G10 pairs 6–11% (Federal Reserve H.10 and ECB reference rates; CME's CVOL indices agree) — EUR/USD's
    /// correlation with USD/CHF about −0.8 and with GBP/USD about 0.7, AUD/USD's with NZD/USD about 0.85 and with the
    /// S&P 500 about 0.3–0.5; and IDEALPRO's spreads on the majors, 0.1–0.5 pips at its sizes (IBKR's published
    /// spot-currency spreads).
    static let published:
        (
            euroVolatility: ClosedRange<Double>, yuanVolatility: ClosedRange<Double>,
            g10Volatility: ClosedRange<Double>, euroFranc: ClosedRange<Double>, euroPound: ClosedRange<Double>,
            australianNewZealand: ClosedRange<Double>, australianStocks: ClosedRange<Double>
        ) = (
            euroVolatility: 0.06...0.08, yuanVolatility: 0.03...0.05, g10Volatility: 0.055...0.12,
            euroFranc: -0.9 ... -0.7, euroPound: 0.6...0.8, australianNewZealand: 0.75...0.92,
            australianStocks: 0.25...0.55
        )

    /// A pair without a calibration of its own.
    static let minor = ForexCalibration(
        anchor: 1, annualVolatility: 0.09, dollar: 0.4, dailyVolume: 1e9, spreadTicks: 10)

    static let pairs: [String: ForexCalibration] = [
        "EUR.USD": .init(
            anchor: 1.1720, annualVolatility: 0.07, dollar: -0.70, europe: 0.18, dailyVolume: 60e9,
            spreadTicks: 2),
        "GBP.USD": .init(
            anchor: 1.3450, annualVolatility: 0.08, dollar: -0.45, europe: 0.15, equity: 0.05, dailyVolume: 25e9,
            spreadTicks: 3),
        "AUD.USD": .init(
            anchor: 0.6680, annualVolatility: 0.10, dollar: -0.25, commodity: 0.45, equity: 0.15,
            dailyVolume: 20e9, spreadTicks: 3),
        "NZD.USD": .init(
            anchor: 0.5790, annualVolatility: 0.105, dollar: -0.22, commodity: 0.48, equity: 0.12,
            dailyVolume: 8e9, spreadTicks: 4),
        "USD.JPY": .init(
            anchor: 157.00, annualVolatility: 0.10, dollar: 0.35, equity: 0.08, dailyVolume: 40e9,
            spreadTicks: 2),
        "USD.CHF": .init(
            anchor: 0.7930, annualVolatility: 0.07, dollar: 0.55, europe: -0.20, equity: 0.03, dailyVolume: 12e9,
            spreadTicks: 3),
        "USD.CAD": .init(
            anchor: 1.3730, annualVolatility: 0.055, dollar: 0.30, commodity: -0.20, equity: -0.10,
            dailyVolume: 15e9, spreadTicks: 3),
        "USD.SEK": .init(
            anchor: 9.2000, annualVolatility: 0.10, dollar: 0.45, europe: -0.20, equity: -0.08, dailyVolume: 3e9,
            spreadTicks: 30),
        "USD.NOK": .init(
            anchor: 10.1000, annualVolatility: 0.11, dollar: 0.35, europe: -0.08, commodity: -0.15, equity: -0.08,
            dailyVolume: 3e9, spreadTicks: 30),
        "USD.CNH": .init(
            anchor: 6.9900, annualVolatility: 0.04, dollar: 0.40, equity: -0.05, dailyVolume: 15e9,
            spreadTicks: 10, cascadeSpread: 0.25),
    ]
}
