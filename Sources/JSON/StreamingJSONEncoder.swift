/// A JSON encoder for the journal's hot path (and anything else that encodes `Codable` values often): it writes text straight into one byte buffer as `encode(to:)`
/// runs, where Foundation's `JSONEncoder` first builds a tree of boxed values and then walks it (that tree was a
/// fifth of the CPU time of an order placement).
///
/// Output is compact JSON that `JSONDecoder` reads back to the same value. Keys come in the order the type
/// encodes them (declaration order for synthesized `Codable`), so output is deterministic. Floating-point
/// values are refused: nothing on a money path may be one.
///
/// Coding paths are not tracked (they would cost an allocation per nested value); a refused float names only
/// its own key.
///
/// How containers close without an explicit "end" call: every container owns a frame on a stack. A write into
/// a container first closes any frames opened above it (finished nested containers), and when a nested value's
/// `encode(to:)` returns, every frame it opened is closed.
public struct StreamingJSONEncoder {
    public static func encode(_ value: some Encodable) throws -> String {
        let writer = JSONStreamWriter()
        let encoder = StreamingEncoder(writer: writer)
        try writer.encodeValue(value, with: encoder)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// Floating-point values have no place in stored money state.
public struct FloatingPointNotStored: Error, CustomStringConvertible {
    public var codingPath: [any CodingKey]
    public var description: String {
        "floating-point value at \(codingPath.map(\.stringValue).joined(separator: ".")) is not stored"
    }
}

final class JSONStreamWriter {
    var bytes: [UInt8] = []
    /// Open containers: `true` for an object, and whether anything was written into it yet.
    var frames: [(isObject: Bool, hasElements: Bool)] = []

    init() { bytes.reserveCapacity(1024) }

    /// Closes frames deeper than `depth` (a container at index `depth - 1` stays open).
    func close(downTo depth: Int) {
        while frames.count > depth {
            bytes.append(frames.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    func open(object: Bool) -> Int {
        bytes.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        frames.append((object, false))
        return frames.count
    }

    /// Prepares frame `depth` (1-based) for its next element: closes finished nested containers and writes the
    /// separator and, in an object, the key.
    func beginElement(in depth: Int, key: String?) {
        close(downTo: depth)
        if frames[depth - 1].hasElements { bytes.append(UInt8(ascii: ",")) }
        frames[depth - 1].hasElements = true
        if let key {
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
        }
    }

    /// Encodes a nested value and closes whatever containers it opened; a value that opened none and wrote
    /// nothing is written as `{}` (as `JSONEncoder` does).
    func encodeValue(_ value: some Encodable, with encoder: StreamingEncoder) throws {
        let depth = frames.count
        let start = bytes.count
        try value.encode(to: encoder)
        close(downTo: depth)
        if bytes.count == start { bytes.append(contentsOf: "{}".utf8) }
    }

    func writeString(_ s: String) { JSONText.appendQuoted(s, to: &bytes) }

    func writeInteger(_ value: some BinaryInteger) {
        if let small = Int64(exactly: value) {
            JSONText.appendInteger(small, to: &bytes)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }
    func writeBool(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }
    func writeNull() { bytes.append(contentsOf: "null".utf8) }
}

struct StreamingEncoder: Encoder {
    let writer: JSONStreamWriter
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedContainer<Key>(writer: writer, depth: writer.open(object: true)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(writer: writer, depth: writer.open(object: false))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValue(writer: writer) }
}

/// Index keys for array elements in coding paths.
private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONStreamWriter
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    private func begin(_ key: Key) { writer.beginElement(in: depth, key: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws {
        begin(key)
        writer.writeNull()
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        begin(key)
        writer.writeBool(value)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        begin(key)
        writer.writeString(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws { throw FloatingPointNotStored(codingPath: [key]) }
    mutating func encode(_ value: Float, forKey key: Key) throws { throw FloatingPointNotStored(codingPath: [key]) }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        begin(key)
        writer.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        begin(key)
        try writer.encodeValue(value, with: StreamingEncoder(writer: writer))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        begin(key)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, depth: writer.open(object: true)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        begin(key)
        return UnkeyedContainer(writer: writer, depth: writer.open(object: false))
    }

    mutating func superEncoder() -> any Encoder {
        writer.beginElement(in: depth, key: "super")
        return StreamingEncoder(writer: writer)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        begin(key)
        return StreamingEncoder(writer: writer)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONStreamWriter
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var count = 0

    init(writer: JSONStreamWriter, depth: Int) {
        self.writer = writer
        self.depth = depth
    }

    private mutating func begin() {
        writer.beginElement(in: depth, key: nil)
        count += 1
    }

    mutating func encodeNil() throws {
        begin()
        writer.writeNull()
    }
    mutating func encode(_ value: Bool) throws {
        begin()
        writer.writeBool(value)
    }
    mutating func encode(_ value: String) throws {
        begin()
        writer.writeString(value)
    }
    mutating func encode(_ value: Double) throws {
        throw FloatingPointNotStored(codingPath: [IndexKey(intValue: count)])
    }
    mutating func encode(_ value: Float) throws {
        throw FloatingPointNotStored(codingPath: [IndexKey(intValue: count)])
    }
    mutating func encode(_ value: Int) throws {
        begin()
        writer.writeInteger(value)
    }
    mutating func encode(_ value: Int8) throws {
        begin()
        writer.writeInteger(value)
    }
    mutating func encode(_ value: Int16) throws {
        begin()
        writer.writeInteger(value)
    }
    mutating func encode(_ value: Int32) throws {
        begin()
        writer.writeInteger(value)
    }
    mutating func encode(_ value: Int64) throws {
        begin()
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt) throws {
        begin()
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt8) throws {
        begin()
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt16) throws {
        begin()
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt32) throws {
        begin()
        writer.writeInteger(value)
    }
    mutating func encode(_ value: UInt64) throws {
        begin()
        writer.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        begin()
        try writer.encodeValue(value, with: StreamingEncoder(writer: writer))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        begin()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, depth: writer.open(object: true)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        begin()
        return UnkeyedContainer(writer: writer, depth: writer.open(object: false))
    }

    mutating func superEncoder() -> any Encoder {
        begin()
        return StreamingEncoder(writer: writer)
    }
}

private struct SingleValue: SingleValueEncodingContainer {
    let writer: JSONStreamWriter
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { writer.writeNull() }
    mutating func encode(_ value: Bool) throws { writer.writeBool(value) }
    mutating func encode(_ value: String) throws { writer.writeString(value) }
    mutating func encode(_ value: Double) throws { throw FloatingPointNotStored(codingPath: []) }
    mutating func encode(_ value: Float) throws { throw FloatingPointNotStored(codingPath: []) }
    mutating func encode(_ value: Int) throws { writer.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { writer.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { writer.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { writer.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { writer.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { writer.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try writer.encodeValue(value, with: StreamingEncoder(writer: writer))
    }
}
