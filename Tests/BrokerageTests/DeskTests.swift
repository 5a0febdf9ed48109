import BrokerageModel
import MarketData
import Testing
import TradingCore

@testable import Brokerage

/// The shard's desks on their own, without an actor or a database: what each decides, and that every change it
/// decides reaches the step's `PendingCommit` exactly once.
@Suite("Shard desks")
struct DeskTests {
    let account = AccountID(high: 9, low: 9)
    let other = AccountID(high: 9, low: 10)
    let moutai = InstrumentID(0)
    /// 10:00 Shanghai on a trading day.
    let t = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .shanghai)
    let band = PriceBand(limitDown: dec("1586.70"), limitUp: dec("1939.30"))

    func rule(
        _ n: UInt64, _ condition: RuleCondition, of owner: AccountID? = nil, lifetime: RuleLifetime = .untilTriggered
    )
        -> QueueRule
    {
        QueueRule(
            id: QueueRuleID(high: 1, low: n), accountID: owner ?? account, symbol: "600519", condition: condition,
            action: RuleAction(side: .buy, qty: 100, pricing: .limitUp), lifetime: lifetime, createdAt: t)
    }

    func alert(_ n: UInt64, _ condition: AlertCondition, frequency: AlertFrequency = .once) -> PriceAlert {
        PriceAlert(
            id: AlertID(high: 2, low: n), symbol: "AAPL", condition: condition, frequency: frequency, timeframe: .day,
            expiresAt: t.adding(seconds: 3600), createdAt: t)
    }

    @Test("a rule that fires leaves the queue once: taken, finished with its order, and answered as fired")
    func ruleFires() throws {
        var desk = RuleDesk()
        var pending = PendingCommit()
        _ = try desk.queue(rule(1, .priceAtLeast(dec("1800"))), instrument: moutai, at: t, into: &pending)
        _ = try desk.queue(rule(2, .priceAtLeast(dec("1900"))), instrument: moutai, at: t, into: &pending)
        #expect(pending.rules.map(\.status) == [.queued, .queued])
        pending = PendingCommit()

        let (fired, evaluated) = desk.evaluate(moutai, price: dec("1850"), previousClose: nil, band: band, only: nil)
        #expect(fired.map(\.id.low) == [1])
        #expect(evaluated == 2)
        // Out of the book at once: the next price does not fire it again.
        #expect(desk.evaluate(moutai, price: dec("1850"), previousClose: nil, band: band, only: nil).fired.isEmpty)

        let taken = desk.take(fired[0].id)
        var record = try #require(taken)
        record.status = .fired
        desk.finish(record, into: &pending)
        let again = desk.take(fired[0].id)
        #expect(again == nil)
        #expect(pending.rules.map(\.status) == [.fired])
        #expect(desk.latest(fired[0].id)?.status == .fired)
        #expect(desk.records(of: account).map(\.rule.id.low) == [2])
        #expect(throws: BrokerageError.self) {
            try desk.cancel(fired[0].id, account: account, at: t, into: &pending)
        }
    }

    @Test("a rule is canceled only by its own account; the queue holds at most 100 rules an account")
    func ruleCancelAndLimit() throws {
        var desk = RuleDesk()
        var pending = PendingCommit()
        for n in 1...RuleDesk.limit {
            _ = try desk.queue(rule(UInt64(n), .priceAtLeast(dec("1800"))), instrument: moutai, at: t, into: &pending)
        }
        #expect(throws: BrokerageError.self) {
            try desk.queue(rule(999, .priceAtLeast(dec("1800"))), instrument: moutai, at: t, into: &pending)
        }
        // Another account's queue is its own.
        _ = try desk.queue(rule(1000, .priceAtLeast(dec("1800")), of: other), instrument: moutai, at: t, into: &pending)
        pending = PendingCommit()

        let first = QueueRuleID(high: 1, low: 1)
        #expect(throws: BrokerageError.self) { try desk.cancel(first, account: other, at: t, into: &pending) }
        #expect(pending.isEmpty)
        let canceled = try desk.cancel(first, account: account, at: t, into: &pending)
        #expect(canceled.status == .canceled)
        #expect(pending.rules == [canceled])
        #expect(desk.latest(first)?.status == .canceled)
        #expect(desk.records(of: account).count == RuleDesk.limit - 1)
        // Canceled means gone from the book too: a price past its level fires the others only.
        let fired = desk.evaluate(moutai, price: dec("1850"), previousClose: nil, band: band, only: nil).fired
        #expect(fired.count == RuleDesk.limit)
        #expect(!fired.contains { $0.id == first })
    }

    @Test("a session rule expires once its trading date is past; an open-ended one waits")
    func ruleExpiry() throws {
        var desk = RuleDesk()
        var pending = PendingCommit()
        let today = CivilDate(2026, 11, 20)
        _ = try desk.queue(
            rule(1, .priceAtLeast(dec("1800")), lifetime: .session(today)), instrument: moutai, at: t, into: &pending)
        _ = try desk.queue(rule(2, .priceAtLeast(dec("1800"))), instrument: moutai, at: t, into: &pending)
        pending = PendingCommit()
        #expect(desk.expire(at: t, tradingDate: { _ in today }, into: &pending).isEmpty)
        let expired = desk.expire(at: t, tradingDate: { _ in CivilDate(2026, 11, 23) }, into: &pending)
        #expect(expired.map(\.rule.id.low) == [1])
        #expect(pending.rules.map(\.status) == [.expired])
        // A symbol no longer listed: its rules wait rather than expire on a guess.
        pending = PendingCommit()
        #expect(desk.expire(at: t, tradingDate: { _ in nil }, into: &pending).isEmpty)
        #expect(desk.records(of: account).map(\.rule.id.low) == [2])
    }

    @Test("a once-only alert triggers once and stops; a repeating one stays active and counts its triggers")
    func alertTriggers() throws {
        var desk = AlertDesk()
        var pending = PendingCommit()
        let user = UserID("ada")
        let aapl = InstrumentID(3)
        let once = alert(1, .greaterThan(.value(dec("200"))))
        let everyBar = alert(2, .greaterThan(.value(dec("200"))), frequency: .oncePerBar)
        _ = try desk.add(once, user: user, instrument: aapl, at: t, into: &pending)
        _ = try desk.add(everyBar, user: user, instrument: aapl, at: t, into: &pending)
        pending = PendingCommit()

        let day = CivilDate(2026, 11, 20)
        let (triggered, _) = desk.evaluate(
            aapl, price: dec("201"), at: t, tradingDate: day, only: nil, into: &pending)
        #expect(triggered.map(\.trigger.alert.id.low).sorted() == [1, 2])
        #expect(pending.alerts.map(\.status).sorted { $0.rawValue < $1.rawValue } == [.active, .triggered])
        #expect(desk.latest(once.id)?.status == .triggered)
        #expect(desk.latest(everyBar.id)?.triggerCount == 1)
        #expect(desk.records(of: user).map(\.alert.id) == [everyBar.id])

        // The same bar again: neither triggers (the once-only one is gone, the repeating one waits for a new bar).
        pending = PendingCommit()
        let again = desk.evaluate(
            aapl, price: dec("202"), at: t.adding(seconds: 60), tradingDate: day, only: nil, into: &pending)
        #expect(again.triggered.isEmpty)
        #expect(pending.isEmpty)
    }

    @Test("an alert is canceled only by its user; expiry ends it; a user keeps at most 200")
    func alertCancelExpireLimit() throws {
        var desk = AlertDesk()
        var pending = PendingCommit()
        let ada = UserID("ada")
        let bo = UserID("bo")
        for n in 1...AlertDesk.limit {
            _ = try desk.add(
                alert(UInt64(n), .lessThan(.value(dec("100")))), user: ada, instrument: moutai, at: t, into: &pending)
        }
        #expect(throws: BrokerageError.self) {
            try desk.add(
                alert(999, .lessThan(.value(dec("100")))), user: ada, instrument: moutai, at: t, into: &pending)
        }
        pending = PendingCommit()
        let first = AlertID(high: 2, low: 1)
        #expect(throws: BrokerageError.self) { try desk.cancel(first, user: bo, at: t, into: &pending) }
        #expect(try desk.cancel(first, user: ada, at: t, into: &pending).status == .canceled)
        pending = PendingCommit()
        desk.expire(at: t.adding(seconds: 3600), into: &pending)
        #expect(pending.alerts.count == AlertDesk.limit - 1)
        #expect(pending.alerts.allSatisfy { $0.status == .expired })
        #expect(desk.records(of: ada).isEmpty)
    }

    @Test("a step's pending changes go into its journal whole, notifications after the engine's, and then it is empty")
    func pendingDrains() {
        var pending = PendingCommit()
        let record = QueueRuleRecord(rule: rule(1, .touchesLimitUp), updatedAt: t)
        pending.rules.append(record)
        pending.accounts.insert(account)
        pending.notify("ada", account: account, kind: "queue_empty", title: "Queue empty", body: "", at: t)
        var journal = Journal()
        journal.notifications = [
            NotificationRecord(
                id: "fill-1", userID: "ada", accountID: account, kind: "fill", title: "Bought", body: "", createdAt: t)
        ]
        let touched = pending.drain(into: &journal)
        #expect(touched == [account])
        #expect(journal.rules == [record])
        #expect(journal.notifications.map(\.kind) == ["fill", "queue_empty"])
        #expect(pending.isEmpty)
    }

    @Test("the engine is told an instrument's reference once a trading date, and each halt once")
    func sessionMarks() {
        var marks = SessionMarks()
        let day = CivilDate(2026, 11, 20)
        let references = [
            marks.needsReference(moutai, for: day), marks.needsReference(moutai, for: day),
            marks.needsReference(moutai, for: CivilDate(2026, 11, 23)),
        ]
        #expect(references == [true, false, true])
        let halt = TradingHalt(symbol: "600519", reason: .newsPending, start: t, end: t.adding(seconds: 1800))
        let news = [
            marks.isNews(halt, for: moutai), marks.isNews(halt, for: moutai), marks.isNews(nil, for: moutai),
            marks.isNews(nil, for: moutai),
        ]
        #expect(news == [true, false, true, false])
    }

    @Test("closed orders leave the engine only once their step and every step before it are durable")
    func commitsPruneInOrder() {
        var commits = ShardCommits(lease: .held(epoch: 4))
        #expect(commits.epoch == 4)
        let first = StagedStep()
        let second = StagedStep()
        let a = OrderID(high: 5, low: 1)
        let b = OrderID(high: 5, low: 2)
        commits.queued(first, closing: [a])
        commits.queued(second, closing: [b])
        var pruned: [[OrderID]] = []
        second.complete(.success(()))
        commits.pruneDurable {
            pruned.append($0)
            return ([], [])
        }
        #expect(pruned.isEmpty) // the first is not on disk yet
        first.complete(.success(()))
        let account = AccountID(high: 1, low: 1)
        commits.pruneDurable {
            pruned.append($0)
            return ([], [ClosedClientOrderIDs.Key(account: account, id: "mine-1")])
        }
        #expect(pruned == [[a, b]])
        #expect(commits.waiting.isEmpty)
        let lately = [
            commits.prunedLately("mine-1", account: account), commits.prunedLately("mine-2", account: account),
        ]
        #expect(lately == [true, false])
        commits.lease = .released
        #expect(commits.isReleased && commits.epoch == nil)
    }
}

