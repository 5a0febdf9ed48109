import MarketData
import Storage
import TradingCore

/// Users' Web Push subscriptions (one per device) and their deliveries. A delivery row is written by the database
/// in the same transaction as the notification it carries, one per subscription; the push dispatcher service takes
/// due ones from here.
public struct PushSubscriptions: Sendable {
    let storage: Storage
    let clock: MarketClock

    public func subscriptions(user: UserID) async throws(BrokerageError) -> [PushSubscriptionRecord] {
        try await stored { try await storage.pushSubscriptions(user: user) }
    }

    /// Saves a device's subscription (the same endpoint again replaces it).
    public func save(_ subscription: PushSubscriptionRecord) async throws(BrokerageError) {
        try await stored { try await storage.savePushSubscription(subscription) }
    }

    /// Removes one of the user's subscriptions by id or endpoint; false when there was none.
    public func remove(user: UserID, id: String? = nil, endpoint: String? = nil) async throws(BrokerageError) -> Bool {
        let now = clock.now()
        return try await stored {
            try await storage.deletePushSubscription(
                user: user, id: id, endpoint: endpoint, reason: "unsubscribed", at: now)
        }
    }

    /// Drops a subscription its push service says is gone (404/410): its pending deliveries fail.
    public func drop(id: String, reason: String) async throws(BrokerageError) {
        let now = clock.now()
        _ = try await stored {
            try await storage.deletePushSubscription(user: nil, id: id, endpoint: nil, reason: reason, at: now)
        }
    }

    /// Queues a test push to each of the user's devices; returns how many.
    public func test(user: UserID, id: String) async throws(BrokerageError) -> Int {
        let now = clock.now()
        return try await stored { try await storage.enqueuePushTest(user: user, id: id, at: now) }
    }

    public func deliveries(user: UserID, limit: Int = 50) async throws(BrokerageError) -> [PushDelivery] {
        try await stored { try await storage.pushDeliveries(user: user, limit: limit) }
    }

    /// Deliveries whose next attempt is due now.
    public func due(limit: Int) async throws(BrokerageError) -> [DuePushDelivery] {
        let now = clock.now()
        return try await stored { try await storage.duePushDeliveries(at: now, limit: limit) }
    }

    public func recordAttempt(
        id: String, status: WebhookDelivery.Status, attempts: Int, nextAttempt: Timestamp, httpStatus: Int?,
        error: String?
    ) async throws(BrokerageError) {
        let now = clock.now()
        try await stored {
            try await storage.recordPushAttempt(
                id: id, status: status, attempts: attempts, nextAttempt: nextAttempt, httpStatus: httpStatus,
                error: error, at: now)
        }
    }
}
