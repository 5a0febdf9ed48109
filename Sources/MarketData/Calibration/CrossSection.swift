import TradingCore

/// How a set of stocks moves together, from their daily log returns over the same days: the figures that make
/// diversification, beta and a benchmark mean something (real S&P 500 stocks: pairwise correlation about 0.5–0.6
/// within a sector and 0.2–0.4 across; an equal-weighted basket of them moves about 1% a day against about 2% for
/// the average stock).
public struct CrossSectionStatistics: Sendable, CustomStringConvertible {
    public var stocks: Int
    public var days: Int
    /// The average stock's daily volatility.
    public var meanVolatility: Double
    /// Mean pairwise correlation of daily returns, of two stocks in the same sector and in different sectors.
    public var withinSectorCorrelation: Double
    public var acrossSectorCorrelation: Double
    /// Daily volatility of the equal-weighted basket of the stocks.
    public var basketVolatility: Double

    /// `returns[i]` are stock i's daily log returns (all the same length), `sectors[i]` its sector.
    public init(returns: [[Double]], sectors: [String]) {
        let n = returns.count
        let days = returns.map(\.count).min() ?? 0
        stocks = n
        self.days = days
        var standardized: [[Double]] = []
        var volatilities: [Double] = []
        for r in returns {
            let x = Array(r.prefix(days))
            let mean = x.reduce(0, +) / Double(max(days, 1))
            let sd = (x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(days, 1))).squareRoot()
            volatilities.append(sd)
            standardized.append(x.map { sd > 0 ? ($0 - mean) / sd : 0 })
        }
        meanVolatility = volatilities.isEmpty ? 0 : volatilities.reduce(0, +) / Double(n)
        var within = (sum: 0.0, count: 0), across = (sum: 0.0, count: 0)
        for i in 0..<n {
            for j in (i + 1)..<max(n, i + 1) {
                var c = 0.0
                for t in 0..<days { c += standardized[i][t] * standardized[j][t] }
                c /= Double(max(days, 1))
                if sectors[i] == sectors[j] {
                    within.sum += c
                    within.count += 1
                } else {
                    across.sum += c
                    across.count += 1
                }
            }
        }
        withinSectorCorrelation = within.count > 0 ? within.sum / Double(within.count) : 0
        acrossSectorCorrelation = across.count > 0 ? across.sum / Double(across.count) : 0
        let basket = (0..<days).map { t in returns.reduce(0) { $0 + $1[t] } / Double(max(n, 1)) }
        basketVolatility = ReturnStatistics(returns: basket).volatility
    }

    public var description: String {
        func pct(_ x: Double) -> String { String((x * 10_000).rounded() / 100) + "%" }
        func r(_ x: Double) -> String { String((x * 1000).rounded() / 1000) }
        return
            "\(stocks) stocks × \(days) days: mean stock vol \(pct(meanVolatility)), equal-weighted basket vol \(pct(basketVolatility)), correlation within sectors \(r(withinSectorCorrelation)), across \(r(acrossSectorCorrelation))"
    }
}

extension SimulatedMarket {
    /// Daily log returns of a symbol's closes (split- and dividend-adjusted, so corporate actions are not moves) for
    /// the trading days from `from` through `through`; empty for an unknown symbol.
    public func dailyReturns(_ symbol: String, from: CivilDate, through: CivilDate) -> [Double] {
        guard let entry = directory.entry(symbol) else { return [] }
        let zone = entry.instrument.calendar.zone
        let bars = bars(
            symbol, timeframe: .day, from: Timestamp(from, in: zone), to: Timestamp(through.adding(days: 1), in: zone))
        let adjusted = BarAdjustment.all.apply(
            to: bars, actions: corporateActions(symbol, from: from, through: through), zone: zone, through: through)
        let closes = adjusted.compactMap { Double($0.close.description) }
        return zip(closes, closes.dropFirst()).compactMap { $0 > 0 && $1 > 0 ? log($1 / $0) : nil }
    }

    /// Daily log returns of an index's closes over the trading days from `from` through `through`.
    public func dailyReturns(_ index: MarketIndex, from: CivilDate, through: CivilDate) -> [Double] {
        let zone = index.market.calendar.zone
        let closes = indexBars(
            index, timeframe: .day, from: Timestamp(from, in: zone), to: Timestamp(through.adding(days: 1), in: zone)
        ).compactMap { Double($0.close.description) }
        return zip(closes, closes.dropFirst()).compactMap { $0 > 0 && $1 > 0 ? log($1 / $0) : nil }
    }

    /// The size tier the simulation gives a symbol (nil for an unknown symbol).
    public func sizeTier(_ symbol: String) -> SizeTier? {
        directory.entry(symbol).map { profile($0).tier }
    }

    /// The members of an index as simulated, with their weights (largest first).
    public func indexMembers(_ index: MarketIndex) -> [(symbol: String, weight: Double)] {
        guard let basket = model.basket(index) else { return [] }
        return basket.members.map { ($0.symbol, $0.weight) }.sorted { $0.weight > $1.weight }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
