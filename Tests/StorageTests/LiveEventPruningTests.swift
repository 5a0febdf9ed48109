import BrokerageModel
import Foundation
import SQLKit
import Testing
import TradingCore

@testable import Storage

@Suite("A cluster's live events on PostgreSQL")
struct LiveEventPruningTests {
    static let t0 = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)

    @Test("pruning deletes every event older than the age, a batch at a time, and keeps the others in order")
    func pruning() async throws {
        guard Backend.available.contains(.postgres) else { return }
        try await withStorage(.postgres) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: Self.t0))
            let opened = try await StorageTests().account(storage)
            let id = opened.0.id
            var engine = opened.1
            try await storage.db.raw(
                "INSERT INTO shard_leases (shard, owner, epoch, expires_at, acquired_at) VALUES (0, 'a', 1, 0, 0)"
            ).run()
            storage.writeLiveEvents(as: "a")
            for i in 0..<25 {
                _ = try engine.submit(
                    OrderRequest(symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 1, limitPrice: 1),
                    account: id, at: Self.t0.adding(seconds: Int64(i)))
                var journal = Journal()
                for case .order(let update) in engine.outbox {
                    journal.orders.append(update.order)
                    journal.updates.append(update)
                }
                engine.outbox.removeAll()
                journal.accounts = [engine.account(id)!]
                try await storage.journal(journal)
            }
            func events() async throws -> [LiveEvent] {
                try await storage.liveEvents(after: [:], node: "b", payloads: true, limit: 1_000)
            }
            let written = try await events()
            #expect(written.count == 25 && written.map(\.id) == written.map(\.id).sorted())
            // The first 17 are an hour old.
            try await storage.db.raw(
                """
                UPDATE live_events SET created_at = created_at - 3600000000000
                WHERE id IN (SELECT id FROM live_events ORDER BY id LIMIT 17)
                """
            ).run()
            let tenMinutes: Int64 = 600 * 1_000_000_000
            try await storage.pruneLiveEvents(olderThan: tenMinutes, batch: 4)
            let kept = try await events()
            #expect(kept.map(\.id) == Array(written.map(\.id).suffix(8)))
            guard case .order(let update)? = kept.last?.payload else {
                Issue.record("the newest event lost its order update")
                return
            }
            #expect(update.order.submittedAt == Self.t0.adding(seconds: 24))
            try await storage.pruneLiveEvents(olderThan: tenMinutes, batch: 4)
            #expect(try await events().map(\.id) == kept.map(\.id), "nothing young enough is deleted")
            try await storage.db.raw("UPDATE live_events SET created_at = created_at - 3600000000000").run()
            try await storage.pruneLiveEvents(olderThan: tenMinutes, batch: 3)
            #expect(try await events().isEmpty, "every event old: all deleted")
        }
    }
}
