import BrokerageModel
import MarketData
import TradingCore

/// Queue purchase: rules that place an order automatically when their condition holds.
///
/// Evaluation: every market update (each market-pump tick for instruments with working orders or queued rules)
/// evaluates the rules of that instrument only, through the
/// `RuleBook` index. A rule fires only while its market trades continuously (not in auctions, the lunch break
/// or when closed), and places its order under the same rules as a manual one (lots, T+1, price limits,
/// buying power).
///
/// Exactly once: a rule that fires leaves the book in the same actor step, and its new state (fired, with the
/// order id) is journaled in the same transaction as the order; the order's client id is `queue-<rule id>`, so
/// the engine would refuse a second one even if the rule somehow came back.
///
/// Failure policy: if the order is rejected (not enough cash, a lot-size or price-limit rule…), the rule is
/// marked failed with the rejection message, leaves the queue and is not retried; the user is notified
/// ("automatic_order_failed") and may queue it again. When an account's last rule fires, fails or expires,
/// the user is told the queue is empty ("queue_empty").
extension Shard {
    /// An account's queued rules, oldest first (what a backtest of the account's rules replays).
    func queuedRules(of account: AccountID) -> [QueueRule] {
        queuedRules.values.filter { $0.rule.accountID == account }.map(\.rule).sorted {
            ($0.createdAt, $0.id) < ($1.createdAt, $1.id)
        }
    }

    /// Client order id of the order a rule places.
    static func clientOrderID(for rule: QueueRuleID) -> ClientOrderID { "queue-\(rule)" }

    /// Loads the queued rules of this shard's accounts into the rule book (at start and after a reload).
    func reloadRules() async throws {
        var book = RuleBook()
        var rules: [QueueRuleID: QueueRuleRecord] = [:]
        for record in try await storage.queuedRules() where self.records[record.rule.accountID] != nil {
            guard let entry = directory.entry(record.rule.symbol) else { continue }
            book.add(record.rule, instrument: engine.register(entry.instrument))
            rules[record.rule.id] = record
        }
        ruleBook = book
        queuedRules = rules
        seededCloses = []
    }

    /// The most queued rules one account keeps waiting (each is evaluated on every price update of its symbol).
    static let ruleLimit = 100

    /// Queues a rule for an account. The rule is evaluated at once against the current price (and may fire in
    /// this call: the returned record says so).
    func addRule(
        account: AccountID, symbol: String, condition: RuleCondition, action: RuleAction,
        lifetime: RuleLifetime?
    ) async throws(BrokerageError) -> QueueRuleRecord {
        guard records[account] != nil, let accountState = engine.account(account) else {
            throw .notFound("account not found")
        }
        guard let entry = directory.entry(symbol) else { throw .notFound("asset not found for \(symbol)") }
        let instrument = entry.instrument
        guard instrument.market == accountState.market else {
            throw .invalid(
                "\(entry.symbol) trades in the \(instrument.market == .cn ? "A-share" : "US") market; this account trades \(accountState.market == .cn ? "A-shares" : "US stocks")"
            )
        }
        try Self.validate(condition: condition, action: action, instrument: instrument)
        guard queuedRules.values.filter({ $0.rule.accountID == account }).count < Self.ruleLimit else {
            throw .invalid("an account may have at most \(Self.ruleLimit) queued rules")
        }
        let now = clock.now()
        let today = instrument.calendar.tradingDate(at: now)
        let life = lifetime ?? .untilTriggered
        if case .until(let last) = life, last < today {
            throw .invalid("the rule's last day \(last) has already passed")
        }
        if case .session(let day) = life, day != today {
            throw .invalid("a session rule is for today's session (\(today))")
        }
        var generator = SystemRandomNumberGenerator()
        var seeded = SeededGenerator(seed: generator.next())
        let rule = QueueRule(
            id: QueueRuleID(.timeOrdered(at: now, using: &seeded)), accountID: account, symbol: entry.symbol,
            condition: condition, action: action, lifetime: life, createdAt: now)
        let id = engine.register(instrument)
        let record = QueueRuleRecord(rule: rule, updatedAt: now)
        ruleBook.add(rule, instrument: id)
        queuedRules[rule.id] = record
        pendingRules.append(record)
        try await commit()
        if condition.barsNeeded > 0 { await seedCloses(id, symbol: entry.symbol) }
        if let (_, quote) = try? await currentQuote(entry.symbol, reuse: false), let quote {
            let now = clock.now()
            engine.observe(quote.engineQuote, instrument: id, at: now)
            evaluateRules(id, quote: quote, at: now, only: rule.id)
        }
        try await commit()
        return queuedRules[rule.id] ?? lastRuleOutcome[rule.id] ?? record
    }

