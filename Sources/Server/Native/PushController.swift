import Brokerage
import Crypto
import Foundation
import Hummingbird
import JSON
import MarketData

/// Web Push: the server's VAPID public key, the signed-in user's device subscriptions, a test push.
///
/// `POST /api/v1/push/subscriptions` takes the browser's `PushSubscription.toJSON()` as it is:
/// `{"endpoint": "https://…", "expirationTime": null, "keys": {"p256dh": "B…", "auth": "…"}}`.
struct PushController {
    let clock: MarketClock
    let deliveries: DeliveryOutbox
    let push: PushSubscriptions
    /// Signs the JWT each push message carries; its public half is what browsers subscribe with.
    let vapid: VAPIDKey
    /// Where push endpoints may point.
    let outbound: OutboundAddressPolicy

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("push/vapid-public-key", use: publicKey)
        group.get("push/subscriptions", use: list)
        group.post("push/subscriptions", use: subscribe)
        group.delete("push/subscriptions", use: unsubscribeEndpoint)
        group.delete("push/subscriptions/{id}", use: unsubscribe)
        group.post("push/test", use: test)
        group.get("push/deliveries", use: deliveries)
    }

    @Sendable func publicKey(_ request: Request, context: AppContext) async throws -> Response {
        JSONValue.object(["public_key": .string(vapid.publicKeyText)]).response()
    }

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        return JSONValue.array(try await push.subscriptions(user: user).map(Self.encode)).response()
    }

    @Sendable func subscribe(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        let body = try await request.jsonBody(context: context)
        let policy = outbound
        guard let endpoint = body["endpoint"]?.string, endpoint.count <= 2_000, let url = URL(string: endpoint) else {
            throw APIError.unprocessable("endpoint must be the push service URL of the subscription")
        }
        if let refusal = await policy.refusal(for: url) {
            throw APIError.unprocessable(refusal.replacingOccurrences(of: "url must", with: "endpoint must"))
        }
        guard case .object(let keys)? = body["keys"] else {
            throw APIError.unprocessable("keys must be an object with p256dh and auth")
        }
        guard let p256dhText = keys["p256dh"]?.string, let p256dh = Base64URL.decode(p256dhText),
            (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) != nil
        else {
            throw APIError.unprocessable("keys.p256dh must be the browser's P-256 public key (65 bytes, base64url)")
        }
        guard let authText = keys["auth"]?.string, Base64URL.decode(authText)?.count == 16 else {
            throw APIError.unprocessable("keys.auth must be the 16-byte authentication secret (base64url)")
        }
        let agent = request.headers[.userAgent].map { String($0.prefix(300)) }
        let record = PushSubscriptionRecord(
            id: UUID().uuidString.lowercased(), userID: user, endpoint: endpoint, p256dh: p256dhText, auth: authText,
            userAgent: agent, createdAt: clock.now())
        try await push.save(record)
        return Self.encode(record).response(status: .created)
    }

    @Sendable func unsubscribe(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        guard try await push.remove(user: user, id: try context.parameters.require("id")) else {
            throw APIError.notFound("no such subscription")
        }
        return JSONValue.object(["removed": .bool(true)]).response()
    }

    /// `DELETE /api/v1/push/subscriptions` with `{"endpoint"}`: what a browser that unsubscribed knows.
    @Sendable func unsubscribeEndpoint(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        guard let endpoint = try await request.jsonBody(context: context)["endpoint"]?.string else {
            throw APIError.unprocessable("endpoint is required")
        }
        guard try await push.remove(user: user, endpoint: endpoint) else {
            throw APIError.notFound("no such subscription")
        }
        return JSONValue.object(["removed": .bool(true)]).response()
    }

    @Sendable func test(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let id = "test-" + UUID().uuidString.lowercased()
        let devices = try await push.test(user: user, id: id)
        guard devices > 0 else { throw APIError.notFound("no device of yours is subscribed to notifications") }
        return JSONValue.object(["id": .string(id), "devices": .int(devices)]).response(status: .accepted)
    }

    @Sendable func deliveries(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let limit = min(max(Int(request.query("limit") ?? "") ?? 50, 1), 500)
        return JSONValue.array(
            try await deliveries.history(.push, user: user, limit: limit).map { d in
                .object([
                    "id": .string(d.id), "subscription_id": .text(d.subscriptionID),
                    "notification_id": .string(d.notificationID), "type": .string(d.notification?.kind ?? "test"),
                    "status": .string(d.status.rawValue), "attempts": .int(d.attempts),
                    "last_status": d.lastStatus.map { .int($0) } ?? .null, "last_error": .text(d.lastError),
                    "next_attempt_at": d.status == .pending ? .string(d.nextAttemptAt.description) : .null,
                    "created_at": .string(d.createdAt.description),
                ])
            }
        ).response()
    }

    /// A subscription as Settings lists it: the push service's origin (not the whole capability URL) and device.
    static func encode(_ s: PushSubscriptionRecord) -> JSONValue {
        let origin = URL(string: s.endpoint).flatMap { u in
            u.host.map { "\(u.scheme ?? "https")://\($0)" + (u.port.map { ":\($0)" } ?? "") }
        }
        return .object([
            "id": .string(s.id), "push_service": .text(origin), "user_agent": .text(s.userAgent),
            "created_at": .string(s.createdAt.description),
        ])
    }
}
