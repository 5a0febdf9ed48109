import MarketData
import TradingCore

/// An account's equity at one time (portfolio history).
public struct EquityPoint: Sendable, Hashable {
    public var time: Timestamp
    public var equity: FixedDecimal
}

extension Brokerage {
    /// The account's equity at each bar of `timeframe` between `start` and `end` (the bar times of its market's
    /// reference symbol: SPY, or 600519 for A-shares): its whole ledger replayed (`LedgerReplay`) up to each point,
    /// holdings valued at the last close at or before it — at cost while no close is known yet.
    public func equityHistory(_ id: AccountID, timeframe: BarTimeframe, from start: Timestamp, to end: Timestamp)
        async throws(BrokerageError) -> [EquityPoint]
    {
        guard let record = owners[id], let account = engine.account(id) else { throw .notFound("account not found") }
        let entries: [LedgerEntry]
        do { entries = try await storage.ledger(account: id) } catch { throw .storage(error) }
        var symbols = Set<String>()
        for entry in entries { if case .fill(let fill) = entry.kind { symbols.insert(fill.symbol) } }
        // Closes from a little before the start, so holdings bought earlier have a price at the first point.
        var closes: [String: [(time: Timestamp, close: Price)]] = [:]
        for symbol in symbols {
            let bars = try? await feed.bars(
                symbol, timeframe: timeframe, from: start.adding(seconds: -10 * 86_400), to: end)
            closes[symbol] = (bars ?? []).map { ($0.time, $0.close) }
        }
        let reference = record.market == .us ? "SPY" : "600519"
        let times = ((try? await feed.bars(reference, timeframe: timeframe, from: start, to: end)) ?? []).map(\.time)
        // (A reset that changed the starting cash leaves only the new amount on record: points before it start
        // from that amount too.)
        var replay = LedgerReplay(startingCash: account.startingCash)
        var next = 0
        var points: [EquityPoint] = []
        points.reserveCapacity(times.count)
        for time in times {
            while next < entries.count, entries[next].time <= time {
                replay.apply(entries[next])
                next += 1
            }
            var equity = replay.cash
            for (symbol, holding) in replay.holdings where holding.qty.isPositive {
                if let close = closes[symbol]?.last(where: { $0.time <= time })?.close {
                    equity += holding.qty.multiplied(by: close, places: account.currency.minorUnitDigits, rule: .halfUp)
                } else {
                    equity += holding.costBasis
                }
            }
            points.append(EquityPoint(time: time, equity: equity))
        }
        return points
    }
}
