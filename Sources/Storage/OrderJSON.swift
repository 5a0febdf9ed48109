import BrokerageModel
import JSON
import TradingCore

extension Order {
    /// The order's stored JSON, written from `Order.Field` straight into bytes: byte for byte what the synthesized
    /// `Codable` writes through `StreamingJSONEncoder` (same keys, same order, absent nils left out), which still
    /// reads it back. Every order placement journals one of these; going through `Encoder` containers cost about as
    /// much CPU as the rest of the journal step. `StreamingJSONEncoderTests` holds the two to the same bytes for
    /// orders in every state, with every optional field set.
    func storedJSON() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(768)
        appendStoredJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `storedJSON()` appended to `bytes`.
    func appendStoredJSON(to bytes: inout [UInt8]) {
        var w = JSONObjectWriter(continuing: &bytes)
        for (field, key) in Self.storedKeys {
            let value = field.value(of: self)
            if value.isAbsent { continue }
            w.key(key)
            switch value {
            case .id(let id?): id.appendQuoted(to: &w.bytes)
            case .ids(let ids):
                w.bytes.append(UInt8(ascii: "["))
                for (i, id) in ids.enumerated() {
                    if i > 0 { w.bytes.append(UInt8(ascii: ",")) }
                    id.appendQuoted(to: &w.bytes)
                }
                w.bytes.append(UInt8(ascii: "]"))
            case .text(let text?): JSONText.appendQuoted(text, to: &w.bytes)
            case .decimal(let d?): d.appendQuoted(to: &w.bytes)
            // Times are stored as nanoseconds since the epoch (`Timestamp`'s Codable form).
            case .time(let t?): JSONText.appendInteger(t.nanoseconds, to: &w.bytes)
            case .integer(let n): JSONText.appendInteger(n, to: &w.bytes)
            case .flag(let b): w.bytes.append(contentsOf: b ? "true".utf8 : "false".utf8)
            case .id(nil), .text(nil), .decimal(nil), .time(nil): break // left out above
            }
        }
        bytes = w.finish()
    }

    /// Every field with its key's bytes, in declaration order (the synthesized encoder's order).
    private static let storedKeys: [(Field, JSONKey)] = Field.allCases.map { ($0, JSONKey($0.stringValue)) }
}

extension OrderUpdate {
    /// The update as a cluster's live event body (`EncodedStep`): byte for byte what `StreamingJSONEncoder` writes
    /// for it, with the order written by `Order.appendStoredJSON` — encoding updates through `Encoder` containers
    /// took a tenth of a PostgreSQL node's CPU on the load benchmark. `StreamingJSONEncoderTests` holds the two to
    /// the same bytes.
    /// `orderJSON`: the order's `storedJSON()` when the caller has it already (the journal stores the same state).
    func storedJSON(orderJSON: String? = nil) throws -> String {
        var w = JSONObjectWriter(capacity: 1024)
        w.key(Self.keys.event)
        JSONText.appendQuoted(event.rawValue, to: &w.bytes)
        w.key(Self.keys.order)
        if let orderJSON {
            w.bytes.append(contentsOf: orderJSON.utf8)
        } else {
            order.appendStoredJSON(to: &w.bytes)
        }
        w.key(Self.keys.time)
        JSONText.appendInteger(time.nanoseconds, to: &w.bytes)
        if let fill {
            w.key(Self.keys.fill)
            w.bytes.append(contentsOf: try StreamingJSONEncoder.encode(fill).utf8)
        }
        w.key(Self.keys.positionQty)
        positionQty.appendQuoted(to: &w.bytes)
        return String(decoding: w.finish(), as: UTF8.self)
    }

    /// The synthesized `Codable`'s keys, in its order.
    private static let keys = (
        event: JSONKey("event"), order: JSONKey("order"), time: JSONKey("time"), fill: JSONKey("fill"),
        positionQty: JSONKey("positionQty")
    )
}
