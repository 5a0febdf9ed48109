import BrokerageModel
import Foundation
import SQLKit
import Testing
import TradingCore

@testable import Storage

@Suite("The SQLite journal inbox")
struct JournalInboxUpgradeTests {
    @Test("a database whose inbox was written by hand (migrations 4 and 5) gets the generated one and journals whole")
    func upgradeFromHandWrittenInbox() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-inbox-\(UUID())/db.sqlite")
            .path
        var storage = try await Storage.open(.sqlite(path: path))
        // Put back the inbox as earlier versions made it (its random-state row had no key column), and forget
        // migration 7.
        let handWritten = Storage.migrations.filter { [4, 5].contains($0.version) }.flatMap(\.statements)
            .filter { $0.contains("journal_inbox") }
        #expect(handWritten.count == 8, "the view, six tables' triggers and the unknown-kind guard")
        try await storage.transaction { db in
            for sql in JournalTables.dropSQLiteInbox + handWritten { try await db.raw(SQLQueryString(sql)).run() }
            try await db.raw("DELETE FROM schema_migrations WHERE version = 7").run()
        }
        await storage.shutdown()

        storage = try await Storage.open(.sqlite(path: path))
        do { try await journalsWhole(storage) } catch {
            await storage.shutdown() // SQLite insists on being closed, also when the test fails
            throw error
        }
        await storage.shutdown()
    }

    func journalsWhole(_ storage: Storage) async throws {
        try await SQLUsers(storage).createUser(
            UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: StorageTests.t0))
        var (record, engine) = try await StorageTests().account(storage)
        let order = try engine.submit(
            OrderRequest(symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 1, limitPrice: 1),
            account: record.id, at: StorageTests.t0)
        try await storage.journal(
            Journal(orders: [order], accounts: [engine.account(record.id)!], randomState: engine.randomState))
        #expect(try await SQLAccounts(storage).order(order.id)?.status == .new)
        #expect(
            try await SQLAccounts(storage).randomState(shard: ShardID(0)) == engine.randomState,
            "the random state row lands in its column")
        record = try #require(try await SQLAccounts(storage).accounts(userID: "u1").first)
        #expect(record.snapshot.account.reservedCash == 1)
    }
}
