import TradingCore

// The core's values written as JSON strings straight into a byte buffer, without making a `String` first: an
// order answer carries a dozen ids and times.

extension Identifier {
    /// Appends the canonical form as a JSON string (quoted).
    public func appendQuoted(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendText(to: &out)
        out.append(UInt8(ascii: "\""))
    }
}

extension TypedIdentifier {
    /// Appends the canonical form as a JSON string (quoted).
    public func appendQuoted(to out: inout [UInt8]) { uuid.appendQuoted(to: &out) }
}

extension Timestamp {
    /// Appends `description` (RFC 3339, UTC, nanoseconds) as a JSON string (quoted).
    public func appendQuotedRFC3339(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendRFC3339(to: &out)
        out.append(UInt8(ascii: "\""))
    }
}

extension FixedDecimal {
    /// Appends `description` as a JSON string (quoted): Alpaca's convention for money and quantities.
    public func appendQuoted(to out: inout [UInt8]) { JSONText.appendQuoted(description, to: &out) }
}
