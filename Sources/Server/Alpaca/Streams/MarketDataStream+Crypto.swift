import Brokerage
import MarketData
import TradingCore

/// Alpaca's crypto stream (`/v1beta3/crypto/us`, what alpaca-py's `CryptoDataStream` opens): trades, quotes, minute
/// bars, daily bars and order books of crypto pairs, every second of every day. Sizes are fractions of a coin (sent as
/// floats, as Alpaca sends them); a trade says its taker's side (`tks`). Pairs are subscribed as `BTC/USD` (the
/// legacy `BTCUSD` too, answered under the symbol asked for) or `*` for every pair; anything else is refused.
/// `updatedBars` are accepted and stay quiet: the simulated market has no late trades to correct a bar with.
extension MarketDataStream {
    /// The symbol a crypto subscription names, as the client will be answered under it; nil when it names no pair.
    static func cryptoSymbol(_ requested: String, market: MarketView) -> String? {
        let symbol = requested.uppercased()
        if symbol == "*" { return symbol }
        guard let entry = market.directory.entry(symbol), entry.instrument.kind == .crypto else { return nil }
        return symbol
    }

    /// The first symbol of a crypto subscription request that names no pair (Alpaca's 400 for it).
    static func cryptoRefusal(_ request: MessagePack.Value, market: MarketView) -> [(String, MessagePack.Value)]? {
        for field in ["trades", "quotes", "bars", "updatedBars", "dailyBars", "orderbooks"] {
            if let bad = (request[field]?.strings ?? []).first(where: { cryptoSymbol($0, market: market) == nil }) {
                return [("code", .int(400)), ("msg", .string("invalid symbol \(bad): not a crypto pair"))]
            }
        }
        return nil
    }

    static func cryptoTradeMessage(_ symbol: String, price: Price, size: Quantity, at time: Timestamp)
        -> MessagePack.Value
    {
        .map([
            ("T", .string("t")), ("S", .string(symbol)), ("p", .price(price)), ("s", .price(size)),
            ("t", .timestamp(time)), ("i", .int(time.nanoseconds)),
            ("tks", .string(time.nanoseconds % 2 == 0 ? "B" : "S")),
        ])
    }

    static func cryptoQuoteMessage(_ symbol: String, _ q: MarketQuote) -> MessagePack.Value {
        .map([
            ("T", .string("q")), ("S", .string(symbol)), ("bp", .price(q.bids.best?.price ?? .zero)),
            ("bs", .price(q.bids.best?.size ?? .zero)), ("ap", .price(q.asks.best?.price ?? .zero)),
            ("as", .price(q.asks.best?.size ?? .zero)), ("t", .timestamp(q.time)),
        ])
    }

    /// A minute bar (`b`), or a daily bar (`d`) of the UTC day so far.
    static func cryptoBarMessage(_ type: String, _ symbol: String, _ bar: PriceBar) -> MessagePack.Value {
        .map([
            ("T", .string(type)), ("S", .string(symbol)), ("o", .price(bar.open)), ("h", .price(bar.high)),
            ("l", .price(bar.low)), ("c", .price(bar.close)), ("v", .price(bar.volume)), ("t", .timestamp(bar.time)),
            ("n", .int(Int64(bar.tradeCount))), ("vw", .price(bar.vwap)),
        ])
    }

    /// The book's levels as `{p, s}` maps.
    typealias Levels = [(price: Price, size: Quantity)]

    static func levels(_ side: BookSide) -> Levels { (0..<side.count).map { (side[$0].price, side[$0].size) } }

    /// An order book message: the whole book (`r`: true) first, then the levels that changed — a level gone is sent
    /// with size 0, as Alpaca sends it.
    static func orderbookMessage(
        _ symbol: String, bids: Levels, asks: Levels, at time: Timestamp, reset: Bool
    ) -> MessagePack.Value {
        func list(_ levels: Levels) -> MessagePack.Value {
            .array(levels.map { .map([("p", .price($0.price)), ("s", .price($0.size))]) })
        }
        var fields: [(String, MessagePack.Value)] = [
            ("T", .string("o")), ("S", .string(symbol)), ("t", .timestamp(time)), ("b", list(bids)),
            ("a", list(asks)),
        ]
        if reset { fields.append(("r", .bool(true))) }
        return .map(fields)
    }

    /// The levels of `now` that differ from `before`, and those of `before` gone from it (at size 0).
    static func changedLevels(from before: Levels, to now: Levels) -> Levels {
        var changed = now.filter { level in !before.contains { $0.price == level.price && $0.size == level.size } }
        for old in before where !now.contains(where: { $0.price == old.price }) { changed.append((old.price, .zero)) }
        return changed
    }

