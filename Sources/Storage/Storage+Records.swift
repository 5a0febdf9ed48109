import BrokerageModel
import Foundation
import SQLKit
import SQLiteKit
import TradingCore

extension Storage {
    // MARK: Users and sessions

    public func createUser(_ user: UserRecord) async throws {
        try await transaction { db in
            let existing = try await db.raw("SELECT id FROM users WHERE username = \(bind: user.username)").first()
            guard existing == nil else { throw StorageError.duplicate("user \(user.username)") }
            try await db.raw(
                """
                INSERT INTO users (id, username, password_hash, created_at)
                VALUES (\(bind: user.id.text), \(bind: user.username), \(bind: user.passwordHash), \(bind: user.createdAt.nanoseconds))
                """
            ).run()
        }
    }

    public func user(username: String) async throws -> UserRecord? {
        try await read { db in
            try await db.raw("SELECT * FROM users WHERE username = \(bind: username)").first().map(Self.user)
        }
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await read { db in
            try await db.raw("SELECT * FROM users WHERE id = \(bind: id.text)").first().map(Self.user)
        }
    }

    public func userCount() async throws -> Int {
        try await read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    static func user(_ row: any SQLRow) throws -> UserRecord {
        UserRecord(
            id: UserID(try row.decode(column: "id", as: String.self)),
            username: try row.decode(column: "username", as: String.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)),
            language: try row.decode(column: "language", as: String?.self))
    }

    /// Sets (or, with nil, clears) a user's language.
    public func setLanguage(_ language: String?, user: UserID) async throws {
        try await transaction { db in
            try await db.raw("UPDATE users SET language = \(bind: language) WHERE id = \(bind: user.text)").run()
        }
    }

    /// Every user who chose a language (what the brokerage writes their notifications in).
    public func userLanguages() async throws -> [UserID: String] {
        try await read { db in
            var languages: [UserID: String] = [:]
            for row in try await db.raw("SELECT id, language FROM users WHERE language IS NOT NULL").all() {
                languages[UserID(try row.decode(column: "id", as: String.self))] = try row.decode(
                    column: "language", as: String.self)
            }
            return languages
        }
    }

    public func createSession(tokenHash: String, userID: UserID, createdAt: Timestamp, expiresAt: Timestamp)
        async throws
    {
        try await transaction { db in
            try await db.raw(
                """
                INSERT INTO web_sessions (token_hash, user_id, created_at, expires_at)
                VALUES (\(bind: tokenHash), \(bind: userID.text), \(bind: createdAt.nanoseconds), \(bind: expiresAt.nanoseconds))
                """
            ).run()
        }
    }

    /// The user of a live session, or nil if unknown or expired.
    public func sessionUser(tokenHash: String, at now: Timestamp) async throws -> UserID? {
        try await read { db in
            try await db.raw(
                "SELECT user_id FROM web_sessions WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: now.nanoseconds)"
            )
            .first()?.decode(column: "user_id", as: String.self)
        }.map { UserID($0) }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await transaction { db in
            try await db.raw("DELETE FROM web_sessions WHERE token_hash = \(bind: tokenHash)").run()
        }
    }

    // MARK: Accounts and keys

