import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PapertradeKit
import PapertradeMCP
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The MCP server over Streamable HTTP, for AI agents: `POST /mcp` (every tool) and `POST /mcp/read-only` (only the
/// reading tools), authenticated with an account's API key — Alpaca's two headers, or `Authorization: Bearer
/// KEY_ID:SECRET` for clients that only send bearer tokens.
///
/// The tools (`PapertradeMCP`, shared with `papertrade mcp` on stdio) are a client of this server's own HTTP API:
/// each call comes back in through the address the agent reached, with the agent's key, so the key's account, the
/// Alpaca rate limit and a game's rules apply exactly as to any other client, and in a cluster a call for an account
/// another node owns is forwarded as usual. Stateless (no MCP session): any node answers any request.
///
/// A browser page may not drive it: a request with an `Origin` other than this server's own is refused (403), as the
/// MCP transport requires against DNS rebinding; agents send no Origin.
struct MCPController {
    let access: UserAccess

    /// One connection pool for every tool call coming back in.
    static let loopback: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 300 // run_backtest waits for its job
        return URLSession(configuration: configuration)
    }()

    func addRoutes(to router: Router<AppContext>) {
        for (path, readOnly) in [("mcp", false), ("mcp/read-only", true)] {
            router.post(RouterPath(path)) { request, context in
                try await handle(request, context: context, readOnly: readOnly)
            }
            // No sessions, so no server-to-client stream (GET) and nothing to end (DELETE).
            for method in [HTTPRequest.Method.get, .delete] {
                router.on(RouterPath(path), method: method) { _, _ in
                    Response(status: .methodNotAllowed, headers: [.allow: "POST"])
                }
            }
        }
    }

    func handle(_ request: Request, context: AppContext, readOnly: Bool) async throws -> Response {
        if let origin = request.headers[.origin], !Self.sameOrigin(origin, host: request.head.authority) {
            return Self.error(403, "Forbidden: Origin not allowed")
        }
        guard let (keyID, secret) = Self.credentials(request.headers),
            try await access.authenticate(keyID: keyID, secret: secret) != nil
        else {
            return Self.error(
                401, "request is not authorized: send the API key (APCA-API-KEY-ID and APCA-API-SECRET-KEY)")
        }
        guard let base = Self.loopbackURL(context.localAddress) else {
            return Self.error(500, "the server cannot reach its own API")
        }
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: context.maxUploadSize) } catch {
            return Self.error(413, "request body is larger than \(context.maxUploadSize) bytes")
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let client = PapertradeClient(
            baseURL: base, credentials: .apiKey(id: keyID, secret: secret), session: Self.loopback)
        let exchange = HTTPExchange(method: "POST", path: request.uri.path, headers: headers, body: Data(buffer: body))
        // Every request is answered, and none holds the server's shutdown: a tool call that outlives the deadline (or
        // an exchange the SDK never answers) ends with an error rather than an open socket.
        let answer = await Self.first(within: Self.deadline) {
            await PapertradeMCP.handle(exchange, client: client, readOnly: readOnly)
        }
        guard let answer else {
            return Self.error(504, "no answer within \(Self.deadline); the request may still have taken effect")
        }
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        return Response(
            status: .init(code: answer.status), headers: fields,
            body: .init(byteBuffer: ByteBuffer(bytes: answer.body ?? Data())))
    }

    /// How long one MCP exchange may take (a tool call runs one or a few API requests).
    static let deadline = Duration.seconds(60)

    /// `work`'s answer, or nil once `deadline` has passed or the request was canceled — without waiting for `work`
    /// to notice (a task group would wait for its child, and an exchange the SDK never answers never ends).
    static func first(
        within deadline: Duration, _ work: @escaping @Sendable () async -> HTTPExchange.Answer
    ) async -> HTTPExchange.Answer? {
        let race = Race()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.start(
                    continuation,
                    Task { race.finish(await work()) },
                    Task {
                        try? await Task.sleep(for: deadline)
                        race.finish(nil)
                    })
            }
        } onCancel: {
            race.finish(nil)
        }
    }

    /// The first of an answer, a deadline and a cancellation; the losers' tasks are canceled.
    final class Race: Sendable {
        struct State {
            var continuation: CheckedContinuation<HTTPExchange.Answer?, Never>?
            var tasks: [Task<Void, Never>] = []
            /// The outcome, once there is one (it may come before `start`).
            var outcome: HTTPExchange.Answer??
        }
        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<HTTPExchange.Answer?, Never>, _ tasks: Task<Void, Never>...) {
            let outcome = state.withLock { s -> HTTPExchange.Answer?? in
                if case .none = s.outcome {
                    s.continuation = continuation
                    s.tasks = tasks
                }
                return s.outcome
            }
            if let outcome {
                continuation.resume(returning: outcome)
                for task in tasks { task.cancel() }
            }
        }

        func finish(_ answer: HTTPExchange.Answer?) {
            let (continuation, tasks) = state.withLock {
                s -> (CheckedContinuation<HTTPExchange.Answer?, Never>?, [Task<Void, Never>]) in
                guard case .none = s.outcome else { return (nil, []) }
                s.outcome = .some(answer)
                let taken = (s.continuation, s.tasks)
                s.continuation = nil
                s.tasks = []
                return taken
            }
            continuation?.resume(returning: answer)
            for task in tasks { task.cancel() }
        }
    }

    /// Alpaca's headers, or a bearer token "KEY_ID:SECRET".
    static func credentials(_ headers: HTTPFields) -> (String, String)? {
        let (keyID, secret) = headers.alpacaCredentials
        if let keyID, let secret { return (keyID, secret) }
        guard let authorization = headers[.authorization], authorization.lowercased().hasPrefix("bearer ") else {
            return nil
        }
        let token = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
        let parts = token.split(separator: ":", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// An Origin is this server's own when its host (and port) is the Host the request was sent to.
    static func sameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let url = URL(string: origin), let originHost = url.host else { return false }
        let authority = url.port.map { "\(originHost):\($0)" } ?? originHost
        return authority.lowercased() == host.lowercased()
    }

    /// The address the request arrived on, as a URL the tools call back through.
    static func loopbackURL(_ address: SocketAddress?) -> URL? {
        guard let address, let port = address.port, let ip = address.ipAddress else { return nil }
        let host: String
        switch address {
        case .v6: host = ip == "::" ? "[::1]" : "[\(ip)]"
        default: host = ip == "0.0.0.0" ? "127.0.0.1" : ip
        }
        return URL(string: "http://\(host):\(port)")
    }

    /// A JSON-RPC error body, as MCP's HTTP transport answers a request it refuses.
    static func error(_ status: Int, _ message: String) -> Response {
        let body: [String: Any] = [
            "jsonrpc": "2.0", "id": NSNull(), "error": ["code": -32600, "message": message],
        ]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
