import BrokerageModel
import Foundation
import SQLKit
import Testing
import TradingCore

@testable import Storage

@Suite("One delivery outbox for webhooks and Web Push")
struct DeliveryOutboxTests {
    static let t0 = StorageTests.t0

    func notification(_ id: String, user: String = "u1", at time: Timestamp = t0) -> NotificationRecord {
        NotificationRecord(
            id: id, userID: UserID(user), accountID: nil, kind: "fill", title: "Filled", body: "1 AAPL at 100",
            createdAt: time, readAt: nil)
    }

    func subscription(_ id: String) -> PushSubscriptionRecord {
        PushSubscriptionRecord(
            id: id, userID: "u1", endpoint: "https://push.example.com/\(id)", p256dh: "BK", auth: "au",
            userAgent: "phone", createdAt: Self.t0)
    }

    /// A user with a webhook and two devices.
    func subscribe(_ storage: Storage) async throws {
        // (As the schema stood at migration 13: the migration test writes this before migrating further.)
        try await storage.transaction { db in
            try await db.raw(
                "INSERT INTO users (id, username, password_hash, created_at) VALUES ('u1', 'alice', 'h', \(bind: Self.t0.nanoseconds))"
            ).run()
        }
        try await SQLNotifications(storage).saveWebhook(
            WebhookRecord(
                userID: "u1", url: "https://hooks.example.com/p", secret: "whsec_x", createdAt: Self.t0,
                updatedAt: Self.t0))
        for id in ["s1", "s2"] { try await SQLNotifications(storage).savePushSubscription(subscription(id)) }
    }

    @Test(
        "a notification is queued once for the webhook and once per device, in its own journal; each channel sees its own",
        arguments: Backend.available)
    func oneOutbox(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            try await subscribe(storage)
            try await storage.journal(Journal(notifications: [notification("n1")]))

            let hooks = try await SQLNotifications(storage).dueDeliveries(.webhook, at: Self.t0)
            #expect(hooks.map(\.delivery.id) == ["n1"])
            let pushes = try await SQLNotifications(storage).dueDeliveries(.push, at: Self.t0)
            #expect(pushes.map(\.delivery.id) == ["n1:s1", "n1:s2"])
            #expect(pushes.allSatisfy { $0.delivery.notification?.title == "Filled" })
            let endpoints = pushes.compactMap { item -> String? in
                guard case .push(let s) = item.destination else { return nil }
                return s.endpoint
            }
            #expect(endpoints == ["https://push.example.com/s1", "https://push.example.com/s2"])

            // Tests of each channel: a ping to the webhook, a test push to every device.
            #expect(
                try await SQLNotifications(storage).enqueueTestDelivery(.webhook, user: "u1", id: "ping1", at: Self.t0)
                    == 1)
            #expect(
                try await SQLNotifications(storage).enqueueTestDelivery(.push, user: "u1", id: "test1", at: Self.t0)
                    == 2)
            #expect(try await SQLNotifications(storage).deliveries(.webhook, user: "u1").count == 2)
            #expect(try await SQLNotifications(storage).deliveries(.push, user: "u1").count == 4)

            // One device unsubscribes: its pending deliveries fail with the reason, the other device's stay due.
            #expect(
                try await SQLNotifications(storage).deletePushSubscription(
                    user: "u1", id: "s1", endpoint: nil, reason: "unsubscribed", at: Self.t0))
            let history = try await SQLNotifications(storage).deliveries(.push, user: "u1")
            #expect(
                history.filter { $0.subscriptionID == "s1" }.allSatisfy {
                    $0.status == .failed && $0.lastError == "unsubscribed"
                })
            #expect(
                try await SQLNotifications(storage).dueDeliveries(.push, at: Self.t0).map(\.delivery.id) == [
                    "n1:s2", "test1:s2",
                ])
            // The webhook's deliveries are untouched by the device's leaving.
            #expect(try await SQLNotifications(storage).dueDeliveries(.webhook, at: Self.t0).count == 2)
        }
    }

    @Test("migration 14 moves a database's webhook and push deliveries into the outbox, keeping their state")
    func migratesBothChannels() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "papertrade-outbox-\(UUID())/db.sqlite"
        )
        .path
        var storage = try await Storage.connect(.sqlite(path: path))
        do {
            try await storage.migrate(through: 13)
            try await subscribe(storage)
            try await storage.journal(Journal(notifications: [notification("n1")]))
            try await storage.transaction { db in
                try await db.raw(
                    "UPDATE webhook_deliveries SET status = 'delivered', attempts = 1, last_status = 204 WHERE id = 'n1'"
                ).run()
            }
        } catch {
            await storage.shutdown()
            throw error
        }
        await storage.shutdown()

        storage = try await Storage.open(.sqlite(path: path))
        do {
            let hooks = try await SQLNotifications(storage).deliveries(.webhook, user: "u1")
            #expect(hooks.map(\.id) == ["n1"])
            #expect(hooks.first?.status == .delivered && hooks.first?.lastStatus == 204 && hooks.first?.attempts == 1)
            let pushes = try await SQLNotifications(storage).deliveries(.push, user: "u1")
            #expect(Set(pushes.map(\.id)) == ["n1:s1", "n1:s2"])
            #expect(pushes.allSatisfy { $0.status == .pending && $0.subscriptionID != nil })
            // The new trigger queues the next notification on both channels.
            try await storage.journal(Journal(notifications: [notification("n2", at: Self.t0.adding(seconds: 1))]))
            #expect(
                try await SQLNotifications(storage).dueDeliveries(.webhook, at: Self.t0.adding(seconds: 1)).map(
                    \.delivery.id) == ["n2"])
            #expect(try await SQLNotifications(storage).dueDeliveries(.push, at: Self.t0.adding(seconds: 1)).count == 4)
        } catch {
            await storage.shutdown()
            throw error
        }
        await storage.shutdown()
    }
}
