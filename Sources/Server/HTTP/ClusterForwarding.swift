import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// On a cluster node: a request whose account lives in a shard another node serves is sent on to that node (at
/// most one hop) and its answer returned as is, so any node accepts any request — an Alpaca key, a web session
/// cookie or an IB session works wherever HAProxy lands it. The brokerage refuses such a call with `.elsewhere`
/// before it does anything, which is what makes replaying the whole request on the owner safe.
///
/// The body is buffered before the handler runs so it can be replayed. A request that already came from another
/// node is never sent further: it gets the 503 with Retry-After (the shard is moving; the client tries again).
struct ClusterForwarding: RouterMiddleware {
    /// This node's name, sent with a forwarded request.
    let node: String
    /// The longest body replayed (larger ones are refused by the handlers anyway).
    static let bodyLimit = 2 << 20
    static let forwardedBy = HTTPField.Name.literal("Papertrade-Forwarded-By")
    /// Connections to the other nodes (kept alive between forwards).
    static let client = NodeClient()

    func handle(
        _ request: Request, context: AppContext,
        next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: Self.bodyLimit)
        do {
            return try await next(request, context)
        } catch let error as BrokerageError {
            guard case .elsewhere(_, let owner?, let url?) = error, owner != node,
                request.headers[Self.forwardedBy] == nil
            else { throw error }
            return try await forward(request, body: body, to: url, owner: owner, refusal: error)
        }
    }

    /// Replays the request on `base` (the owner's advertised URL) and returns its answer; if the owner cannot be
    /// reached, the original refusal (503, Retry-After) stands.
    func forward(_ request: Request, body: ByteBuffer, to base: String, owner: String, refusal: BrokerageError)
        async throws -> Response
    {
        guard let url = URL(string: base), let host = url.host else { throw refusal }
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
        } catch {
            throw refusal
        }
        var headers = HTTPFields()
        for (text, value) in answer.headers {
            guard let name = HTTPField.Name(text), !Self.hopByHop.contains(name) else { continue }
            headers.append(HTTPField(name: name, value: value))
        }
        headers[Self.forwardedBy] = owner
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody(byteBuffer: answer.body))
    }

    static let hopByHop: Set<HTTPField.Name> = [
        .connection, .transferEncoding, .te, .upgrade, .proxyAuthorization, .contentLength,
        HTTPField.Name.literal("Keep-Alive"), HTTPField.Name.literal("Trailer"),
        HTTPField.Name.literal("Proxy-Connection"),
    ]
}
