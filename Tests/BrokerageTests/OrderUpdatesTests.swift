import BrokerageModel
import Foundation
import Storage
import Testing
import TradingCore

@testable import Brokerage

@Suite("Order updates are published once durable, in the order they happened")
struct OrderUpdatesTests {
    @Test("40 concurrent placements and their cancels: every update's order is already in storage; new before canceled")
    func durableAndOrdered() async throws {
        try await BrokerageFixture.with { f in
            let brokerage = f.brokerage
            let storage = try await f.independentStorage()
            let updates = await brokerage.orderUpdates(account: f.account)
            let count = 40
            // The stream is read while the orders are placed: each update must find its order's state on disk already.
            let reader = Task {
                var seen: [(OrderID, OrderUpdate.Event, OrderStatus?)] = []
                for await update in updates {
                    let stored = try? await SQLAccounts(storage).order(update.order.id)
                    seen.append((update.order.id, update.event, stored?.status))
                    if seen.count == 2 * count { break }
                }
                return seen
            }
            let placed = try await withThrowingTaskGroup(of: Order.self) { group in
                for i in 0..<count {
                    group.addTask {
                        try await brokerage.submit(
                            OrderRequest(
                                symbol: "KO", side: .buy, type: .limit, timeInForce: .gtc, qty: 1,
                                limitPrice: FixedDecimal(1 + i % 3)), account: f.account)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for order in placed { group.addTask { _ = try await brokerage.cancel(order.id, account: f.account) } }
                try await group.waitForAll()
            }
            let seen = await reader.value
            #expect(seen.count == 2 * count)
            for order in placed {
                let events = seen.filter { $0.0 == order.id }
                #expect(events.map(\.1) == [.new, .canceled], "one new, then one canceled, for \(order.id)")
                #expect(events.first?.2 != nil, "the new order was in storage when its update was published")
                #expect(events.last?.2 == .canceled, "the cancel was in storage when its update was published")
            }
            await storage.shutdown()
        }
    }

    @Test("placements that race flushes (as at shutdown) are all answered: a step waited on twice wakes both waiters")
    func flushWhilePlacing() async throws {
        try await BrokerageFixture.with { f in
            let brokerage = f.brokerage
            let count = 60
            // Before steps took any number of waiters, a flush waiting on a placement's step replaced the
            // placement's own waiter, and that request was never answered.
            let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<count {
                    group.addTask {
                        _ = try await brokerage.submit(
                            OrderRequest(
                                symbol: "KO", side: .buy, type: .limit, timeInForce: .gtc, qty: 1,
                                limitPrice: FixedDecimal(1 + i % 3)), account: f.account)
                        return 1
                    }
                    if i % 4 == 0 {
                        group.addTask {
                            await brokerage.flush()
                            return 0
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(answered == count)
            var open = OrderQuery()
            open.limit = 500
            #expect(try await brokerage.orders(account: f.account, open).count == count)
        }
    }

    @Test("a staged step wakes every task waiting on it with the write's outcome, success or failure")
    func stepWakesAllWaiters() async throws {
        struct WriteFailed: Error {}
        for outcome in [Result<Void, any Error>.success(()), .failure(WriteFailed())] {
            let step = StagedStep()
            let waiters = (0..<3).map { _ in Task { () -> Bool in (try? await step.durable()) != nil } }
            while step.waiting < 3 { await Task.yield() } // all three wait before the outcome comes
            step.complete(outcome)
            let expected = (try? outcome.get()) != nil
            for waiter in waiters { #expect(await waiter.value == expected) }
            #expect(step.isDurable == expected)
            // A waiter that comes after the outcome gets it at once.
            #expect(((try? await step.durable()) != nil) == expected)
        }
    }
}
