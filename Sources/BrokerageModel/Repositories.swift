import TradingCore

// The brokerage's records by aggregate, and where they are kept. Each part of the brokerage takes only the
// repositories it needs (a shard: accounts, rules, equity history and games; the user directory: users), so what a
// service can read and write is visible in its type. The Storage module implements each in SQL, on SQLite and
// PostgreSQL alike: a type per aggregate in `Storage/Repositories/SQL<Aggregate>.swift`, and the database itself for
// accounts and their journal (`Storage+Repositories.swift`).

/// Users, their web sessions, their API keys and their languages.
public protocol UserRepository: Sendable {
    func createUser(_ user: UserRecord) async throws
    func user(username: String) async throws -> UserRecord?
    func user(id: UserID) async throws -> UserRecord?
    func userCount() async throws -> Int
    func setLanguage(_ language: String?, user: UserID) async throws
    func userLanguages() async throws -> [UserID: String]
    func createSession(tokenHash: String, userID: UserID, createdAt: Timestamp, expiresAt: Timestamp) async throws
    func sessionUser(tokenHash: String, at now: Timestamp) async throws -> UserID?
    func deleteSession(tokenHash: String) async throws
    func createAPIKey(_ key: APIKeyRecord, at time: Timestamp) async throws
    func apiKey(_ keyID: String) async throws -> APIKeyRecord?
    /// An account's API keys, oldest first.
    func apiKeys(of account: AccountID) async throws -> [APIKeyRecord]
    /// Deletes one of the account's keys (false: it has no such key) or all of them (how many there were).
    func deleteAPIKey(_ keyID: String, of account: AccountID) async throws -> Bool
    func deleteAPIKeys(of account: AccountID) async throws -> Int
    /// Replaces a user's password hash; `mustChange` makes their next log-in ask for a new one.
    func setPassword(user: UserID, hash: String, mustChange: Bool) async throws
    /// Notes a log-in with the password.
    func recordLogin(user: UserID, at time: Timestamp) async throws
}

/// Classes, their rosters, assignments and marks.
public protocol ClassRepository: Sendable {
    func createClass(_ record: ClassRecord) async throws
    /// Writes a class's name and teachers.
    func saveClass(_ record: ClassRecord) async throws
    func classRecord(_ id: ClassID) async throws -> ClassRecord?
    /// The classes a user teaches or is a student of (removed students' classes included: their work stays).
    func classes(of user: UserID) async throws -> [ClassRecord]
    /// Writes roster rows and creates the new users among them in one transaction: all of them, or none (a
    /// username taken, a student already on the roster).
    func enroll(_ students: [ClassStudentRecord], creating users: [UserRecord]) async throws
    /// Writes a student's roster row (a removal).
    func saveStudent(_ student: ClassStudentRecord) async throws
    /// A class's roster, in the order students were added.
    func students(of id: ClassID) async throws -> [ClassStudentRecord]
    /// Puts students of the class (on the roster, in no team) in a team named `name` sharing `account`, all of them
    /// or none: `StorageError.duplicate` when the name is taken in the class or a student is already in a team.
    func formTeam(_ name: String, account: AccountID, members: [UserID], in classID: ClassID) async throws
    /// Takes the team's members out of it (each trades their own account again); false when the class has no such
    /// team.
    func disbandTeam(_ name: String, in classID: ClassID) async throws -> Bool
    /// The team accounts a user trades as a member (an indexed read: the roster rows are found by user).
    func teamAccounts(of user: UserID) async throws -> [AccountID]
    /// The members of a team by its account (none: not a team's), those of every team account of a shard, and those
    /// of every team by the shard of its account (what each node of a cluster reads every pass).
    func teamMembers(of account: AccountID) async throws -> [UserID]
    func teamMembers(inShard shard: ShardID) async throws -> [AccountID: [UserID]]
    func teamMembersByShard() async throws -> [ShardID: [AccountID: [UserID]]]
    /// Writes an assignment, new or changed (its marks stay).
    func saveAssignment(_ assignment: AssignmentRecord) async throws
    /// Deletes an assignment of the class and its marks; false when the class has no such assignment.
    func deleteAssignment(_ id: AssignmentID, of classID: ClassID) async throws -> Bool
    /// A class's assignments, by due date.
    func assignments(of id: ClassID) async throws -> [AssignmentRecord]
    /// Sets (or replaces) a teacher's mark.
    func saveMark(_ mark: AssignmentMark) async throws
    func marks(of id: ClassID) async throws -> [AssignmentMark]
}

