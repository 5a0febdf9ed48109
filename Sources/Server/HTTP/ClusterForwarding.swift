import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import NIOCore
import NIOHTTP1

/// On a cluster node: a request whose account lives in a shard another node serves is sent on to that node (at
/// most one hop) and its answer returned as is, so any node accepts any request — an Alpaca key, a web session
/// cookie or an IB session works wherever HAProxy lands it. The brokerage refuses such a call with `.elsewhere`
/// before it does anything, which is what makes replaying the whole request on the owner safe.
///
/// The body is buffered before the handler runs so it can be replayed. A request that already came from another
/// node is never sent further: it gets a 503 marked `Papertrade-Shard-Moving`, and the node that sent it waits for
/// the shard's new owner (up to `moveWait`) and tries again — so a shard moving between nodes (a rolling restart,
/// a node joining) delays the requests that meet it instead of failing them. Past the wait the client gets the 503
/// with Retry-After.
struct ClusterForwarding: RouterMiddleware {
    /// This node's name, sent with a forwarded request.
    let node: String
    /// The longest body replayed (larger ones are refused by the handlers anyway).
    static let bodyLimit = 2 << 20
    static let forwardedBy = HTTPField.Name.literal("Papertrade-Forwarded-By")
    /// Connections to the other nodes (kept alive between forwards).
    static let client = NodeClient()

    /// How long a request waits for a moving shard's new owner before it is answered 503 (Retry-After): a graceful
    /// hand-over (a rolling restart) takes well under a second on an idle machine, a dead node's shards a lease TTL
    /// and a load — but several seconds more on a busy one (a rolling restart beside two test suites and two
    /// CPU-bound processes left one request waiting past 6 s). The wait is for the new owner, not a guess at how fast
    /// it comes: only a cluster that cannot place the shard at all reaches it, and it stays under HAProxy's
    /// `timeout server` (30 s), so the client hears the 503 rather than a gateway timeout.
    static let moveWait = Duration.seconds(15)
    /// How often a waiting request looks again.
    static let movePoll = Duration.milliseconds(100)
    /// Marks a 503 whose cause is a shard between owners (the forwarding node waits and tries again).
    static let shardMoving = HTTPField.Name.literal("Papertrade-Shard-Moving")
    /// Requests sent on to the node serving their account; requests that met a shard between owners and waited.
    static let forwards = Counter(label: "papertrade_cluster_forwards_total")
    static let waits = Counter(label: "papertrade_cluster_shard_move_waits_total")

    func handle(
        _ request: Request, context: AppContext,
        next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: Self.bodyLimit)
        let forwarded = request.headers[Self.forwardedBy] != nil
        let deadline = ContinuousClock.now + Self.moveWait
        while true {
            do {
                return try await next(request, context)
            } catch let error as BrokerageError {
                guard case .elsewhere(_, let owner, let url) = error else { throw error }
                if forwarded {
                    // The node that sent it waits and tries again (never a second hop).
                    var response = try APIError(error).response(from: request, context: context)
                    response.headers[Self.shardMoving] = "1"
                    return response
                }
                if let owner, let url, owner != node {
                    Self.forwards.increment()
                    switch await forward(request, body: body, to: url, owner: owner) {
                    case .answered(let response) where response.headers[Self.shardMoving] == nil: return response
                    case .answered, .unreachable: break
                    case .lost: throw error // the owner may have acted on it: the client decides (503, Retry-After)
                    }
                }
                // The shard is between owners (handed back, being loaded, its owner just died or cannot be reached):
                // nothing was done with the request, so asking again — here, or the owner the next pass names — is
                // safe.
                guard ContinuousClock.now < deadline else { throw error }
                Self.waits.increment()
                try await Task.sleep(for: Self.movePoll)
            }
        }
    }

    /// What came of a forward.
    enum Forwarded {
        case answered(Response)
        /// No connection to the owner: the request was not sent.
        case unreachable
        /// Sent, but the connection ended before an answer: the owner may have acted on it.
        case lost
    }

    /// Replays the request on `base` (the owner's advertised URL).
    func forward(_ request: Request, body: ByteBuffer, to base: String, owner: String) async -> Forwarded {
        guard let url = URL(string: base), let host = url.host else { return .unreachable }
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        var head = HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: request.uri.string)
        for field in request.headers where !Self.hopByHop.contains(field.name) {
            head.headers.add(name: field.name.rawName, value: field.value)
        }
        head.headers.replaceOrAdd(name: "Host", value: "\(host):\(port)")
        head.headers.replaceOrAdd(name: Self.forwardedBy.rawName, value: node)
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        let answer: NodeClient.Answer
        do {
            answer = try await Self.client.send(
                host: host, port: port, head: head, body: body.readableBytes > 0 ? body : nil)
        } catch NodeClient.Failure.unreachable {
            return .unreachable
        } catch {
            return .lost
        }
        var headers = HTTPFields()
        for (text, value) in answer.headers {
            guard let name = HTTPField.Name(text), !Self.hopByHop.contains(name) else { continue }
            headers.append(HTTPField(name: name, value: value))
        }
        headers[Self.forwardedBy] = owner
        return .answered(
            Response(
                status: HTTPResponse.Status(code: answer.status), headers: headers,
                body: ResponseBody(byteBuffer: answer.body)))
    }

    static let hopByHop: Set<HTTPField.Name> = [
        .connection, .transferEncoding, .te, .upgrade, .proxyAuthorization, .contentLength,
        HTTPField.Name.literal("Keep-Alive"), HTTPField.Name.literal("Trailer"),
        HTTPField.Name.literal("Proxy-Connection"),
    ]
}
