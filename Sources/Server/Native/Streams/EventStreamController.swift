import Brokerage
import Hummingbird
import JSON
import NIOCore
import ServiceLifecycle

/// `GET /api/v1/events?symbols=AAPL,600519`: the app's live events as a server-sent event stream (text/event-stream),
/// for clients without WebSockets — PapertradeKit reads it on every platform (Linux Foundation's URLSession has no
/// WebSocket), and the CLI's `watch` through it. A session sees its user's accounts, an API key its own account.
///
///     event: quote            data: {…native quote…}
///     event: order            data: {"event": "fill", "account_id": "…", "order": {…}}
///     event: notification     data: {…}
///
/// A comment line (": keep-alive") every 5 seconds keeps proxies from closing a quiet stream and tells the server
/// when the client has gone.
struct EventStreamController {
    let sources: AppEvents.Sources
    /// Ends a stream whose key is revoked or whose session is closed or expired.
    let watch: CredentialWatch

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("events", use: events)
    }

    @Sendable func events(_ request: Request, context: AppContext) async throws -> Response {
        guard let caller = context.caller,
            let audience = try await AppEvents.Audience.resolve(caller, accountService: sources.accountService)
        else { throw APIError.unauthorized }
        let requested = (request.query("symbols") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        if let unknown = requested.first(where: { sources.market.directory.entry($0.uppercased()) == nil }) {
            throw APIError.notFound("unknown symbol \(unknown)")
        }
        let symbols = AppEvents.Symbols(form: .events)
        symbols.change(requested, subscribe: true, directory: sources.market.directory)
        let (watch, credential) = (watch, context.credential)
        let body = ResponseBody { writer in
            let (chunks, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
            let producer = Task { [sources] in
                try? await AppEvents.run(audience, symbols: symbols, sources: sources) { type, data in
                    continuation.yield(ByteBuffer(string: "event: \(type)\ndata: \(data.serialized)\n\n"))
                } sendQuote: { quote in
                    continuation.yield(quote)
                }
                continuation.finish()
            }
            let keepAlive = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    continuation.yield(ByteBuffer(string: ": keep-alive\n\n"))
                }
            }
            // A revoked key's or closed session's stream ends, saying why (the client's next request gets a 401).
            let revoked = Task {
                guard let credential else { return }
                await watch.ended(credential)
                guard !Task.isCancelled else { return }
                let words = JSONValue.object(["message": .string("credentials no longer valid: sign in again")])
                continuation.yield(ByteBuffer(string: "event: error\ndata: \(words.serialized)\n\n"))
                continuation.finish()
            }
            defer {
                producer.cancel()
                keepAlive.cancel()
                revoked.cancel()
            }
            continuation.yield(ByteBuffer(string: ": papertrade events\n\n"))
            // A server shutting down ends the stream at once (the client reconnects to another node or later)
            // instead of holding the shutdown until the next keep-alive finds the connection gone.
            try await withGracefulShutdownHandler {
                for await chunk in chunks { try await writer.write(chunk) }
            } onGracefulShutdown: {
                continuation.finish()
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }
}
