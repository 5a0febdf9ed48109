import Brokerage
import Hummingbird
import JSON
import MarketData

/// In-app notifications: list with the unread count, mark one or all read.
struct NotificationsController {
    let notifications: Notifications

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("notifications", use: list)
        group.post("notifications/read-all", use: readAll)
        group.post("notifications/{id}/read", use: read)
    }

    static func encode(_ n: NotificationRecord) -> JSONValue {
        .object([
            "id": .string(n.id), "kind": .string(n.kind), "title": .string(n.title), "body": .string(n.body),
            "account_id": .text(n.accountID?.description), "created_at": .string(n.createdAt.description),
            "read": .bool(n.readAt != nil),
        ])
    }

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let limit = min(max(Int(request.query("limit") ?? "") ?? 50, 1), 500)
        let (items, unread) = try await notifications.recent(user: user, limit: limit)
        return JSONValue.object(["unread": .int(unread), "notifications": .array(items.map(Self.encode))]).response()
    }

    @Sendable func read(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        try await notifications.markRead(user: user, id: try context.parameters.require("id"))
        return try await list(request, context: context)
    }

    @Sendable func readAll(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        try await notifications.markRead(user: user, id: nil)
        return try await list(request, context: context)
    }
}
