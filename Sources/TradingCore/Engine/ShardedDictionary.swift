/// A dictionary kept as 64 smaller ones, chosen by the key: growing it rehashes one 64th of the entries at a time.
///
/// A Swift dictionary grows by rehashing every entry in one step. The engine's tables grow with every order placed,
/// and inside an order placement that step is a pause for everyone waiting on the engine: at 400,000 orders the
/// account's client_order_id index (string keys) took 50–90 ms to double, which set the server's p99 under
/// sustained load. Split 64 ways, each growth step is a 64th of that.
public struct ShardedDictionary<Key: ShardedKey, Value> {
    @usableFromInline static var shardCount: Int { 64 }
    /// Empty until the first entry (an empty one is made for every journaled account snapshot).
    @usableFromInline var shards: [[Key: Value]] = []

    public init() {}

    public subscript(key: Key) -> Value? {
        get { shards.isEmpty ? nil : shards[key.shard & (Self.shardCount - 1)][key] }
        // In place, like Dictionary's own: a value mutated through it is not copied first.
        _modify {
            if shards.isEmpty { shards = Array(repeating: [:], count: Self.shardCount) }
            yield &shards[key.shard & (Self.shardCount - 1)][key]
        }
    }

    /// Runs `body` on the key's slot, in place and with one lookup (nil: no entry; set nil to remove it).
    @inlinable
    public mutating func update<Result>(_ key: Key, _ body: (inout Value?) throws -> Result) rethrows -> Result {
        if shards.isEmpty { shards = Array(repeating: [:], count: Self.shardCount) }
        return try body(&shards[key.shard & (Self.shardCount - 1)][key])
    }

    public var count: Int { shards.reduce(0) { $0 + $1.count } }
    public var isEmpty: Bool { shards.allSatisfy(\.isEmpty) }

    /// Every entry, in no particular order.
    public var entries: [(key: Key, value: Value)] { shards.flatMap { $0.map { ($0.key, $0.value) } } }
}

/// A key that picks its shard from bits of its own, without hashing twice where it can.
public protocol ShardedKey: Hashable {
    /// Any integer that varies across keys; its low 6 bits choose the shard.
    var shard: Int { get }
}

extension Identifier: ShardedKey {
    /// The low bits are random in version-4 and version-7 ids alike.
    public var shard: Int { Int(truncatingIfNeeded: low) }
}

extension String: ShardedKey {
    /// Client order ids are caller-chosen text: the top bits of the string's hash (a dictionary uses the low ones).
    public var shard: Int { hashValue >> 58 }
}

extension ShardedDictionary: Sendable where Key: Sendable, Value: Sendable {}

extension ShardedDictionary: Equatable where Value: Equatable {
    // A key always lives in the same shard, so equal contents mean equal shards (once any are made).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        if lhs.isEmpty || rhs.isEmpty { return lhs.isEmpty && rhs.isEmpty }
        return lhs.shards == rhs.shards
    }
}

extension ShardedDictionary: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) {
        if isEmpty { hasher.combine(0) } else { hasher.combine(shards) }
    }
}

extension ShardedDictionary: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (Key, Value)...) {
        for (key, value) in elements { self[key] = value }
    }
}

/// Encoded as one plain dictionary: the same JSON as a `[Key: Value]` (stored accounts read either way).
extension ShardedDictionary: Codable where Key: Codable, Value: Codable {
    public init(from decoder: any Decoder) throws {
        for (key, value) in try [Key: Value](from: decoder) { self[key] = value }
    }

    public func encode(to encoder: any Encoder) throws {
        try Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) }).encode(to: encoder)
    }
}

/// A set kept as 64 smaller ones, for the same reason as `ShardedDictionary`: the engine's set of open orders grows
/// with every resting order, and a single `Set` doubling at hundreds of thousands of ids is a pause inside an order
/// placement.
public struct ShardedSet<Element: ShardedKey>: Sequence {
    static var shardCount: Int { 64 }
    private var shards: [Set<Element>] = []

    public init() {}

    public func contains(_ element: Element) -> Bool {
        shards.isEmpty ? false : shards[element.shard & (Self.shardCount - 1)].contains(element)
    }

    @discardableResult
    public mutating func insert(_ element: Element) -> Bool {
        if shards.isEmpty { shards = Array(repeating: [], count: Self.shardCount) }
        return shards[element.shard & (Self.shardCount - 1)].insert(element).inserted
    }

    @discardableResult
    public mutating func remove(_ element: Element) -> Element? {
        shards.isEmpty ? nil : shards[element.shard & (Self.shardCount - 1)].remove(element)
    }

    public var count: Int { shards.reduce(0) { $0 + $1.count } }
    public var isEmpty: Bool { shards.allSatisfy(\.isEmpty) }

    /// Every element, in no particular order.
    public func makeIterator() -> FlattenSequence<[Set<Element>]>.Iterator { shards.joined().makeIterator() }
}

extension ShardedSet: Sendable where Element: Sendable {}
