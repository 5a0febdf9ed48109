import Brokerage
import Foundation
import HTTPTypes
import HummingbirdWebSocket
import JSON
import MarketData
import NIOCore
import Synchronization
import TradingCore

/// Alpaca's market-data streams: stocks at ws://HOST/v2/iex (and /v2/sip) — trades, quotes and minute bars —,
/// options at ws://HOST/v1beta1/indicative (and /opra) — trades and quotes of OCC symbols, MessagePack only, as
/// Alpaca's option stream — and crypto at ws://HOST/v1beta3/crypto/us (`MarketDataStream+Crypto.swift`). MessagePack both ways; connect, auth, subscribe; then the subscribed symbols' updates
/// as the feed moves.
enum MarketDataStream {
    /// Which stream a connection is: stocks, or option contracts.
    enum Kind: Sendable {
        case stocks
        case options
        /// Crypto pairs (`MarketDataStream+Crypto.swift`).
        case crypto
    }

    /// The most symbols one API key's connections follow together, over every channel (Alpaca's 405 past it; Alpaca
    /// counts a connection, and lets a key hold one). Each costs the pump a quote a second and the market a day of
    /// prices: a connection subscribed to 10,000 made the server compute a day for each, and five connections of one
    /// key at 1,000 apiece asked for more days than the day cache holds, so it recomputed them every second.
    static let maximumSymbols = 1_000

    struct Subscriptions: Hashable, Sendable {
        var trades: Set<String> = []
        var quotes: Set<String> = []
        var bars: Set<String> = []
        /// Trading statuses: a halt and the resumption (US trading pauses and news halts).
        var statuses: Set<String> = []
        /// Crypto's channels: order books, bars corrected by late trades, and the day's bar.
        var orderbooks: Set<String> = []
        var updatedBars: Set<String> = []
        var dailyBars: Set<String> = []

        /// The symbols the connection follows on any channel.
        var symbols: Set<String> {
            trades.union(quotes).union(bars).union(statuses).union(orderbooks).union(updatedBars).union(dailyBars)
        }

        /// The channels a stream of `kind` takes subscriptions for.
        static func channels(_ kind: Kind) -> [(String, WritableKeyPath<Subscriptions, Set<String>>)] {
            switch kind {
            case .options: [("trades", \.trades), ("quotes", \.quotes)]
            case .stocks: [("trades", \.trades), ("quotes", \.quotes), ("bars", \.bars), ("statuses", \.statuses)]
            case .crypto:
                [
                    ("trades", \.trades), ("quotes", \.quotes), ("orderbooks", \.orderbooks), ("bars", \.bars),
                    ("updatedBars", \.updatedBars), ("dailyBars", \.dailyBars),
                ]
            }
        }

        func message(_ kind: Kind) -> MessagePack.Value {
            func list(_ s: Set<String>) -> MessagePack.Value { .array(s.sorted().map(MessagePack.Value.string)) }
            if kind != .stocks {
                return .array([
                    .map(
                        [("T", .string("subscription"))]
                            + Self.channels(kind).map { ($0.0, list(self[keyPath: $0.1])) })
                ])
            }
            return .array([
                .map([
                    ("T", .string("subscription")), ("trades", list(trades)), ("quotes", list(quotes)),
                    ("bars", list(bars)), ("updatedBars", .array([])), ("dailyBars", .array([])),
                    ("statuses", list(statuses)), ("lulds", .array([])), ("corrections", .array([])),
                    ("cancelErrors", .array([])),
                ])
            ])
        }
    }

    /// How many market-data connections one API key may hold at once (Alpaca's 406 past it). Alpaca allows one; a
    /// few more let a client that reconnects be let in before the server has seen its old connection go.
    static let connectionsPerKey = 5

    /// The market-data connections open now, by API key, with the symbols each follows.
    final class Connections: Sendable {
        private let open = Mutex<[String: [Int: Set<String>]]>([:])
        private let numbers = Mutex(0)

