import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// The logged-in user's webhook: set the URL (a signing secret is made and shown once), rotate the secret, disable,
/// remove, send a test ping, and see recent deliveries with their attempts and errors. See WebhookSender.
struct WebhookController {
    let clock: MarketClock
    let webhooks: Webhooks
    let deliveries: DeliveryOutbox
    /// Where webhook URLs may point.
    let outbound: OutboundAddressPolicy

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("webhook", use: get)
        group.put("webhook", use: put)
        group.delete("webhook", use: delete)
        group.post("webhook/ping", use: ping)
        group.get("webhook/deliveries", use: deliveries)
    }

    static func encode(_ w: WebhookRecord, revealSecret: Bool) -> JSONValue {
        var o: [String: JSONValue] = [
            "url": .string(w.url), "enabled": .bool(w.enabled), "secret_hint": .string("…" + w.secret.suffix(4)),
            "created_at": .string(w.createdAt.description), "updated_at": .string(w.updatedAt.description),
            "signature_header": .string(
                "Papertrade-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>"),
        ]
        if revealSecret { o["secret"] = .string(w.secret) }
        return .object(o)
    }

    static func encode(_ d: Delivery) -> JSONValue {
        .object([
            "id": .string(d.id), "type": .string(d.notification?.kind ?? "ping"), "title": .text(d.notification?.title),
            "status": .string(d.status.rawValue), "attempts": .int(d.attempts),
            "next_attempt_at": d.status == .pending ? .string(d.nextAttemptAt.description) : .null,
            "last_status": d.lastStatus.map(JSONValue.int) ?? .null, "last_error": .text(d.lastError),
            "created_at": .string(d.createdAt.description), "updated_at": .string(d.updatedAt.description),
        ])
    }

    @Sendable func get(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let hook = try await webhooks.webhook(user: user)
        return JSONValue.object(["webhook": hook.map { Self.encode($0, revealSecret: false) } ?? .null]).response()
    }

    /// `{url, enabled?, rotate_secret?}`: creates the webhook (201, with its secret) or updates it (200; the secret is
    /// shown again only when rotated).
    @Sendable func put(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        let body = try await request.jsonBody(context: context)
        let policy = outbound
        guard let text = body["url"]?.string?.trimmingCharacters(in: .whitespaces), text.count <= 2000,
            let url = URL(string: text)
        else {
            throw APIError.unprocessable(
                policy.allowsLocalEndpoints ? "url must be an http or https URL" : "url must be an https URL")
        }
        if let refusal = await policy.refusal(for: url) {
            throw APIError.unprocessable(refusal)
        }
        if let enabled = body["enabled"], enabled.bool == nil {
            throw APIError.unprocessable("enabled must be true or false")
        }
        let now = clock.now()
        let existing = try await webhooks.webhook(user: user)
        let kept = body["rotate_secret"]?.bool == true ? nil : existing?.secret
        let rotate = kept == nil
        let hook = WebhookRecord(
            userID: user, url: text, secret: kept ?? "whsec_" + Credentials.token(bytes: 24),
            enabled: body["enabled"]?.bool ?? existing?.enabled ?? true,
            createdAt: existing?.createdAt ?? now, updatedAt: now)
        try await webhooks.save(hook)
        return Self.encode(hook, revealSecret: rotate).response(status: existing == nil ? .created : .ok)
    }

    @Sendable func delete(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        guard try await webhooks.delete(user: user) else {
            throw APIError.notFound("no webhook is set")
        }
        return JSONValue.object(["webhook": .null]).response()
    }

    @Sendable func ping(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        guard try await webhooks.webhook(user: user) != nil else {
            throw APIError.notFound("no webhook is set")
        }
        let id = "ping-" + UUID().uuidString.lowercased()
        try await webhooks.ping(user: user, id: id)
        return JSONValue.object(["id": .string(id), "status": .string("pending")]).response(status: .accepted)
    }

    @Sendable func deliveries(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let limit = min(max(Int(request.query("limit") ?? "") ?? 50, 1), 500)
        return JSONValue.array(
            try await deliveries.history(.webhook, user: user, limit: limit).map(Self.encode)
        ).response()
    }
}
