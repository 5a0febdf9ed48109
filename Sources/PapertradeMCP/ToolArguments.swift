import Foundation
import MCP
import PapertradeKit

/// A tool's arguments as the agent sent them, read with the leniency agents need: a list may come as an array or as
/// one comma-separated string (or a JSON array inside a string — alpaca-mcp-server's issue #97), a number as a number
/// or a string. A wrong argument is a `ToolFailure`: the agent reads the message and corrects itself.
struct ToolArguments: Sendable {
    let values: [String: Value]

    init(_ values: [String: Value]?) { self.values = values ?? [:] }

    func string(_ name: String) throws(ToolFailure) -> String? {
        switch values[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text.trimmingCharacters(in: .whitespaces).isEmpty ? nil : text
        case .int(let n)?: return String(n)
        case .bool(let b)?: return String(b)
        case .double(let d)?: return try Self.exactText(d, name)
        default: throw ToolFailure("\(name) must be a string")
        }
    }

    func required(_ name: String) throws(ToolFailure) -> String {
        guard let text = try string(name) else { throw ToolFailure("\(name) is required") }
        return text
    }

    /// An amount (qty, a price) as exact decimal text. A JSON number reaches the tool as the protocol library's
    /// `Double`; its shortest round-trip form is the decimal the agent wrote whenever that has at most 15
    /// significant digits, and anything longer is refused rather than rounded (send it as a string).
    func decimal(_ name: String) throws(ToolFailure) -> String? {
        guard let text = try string(name) else { return nil }
        guard ExactDecimal.parse(text) != nil else { throw ToolFailure("\(name) must be a number, got \(text)") }
        return text
    }

    func int(_ name: String) throws(ToolFailure) -> Int? {
        switch values[name] {
        case nil, .null?: return nil
        case .int(let n)?: return n
        case .double(let d)? where d == d.rounded() && abs(d) < 1e15: return Int(d)
        case .string(let text)?:
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ToolFailure("\(name) must be a whole number")
            }
            return n
        default: throw ToolFailure("\(name) must be a whole number")
        }
    }

    func bool(_ name: String) throws(ToolFailure) -> Bool? {
        switch values[name] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case .string(let text)? where ["true", "false"].contains(text.lowercased()): return text.lowercased() == "true"
        default: throw ToolFailure("\(name) must be true or false")
        }
    }

    /// A list of strings: an array, "AAPL,MSFT", or "[\"AAPL\", \"MSFT\"]".
    func list(_ name: String) throws(ToolFailure) -> [String]? {
        switch values[name] {
        case nil, .null?: return nil
        case .array(let items)?:
            var out: [String] = []
            for item in items {
                guard case .string(let s) = item else { throw ToolFailure("\(name) must be a list of strings") }
                out.append(s)
            }
            return out
        case .string(let text)?:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("["), let data = trimmed.data(using: .utf8),
                let decoded = try? JSONDecoder().decode([String].self, from: data)
            {
                return decoded
            }
            return trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        default: throw ToolFailure("\(name) must be a list of strings")
        }
    }

    static func exactText(_ value: Double, _ name: String) throws(ToolFailure) -> String {
        guard value.isFinite else { throw ToolFailure("\(name) must be a finite number") }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        let text = "\(value)"
        let digits = text.filter(\.isNumber).drop { $0 == "0" }
        guard !text.contains("e"), digits.count <= 15 else {
            throw ToolFailure("\(name): send numbers with more than 15 significant digits as strings")
        }
        return text
    }
}

/// A tool call that failed in a way the agent can act on: bad arguments, or the server's refusal with its words.
struct ToolFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
