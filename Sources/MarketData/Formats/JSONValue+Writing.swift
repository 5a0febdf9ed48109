import TradingCore

extension JSONValue {
    /// Compact JSON text. Object keys are written sorted, so output is deterministic.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, key) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                o[key]?.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// A decimal as a JSON string ("150.25"): Alpaca's convention for money and quantities.
    public static func decimal(_ value: FixedDecimal?) -> JSONValue { value.map { .string($0.description) } ?? .null }
    /// A decimal as a JSON number (portfolio history and other number-typed fields).
    public static func number(_ value: FixedDecimal?) -> JSONValue { value.map { .number($0.description) } ?? .null }
    public static func int(_ value: Int) -> JSONValue { .number(String(value)) }
    public static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}
