/// The id a client gives its order (Alpaca's `client_order_id`): 1 to 128 characters, unique within an account for
/// every order it ever placed. The engine makes one (a UUID) when the client gives none.
public struct ClientOrderID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByStringInterpolation, ShardedKey
{
    public let text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral text: String) { self.text = text }

    public var description: String { text }
    /// Client order ids are caller-chosen text: the top bits of the text's hash pick the shard (a dictionary uses
    /// the low ones).
    public var shard: Int { text.hashValue >> 58 }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.text < rhs.text }

    public init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
