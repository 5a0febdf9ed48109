import BrokerageModel
import MarketData
import TradingCore

/// Notifications on their way out, for every channel (webhooks, Web Push): one outbox, one retry bookkeeping. Rows
/// are written by the database in the same transaction as the notification they carry, so a crash loses none;
/// each channel's dispatcher takes its due rows from here and records every attempt.
public struct DeliveryOutbox: Sendable {
    let storage: any NotificationRepository
    let clock: MarketClock

    /// A channel's deliveries whose next attempt is due now.
    public func due(_ channel: Delivery.Channel, limit: Int) async throws(BrokerageError) -> [DueDelivery] {
        let now = clock.now()
        return try await stored { try await storage.dueDeliveries(channel, at: now, limit: limit) }
    }

    /// Records one attempt's outcome: delivered, failed for good, or pending until `nextAttempt`.
    public func recordAttempt(
        id: String, status: Delivery.Status, attempts: Int, nextAttempt: Timestamp, httpStatus: Int?, error: String?
    ) async throws(BrokerageError) {
        let now = clock.now()
        try await stored {
            try await storage.recordDeliveryAttempt(
                id: id, status: status, attempts: attempts, nextAttempt: nextAttempt, httpStatus: httpStatus,
                error: error, at: now)
        }
    }

    /// The user's newest deliveries by one channel, with their attempts and errors.
    public func history(_ channel: Delivery.Channel, user: UserID, limit: Int = 50) async throws(BrokerageError)
        -> [Delivery]
    {
        try await stored { try await storage.deliveries(channel, user: user, limit: limit) }
    }
}
