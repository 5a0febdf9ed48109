import BrokerageModel
import Foundation
import SQLKit
import TradingCore

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
