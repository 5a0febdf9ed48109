import TradingCore

/// One of the database's virtual shards (0 ..< the shard count fixed when the database was created). Every account
/// lives in exactly one; one owner at a time holds a shard's accounts in memory and writes their journal.
public struct ShardID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let index: Int

    public init(_ index: Int) { self.index = index }
    public var description: String { String(index) }
    public static func < (a: ShardID, b: ShardID) -> Bool { a.index < b.index }
}

/// A paper account: who owns it, and its balances and positions. Open orders and used client order ids are not
/// in `snapshot` as stored; `Storage.restorable(_:)` adds them from the orders table.
public struct AccountRecord: Sendable, Hashable {
    public var id: AccountID
    public var userID: UserID
    public var name: String
    public var market: Market
    public var accountNumber: String
    public var createdAt: Timestamp
    public var snapshot: AccountSnapshot
    /// The virtual shard the account lives in, chosen when it was opened and never changed.
    public var shard: ShardID

    public init(
        id: AccountID, userID: UserID, name: String, market: Market, accountNumber: String,
        createdAt: Timestamp, snapshot: AccountSnapshot, shard: ShardID = ShardID(0)
    ) {
        self.shard = shard
        self.id = id
        self.userID = userID
        self.name = name
        self.market = market
        self.accountNumber = accountNumber
        self.createdAt = createdAt
        self.snapshot = snapshot
    }
}

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
