import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import JSON
import MarketData
import TradingCore

/// An error answered as Alpaca does: `{"code": 8-digit, "message": "…"}` with the right HTTP status.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: Int
    public var message: String
    public var extra: [String: JSONValue] = [:]
    /// Seconds after which the client may try again (the Retry-After header), for a refusal that will pass.
    public var retryAfter: Int?

    public init(_ status: HTTPResponse.Status, code: Int, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public init(_ error: BrokerageError) {
        self.init(error.status, code: error.alpacaCode, error.message)
        switch error {
        case .elsewhere, .unavailable: retryAfter = 1 // a shard changing hands, a database failing over
        default: break
        }
    }

    public static func badRequest(_ message: String) -> APIError { APIError(.badRequest, code: 40010000, message) }
    public static func unprocessable(_ message: String) -> APIError {
        APIError(.unprocessableContent, code: 42210000, message)
    }
    public static func notFound(_ message: String) -> APIError { APIError(.notFound, code: 40410000, message) }
    public static func forbidden(_ message: String) -> APIError { APIError(.forbidden, code: 40310000, message) }
    public static let unauthorized = APIError(.unauthorized, code: 40110000, "request is not authorized")

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = extra
        body["code"] = .int(code)
        body["message"] = .string(message)
        var headers = HTTPFields()
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return JSONValue.object(body).response(status: status, headers: headers)
    }
}

extension JSONValue {
    /// This value as an `application/json` response.
    public func response(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: serializedBytes)))
    }
}

extension Request {
    /// The body as exact JSON (numbers keep their text); 400 for malformed JSON, 413 for oversized bodies.
    mutating func jsonBody(context: AppContext) async throws -> JSONValue {
        guard let body = try await optionalJSONBody(context: context) else {
            throw APIError.badRequest("request body is empty; expected JSON")
        }
        return body
    }

    /// The body as exact JSON, or nil when there is none (for bodies that are optional).
    mutating func optionalJSONBody(context: AppContext) async throws -> JSONValue? {
        let buffer: ByteBuffer
        do { buffer = try await collectBody(upTo: context.maxUploadSize) } catch {
            throw APIError(
                .contentTooLarge, code: 41300000, "request body is larger than \(context.maxUploadSize) bytes")
        }
        guard buffer.readableBytes > 0 else { return nil }
        do { return try JSONValue(parsing: Array(buffer.readableBytesView)) } catch {
            throw APIError.badRequest("malformed JSON: \(error.description)")
        }
    }

    func query(_ name: String) -> String? { uri.queryParameters[Substring(name)].map(String.init) }
}
