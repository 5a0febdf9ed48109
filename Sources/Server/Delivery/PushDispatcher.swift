import Brokerage
import Foundation
import JSON
import Logging
import MarketData
import ServiceLifecycle
import TradingCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends users' notifications to their devices by Web Push, so a fill or an alert reaches a phone whose app is
/// closed.
///
/// Each notification has a delivery row per subscription, written by the database in the same transaction as the
/// notification (migration 10): this loop takes whatever is due, encrypts it for the subscription (RFC 8291,
/// `WebPushMessage`), signs a VAPID JWT (RFC 8292, `VAPIDKey`) and POSTs it to the push service (RFC 8030) with
///
///     Content-Encoding: aes128gcm     TTL: 86400 (a day; a push service keeps it that long for an offline phone)
///     Urgency: high (fills, automatic orders, alerts) | normal      Authorization: vapid t=<JWT>, k=<key>
///
/// A 2xx answer delivers it. 404 or 410 means the browser unsubscribed: the subscription is removed and its
/// pending deliveries fail. 429, 5xx or no answer is retried after 5 s, 30 s, 2 min, 10 min and 30 min, then the
/// delivery fails; any other answer (a 400 or 413, a 401/403 that refuses the VAPID signature) fails it at once.
/// The endpoint is checked against the outbound policy before every attempt, as webhooks are.
public struct PushDispatcher: Service {
    public static let retryDelays: [Int64] = [5, 30, 120, 600, 1800]
    public static var maximumAttempts: Int { retryDelays.count + 1 }
    public static let timeToLive = 86_400

    let push: PushSubscriptions
    let languages: LanguagePreferences
    let clock: MarketClock
    let key: VAPIDKey
    let contact: String
    let addresses: OutboundAddressPolicy
    let transport: WebhookDispatcher.Transport
    let logger: Logger

    public init(
        brokerage: Brokerage, key: VAPIDKey, contact: String, addresses: OutboundAddressPolicy,
        logger: Logger = Logger(label: "papertrade.push"),
        transport: @escaping WebhookDispatcher.Transport = WebhookDispatcher.urlSession
    ) {
        push = brokerage.push
        languages = brokerage.languages
        clock = brokerage.clock
        self.key = key
        self.contact = contact
        self.addresses = addresses
        self.transport = transport
        self.logger = logger
    }

    public func run() async throws {
        await DeliveryLoop.run { try await runOnce() }
    }

    /// Attempts every due delivery once (up to 8 at a time); returns how many were attempted.
    @discardableResult
    public func runOnce() async throws -> Int {
        let due = try await push.due(limit: 32)
        await DeliveryLoop.attempt(due) { await attempt($0) }
        return due.count
    }

    enum Outcome {
        case delivered(Int)
        case retry(Int?, String)
        case failed(Int?, String)
        case gone(Int)
    }

    func attempt(_ item: DuePushDelivery) async {
        let delivery = item.delivery
        let outcome = await send(item)
        let attempts = delivery.attempts + 1
        var status = WebhookDelivery.Status.failed
        var delay: Int64 = 0
        var httpStatus: Int?
        var failure: String?
        switch outcome {
        case .delivered(let code):
            status = .delivered
            httpStatus = code
        case .retry(let code, let why):
            httpStatus = code
            failure = why
            if attempts < Self.maximumAttempts {
                status = .pending
                delay = Self.retryDelays[attempts - 1]
            }
        case .failed(let code, let why):
            httpStatus = code
            failure = why
        case .gone(let code):
            httpStatus = code
            failure = "the subscription is gone (HTTP \(code)); removed"
        }
        if let failure { logger.info("push delivery \(delivery.id) attempt \(attempts): \(failure)") }
        do {
            try await push.recordAttempt(
                id: delivery.id, status: status, attempts: attempts,
                nextAttempt: clock.now().adding(seconds: delay), httpStatus: httpStatus, error: failure)
            if case .gone(let code) = outcome {
                try await push.drop(id: item.subscription.id, reason: "the subscription is gone (HTTP \(code))")
            }
        } catch {
            logger.error("could not record push attempt \(delivery.id): \(error)")
        }
    }

    func send(_ item: DuePushDelivery) async -> Outcome {
        let subscription = item.subscription
        guard let url = URL(string: subscription.endpoint) else { return .failed(nil, "invalid endpoint URL") }
        if let refusal = await addresses.refusal(for: url) { return .retry(nil, refusal) }
        guard let p256dh = Base64URL.decode(subscription.p256dh), let auth = Base64URL.decode(subscription.auth) else {
            return .failed(nil, "the subscription's keys are not base64url")
        }
        let request: URLRequest
        do {
            let text = Catalogue(languages.language(of: item.delivery.userID))
            let message = try WebPushMessage(
                plaintext: Self.payload(item.delivery, text: text), p256dh: p256dh, auth: auth)
            var r = URLRequest(url: url, timeoutInterval: 10)
            r.httpMethod = "POST"
            r.httpBody = Data(message.body)
            r.setValue("aes128gcm", forHTTPHeaderField: "Content-Encoding")
            r.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            r.setValue(String(Self.timeToLive), forHTTPHeaderField: "TTL")
            r.setValue(Self.urgency(item.delivery.notification?.kind), forHTTPHeaderField: "Urgency")
            r.setValue(try key.authorization(endpoint: url, contact: contact), forHTTPHeaderField: "Authorization")
            request = r
        } catch {
            return .failed(nil, "could not prepare the message: \(error)")
        }
        let code: Int
        do { code = try await transport(request) } catch {
            return .retry(nil, "no answer: \(error.localizedDescription)")
        }
        switch code {
        case 200..<300: return .delivered(code)
        case 404, 410: return .gone(code)
        case 429, 500..<600: return .retry(code, "HTTP \(code)")
        default: return .failed(code, "HTTP \(code)")
        }
    }

    /// What the service worker receives (JSON): the notification, and where a tap on it leads.
    static func payload(_ d: PushDelivery, text: Catalogue) -> [UInt8] {
        guard let n = d.notification else {
            return JSONValue.object([
                "id": .string(d.id), "kind": .string("test"), "title": .string(text("push.test.title")),
                "body": .string(text("push.test.body")), "tag": .string("test"), "url": .string("#/settings"),
            ]).serializedBytes
        }
        var body = n.body
        // Keep well inside one 4 KB record whatever the texts are.
        if body.utf8.count > 2_000 { body = String(body.prefix(600)) + "…" }
        return JSONValue.object([
            "id": .string(d.id), "notification_id": .string(n.id), "kind": .string(n.kind),
            "title": .string(String(n.title.prefix(200))), "body": .string(body), "tag": .string(n.id),
            "url": .string(screen(n.kind)), "account_id": .text(n.accountID?.description),
            "created_at": .string(n.createdAt.description),
        ]).serializedBytes
    }

    /// The web app screen a tap opens.
    static func screen(_ kind: String) -> String {
        switch kind {
        case "fill", "order_canceled": return "#/orders"
        case "order_placed_automatically", "automatic_order_failed", "queue_empty": return "#/queue"
        case "alert": return "#/alerts"
        default: return "#/notifications"
        }
    }

    static func urgency(_ kind: String?) -> String {
        switch kind {
        case "fill", "order_placed_automatically", "automatic_order_failed", "alert": return "high"
        default: return "normal"
        }
    }
}
