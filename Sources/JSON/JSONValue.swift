import TradingCore

/// A parsed JSON document whose numbers keep their source text, so prices and quantities become exact
/// decimals without ever passing through Double.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number exactly as written ("150.25", "1e-7").
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        /// The document is JSON, but an object holds a key twice (only when parsing refuses that).
        public var isDuplicateKey = false
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// How closely a document must follow RFC 8259.
    public enum Grammar: Sendable {
        /// What clients send in practice is read: a lone surrogate escape as U+FFFD, bytes that are not UTF-8 as
        /// U+FFFD, numbers with leading zeros as written, the last of a key an object holds twice.
        case lenient
        /// RFC 8259 to the letter, and each key once per object (a `ParseError` with `isDuplicateKey`): what a
        /// strict decoder further on (Foundation's, in the MCP SDK) will accept too.
        case strict
    }

    /// Parses a complete JSON document (UTF-8). Depth is limited to 256 to refuse hostile nesting.
    public init(parsing bytes: some Collection<UInt8>, grammar: Grammar = .lenient) throws(ParseError) {
        var parser = Parser(bytes: Array(bytes), strict: grammar == .strict)
        parser.skipWhitespace()
        self = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else {
            throw ParseError(offset: parser.index, reason: "trailing characters")
        }
    }

    public init(parsing text: String, grammar: Grammar = .lenient) throws(ParseError) {
        try self.init(parsing: Array(text.utf8), grammar: grammar)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var object: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }
    public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var isNull: Bool { self == .null }

    /// An exact decimal from a JSON number or a numeric string ("150.25" or 150.25); nil otherwise.
    public var decimal: FixedDecimal? {
        switch self {
        case .number(let text), .string(let text): return try? FixedDecimal(parsing: text)
        default: return nil
        }
    }

    /// Like `decimal`, but numbers with more than nine fractional digits (binary-float artefacts such as
    /// Yahoo's 189.9199981689453) are rounded half-up to nine places instead of refused.
    public var roundedDecimal: FixedDecimal? {
        if let exact = decimal { return exact }
        guard case .number(let text) = self, !text.contains("e"), !text.contains("E"),
            let point = text.firstIndex(of: ".")
        else { return nil }
        let fraction = text[text.index(after: point)...]
        guard fraction.count > FixedDecimal.scale else { return nil }
        let kept = String(text[...point]) + fraction.prefix(FixedDecimal.scale)
        guard var value = FixedDecimal(kept) else { return nil }
        let next = fraction[fraction.index(fraction.startIndex, offsetBy: FixedDecimal.scale)]
        if next >= "5" { value += text.hasPrefix("-") ? -FixedDecimal(raw: 1) : FixedDecimal(raw: 1) }
        return value
    }

    /// An integer from a JSON number without fraction (or a string of one).
    public var int: Int? {
        switch self {
        case .number(let text), .string(let text):
            if let i = Int(text) { return i }
            guard let d = try? FixedDecimal(parsing: text), d.isInteger else { return nil }
            return d.integerPart
        default: return nil
        }
    }

    struct Parser {
        let bytes: [UInt8]
        /// `Grammar.strict`.
        var strict = false
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func fail(_ reason: String) -> ParseError { ParseError(offset: index, reason: reason) }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard depth < 256 else { throw fail("nested too deeply") }
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws(ParseError) {
            for byte in word.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw fail("expected \(word)") }
                index += 1
            }
        }

        mutating func object(depth: Int) throws(ParseError) -> JSONValue {
            index += 1
            var result: [String: JSONValue] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(result)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                skipWhitespace()
                if strict, result[key] != nil {
                    var error = fail("the key \"\(key)\" appears twice")
                    error.isDuplicateKey = true
                    throw error
                }
                result[key] = try value(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end in object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(result)
                }
                throw fail("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> JSONValue {
            index += 1
            var result: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(result)
            }
            while true {
                skipWhitespace()
                result.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end in array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(result)
                }
                throw fail("expected ',' or ']'")
            }
        }

        mutating func number() throws(ParseError) -> String {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            var digits = 0
            while index < bytes.count, (48...57).contains(bytes[index]) {
                index += 1
                digits += 1
            }
            guard digits > 0 else { throw fail("invalid value") }
            if strict, digits > 1, bytes[index - digits] == UInt8(ascii: "0") {
                throw fail("a number with a leading zero")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                var fraction = 0
                while index < bytes.count, (48...57).contains(bytes[index]) {
                    index += 1
                    fraction += 1
                }
                guard fraction > 0 else { throw fail("invalid number") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                var exponent = 0
                while index < bytes.count, (48...57).contains(bytes[index]) {
                    index += 1
                    exponent += 1
                }
                guard exponent > 0 else { throw fail("invalid exponent") }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func string() throws(ParseError) -> String {
            index += 1
            let start = index
            // Most strings (keys, symbols, decimals) have no escapes: they are the bytes up to the closing quote,
            // made into a string at once, without building them byte by byte.
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\\") { break }
                index += 1
                if c == UInt8(ascii: "\"") { return try text(bytes[start..<index - 1]) }
                guard c >= 0x20 else { throw fail("control character in string") }
            }
            var out = Array(bytes[start..<index])
            while index < bytes.count {
                let c = bytes[index]
                index += 1
                if c == UInt8(ascii: "\"") { return try text(out[...]) }
                if c == UInt8(ascii: "\\") {
                    guard index < bytes.count else { break }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        // A high surrogate joins the low surrogate escaped right after it. Anything else after it (a
                        // second high surrogate, "\u0000") leaves it alone — written as U+FFFD — and is read as its
                        // own escape: subtracting 0xDC00 from a non-surrogate underflowed and trapped the process.
                        if (0xD800...0xDBFF).contains(scalar), index + 5 < bytes.count,
                            bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        {
                            let mark = index
                            index += 2
                            let low = try hex4()
                            if (0xDC00...0xDFFF).contains(low) {
                                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                index = mark
                            }
                        }
                        if strict, Unicode.Scalar(scalar) == nil { throw fail("a lone surrogate") }
                        out.append(contentsOf: String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: throw fail("invalid escape")
                    }
                } else {
                    guard c >= 0x20 else { throw fail("control character in string") }
                    out.append(c)
                }
            }
            throw fail("unterminated string")
        }

        /// A string's bytes as text: bytes that are not UTF-8 are U+FFFD, or an error in the strict grammar.
        func text(_ bytes: ArraySlice<UInt8>) throws(ParseError) -> String {
            if strict {
                guard let text = String(validating: bytes, as: UTF8.self) else { throw fail("a string is not UTF-8") }
                return text
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                index += 1
                switch c {
                case 48...57: v = v * 16 + UInt32(c - 48)
                case 65...70: v = v * 16 + UInt32(c - 55)
                case 97...102: v = v * 16 + UInt32(c - 87)
                default: throw fail("bad hex digit")
                }
            }
            return v
        }
    }
}
