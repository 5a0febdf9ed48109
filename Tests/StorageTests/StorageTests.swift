import BrokerageModel
import Foundation
import Storage
import Testing
import TradingCore

/// The same suite on SQLite (always) and PostgreSQL (when scripts/test.sh started one and exported
/// PAPERTRADE_TEST_POSTGRES_URL).
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres
    var testDescription: String { rawValue }

    static var available: [Backend] {
        ProcessInfo.processInfo.environment["PAPERTRADE_TEST_POSTGRES_URL"] == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    /// A fresh, empty database of this kind.
    func open() async throws -> Storage {
        switch self {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "papertrade-storage-\(UUID())/db.sqlite"
            ).path
            return try await Storage.open(.sqlite(path: path))
        case .postgres:
            let admin = ProcessInfo.processInfo.environment["PAPERTRADE_TEST_POSTGRES_URL"] ?? ""
            let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try await Storage.createPostgresDatabase(name, adminURL: admin)
            let url = admin.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
            return try await Storage.open(.postgres(url: url))
        }
    }
}

func withStorage(_ backend: Backend, _ body: (Storage) async throws -> Void) async throws {
    let storage = try await backend.open()
    do { try await body(storage) } catch {
        await storage.shutdown()
        throw error
    }
    await storage.shutdown()
}

