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
/// closed (the `DeliveryDispatcher` of the push channel runs it).
///
/// Each delivery is encrypted for its subscription (RFC 8291, `WebPushMessage`), carries a VAPID JWT (RFC 8292,
/// `VAPIDKey`) and is POSTed to the push service (RFC 8030) with
///
///     Content-Encoding: aes128gcm     TTL: 86400 (a day; a push service keeps it that long for an offline phone)
///     Urgency: high (fills, automatic orders, alerts) | normal      Authorization: vapid t=<JWT>, k=<key>
///
/// A 2xx answer delivers it. 404 or 410 means the browser unsubscribed: the subscription is removed and its
/// pending deliveries fail. 429, 5xx or no answer is retried after 5 s, 30 s, 2 min, 10 min and 30 min, then the
/// delivery fails; any other answer (a 400 or 413, a 401/403 that refuses the VAPID signature) fails it at once.
/// The endpoint is checked against the outbound policy before every attempt, as webhooks are.
struct PushSender: DeliverySender {
    static let timeToLive = 86_400

    let channel = Delivery.Channel.push
    let retryDelays: [Int64] = [5, 30, 120, 600, 1800]
    let push: PushSubscriptions
    let languages: LanguagePreferences
    let key: VAPIDKey
    let contact: String
    let addresses: OutboundAddressPolicy
    var transport: WebhookSender.Transport = WebhookSender.urlSession

    init(
        push: PushSubscriptions, languages: LanguagePreferences, key: VAPIDKey, contact: String,
        addresses: OutboundAddressPolicy
    ) {
        self.push = push
        self.languages = languages
        self.key = key
        self.contact = contact
        self.addresses = addresses
    }

    func send(_ item: DueDelivery, at now: Timestamp) async -> DeliveryOutcome {
        guard case .push(let subscription) = item.destination else { return .failed(nil, "not a push subscription") }
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
        case 404, 410: return .gone(code, "the subscription is gone (HTTP \(code)); removed")
        case 429, 500..<600: return .retry(code, "HTTP \(code)")
        default: return .failed(code, "HTTP \(code)")
        }
    }

    /// The browser dropped the subscription: remove it, so its pending deliveries fail and no more are queued.
    func gone(_ item: DueDelivery, httpStatus: Int) async throws {
        guard case .push(let subscription) = item.destination else { return }
        try await push.drop(id: subscription.id, reason: "the subscription is gone (HTTP \(httpStatus))")
    }

    /// What the service worker receives (JSON): the notification, and where a tap on it leads.
    static func payload(_ d: Delivery, text: Catalogue) -> [UInt8] {
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
