import TradingCore

extension SimulatedMarket {
    /// Live quotes for subscribed symbols: every `interval` of market time, each symbol whose quote changed.
    /// The stream ends when the consuming task is cancelled.
    public func liveQuotes(
        _ symbols: [String], clock: MarketClock,
        interval: Int64 = Duration64.second
    ) -> AsyncStream<MarketQuote> {
        AsyncStream(bufferingPolicy: .bufferingNewest(symbols.count * 4)) { continuation in
            let task = Task {
                var last: [String: MarketQuote] = [:]
                var time = clock.now()
                while !Task.isCancelled {
                    for symbol in symbols {
                        guard let q = quote(symbol, at: time) else { continue }
                        let previous = last[symbol]
                        if previous?.last != q.last || previous?.volume != q.volume || previous?.bids != q.bids {
                            last[symbol] = q
                            continuation.yield(q)
                        }
                    }
                    time = time.adding(nanoseconds: interval)
                    await clock.sleep(until: time)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
