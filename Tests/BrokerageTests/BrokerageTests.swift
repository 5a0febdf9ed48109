import BrokerageModel
import Foundation
import MarketData
import SQLKit
import Storage
import Testing
import TradingCore

@testable import Brokerage

@Suite("The brokerage, driven directly")
struct BrokerageTests {
    static func limitBuy(_ price: FixedDecimal, qty: Quantity = 1) -> OrderRequest {
        OrderRequest(symbol: "KO", side: .buy, type: .limit, timeInForce: .gtc, qty: qty, limitPrice: price)
    }

    @Test("a placed limit order is durable at once, reserves its cost, and shows among the open orders")
    func placement() async throws {
        try await BrokerageFixture.with { f in
            let order = try await f.brokerage.submit(Self.limitBuy(1, qty: 10), account: f.account)
            #expect(order.status == .new)
            #expect(await f.state()?.reservedCash == 10, "10 shares at a 1.00 limit hold 10.00 of cash")
            let storage = try await f.independentStorage()
            let stored = try await SQLAccounts(storage).order(order.id)
            await storage.shutdown()
            #expect(stored?.status == .new, "another connection already reads the order")
            #expect(try await f.brokerage.orders(account: f.account, OrderQuery()).map(\.id) == [order.id])
        }
    }

    @Test("canceling frees the reserved cash; canceling again says why it cannot")
    func cancel() async throws {
        try await BrokerageFixture.with { f in
            let order = try await f.brokerage.submit(Self.limitBuy(1, qty: 10), account: f.account)
            let canceled = try await f.brokerage.cancel(order.id, account: f.account)
            #expect(canceled.status == .canceled)
            #expect(await f.state()?.reservedCash == 0)
            await #expect(
                throws: BrokerageError.rejected(
                    OrderRejection(.notCancelable, "order is canceled and can no longer be canceled"))
            ) {
                _ = try await f.brokerage.cancel(order.id, account: f.account)
            }
            #expect(try await f.brokerage.orders(account: f.account, OrderQuery()).isEmpty, "no open orders are left")
        }
    }

    @Test(
        "a client_order_id is the account's for good: refused once its order has closed and left memory, after a restart too; an engine-made one the same; one that reads as a queued rule's is refused"
    )
    func clientOrderIDsAreUniqueForGood() async throws {
        let f = try await BrokerageFixture.make()
        var mine = Self.limitBuy(1)
        mine.clientOrderID = "retry-1"
        let first = try await f.brokerage.submit(mine, account: f.account)
        let made = try await f.brokerage.submit(Self.limitBuy(1), account: f.account)
        _ = try await f.brokerage.cancel(first.id, account: f.account)
        _ = try await f.brokerage.cancel(made.id, account: f.account)
        // The next step prunes the two closed orders (their steps are durable): the engine forgets them and their ids.
        let later = try await f.brokerage.submit(Self.limitBuy(1), account: f.account)
        let engine = await (try await f.brokerage.shard(f.account)).engine
        #expect(engine.order(first.id) == nil && engine.order(clientOrderID: "retry-1", account: f.account) == nil)
        #expect(engine.order(clientOrderID: later.clientOrderID, account: f.account)?.id == later.id)
        let duplicate = BrokerageError.rejected(
            OrderRejection(.duplicateClientOrderID, "client_order_id must be unique"))
        await #expect(throws: duplicate) { _ = try await f.brokerage.submit(mine, account: f.account) }
        var copied = Self.limitBuy(1)
        copied.clientOrderID = made.clientOrderID
        await #expect(throws: duplicate) { _ = try await f.brokerage.submit(copied, account: f.account) }
        // A replacement may not take it either, and a preview says the same.
        var change = ReplaceRequest()
        change.clientOrderID = "retry-1"
        await #expect(throws: duplicate) {
            _ = try await f.brokerage.replace(later.id, account: f.account, with: change)
        }
        #expect(try await f.brokerage.check(mine, account: f.account)?.reason == .duplicateClientOrderID)
        // A queued rule's form is the house's.
        var spoof = Self.limitBuy(1)
        spoof.clientOrderID = "queue-\(UUID().uuidString.lowercased())"
        await #expect {
            _ = try await f.brokerage.submit(spoof, account: f.account)
        } throws: { error in
            guard case .rejected(let r) = error as? BrokerageError else { return false }
            return r.reason == .invalidInput && r.message.contains("queue-")
        }

        await f.brokerage.shutdown()
        let restarted = try await f.reopen()
        await #expect(throws: duplicate) { _ = try await restarted.submit(mine, account: f.account) }
        var open = Self.limitBuy(1)
        open.clientOrderID = later.clientOrderID
        await #expect(throws: duplicate) { _ = try await restarted.submit(open, account: f.account) }
        var fresh = Self.limitBuy(1)
        fresh.clientOrderID = "retry-2"
        #expect(try await restarted.submit(fresh, account: f.account).clientOrderID == "retry-2")
        await restarted.shutdown()
    }

    @Test(
        "a queue rule fires once on a price update, with its order and a notification; a restart does not fire it again"
    )
    func queueRuleFires() async throws {
        let f = try await BrokerageFixture.make()
        let rule = try await f.brokerage.addRule(
            account: f.account, symbol: "KO", condition: .priceAtLeast(FixedDecimal("0.01")!),
            action: RuleAction(side: .buy, qty: 2), lifetime: nil)
        try await f.brokerage.pumpMarket()
        var all = OrderQuery()
        all.status = .all
        let orders = try await f.brokerage.orders(account: f.account, all)
        #expect(orders.map(\.clientOrderID) == ["queue-\(rule.rule.id)"])
        #expect(orders.first?.qty == 2)
        #expect(try await f.brokerage.queueHistory(account: f.account).map(\.record.status) == [.fired])
        let kinds = try await f.brokerage.notifications.recent(user: f.userID).items.map(\.kind)
        #expect(kinds.contains("order_placed_automatically"))
        #expect(kinds.contains("queue_empty"))

        await f.brokerage.shutdown()
        let restarted = try await f.reopen()
        f.clock.advance(by: Duration64.minute)
        try await restarted.pumpMarket()
        #expect(
            try await restarted.orders(account: f.account, all).count == 1,
            "the rule did not fire again after the restart")
        await restarted.shutdown()
    }

    @Test("a commit that fails leaves nothing behind: the engine is reloaded from storage and the next order works")
    func reloadAfterFailedCommit() async throws {
        try await BrokerageFixture.with { f in
            let first = try await f.brokerage.submit(Self.limitBuy(1, qty: 10), account: f.account)
            // A real fault in the real database: every write of an order aborts its transaction.
            let saboteur = try await f.independentStorage()
            try await saboteur.transaction { db in
                try await db.raw(
                    "CREATE TRIGGER injected_fault BEFORE INSERT ON orders BEGIN SELECT RAISE(ABORT, 'injected fault'); END"
                ).run()
            }
            await #expect {
                _ = try await f.brokerage.submit(Self.limitBuy(2, qty: 10), account: f.account)
            } throws: { error in
                guard case .unavailable(let message) = error as? BrokerageError else { return false }
                return message.contains("nothing was changed")
            }
            #expect(
                await f.state()?.reservedCash == 10, "only the first order's cost is reserved: the failed one is gone")
            #expect(try await f.brokerage.orders(account: f.account, OrderQuery()).map(\.id) == [first.id])

            try await saboteur.transaction { db in try await db.raw("DROP TRIGGER injected_fault").run() }
            await saboteur.shutdown()
            let next = try await f.brokerage.submit(Self.limitBuy(3, qty: 10), account: f.account)
            #expect(await f.state()?.reservedCash == 40)
            #expect(
                Set(try await f.brokerage.orders(account: f.account, OrderQuery()).map(\.id)) == [first.id, next.id])
        }
    }
}

