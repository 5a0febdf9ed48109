import BrokerageModel
import MarketData
import TradingCore

/// A user's in-app notifications: written by the journal with the step that caused them, listed here with an
/// unread count, and streamed live as they become durable (the web app's socket, toasts).
public struct Notifications: Sendable {
    let storage: any NotificationRepository
    let clock: MarketClock
    let streams: UpdateStreams

    /// The newest notifications (at most `limit`, 1–500) and how many of the user's are unread.
    public func recent(user: UserID, limit: Int = 50) async throws(BrokerageError) -> (
        items: [NotificationRecord], unread: Int
    ) {
        try await stored { try await storage.notifications(user: user, limit: limit) }
    }

    /// Marks one notification read, or every one of the user's when `id` is nil.
    public func markRead(user: UserID, id: String?) async throws(BrokerageError) {
        let now = clock.now()
        try await stored { try await storage.markNotificationsRead(user: user, id: id, at: now) }
    }

    /// The user's notifications as they are committed.
    public func live(user: UserID) -> AsyncStream<NotificationRecord> {
        streams.notifications(for: user)
    }
}
