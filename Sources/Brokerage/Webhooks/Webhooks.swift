import BrokerageModel
import MarketData
import TradingCore

/// Users' webhooks: where their notifications are POSTed. What is on its way is in the `DeliveryOutbox`.
public struct Webhooks: Sendable {
    let storage: any NotificationRepository
    let clock: MarketClock

    public func webhook(user: UserID) async throws(BrokerageError) -> WebhookRecord? {
        try await stored { try await storage.webhook(user: user) }
    }

    /// Creates or replaces the user's webhook.
    public func save(_ webhook: WebhookRecord) async throws(BrokerageError) {
        try await stored { try await storage.saveWebhook(webhook) }
    }

    /// Removes the user's webhook (pending deliveries fail); false when there was none.
    public func delete(user: UserID) async throws(BrokerageError) -> Bool {
        let now = clock.now()
        return try await stored { try await storage.deleteWebhook(user: user, at: now) }
    }

    /// Queues a test delivery with no notification.
    public func ping(user: UserID, id: String) async throws(BrokerageError) {
        let now = clock.now()
        _ = try await stored { try await storage.enqueueTestDelivery(.webhook, user: user, id: id, at: now) }
    }
}
