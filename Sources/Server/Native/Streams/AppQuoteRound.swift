import Brokerage
import JSON
import MarketData
import NIOCore
import TradingCore

/// What an app listener follows, and how its quotes go out. A round's quotes are encoded once; listeners that follow
/// the same symbols the same way share the bytes.
struct AppQuoteInterest: FanoutInterest {
    enum Form: Hashable, Sendable {
        /// The socket, a text frame per quote: `{"type": "quote", "data": {…}}`.
        case socket
        /// The socket, a round's quotes in one text frame: `{"type": "quotes", "data": [{…}, …]}` (the web app asks
        /// for it: a frame per quote was a write and a packet each — at 10,000 listeners of ten symbols, most of the
        /// server's time).
        case socketBatched
        /// The event stream: a round's `event: quote` chunks in one write.
        case events
    }

    var symbols: Set<String>
    var form: Form

    static var nothing: Self { Self(symbols: [], form: .events) }
    var isEmpty: Bool { symbols.isEmpty }

    func added(since before: Self) -> Self {
        Self(symbols: before.form == form ? symbols.subtracting(before.symbols) : symbols, form: form)
    }
}

/// The app's quotes for a second, made once for every socket and event stream (`Fanout`): one read of the market
/// for every symbol anyone follows, each quote encoded once; a listener gets its symbols' quotes in symbol order —
/// those that changed since the last round, and every one it has just subscribed to.
struct AppQuoteRound: FanoutRound {
    let market: MarketView
    private var last: [String: MarketQuote] = [:]
    /// This round's quotes as JSON, for the symbols that changed and those someone has just subscribed to.
    private var data: [String: [UInt8]] = [:]
    private var changed: Set<String> = []

    init(market: MarketView) { self.market = market }

    mutating func prepare(_ interests: Set<AppQuoteInterest>, fresh: Set<AppQuoteInterest>, freshOnly: Bool) async {
        let new = fresh.reduce(into: Set<String>()) { $0.formUnion($1.symbols) }
        let followed = freshOnly ? new : interests.reduce(into: Set<String>()) { $0.formUnion($1.symbols) }
        let latest = followed.isEmpty ? [:] : await market.feed.latestQuotes(followed.sorted())
        data = [:]
        changed = []
        for (symbol, q) in latest {
            if !freshOnly && last[symbol] != q { changed.insert(symbol) }
            guard changed.contains(symbol) || new.contains(symbol) else { continue }
            data[symbol] = NativeEncoding.quote(q, entry: market.directory.entry(symbol)).serializedBytes
        }
        if freshOnly {
            // What changed is the next full round's to tell; a symbol new to everyone starts from here.
            for (symbol, q) in latest where last[symbol] == nil { last[symbol] = q }
        } else {
            // (A symbol the feed could not quote this round keeps its last quote.)
            last = latest.merging(last.filter { followed.contains($0.key) }) { now, _ in now }
        }
    }

    func frames(_ interest: AppQuoteInterest, fresh: AppQuoteInterest) -> [ByteBuffer] {
        let quotes = interest.symbols.sorted().compactMap {
            changed.contains($0) || fresh.symbols.contains($0) ? data[$0] : nil
        }
        guard !quotes.isEmpty else { return [] }
        // (Keys in order, as every JSON object is written.)
        switch interest.form {
        case .socket:
            return quotes.map { quote in
                var frame = ByteBuffer(string: #"{"data":"#)
                frame.writeBytes(quote)
                frame.writeString(#","type":"quote"}"#)
                return frame
            }
        case .socketBatched:
            var frame = ByteBuffer(string: #"{"data":["#)
            for (i, quote) in quotes.enumerated() {
                if i > 0 { frame.writeString(",") }
                frame.writeBytes(quote)
            }
            frame.writeString(#"],"type":"quotes"}"#)
            return [frame]
        case .events:
            var chunk = ByteBuffer()
            for quote in quotes {
                chunk.writeString("event: quote\ndata: ")
                chunk.writeBytes(quote)
                chunk.writeString("\n\n")
            }
            return [chunk]
        }
    }
}
