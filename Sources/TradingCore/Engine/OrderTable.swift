/// The engine's orders by id.
///
/// An `Order` is a reference to its fields (copy-on-write), so when the table grows it moves 8-byte entries instead
/// of whole orders: with the orders stored inline, doubling the table at 131,072 open orders copied ~50 MB in one
/// step — a 20–40 ms pause inside one unlucky order placement, which set the server's p99 under load. The entries
/// sit in a sharded dictionary, so the table's own growth is never one big rehash either.
///
/// Changes go through in place: `orders[id]?.status = …` finds the entry once and, when the order's fields are this
/// table's alone, changes them where they are (the fill path changes each order about ten times). A copy of the
/// table (of the engine) shares the fields until either side changes an order.
public struct OrderTable: Sendable {
    private var entries = ShardedDictionary<OrderID, Order>()

    public init() {}

    public subscript(id: OrderID) -> Order? {
        get { entries[id] }
        _modify { yield &entries[id] }
    }

    /// Runs `body` on the order in place (nil when there is no such order), with one lookup.
    @discardableResult
    mutating func update<Result>(_ id: OrderID, _ body: (inout Order) -> Result) -> Result? {
        entries.update(id) { slot in
            guard var order = slot.take() else { return nil }
            defer { slot = order }
            return body(&order)
        }
    }

    /// What `body` reads from an order (nil when there is no such order).
    func read<Result>(_ id: OrderID, _ body: (borrowing Order) -> Result) -> Result? {
        guard let order = entries[id] else { return nil }
        return body(order)
    }

    public var count: Int { entries.count }
}
