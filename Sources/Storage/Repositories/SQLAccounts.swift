import BrokerageModel
import Foundation
import SQLKit
import SQLiteKit
import TradingCore

/// Accounts and what their journal wrote: account records and the shard map, the state a shard restores, orders,
/// ledger entries (activities), per-account configurations. The SQL of `AccountRepository`, on SQLite and
/// PostgreSQL; the journal itself is written by the database (`Storage`, the group-commit `JournalWriter`).
public struct SQLAccounts: AccountRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }
}

/// The shard map: how many virtual shards the database has (fixed when it is created), and which shard each
/// account lives in (the `shard` column of `accounts`, chosen when the account is opened).
extension SQLAccounts {
    /// The shards a database gets unless its creator asks for another number.
    public static let defaultShardCount = 64
    /// The most shards a database may have (each is an engine, a journal stream and, on a cluster, a lease).
    public static let maximumShardCount = 4096

    /// The database's shard count. The first open after creation (or after the upgrade that introduced shards)
    /// fixes it at `requested` (default 64) and spreads existing accounts over the shards round-robin by age; later
    /// opens return the stored count. Throws when `requested` is given and differs from a stored count: shards
    /// are decided once, because every account's shard is stored with it.
    public func ensureShardMap(requested: Int? = nil) async throws -> Int {
        if let requested, !(1...Self.maximumShardCount).contains(requested) {
            throw StorageError.corrupt(
                "a shard count must be between 1 and \(Self.maximumShardCount), not \(requested)")
        }
        return try await database.transaction { db in
            if let row = try await db.raw("SELECT shard_count FROM shard_map WHERE id = 1").first() {
                let stored = try row.decode(column: "shard_count", as: Int.self)
                if let requested, requested != stored {
                    throw StorageError.duplicate(
                        "a shard map of \(stored) shards (the count is fixed when the database is created; asked for \(requested))"
                    )
                }
                return stored
            }
            let count = requested ?? Self.defaultShardCount
            try await db.raw("INSERT INTO shard_map (id, shard_count) VALUES (1, \(bind: count))").run()
            // Accounts made before shards existed: round-robin by age, so they spread evenly.
            try await db.raw(
                """
                UPDATE accounts SET shard = (
                    SELECT (ranked.n - 1) % \(bind: count) FROM (
                        SELECT id, ROW_NUMBER() OVER (ORDER BY created_at, id) AS n FROM accounts
                    ) ranked WHERE ranked.id = accounts.id
                )
                """
            ).run()
            return count
        }
    }

    /// Every account's shard (what a router loads at start).
    public func accountShards() async throws -> [AccountID: ShardID] {
        try await database.read { db in
            var shards: [AccountID: ShardID] = [:]
            for row in try await db.raw("SELECT id, shard FROM accounts").all() {
                guard let id = AccountID(try row.decode(column: "id", as: String.self)) else {
                    throw StorageError.corrupt("account id")
                }
                shards[id] = ShardID(try row.decode(column: "shard", as: Int.self))
            }
            return shards
        }
    }
}

extension SQLAccounts {
    // MARK: Accounts and keys

    public func createAccount(_ account: AccountRecord) async throws {
        let state = try Coding.encode(account.snapshot.account)
        try await database.transaction { db in
            try await db.raw(
                """
                INSERT INTO accounts (id, user_id, name, market, account_number, created_at, state, shard)
                VALUES (\(bind: account.id.description), \(bind: account.userID.text), \(bind: account.name),
                        \(bind: account.market.rawValue), \(bind: account.accountNumber), \(bind: account.createdAt.nanoseconds),
                        \(bind: state), \(bind: account.shard.index))
                """
            ).run()
        }
    }

    /// The accounts of one virtual shard, oldest first.
    public func accounts(shard: ShardID) async throws -> [AccountRecord] {
        try await database.read { db in
            try await db.raw("SELECT * FROM accounts WHERE shard = \(bind: shard.index) ORDER BY created_at, id").all()
                .map(Self.account)
        }
    }

