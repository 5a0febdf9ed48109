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

/// Sends users' notifications to their webhooks.
///
/// Deliveries are rows written by the database in the same transaction as each notification (migration 6), so a
/// crash loses none: this loop picks up whatever is due, POSTs it, and records the outcome. Each request carries
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
///
/// A service of the application: it stops at graceful shutdown after the attempts it has started (an attempt cut
/// short is simply retried: receivers de-duplicate by the delivery id).
public struct WebhookDispatcher: Service {
    /// Sends one request; returns the HTTP status or throws when there is no answer.
    public typealias Transport = @Sendable (URLRequest) async throws -> Int

    public static let retryDelays: [Int64] = [5, 30, 120, 600, 1800, 3600, 10_800]
    public static var maximumAttempts: Int { retryDelays.count + 1 }

    let webhooks: Webhooks
    let clock: MarketClock
    let addresses: OutboundAddressPolicy
    let transport: Transport
    let logger: Logger

    public init(
        brokerage: Brokerage, addresses: OutboundAddressPolicy = OutboundAddressPolicy(),
        logger: Logger = Logger(label: "papertrade.webhooks"),
        transport: @escaping Transport = WebhookDispatcher.urlSession
    ) {
        webhooks = brokerage.webhooks
        clock = brokerage.clock
        self.addresses = addresses
        self.transport = transport
        self.logger = logger
    }

    /// Sends with an ephemeral URLSession that never follows a redirect: a 3xx answer is the answer (a failed
    /// attempt), so a public URL cannot bounce the request to a private address.
    public static let urlSession: Transport = { request in
        let (_, response) = try await noRedirects.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    static let noRedirects = URLSession(configuration: .ephemeral, delegate: RefuseRedirects(), delegateQueue: nil)

    /// Polls for due deliveries until graceful shutdown (or cancellation).
    public func run() async throws {
        await DeliveryLoop.run { try await runOnce() }
    }

    /// Attempts every due delivery once (up to 8 at a time); returns how many were attempted.
    @discardableResult
    public func runOnce() async throws -> Int {
        let due = try await webhooks.due(limit: 32)
        await DeliveryLoop.attempt(due) { await attempt($0) }
        return due.count
    }

    func attempt(_ item: DueWebhookDelivery) async {
        let delivery = item.delivery
        let now = clock.now()
        let body = Self.body(delivery)
        var httpStatus: Int?
        var failure: String?
        if let url = URL(string: item.url), let refusal = await addresses.refusal(for: url) {
            failure = refusal
        } else if let url = URL(string: item.url) {
            var request = URLRequest(url: url, timeoutInterval: 10)
            request.httpMethod = "POST"
            request.httpBody = Data(body)
            for (name, value) in Self.headers(delivery, body: body, secret: item.secret, at: now) {
                request.setValue(value, forHTTPHeaderField: name)
            }
            do {
                let status = try await transport(request)
                httpStatus = status
                if !(200..<300).contains(status) { failure = "HTTP \(status)" }
            } catch {
                failure = "no answer: \(error.localizedDescription)"
            }
        } else {
            failure = "invalid URL"
        }
        let attempts = delivery.attempts + 1
        let status: WebhookDelivery.Status =
            failure == nil ? .delivered : (attempts >= Self.maximumAttempts ? .failed : .pending)
        let delay = status == .pending ? Self.retryDelays[attempts - 1] : 0
        if let failure {
            logger.info("webhook delivery \(delivery.id) attempt \(attempts) failed: \(failure)")
        }
        do {
            try await webhooks.recordAttempt(
                id: delivery.id, status: status, attempts: attempts,
                nextAttempt: now.adding(seconds: delay), httpStatus: httpStatus, error: failure)
        } catch {
            logger.error("could not record webhook attempt \(delivery.id): \(error)")
        }
    }

    /// The JSON body of a delivery (bytes, so the signature covers exactly what is sent).
    static func body(_ d: WebhookDelivery) -> [UInt8] {
        let data: JSONValue =
            d.notification.map(NotificationsController.encode)
            ?? .object(["message": .string("papertrade webhook test")])
        return JSONValue.object([
            "id": .string(d.id), "type": .string(d.notification?.kind ?? "ping"),
            "created_at": .string((d.notification?.createdAt ?? d.createdAt).description), "data": data,
        ]).serializedBytes
    }

    static func headers(_ d: WebhookDelivery, body: [UInt8], secret: String, at now: Timestamp) -> [(String, String)] {
        let seconds = now.nanoseconds / 1_000_000_000
        return [
            ("Content-Type", "application/json"), ("User-Agent", "papertrade-webhook/1"),
            ("Papertrade-Event", d.notification?.kind ?? "ping"), ("Papertrade-Delivery", d.id),
            ("Papertrade-Signature", "t=\(seconds),v1=\(signature(body, secret: secret, timestamp: seconds))"),
        ]
    }

    /// Hex HMAC-SHA256 of "<timestamp>.<body>" under the webhook's secret.
    public static func signature(_ body: [UInt8], secret: String, timestamp: Int64) -> String {
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
