import Brokerage
import JSON
import MarketData
import NIOCore
import TradingCore

/// A quote as the app's channels send it, encoded once a round for every listener following the symbol: the
/// socket's text frame (`{"type": "quote", "data": {…}}`) and the event stream's chunk (`event: quote`).
struct AppQuoteMessage: Sendable {
    let socket: ByteBuffer
    let event: ByteBuffer
}

/// The app's quotes for a second, made once for every socket and event stream (`Fanout`): one read of the market
/// for every symbol anyone follows, each quote encoded once; a listener gets its symbols' quotes in symbol order —
/// those that changed since the last round, and every one it has just subscribed to.
struct AppQuoteRound: FanoutRound {
    let market: MarketView
    private var last: [String: MarketQuote] = [:]
    private var messages: [String: AppQuoteMessage] = [:]
    private var changed: Set<String> = []

    init(market: MarketView) { self.market = market }

    mutating func prepare(_ interests: Set<Set<String>>, fresh: Set<Set<String>>, freshOnly: Bool) async {
        let new = fresh.reduce(into: Set<String>()) { $0.formUnion($1) }
        let followed = freshOnly ? new : interests.reduce(into: Set<String>()) { $0.formUnion($1) }
        let latest = followed.isEmpty ? [:] : await market.feed.latestQuotes(followed.sorted())
        messages = [:]
        changed = []
        for (symbol, q) in latest {
            if !freshOnly && last[symbol] != q { changed.insert(symbol) }
            guard changed.contains(symbol) || new.contains(symbol) else { continue }
            // (Keys in order, as every JSON object is written.)
            let data = NativeEncoding.quote(q, entry: market.directory.entry(symbol)).serializedBytes
            var socket = ByteBuffer(string: #"{"data":"#)
            socket.writeBytes(data)
            socket.writeString(#","type":"quote"}"#)
            var event = ByteBuffer(string: "event: quote\ndata: ")
            event.writeBytes(data)
            event.writeString("\n\n")
            messages[symbol] = AppQuoteMessage(socket: socket, event: event)
        }
        if freshOnly {
            // What changed is the next full round's to tell; a symbol new to everyone starts from here.
            for (symbol, q) in latest where last[symbol] == nil { last[symbol] = q }
        } else {
            // (A symbol the feed could not quote this round keeps its last quote.)
            last = latest.merging(last.filter { followed.contains($0.key) }) { now, _ in now }
        }
    }

    func frames(_ symbols: Set<String>, fresh: Set<String>) -> [AppQuoteMessage] {
        symbols.sorted().compactMap { changed.contains($0) || fresh.contains($0) ? messages[$0] : nil }
    }
}

extension Set: FanoutInterest where Element == String {
    static var nothing: Set<String> { [] }
    func added(since before: Set<String>) -> Set<String> { subtracting(before) }
}