    /// One account's record, nil when there is none.
    public func account(_ id: AccountID) async throws -> AccountRecord? {
        try await database.read { db in
            try await db.raw("SELECT * FROM accounts WHERE id = \(bind: id.description)").first().map(Self.account)
        }
    }

    public func accounts(userID: UserID? = nil) async throws -> [AccountRecord] {
        try await database.read { db in
            let rows =
                if let userID {
                    try await db.raw("SELECT * FROM accounts WHERE user_id = \(bind: userID.text) ORDER BY created_at")
                        .all()
                } else {
                    try await db.raw("SELECT * FROM accounts ORDER BY created_at").all()
                }
            return try rows.map(Self.account)
        }
    }

    static func account(_ row: any SQLRow) throws -> AccountRecord {
        guard let id = AccountID(try row.decode(column: "id", as: String.self)),
            let market = Market(rawValue: try row.decode(column: "market", as: String.self))
        else {
            throw StorageError.corrupt("account row")
        }
        return AccountRecord(
            id: id, userID: UserID(try row.decode(column: "user_id", as: String.self)),
            name: try row.decode(column: "name", as: String.self), market: market,
            accountNumber: try row.decode(column: "account_number", as: String.self),
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)),
            snapshot: AccountSnapshot(
                account: try Coding.decode(Account.self, try row.decode(column: "state", as: String.self)),
                openOrders: []),
            shard: ShardID(try row.decode(column: "shard", as: Int.self)))
    }

    /// The full engine state of an account: stored balances and positions, plus its open orders. (The client order
    /// ids of its closed orders stay in the orders table: `order(clientOrderID:account:)` finds them.)
    public func restorable(_ record: AccountRecord) async throws -> AccountSnapshot {
        try await database.read { db in
            var snapshot = record.snapshot
            let open = try await db.raw(
                """
                SELECT body FROM orders WHERE account_id = \(bind: record.id.description) AND is_open = 1 ORDER BY submitted_at, id
                """
            ).all().map { try Coding.decode(Order.self, try $0.decode(column: "body", as: String.self)) }
            snapshot.openOrders = open
            return snapshot
        }
    }

    /// A shard's engine random state as last journaled (nil for a shard that never wrote one).
    public func randomState(shard: ShardID) async throws -> SeededGenerator? {
        try await database.read { db in
            guard
                let text = try await db.raw("SELECT random_state FROM engine_state WHERE id = \(bind: shard.index)")
                    .first()?
                    .decode(column: "random_state", as: String.self)
            else { return nil }
            return try Coding.decode(SeededGenerator.self, text)
        }
    }

    // MARK: Orders and activities

    public func orders(account: AccountID, _ q: OrderQuery) async throws -> [Order] {
        try await database.read { db in
            var sql = SQLQueryString("SELECT body FROM orders WHERE account_id = \(bind: account.description)")
            switch q.status {
            case .open: sql.appendInterpolation(unsafeRaw: " AND is_open = 1")
            case .closed: sql.appendInterpolation(unsafeRaw: " AND is_open = 0")
            case .all: break
            }
            if let after = q.after {
                sql.appendInterpolation(unsafeRaw: " AND submitted_at > ")
                sql.appendInterpolation(bind: after.nanoseconds)
            }
            if let until = q.until {
                sql.appendInterpolation(unsafeRaw: " AND submitted_at < ")
                sql.appendInterpolation(bind: until.nanoseconds)
            }
            if !q.symbols.isEmpty {
                sql.appendInterpolation(unsafeRaw: " AND symbol IN (")
                for (i, symbol) in q.symbols.enumerated() {
                    if i > 0 { sql.appendInterpolation(unsafeRaw: ", ") }
                    sql.appendInterpolation(bind: symbol)
                }
                sql.appendInterpolation(unsafeRaw: ")")
            }
            sql.appendInterpolation(
                unsafeRaw: q.ascending ? " ORDER BY submitted_at ASC, id ASC" : " ORDER BY submitted_at DESC, id DESC")
            sql.appendInterpolation(unsafeRaw: " LIMIT ")
            sql.appendInterpolation(bind: max(1, min(q.limit, 500)))
            return try await db.raw(sql).all().map {
                try Coding.decode(Order.self, try $0.decode(column: "body", as: String.self))
            }
        }
    }

    public func order(_ id: OrderID) async throws -> Order? {
        try await database.read { db in
            try await db.raw("SELECT body FROM orders WHERE id = \(bind: id.description)").first()
                .map { try Coding.decode(Order.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    public func order(clientOrderID: ClientOrderID, account: AccountID) async throws -> Order? {
        try await database.read { db in
            try await db.raw(
                "SELECT body FROM orders WHERE account_id = \(bind: account.description) AND client_order_id = \(bind: clientOrderID.text)"
            )
            .first().map { try Coding.decode(Order.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// An account's whole ledger, oldest first (what balances are the fold of).
    public func ledger(account: AccountID) async throws -> [LedgerEntry] {
        try await database.read { db in
            try await db.raw(
                "SELECT body FROM activities WHERE account_id = \(bind: account.description) ORDER BY sequence ASC"
            ).all().map { try Coding.decode(LedgerEntry.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// Ledger entries of an account matching `query`, at most 1,000.
    public func activities(account: AccountID, query: ActivityQuery) async throws -> [LedgerEntry] {
        try await database.read { db in
            var sql = SQLQueryString("SELECT body FROM activities WHERE account_id = \(bind: account.description)")
            if !query.kinds.isEmpty { sql.appendInterpolation(unsafeRaw: " AND kind IN (") }
            for (i, kind) in query.kinds.sorted().enumerated() {
                sql.appendInterpolation(unsafeRaw: i == 0 ? "" : ", ")
                sql.appendInterpolation(bind: kind)
            }
            if !query.kinds.isEmpty { sql.appendInterpolation(unsafeRaw: ")") }
            if let after = query.after {
                sql.appendInterpolation(unsafeRaw: " AND time > ")
                sql.appendInterpolation(bind: after.nanoseconds)
            }
            if let until = query.until {
                sql.appendInterpolation(unsafeRaw: " AND time < ")
                sql.appendInterpolation(bind: until.nanoseconds)
            }
            if let sequence = query.afterSequence {
                sql.appendInterpolation(unsafeRaw: query.ascending ? " AND sequence > " : " AND sequence < ")
                sql.appendInterpolation(bind: sequence)
            }
            sql.appendInterpolation(unsafeRaw: " ORDER BY sequence \(query.ascending ? "ASC" : "DESC") LIMIT ")
            sql.appendInterpolation(bind: max(1, min(query.limit, 1000)))
            return try await db.raw(sql).all().map {
                try Coding.decode(LedgerEntry.self, try $0.decode(column: "body", as: String.self))
            }
        }
    }

    public func accountConfiguration(_ account: AccountID) async throws -> String? {
        try await database.read { db in
            try await db.raw("SELECT body FROM account_configurations WHERE account_id = \(bind: account.description)")
                .first()?
                .decode(column: "body", as: String.self)
        }
    }

    public func saveAccountConfiguration(_ account: AccountID, body: String) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                INSERT INTO account_configurations (account_id, body) VALUES (\(bind: account.description), \(bind: body))
                ON CONFLICT (account_id) DO UPDATE SET body = excluded.body
                """
            ).run()
        }
    }
}

extension LedgerEntry.Kind {
    /// A short name for the activity's kind (stored in its own column for filtering).
    public var name: String {
        switch self {
        case .deposit: return "deposit"
        case .withdrawal: return "withdrawal"
        case .fill: return "fill"
        case .fee: return "fee"
        case .cryptoFee: return "crypto_fee"
        case .reset: return "reset"
        case .interest: return "interest"
        case .marginCall: return "margin_call"
        case .borrowFee: return "borrow_fee"
        case .corporateAction(let booking): return booking.kind == .cashDividend ? "dividend" : booking.kind.rawValue
        case .optionEvent(let event):
            switch event.kind {
            case .exercise: return "option_exercise"
            case .expiry: return "option_expiry"
            case .assignment: return "option_assignment"
            case .adjustment: return "option_adjustment"
            case .cashDeliverable: return "option_cash_deliverable"
            }
        case .optionDelivery: return "option_delivery"
        case .transfer: return "transfer"
        }
    }
}
