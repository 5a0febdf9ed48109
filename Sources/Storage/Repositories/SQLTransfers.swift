import BrokerageModel
import Foundation
import SQLKit
import TradingCore

/// Transfers between a user's accounts as the journal left them (the shards write each with its debit and its
/// credit). The SQL of `TransferRepository`, on SQLite and PostgreSQL.
public struct SQLTransfers: TransferRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }

    public func pendingTransfers(shards: [ShardID]) async throws -> [TransferRecord] {
        guard !shards.isEmpty else { return [] }
        let list = Set(shards.map(\.index)).sorted().map(String.init).joined(separator: ", ")
        return try await database.read { db in
            try await db.raw(
                "SELECT body FROM transfers WHERE status = 'pending' AND to_shard IN (\(unsafeRaw: list)) ORDER BY created_at, id"
            ).all().map { try Coding.decode(TransferRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    public func transfers(user: UserID, limit: Int) async throws -> [TransferRecord] {
        try await database.read { db in
            try await db.raw(
                "SELECT body FROM transfers WHERE user_id = \(bind: user.text) ORDER BY created_at DESC, id DESC LIMIT \(bind: max(1, min(limit, 500)))"
            ).all().map { try Coding.decode(TransferRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    public func transfer(_ id: TransferID) async throws -> TransferRecord? {
        try await database.read { db in
            try await db.raw("SELECT body FROM transfers WHERE id = \(bind: id.description)").first()
                .map { try Coding.decode(TransferRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    public func transfer(clientTransferID: String, from account: AccountID) async throws -> TransferRecord? {
        try await database.read { db in
            try await db.raw(
                "SELECT body FROM transfers WHERE from_account = \(bind: account.description) AND client_transfer_id = \(bind: clientTransferID)"
            ).first().map { try Coding.decode(TransferRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    public func isCredited(_ id: TransferID) async throws -> Bool {
        try await database.read { db in
            try await db.raw("SELECT 1 AS one FROM transfer_credits WHERE transfer_id = \(bind: id.description)")
                .first() != nil
        }
    }
}