    static func validate(condition: RuleCondition, action: RuleAction, instrument: Instrument) throws(BrokerageError) {
        switch (action.qty, action.notional) {
        case (let qty?, nil):
            guard qty.isPositive else { throw .invalid("Cannot \(action.side.rawValue) non-positive shares") }
        case (nil, let notional?):
            guard notional.isPositive else { throw .invalid("notional must be positive") }
        default: throw .invalid("give exactly one of qty or notional")
        }
        let hasLimits = instrument.priceLimit.fraction != nil
        if condition.needsBand || action.pricing == .limitUp, !hasLimits {
            throw .invalid(
                "\(instrument.symbol) has no daily price limits; limit-up conditions and pricing apply to A-shares")
        }
        if case .limit(let price) = action.pricing, !price.isPositive { throw .invalid("limit price must be positive") }
        switch condition {
        case .priceAtLeast(let p), .priceAtMost(let p):
            guard p.isPositive else { throw .invalid("the trigger price must be positive") }
        case .withinOfLimitUp(let x), .withinOfLimitDown(let x), .withinPercentOfLimitUp(let x),
            .withinPercentOfLimitDown(let x):
            guard !x.isNegative else { throw .invalid("the distance from the limit price cannot be negative") }
        case .crossesAboveMovingAverage(let n), .crossesBelowMovingAverage(let n):
            guard (2...250).contains(n) else { throw .invalid("a moving average needs 2 to 250 bars") }
        case .changePercentAtLeast, .changePercentAtMost, .touchesLimitUp: break
        }
    }

    /// Cancels a queued rule.
    func cancelRule(_ id: QueueRuleID, account: AccountID) async throws(BrokerageError) -> QueueRuleRecord {
        guard var record = queuedRules[id], record.rule.accountID == account else {
            throw .notFound("queued rule not found (it may have fired, failed or been canceled already)")
        }
        ruleBook.remove(id)
        queuedRules[id] = nil
        record.status = .canceled
        record.updatedAt = clock.now()
        pendingRules.append(record)
        try await commit()
        return record
    }

    /// An account's queue with current prices and trigger levels.
    func queue(account: AccountID) async -> [Brokerage.QueueEntry] {
        let records = queuedRules.values.filter { $0.rule.accountID == account }
            .sorted { ($0.rule.createdAt, $0.rule.id) < ($1.rule.createdAt, $1.rule.id) }
        var entries: [Brokerage.QueueEntry] = []
        for record in records { entries.append(await self.entry(record)) }
        return entries
    }

    /// Fired, failed, canceled and expired rules, newest first.
    func queueHistory(account: AccountID, limit: Int = 100) async throws(BrokerageError) -> [Brokerage.QueueEntry] {
        let records: [QueueRuleRecord]
        do { records = try await storage.queueRules(account: account, queued: false, limit: limit) } catch {
            throw .storage(error)
        }
        var entries: [Brokerage.QueueEntry] = []
        for record in records { entries.append(await self.entry(record)) }
        return entries
    }

    /// A rule with its current price and trigger level.
    func entry(_ record: QueueRuleRecord) async -> Brokerage.QueueEntry {
        let instrument = directory.entry(record.rule.symbol)?.instrument
        let quote = try? await feed.quote(record.rule.symbol)
        let id = engine.instrumentID(for: record.rule.symbol)
        let band =
            id.flatMap { engine.priceBand($0) }
            ?? quote.flatMap { q in
                q.limitUp.flatMap { up in q.limitDown.map { PriceBand(limitDown: $0, limitUp: up) } }
            }
        var fillPrice: Price?
        if let id = record.orderID {
            fillPrice = (try? await order(id, account: record.rule.accountID))?.filledAvgPrice
        }
        return Brokerage.QueueEntry(
            record: record, price: quote?.last,
            triggerLevel: record.rule.condition.triggerLevel(previousClose: quote?.previousClose, band: band),
            instrument: instrument, fillPrice: fillPrice)
    }

    // MARK: Evaluation (called with the engine up to date for the instrument)

    /// Evaluates the instrument's rules (or only the rule `only`: a rule just queued is checked at once, without
    /// firing anyone else's) at a fresh quote and places the orders of those that fire.
    func evaluateRules(_ id: InstrumentID, quote: MarketQuote, at now: Timestamp, only: QueueRuleID? = nil) {
        guard ruleBook.hasRules(id), quote.phase == .continuous else { return }
        var fired: [QueueRule] = []
        let evaluated = ruleBook.evaluations
        ruleBook.evaluate(
            id, price: quote.last, previousClose: quote.previousClose, band: engine.priceBand(id),
            only: only, into: &fired)
        metrics.rulesEvaluated.increment(by: ruleBook.evaluations - evaluated)
        metrics.rulesFired.increment(by: fired.count)
        for rule in fired { fire(rule, price: quote.last, at: now) }
    }

