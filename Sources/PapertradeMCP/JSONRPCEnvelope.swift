import Foundation
import JSON
import Logging
import MCP

/// The first look at each JSON-RPC message, before the MCP SDK decodes it, so that every request gets an answer.
///
/// The SDK decodes a message into its own types and, when that fails, answers nothing: a request whose `id` was
/// `true`, `-9223372036854775809`, `1e308` or an object, a duplicated `id` key, or a string holding a lone surrogate
/// left the HTTP exchange open for good (its socket in CLOSE-WAIT, SIGTERM waiting on it) and the stdio client
/// waiting (issue 55). JSON-RPC 2.0 says what to answer instead: a message that is not JSON is a parse error (-32700),
/// one that is not a valid request an invalid request (-32600), both with a null id; and MCP's `tools/call` with
/// `arguments` that are not an object is invalid params (-32602) for that request's id.
///
/// The message is read by papertrade's JSON parser in its strict grammar (RFC 8259 to the letter, depth bounded, a
/// key once per object, numbers kept as their text), so what passes here the SDK's decoder can read.
enum JSONRPCEnvelope {
    /// What to do with a message.
    enum Verdict: Equatable {
        /// Hand it to the SDK.
        case pass
        /// Answer this instead (the SDK never sees the message).
        case answer(Data)
    }

    static func check(_ data: Data) -> Verdict {
        let message: JSONValue
        do {
            message = try JSONValue(parsing: data, grammar: .strict)
        } catch {
            if error.isDuplicateKey {
                return .answer(errorBody(id: nil, code: -32600, message: "invalid request: \(error.reason)"))
            }
            return .answer(errorBody(id: nil, code: -32700, message: "parse error: \(error.description)"))
        }
        switch message {
        case .object(let members):
            return request(members)
        case .array(let items):
            guard !items.isEmpty else {
                return .answer(errorBody(id: nil, code: -32600, message: "invalid request: an empty batch"))
            }
            for item in items {
                guard case .object(let members) = item else {
                    return .answer(errorBody(id: nil, code: -32600, message: "invalid request: not an object"))
                }
                if case .answer(let body) = request(members) { return .answer(body) }
            }
            return .pass
        default:
            return .answer(errorBody(id: nil, code: -32600, message: "invalid request: not an object"))
        }
    }

    /// One message's envelope: an `id` that is a string or an integer the SDK can hold; a `tools/call`'s arguments
    /// an object.
    static func request(_ members: [String: JSONValue]) -> Verdict {
        var id: String?
        switch members["id"] {
        case nil:
            break // a notification (or a response to us): nothing to answer
        case .string(let text):
            id = jsonString(text)
        case .number(let text) where Int(text) != nil:
            id = text
        default:
            return .answer(
                errorBody(
                    id: nil, code: -32600,
                    message: "invalid request: \"id\" must be a string or an integer from \(Int.min) to \(Int.max)"))
        }
        if case .string("tools/call") = members["method"], let arguments = members["params"]?["arguments"] {
            switch arguments {
            case .object, .null: break
            default:
                return .answer(
                    errorBody(id: id, code: -32602, message: "invalid params: \"arguments\" must be an object"))
            }
        }
        return .pass
    }

    /// The error's HTTP status on the Streamable HTTP transport: 400 for a message that is no request at all, 200 for
    /// a request answered with an error.
    static func httpStatus(of body: Data) -> Int {
        body.range(of: Data(#""id":null"#.utf8)) != nil ? 400 : 200
    }

    /// A JSON-RPC error response; `id` is the request's id as JSON text, or nil for null.
    static func errorBody(id: String?, code: Int, message: String) -> Data {
        Data(
            #"{"jsonrpc":"2.0","id":\#(id ?? "null"),"error":{"code":\#(code),"message":\#(jsonString(message))}}"#
                .utf8)
    }

    /// `text` as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        JSONValue.string(text).serialized
    }
}

/// A transport that answers what `JSONRPCEnvelope` refuses itself and hands the SDK only what it can decode
/// (`papertrade mcp` on standard input and output).
actor CheckedTransport<Inner: Transport>: Transport {
    let inner: Inner
    let logger: Logger

    init(_ inner: Inner, logger: Logger) {
        self.inner = inner
        self.logger = logger
    }

    func connect() async throws { try await inner.connect() }
    func disconnect() async { await inner.disconnect() }
    func send(_ data: Data) async throws { try await inner.send(data) }

    nonisolated func receive() -> AsyncThrowingStream<Data, any Error> {
        let inner = self.inner
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await message in await inner.receive() {
                        switch JSONRPCEnvelope.check(message) {
                        case .pass: continuation.yield(message)
                        case .answer(let body): try? await inner.send(body)
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