@Suite("Market updates reach books and rules through the pump only")
struct MarketUpdatePathTests {
    @Test(
        "a placement's fresh quote fills that order only: another account's resting order and queued rule wait for the pump"
    )
    func placementDoesNotMatchOthers() async throws {
        try await BrokerageFixture.with { f in
            let other = try await f.brokerage.openAccount(userID: f.userID, market: .us, cash: 100_000, name: "other")
            let opening = try await f.brokerage.feed.quote("KO")
            let bid = try #require(opening.bids.best?.price)
            let trigger = min(bid, opening.last) - FixedDecimal("0.01")!
            // The other account bids at the best bid (below the ask: it rests) and queues a rule for the last
            // price falling a cent below both.
            let resting = try await f.brokerage.submit(BrokerageTests.limitBuy(bid), account: other.id)
            #expect(resting.status == .new)
            let rule = try await f.brokerage.addRule(
                account: other.id, symbol: "KO", condition: .priceAtMost(trigger),
                action: RuleAction(side: .buy, qty: 1), lifetime: nil)
            #expect(rule.status == .queued)

            // Let the simulated market fall through both.
            var later = opening
            func fell(_ q: MarketQuote) -> Bool { q.asks.best.map { $0.price <= bid } == true && q.last <= trigger }
            for _ in 0..<720 where !fell(later) {
                f.clock.advance(by: 10 * Duration64.second)
                later = try await f.brokerage.feed.quote("KO")
            }
            try #require(fell(later), "KO fell below \(trigger) within two hours of simulated trading")

            // Someone else's placement fetches that quote: their order sees it, the other account's do not.
            _ = try await f.brokerage.submit(BrokerageTests.limitBuy(1), account: f.account)
            #expect(try await f.brokerage.order(resting.id, account: other.id).status == .new)
            #expect(try await f.brokerage.queue(account: other.id).map(\.record.rule.id) == [rule.rule.id])

            try await f.brokerage.pumpMarket()
            #expect(try await f.brokerage.order(resting.id, account: other.id).status == .filled)
            #expect(try await f.brokerage.queueHistory(account: other.id).map(\.record.status) == [.fired])
        }
    }
}

