import Brokerage
import Foundation
import HTTPTypes
import HummingbirdWebSocket
import JSON
import MarketData
import NIOCore
import NIOWebSocket
import Synchronization
import TradingCore

/// The web app's socket at /api/v1/ws (session cookie): live quotes for the symbols it subscribes to, order
/// updates of the user's accounts, and notifications as they happen. JSON text frames:
///
///     → {"type": "subscribe", "symbols": ["AAPL", "600519"]}     → {"type": "unsubscribe", "symbols": [...]}
///     ← {"type": "hello", "user": "…"}   ← {"type": "quote", "data": {…}}   ← {"type": "order", "data": {"event", "order"}}
///     ← {"type": "notification", "data": {…}}
///
/// A subscribe with `"batch": true` (the web app's) has each second's quotes come in one frame from then on,
/// `{"type": "quotes", "data": [{…}, …]}`: one write a second instead of one per symbol (`AppQuoteRound`). A client
/// that reads too slowly is told so (`{"type": "error"}`) and closed; so is one whose session ends (logged out, expired:
/// `"reason": "signed_out"`).
enum AppSocket {
    /// The user of the session cookie, and the session (by its token's hash).
    static func session(from headers: HTTPFields, users: UserDirectory) async throws -> (UserID, tokenHash: String)? {
        guard let cookies = headers[.cookie] else { return nil }
        for part in cookies.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == SessionAuthenticator.cookie {
                let hash = Credentials.sha256(String(pair[1]))
                return try await users.sessionUser(tokenHash: hash).map { ($0, hash) }
            }
        }
        return nil
    }

    /// What the socket says before closing when there is no session, or no longer one (logged out in another tab,
    /// expired): the app shows its login screen instead of reconnecting.
    static let signedOut = JSONValue.object(["message": .string("not logged in"), "reason": .string("signed_out")])

    static func handle(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, headers: HTTPFields,
        sources: AppEvents.Sources, access: UserAccess
    ) async throws {
        @Sendable func send(_ type: String, _ data: JSONValue) async throws {
            try await outbound.write(.text(JSONValue.object(["type": .string(type), "data": data]).serialized))
        }
        guard let (user, session) = try await session(from: headers, users: access.users),
            let audience = try await AppEvents.Audience.resolve(
                .user(id: user, sessionToken: ""), accountService: sources.accountService)
        else {
            try await send("error", signedOut)
            return
        }
        try await send("hello", .object(["user": .string(user.text)]))
        let symbols = AppEvents.Symbols(form: .socket)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await AppEvents.run(audience, symbols: symbols, sources: sources, send: send) { quote in
                        try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: quote)))
                    }
                } catch is AppEvents.Lagging {
                    try await send("error", .object(["message": .string("too slow: quotes are waiting to be read")]))
                    try await outbound.close(.policyViolation, reason: "slow client")
                }
            }
            // Logged out (here or on another device), or the session expired: the socket ends.
            group.addTask {
                try await access.watch.closeSocket(outbound, when: .session(tokenHash: session)) {
                    try await send("error", signedOut)
                }
            }
            var messages = inbound.messages(maxSize: ConnectionLimits.webSocketMessageBytes).makeAsyncIterator()
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
                symbols.change(
                    (request["symbols"]?.array ?? []).compactMap(\.string), subscribe: type == "subscribe",
                    directory: sources.market.directory, batched: request["batch"]?.bool == true)
                try await send("subscribed", .object(["symbols": .array(symbols.current.map(JSONValue.string))]))
            }
            group.cancelAll()
        }
    }
}
