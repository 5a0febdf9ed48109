/// The id a client gives its order (Alpaca's `client_order_id`): 1 to 128 characters, unique within an account for
/// every order it ever placed. The engine makes one (a UUID) when the client gives none.
///
/// Most orders carry the engine's own UUID, so an id in the canonical UUID form (lowercase 8-4-4-4-12, which is how
/// the engine prints the ones it makes) is kept as its 128 bits rather than as text: placing an order then makes no
/// string, and the account's index of used ids hashes two integers instead of 36 characters. Any other text is kept
/// as it is. The form follows from the text alone, so two ids are equal exactly when their texts are.
public struct ClientOrderID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByStringInterpolation, ShardedKey
{
    enum Form: Sendable, Hashable {
        case uuid(Identifier)
        case text(String)
    }

    let form: Form

    public init(_ text: String) { form = Identifier(canonical: text).map(Form.uuid) ?? .text(text) }
    public init(stringLiteral text: String) { self.init(text) }
    /// The engine's own id for an order placed without one.
    init(_ id: Identifier) { form = .uuid(id) }

    public var text: String {
        switch form {
        case .uuid(let id): return id.description
        case .text(let text): return text
        }
    }

    public var description: String { text }
    /// The text's length in UTF-8 bytes.
    public var utf8Count: Int {
        switch form {
        case .uuid: return Identifier.textLength
        case .text(let text): return text.utf8.count
        }
    }
    /// The UUID's random low bits, or the top bits of the text's hash (a dictionary uses the low ones).
    public var shard: Int {
        switch form {
        case .uuid(let id): return id.shard
        case .text(let text): return text.hashValue >> 58
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch form {
        case .uuid(let id): id.hash(into: &hasher)
        case .text(let text): text.hash(into: &hasher)
        }
    }

    /// A UUID hashes as `Identifier` does (two multiply–xorshift rounds); text by SipHash.
    public func _rawHashValue(seed: Int) -> Int {
        switch form {
        case .uuid(let id): return id._rawHashValue(seed: seed)
        case .text(let text): return text._rawHashValue(seed: seed)
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        if case .uuid(let a) = lhs.form, case .uuid(let b) = rhs.form { return a < b } // the texts sort the same
        return lhs.text < rhs.text
    }

    public init(from decoder: any Decoder) throws { self.init(try decoder.singleValueContainer().decode(String.self)) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

extension Identifier {
    /// Parses exactly the canonical form `description` prints (lowercase hex), nil for anything else.
    init?(canonical text: String) {
        guard text.utf8.count == Self.textLength else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for (i, c) in text.utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
                continue
            }
            let v: UInt64
            switch c {
            case 48...57: v = UInt64(c - 48)
            case 97...102: v = UInt64(c - 87)
            default: return nil
            }
            if digits < 16 { high = high << 4 | v } else { low = low << 4 | v }
            digits += 1
        }
        self.init(high: high, low: low)
    }
}
