import TradingCore

extension Order {
    /// The order's stored JSON, written field by field: byte for byte what `StreamingJSONEncoder` writes for the
    /// synthesized `Codable` (same keys, same order, absent nils), which still reads it back. Every order placement
    /// journals one of these; going through `Encoder` containers cost about as much CPU as the rest of the
    /// journal step. `StreamingJSONEncoderTests` holds the two to the same bytes for orders in every state, with
    /// every optional field set — a field added to `Order` must be added here too, or that test fails.
    func storedJSON() -> String {
        var w = JSONObjectWriter(capacity: 640)
        w.string("id", id.description)
        w.string("clientOrderID", clientOrderID.text)
        w.string("accountID", accountID.description)
        w.integer("instrument", Int64(instrument.index))
        w.string("symbol", symbol)
        w.string("side", side.rawValue)
        w.string("type", type.rawValue)
        w.string("timeInForce", timeInForce.rawValue)
        w.string("orderClass", orderClass.rawValue)
        w.string("qty", qty?.description)
        w.string("notional", notional?.description)
        w.string("filledQty", filledQty.description)
        w.string("filledValue", filledValue.description)
        w.string("limitPrice", limitPrice?.description)
        w.string("stopPrice", stopPrice?.description)
        w.string("trailPrice", trailPrice?.description)
        w.string("trailPercent", trailPercent?.description)
        w.string("hwm", hwm?.description)
        w.bool("extendedHours", extendedHours)
        w.string("status", status.rawValue)
        w.integer("createdAt", createdAt.nanoseconds)
        w.integer("updatedAt", updatedAt.nanoseconds)
        w.integer("submittedAt", submittedAt.nanoseconds)
        w.integer("filledAt", filledAt?.nanoseconds)
        w.integer("expiredAt", expiredAt?.nanoseconds)
        w.integer("canceledAt", canceledAt?.nanoseconds)
        w.integer("failedAt", failedAt?.nanoseconds)
        w.integer("replacedAt", replacedAt?.nanoseconds)
        w.integer("expiresAt", expiresAt?.nanoseconds)
        w.string("replacedBy", replacedBy?.description)
        w.string("replaces", replaces?.description)
        w.strings("legs", legs.map(\.description))
        w.string("parentID", parentID?.description)
        w.bool("triggered", triggered)
        w.string("fees", fees.description)
        w.string("reason", reason)
        w.integer("eligibleAt", eligibleAt.nanoseconds)
        w.string("reservedCash", reservedCash.description)
        w.string("reservedShares", reservedShares.description)
        return w.finish()
    }
}

/// One flat JSON object written straight into bytes; a nil value leaves its key out (as `encodeIfPresent`).
struct JSONObjectWriter {
    private var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    private mutating func key(_ name: StaticString) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        JSONText.appendQuoted(value, to: &bytes)
    }

    mutating func integer(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        key(name)
        JSONText.appendInteger(value, to: &bytes)
    }

    mutating func bool(_ name: StaticString, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    mutating func strings(_ name: StaticString, _ values: [String]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (i, value) in values.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func finish() -> String {
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