/// Where a shard's steps go to become durable: each step's journal is queued for the next group commit, and
/// `completion` runs once it is durable or has failed. `Storage` commits them to the database; a benchmark of the
/// engine alone (benchmarks/ShardBench) gives the shards a writer that acknowledges at once.
public protocol JournalWriter: Sendable {
    func enqueue(_ journal: Journal, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) throws
}

/// Accounts and what their journal wrote: the account rows, orders, ledger entries and random states the shards'
/// steps write, the shard map, and each account's configuration.
public protocol AccountRepository: Sendable {
    func ensureShardMap(requested: Int?) async throws -> Int
    func accountShards() async throws -> [AccountID: ShardID]
    func createAccount(_ account: AccountRecord) async throws
    func account(_ id: AccountID) async throws -> AccountRecord?
    func accounts(shard: ShardID) async throws -> [AccountRecord]
    func accounts(userID: UserID?) async throws -> [AccountRecord]
    /// The account's snapshot, replayed forward from its journal where the stored one is behind.
    func restorable(_ record: AccountRecord) async throws -> AccountSnapshot
    func randomState(shard: ShardID) async throws -> SeededGenerator?
    func orders(account: AccountID, _ query: OrderQuery) async throws -> [Order]
    func order(_ id: OrderID) async throws -> Order?
    func order(clientOrderID: ClientOrderID, account: AccountID) async throws -> Order?
    func activities(account: AccountID, query: ActivityQuery) async throws -> [LedgerEntry]
    func accountConfiguration(_ account: AccountID) async throws -> String?
    func saveAccountConfiguration(_ account: AccountID, body: String) async throws
}

extension AccountRepository {
    /// Ledger entries of an account, newest first by default.
    public func activities(account: AccountID, limit: Int = 100, ascending: Bool = false) async throws -> [LedgerEntry]
    {
        var query = ActivityQuery()
        query.limit = limit
        query.ascending = ascending
        return try await activities(account: account, query: query)
    }
}

/// Accounts' watchlists.
public protocol WatchlistRepository: Sendable {
    func watchlists(account: AccountID) async throws -> [WatchlistRecord]
    func saveWatchlist(_ watchlist: WatchlistRecord) async throws
    func deleteWatchlist(id: String, account: AccountID) async throws -> Bool
}

/// Users' notifications, where they go (webhooks, push subscriptions) and the one outbox of their deliveries.
public protocol NotificationRepository: Sendable {
    func notifications(user: UserID, limit: Int) async throws -> (items: [NotificationRecord], unread: Int)
    func markNotificationsRead(user: UserID, id: String?, at time: Timestamp) async throws
    func webhook(user: UserID) async throws -> WebhookRecord?
    func saveWebhook(_ webhook: WebhookRecord) async throws
    func deleteWebhook(user: UserID, at time: Timestamp) async throws -> Bool
    func savePushSubscription(_ subscription: PushSubscriptionRecord) async throws
    func pushSubscriptions(user: UserID) async throws -> [PushSubscriptionRecord]
    func deletePushSubscription(user: UserID?, id: String?, endpoint: String?, reason: String, at time: Timestamp)
        async throws -> Bool
    func enqueueTestDelivery(_ channel: Delivery.Channel, user: UserID, id: String, at time: Timestamp) async throws
        -> Int
    func dueDeliveries(_ channel: Delivery.Channel, at time: Timestamp, limit: Int) async throws -> [DueDelivery]
    func recordDeliveryAttempt(
        id: String, status: Delivery.Status, attempts: Int, nextAttempt: Timestamp, httpStatus: Int?, error: String?,
        at time: Timestamp) async throws
    func deliveries(_ channel: Delivery.Channel, user: UserID, limit: Int) async throws -> [Delivery]
}

