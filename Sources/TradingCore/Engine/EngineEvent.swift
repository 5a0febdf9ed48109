/// What the engine reports after a command or market event: order updates (Alpaca's trade_updates) and
/// ledger entries. The persistence layer writes them; streams publish them.
public enum EngineEvent: Sendable, Hashable {
    case order(OrderUpdate)
    case ledger(LedgerEntry)
}

/// An order's lifecycle event, in the shape of Alpaca's trade_updates message. Codable: on a cluster, other nodes'
/// streams read it back from the database (`LiveEvent`).
public struct OrderUpdate: Sendable, Codable, Hashable {
    public enum Event: String, Sendable, Codable, Hashable {
        case new, fill, canceled, expired, replaced, rejected
        case partialFill = "partial_fill"
        case doneForDay = "done_for_day"
        case pendingNew = "pending_new"
        case held
    }

    public var event: Event
    public var order: Order
    public var time: Timestamp
    public var fill: Fill?
    /// The account's position in the instrument after this event.
    public var positionQty: Quantity
}