    public func createAccount(_ account: AccountRecord) async throws {
        let state = try Coding.encode(account.snapshot.account)
        try await transaction { db in
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
        try await read { db in
            try await db.raw("SELECT * FROM accounts WHERE shard = \(bind: shard.index) ORDER BY created_at, id").all()
                .map(Self.account)
        }
    }

    /// One account's record, nil when there is none.
    public func account(_ id: AccountID) async throws -> AccountRecord? {
        try await read { db in
            try await db.raw("SELECT * FROM accounts WHERE id = \(bind: id.description)").first().map(Self.account)
        }
    }

    public func accounts(userID: UserID? = nil) async throws -> [AccountRecord] {
        try await read { db in
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

    /// The full engine state of an account: stored balances and positions, plus its open orders and every
    /// client order id it has used (from the orders table).
    public func restorable(_ record: AccountRecord) async throws -> AccountSnapshot {
        try await read { db in
            var snapshot = record.snapshot
            let open = try await db.raw(
                """
                SELECT body FROM orders WHERE account_id = \(bind: record.id.description) AND is_open = 1 ORDER BY submitted_at, id
                """
            ).all().map { try Coding.decode(Order.self, try $0.decode(column: "body", as: String.self)) }
            snapshot.openOrders = open
            for row in try await db.raw(
                "SELECT id, client_order_id FROM orders WHERE account_id = \(bind: record.id.description)"
            ).all() {
                if let id = OrderID(try row.decode(column: "id", as: String.self)) {
                    snapshot.clientOrderIDs[ClientOrderID(try row.decode(column: "client_order_id", as: String.self))] =
                        id
                }
            }
            return snapshot
        }
    }

    public func createAPIKey(_ key: APIKeyRecord, at time: Timestamp) async throws {
        try await transaction { db in
            try await db.raw(
                """
                INSERT INTO api_keys (key_id, secret_hash, account_id, created_at)
                VALUES (\(bind: key.keyID), \(bind: key.secretHash), \(bind: key.accountID.description), \(bind: time.nanoseconds))
                """
            ).run()
        }
    }

    public func apiKey(_ keyID: String) async throws -> APIKeyRecord? {
        try await read { db in
            guard let row = try await db.raw("SELECT * FROM api_keys WHERE key_id = \(bind: keyID)").first(),
                let account = AccountID(try row.decode(column: "account_id", as: String.self))
            else { return nil }
            return APIKeyRecord(
                keyID: keyID, secretHash: try row.decode(column: "secret_hash", as: String.self), accountID: account)
        }
    }

    /// A shard's engine random state as last journaled (nil for a shard that never wrote one).
    public func randomState(shard: ShardID) async throws -> SeededGenerator? {
        try await read { db in
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
        try await read { db in
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
        try await read { db in
            try await db.raw("SELECT body FROM orders WHERE id = \(bind: id.description)").first()
                .map { try Coding.decode(Order.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    public func order(clientOrderID: ClientOrderID, account: AccountID) async throws -> Order? {
        try await read { db in
            try await db.raw(
                "SELECT body FROM orders WHERE account_id = \(bind: account.description) AND client_order_id = \(bind: clientOrderID.text)"
            )
            .first().map { try Coding.decode(Order.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// An account's whole ledger, oldest first (what balances are the fold of).
    public func ledger(account: AccountID) async throws -> [LedgerEntry] {
        try await read { db in
            try await db.raw(
                "SELECT body FROM activities WHERE account_id = \(bind: account.description) ORDER BY sequence ASC"
            ).all().map { try Coding.decode(LedgerEntry.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// Ledger entries of an account matching `query`, at most 1,000.
    public func activities(account: AccountID, query: ActivityQuery) async throws -> [LedgerEntry] {
        try await read { db in
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
}

extension LedgerEntry.Kind {
    /// A short name for the activity's kind (stored in its own column for filtering).
    public var name: String {
        switch self {
        case .deposit: return "deposit"
        case .withdrawal: return "withdrawal"
        case .fill: return "fill"
        case .fee: return "fee"
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
        }
    }
}

extension Storage {
    /// A user's notifications, newest first, and how many are unread.
    public func notifications(user: UserID, limit: Int = 50) async throws -> (items: [NotificationRecord], unread: Int)
    {
        try await read { db in
            let rows = try await db.raw(
                """
                SELECT * FROM notifications WHERE user_id = \(bind: user.text) ORDER BY created_at DESC, id DESC LIMIT \(bind: max(1, min(limit, 500)))
                """
            ).all()
            let items = try rows.map { row in
                NotificationRecord(
                    id: try row.decode(column: "id", as: String.self), userID: user,
                    accountID: try row.decode(column: "account_id", as: String?.self).flatMap(AccountID.init),
                    kind: try row.decode(column: "kind", as: String.self),
                    title: try row.decode(column: "title", as: String.self),
                    body: try row.decode(column: "body", as: String.self),
                    createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)),
                    readAt: try row.decode(column: "read_at", as: Int64?.self).map(Timestamp.init(nanoseconds:)))
            }
            let unread =
                try await db.raw(
                    "SELECT COUNT(*) AS n FROM notifications WHERE user_id = \(bind: user.text) AND read_at IS NULL"
                )
                .first()?.decode(column: "n", as: Int.self) ?? 0
            return (items, unread)
        }
    }

    /// Marks one notification (or, with nil, all of a user's) read. Returns how many changed.
    public func markNotificationsRead(user: UserID, id: String?, at time: Timestamp) async throws {
        try await transaction { db in
            if let id {
                try await db.raw(
                    "UPDATE notifications SET read_at = \(bind: time.nanoseconds) WHERE user_id = \(bind: user.text) AND id = \(bind: id) AND read_at IS NULL"
                ).run()
            } else {
                try await db.raw(
                    "UPDATE notifications SET read_at = \(bind: time.nanoseconds) WHERE user_id = \(bind: user.text) AND read_at IS NULL"
                ).run()
            }
        }
    }
}
