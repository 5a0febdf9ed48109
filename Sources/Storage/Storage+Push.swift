import Foundation
import SQLKit
import TradingCore

/// A browser's Web Push subscription (RFC 8030): where its push service takes messages, and the keys that encrypt
/// them for it (RFC 8291). A user has one per device that said "notify me".
public struct PushSubscriptionRecord: Sendable, Hashable {
    public var id: String
    public var userID: UserID
    public var endpoint: String
    /// The browser's P-256 public key, uncompressed (65 bytes), base64url as the browser gives it.
    public var p256dh: String
    /// The 16-byte authentication secret, base64url.
    public var auth: String
    /// What the browser said it was (shown in Settings to tell devices apart).
    public var userAgent: String?
    public var createdAt: Timestamp

    public init(
        id: String, userID: UserID, endpoint: String, p256dh: String, auth: String, userAgent: String?,
        createdAt: Timestamp
    ) {
        self.id = id
        self.userID = userID
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.userAgent = userAgent
        self.createdAt = createdAt
    }
}

/// One notification on its way to one subscription. Rows are created by a trigger on `notifications`
/// (migration 10), one per subscription of the user, in the same transaction as the notification; a test push
/// has no notification.
public struct PushDelivery: Sendable, Hashable {
    public var id: String
    public var subscriptionID: String
    public var userID: UserID
    public var notificationID: String
    public var status: WebhookDelivery.Status
    public var attempts: Int
    public var nextAttemptAt: Timestamp
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    /// What is sent (nil for a test push).
    public var notification: NotificationRecord?
}

/// A due push delivery with its subscription.
public struct DuePushDelivery: Sendable {
    public var delivery: PushDelivery
    public var subscription: PushSubscriptionRecord
}

extension Storage {
    /// Saves a subscription; the same endpoint subscribed again (new keys, or another user signed in on that
    /// browser) replaces the old row.
    public func savePushSubscription(_ s: PushSubscriptionRecord) async throws {
        try await transaction { db in
            try await db.raw(
                """
                INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, user_agent, created_at)
                VALUES (\(bind: s.id), \(bind: s.userID.text), \(bind: s.endpoint), \(bind: s.p256dh), \(bind: s.auth), \(bind: s.userAgent), \(bind: s.createdAt.nanoseconds))
                ON CONFLICT (endpoint) DO UPDATE SET id = excluded.id, user_id = excluded.user_id, p256dh = excluded.p256dh,
                    auth = excluded.auth, user_agent = excluded.user_agent, created_at = excluded.created_at
                """
            ).run()
        }
    }

    public func pushSubscriptions(user: UserID) async throws -> [PushSubscriptionRecord] {
        try await read { db in
            try await db.raw(
                "SELECT * FROM push_subscriptions WHERE user_id = \(bind: user.text) ORDER BY created_at, id"
            ).all().map(Self.pushSubscription)
        }
    }

    /// Removes one of the user's subscriptions, by id or by endpoint; its pending deliveries fail with `reason`.
    /// False when there was none.
    public func deletePushSubscription(
        user: UserID?, id: String?, endpoint: String?, reason: String, at time: Timestamp
    )
        async throws -> Bool
    {
        try await transaction { db in
            var find: SQLQueryString = "SELECT id FROM push_subscriptions WHERE "
            if let id {
                find.appendInterpolation(unsafeRaw: "id = ")
                find.appendInterpolation(bind: id)
            } else {
                find.appendInterpolation(unsafeRaw: "endpoint = ")
                find.appendInterpolation(bind: endpoint ?? "")
            }
            if let user {
                find.appendInterpolation(unsafeRaw: " AND user_id = ")
                find.appendInterpolation(bind: user.text)
            }
            guard let row = try await db.raw(find).first() else { return false }
            let found = try row.decode(column: "id", as: String.self)
            try await db.raw(
                """
                UPDATE push_deliveries SET status = 'failed', last_error = \(bind: reason), updated_at = \(bind: time.nanoseconds)
                WHERE subscription_id = \(bind: found) AND status = 'pending'
                """
            ).run()
            try await db.raw("DELETE FROM push_subscriptions WHERE id = \(bind: found)").run()
            return true
        }
    }

    /// Queues a test push (no notification) to each of the user's subscriptions; returns how many.
    public func enqueuePushTest(user: UserID, id: String, at time: Timestamp) async throws -> Int {
        try await transaction { db in
            let subscriptions = try await db.raw(
                "SELECT id FROM push_subscriptions WHERE user_id = \(bind: user.text)"
            ).all().map { try $0.decode(column: "id", as: String.self) }
            for subscription in subscriptions {
                try await db.raw(
                    """
                    INSERT INTO push_deliveries (id, subscription_id, user_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                    VALUES (\(bind: id + ":" + subscription), \(bind: subscription), \(bind: user.text), \(bind: id), 'pending', 0, \(bind: time.nanoseconds), \(bind: time.nanoseconds), \(bind: time.nanoseconds))
                    """
                ).run()
            }
            return subscriptions.count
        }
    }

