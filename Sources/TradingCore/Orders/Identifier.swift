/// A 128-bit identifier printed as a UUID ("2f4c…-4…"): the value inside every typed id (`OrderID`, `AccountID`,
/// `ExecutionID`, `QueueRuleID`), and used bare for things no caller can confuse (notification ids).
public struct Identifier: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, LosslessStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public static func == (lhs: Identifier, rhs: Identifier) -> Bool { lhs.high == rhs.high && lhs.low == rhs.low }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }

    /// The hash dictionaries and sets of ids use: the id's bits mixed with the table's seed by two multiply–xorshift
    /// rounds instead of a SipHash run. The engine looks ids up some forty times per order (orders, book positions,
    /// accounts, open orders) and SipHash's set-up and finalization were ~18% of an order's time (measured with
    /// TradingCoreBench's round trips). The bits are mostly random already (version 4 and 7 ids), and the seed still
    /// differs per table and per process.
    public func _rawHashValue(seed: Int) -> Int {
        var x = low ^ UInt64(bitPattern: Int64(seed)) ^ (high &* 0x9E37_79B9_7F4A_7C15)
        x = (x ^ (x >> 31)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 29)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ (x >> 32))
    }

    /// A version-4 (random) UUID: deterministic for a seeded generator.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> Identifier {
        let high = (generator.next() & ~0xF000) | 0x4000
        let low = (generator.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return Identifier(high: high, low: low)
    }

    /// A version-7 UUID (RFC 9562): the instant's Unix milliseconds in the top 48 bits, the fraction of the
    /// millisecond in the next 12 (method 3, ~244 ns steps), then 62 seeded random bits. Deterministic for a given
    /// seed and time.
    ///
    /// With `after`, the id is also strictly greater than that one (a random step past it when the clock has not
    /// moved on, or went back). Ids made in strictly increasing order are appended to the database's indexes: every
    /// insert lands at the right edge of the same page, so a group commit of N orders writes one or two index pages
    /// per index instead of up to N half-full ones.
    public static func timeOrdered(
        at time: Timestamp, after previous: Identifier? = nil,
        using generator: inout SeededGenerator
    ) -> Identifier {
        let nanoseconds = UInt64(clamping: max(0, time.nanoseconds))
        let milliseconds = nanoseconds / 1_000_000 & 0xFFFF_FFFF_FFFF
        let fraction = (nanoseconds % 1_000_000) * 4_096 / 1_000_000
        let high = milliseconds << 16 | 0x7000 | fraction
        let random = generator.next()
        let low = (random & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let id = Identifier(high: high, low: low)
        guard let previous, id <= previous, previous.high & 0xF000 == 0x7000 else { return id }
        // Step past `previous` by 1 + up to 2³² (from the draw's top bits), carrying into the 12-bit fraction
        // and then the milliseconds, never into the version or variant bits.
        let step = 1 + (random >> 32)
        let sum = (previous.low & 0x3FFF_FFFF_FFFF_FFFF) + step // < 2⁶³: cannot overflow
        if sum <= 0x3FFF_FFFF_FFFF_FFFF {
            return Identifier(high: previous.high, low: sum | 0x8000_0000_0000_0000)
        }
        let carried =
            previous.high & 0x0FFF == 0x0FFF
            ? (previous.high >> 16 + 1) << 16 | 0x7000
            : previous.high + 1
        return Identifier(high: carried, low: (sum & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
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

    /// The canonical lowercase 8-4-4-4-12 form.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.textLength)
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The length of the canonical form.
    public static let textLength = 36

    /// Appends the canonical form's UTF-8 bytes to `out` (ids are written into every stored row and every API
    /// answer; the writers append them in place instead of making a `String`).
    public func appendText(to out: inout [UInt8]) {
        func put(_ value: UInt64, _ count: Int) {
            for k in stride(from: count - 1, through: 0, by: -1) {
                let nibble = UInt8(truncatingIfNeeded: value >> UInt64(4 * k) & 0xF)
                out.append(nibble < 10 ? 48 + nibble : 87 + nibble)
            }
        }
        put(high >> 32, 8)
        out.append(UInt8(ascii: "-"))
        put(high >> 16 & 0xFFFF, 4)
        out.append(UInt8(ascii: "-"))
        put(high & 0xFFFF, 4)
        out.append(UInt8(ascii: "-"))
        put(low >> 48, 4)
        out.append(UInt8(ascii: "-"))
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

/// What a typed identifier names: a marker type with no values.
public protocol IdentifierKind: Sendable {}

/// A 128-bit identifier of one kind of thing, so an order id cannot be passed where an account id is expected.
/// It prints, parses, sorts and encodes exactly as the UUID inside it.
public struct TypedIdentifier<Kind: IdentifierKind>: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    LosslessStringConvertible, ShardedKey
{
    public let uuid: Identifier

    @inlinable public init(_ uuid: Identifier) { self.uuid = uuid }
    @inlinable public init(high: UInt64, low: UInt64) { uuid = Identifier(high: high, low: low) }

    /// Parses the 8-4-4-4-12 hex form, case-insensitively.
    public init?(_ description: String) {
        guard let uuid = Identifier(description) else { return nil }
        self.uuid = uuid
    }

    @inlinable public var high: UInt64 { uuid.high }
    @inlinable public var low: UInt64 { uuid.low }
    public var description: String { uuid.description }
    @inlinable public var shard: Int { uuid.shard }

    /// Appends the canonical form's UTF-8 bytes.
    public func appendText(to out: inout [UInt8]) { uuid.appendText(to: &out) }

    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool { lhs.uuid == rhs.uuid }
    @inlinable public static func < (lhs: Self, rhs: Self) -> Bool { lhs.uuid < rhs.uuid }
    @inlinable public func hash(into hasher: inout Hasher) { uuid.hash(into: &hasher) }
    public func _rawHashValue(seed: Int) -> Int { uuid._rawHashValue(seed: seed) }

    public init(from decoder: any Decoder) throws { uuid = try Identifier(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try uuid.encode(to: encoder) }
}

public enum OrderIdentifierKind: IdentifierKind {}
public enum AccountIdentifierKind: IdentifierKind {}
public enum ExecutionIdentifierKind: IdentifierKind {}
public enum QueueRuleIdentifierKind: IdentifierKind {}
public enum AlertIdentifierKind: IdentifierKind {}
public enum GameIdentifierKind: IdentifierKind {}
public enum TransferIdentifierKind: IdentifierKind {}

/// An order (its Alpaca `id`).
public typealias OrderID = TypedIdentifier<OrderIdentifierKind>
/// A trading account.
public typealias AccountID = TypedIdentifier<AccountIdentifierKind>
/// One execution (a fill), shared by its ledger entries.
public typealias ExecutionID = TypedIdentifier<ExecutionIdentifierKind>
/// A queued rule (queue purchase).
public typealias QueueRuleID = TypedIdentifier<QueueRuleIdentifierKind>
/// A price alert.
public typealias AlertID = TypedIdentifier<AlertIdentifierKind>
/// A game (a competition whose players trade game accounts).
public typealias GameID = TypedIdentifier<GameIdentifierKind>
/// A transfer of money between two accounts of one user (`TransferBooking`).
public typealias TransferID = TypedIdentifier<TransferIdentifierKind>
