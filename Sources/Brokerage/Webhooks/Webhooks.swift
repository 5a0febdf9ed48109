import MarketData
import Storage
import TradingCore

/// Users' webhooks and their deliveries. A delivery row is written by the database in the same transaction as
/// the notification it carries (so none is lost in a crash); the dispatcher service takes due ones from here.
public struct Webhooks: Sendable {
    let storage: Storage
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
        try await stored { try await storage.enqueueWebhookPing(user: user, id: id, at: now) }
    }

    /// The user's newest deliveries with their attempts and errors.
    public func deliveries(user: UserID, limit: Int = 50) async throws(BrokerageError) -> [WebhookDelivery] {
        try await stored { try await storage.webhookDeliveries(user: user, limit: limit) }
    }

    /// Deliveries whose next attempt is due now.
    public func due(limit: Int) async throws(BrokerageError) -> [DueWebhookDelivery] {
        let now = clock.now()
        return try await stored { try await storage.dueWebhookDeliveries(at: now, limit: limit) }
    }

    /// Records one attempt's outcome: delivered, failed for good, or pending until `nextAttempt`.
    public func recordAttempt(
        id: String, status: WebhookDelivery.Status, attempts: Int, nextAttempt: Timestamp,
        httpStatus: Int?, error: String?
    ) async throws(BrokerageError) {
        let now = clock.now()
        try await stored {
            try await storage.recordWebhookAttempt(
                id: id, status: status, attempts: attempts, nextAttempt: nextAttempt,
                httpStatus: httpStatus, error: error, at: now)
        }
    }
}
