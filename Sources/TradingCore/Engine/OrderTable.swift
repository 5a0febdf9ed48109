/// The engine's orders by id.
///
/// Each order lives in its own box, so when the table grows it moves 24-byte entries instead of whole orders:
/// with the orders stored inline, doubling the table at 131,072 open orders copied ~50 MB in one step — a 20–40 ms
/// pause inside one unlucky order placement, which set the server's p99 under load. Copy-on-write keeps value
/// semantics: a copy of the engine never sees the other copy's changes (a shared box is replaced, not mutated).
/// The boxes sit in a sharded dictionary, so the table's own growth is never one big rehash either.
///
/// Changes go through in place: `orders[id]?.status = …` or `orders[id] = order` finds the box once and, when it is
/// this table's alone, works on the order inside it — no copy of the order out and back (an order is ~650 bytes with
/// several reference-counted fields; the fill path changes each order about ten times).
public struct OrderTable: Sendable {
    final class Box: @unchecked Sendable {
        // Mutated only while uniquely referenced (see the accessors), so sharing a box between copies is safe.
        var order: Order
        init(_ order: Order) { self.order = order }
    }

    private var boxes = ShardedDictionary<OrderID, Box>()

    public init() {}

    public subscript(id: OrderID) -> Order? {
        get { boxes[id]?.order }
        set {
            boxes.update(id) { slot in
                guard let newValue else {
                    slot = nil
                    return
                }
                if slot != nil, isKnownUniquelyReferenced(&slot!) {
                    slot!.order = newValue
                } else {
                    slot = Box(newValue)
                }
            }
        }
        _modify {
            // The box, when this table holds the only reference to it: its order is moved out (a placeholder takes
            // its place, no reference counting), changed by the caller, and moved back.
            var owned: Box?
            boxes.update(id) { slot in
                if slot != nil, isKnownUniquelyReferenced(&slot!) { owned = slot }
            }
            if let box = owned {
                var order: Order? = Self.placeholder
                swap(&order!, &box.order)
                defer {
                    if order != nil {
                        swap(&order!, &box.order)
                    } else {
                        boxes[id] = nil
                    }
                }
                yield &order
            } else {
                var order = boxes[id]?.order
                defer { if order != nil || boxes[id] != nil { self[id] = order } }
                yield &order
            }
        }
    }

    /// Runs `body` on the order in place (nil when there is no such order): one lookup, no copy of the order when
    /// its box is this table's alone.
    @discardableResult
    mutating func update<Result>(_ id: OrderID, _ body: (inout Order) -> Result) -> Result? {
        var owned: Box?
        var shared: Order?
        boxes.update(id) { slot in
            guard slot != nil else { return }
            if isKnownUniquelyReferenced(&slot!) { owned = slot } else { shared = slot!.order }
        }
        if let box = owned { return body(&box.order) }
        guard var order = shared else { return nil }
        defer { self[id] = order }
        return body(&order)
    }

    /// What `body` reads from an order (nil when there is no such order), without copying the whole order out.
    func read<Result>(_ id: OrderID, _ body: (borrowing Order) -> Result) -> Result? {
        guard let box = boxes[id] else { return nil }
        return body(box.order)
    }

    public var count: Int { boxes.count }

    /// Stands in for an order while it is moved out of its box.
    private static let placeholder = Order(
        id: OrderID(high: 0, low: 0), clientOrderID: ClientOrderID(""), accountID: AccountID(high: 0, low: 0),
        instrument: InstrumentID(0), symbol: "", side: .buy, type: .market, timeInForce: .day, orderClass: .simple,
        qty: nil, notional: nil, filledQty: .zero, filledValue: .zero, limitPrice: nil, stopPrice: nil,
        trailPrice: nil, trailPercent: nil, hwm: nil, extendedHours: false, status: .new, createdAt: .distantPast,
        updatedAt: .distantPast, submittedAt: .distantPast, filledAt: nil, expiredAt: nil, canceledAt: nil,
        failedAt: nil, replacedAt: nil, expiresAt: nil, replacedBy: nil, replaces: nil, legs: [], parentID: nil,
        triggered: false, fees: .zero, reason: nil, eligibleAt: .distantPast, reservedCash: .zero,
        reservedShares: .zero, positionIntent: nil)
}
