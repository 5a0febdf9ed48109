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

    public var description: String {
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let s = String(value, radix: 16)
            return String(repeating: "0", count: digits - s.count) + s
        }
        return hex(high >> 32, 8) + "-" + hex(high >> 16 & 0xFFFF, 4) + "-" + hex(high & 0xFFFF, 4) + "-"
            + hex(low >> 48, 4) + "-" + hex(low & 0xFFFF_FFFF_FFFF, 12)
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
