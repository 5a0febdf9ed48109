import TradingCore

/// How the simulated currency pairs move over a span of weekdays, beside the published figures they are calibrated to
/// (`ForexCalibration.published`): each pair's annualised volatility and the correlations the calibration names
/// (EUR.USD with USD.CHF and GBP.USD, AUD.USD with NZD.USD and with the S&P 500). The calibration tests and
/// `MarketDataBench` read it.
public struct ForexStatistics: Sendable, CustomStringConvertible {
    public static let pairs = [
        "EUR.USD", "GBP.USD", "AUD.USD", "NZD.USD", "USD.JPY", "USD.CHF", "USD.CAD", "USD.SEK", "USD.NOK", "USD.CNH",
    ]

    public static var published:
        (
            euroVolatility: ClosedRange<Double>, yuanVolatility: ClosedRange<Double>,
            g10Volatility: ClosedRange<Double>, euroFranc: ClosedRange<Double>, euroPound: ClosedRange<Double>,
            australianNewZealand: ClosedRange<Double>, australianStocks: ClosedRange<Double>
        )
    { ForexCalibration.published }

    public let days: Int
    /// Each pair's annualised volatility of daily returns (260 weekdays a year).
    public let volatilities: [String: Double]
    public let euroFranc: Double
    public let euroPound: Double
    public let australianNewZealand: Double
    /// AUD.USD's daily returns against the S&P 500's (the days both trade).
    public let australianStocks: Double

    public init(market: SimulatedMarket, from: CivilDate, through: CivilDate) {
        var returns: [String: [Double]] = [:]
        for pair in Self.pairs { returns[pair] = market.dailyReturns(pair, from: from, through: through) }
        days = returns["EUR.USD"]?.count ?? 0
        volatilities = returns.mapValues { CryptoStatistics.annualised($0, periodsPerYear: 260) }
        func corr(_ a: String, _ b: String) -> Double {
            CryptoStatistics.correlation(returns[a] ?? [], returns[b] ?? [])
        }
        euroFranc = corr("EUR.USD", "USD.CHF")
        euroPound = corr("EUR.USD", "GBP.USD")
        australianNewZealand = corr("AUD.USD", "NZD.USD")
        // Both series over the days the stock market trades: the pair's close on each of those days.
        let calendar = TradingCalendar.xnys
        let stockDays = calendar.tradingDays(from: from, through: through)
        let zone = ExchangeTimeZone.newYork
        let bars = market.bars(
            "AUD.USD", timeframe: .day, from: Timestamp(from, in: zone),
            to: Timestamp(through.adding(days: 1), in: zone))
        var closeByDate: [CivilDate: Double] = [:]
        for bar in bars { closeByDate[TradingCalendar.forex.sessionDate(at: bar.time)] = Double(bar.close.description) }
        let index = market.indexBars(
            .sp500, timeframe: .day, from: Timestamp(from, in: zone), to: Timestamp(through.adding(days: 1), in: zone))
        var indexByDate: [CivilDate: Double] = [:]
        for bar in index { indexByDate[zone.localTime(of: bar.time).date] = Double(bar.close.description) }
        var pair: [Double] = [], stocks: [Double] = []
        for (a, b) in zip(stockDays, stockDays.dropFirst()) {
            guard let p0 = closeByDate[a], let p1 = closeByDate[b], let s0 = indexByDate[a], let s1 = indexByDate[b],
                p0 > 0, p1 > 0, s0 > 0, s1 > 0
            else { continue }
            pair.append(log(p1 / p0))
            stocks.append(log(s1 / s0))
        }
        australianStocks = CryptoStatistics.correlation(pair, stocks)
    }

    public var description: String {
        func pct(_ x: Double) -> String { String((x * 1000).rounded() / 10) + "%" }
        func r(_ x: Double) -> String { String((x * 100).rounded() / 100) }
        let p = Self.published
        let vols = Self.pairs.map { "\($0) \(pct(volatilities[$0] ?? 0))" }.joined(separator: ", ")
        return """
            \(days) days: vol \(vols) (published EUR.USD \(pct(p.euroVolatility.lowerBound))–\(pct(p.euroVolatility.upperBound)), \
            USD.CNH \(pct(p.yuanVolatility.lowerBound))–\(pct(p.yuanVolatility.upperBound)), others \
            \(pct(p.g10Volatility.lowerBound))–\(pct(p.g10Volatility.upperBound))); correlation EUR.USD/USD.CHF \
            \(r(euroFranc)) (published \(r(p.euroFranc.lowerBound))–\(r(p.euroFranc.upperBound))), EUR.USD/GBP.USD \
            \(r(euroPound)) (\(r(p.euroPound.lowerBound))–\(r(p.euroPound.upperBound))), AUD.USD/NZD.USD \
            \(r(australianNewZealand)) (\(r(p.australianNewZealand.lowerBound))–\(r(p.australianNewZealand.upperBound))), \
            AUD.USD/S&P 500 \(r(australianStocks)) (\(r(p.australianStocks.lowerBound))–\(r(p.australianStocks.upperBound)))
            """
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