        /// Counts a connection of `key` in and returns its number; nil (and nothing counted) when the key holds its
        /// limit already.
        func enter(_ key: String) -> Int? {
            let number = numbers.withLock { n in
                n += 1
                return n
            }
            return open.withLock { open in
                guard open[key, default: [:]].count < MarketDataStream.connectionsPerKey else { return nil }
                open[key, default: [:]][number] = []
                return number
            }
        }

        /// Records that connection `number` of `key` now follows `symbols`; false (and nothing changed) when the
        /// key's connections would then follow more than `maximumSymbols` together.
        func follow(_ key: String, connection number: Int, _ symbols: Set<String>) -> Bool {
            open.withLock { open in
                var all = symbols
                for (other, followed) in open[key, default: [:]] where other != number { all.formUnion(followed) }
                guard all.count <= MarketDataStream.maximumSymbols else { return false }
                open[key, default: [:]][number] = symbols
                return true
            }
        }

        func leave(_ key: String, connection number: Int) {
            open.withLock { open in
                open[key]?[number] = nil
                if open[key]?.isEmpty == true { open[key] = nil }
            }
        }
    }

    static func handle(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, market: MarketView,
        access: UserAccess, connections: Connections, stocks: Fanout<StockRound>, kind: Kind = .stocks,
        headers: HTTPFields = [:]
    )
        async throws
    {
        @Sendable func send(_ value: MessagePack.Value) async throws {
            try await outbound.write(.binary(MessagePack.encode(value)))
        }
        @Sendable func control(_ type: String, _ fields: [(String, MessagePack.Value)]) -> MessagePack.Value {
            .array([.map([("T", .string(type))] + fields)])
        }
        func decode(_ message: WebSocketMessage) -> MessagePack.Value? {
            switch message {
            case .binary(let b): return try? MessagePack.decode(b)
            case .text(let s): return (try? JSONValue(parsing: s)).map(fromJSON)
            }
        }

        // Alpaca's option stream speaks MessagePack only, and says so to a client that did not ask for it.
        if kind == .options, headers[.contentType]?.lowercased().contains("msgpack") != true {
            try await outbound.write(
                .text(#"[{"T":"error","code":412,"msg":"option messages are only available in MsgPack format"}]"#))
            return
        }
        try await send(control("success", [("msg", .string("connected"))]))
        var messages = inbound.messages(maxSize: ConnectionLimits.webSocketMessageBytes).makeAsyncIterator()
        guard let first = try await messages.next(), let auth = decode(first), auth["action"]?.string == "auth",
            let key = auth["key"]?.string, let secret = auth["secret"]?.string,
            try await access.authenticate(keyID: key, secret: secret, loading: false) != nil
        else {
            try await send(control("error", [("code", .int(402)), ("msg", .string("auth failed"))]))
            return
        }
        guard let connection = connections.enter(key) else {
            try await send(control("error", [("code", .int(406)), ("msg", .string("connection limit exceeded"))]))
            return
        }
        defer { connections.leave(key, connection: connection) }
        try await send(control("success", [("msg", .string("authenticated"))]))

        let subscriptions = SubscriptionBox()
        // One round a second serves every stock connection (`MarketDataStream+Fanout.swift`).
        let listener = kind == .stocks ? stocks.join { subscriptions.state.withLock { $0 } } : nil
        defer { if let listener { stocks.leave(listener) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                switch kind {
                case .stocks:
                    guard let listener else { return }
                    for await frame in listener.frames { try await outbound.write(.binary(frame)) }
                    guard !Task.isCancelled else { return }
                    // The frames ended without the connection leaving: it fell too far behind the market.
                    try await send(control("error", [("code", .int(407)), ("msg", .string("slow client"))]))
                    try await outbound.close(.policyViolation, reason: "slow client")
                case .options: try await optionPump(subscriptions: subscriptions, market: market, send: send)
                case .crypto: try await cryptoPump(subscriptions: subscriptions, market: market, send: send)
                }
            }
            // A revoked key's stream ends with Alpaca's authentication error.
            group.addTask {
                try await access.watch.closeSocket(outbound, when: .apiKey(key)) {
                    try await send(control("error", [("code", .int(402)), ("msg", .string("auth failed"))]))
                }
            }
            // This task reads the client's subscribe/unsubscribe requests until it leaves.
            while let message = try await messages.next() {
                guard let request = decode(message), let action = request["action"]?.string else {
                    try await send(control("error", [("code", .int(400)), ("msg", .string("invalid syntax"))]))
                    continue
                }
                guard action == "subscribe" || action == "unsubscribe" else {
                    try await send(control("error", [("code", .int(401)), ("msg", .string("invalid action"))]))
                    continue
                }
                if kind == .options, let refusal = optionRefusal(request) {
                    try await send(control("error", refusal))
                    continue
                }
                if kind == .crypto, let refusal = cryptoRefusal(request, market: market) {
                    try await send(control("error", refusal))
                    continue
                }
                let channels = Subscriptions.channels(kind)
                let current = subscriptions.state.withLock { s -> Subscriptions? in
                    var next = s
                    for (field, path) in channels {
                        let symbols = Set((request[field]?.strings ?? []).map { $0.uppercased() })
                        if action == "subscribe" {
                            next[keyPath: path].formUnion(symbols)
                        } else {
                            next[keyPath: path].subtract(symbols)
                        }
                    }
                    guard connections.follow(key, connection: connection, next.symbols) else { return nil }
                    s = next
                    return s
                }
                guard let current else {
                    // Alpaca's 405: the subscription stays as it was.
                    try await send(control("error", [("code", .int(405)), ("msg", .string("symbol limit exceeded"))]))
                    continue
                }
                if let listener { stocks.subscribed(listener) }
                try await send(current.message(kind))
            }
            group.cancelAll()
        }
    }

    final class SubscriptionBox: Sendable {
        let state = Mutex(Subscriptions())
    }

    static func quoteMessage(_ symbol: String, _ q: MarketQuote) -> MessagePack.Value {
        let bidSize = Int64(q.bids.best?.size.integerPart ?? 0)
        let askSize = Int64(q.asks.best?.size.integerPart ?? 0)
        let fields: [(String, MessagePack.Value)] = [
            ("T", .string("q")), ("S", .string(symbol)), ("bx", .string("V")),
            ("bp", .price(q.bids.best?.price ?? .zero)),
            ("bs", .int(bidSize)), ("ax", .string("V")), ("ap", .price(q.asks.best?.price ?? .zero)),
            ("as", .int(askSize)),
            ("t", .timestamp(q.time)), ("c", .array([.string(q.halt == nil ? "R" : "Z")])), ("z", .string("C")),
        ]
        return .map(fields)
    }

    static func tradeMessage(_ symbol: String, _ q: MarketQuote) -> MessagePack.Value {
        let fields: [(String, MessagePack.Value)] = [
            ("T", .string("t")), ("S", .string(symbol)), ("i", .int(q.time.nanoseconds % 1_000_000_000)),
            ("x", .string("V")),
            ("p", .price(q.last)), ("s", .int(100)), ("t", .timestamp(q.time)), ("c", .array([.string("@")])),
            ("z", .string("C")),
        ]
        return .map(fields)
    }

    /// A trading status (Alpaca's `s` message, UTP's codes): a halt (H, with the reason: T1 news pending, LUDP a
    /// volatility trading pause) when `halt` is set, the trading resumption (T) otherwise.
    static func statusMessage(_ symbol: String, halt: TradingHalt?, at time: Timestamp) -> MessagePack.Value {
        let fields: [(String, MessagePack.Value)]
        if let halt {
            let reason = halt.reason == .newsPending ? "News Pending" : "Volatility Trading Pause"
            fields = [
                ("sc", .string("H")), ("sm", .string("Trading Halt")), ("rc", .string(halt.reason.code)),
                ("rm", .string(reason)), ("t", .timestamp(halt.start)),
            ]
        } else {
            fields = [
                ("sc", .string("T")), ("sm", .string("Trading Resumption")), ("rc", .string("")),
                ("rm", .string("")), ("t", .timestamp(time)),
            ]
        }
        return .map([("T", .string("s")), ("S", .string(symbol))] + fields + [("z", .string("C"))])
    }

    static func barMessage(_ symbol: String, _ bar: PriceBar) -> MessagePack.Value {
        let fields: [(String, MessagePack.Value)] = [
            ("T", .string("b")), ("S", .string(symbol)), ("o", .price(bar.open)), ("h", .price(bar.high)),
            ("l", .price(bar.low)),
            ("c", .price(bar.close)), ("v", .int(Int64(bar.volume.integerPart ?? 0))), ("t", .timestamp(bar.time)),
            ("n", .int(Int64(bar.tradeCount))), ("vw", .price(bar.vwap)),
        ]
        return .map(fields)
    }

    /// Why an option subscription is refused: `*` (Alpaca refuses it for quotes; papertrade for trades too — its
    /// chains list millions of contracts, so a star would stream nothing useful) or a symbol that is not an OCC one.
    static func optionRefusal(_ request: MessagePack.Value) -> [(String, MessagePack.Value)]? {
        for field in ["trades", "quotes"] {
            let symbols = request[field]?.strings ?? []
            if symbols.contains("*") {
                return [("code", .int(413)), ("msg", .string("star subscription is not allowed for option \(field)"))]
            }
            if let bad = symbols.first(where: { OptionContract(occSymbol: $0) == nil }) {
                return [("code", .int(400)), ("msg", .string("invalid option symbol \(bad)"))]
            }
        }
        return nil
    }

    static func optionQuoteMessage(_ s: OptionSnapshot) -> MessagePack.Value {
        .map([
            ("T", .string("q")), ("S", .string(s.contract.occSymbol)), ("t", .timestamp(s.time)), ("bx", .string("C")),
            ("bp", .price(s.bid)), ("bs", .int(Int64(s.bidSize))), ("ax", .string("C")), ("ap", .price(s.ask)),
            ("as", .int(Int64(s.askSize))), ("c", .string("A")),
        ])
    }

    static func optionTradeMessage(_ s: OptionSnapshot, price: Price, time: Timestamp) -> MessagePack.Value {
        .map([
            ("T", .string("t")), ("S", .string(s.contract.occSymbol)), ("t", .timestamp(time)), ("p", .price(price)),
            ("s", .int(Int64(max(1, min(s.volume, 10))))), ("x", .string("C")), ("c", .string("I")),
        ])
    }

    /// Once a second: each subscribed contract's quote when it changed, and a trade when its last print did.
    static func optionPump(
        subscriptions: SubscriptionBox, market: MarketView,
        send: @Sendable (MessagePack.Value) async throws -> Void
    ) async throws {
        var lastQuote: [String: (bid: Price, ask: Price, bidSize: Int, askSize: Int)] = [:]
        var lastTrade: [String: Timestamp] = [:]
        var next = market.clock.now()
        while !Task.isCancelled {
            let s = subscriptions.state.withLock { $0 }
            var batch: [MessagePack.Value] = []
            for symbol in s.quotes.union(s.trades).sorted() {
                guard let snapshot = try? await market.options.snapshot(symbol) else { continue }
                let quote = (snapshot.bid, snapshot.ask, snapshot.bidSize, snapshot.askSize)
                if s.quotes.contains(symbol), lastQuote[symbol].map({ $0 != quote }) ?? true {
                    batch.append(optionQuoteMessage(snapshot))
                }
                lastQuote[symbol] = quote
                if s.trades.contains(symbol), let price = snapshot.last, let time = snapshot.lastTime,
                    snapshot.volume > 0, lastTrade[symbol] != time
                {
                    if lastTrade[symbol] != nil { batch.append(optionTradeMessage(snapshot, price: price, time: time)) }
                    lastTrade[symbol] = time
                }
            }
            if !batch.isEmpty { try await send(.array(batch)) }
            // A round that ran past its second (a busy machine) is not made up for with rounds back to back.
            next = max(next.adding(seconds: 1), market.clock.now())
            await market.clock.sleep(until: next)
        }
    }

    /// Text frames (some clients send JSON) are read as the same requests.
    static func fromJSON(_ value: JSONValue) -> MessagePack.Value {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return Int64(n).map(MessagePack.Value.int) ?? .double(Double(n) ?? 0)
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(fromJSON))
        case .object(let o): return .map(o.map { ($0.key, fromJSON($0.value)) })
        }
    }
}