/// Queued rules (queue purchase) and price alerts with their triggers. Both are written by the journal with the
/// steps that change them; this reads them back.
public protocol RuleRepository: Sendable {
    func queuedRules() async throws -> [QueueRuleRecord]
    func queueRules(account: AccountID, queued: Bool, limit: Int) async throws -> [QueueRuleRecord]
    func activeAlerts() async throws -> [AlertRecord]
    func alerts(user: UserID, active: Bool, limit: Int) async throws -> [AlertRecord]
    func alert(_ id: AlertID, user: UserID) async throws -> AlertRecord?
    func alertTriggers(user: UserID, alert: AlertID?, limit: Int) async throws -> [AlertTriggerRecord]
}

/// Games and their players (a player's game account is an ordinary account, created with the player).
public protocol GameRepository: Sendable {
    func createGame(_ game: GameRecord) async throws
    func saveGame(_ game: GameRecord) async throws
    func games() async throws -> [GameRecord]
    func joinGame(_ player: GamePlayerRecord, account: AccountRecord) async throws
    func savePlayer(_ player: GamePlayerRecord) async throws
    func gamePlayers() async throws -> [GamePlayerRecord]
}

/// Transfers between a user's accounts, written by the journal with their debits and credits; this reads them back.
public protocol TransferRepository: Sendable {
    /// Transfers debited and not yet credited whose destination lives in one of `shards`, oldest first.
    func pendingTransfers(shards: [ShardID]) async throws -> [TransferRecord]
    /// A user's transfers, newest first.
    func transfers(user: UserID, limit: Int) async throws -> [TransferRecord]
    func transfer(_ id: TransferID) async throws -> TransferRecord?
    /// The transfer out of `account` a client named `clientTransferID`.
    func transfer(clientTransferID: String, from account: AccountID) async throws -> TransferRecord?
    /// Whether the transfer's credit has committed.
    func isCredited(_ id: TransferID) async throws -> Bool
}

/// Each account's equity at every trading day's close (performance history).
public protocol EquityHistoryRepository: Sendable {
    func saveEquityDays(_ days: [EquityDay]) async throws
    func equityDays(account: AccountID, from start: CivilDate?, through end: CivilDate?, withHoldings: Bool)
        async throws -> [EquityDay]
    func lastEquityDay(account: AccountID, onOrBefore date: CivilDate?) async throws -> EquityDay?
}

/// Why storage refused or failed.
public enum StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    case duplicate(String)
    case notFound(String)
    case corrupt(String)
    case unavailable(String)
    /// A journal commit refused because the shard's lease moved on to another epoch (another node owns it now).
    case fenced(shard: ShardID, held: Int64, current: Int64?)
    /// A commit was sent and its answer never came, and the database could not be asked afterwards whether it
    /// landed: it may or may not have.
    case outcomeUnknown(String)

    public var isOutcomeUnknown: Bool {
        if case .outcomeUnknown = self { true } else { false }
    }

    public var description: String {
        switch self {
        case .duplicate(let what): return "\(what) already exists"
        case .notFound(let what): return "\(what) not found"
        case .corrupt(let what): return "stored data cannot be read: \(what)"
        case .unavailable(let what): return "database unavailable: \(what)"
        case .outcomeUnknown(let what): return "the database did not say whether the change was saved: \(what)"
        case .fenced(let shard, let held, let current):
            return
                "shard \(shard) is no longer this node's (lease epoch \(current.map(String.init) ?? "none"), held \(held))"
        }
    }
}
