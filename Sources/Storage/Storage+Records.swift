import BrokerageModel
import Foundation
import SQLKit
import SQLiteKit
import TradingCore

extension Storage {
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

    public func accountConfiguration(_ account: AccountID) async throws -> String? {
        try await read { db in
            try await db.raw("SELECT body FROM account_configurations WHERE account_id = \(bind: account.description)")
                .first()?
                .decode(column: "body", as: String.self)
        }
    }

    public func saveAccountConfiguration(_ account: AccountID, body: String) async throws {
        try await transaction { db in
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