    /// What the crypto pump remembers of each pair between rounds.
    struct CryptoPairState {
        var quote: MarketQuote?
        var bids: Levels = []
        var asks: Levels = []
        var bookSent = false
        var lastBar: Timestamp?
    }

    /// Once a second: each followed pair's trade when it printed, quote when the top changed, order book changes,
    /// and, as each minute ends, its minute bar and the UTC day's bar so far.
    static func cryptoPump(
        subscriptions: SubscriptionBox, market: MarketView,
        send: @Sendable (MessagePack.Value) async throws -> Void
    ) async throws {
        let everyPair = market.directory.entries.filter { $0.instrument.kind == .crypto }.map(\.symbol)
        var state: [String: CryptoPairState] = [:]
        var next = market.clock.now()
        while !Task.isCancelled {
            let s = subscriptions.state.withLock { $0 }
            func follows(_ channel: Set<String>, _ symbol: String, _ pair: String) -> Bool {
                channel.contains(symbol) || (channel.contains("*") && symbol == pair)
            }
            // Each subscribed name with the pair it reads; `*` adds every pair under its own symbol.
            var named: [String: String] = [:]
            for symbol in s.symbols where symbol != "*" {
                if let pair = market.directory.entry(symbol)?.symbol { named[symbol] = pair }
            }
            if s.symbols.contains("*") { for pair in everyPair { named[pair] = pair } }
            let pairs = Array(Set(named.values)).sorted()
            let quotes = pairs.isEmpty ? [:] : await market.feed.latestQuotes(pairs)
            let now = market.clock.now()
            var batch: [MessagePack.Value] = []
            for (symbol, pair) in named.sorted(by: { $0.key < $1.key }) {
                guard let q = quotes[pair] else { continue }
                var pairState = state[symbol] ?? CryptoPairState()
                let previous = pairState.quote
                pairState.quote = q
                if follows(s.trades, symbol, pair), let previous, previous.last != q.last || previous.volume != q.volume
                {
                    let printed = q.volume - previous.volume
                    let size = printed.isPositive ? printed : q.asks.best?.size ?? .zero
                    batch.append(cryptoTradeMessage(symbol, price: q.last, size: size, at: q.lastTradeTime ?? q.time))
                }
                if follows(s.quotes, symbol, pair),
                    previous == nil || previous?.bids.best != q.bids.best
                        || previous?.asks.best != q.asks.best
                {
                    batch.append(cryptoQuoteMessage(symbol, q))
                }
                if follows(s.orderbooks, symbol, pair) {
                    let bids = levels(q.bids)
                    let asks = levels(q.asks)
                    if !pairState.bookSent {
                        batch.append(orderbookMessage(symbol, bids: bids, asks: asks, at: q.time, reset: true))
                        pairState.bookSent = true
                    } else {
                        let b = changedLevels(from: pairState.bids, to: bids)
                        let a = changedLevels(from: pairState.asks, to: asks)
                        if !b.isEmpty || !a.isEmpty {
                            batch.append(orderbookMessage(symbol, bids: b, asks: a, at: q.time, reset: false))
                        }
                    }
                    pairState.bids = bids
                    pairState.asks = asks
                } else {
                    pairState.bookSent = false
                }
                if follows(s.bars, symbol, pair) || follows(s.dailyBars, symbol, pair) {
                    let minutes =
                        (try? await market.feed.bars(
                            pair, timeframe: .minutes(1), from: now.adding(seconds: -120), to: now)) ?? []
                    if let bar = minutes.last(where: { $0.time.adding(seconds: 60) <= now }),
                        bar.time != pairState.lastBar
                    {
                        // The first round only notes the minute: bars are sent as minutes end.
                        if pairState.lastBar != nil {
                            if follows(s.bars, symbol, pair) { batch.append(cryptoBarMessage("b", symbol, bar)) }
                            if follows(s.dailyBars, symbol, pair),
                                let day = try? await market.feed.bars(
                                    pair, timeframe: .day, from: now.adding(seconds: -86_400), to: now
                                ).last
                            {
                                batch.append(cryptoBarMessage("d", symbol, day))
                            }
                        }
                        pairState.lastBar = bar.time
                    }
                }
                state[symbol] = pairState
            }
            for symbol in state.keys where named[symbol] == nil { state[symbol] = nil }
            if !batch.isEmpty { try await send(.array(batch)) }
            // A round that ran past its second (a busy machine) is not made up for with rounds back to back.
            next = max(next.adding(seconds: 1), market.clock.now())
            await market.clock.sleep(until: next)
        }
    }
}
