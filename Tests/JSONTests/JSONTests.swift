import Foundation
import JSON
import Testing
import TradingCore

@Suite("Exact JSON")
struct JSONValueTests {
    @Test("numbers keep their text, so decimals are exact")
    func exactNumbers() throws {
        let json = try JSONValue(
            parsing: #"{"p": 150.25, "q": 0.000000001, "n": [1, -2.5e3], "s": "x\u00e9\n", "b": true, "z": null}"#)
        #expect(json["p"]?.decimal == FixedDecimal("150.25"))
        #expect(json["q"]?.decimal == FixedDecimal("0.000000001"))
        #expect(json["n"]?[1]?.decimal == FixedDecimal("-2500"))
        #expect(json["s"]?.string == "xé\n")
        #expect(json["b"]?.bool == true)
        #expect(json["z"]?.isNull == true)
    }

    @Test("strings: plain, escapes at the start, middle and end, surrogate pairs, non-ASCII as is")
    func strings() throws {
        let json = try JSONValue(parsing: #"["plain", "\"quoted\"", "a\\b\/c", "tab\t", "\ud83d\ude00!", "中文 😀", ""]"#)
        #expect(json.array?.compactMap(\.string) == ["plain", "\"quoted\"", "a\\b/c", "tab\t", "😀!", "中文 😀", ""])
        let control = #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: "[\"a\u{01}b\"]") }
        #expect(control?.offset == 4)
        #expect(control?.reason == "control character in string")
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: #"["a\"#) }
    }

    @Test("malformed, truncated and hostile documents are errors with a position")
    func malformed() {
        for text in [
            "{", #"{"a": }"#, "[1, 2", #"{"a": 01x}"#, "tru", #""abc"#, "{} {}", String(repeating: "[", count: 300),
        ] {
            #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: text) }
        }
    }
}

/// The streaming encoder must write what Foundation's `JSONEncoder` would (as a JSON tree) and read back with
/// `JSONDecoder` to the same value.
@Suite("Streaming JSON encoder: atoms and containers")
struct StreamingEncoderAtomTests {
    /// The same JSON tree as Foundation's encoder produces.
    func sameTree(_ value: some Encodable) throws -> Bool {
        let ours = try StreamingJSONEncoder.encode(value)
        let theirs = try JSONEncoder().encode(value)
        func canonical(_ data: Data) throws -> Data {
            let tree = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return try JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys, .fragmentsAllowed])
        }
        return try canonical(Data(ours.utf8)) == canonical(theirs)
    }

    func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try StreamingJSONEncoder.encode(value).utf8))
    }

    @Test("integers are written exactly, including the extremes")
    func integers() {
        for value: Int64 in [0, 7, -7, 10, 1_795_307_285_754_428_198, .max, .min] {
            var out: [UInt8] = []
            JSONText.appendInteger(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(value))
        }
    }

    struct Mixed: Codable, Equatable {
        var text = "quote \" backslash \\ newline \n control \u{01} 中文 😀"
        var empty: [String] = []
        var nested: [[Int]] = [[], [1, 2], [3]]
        var map: [String: [String: Int]] = ["a": [:], "b": ["c": -1]]
        var optional: Int? = nil
        var present: Int? = 7
        var flag = true
        var big = UInt64.max
    }

    @Test("escapes, empty and nested containers, optionals")
    func mixed() throws {
        #expect(try sameTree(Mixed()))
        #expect(try roundTrip(Mixed()) == Mixed())
        #expect(try StreamingJSONEncoder.encode([String]()) == "[]")
        #expect(try StreamingJSONEncoder.encode("a\u{1F}b") == #""a\u001fb""#)
    }

    @Test("a floating-point value is refused, not stored")
    func floats() {
        struct Money: Encodable { var amount = 0.1 }
        #expect(throws: FloatingPointNotStored.self) { try StreamingJSONEncoder.encode(Money()) }
    }
}

