import TradingCore

/// An in-app notification: listed with an unread count, pushed over the web app's socket, shown as a toast.
public struct NotificationRecord: Sendable, Hashable {
    public var id: String
    public var userID: UserID
    public var accountID: AccountID?
    /// fill, order_canceled, order_placed_automatically, automatic_order_failed, queue_empty, …
    public var kind: String
    public var title: String
    public var body: String
    public var createdAt: Timestamp
    public var readAt: Timestamp?

    public init(
        id: String, userID: UserID, accountID: AccountID?, kind: String, title: String, body: String,
        createdAt: Timestamp, readAt: Timestamp? = nil
    ) {
        self.id = id
        self.userID = userID
        self.accountID = accountID
        self.kind = kind
        self.title = title
        self.body = body
        self.createdAt = createdAt
        self.readAt = readAt
    }
}

/// A user's webhook: where their notifications are POSTed, signed with `secret`.
public struct WebhookRecord: Sendable, Hashable {
    public var userID: UserID
    public var url: String
    public var secret: String
    public var enabled: Bool
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        userID: UserID, url: String, secret: String, enabled: Bool = true, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.userID = userID
        self.url = url
        self.secret = secret
        self.enabled = enabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

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

/// One notification on its way out by one channel: to the user's webhook, or to one of their devices by Web Push.
///
/// Every channel shares one outbox (`deliveries`, migration 14). Rows are written by a trigger on `notifications`,
/// in the same transaction as the notification — one for the user's enabled webhook, one per push subscription — so
/// a crash loses none; a ping or a test push is a delivery with no notification. The dispatchers take due rows,
/// attempt them and record each attempt here: one retry bookkeeping, one history per user and channel.
public struct Delivery: Sendable, Hashable {
    public enum Channel: String, Sendable, Hashable, CaseIterable {
        case webhook, push
    }

    public enum Status: String, Sendable, Hashable {
        case pending, delivered, failed
    }

    public var id: String
    public var channel: Channel
    public var userID: UserID
    /// The push subscription it goes to (nil for a webhook delivery).
    public var subscriptionID: String?
    public var notificationID: String
    public var status: Status
    public var attempts: Int
    public var nextAttemptAt: Timestamp
    /// The receiver's HTTP status on the last attempt (nil when it did not answer).
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    /// What is sent (nil for a ping or a test push).
    public var notification: NotificationRecord?

    public init(
        id: String, channel: Channel, userID: UserID, subscriptionID: String?, notificationID: String, status: Status,
        attempts: Int, nextAttemptAt: Timestamp, lastStatus: Int?, lastError: String?, createdAt: Timestamp,
        updatedAt: Timestamp, notification: NotificationRecord?
    ) {
        self.id = id
        self.channel = channel
        self.userID = userID
        self.subscriptionID = subscriptionID
        self.notificationID = notificationID
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.notification = notification
    }
}

/// A due delivery with where it goes.
public struct DueDelivery: Sendable {
    public enum Destination: Sendable {
        /// The user's webhook: its URL and signing secret.
        case webhook(url: String, secret: String)
        case push(PushSubscriptionRecord)
    }

    public var delivery: Delivery
    public var destination: Destination

    public init(delivery: Delivery, destination: Destination) {
        self.delivery = delivery
        self.destination = destination
    }
}
