import BrokerageModel
import MarketData
import TradingCore

/// Users' Web Push subscriptions, one per device. What is on its way to them is in the `DeliveryOutbox`.
public struct PushSubscriptions: Sendable {
    let storage: any NotificationRepository
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
        return try await stored { try await storage.enqueueTestDelivery(.push, user: user, id: id, at: now) }
    }
}
