import BrokerageModel
import Foundation
import SQLKit
import TradingCore

/// Queued rules and price alerts as the journal left them (the shards write them with their steps), and when alerts triggered. The SQL of `RuleRepository`, on SQLite and PostgreSQL.
public struct SQLRules: RuleRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }
}

extension SQLRules {
    /// Every rule still queued (what the brokerage loads at start).
    public func queuedRules() async throws -> [QueueRuleRecord] {
        try await database.read { db in
            try await db.raw("SELECT body FROM queue_rules WHERE status = 'queued' ORDER BY created_at, id").all()
                .map { try Coding.decode(QueueRuleRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// An account's rules, newest first: the queue (`queued`) or its history (everything else).
    public func queueRules(account: AccountID, queued: Bool, limit: Int = 100) async throws -> [QueueRuleRecord] {
        try await database.read { db in
            let sql: SQLQueryString =
                queued
                ? "SELECT body FROM queue_rules WHERE account_id = \(bind: account.description) AND status = 'queued' ORDER BY created_at, id"
                : "SELECT body FROM queue_rules WHERE account_id = \(bind: account.description) AND status <> 'queued' ORDER BY updated_at DESC, id DESC LIMIT \(bind: max(1, min(limit, 500)))"
            return try await db.raw(sql).all()
                .map { try Coding.decode(QueueRuleRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }
}

extension SQLRules {
    /// Every active alert (what the brokerage loads at start).
    public func activeAlerts() async throws -> [AlertRecord] {
        try await database.read { db in
            try await db.raw("SELECT body FROM alerts WHERE status = 'active' ORDER BY created_at, id").all()
                .map { try Coding.decode(AlertRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// A user's alerts, newest first: the active ones, or (with `active: false`) the rest.
    public func alerts(user: UserID, active: Bool, limit: Int = 100) async throws -> [AlertRecord] {
        try await database.read { db in
            let sql: SQLQueryString =
                active
                ? "SELECT body FROM alerts WHERE user_id = \(bind: user.text) AND status = 'active' ORDER BY created_at DESC, id DESC"
                : "SELECT body FROM alerts WHERE user_id = \(bind: user.text) AND status <> 'active' ORDER BY updated_at DESC, id DESC LIMIT \(bind: max(1, min(limit, 500)))"
            return try await db.raw(sql).all()
                .map { try Coding.decode(AlertRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    public func alert(_ id: AlertID, user: UserID) async throws -> AlertRecord? {
        try await database.read { db in
            try await db.raw(
                "SELECT body FROM alerts WHERE id = \(bind: id.description) AND user_id = \(bind: user.text)"
            ).first().map { try Coding.decode(AlertRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }

    /// A user's alert triggers, newest first (of one alert when `alert` is given).
    public func alertTriggers(user: UserID, alert: AlertID?, limit: Int = 100) async throws -> [AlertTriggerRecord] {
        try await database.read { db in
            var sql: SQLQueryString = "SELECT body FROM alert_triggers WHERE user_id = \(bind: user.text)"
            if let alert {
                sql.appendInterpolation(unsafeRaw: " AND alert_id = ")
                sql.appendInterpolation(bind: alert.description)
            }
            sql.appendInterpolation(unsafeRaw: " ORDER BY time DESC, id DESC LIMIT ")
            sql.appendInterpolation(bind: max(1, min(limit, 500)))
            return try await db.raw(sql).all()
                .map { try Coding.decode(AlertTriggerRecord.self, try $0.decode(column: "body", as: String.self)) }
        }
    }
}