@Suite("Storage on SQLite and PostgreSQL")
struct StorageTests {
    static let t0 = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)

    func account(_ storage: Storage, user: String = "u1") async throws -> (AccountRecord, TradingEngine) {
        var engine = TradingEngine()
        engine.register(.usEquity("AAPL", name: "Apple"))
        let id = AccountID(high: 7, low: UInt64.random(in: 1...UInt64.max))
        try engine.openAccount(id, market: .us, startingCash: 10_000)
        let record = AccountRecord(
            id: id, userID: UserID(user), name: "Paper", market: .us, accountNumber: "PA\(id.low)",
            createdAt: Self.t0, snapshot: engine.snapshot(of: id)!)
        try await SQLAccounts(storage).createAccount(record)
        return (record, engine)
    }

    @Test("users are unique by name; sessions expire", arguments: Backend.available)
    func users(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: Self.t0))
            await #expect(throws: StorageError.duplicate("user alice")) {
                try await SQLUsers(storage).createUser(
                    UserRecord(id: "u2", username: "alice", passwordHash: "h", createdAt: Self.t0))
            }
            #expect(try await SQLUsers(storage).user(username: "alice")?.id == "u1")
            #expect(try await SQLUsers(storage).userCount() == 1)
            try await SQLUsers(storage).createSession(
                tokenHash: "t", userID: "u1", createdAt: Self.t0, expiresAt: Self.t0.adding(seconds: 60))
            #expect(try await SQLUsers(storage).sessionUser(tokenHash: "t", at: Self.t0) == "u1")
            #expect(try await SQLUsers(storage).sessionUser(tokenHash: "t", at: Self.t0.adding(seconds: 61)) == nil)
            try await SQLUsers(storage).deleteSession(tokenHash: "t")
            #expect(try await SQLUsers(storage).sessionUser(tokenHash: "t", at: Self.t0) == nil)
        }
    }

    @Test("a journal writes orders, activities and the account snapshot together", arguments: Backend.available)
    func journal(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: Self.t0))
            var (record, engine) = try await account(storage)
            engine.apply(.quote(InstrumentID(0), at: Self.t0, bid: 99, bidSize: 100, ask: 100, askSize: 100))
            let filled = try engine.submit(
                OrderRequest(symbol: "AAPL", side: .buy, qty: 10), account: record.id, at: Self.t0)
            let resting = try engine.submit(
                OrderRequest(
                    symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 1,
                    limitPrice: 50, clientOrderID: "c-1"), account: record.id, at: Self.t0.adding(seconds: 1))
            var journal = Journal(randomState: engine.randomState)
            for event in engine.outbox {
                switch event {
                case .order(let u):
                    journal.orders.removeAll { $0.id == u.order.id }
                    journal.orders.append(u.order)
                case .ledger(let e): journal.entries.append(e)
                }
            }
            journal.accounts = [engine.account(record.id)!]
            try await storage.journal(journal)

            let stored = try await SQLAccounts(storage).accounts(userID: "u1")
            #expect(stored.first?.snapshot.account.cash == 9_000)
            var q = OrderQuery()
            q.status = .all
            #expect(try await SQLAccounts(storage).orders(account: record.id, q).count == 2)
            q.status = .open
            #expect(try await SQLAccounts(storage).orders(account: record.id, q).map(\.id) == [resting.id])
            #expect(try await SQLAccounts(storage).order(clientOrderID: "c-1", account: record.id)?.id == resting.id)
            let activities = try await SQLAccounts(storage).activities(account: record.id, ascending: true)
            #expect(activities.map(\.sequence) == [1])
            #expect(try await SQLAccounts(storage).randomState(shard: ShardID(0)) == engine.randomState)
            // Restoring brings back the open order (with its client order id); a closed one's id is found in the table.
            let restored = try await SQLAccounts(storage).restorable(stored[0])
            #expect(restored.openOrders.map(\.id) == [resting.id])
            #expect(restored.openOrders.map(\.clientOrderID) == ["c-1"])
            #expect(
                try await SQLAccounts(storage).order(clientOrderID: filled.clientOrderID, account: record.id)?.id
                    == filled.id)
            record = stored[0]
            _ = record
        }
    }

    @Test("a journal that fails midway leaves nothing behind", arguments: Backend.available)
    func atomicity(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: Self.t0))
            let (record, engine) = try await account(storage)
            let entry = LedgerEntry(
                sequence: 1, accountID: record.id, time: Self.t0, kind: .deposit(method: .bank, note: nil),
                cashChange: 5)
            // The same sequence twice violates the primary key: the whole journal must roll back.
            var account = engine.account(record.id)!
            account.cash = 10_005
            await #expect(throws: (any Error).self) {
                try await storage.journal(Journal(entries: [entry, entry], accounts: [account]))
            }
            #expect(try await SQLAccounts(storage).activities(account: record.id).isEmpty)
            #expect(try await SQLAccounts(storage).accounts(userID: "u1").first?.snapshot.account.cash == 10_000)
        }
    }

    @Test(
        "a small journal (one statement on SQLite) and one too large for a statement both land whole",
        arguments: Backend.available)
    func journalSizes(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: Self.t0))
            var (record, engine) = try await account(storage)
            engine.apply(.quote(InstrumentID(0), at: Self.t0, bid: 99, bidSize: 100, ask: 100, askSize: 100))
            func drain() -> Journal {
                var journal = Journal(randomState: engine.randomState)
                for case .order(let u) in engine.outbox { journal.orders.append(u.order) }
                engine.outbox.removeAll()
                journal.accounts = [engine.account(record.id)!]
                return journal
            }
            _ = try engine.submit(
                OrderRequest(symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 1, limitPrice: 1),
                account: record.id, at: Self.t0)
            var small = drain()
            small.notifications = [
                NotificationRecord(
                    id: "n1", userID: "u1", accountID: record.id, kind: "fill",
                    title: "Bought AAPL", body: "It's \"done\"", createdAt: Self.t0)
            ]
            try await storage.journal(small)
            #expect(
                try await SQLNotifications(storage).notifications(user: "u1").items.map(\.body) == ["It's \"done\""])
            #expect(try await SQLNotifications(storage).notifications(user: "u1").items.first?.accountID == record.id)

            for i in 1...7_001 {
                _ = try engine.submit(
                    OrderRequest(symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 1, limitPrice: 1),
                    account: record.id, at: Self.t0.adding(seconds: Int64(i)))
            }
            try await storage.journal(drain())
            let stored = try await SQLAccounts(storage).accounts(userID: "u1")
            #expect(try await SQLAccounts(storage).restorable(stored[0]).openOrders.count == 7_002)
            #expect(stored.first?.snapshot.account.reservedCash == engine.account(record.id)?.reservedCash)
            record = stored[0]
        }
    }

    @Test("API keys, watchlists (unique names per account) and configurations", arguments: Backend.available)
    func keysAndWatchlists(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: Self.t0))
            let (record, _) = try await account(storage)
            try await SQLUsers(storage).createAPIKey(
                APIKeyRecord(keyID: "PK1", secretHash: "abc", accountID: record.id), at: Self.t0)
            #expect(try await SQLUsers(storage).apiKey("PK1")?.accountID == record.id)
            #expect(try await SQLUsers(storage).apiKey("PK2") == nil)
            let w = WatchlistRecord(
                id: "w1", accountID: record.id, name: "tech", symbols: ["AAPL"], createdAt: Self.t0, updatedAt: Self.t0)
            try await SQLWatchlists(storage).saveWatchlist(w)
            await #expect(throws: StorageError.duplicate("watchlist tech")) {
                try await SQLWatchlists(storage).saveWatchlist(
                    WatchlistRecord(
                        id: "w2", accountID: record.id, name: "tech", symbols: [],
                        createdAt: Self.t0, updatedAt: Self.t0))
            }
            #expect(try await SQLWatchlists(storage).watchlists(account: record.id).map(\.symbols) == [["AAPL"]])
            #expect(try await SQLWatchlists(storage).deleteWatchlist(id: "w1", account: record.id))
            try await SQLAccounts(storage).saveAccountConfiguration(record.id, body: #"{"no_shorting":true}"#)
            #expect(try await SQLAccounts(storage).accountConfiguration(record.id) == #"{"no_shorting":true}"#)
        }
    }

    @Test("migrations run once: reopening an existing database keeps its data", arguments: [Backend.sqlite])
    func reopen(_ backend: Backend) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "papertrade-reopen-\(UUID())/db.sqlite"
        ).path
        let first = try await Storage.open(.sqlite(path: path))
        try await SQLUsers(first).createUser(
            UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: Self.t0))
        await first.shutdown()
        let second = try await Storage.open(.sqlite(path: path))
        #expect(try await SQLUsers(second).userCount() == 1)
        await second.shutdown()
    }
}

