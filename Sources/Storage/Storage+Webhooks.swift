import Foundation
import SQLKit
import TradingCore

/// A user's webhook: where their notifications are POSTed, signed with `secret`.
public struct WebhookRecord: Sendable, Hashable {
    public var userID: UserID
    public var url: String
    public var secret: String
    public var enabled: Bool
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        userID: UserID, url: String, secret: String, enabled: Bool = true, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.userID = userID
        self.url = url
        self.secret = secret
        self.enabled = enabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One notification on its way to a webhook. Rows are created by a trigger on `notifications` (migration 6), so
/// a notification and its delivery commit together; a `ping` has no notification.
public struct WebhookDelivery: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        case pending, delivered, failed
    }

    public var id: String
    public var userID: UserID
    public var notificationID: String
    public var status: Status
    public var attempts: Int
    public var nextAttemptAt: Timestamp
    /// The receiver's HTTP status on the last attempt (nil when it did not answer).
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    /// What is sent (nil for a ping).
    public var notification: NotificationRecord?
}

/// A due delivery with where it goes.
public struct DueWebhookDelivery: Sendable {
    public var delivery: WebhookDelivery
    public var url: String
    public var secret: String
}

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
                UPDATE webhook_deliveries SET status = 'failed', last_error = 'webhook removed', updated_at = \(bind: time.nanoseconds)
                WHERE user_id = \(bind: user.text) AND status = 'pending'
                """
            ).run()
            try await db.raw("DELETE FROM webhooks WHERE user_id = \(bind: user.text)").run()
            return existed
        }
    }

    /// Queues a ping (a delivery without a notification) to check the endpoint.
    public func enqueueWebhookPing(user: UserID, id: String, at time: Timestamp) async throws {
        try await transaction { db in
            try await db.raw(
                """
                INSERT INTO webhook_deliveries (id, user_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                VALUES (\(bind: id), \(bind: user.text), \(bind: id), 'pending', 0, \(bind: time.nanoseconds), \(bind: time.nanoseconds), \(bind: time.nanoseconds))
                """
            ).run()
        }
    }

    /// Pending deliveries whose next attempt is due, oldest first, with their webhook and notification.
    public func dueWebhookDeliveries(at time: Timestamp, limit: Int = 20) async throws -> [DueWebhookDelivery] {
        try await read { db in
            try await db.raw(
                """
                SELECT d.*, w.url AS webhook_url, w.secret AS webhook_secret,
                       n.id AS n_id, n.account_id AS n_account_id, n.kind AS n_kind, n.title AS n_title, n.body AS n_body,
                       n.created_at AS n_created_at
                FROM webhook_deliveries d
                JOIN webhooks w ON w.user_id = d.user_id AND w.enabled = 1
                LEFT JOIN notifications n ON n.id = d.notification_id
                WHERE d.status = 'pending' AND d.next_attempt_at <= \(bind: time.nanoseconds)
                ORDER BY d.next_attempt_at, d.id LIMIT \(bind: max(1, min(limit, 500)))
                """
            ).all().map { row in
                DueWebhookDelivery(
                    delivery: try Self.delivery(row), url: try row.decode(column: "webhook_url", as: String.self),
                    secret: try row.decode(column: "webhook_secret", as: String.self))
            }
        }
    }

    /// Records the outcome of an attempt: delivered, retry at `nextAttempt`, or failed for good.
    public func recordWebhookAttempt(
        id: String, status: WebhookDelivery.Status, attempts: Int, nextAttempt: Timestamp,
        httpStatus: Int?, error: String?, at time: Timestamp
    ) async throws {
        try await transaction { db in
            try await db.raw(
                """
                UPDATE webhook_deliveries SET status = \(bind: status.rawValue), attempts = \(bind: attempts),
                    next_attempt_at = \(bind: nextAttempt.nanoseconds), last_status = \(bind: httpStatus), last_error = \(bind: error),
                    updated_at = \(bind: time.nanoseconds)
                WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    /// A user's most recent deliveries, newest first.
    public func webhookDeliveries(user: UserID, limit: Int = 50) async throws -> [WebhookDelivery] {
        try await read { db in
            try await db.raw(
                """
                SELECT d.*, n.id AS n_id, n.account_id AS n_account_id, n.kind AS n_kind, n.title AS n_title, n.body AS n_body,
                       n.created_at AS n_created_at
                FROM webhook_deliveries d LEFT JOIN notifications n ON n.id = d.notification_id
                WHERE d.user_id = \(bind: user.text) ORDER BY d.created_at DESC, d.id DESC LIMIT \(bind: max(1, min(limit, 500)))
                """
            ).all().map(Self.delivery)
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

    static func delivery(_ row: any SQLRow) throws -> WebhookDelivery {
        let user = UserID(try row.decode(column: "user_id", as: String.self))
        let notification = try notificationColumns(row, user: user)
        return WebhookDelivery(
            id: try row.decode(column: "id", as: String.self), userID: user,
            notificationID: try row.decode(column: "notification_id", as: String.self),
            status: WebhookDelivery.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .failed,
            attempts: try row.decode(column: "attempts", as: Int.self),
            nextAttemptAt: Timestamp(nanoseconds: try row.decode(column: "next_attempt_at", as: Int64.self)),
            lastStatus: try row.decode(column: "last_status", as: Int?.self),
            lastError: try row.decode(column: "last_error", as: String?.self),
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Timestamp(nanoseconds: try row.decode(column: "updated_at", as: Int64.self)),
            notification: notification)
    }
}
