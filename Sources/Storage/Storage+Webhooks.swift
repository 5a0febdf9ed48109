import BrokerageModel
import Foundation
import SQLKit
import TradingCore

extension Storage {
    public func webhook(user: UserID) async throws -> WebhookRecord? {
        try await read { db in
            try await db.raw("SELECT * FROM webhooks WHERE user_id = \(bind: user.text)").first().map(Self.webhook)
        }
    }

    /// Creates or replaces the user's webhook.
    public func saveWebhook(_ w: WebhookRecord) async throws {
        try await transaction { db in
            try await db.raw(
                """
                INSERT INTO webhooks (user_id, url, secret, enabled, created_at, updated_at)
                VALUES (\(bind: w.userID.text), \(bind: w.url), \(bind: w.secret), \(bind: w.enabled ? 1 : 0), \(bind: w.createdAt.nanoseconds), \(bind: w.updatedAt.nanoseconds))
                ON CONFLICT (user_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, enabled = excluded.enabled,
                    updated_at = excluded.updated_at
                """
            ).run()
        }
    }

    /// Removes the webhook; deliveries still pending are marked failed ("webhook removed").
    public func deleteWebhook(user: UserID, at time: Timestamp) async throws -> Bool {
        try await transaction { db in
            let existed =
                try await db.raw("SELECT 1 AS x FROM webhooks WHERE user_id = \(bind: user.text)").first() != nil
            try await db.raw(
                """
                UPDATE deliveries SET status = 'failed', last_error = 'webhook removed', updated_at = \(bind: time.nanoseconds)
                WHERE channel = 'webhook' AND user_id = \(bind: user.text) AND status = 'pending'
                """
            ).run()
            try await db.raw("DELETE FROM webhooks WHERE user_id = \(bind: user.text)").run()
            return existed
        }
    }

    static func webhook(_ row: any SQLRow) throws -> WebhookRecord {
        WebhookRecord(
            userID: UserID(try row.decode(column: "user_id", as: String.self)),
            url: try row.decode(column: "url", as: String.self),
            secret: try row.decode(column: "secret", as: String.self),
            enabled: try row.decode(column: "enabled", as: Int.self) != 0,
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Timestamp(nanoseconds: try row.decode(column: "updated_at", as: Int64.self)))
    }
}