@Suite("SQLite checkpoints")
struct CheckpointTests {
    @Test("under sustained writes the WAL is started over once it passes its limit, and nothing written is lost")
    func walStaysBounded() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-wal-\(UUID())/db.sqlite")
            .path
        var policy = CheckpointPolicy()
        policy.atLeastEvery = .milliseconds(100)
        policy.walSizeLimit = 1 << 20
        policy.preallocateWAL = true // restarts over a file written out to the limit
        let storage = try await Storage.open(.sqlite(path: path), checkpoints: policy)
        try await SQLUsers(storage).createUser(
            UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: StorageTests.t0))
        var engine = TradingEngine()
        engine.register(.usEquity("AAPL", name: "Apple"))
        let id = AccountID(high: 7, low: 8)
        try engine.openAccount(id, market: .us, startingCash: 10_000_000)
        let record = AccountRecord(
            id: id, userID: "u1", name: "Paper", market: .us, accountNumber: "PA8",
            createdAt: StorageTests.t0, snapshot: engine.snapshot(of: id)!)
        try await SQLAccounts(storage).createAccount(record)
        // Back-to-back journals (never idle, so only the size limit can restart the WAL): at least 12,000 orders
        // (~15 MB of WAL), over at least 1.5 s so the checkpointer gets its rounds on a fast machine too.
        var largest = 0
        var written = 0
        let minimum = ContinuousClock.now + .milliseconds(1_500)
        while written < 12_000 || ContinuousClock.now < minimum {
            for _ in 0..<50 {
                _ = try engine.submit(
                    OrderRequest(symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 1, limitPrice: 1),
                    account: record.id, at: StorageTests.t0.adding(seconds: Int64(written)))
                written += 1
            }
            var journal = Journal(randomState: engine.randomState)
            for case .order(let u) in engine.outbox { journal.orders.append(u.order) }
            engine.outbox.removeAll()
            journal.accounts = [engine.account(record.id)!]
            try await storage.journal(journal)
            let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            largest = max(largest, size)
        }
        #expect(largest < 4 * policy.walSizeLimit, "the WAL peaked at \(largest) bytes")
        let stored = try await SQLAccounts(storage).accounts(userID: "u1")
        #expect(try await SQLAccounts(storage).restorable(stored[0]).openOrders.count == written)
        await storage.shutdown()
        // What went through the WAL reached the database file: several times the WAL's limit, so the WAL was
        // checkpointed and started over rather than left to grow.
        let database = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(database > 4 * policy.walSizeLimit, "the database file holds \(database) bytes of \(written) orders")
    }
}

