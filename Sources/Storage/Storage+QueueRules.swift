import BrokerageModel
import Foundation
import SQLKit
import TradingCore

extension Storage {
    /// Every rule still queued (what the brokerage loads at start).
    public func queuedRules() async throws -> [QueueRuleRecord] {
        try await read { db in
            try await db.raw("SELECT body FROM queue_rules WHERE status = 'queued' ORDER BY created_at, id").all()
                .map { try Coding.decode(QueueRuleRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// An account's rules, newest first: the queue (`queued`) or its history (everything else).
    public func queueRules(account: AccountID, queued: Bool, limit: Int = 100) async throws -> [QueueRuleRecord] {
        try await read { db in
            let sql: SQLQueryString =
                queued
                ? "SELECT body FROM queue_rules WHERE account_id = \(bind: account.description) AND status = 'queued' ORDER BY created_at, id"
                : "SELECT body FROM queue_rules WHERE account_id = \(bind: account.description) AND status <> 'queued' ORDER BY updated_at DESC, id DESC LIMIT \(bind: max(1, min(limit, 500)))"
            return try await db.raw(sql).all()
                .map { try Coding.decode(QueueRuleRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }
}
