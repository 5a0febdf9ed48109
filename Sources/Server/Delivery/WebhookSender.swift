import Brokerage
import Crypto
import Foundation
import JSON
import Logging
import MarketData
import ServiceLifecycle
import TradingCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends users' notifications to their webhooks (the `DeliveryDispatcher` of the webhook channel runs it).
///
/// Each request carries
///
///     Content-Type: application/json
///     Papertrade-Event: order_placed_automatically        (the notification kind, or "ping")
///     Papertrade-Delivery: <delivery id>                  (the same on every retry: receivers de-duplicate by it)
///     Papertrade-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>
///
/// and the body `{"id", "type", "created_at", "data": {notification}}`. A 2xx answer delivers it; anything else
/// (or no answer within 10 s) is retried after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h and 3 h; after the eighth
/// attempt the delivery is marked failed. Every attempt's status and error is kept, so failures are visible in the
/// API (`GET /api/v1/webhook/deliveries`) and the web app's settings.
struct WebhookSender: DeliverySender {
    /// Sends one request; returns the HTTP status or throws when there is no answer.
    typealias Transport = @Sendable (URLRequest) async throws -> Int

    let channel = Delivery.Channel.webhook
    let retryDelays: [Int64] = [5, 30, 120, 600, 1800, 3600, 10_800]
    let addresses: OutboundAddressPolicy
    var transport: Transport = WebhookSender.urlSession

    /// Sends with an ephemeral URLSession that never follows a redirect: a 3xx answer is the answer (a failed
    /// attempt), so a public URL cannot bounce the request to a private address.
    static let urlSession: Transport = { request in
        let (_, response) = try await noRedirects.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    static let noRedirects = URLSession(configuration: .ephemeral, delegate: RefuseRedirects(), delegateQueue: nil)

    func send(_ item: DueDelivery, at now: Timestamp) async -> DeliveryOutcome {
        guard case .webhook(let address, let secret) = item.destination else { return .failed(nil, "not a webhook") }
        guard let url = URL(string: address) else { return .retry(nil, "invalid URL") }
        if let refusal = await addresses.refusal(for: url) { return .retry(nil, refusal) }
        let body = Self.body(item.delivery)
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        for (name, value) in Self.headers(item.delivery, body: body, secret: secret, at: now) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let status: Int
        do { status = try await transport(request) } catch {
            return .retry(nil, "no answer: \(error.localizedDescription)")
        }
        return (200..<300).contains(status) ? .delivered(status) : .retry(status, "HTTP \(status)")
    }

    func gone(_ item: DueDelivery, httpStatus: Int) async throws {}

    /// The JSON body of a delivery (bytes, so the signature covers exactly what is sent).
    static func body(_ d: Delivery) -> [UInt8] {
        let data: JSONValue =
            d.notification.map(NotificationsController.encode)
            ?? .object(["message": .string("papertrade webhook test")])
        return JSONValue.object([
            "id": .string(d.id), "type": .string(d.notification?.kind ?? "ping"),
            "created_at": .string((d.notification?.createdAt ?? d.createdAt).description), "data": data,
        ]).serializedBytes
    }

    static func headers(_ d: Delivery, body: [UInt8], secret: String, at now: Timestamp) -> [(String, String)] {
        let seconds = now.nanoseconds / 1_000_000_000
        return [
            ("Content-Type", "application/json"), ("User-Agent", "papertrade-webhook/1"),
            ("Papertrade-Event", d.notification?.kind ?? "ping"), ("Papertrade-Delivery", d.id),
            ("Papertrade-Signature", "t=\(seconds),v1=\(signature(body, secret: secret, timestamp: seconds))"),
        ]
    }

    /// Hex HMAC-SHA256 of "<timestamp>.<body>" under the webhook's secret.
    static func signature(_ body: [UInt8], secret: String, timestamp: Int64) -> String {
        var message = Array("\(timestamp).".utf8)
        message.append(contentsOf: body)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Array(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }
}

/// Answers every redirect with "do not follow" (stateless, so sharing it between threads is safe).
final class RefuseRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
