import Brokerage
import Foundation
import HTTPTypes
import HummingbirdWebSocket
import JSON
import MarketData
import NIOCore
import Synchronization
import TradingCore

/// The web app's socket at /api/v1/ws (session cookie): live quotes for the symbols it subscribes to, order
/// updates of the user's accounts, and notifications as they happen. JSON text frames:
///
///     → {"type": "subscribe", "symbols": ["AAPL", "600519"]}     → {"type": "unsubscribe", "symbols": [...]}
///     ← {"type": "hello", "user": "…"}   ← {"type": "quote", "data": {…}}   ← {"type": "order", "data": {"event", "order"}}
///     ← {"type": "notification", "data": {…}}
enum AppSocket {
    static func user(from headers: HTTPFields, brokerage: Brokerage) async throws -> UserID? {
        guard let cookies = headers[.cookie] else { return nil }
        for part in cookies.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == SessionAuthenticator.cookie {
                return try await brokerage.users.sessionUser(tokenHash: Credentials.sha256(String(pair[1])))
            }
        }
        return nil
    }

    final class Symbols: Sendable {
        let state = Mutex(Set<String>())
    }

    static func handle(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, headers: HTTPFields,
        brokerage: Brokerage
    ) async throws {
        @Sendable func send(_ type: String, _ data: JSONValue) async throws {
            try await outbound.write(.text(JSONValue.object(["type": .string(type), "data": data]).serialized))
        }
        guard let user = try await user(from: headers, brokerage: brokerage) else {
            try await send("error", .object(["message": .string("not logged in")]))
            return
        }
        try await send("hello", .object(["user": .string(user.text)]))
        let accounts = Set(try await brokerage.loadAccounts(of: user).map(\.id))
        let orders = brokerage.orderUpdates(account: nil)
        let notifications = brokerage.notifications.live(user: user)
        let symbols = Symbols()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await update in orders where accounts.contains(update.order.accountID) {
                    try await send(
                        "order",
                        .object([
                            "event": .string(update.event.rawValue),
                            "account_id": .string(update.order.accountID.description),
                            "order": NativeEncoding.order(update.order),
                        ]))
                }
            }
            group.addTask {
                for await n in notifications { try await send("notification", NotificationsController.encode(n)) }
            }
            group.addTask {
                var last: [String: MarketQuote] = [:]
                var next = brokerage.clock.now()
                while !Task.isCancelled {
                    for symbol in symbols.state.withLock({ $0 }).sorted() {
                        guard let q = try? await brokerage.feed.quote(symbol), last[symbol] != q else { continue }
                        last[symbol] = q
                        try await send("quote", NativeEncoding.quote(q, entry: brokerage.directory.entry(symbol)))
                    }
                    next = next.adding(seconds: 1)
                    await brokerage.clock.sleep(until: next)
                }
            }
            var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
            while let message = try await messages.next() {
                guard case .text(let text) = message, let request = try? JSONValue(parsing: text),
                    let type = request["type"]?.string, type == "subscribe" || type == "unsubscribe"
                else {
                    try await send(
                        "error",
                        .object([
                            "message": .string("expected {\"type\": \"subscribe\"|\"unsubscribe\", \"symbols\": [...]}")
                        ]))
                    continue
                }
                let requested = (request["symbols"]?.array ?? []).compactMap(\.string).map { $0.uppercased() }
                    .filter { brokerage.directory.entry($0) != nil }.prefix(50)
                symbols.state.withLock { s in
                    if type == "subscribe" { s.formUnion(requested) } else { s.subtract(requested) }
                    if s.count > 100 { s = Set(s.sorted().prefix(100)) }
                }
                try await send(
                    "subscribed",
                    .object(["symbols": .array(symbols.state.withLock { $0 }.sorted().map(JSONValue.string))]))
            }
            group.cancelAll()
        }
    }
}