extension CheckpointTests {
    @Test(
        "a preallocated WAL is written out to its limit on open; commits after it survive a crash, and the zeroed tail is never read"
    )
    func preallocatedWAL() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-prealloc-\(UUID())")
        let path = directory.appendingPathComponent("db.sqlite").path
        var policy = CheckpointPolicy()
        policy.walSizeLimit = 4 << 20
        policy.preallocateWAL = true
        let storage = try await Storage.open(.sqlite(path: path), checkpoints: policy)
        #expect((try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) == 4 << 20)
        try await SQLUsers(storage).createUser(
            UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: StorageTests.t0))
        var engine = TradingEngine()
        engine.register(.usEquity("AAPL", name: "Apple"))
        let id = AccountID(high: 7, low: 9)
        try engine.openAccount(id, market: .us, startingCash: 1_000_000)
        try await SQLAccounts(storage).createAccount(
            AccountRecord(
                id: id, userID: "u1", name: "Paper", market: .us, accountNumber: "PA9",
                createdAt: StorageTests.t0, snapshot: engine.snapshot(of: id)!))
        for n in 0..<20 {
            _ = try engine.submit(
                OrderRequest(symbol: "AAPL", side: .buy, type: .limit, timeInForce: .gtc, qty: 1, limitPrice: 1),
                account: id, at: StorageTests.t0.adding(seconds: Int64(n)))
            var journal = Journal(randomState: engine.randomState)
            for case .order(let u) in engine.outbox { journal.orders.append(u.order) }
            engine.outbox.removeAll()
            journal.accounts = [engine.account(id)!]
            try await storage.journal(journal)
        }
        // A crash: the database and its WAL as they are on disk now (no checkpoint, no clean close, no shared memory).
        let crashed = directory.appendingPathComponent("crashed.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: crashed + "-wal")
        await storage.shutdown()
        let recovered = try await Storage.open(.sqlite(path: crashed))
        let accounts = try await SQLAccounts(recovered).accounts(userID: "u1")
        #expect(try await SQLAccounts(recovered).restorable(accounts[0]).openOrders.count == 20)
        #expect(
            try await SQLAccounts(recovered).restorable(accounts[0]).account.reservedCash
                == engine.account(id)!.reservedCash)
        await recovered.shutdown()
    }
}

@Suite("Reads beside writes")
struct ConcurrentReadTests {
    @Test(
        "a read answers while a write transaction is still open, and sees what was committed before it",
        arguments: Backend.available)
    func readsDoNotWaitForWrites(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: StorageTests.t0))
            let (reader, signal) = AsyncStream.makeStream(of: Int.self)
            let outcome = try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask {
                    // Holds the writer until the reader reports back (or 10 s pass, which fails the test).
                    try await storage.transaction { db in
                        try await db.raw(
                            "INSERT INTO users (id, username, password_hash, created_at) VALUES ('u2', 'bob', 'h', 0)"
                        ).run()
                        let deadline = Task {
                            try await Task.sleep(for: .seconds(10))
                            signal.finish()
                        }
                        for await count in reader {
                            deadline.cancel()
                            return "read \(count) users while the write was open"
                        }
                        return "the read waited for the write"
                    }
                }
                group.addTask {
                    let count = try await SQLUsers(storage).userCount()
                    signal.yield(count)
                    return ""
                }
                var results: [String] = []
                for try await r in group where !r.isEmpty { results.append(r) }
                return results.first ?? ""
            }
            #expect(outcome == "read 1 users while the write was open")
            #expect(try await SQLUsers(storage).userCount() == 2)
        }
    }
}

@Suite("Webhook deliveries on SQLite and PostgreSQL")
struct WebhookStorageTests {
    static let t0 = StorageTests.t0

    func notification(_ id: String, user: String, at time: Timestamp) -> NotificationRecord {
        NotificationRecord(
            id: id, userID: UserID(user), accountID: nil, kind: "order_placed_automatically",
            title: "Order placed automatically",
            body: "Your queued order was placed.", createdAt: time, readAt: nil)
    }