extension DeskTests {
    @Test("pruned client order ids are kept for the window and no longer; a reload is counted")
    func closedClientOrderIDsExpire() {
        var ids = ClosedClientOrderIDs()
        let mine = AccountID(high: 1, low: 1)
        let theirs = AccountID(high: 1, low: 2)
        let t0 = ContinuousClock.now
        let w = ClosedClientOrderIDs.window
        ids.pruned([.init(account: mine, id: "a"), .init(account: mine, id: "b")], at: t0)
        ids.pruned([.init(account: mine, id: "a")], at: t0 + w * 0.6) // reused after a storage miss, pruned again
        let seen = [
            ids.contains("a", account: mine, at: t0 + w * 0.1),
            ids.contains("a", account: theirs, at: t0 + w * 0.1),
            ids.contains("b", account: mine, at: t0 + w * 0.9),
            ids.contains("b", account: mine, at: t0 + w),
            ids.contains("a", account: mine, at: t0 + w * 1.1), // its second pruning is still in the window
            ids.contains("a", account: mine, at: t0 + w * 1.7),
        ]
        #expect(seen == [true, false, true, false, true, false])
        #expect(ids.count == 0)
        // Thousands, then all expired: nothing is kept.
        for k in 0..<5_000 { ids.pruned([.init(account: mine, id: ClientOrderID("x\(k)"))], at: t0 + w * 2) }
        let last = ids.contains("x4999", account: mine, at: t0 + w * 2)
        #expect(ids.count == 5_000 && last)
        let first = ids.contains("x0", account: mine, at: t0 + w * 3)
        #expect(!first && ids.count == 0)
        #expect(ids.reloads == 0)
        ids.reloaded()
        #expect(ids.reloads == 1)
    }
}

private func dec(_ text: String) -> FixedDecimal { FixedDecimal(text)! }
