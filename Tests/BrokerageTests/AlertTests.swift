import BrokerageModel
import Foundation
import MarketData
import Storage
import Testing
import TradingCore

@testable import Brokerage

/// Price alerts through the brokerage on a manual clock and the simulated market: the pump evaluates them, the
/// trigger is journaled with its notification, and a restart neither loses nor repeats one.
@Suite("Price alerts in the brokerage")
struct AlertTests {
    /// The simulated market's last price minute by minute from the fixture's morning (read from the market at
    /// those times; the clock stays where it is).
    static func path(_ f: BrokerageFixture, _ symbol: String, minutes: Int) throws -> [Price] {
        let market = try #require((f.brokerage.feed as? SimulatedFeed)?.market)
        return try (0...minutes).map { k in
            try #require(market.quote(symbol, at: BrokerageFixture.morning.adding(seconds: Int64(60 * k)))).last
        }
    }

    @Test("a crossing-up alert triggers on the exact minute the price first reaches its level, once, across a restart")
    func crossingUpExactMinute() async throws {
        let f = try await BrokerageFixture.make()
        let prices = try Self.path(f, "AAPL", minutes: 120)
        // The first new high after minute 5: every earlier price is below it, the one before it too.
        guard let k = (6..<prices.count).first(where: { i in prices[i] > prices[0..<i].max()! }) else {
            Issue.record("the simulated morning made no new high")
            return
        }
        let level = prices[k]
        let record = try await f.brokerage.addAlert(
            user: f.userID, symbol: "AAPL", condition: .crossingUp(.value(level)), frequency: .once,
            timeframe: .day, expiresAt: nil, message: "breakout")
        #expect(record.status == .active)
        for minute in 1...k {
            f.clock.advance(by: Duration64.minute)
            try await f.brokerage.pumpMarket()
            let triggers = try await f.brokerage.alertTriggers(user: f.userID)
            #expect(triggers.count == (minute == k ? 1 : 0), "minute \(minute) of \(k)")
        }
        let trigger = try #require(try await f.brokerage.alertTriggers(user: f.userID).first)
        #expect(trigger.price == level)
        #expect(trigger.time == BrokerageFixture.morning.adding(seconds: Int64(60 * k)))
        let notification = try #require(
            try await f.brokerage.notifications.recent(user: f.userID).items.first { $0.kind == "alert" })
        #expect(notification.id == trigger.notificationID)
        #expect(notification.body.contains("AAPL crossed up through $\(level.formatted(minimumPlaces: 2))"))
        #expect(notification.body.hasSuffix("breakout"))
        #expect(try await f.brokerage.alerts(user: f.userID).isEmpty)
        var all = OrderQuery()
        all.status = .all
        #expect(try await f.brokerage.orders(account: f.account, all).isEmpty, "an alert orders nothing")
        #expect(try await f.brokerage.alertHistory(user: f.userID).map(\.status) == [.triggered])

        // Read back by a second connection: durable, not just in memory.
        let other = try await f.independentStorage()
        #expect(try await SQLRules(other).alertTriggers(user: f.userID, alert: record.alert.id).count == 1)
        await other.shutdown()

        await f.brokerage.shutdown()
        let restarted = try await f.reopen()
        for _ in 0..<5 {
            f.clock.advance(by: Duration64.minute)
            try await restarted.pumpMarket()
        }
        #expect(try await restarted.alertTriggers(user: f.userID).count == 1, "a restart does not trigger it again")
        await restarted.shutdown()
    }

    @Test("a repeating alert triggers once a minute while it holds and not twice in one minute across a restart")
    func repeatingAcrossRestart() async throws {
        let f = try await BrokerageFixture.make()
        _ = try await f.brokerage.addAlert(
            user: f.userID, symbol: "KO", condition: .greaterThan(.value(FixedDecimal("0.01")!)),
            frequency: .oncePerMinute, timeframe: .day, expiresAt: nil, message: nil)
        #expect(try await f.brokerage.alertTriggers(user: f.userID).count == 1, "it holds at once: triggered on add")
        for _ in 0..<3 {
            f.clock.advance(by: 20 * Duration64.second)
            try await f.brokerage.pumpMarket()
        }
        #expect(try await f.brokerage.alertTriggers(user: f.userID).count == 2, "at 0 s and 60 s")
        await f.brokerage.shutdown()

        let restarted = try await f.reopen()
        f.clock.advance(by: 30 * Duration64.second) // 90 s: 30 s after the last trigger
        try await restarted.pumpMarket()
        #expect(try await restarted.alertTriggers(user: f.userID).count == 2)
        f.clock.advance(by: 30 * Duration64.second) // 120 s
        try await restarted.pumpMarket()
        #expect(try await restarted.alertTriggers(user: f.userID).count == 3)
        let active = try await restarted.alerts(user: f.userID)
        #expect(active.count == 1 && active.first?.triggerCount == 3)
        await restarted.shutdown()
    }

    @Test("an alert expires at its time without triggering; a canceled one stops; other users cannot touch it")
    func expiryAndCancel() async throws {
        let f = try await BrokerageFixture.make()
        let expiring = try await f.brokerage.addAlert(
            user: f.userID, symbol: "AAPL", condition: .greaterThan(.value(FixedDecimal(1_000_000))), frequency: .once,
            timeframe: .day, expiresAt: BrokerageFixture.morning.adding(seconds: 150), message: nil)
        let canceled = try await f.brokerage.addAlert(
            user: f.userID, symbol: "AAPL", condition: .lessThan(.value(FixedDecimal("0.01")!)), frequency: .once,
            timeframe: .day, expiresAt: nil, message: nil)
        await #expect(throws: BrokerageError.self) {
            _ = try await f.brokerage.cancelAlert(canceled.alert.id, user: UserID("someone-else"))
        }
        #expect(try await f.brokerage.cancelAlert(canceled.alert.id, user: f.userID).status == .canceled)
        for _ in 0..<2 {
            f.clock.advance(by: Duration64.minute)
            try await f.brokerage.pumpMarket()
        }
        #expect(try await f.brokerage.alerts(user: f.userID).map(\.alert.id) == [expiring.alert.id])
        f.clock.advance(by: Duration64.minute)
        try await f.brokerage.pumpMarket()
        #expect(try await f.brokerage.alerts(user: f.userID).isEmpty)
        let history = try await f.brokerage.alertHistory(user: f.userID)
        #expect(Set(history.map(\.status)) == [.expired, .canceled])
        #expect(try await f.brokerage.alertTriggers(user: f.userID).isEmpty)
        await f.brokerage.shutdown()
    }
}