@Suite("Backup and restore")
struct BackupTests {
    @Test(
        "a backup taken while orders are being placed restores to a database that opens with every acknowledged order")
    func backupWhileWriting() async throws {
        let f = try await BrokerageFixture.make()
        let before = try await f.brokerage.submit(BrokerageTests.limitBuy(1), account: f.account)
        let backupPath = f.path + ".backup"
        // Placements keep committing while the copy is taken: the copy holds a consistent prefix of them.
        async let more: [Order] = (0..<20).asyncMap { _ in
            try await f.brokerage.submit(BrokerageTests.limitBuy(2), account: f.account)
        }
        let summary = try await DatabaseBackup.backup(.sqlite(path: f.path), to: backupPath)
        let placed = try await more
        await f.brokerage.shutdown()
        #expect(summary.accounts == 1)
        #expect((1...21).contains(summary.orders))
        await #expect(throws: StorageError.self, "a backup never overwrites a file") {
            _ = try await DatabaseBackup.backup(.sqlite(path: f.path), to: backupPath)
        }

        let target = f.path + ".restored/papertrade.sqlite"
        let restored = try await DatabaseBackup.restore(backupPath, to: .sqlite(path: target), replacing: false)
        #expect(restored.orders == summary.orders)
        let symbols = try SymbolDirectory.bundled()
        let market = SimulatedMarket(
            directory: symbols, configuration: SimulatorConfiguration(seed: 1, sessions: f.clock.sessions))
        let reopened = try await Brokerage.open(
            .sqlite(path: target), feed: SimulatedFeed(market: market, clock: f.clock),
            directory: symbols, clock: f.clock)
        var query = OrderQuery()
        query.limit = 500
        let open = try await reopened.orders(account: f.account, query).map(\.id)
        #expect(open.contains(before.id))
        #expect(Set(open).isSubset(of: Set([before.id] + placed.map(\.id))))
        #expect(
            try await reopened.account(f.account).reservedCash == FixedDecimal(1 + 2 * (open.count - 1)),
            "the restored engine reserves exactly the restored orders' cost")
        await reopened.shutdown()

        await #expect(throws: StorageError.self, "an existing database is replaced only on request") {
            _ = try await DatabaseBackup.restore(backupPath, to: .sqlite(path: target), replacing: false)
        }
        try "not a database".write(toFile: f.path + ".junk", atomically: true, encoding: .utf8)
        await #expect(throws: StorageError.self, "a file that is not a papertrade backup is refused") {
            _ = try await DatabaseBackup.restore(f.path + ".junk", to: .sqlite(path: target), replacing: true)
        }
        #expect(
            try await DatabaseBackup.restore(backupPath, to: .sqlite(path: target), replacing: true).orders
                == summary.orders)
    }
}

extension Range where Bound == Int {
    /// Runs `body` for each element concurrently and returns the results in order.
    func asyncMap<T: Sendable>(_ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            for i in self { group.addTask { (i, try await body(i)) } }
            var results: [(Int, T)] = []
            for try await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
