import Brokerage
import Foundation
import HummingbirdWebSocket
import JSON
import MarketData
import NIOCore
import Synchronization
import TradingCore

/// Alpaca's market-data stream at ws://HOST/v2/iex (and /v2/sip): MessagePack both ways; connect, auth,
/// subscribe; then trades, quotes and minute bars for the subscribed symbols as the feed moves.
enum MarketDataStream {
    struct Subscriptions: Sendable {
        var trades: Set<String> = []
        var quotes: Set<String> = []
        var bars: Set<String> = []

        var message: MessagePack.Value {
            func list(_ s: Set<String>) -> MessagePack.Value { .array(s.sorted().map(MessagePack.Value.string)) }
            return .array([
                .map([
                    ("T", .string("subscription")), ("trades", list(trades)), ("quotes", list(quotes)),
                    ("bars", list(bars)), ("updatedBars", .array([])), ("dailyBars", .array([])),
                    ("statuses", .array([])), ("lulds", .array([])), ("corrections", .array([])),
                    ("cancelErrors", .array([])),
                ])
            ])
        }
    }

    static func handle(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, brokerage: Brokerage, access: UserAccess
    )
        async throws
    {
        @Sendable func send(_ value: MessagePack.Value) async throws {
            try await outbound.write(.binary(MessagePack.encode(value)))
        }
        func control(_ type: String, _ fields: [(String, MessagePack.Value)]) -> MessagePack.Value {
            .array([.map([("T", .string(type))] + fields)])
        }
        func decode(_ message: WebSocketMessage) -> MessagePack.Value? {
            switch message {
            case .binary(let b): return try? MessagePack.decode(b)
            case .text(let s): return (try? JSONValue(parsing: s)).map(fromJSON)
            }
        }

        try await send(control("success", [("msg", .string("connected"))]))
        var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
        guard let first = try await messages.next(), let auth = decode(first), auth["action"]?.string == "auth",
            let key = auth["key"]?.string, let secret = auth["secret"]?.string,
            try await access.authenticate(keyID: key, secret: secret) != nil
        else {
            try await send(control("error", [("code", .int(402)), ("msg", .string("auth failed"))]))
            return
        }
        try await send(control("success", [("msg", .string("authenticated"))]))

        let subscriptions = SubscriptionBox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await pump(subscriptions: subscriptions, brokerage: brokerage, send: send)
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
                let current = subscriptions.state.withLock { s -> Subscriptions in
                    for (field, path) in [
                        ("trades", \Subscriptions.trades), ("quotes", \Subscriptions.quotes),
                        ("bars", \Subscriptions.bars),
                    ] {
                        let symbols = Set((request[field]?.strings ?? []).map { $0.uppercased() })
                        if action == "subscribe" {
                            s[keyPath: path].formUnion(symbols)
                        } else {
                            s[keyPath: path].subtract(symbols)
                        }
                    }
                    return s
                }
                try await send(current.message)
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
            ("t", .timestamp(q.time)), ("c", .array([.string("R")])), ("z", .string("C")),
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

    static func barMessage(_ symbol: String, _ bar: PriceBar) -> MessagePack.Value {
        let fields: [(String, MessagePack.Value)] = [
            ("T", .string("b")), ("S", .string(symbol)), ("o", .price(bar.open)), ("h", .price(bar.high)),
            ("l", .price(bar.low)),
            ("c", .price(bar.close)), ("v", .int(Int64(bar.volume.integerPart ?? 0))), ("t", .timestamp(bar.time)),
            ("n", .int(Int64(bar.tradeCount))), ("vw", .price(bar.vwap)),
        ]
        return .map(fields)
    }

    static func pump(
        subscriptions: SubscriptionBox, brokerage: Brokerage,
        send: @Sendable (MessagePack.Value) async throws -> Void
    ) async throws {
        var lastQuote: [String: MarketQuote] = [:]
        var lastBar: [String: Timestamp] = [:]
        var next = brokerage.clock.now()
        while !Task.isCancelled {
            let s = subscriptions.state.withLock { $0 }
            var batch: [MessagePack.Value] = []
            for symbol in s.quotes.union(s.trades).sorted() {
                guard let q = try? await brokerage.feed.quote(symbol) else { continue }
                let previous = lastQuote[symbol]
                lastQuote[symbol] = q
                if s.quotes.contains(symbol), previous == nil || previous?.bids != q.bids || previous?.asks != q.asks {
                    batch.append(quoteMessage(symbol, q))
                }
                if s.trades.contains(symbol),
                    previous == nil || previous?.last != q.last || previous?.volume != q.volume
                {
                    batch.append(tradeMessage(symbol, q))
                }
            }
            let now = brokerage.clock.now()
            for symbol in s.bars.sorted() {
                let bars =
                    (try? await brokerage.feed.bars(
                        symbol, timeframe: .minutes(1), from: now.adding(seconds: -120), to: now)) ?? []
                // The newest bar that has finished (its minute is over).
                guard let bar = bars.last(where: { $0.time.adding(seconds: 60) <= now }), bar.time != lastBar[symbol]
                else { continue }
                lastBar[symbol] = bar.time
                batch.append(barMessage(symbol, bar))
            }
            if !batch.isEmpty { try await send(.array(batch)) }
            next = next.adding(seconds: 1)
            await brokerage.clock.sleep(until: next)
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
