/// A member name written once as its JSON bytes (`"name":`), for writers that name the same keys on every call.
public struct JSONKey: Sendable, Hashable {
    public let name: String
    public let bytes: [UInt8]

    public init(_ name: String) {
        self.name = name
        var bytes: [UInt8] = []
        JSONText.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        self.bytes = bytes
    }
}

/// One JSON object written straight into bytes, member by member: `key(_:)` writes the separator and the name,
/// then the caller appends the value to `bytes` (with `JSONText` and the typed `appendQuoted` writers). What
/// answers order placements and journals every order, where building a `JSONValue` tree or going through
/// `Encoder` containers cost as much CPU as the rest of the step.
public struct JSONObjectWriter {
    public var bytes: [UInt8]
    private var empty = true

    public init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// An object written on after `bytes`, which the writer takes (no copy) until `finish()` hands them back:
    /// a member's value inside another writer's object.
    public init(continuing bytes: inout [UInt8]) {
        self.bytes = []
        swap(&self.bytes, &bytes)
        self.bytes.append(UInt8(ascii: "{"))
    }

    /// Starts a member: a comma after the first, then `"name":`.
    public mutating func key(_ key: JSONKey) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        bytes.append(contentsOf: key.bytes)
    }

    /// Closes the object and hands over its bytes.
    public mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
