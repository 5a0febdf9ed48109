import BrokerageModel
import Foundation
import SQLKit
import TradingCore

/// An account's watchlists (named lists of symbols, unique names per account). The SQL of `WatchlistRepository`, on SQLite and PostgreSQL.
public struct SQLWatchlists: WatchlistRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }
}

extension SQLWatchlists {
    public func watchlists(account: AccountID) async throws -> [WatchlistRecord] {
        try await database.read { db in
            try await db.raw(
                "SELECT * FROM watchlists WHERE account_id = \(bind: account.description) ORDER BY created_at, id"
            ).all().map(Self.watchlist)
        }
    }

    static func watchlist(_ row: any SQLRow) throws -> WatchlistRecord {
        guard let account = AccountID(try row.decode(column: "account_id", as: String.self)) else {
            throw StorageError.corrupt("watchlist row")
        }
        return WatchlistRecord(
            id: try row.decode(column: "id", as: String.self), accountID: account,
            name: try row.decode(column: "name", as: String.self),
            symbols: try Coding.decode([String].self, try row.decode(column: "symbols", as: String.self)),
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Timestamp(nanoseconds: try row.decode(column: "updated_at", as: Int64.self)))
    }

    /// Inserts or replaces a watchlist; a name already used by another list of the account is a duplicate.
    public func saveWatchlist(_ w: WatchlistRecord) async throws {
        let symbols = try Coding.encode(w.symbols)
        try await database.transaction { db in
            let clash = try await db.raw(
                """
                SELECT id FROM watchlists WHERE account_id = \(bind: w.accountID.description) AND name = \(bind: w.name) AND id <> \(bind: w.id)
                """
            ).first()
            guard clash == nil else { throw StorageError.duplicate("watchlist \(w.name)") }
            try await db.raw(
                """
                INSERT INTO watchlists (id, account_id, name, symbols, created_at, updated_at)
                VALUES (\(bind: w.id), \(bind: w.accountID.description), \(bind: w.name), \(bind: symbols),
                        \(bind: w.createdAt.nanoseconds), \(bind: w.updatedAt.nanoseconds))
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, symbols = excluded.symbols, updated_at = excluded.updated_at
                """
            ).run()
        }
    }

    public func deleteWatchlist(id: String, account: AccountID) async throws -> Bool {
        try await database.transaction { db in
            let found = try await db.raw(
                "SELECT id FROM watchlists WHERE id = \(bind: id) AND account_id = \(bind: account.description)"
            ).first()
            guard found != nil else { return false }
            try await db.raw("DELETE FROM watchlists WHERE id = \(bind: id)").run()
            return true
        }
    }
}
