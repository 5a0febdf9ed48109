import TradingCore

/// Which of an account's orders to list (Alpaca's GET /v2/orders parameters).
public struct OrderQuery: Sendable {
    public enum Status: String, Sendable { case open, closed, all }
    public var status: Status = .open
    public var limit = 50
    public var after: Timestamp?
    public var until: Timestamp?
    public var ascending = false
    public var symbols: [String] = []
    public init() {}
}

/// Which of an account's ledger entries to list (Alpaca's GET /v2/account/activities parameters).
public struct ActivityQuery: Sendable {
    /// Stored kind names (`LedgerEntry.Kind.name`); empty = every kind.
    public var kinds: Set<String> = []
    /// Entries strictly after / before these instants.
    public var after: Timestamp?
    public var until: Timestamp?
    public var ascending = false
    public var limit = 100
    /// Continue after the entry with this sequence number (the previous page's last entry), in `ascending` order.
    public var afterSequence: Int64?
    public init() {}
}
