import BrokerageModel
import Foundation
import SQLKit
import TradingCore

/// Notifications and where they go: a user's webhook and push subscriptions, and the delivery outbox every channel shares. The SQL of `NotificationRepository`, on SQLite and PostgreSQL.
public struct SQLNotifications: NotificationRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }
}

extension SQLNotifications {
    public func webhook(user: UserID) async throws -> WebhookRecord? {
        try await database.read { db in
            try await db.raw("SELECT * FROM webhooks WHERE user_id = \(bind: user.text)").first().map(Self.webhook)
        }
    }

    /// Creates or replaces the user's webhook.
    public func saveWebhook(_ w: WebhookRecord) async throws {
        try await database.transaction { db in
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
        try await database.transaction { db in
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

extension SQLNotifications {
    /// Saves a subscription; the same endpoint subscribed again (new keys, or another user signed in on that
    /// browser) replaces the old row.
    public func savePushSubscription(_ s: PushSubscriptionRecord) async throws {
        try await database.transaction { db in
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
        try await database.read { db in
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
        try await database.transaction { db in
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
                UPDATE deliveries SET status = 'failed', last_error = \(bind: reason), updated_at = \(bind: time.nanoseconds)
                WHERE channel = 'push' AND subscription_id = \(bind: found) AND status = 'pending'
                """
            ).run()
            try await db.raw("DELETE FROM push_subscriptions WHERE id = \(bind: found)").run()
            return true
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
}

extension SQLNotifications {
    /// Queues a delivery with no notification — a webhook ping, or a test push to each of the user's devices —
    /// and returns how many were queued (0 when the user has no webhook or no device).
    public func enqueueTestDelivery(_ channel: Delivery.Channel, user: UserID, id: String, at time: Timestamp)
        async throws -> Int
    {
        try await database.transaction { db in
            let targets: [String?]
            switch channel {
            case .webhook:
                targets =
                    try await db.raw("SELECT 1 AS x FROM webhooks WHERE user_id = \(bind: user.text)").first()
                    == nil ? [] : [nil]
            case .push:
                targets = try await db.raw("SELECT id FROM push_subscriptions WHERE user_id = \(bind: user.text)")
                    .all().map { try $0.decode(column: "id", as: String.self) }
            }
            for subscription in targets {
                try await db.raw(
                    """
                    INSERT INTO deliveries (id, channel, user_id, subscription_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                    VALUES (\(bind: subscription.map { id + ":" + $0 } ?? id), \(bind: channel.rawValue), \(bind: user.text), \(bind: subscription), \(bind: id), 'pending', 0, \(bind: time.nanoseconds), \(bind: time.nanoseconds), \(bind: time.nanoseconds))
                    """
                ).run()
            }
            return targets.count
        }
    }

    /// A channel's pending deliveries whose next attempt is due, oldest first, with where they go and what they
    /// carry. A webhook delivery waits while its webhook is disabled.
    public func dueDeliveries(_ channel: Delivery.Channel, at time: Timestamp, limit: Int = 20) async throws
        -> [DueDelivery]
    {
        try await database.read { db in
            try await db.raw(
                """
                SELECT d.*, w.url AS w_url, w.secret AS w_secret,
                       s.endpoint AS s_endpoint, s.p256dh AS s_p256dh, s.auth AS s_auth, s.user_agent AS s_user_agent,
                       s.created_at AS s_created_at,
                       n.id AS n_id, n.account_id AS n_account_id, n.kind AS n_kind, n.title AS n_title, n.body AS n_body,
                       n.created_at AS n_created_at
                FROM deliveries d
                LEFT JOIN webhooks w ON d.channel = 'webhook' AND w.user_id = d.user_id AND w.enabled = 1
                LEFT JOIN push_subscriptions s ON d.channel = 'push' AND s.id = d.subscription_id
                LEFT JOIN notifications n ON n.id = d.notification_id
                WHERE d.channel = \(bind: channel.rawValue) AND d.status = 'pending'
                  AND d.next_attempt_at <= \(bind: time.nanoseconds) AND (w.user_id IS NOT NULL OR s.id IS NOT NULL)
                ORDER BY d.next_attempt_at, d.id LIMIT \(bind: max(1, min(limit, 500)))
                """
            ).all().map { row in
                let delivery = try Self.delivery(row)
                let destination: DueDelivery.Destination
                switch delivery.channel {
                case .webhook:
                    destination = .webhook(
                        url: try row.decode(column: "w_url", as: String.self),
                        secret: try row.decode(column: "w_secret", as: String.self))
                case .push:
                    destination = .push(
                        PushSubscriptionRecord(
                            id: delivery.subscriptionID ?? "", userID: delivery.userID,
                            endpoint: try row.decode(column: "s_endpoint", as: String.self),
                            p256dh: try row.decode(column: "s_p256dh", as: String.self),
                            auth: try row.decode(column: "s_auth", as: String.self),
                            userAgent: try row.decode(column: "s_user_agent", as: String?.self),
                            createdAt: Timestamp(nanoseconds: try row.decode(column: "s_created_at", as: Int64.self))))
                }
                return DueDelivery(delivery: delivery, destination: destination)
            }
        }
    }

    /// Records the outcome of an attempt: delivered, retry at `nextAttempt`, or failed for good.
    public func recordDeliveryAttempt(
        id: String, status: Delivery.Status, attempts: Int, nextAttempt: Timestamp,
        httpStatus: Int?, error: String?, at time: Timestamp
    ) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                UPDATE deliveries SET status = \(bind: status.rawValue), attempts = \(bind: attempts),
                    next_attempt_at = \(bind: nextAttempt.nanoseconds), last_status = \(bind: httpStatus), last_error = \(bind: error),
                    updated_at = \(bind: time.nanoseconds)
                WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    /// A user's most recent deliveries by one channel, newest first.
    public func deliveries(_ channel: Delivery.Channel, user: UserID, limit: Int = 50) async throws -> [Delivery] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT d.*, n.id AS n_id, n.account_id AS n_account_id, n.kind AS n_kind, n.title AS n_title, n.body AS n_body,
                       n.created_at AS n_created_at
                FROM deliveries d LEFT JOIN notifications n ON n.id = d.notification_id
                WHERE d.channel = \(bind: channel.rawValue) AND d.user_id = \(bind: user.text)
                ORDER BY d.created_at DESC, d.id DESC LIMIT \(bind: max(1, min(limit, 500)))
                """
            ).all().map(Self.delivery)
        }
    }

    static func delivery(_ row: any SQLRow) throws -> Delivery {
        let user = UserID(try row.decode(column: "user_id", as: String.self))
        return Delivery(
            id: try row.decode(column: "id", as: String.self),
            channel: Delivery.Channel(rawValue: try row.decode(column: "channel", as: String.self)) ?? .webhook,
            userID: user, subscriptionID: try row.decode(column: "subscription_id", as: String?.self),
            notificationID: try row.decode(column: "notification_id", as: String.self),
            status: Delivery.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .failed,
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

extension SQLNotifications {
    /// A user's notifications, newest first, and how many are unread.
    public func notifications(user: UserID, limit: Int = 50) async throws -> (items: [NotificationRecord], unread: Int)
    {
        try await database.read { db in
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
        try await database.transaction { db in
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