    /// Pending deliveries whose next attempt is due, oldest first, with their subscription and notification.
    public func duePushDeliveries(at time: Timestamp, limit: Int = 20) async throws -> [DuePushDelivery] {
        try await read { db in
            try await db.raw(
                """
                SELECT d.*, s.endpoint AS s_endpoint, s.p256dh AS s_p256dh, s.auth AS s_auth, s.user_agent AS s_user_agent,
                       s.created_at AS s_created_at,
                       n.id AS n_id, n.account_id AS n_account_id, n.kind AS n_kind, n.title AS n_title, n.body AS n_body,
                       n.created_at AS n_created_at
                FROM push_deliveries d
                JOIN push_subscriptions s ON s.id = d.subscription_id
                LEFT JOIN notifications n ON n.id = d.notification_id
                WHERE d.status = 'pending' AND d.next_attempt_at <= \(bind: time.nanoseconds)
                ORDER BY d.next_attempt_at, d.id LIMIT \(bind: max(1, min(limit, 500)))
                """
            ).all().map { row in
                let delivery = try Self.pushDelivery(row)
                return DuePushDelivery(
                    delivery: delivery,
                    subscription: PushSubscriptionRecord(
                        id: delivery.subscriptionID, userID: delivery.userID,
                        endpoint: try row.decode(column: "s_endpoint", as: String.self),
                        p256dh: try row.decode(column: "s_p256dh", as: String.self),
                        auth: try row.decode(column: "s_auth", as: String.self),
                        userAgent: try row.decode(column: "s_user_agent", as: String?.self),
                        createdAt: Timestamp(nanoseconds: try row.decode(column: "s_created_at", as: Int64.self))))
            }
        }
    }

    /// Records an attempt's outcome: delivered, retry at `nextAttempt`, or failed for good.
    public func recordPushAttempt(
        id: String, status: WebhookDelivery.Status, attempts: Int, nextAttempt: Timestamp, httpStatus: Int?,
        error: String?, at time: Timestamp
    ) async throws {
        try await transaction { db in
            try await db.raw(
                """
                UPDATE push_deliveries SET status = \(bind: status.rawValue), attempts = \(bind: attempts),
                    next_attempt_at = \(bind: nextAttempt.nanoseconds), last_status = \(bind: httpStatus), last_error = \(bind: error),
                    updated_at = \(bind: time.nanoseconds)
                WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    /// A user's most recent push deliveries, newest first.
    public func pushDeliveries(user: UserID, limit: Int = 50) async throws -> [PushDelivery] {
        try await read { db in
            try await db.raw(
                """
                SELECT d.*, n.id AS n_id, n.account_id AS n_account_id, n.kind AS n_kind, n.title AS n_title, n.body AS n_body,
                       n.created_at AS n_created_at
                FROM push_deliveries d LEFT JOIN notifications n ON n.id = d.notification_id
                WHERE d.user_id = \(bind: user.text) ORDER BY d.created_at DESC, d.id DESC LIMIT \(bind: max(1, min(limit, 500)))
                """
            ).all().map(Self.pushDelivery)
        }
    }

    static func pushSubscription(_ row: any SQLRow) throws -> PushSubscriptionRecord {
        PushSubscriptionRecord(
            id: try row.decode(column: "id", as: String.self),
            userID: UserID(try row.decode(column: "user_id", as: String.self)),
            endpoint: try row.decode(column: "endpoint", as: String.self),
            p256dh: try row.decode(column: "p256dh", as: String.self),
            auth: try row.decode(column: "auth", as: String.self),
            userAgent: try row.decode(column: "user_agent", as: String?.self),
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)))
    }

    static func pushDelivery(_ row: any SQLRow) throws -> PushDelivery {
        let user = UserID(try row.decode(column: "user_id", as: String.self))
        return PushDelivery(
            id: try row.decode(column: "id", as: String.self),
            subscriptionID: try row.decode(column: "subscription_id", as: String.self), userID: user,
            notificationID: try row.decode(column: "notification_id", as: String.self),
            status: WebhookDelivery.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .failed,
            attempts: try row.decode(column: "attempts", as: Int.self),
            nextAttemptAt: Timestamp(nanoseconds: try row.decode(column: "next_attempt_at", as: Int64.self)),
            lastStatus: try row.decode(column: "last_status", as: Int?.self),
            lastError: try row.decode(column: "last_error", as: String?.self),
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Timestamp(nanoseconds: try row.decode(column: "updated_at", as: Int64.self)),
            notification: try notificationColumns(row, user: user))
    }

    /// The `n_…` columns of a delivery query joined with its notification (nil for a ping or a test push).
    static func notificationColumns(_ row: any SQLRow, user: UserID) throws -> NotificationRecord? {
        guard let id = try row.decode(column: "n_id", as: String?.self) else { return nil }
        return NotificationRecord(
            id: id, userID: user,
            accountID: try row.decode(column: "n_account_id", as: String?.self).flatMap(AccountID.init),
            kind: try row.decode(column: "n_kind", as: String.self),
            title: try row.decode(column: "n_title", as: String.self),
            body: try row.decode(column: "n_body", as: String.self),
            createdAt: Timestamp(nanoseconds: try row.decode(column: "n_created_at", as: Int64.self)), readAt: nil)
    }
}
