import Brokerage
import MarketData
import NIOCore
import TradingCore

/// The stock stream's second, made once for every connection (`Fanout`): the quotes of every symbol any connection
/// follows in one read, each quote, trade, status and bar message encoded once, and a connection's frame the
/// MessagePack array of the messages it follows — the same bytes, in the same order, as when each connection made its
/// own (symbols in order: status, quote, trade; then the minute bars).
///
/// What goes out, as before: a quote when the book changed since the last round, a trade when the last price or the
/// volume did, a status when a halt began or ended, a minute bar when a newer one finished; and to a connection that
/// has just subscribed, the symbol's current quote, trade and newest bar at once.
extension MarketDataStream {
    static func stockFanout(_ market: MarketView) -> Fanout<StockRound> {
        // Sixteen seconds of frames: a client further behind is dropped (407 slow client).
        Fanout(clock: market.clock, mailboxFrames: 16) { StockRound(market: market) }
    }

    struct StockRound: FanoutRound {
        let market: MarketView
        private var lastQuote: [String: MarketQuote] = [:]
        private var lastBar: [String: Timestamp] = [:]
        // This round's messages, encoded once: for the symbols that changed, and those someone has just subscribed to.
        private var statuses: [String: ByteBuffer] = [:]
        private var quotes: [String: ByteBuffer] = [:]
        private var trades: [String: ByteBuffer] = [:]
        private var bars: [String: ByteBuffer] = [:]
        private var changedQuotes: Set<String> = []
        private var changedTrades: Set<String> = []
        private var newBars: Set<String> = []

        init(market: MarketView) { self.market = market }

        mutating func prepare(_ interests: Set<Subscriptions>, fresh: Set<Subscriptions>, freshOnly: Bool) async {
            var freshQuotes = Set<String>(), freshTrades = Set<String>(), freshBars = Set<String>()
            var followed = Set<String>(), barred = Set<String>()
            for s in fresh {
                freshQuotes.formUnion(s.quotes)
                freshTrades.formUnion(s.trades)
                freshBars.formUnion(s.bars)
                if freshOnly { followed.formUnion(s.statuses) }
            }
            if freshOnly {
                followed.formUnion(freshQuotes.union(freshTrades))
                barred = freshBars
            } else {
                for s in interests {
                    followed.formUnion(s.quotes)
                    followed.formUnion(s.trades)
                    followed.formUnion(s.statuses)
                    barred.formUnion(s.bars)
                }
            }
            (statuses, quotes, trades, bars) = ([:], [:], [:], [:])
            (changedQuotes, changedTrades, newBars) = ([], [], [])

            let latest = followed.isEmpty ? [:] : await market.feed.latestQuotes(followed.sorted())
            var kept: [String: MarketQuote] = [:]
            for symbol in followed {
                let previous = lastQuote[symbol]
                // (A symbol the feed could not quote this round keeps its last quote.)
                guard let q = latest[symbol] else {
                    kept[symbol] = previous
                    continue
                }
                if freshOnly {
                    // What changed is the next full round's to tell; a symbol new to everyone starts from here.
                    if previous == nil { lastQuote[symbol] = q }
                } else {
                    kept[symbol] = q
                    if let previous, previous.halt != q.halt {
                        statuses[symbol] = MessagePack.encode(statusMessage(symbol, halt: q.halt, at: q.time))
                    }
                    if previous == nil || previous?.bids != q.bids || previous?.asks != q.asks {
                        changedQuotes.insert(symbol)
                    }
                    if previous == nil || previous?.last != q.last || previous?.volume != q.volume {
                        changedTrades.insert(symbol)
                    }
                }
                if changedQuotes.contains(symbol) || freshQuotes.contains(symbol) {
                    quotes[symbol] = MessagePack.encode(quoteMessage(symbol, q))
                }
                if changedTrades.contains(symbol) || freshTrades.contains(symbol) {
                    trades[symbol] = MessagePack.encode(tradeMessage(symbol, q))
                }
            }
            if !freshOnly { lastQuote = kept }

            let now = market.clock.now()
            var keptBars: [String: Timestamp] = [:]
            for symbol in barred.sorted() {
                let recent =
                    (try? await market.feed.bars(
                        symbol, timeframe: .minutes(1), from: now.adding(seconds: -120), to: now)) ?? []
                // The newest bar that has finished (its minute is over).
                guard let bar = recent.last(where: { $0.time.adding(seconds: 60) <= now }) else {
                    keptBars[symbol] = lastBar[symbol]
                    continue
                }
                if freshOnly {
                    if lastBar[symbol] == nil { lastBar[symbol] = bar.time }
                } else {
                    keptBars[symbol] = bar.time
                    if bar.time != lastBar[symbol] { newBars.insert(symbol) }
                }
                if newBars.contains(symbol) || freshBars.contains(symbol) {
                    bars[symbol] = MessagePack.encode(barMessage(symbol, bar))
                }
            }
            if !freshOnly { lastBar = keptBars }
        }

        func frames(_ s: Subscriptions, fresh: Subscriptions) -> [ByteBuffer] {
            var parts: [ByteBuffer] = []
            for symbol in s.quotes.union(s.trades).union(s.statuses).sorted() {
                if s.statuses.contains(symbol), let status = statuses[symbol] { parts.append(status) }
                if s.quotes.contains(symbol), changedQuotes.contains(symbol) || fresh.quotes.contains(symbol),
                    let quote = quotes[symbol]
                {
                    parts.append(quote)
                }
                if s.trades.contains(symbol), changedTrades.contains(symbol) || fresh.trades.contains(symbol),
                    let trade = trades[symbol]
                {
                    parts.append(trade)
                }
            }
            for symbol in s.bars.sorted() where newBars.contains(symbol) || fresh.bars.contains(symbol) {
                if let bar = bars[symbol] { parts.append(bar) }
            }
            return parts.isEmpty ? [] : [MessagePack.array(ofEncoded: parts)]
        }
    }
}

extension MarketDataStream.Subscriptions: FanoutInterest {
    static var nothing: Self { Self() }
    var isEmpty: Bool { symbols.isEmpty }

    func added(since before: Self) -> Self {
        var added = Self()
        for (_, path) in Self.all { added[keyPath: path] = self[keyPath: path].subtracting(before[keyPath: path]) }
        return added
    }

    /// Every channel, whichever stream.
    static var all: [(String, WritableKeyPath<Self, Set<String>>)] {
        [
            ("trades", \.trades), ("quotes", \.quotes), ("bars", \.bars), ("statuses", \.statuses),
            ("orderbooks", \.orderbooks), ("updatedBars", \.updatedBars), ("dailyBars", \.dailyBars),
        ]
    }
}
