import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
    static let session = URLSession(configuration: .ephemeral, delegate: RefuseRedirects(), delegateQueue: nil)

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
        guard
            let url = URL(
                string: base.trimmingSuffix("/") + (request.uri.string.hasPrefix("/") ? "" : "/") + request.uri.string)
        else { throw refusal }
        var outbound = URLRequest(url: url, timeoutInterval: 30)
        outbound.httpMethod = request.method.rawValue
        for field in request.headers where !Self.hopByHop.contains(field.name) {
            outbound.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        outbound.setValue(node, forHTTPHeaderField: Self.forwardedBy.rawName)
        if body.readableBytes > 0 { outbound.httpBody = Data(buffer: body) }
        let data: Data
        let answer: HTTPURLResponse
        do {
            let (bytes, response) = try await Self.session.data(for: outbound)
            guard let http = response as? HTTPURLResponse else { throw refusal }
            (data, answer) = (bytes, http)
        } catch {
            throw refusal
        }
        var headers = HTTPFields()
        for (key, value) in answer.allHeaderFields {
            guard let text = key as? String, let name = HTTPField.Name(text), !Self.hopByHop.contains(name),
                name != .contentLength, let value = value as? String
            else { continue }
            headers.append(HTTPField(name: name, value: value))
        }
        headers[Self.forwardedBy] = owner
        return Response(
            status: HTTPResponse.Status(code: answer.statusCode), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }

    static let hopByHop: Set<HTTPField.Name> = [
        .connection, .transferEncoding, .te, .upgrade, .proxyAuthorization, .contentLength,
        HTTPField.Name.literal("Keep-Alive"), HTTPField.Name.literal("Trailer"),
        HTTPField.Name.literal("Proxy-Connection"),
    ]
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