    /// Places a fired rule's order; records the outcome (journaled by the next commit, with the order).
    func fire(_ rule: QueueRule, price: Price, at now: Timestamp) {
        guard var record = queuedRules.removeValue(forKey: rule.id) else { return }
        record.updatedAt = now
        record.firedPrice = price
        let id = engine.instrumentID(for: rule.symbol)
        let result = rule.action.request(
            symbol: rule.symbol, band: id.flatMap { engine.priceBand($0) },
            clientOrderID: Self.clientOrderID(for: rule.id))
        let currency = engine.account(rule.accountID)?.currency.symbol ?? ""
        let text = text(for: rule.accountID)
        let what = describe(rule, text)
        let money = { (p: Price) in MoneyText.text(p, symbol: currency) }
        switch result.flatMap({ request in
            Result { () throws(OrderRejection) in try engine.submit(request, account: rule.accountID, at: now) }
        }) {
        case .success(let order):
            metrics.placed.increment()
            record.status = .fired
            record.orderID = order.id
            let pricing: String
            switch order.limitPrice {
            case let limit? where rule.action.pricing == .limitUp:
                pricing = text("queue.pricing.limit_up", ["price": money(limit)])
            case let limit?: pricing = text("queue.pricing.limit", ["price": money(limit)])
            case nil: pricing = text("queue.pricing.market")
            }
            notify(
                rule.accountID, kind: "order_placed_automatically", title: text("queue.placed.title"),
                body: text("queue.placed.body", ["what": what, "pricing": pricing, "price": money(price)]), at: now)
        case .failure(let rejection):
            record.status = .failed
            record.message = RejectionWording.message(rejection, in: text.language)
            let cash = rejection.reason == .insufficientBuyingPower
            notify(
                rule.accountID, kind: "automatic_order_failed",
                title: text(cash ? "queue.failed.title.cash" : "queue.failed.title"),
                body: text(
                    "queue.failed.body",
                    ["what": what, "reason": cash ? text("queue.failed.cash") : record.message ?? ""]),
                at: now)
        }
        pendingRules.append(record)
        notifyIfQueueEmpty(rule.accountID, at: now)
    }

    /// "buy 100 shares of 600519", "买入 600519 100 股".
    func describe(_ rule: QueueRule, _ text: Catalogue) -> String {
        let side = text(rule.action.side == .buy ? "side.buy" : "side.sell")
        if let qty = rule.action.qty {
            return text(
                "queue.what.qty",
                [
                    "side": side, "qty": qty.description, "symbol": rule.symbol,
                    "unit": text(qty == .one ? "shares.one" : "shares.other"),
                ])
        }
        let currency = engine.account(rule.accountID)?.currency.symbol ?? ""
        let amount = MoneyText.text(rule.action.notional ?? .zero, symbol: currency)
        return text("queue.what.notional", ["side": side, "amount": amount, "symbol": rule.symbol])
    }

    /// The catalogue in the language of the account's owner.
    func text(for account: AccountID) -> Catalogue {
        Catalogue(records[account].map { languages.language(of: $0.userID) } ?? .en)
    }

    func notifyIfQueueEmpty(_ account: AccountID, at now: Timestamp) {
        guard !queuedRules.values.contains(where: { $0.rule.accountID == account }) else { return }
        let text = text(for: account)
        notify(account, kind: "queue_empty", title: text("queue.empty.title"), body: text("queue.empty.body"), at: now)
    }

    func notify(_ account: AccountID, kind: String, title: String, body: String, at now: Timestamp) {
        guard let owner = records[account] else { return }
        pendingNotifications.append(
            NotificationRecord(
                id: Self.notificationID(), userID: owner.userID, accountID: account,
                kind: kind, title: title, body: body, createdAt: now))
    }

    /// Ends rules whose lifetime is over (checked each market-pump tick).
    func expireRules(at now: Timestamp) {
        for record in queuedRules.values {
            guard let entry = directory.entry(record.rule.symbol) else { continue }
            let today = entry.instrument.calendar.tradingDate(at: now)
            let alive: Bool
            switch record.rule.lifetime {
            case .untilTriggered: alive = true
            case .until(let last): alive = today <= last
            // A session rule ends when the trading date moves past its session.
            case .session(let day): alive = today <= day
            }
            guard !alive else { continue }
            var ended = record
            ruleBook.remove(record.rule.id)
            queuedRules[record.rule.id] = nil
            ended.status = .expired
            ended.updatedAt = now
            pendingRules.append(ended)
            notifyIfQueueEmpty(record.rule.accountID, at: now)
        }
    }

    /// Daily closes for moving-average rules, once per instrument per run.
    func seedCloses(_ id: InstrumentID, symbol: String) async {
        guard !seededCloses.contains(id) else { return }
        for close in await settledDailyCloses(symbol) { ruleBook.recordClose(id, close: close) }
        seededCloses.insert(id)
    }

    /// The closes of the daily bars before today's (about 400 days), oldest first; empty if the feed fails.
    func settledDailyCloses(_ symbol: String) async -> [Price] {
        let now = clock.now()
        guard
            let bars = try? await feed.bars(symbol, timeframe: .day, from: now.adding(seconds: -400 * 86_400), to: now)
        else { return [] }
        let calendar = directory.entry(symbol)?.instrument.calendar
        let today = calendar?.tradingDate(at: now)
        return bars.filter { calendar?.tradingDate(at: $0.time) != today }.map(\.close)
    }
}
