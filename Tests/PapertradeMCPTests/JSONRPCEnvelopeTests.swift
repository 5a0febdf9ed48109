import Foundation
import Testing

@testable import PapertradeMCP

/// Every JSON-RPC message gets an answer: what the MCP SDK cannot decode is answered here (issue 55).
@Suite("JSON-RPC envelopes")
struct JSONRPCEnvelopeTests {
    func verdict(_ text: String) -> [String: Any]? {
        guard case .answer(let body) = JSONRPCEnvelope.check(Data(text.utf8)) else { return nil }
        return (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }

    func code(_ answer: [String: Any]?) -> Int? {
        (answer?["error"] as? [String: Any])?["code"] as? Int
    }

    @Test("requests the SDK decodes pass: string and in-range integer ids, notifications, surrogate pairs, batches")
    func passes() {
        for text in [
            #"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#,
            #"{"jsonrpc": "2.0", "id": "a\ud83d\ude00", "method": "ping"}"#,
            #"{"jsonrpc": "2.0", "id": -9223372036854775808, "method": "ping"}"#,
            #"{"jsonrpc": "2.0", "id": 9223372036854775807, "method": "ping"}"#,
            #"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#,
            #"[{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": "b", "method": "ping"}]"#,
            #"{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x", "arguments": {"a": [1]}}}"#,
            " \n{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\",\"params\":{\"n\":-1.5e-3}}\t",
        ] {
            #expect(JSONRPCEnvelope.check(Data(text.utf8)) == .pass, "\(text)")
        }
    }

    @Test("an id JSON-RPC does not allow, or one given twice, is an invalid request answered with a null id")
    func invalidIDs() {
        for id in [
            "true", "false", "null", "1.5", "1e308", "-0.0", "-9223372036854775809", "9223372036854775808",
            "18446744073709551616", "{}", "[1]",
        ] {
            let answer = verdict(#"{"jsonrpc": "2.0", "id": \#(id), "method": "ping"}"#)
            #expect(code(answer) == -32600, "id \(id)")
            #expect(answer?["id"] is NSNull, "id \(id)")
        }
        #expect(code(verdict(#"{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping"}"#)) == -32600)
        #expect(code(verdict(#"{"jsonrpc": "2.0", "id": 1, "method": "a", "method": "b"}"#)) == -32600)
        #expect(code(verdict("[]")) == -32600)
        #expect(code(verdict("[1]")) == -32600)
        #expect(code(verdict(#""ping""#)) == -32600)
        #expect(code(verdict(#"[{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"id": true}]"#)) == -32600)
    }

    @Test("what is not JSON is a parse error: lone surrogates, control characters, bad numbers, depth past 256")
    func parseErrors() {
        for text in [
            #"{"id": "\ud800", "method": "ping"}"#, #"{"id": "\udc00x", "method": "ping"}"#,
            #"{"id": "\ud800\u0041", "method": "ping"}"#, "{\"id\": \"a\u{01}\"}", #"{"id": 01}"#, #"{"id": 1.}"#,
            #"{"id": -}"#, #"{"id": 1e}"#, #"{"id": 1"#, #"{"id" 1}"#, "{\"id\": 1} x", "", "nul", #"{"a": "\q"}"#,
            String(repeating: "[", count: 257) + String(repeating: "]", count: 257),
            #"{"id": "\u00zz"}"#,
        ] {
            let answer = verdict(text)
            #expect(code(answer) == -32700, "\(text.prefix(40)): \(String(describing: answer))")
            #expect(answer?["id"] is NSNull)
        }
        // 256 levels are fine (the envelope itself is one).
        let deep =
            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\", \"params\": {\"a\": "
            + String(repeating: "[", count: 254) + String(repeating: "]", count: 254) + "}}"
        #expect(JSONRPCEnvelope.check(Data(deep.utf8)) == .pass)
    }

    @Test("a tool call whose arguments are not an object is invalid params for that request's id")
    func argumentsNotAnObject() {
        for (id, arguments) in [("7", "[1, 2]"), (#""seven""#, #""text""#), ("8", "3")] {
            let answer = verdict(
                #"{"jsonrpc": "2.0", "id": \#(id), "method": "tools/call", "params": {"name": "x", "arguments": \#(arguments)}}"#
            )
            #expect(code(answer) == -32602)
            let expected = (try? JSONSerialization.jsonObject(with: Data(id.utf8), options: .fragmentsAllowed))
            #expect("\(answer?["id"] ?? "")" == "\(expected ?? "")")
        }
    }

    @Test("random bytes never trap and always get a verdict; errors are well-formed JSON-RPC")
    func randomBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]":,\u0123456789abcdef-+.eE truefalsenull"#.utf8) + [0x00, 0x1F, 0xC3, 0xFF]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<40, using: &generator)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator) ?? 0x20 }
            if case .answer(let body) = JSONRPCEnvelope.check(Data(bytes)) {
                let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
                #expect(object?["jsonrpc"] as? String == "2.0")
                #expect([-32700, -32600, -32602].contains(code(object) ?? 0))
            }
        }
    }
}
