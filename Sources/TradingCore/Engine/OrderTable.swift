/// The engine's orders by id.
///
/// Each order lives in its own box, so when the table grows it moves 24-byte entries instead of whole orders:
/// with the orders stored inline, doubling the table at 131,072 open orders copied ~50 MB in one step — a 20–40 ms
/// pause inside one unlucky order placement, which set the server's p99 under load. Copy-on-write keeps value
/// semantics: a copy of the engine never sees the other copy's changes (a shared box is replaced, not mutated).
/// The boxes sit in a sharded dictionary, so the table's own growth is never one big rehash either.
public struct OrderTable: Sendable {
    final class Box: @unchecked Sendable {
        // Mutated only while uniquely referenced (see the setter), so sharing a box between copies is safe.
        var order: Order
        init(_ order: Order) { self.order = order }
    }

    private var boxes = ShardedDictionary<OrderID, Box>()

    public init() {}

    public subscript(id: OrderID) -> Order? {
        get { boxes[id]?.order }
        set {
            guard let newValue else {
                boxes[id] = nil
                return
            }
            if boxes[id] != nil, isKnownUniquelyReferenced(&boxes[id]!) {
                boxes[id]!.order = newValue
            } else {
                boxes[id] = Box(newValue)
            }
        }
    }

    public var count: Int { boxes.count }
}
