import TradingCore

/// Everything one engine step changed, written in one transaction: orders as they now stand, new ledger
/// entries, the touched accounts' balances and positions, and the shard engine's random state. Either all of it is
/// durable or none. (Accounts are stored without their open orders: those live in the orders table, so a step's
/// write stays small however many orders an account has.)
public struct Journal: Sendable {
    public var orders: [Order] = []
    public var entries: [LedgerEntry] = []
    public var accounts: [Account] = []
    /// Notifications the step causes (a fill, an order the system canceled), durable with it.
    public var notifications: [NotificationRecord] = []
    /// The step's order events, in the order they happened (its `orders` are their last states). On a cluster
    /// they are committed with the step as live events, for the streams of clients connected to other nodes.
    public var updates: [OrderUpdate] = []
    /// Queued rules the step added or changed — a rule that fired is written with the order it placed, so a
    /// restart can never fire it twice.
    public var rules: [QueueRuleRecord] = []
    /// Price alerts the step added or changed — a once-only alert that triggered is written with its notification
    /// and trigger, so a restart can never trigger it twice.
    public var alerts: [AlertRecord] = []
    public var alertTriggers: [AlertTriggerRecord] = []
    /// Transfers the step debited (pending) or credited (completed), and the credits themselves: a transfer's debit
    /// commits with its record, its credit with the record completed and its one `TransferCredit`.
    public var transfers: [TransferRecord] = []
    public var transferCredits: [TransferCredit] = []
    /// The shard whose engine made the step, and that engine's random state after it (keyed by shard).
    public var shard = ShardID(0)
    public var randomState: SeededGenerator?
    /// On a cluster, the epoch of the shard's lease its writer holds: the commit is refused (`StorageError.fenced`)
    /// unless the lease still has it. Nil in a single process, where nothing else can write the shard.
    public var epoch: Int64?

    public init(
        orders: [Order] = [], entries: [LedgerEntry] = [], accounts: [Account] = [],
        notifications: [NotificationRecord] = [], rules: [QueueRuleRecord] = [], randomState: SeededGenerator? = nil
    ) {
        self.orders = orders
        self.entries = entries
        self.accounts = accounts
        self.notifications = notifications
        self.rules = rules
        self.randomState = randomState
    }

    public var isEmpty: Bool {
        orders.isEmpty && entries.isEmpty && accounts.isEmpty && notifications.isEmpty && rules.isEmpty
            && alerts.isEmpty && alertTriggers.isEmpty && transfers.isEmpty && transferCredits.isEmpty
    }
}