@Suite("The core's values written as JSON")
struct TypedWriterTests {
    func written(_ write: (inout [UInt8]) -> Void) -> String {
        var out: [UInt8] = []
        write(&out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("ids and times are written as the quoted text their descriptions give, without making the string")
    func idsAndTimes() throws {
        let id = Identifier(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        #expect(written { id.appendQuoted(to: &$0) } == #""01234567-89ab-cdef-fedc-ba9876543210""#)
        #expect(written { OrderID(id).appendQuoted(to: &$0) } == #""01234567-89ab-cdef-fedc-ba9876543210""#)
        let t = Timestamp(CivilDate(2026, 11, 20), hour: 9, minute: 30, in: .newYork).adding(nanoseconds: 1)
        #expect(written { t.appendQuotedRFC3339(to: &$0) } == #""2026-11-20T14:30:00.000000001Z""#)
        #expect(t.rfc3339(in: .newYork, fractionalDigits: 0) == "2026-11-20T09:30:00-05:00")
        #expect(t.rfc3339(in: .shanghai, fractionalDigits: 3) == "2026-11-20T22:30:00.000+08:00")
        // Before 1970 and outside four-digit years (the slow path) the bytes still match the description.
        for time in [Timestamp(nanoseconds: -1), .distantPast, .distantFuture, Timestamp(seconds: 0)] {
            #expect(written { time.appendQuotedRFC3339(to: &$0) } == "\"\(time.description)\"")
        }
        #expect(Timestamp(nanoseconds: -1).description == "1969-12-31T23:59:59.999999999Z")
        #expect(written { FixedDecimal("-0.5")!.appendQuoted(to: &$0) } == #""-0.5""#)
    }

    @Test("an object writer separates members and escapes names once")
    func objectWriter() throws {
        var w = JSONObjectWriter(capacity: 16)
        #expect(String(decoding: w.finish(), as: UTF8.self) == "{}")
        w = JSONObjectWriter(capacity: 16)
        w.key(JSONKey("a\"b"))
        JSONText.appendInteger(-3, to: &w.bytes)
        w.key(JSONKey("c"))
        JSONText.appendQuoted("d", to: &w.bytes)
        let text = String(decoding: w.finish(), as: UTF8.self)
        #expect(text == #"{"a\"b":-3,"c":"d"}"#)
        #expect(try JSONValue(parsing: text)["a\"b"] == .number("-3"))
    }

    @Test("a lone high surrogate is U+FFFD and the escape after it is read as its own (it once trapped the server)")
    func loneSurrogates() throws {
        let json = try JSONValue(
            parsing: #"["\ud800\u0041", "\ud83d\ud83d\ude00", "\u0009\ud83d\udA00", "\udc00x", "\ud800"]"#)
        #expect(
            json.array?.compactMap(\.string) == [
                "\u{FFFD}A", "\u{FFFD}😀", "\t\u{FFFD}\u{FFFD}", "\u{FFFD}x", "\u{FFFD}",
            ])
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: #"["\ud800\u12"]"#) }
    }

    @Test(
        "the strict grammar refuses what the lenient one repairs: leading zeros, lone surrogates, bytes that are not UTF-8, a key given twice"
    )
    func strictGrammar() throws {
        for text in [#"{"id": 01}"#, #"[-007]"#, #"["\ud800"]"#, #"["\udc00x"]"#, #"{"id": 1, "id": 2}"#] {
            #expect(throws: JSONValue.ParseError.self, "\(text)") { try JSONValue(parsing: text, grammar: .strict) }
            #expect((try? JSONValue(parsing: text)) != nil, "the lenient grammar reads \(text)")
        }
        let notUTF8: [UInt8] = [0x5B, 0x22, 0xFF, 0x22, 0x5D]
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: notUTF8, grammar: .strict) }
        #expect(try JSONValue(parsing: notUTF8) == .array([.string("\u{FFFD}")]))
        do {
            _ = try JSONValue(parsing: #"{"a": {"id": 1, "id": 2}}"#, grammar: .strict)
            Issue.record("a duplicated key was read")
        } catch let error as JSONValue.ParseError {
            #expect(error.isDuplicateKey)
        }
        #expect(try JSONValue(parsing: #"{"id": 1, "id": 2}"#) == .object(["id": .number("2")]))
        for text in [#"{"id": 0, "n": -0.5e+3, "s": "a\ud83d\ude00\u00e9"}"#, "[0, 10, -10, 1.05]"] {
            #expect(try JSONValue(parsing: text, grammar: .strict) == JSONValue(parsing: text))
        }
    }
}
