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
    func queuedRules(of account: AccountID) -> [QueueRule] { rules.records(of: account).map(\.rule) }

    /// Client order id of the order a rule places.
    static func clientOrderID(for rule: QueueRuleID) -> ClientOrderID {
        ClientOrderID(queueClientOrderIDPrefix + "\(rule)")
    }
    /// How the client order ids of rules' orders begin (no client may choose one: `ensureUnused`).
    static let queueClientOrderIDPrefix = "queue-"

    /// Loads the queued rules of this shard's accounts into the desk (at start and after a reload).
    func reloadRules() async throws {
        var loaded: [(record: QueueRuleRecord, instrument: InstrumentID)] = []
        for record in try await storage.rules.queuedRules() where self.records[record.rule.accountID] != nil {
            guard let entry = directory.entry(record.rule.symbol) else { continue }
            loaded.append((record, engine.register(entry.instrument)))
        }
        rules = RuleDesk(loaded)
    }

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
        try RuleDesk.validate(condition: condition, action: action, instrument: instrument)
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
        let record = try rules.queue(rule, instrument: id, at: now, into: &pending)
        try await commit()
        if condition.barsNeeded > 0 { await seedCloses(id, symbol: entry.symbol) }
        if let (_, quote) = try? await currentQuote(entry.symbol, reuse: false), let quote {
            let now = clock.now()
            engine.observe(quote.engineQuote, instrument: id, at: now)
            evaluateRules(id, quote: quote, at: now, only: rule.id)
        }
        try await commit()
        return rules.latest(rule.id) ?? record
    }

    /// Cancels a queued rule.
    func cancelRule(_ id: QueueRuleID, account: AccountID) async throws(BrokerageError) -> QueueRuleRecord {
        let record = try rules.cancel(id, account: account, at: clock.now(), into: &pending)
        try await commit()
        return record
    }

    /// An account's queue with current prices and trigger levels.
    func queue(account: AccountID) async -> [QueueEntry] {
        let records = rules.records(of: account)
        var entries: [QueueEntry] = []
        for record in records { entries.append(await self.entry(record)) }
        return entries
    }

    /// Fired, failed, canceled and expired rules, newest first.
    func queueHistory(account: AccountID, limit: Int = 100) async throws(BrokerageError) -> [QueueEntry] {
        let records: [QueueRuleRecord]
        do { records = try await storage.rules.queueRules(account: account, queued: false, limit: limit) } catch {
            throw .storage(error)
        }
        var entries: [QueueEntry] = []
        for record in records { entries.append(await self.entry(record)) }
        return entries
    }

    /// A rule with its current price and trigger level.
    func entry(_ record: QueueRuleRecord) async -> QueueEntry {
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
        return QueueEntry(
            record: record, price: quote?.last,
            triggerLevel: record.rule.condition.triggerLevel(previousClose: quote?.previousClose, band: band),
            instrument: instrument, fillPrice: fillPrice)
    }

    // MARK: Evaluation (called with the engine up to date for the instrument)

    /// Evaluates the instrument's rules (or only the rule `only`: a rule just queued is checked at once, without
    /// firing anyone else's) at a fresh quote and places the orders of those that fire.
    func evaluateRules(_ id: InstrumentID, quote: MarketQuote, at now: Timestamp, only: QueueRuleID? = nil) {
        guard rules.book.hasRules(id), quote.phase == .continuous else { return }
        let (fired, evaluated) = rules.evaluate(
            id, price: quote.last, previousClose: quote.previousClose, band: engine.priceBand(id), only: only)
        metrics.rulesEvaluated.increment(by: evaluated)
        metrics.rulesFired.increment(by: fired.count)
        for rule in fired { fire(rule, price: quote.last, at: now) }
    }

    /// Places a fired rule's order; records the outcome (journaled by the next commit, with the order).
    func fire(_ rule: QueueRule, price: Price, at now: Timestamp) {
        guard var record = rules.take(rule.id) else { return }
        record.updatedAt = now
        record.firedPrice = price
        let id = engine.instrumentID(for: rule.symbol)
        // A day order, as the apps' rules always were; a crypto pair has no day: good until canceled.
        let result = rule.action.request(
            symbol: rule.symbol, band: id.flatMap { engine.priceBand($0) },
            clientOrderID: Self.clientOrderID(for: rule.id)
        ).map { request in
            var request = request
            if directory.entry(rule.symbol)?.instrument.kind == .crypto { request.timeInForce = .gtc }
            return request
        }
        let currency = engine.account(rule.accountID)?.currency.symbol ?? ""
        switch result.flatMap({ request in
            Result { () throws(OrderRejection) in try engine.submit(request, account: rule.accountID, at: now) }
        }) {
        case .success(let order):
            metrics.placed.increment()
            record.status = .fired
            record.orderID = order.id
            notify(rule.accountID, kind: "order_placed_automatically", at: now) { text in
                QueueWording(text: text, currency: currency).placed(rule, order: order, price: price)
            }
        case .failure(let rejection):
            record.status = .failed
            // (The rule keeps the reason in its owner's language.)
            record.message =
                QueueWording(text: text(for: rule.accountID), currency: currency).failed(rule, rejection)
                .reason
            notify(rule.accountID, kind: "automatic_order_failed", at: now) { text in
                let (_, title, body) = QueueWording(text: text, currency: currency).failed(rule, rejection)
                return (title, body)
            }
        }
        rules.finish(record, into: &pending)
        notifyIfQueueEmpty(rule.accountID, at: now)
    }

    /// The catalogue in the language of the account's owner.
    func text(for account: AccountID) -> Catalogue {
        Catalogue(records[account].map { languages.language(of: $0.userID) } ?? .en)
    }

    func notifyIfQueueEmpty(_ account: AccountID, at now: Timestamp) {
        guard !rules.hasRules(of: account) else { return }
        notify(account, kind: "queue_empty", at: now) { text in (text("queue.empty.title"), text("queue.empty.body")) }
    }

    /// Tells what happened to an account to everyone it concerns — its owner, and each member of a class team that
    /// shares it (`recipients(of:)`) — each in their own language: `words` gives the title and body in a catalogue.
    func notify(
        _ account: AccountID, kind: String, at now: Timestamp, _ words: (Catalogue) -> (title: String, body: String)
    ) {
        for user in recipients(of: account) {
            let (title, body) = words(Catalogue(languages.language(of: user)))
            pending.notify(user, account: account, kind: kind, title: title, body: body, at: now)
        }
    }

    /// Whom an account's news is for: its owner, then the other members of the team sharing it (if it is a team's).
    func recipients(of account: AccountID) -> [UserID] {
        guard let owner = records[account]?.userID else { return [] }
        return [owner] + (teams[account] ?? []).filter { $0 != owner }
    }

    /// Ends rules whose lifetime is over (checked each market-pump tick).
    func expireRules(at now: Timestamp) {
        let expired = rules.expire(
            at: now, tradingDate: { directory.entry($0)?.instrument.calendar.tradingDate(at: now) }, into: &pending)
        for account in Set(expired.map(\.rule.accountID)).sorted() { notifyIfQueueEmpty(account, at: now) }
    }

    /// Daily closes for moving-average rules, once per instrument per run.
    func seedCloses(_ id: InstrumentID, symbol: String) async {
        guard rules.needsCloses(id) else { return }
        for close in await settledDailyCloses(symbol) { rules.recordClose(id, close: close) }
    }
}
