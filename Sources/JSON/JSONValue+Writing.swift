import TradingCore

extension JSONValue {
    /// Compact JSON text. Object keys are written sorted, so output is deterministic.
    public var serialized: String { String(decoding: serializedBytes, as: UTF8.self) }

    /// Compact JSON as UTF-8 bytes (what a response body is made of).
    public var serializedBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        write(to: &out)
        return out
    }

    /// Appends this value's compact JSON to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): JSONText.appendQuoted(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            // Sorting the pairs (not the keys, then looking each one up) hashes no key a second time.
            for (i, member) in o.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A decimal as a JSON string ("150.25"): Alpaca's convention for money and quantities.
    public static func decimal(_ value: FixedDecimal?) -> JSONValue { value.map { .string($0.description) } ?? .null }
    /// A decimal as a JSON number (portfolio history and other number-typed fields).
    public static func number(_ value: FixedDecimal?) -> JSONValue { value.map { .number($0.description) } ?? .null }
    public static func int(_ value: Int) -> JSONValue { .number(String(value)) }
    public static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}
