import BrokerageModel
import Foundation
import SQLKit
import TradingCore

extension Storage {
    /// Queues a delivery with no notification — a webhook ping, or a test push to each of the user's devices —
    /// and returns how many were queued (0 when the user has no webhook or no device).
    public func enqueueTestDelivery(_ channel: Delivery.Channel, user: UserID, id: String, at time: Timestamp)
        async throws -> Int
    {
        try await transaction { db in
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
        try await read { db in
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
        try await transaction { db in
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
        try await read { db in
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
