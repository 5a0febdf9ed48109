import TradingCore

/// How the simulated crypto market moves over a span of UTC days, beside the published figures it is calibrated to
/// (`CryptoCalibration.published`): bitcoin's annualised volatility, the large altcoins', their pairwise
/// correlations, bitcoin's tail days and the stablecoins' range. The calibration tests and `MarketDataBench` read it.
public struct CryptoStatistics: Sendable, CustomStringConvertible {
    /// The large altcoins the figures are taken over.
    public static let altcoins = [
        "ETH/USD", "SOL/USD", "XRP/USD", "DOGE/USD", "LTC/USD", "LINK/USD", "AVAX/USD", "BCH/USD",
    ]
    public static let stablecoins = ["USDC/USD", "USDT/USD"]

    /// The published ranges: BTC's volatility, large altcoins', the correlation of large coins' daily returns, and
    /// where a stablecoin trades.
    public static var published:
        (
            bitcoinVolatility: ClosedRange<Double>, altcoinVolatility: ClosedRange<Double>,
            correlation: ClosedRange<Double>, stablecoinBand: ClosedRange<Double>
        )
    { CryptoCalibration.published }

    public let days: Int
    public let bitcoinVolatility: Double
    /// Each large altcoin's, ascending.
    public let altcoinVolatilities: [Double]
    /// Every pair of BTC and the large altcoins, ascending.
    public let correlations: [Double]
    /// Bitcoin's days beyond four standard deviations (a normal walk: 0.006% of days).
    public let bitcoinTailDays: Int
    /// The lowest and highest daily close of the stablecoins.
    public let stablecoinRange: ClosedRange<Double>

    public var medianAltcoinVolatility: Double { altcoinVolatilities[altcoinVolatilities.count / 2] }
    public var medianCorrelation: Double { correlations[correlations.count / 2] }

    public init(market: SimulatedMarket, from: CivilDate, through: CivilDate) {
        let btc = market.dailyReturns("BTC/USD", from: from, through: through)
        let alts = Self.altcoins.map { market.dailyReturns($0, from: from, through: through) }
        days = btc.count
        bitcoinVolatility = Self.annualised(btc)
        altcoinVolatilities = alts.map { Self.annualised($0) }.sorted()
        let series = [btc] + alts
        var correlations: [Double] = []
        for i in series.indices {
            for j in series.indices where j > i { correlations.append(Self.correlation(series[i], series[j])) }
        }
        self.correlations = correlations.sorted()
        let sd = bitcoinVolatility / 365.0.squareRoot()
        bitcoinTailDays = btc.filter { abs($0) > 4 * sd }.count
        let closes = Self.stablecoins.flatMap { symbol in
            market.bars(
                symbol, timeframe: .day, from: Timestamp(from, in: .utc),
                to: Timestamp(through.adding(days: 1), in: .utc)
            ).map { Double($0.close.description) ?? 0 }
        }
        stablecoinRange = (closes.min() ?? 0)...(closes.max() ?? 0)
    }

    static func annualised(_ r: [Double], periodsPerYear: Double = 365) -> Double {
        guard r.count > 1 else { return 0 }
        let mean = r.reduce(0, +) / Double(r.count)
        return (r.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(r.count - 1) * periodsPerYear).squareRoot()
    }

    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = min(a.count, b.count)
        guard n > 1 else { return 0 }
        let a = a.prefix(n), b = b.prefix(n)
        let ma = a.reduce(0, +) / Double(n), mb = b.reduce(0, +) / Double(n)
        let cov = zip(a, b).map { ($0 - ma) * ($1 - mb) }.reduce(0, +)
        let va = a.map { ($0 - ma) * ($0 - ma) }.reduce(0, +), vb = b.map { ($0 - mb) * ($0 - mb) }.reduce(0, +)
        return va > 0 && vb > 0 ? cov / (va * vb).squareRoot() : 0
    }

    public var description: String {
        func pct(_ x: Double) -> String { String(Int((x * 100).rounded())) + "%" }
        func r(_ x: Double) -> String { String((x * 100).rounded() / 100) }
        let p = Self.published
        return """
            \(days) days: BTC vol \(pct(bitcoinVolatility)) (published \(pct(p.bitcoinVolatility.lowerBound))–\(pct(p.bitcoinVolatility.upperBound))); \
            large altcoins \(pct(altcoinVolatilities.first ?? 0))–\(pct(altcoinVolatilities.last ?? 0)), median \(pct(medianAltcoinVolatility)) \
            (published \(pct(p.altcoinVolatility.lowerBound))–\(pct(p.altcoinVolatility.upperBound))); pairwise correlation \
            \(r(correlations.first ?? 0))–\(r(correlations.last ?? 0)), median \(r(medianCorrelation)) (published \
            \(r(p.correlation.lowerBound))–\(r(p.correlation.upperBound))); BTC days beyond 4σ \(bitcoinTailDays); \
            stablecoins \(stablecoinRange.lowerBound)–\(stablecoinRange.upperBound)
            """
    }
}