    @Test(
        "a notification gets its delivery in the same journal only when its user has an enabled webhook",
        arguments: Backend.available)
    func deliveriesFollowNotifications(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            for (id, name) in [("u1", "alice"), ("u2", "bob")] {
                try await SQLUsers(storage).createUser(
                    UserRecord(id: UserID(id), username: name, passwordHash: "h", createdAt: Self.t0))
            }
            try await SQLNotifications(storage).saveWebhook(
                WebhookRecord(
                    userID: "u1", url: "http://127.0.0.1:9/hook", secret: "whsec_x",
                    createdAt: Self.t0, updatedAt: Self.t0))
            try await storage.journal(
                Journal(notifications: [
                    notification("n1", user: "u1", at: Self.t0),
                    notification("n2", user: "u2", at: Self.t0),
                ]))
            let due = try await SQLNotifications(storage).dueDeliveries(.webhook, at: Self.t0)
            #expect(due.map(\.delivery.id) == ["n1"])
            guard case .webhook(let url, _)? = due.first?.destination else {
                Issue.record("the due delivery goes to the webhook")
                return
            }
            #expect(url == "http://127.0.0.1:9/hook")
            #expect(due.first?.delivery.notification?.kind == "order_placed_automatically")
            #expect(try await SQLNotifications(storage).deliveries(.webhook, user: "u2").isEmpty)

            // A journal that fails takes its notifications' deliveries with it.
            let broken = LedgerEntry(
                sequence: 1, accountID: AccountID(high: 1, low: 1), time: Self.t0,
                kind: .deposit(method: .bank, note: nil), cashChange: 5)
            await #expect(throws: (any Error).self) {
                try await storage.journal(
                    Journal(entries: [broken, broken], notifications: [notification("n3", user: "u1", at: Self.t0)]))
            }
            #expect(try await SQLNotifications(storage).deliveries(.webhook, user: "u1").map(\.id) == ["n1"])

            // Retry bookkeeping: not due before its next attempt; delivered leaves the queue.
            try await SQLNotifications(storage).recordDeliveryAttempt(
                id: "n1", status: .pending, attempts: 1, nextAttempt: Self.t0.adding(seconds: 5),
                httpStatus: 500, error: "HTTP 500", at: Self.t0)
            #expect(try await SQLNotifications(storage).dueDeliveries(.webhook, at: Self.t0.adding(seconds: 4)).isEmpty)
            #expect(
                try await SQLNotifications(storage).dueDeliveries(.webhook, at: Self.t0.adding(seconds: 5)).map(
                    \.delivery.attempts) == [
                        1
                    ])
            try await SQLNotifications(storage).recordDeliveryAttempt(
                id: "n1", status: .delivered, attempts: 2, nextAttempt: Self.t0.adding(seconds: 5),
                httpStatus: 204, error: nil, at: Self.t0.adding(seconds: 5))
            #expect(
                try await SQLNotifications(storage).dueDeliveries(.webhook, at: Self.t0.adding(seconds: 60)).isEmpty)
            let history = try await SQLNotifications(storage).deliveries(.webhook, user: "u1")
            #expect(
                history.first?.status == .delivered && history.first?.lastStatus == 204 && history.first?.attempts == 2)

            // Disabled or removed: new notifications are not queued, pending ones are marked failed.
            try await storage.journal(
                Journal(notifications: [notification("n4", user: "u1", at: Self.t0.adding(seconds: 6))]))
            #expect(try await SQLNotifications(storage).deleteWebhook(user: "u1", at: Self.t0.adding(seconds: 7)))
            try await storage.journal(
                Journal(notifications: [notification("n5", user: "u1", at: Self.t0.adding(seconds: 8))]))
            let after = try await SQLNotifications(storage).deliveries(.webhook, user: "u1")
            #expect(after.map(\.id) == ["n4", "n1"])
            #expect(after.first?.status == .failed && after.first?.lastError == "webhook removed")
            #expect(try await SQLNotifications(storage).webhook(user: "u1") == nil)
        }
    }
}
