/// A 128-bit identifier printed as a UUID ("2f4c…-4…"), used for orders, accounts and executions.
public struct Identifier: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, LosslessStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A version-4 (random) UUID drawn from a seeded generator: deterministic for a given seed.
    public static func random(using generator: inout SeededGenerator) -> Identifier {
        let high = (generator.next() & ~0xF000) | 0x4000
        let low = (generator.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return Identifier(high: high, low: low)
    }

    /// A version-7 UUID: the instant's Unix milliseconds in the top 48 bits, then seeded random bits. Ids made
    /// in time order sort (and index) in time order, so a database inserting them appends to the same few
    /// index pages instead of touching a random page per row. Deterministic for a given seed and time.
    public static func timeOrdered(at time: Timestamp, using generator: inout SeededGenerator) -> Identifier {
        let milliseconds = UInt64(clamping: max(0, time.nanoseconds / 1_000_000)) & 0xFFFF_FFFF_FFFF
        let high = milliseconds << 16 | 0x7000 | (generator.next() & 0x0FFF)
        let low = (generator.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return Identifier(high: high, low: low)
    }

    /// Parses the 8-4-4-4-12 hex form, case-insensitively.
    public init?(_ description: String) {
        let hex = description.utf8.filter { $0 != UInt8(ascii: "-") }
        guard description.utf8.count == 36, hex.count == 32 else { return nil }
        let dashPositions = [8, 13, 18, 23]
        let bytes = Array(description.utf8)
        for p in dashPositions where bytes[p] != UInt8(ascii: "-") { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (i, c) in hex.enumerated() {
            let v: UInt64
            switch c {
            case 48...57: v = UInt64(c - 48)
            case 97...102: v = UInt64(c - 87)
            case 65...70: v = UInt64(c - 55)
            default: return nil
            }
            if i < 16 { high = high << 4 | v } else { low = low << 4 | v }
        }
        self.init(high: high, low: low)
    }

    /// The canonical lowercase 8-4-4-4-12 form, written into one 36-byte string (ids are formatted for every
    /// stored row and every API answer).
    public var description: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            write(into: buffer)
            return 36
        }
    }

    /// Appends the canonical form as a JSON string (quoted), without making a `String` first.
    public func appendQuoted(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: 36))
        out.withUnsafeMutableBufferPointer { write(into: UnsafeMutableBufferPointer(rebasing: $0[start...])) }
        out.append(UInt8(ascii: "\""))
    }

    private func write(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        let digits: StaticString = "0123456789abcdef"
        var i = 0
        func put(_ value: UInt64, _ count: Int) {
            for k in stride(from: count - 1, through: 0, by: -1) {
                buffer[i] = digits.utf8Start[Int(value >> UInt64(4 * k) & 0xF)]
                i += 1
            }
        }
        put(high >> 32, 8); buffer[i] = UInt8(ascii: "-"); i += 1
        put(high >> 16 & 0xFFFF, 4); buffer[i] = UInt8(ascii: "-"); i += 1
        put(high & 0xFFFF, 4); buffer[i] = UInt8(ascii: "-"); i += 1
        put(low >> 48, 4); buffer[i] = UInt8(ascii: "-"); i += 1
        put(low & 0xFFFF_FFFF_FFFF, 12)
    }

    public static func < (lhs: Identifier, rhs: Identifier) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = Identifier(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not a UUID")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

public typealias OrderID = Identifier
public typealias AccountID = Identifier
