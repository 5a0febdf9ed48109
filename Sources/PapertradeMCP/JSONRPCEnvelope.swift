import Foundation
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
/// A strict parser of its own (numbers kept as their text, strings checked for escapes and surrogates, depth
/// bounded) because Foundation's accepts what the SDK's decoder then refuses.
enum JSONRPCEnvelope {
    /// What to do with a message.
    enum Verdict: Equatable {
        /// Hand it to the SDK.
        case pass
        /// Answer this instead (the SDK never sees the message).
        case answer(Data)
    }

    /// How deep a message's arrays and objects may nest.
    static let maximumDepth = 64

    static func check(_ data: Data) -> Verdict {
        var parser = Parser(bytes: Array(data))
        let message: Node
        do {
            message = try parser.document()
        } catch {
            return .answer(errorBody(id: nil, code: -32700, message: "parse error: \(error.reason)"))
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

    /// One message's envelope: a unique `id` that is a string or an integer the SDK can hold; a `tools/call`'s
    /// arguments an object.
    static func request(_ members: [(String, Node)]) -> Verdict {
        for key in ["jsonrpc", "id", "method", "params"] where members.filter({ $0.0 == key }).count > 1 {
            return .answer(errorBody(id: nil, code: -32600, message: "invalid request: \"\(key)\" appears twice"))
        }
        let field = { (name: String) in members.first { $0.0 == name }?.1 }
        var id: String?
        switch field("id") {
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
        if case .string("tools/call") = field("method"), case .object(let params) = field("params"),
            let arguments = params.first(where: { $0.0 == "arguments" })?.1
        {
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
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A parsed JSON value, numbers as their text.
    indirect enum Node: Equatable {
        case object([(String, Node)])
        case array([Node])
        case string(String)
        case number(String)
        case bool(Bool)
        case null

        static func == (a: Node, b: Node) -> Bool {
            switch (a, b) {
            case (.object(let x), .object(let y)): x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
            case (.array(let x), .array(let y)): x == y
            case (.string(let x), .string(let y)), (.number(let x), .number(let y)): x == y
            case (.bool(let x), .bool(let y)): x == y
            case (.null, .null): true
            default: false
            }
        }
    }

    struct Failure: Error {
        let reason: String
    }

    /// RFC 8259's grammar, strictly: no lone surrogates, no control characters in strings, no leading zeros.
    struct Parser {
        let bytes: [UInt8]
        var at = 0

        mutating func document() throws(Failure) -> Node {
            let value = try self.value(depth: 0)
            skipSpace()
            guard at == bytes.count else { throw Failure(reason: "text after the message at byte \(at)") }
            return value
        }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        func peek() -> UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func expect(_ byte: UInt8) throws(Failure) {
            guard peek() == byte else {
                throw Failure(reason: "expected '\(Character(Unicode.Scalar(byte)))' at byte \(at)")
            }
            at += 1
        }

        mutating func literal(_ word: String) throws(Failure) {
            for byte in word.utf8 { try expect(byte) }
        }

        mutating func value(depth: Int) throws(Failure) -> Node {
            guard depth < JSONRPCEnvelope.maximumDepth else {
                throw Failure(reason: "nested deeper than \(JSONRPCEnvelope.maximumDepth) levels")
            }
            skipSpace()
            switch peek() {
            case UInt8(ascii: "{"):
                at += 1
                var members: [(String, Node)] = []
                skipSpace()
                if peek() == UInt8(ascii: "}") {
                    at += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    let key = try string()
                    skipSpace()
                    try expect(UInt8(ascii: ":"))
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    if peek() == UInt8(ascii: ",") {
                        at += 1
                        continue
                    }
                    try expect(UInt8(ascii: "}"))
                    return .object(members)
                }
            case UInt8(ascii: "["):
                at += 1
                var items: [Node] = []
                skipSpace()
                if peek() == UInt8(ascii: "]") {
                    at += 1
                    return .array(items)
                }
                while true {
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    if peek() == UInt8(ascii: ",") {
                        at += 1
                        continue
                    }
                    try expect(UInt8(ascii: "]"))
                    return .array(items)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case .some(let byte) where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte):
                return .number(try number())
            default:
                throw Failure(reason: at < bytes.count ? "unexpected byte at \(at)" : "the message ends early")
            }
        }

        mutating func digits() -> Int {
            let start = at
            while let byte = peek(), (0x30...0x39).contains(byte) { at += 1 }
            return at - start
        }

        mutating func number() throws(Failure) -> String {
            let start = at
            if peek() == UInt8(ascii: "-") { at += 1 }
            let first = peek()
            let whole = digits()
            guard whole > 0, first != UInt8(ascii: "0") || whole == 1 else {
                throw Failure(reason: "malformed number at byte \(start)")
            }
            if peek() == UInt8(ascii: ".") {
                at += 1
                guard digits() > 0 else { throw Failure(reason: "malformed number at byte \(start)") }
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                at += 1
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw Failure(reason: "malformed number at byte \(start)") }
            }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard at + 4 <= bytes.count else { throw Failure(reason: "the message ends inside an escape") }
            var value: UInt32 = 0
            for byte in bytes[at..<at + 4] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else {
                    throw Failure(reason: "malformed \\u escape at byte \(at)")
                }
                value = value * 16 + UInt32(digit)
            }
            at += 4
            return value
        }

        mutating func string() throws(Failure) -> String {
            try expect(UInt8(ascii: "\""))
            var scalars = String.UnicodeScalarView()
            var run = at // the start of the bytes copied as they are
            let bytes = self.bytes
            func flush(_ end: Int) throws(Failure) {
                guard let text = String(validating: bytes[run..<end], as: UTF8.self) else {
                    throw Failure(reason: "a string is not UTF-8")
                }
                scalars.append(contentsOf: text.unicodeScalars)
            }
            while true {
                guard let byte = peek() else { throw Failure(reason: "the message ends inside a string") }
                switch byte {
                case UInt8(ascii: "\""):
                    try flush(at)
                    at += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    try flush(at)
                    at += 1
                    guard let escape = peek() else { throw Failure(reason: "the message ends inside an escape") }
                    at += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{c}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800...0xDBFF).contains(code) {
                            guard peek() == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u")
                            else { throw Failure(reason: "a lone surrogate in a string at byte \(at)") }
                            at += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else {
                                throw Failure(reason: "a lone surrogate in a string at byte \(at)")
                            }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(code) {
                            throw Failure(reason: "a lone surrogate in a string at byte \(at)")
                        }
                        guard let scalar = Unicode.Scalar(code) else {
                            throw Failure(reason: "malformed \\u escape at byte \(at)")
                        }
                        scalars.append(scalar)
                    default:
                        throw Failure(reason: "unknown escape at byte \(at - 1)")
                    }
                    run = at
                case 0..<0x20:
                    throw Failure(reason: "a control character in a string at byte \(at)")
                default:
                    at += 1
                }
            }
        }
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
