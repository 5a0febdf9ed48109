import BrokerageModel
import TradingCore

/// The queue of a shard's accounts (queue purchase): the rules still waiting, indexed by instrument in a `RuleBook`,
/// and the last state of the rules that left the queue in this run. It decides what happens to rules — queued,
/// canceled, fired, expired — and writes each change to the step's `PendingCommit`; placing a fired rule's order
/// and the notifications are the shard's (`Shard+Queue`).
struct RuleDesk {
    private(set) var book = RuleBook()
    /// Rules still queued, by id.
    private(set) var queued: [QueueRuleID: QueueRuleRecord] = [:]
    /// The last state of rules that left the queue in this run (what queuing a rule answers if it fired at once).
    private var ended: [QueueRuleID: QueueRuleRecord] = [:]
    /// Instruments whose daily closes have been fed to the book (moving averages), once per run.
    private var seeded: Set<InstrumentID> = []

    /// The most queued rules one account keeps waiting (each is evaluated on every price update of its symbol).
    static let limit = 100

    init() {}

    /// Refuses a rule that could never place a valid order: a quantity and notional both or neither, limit-up
    /// terms on a market without price limits, a non-positive price, a moving average outside 2–250 bars.
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

    /// The queue as loaded from storage: each queued rule with its instrument in this shard's engine.
    init(_ loaded: [(record: QueueRuleRecord, instrument: InstrumentID)]) {
        for (record, instrument) in loaded {
            book.add(record.rule, instrument: instrument)
            queued[record.rule.id] = record
        }
    }

    /// An account's queued rules, oldest first.
    func records(of account: AccountID) -> [QueueRuleRecord] {
        queued.values.filter { $0.rule.accountID == account }
            .sorted { ($0.rule.createdAt, $0.rule.id) < ($1.rule.createdAt, $1.rule.id) }
    }

    func hasRules(of account: AccountID) -> Bool { queued.values.contains { $0.rule.accountID == account } }

    /// The rule as it stands now: queued, or how it left the queue in this run.
    func latest(_ id: QueueRuleID) -> QueueRuleRecord? { queued[id] ?? ended[id] }

    /// Queues a new rule; refused past the account's limit.
    mutating func queue(
        _ rule: QueueRule, instrument: InstrumentID, at now: Timestamp, into pending: inout PendingCommit
    ) throws(BrokerageError) -> QueueRuleRecord {
        guard queued.values.count(where: { $0.rule.accountID == rule.accountID }) < Self.limit else {
            throw .invalid("an account may have at most \(Self.limit) queued rules")
        }
        let record = QueueRuleRecord(rule: rule, updatedAt: now)
        book.add(rule, instrument: instrument)
        queued[rule.id] = record
        pending.rules.append(record)
        return record
    }

    /// Cancels an account's queued rule.
    mutating func cancel(
        _ id: QueueRuleID, account: AccountID, at now: Timestamp, into pending: inout PendingCommit
    ) throws(BrokerageError) -> QueueRuleRecord {
        guard let record = queued[id], record.rule.accountID == account else {
            throw .notFound("queued rule not found (it may have fired, failed or been canceled already)")
        }
        return end(id, as: .canceled, at: now, into: &pending) ?? record
    }

    /// Evaluates the instrument's rules (or only `only`) at a price; returns those that fired, out of the book
    /// (each is then `take`n from the queue and `finish`ed with its outcome).
    mutating func evaluate(
        _ instrument: InstrumentID, price: Price, previousClose: Price?, band: PriceBand?, only: QueueRuleID?
    ) -> (fired: [QueueRule], evaluated: Int) {
        var fired: [QueueRule] = []
        let before = book.evaluations
        book.evaluate(instrument, price: price, previousClose: previousClose, band: band, only: only, into: &fired)
        return (fired, book.evaluations - before)
    }

    /// Takes a fired rule out of the queue.
    mutating func take(_ id: QueueRuleID) -> QueueRuleRecord? {
        book.remove(id)
        return queued.removeValue(forKey: id)
    }

    /// Records what became of a rule taken from the queue (fired with its order, or failed with the reason).
    mutating func finish(_ record: QueueRuleRecord, into pending: inout PendingCommit) {
        ended[record.rule.id] = record
        pending.rules.append(record)
    }

    /// Ends the rules whose lifetime is over at `now` (`tradingDate` gives a symbol's trading date then; nil for
    /// a symbol no longer listed, whose rules wait); returns them.
    mutating func expire(
        at now: Timestamp, tradingDate: (String) -> CivilDate?, into pending: inout PendingCommit
    ) -> [QueueRuleRecord] {
        var expired: [QueueRuleRecord] = []
        for record in queued.values {
            guard let today = tradingDate(record.rule.symbol) else { continue }
            let alive: Bool
            switch record.rule.lifetime {
            case .untilTriggered: alive = true
            case .until(let last): alive = today <= last
            // A session rule ends when the trading date moves past its session.
            case .session(let day): alive = today <= day
            }
            guard !alive, let ended = end(record.rule.id, as: .expired, at: now, into: &pending) else { continue }
            expired.append(ended)
        }
        return expired
    }

    /// Whether the instrument's daily closes still need feeding to the book (and marks them fed).
    mutating func needsCloses(_ instrument: InstrumentID) -> Bool { seeded.insert(instrument).inserted }

    mutating func recordClose(_ instrument: InstrumentID, close: Price) {
        book.recordClose(instrument, close: close)
    }

    private mutating func end(
        _ id: QueueRuleID, as status: QueueRuleRecord.Status, at now: Timestamp, into pending: inout PendingCommit
    ) -> QueueRuleRecord? {
        guard var record = queued.removeValue(forKey: id) else { return nil }
        book.remove(id)
        record.status = status
        record.updatedAt = now
        ended[id] = record
        pending.rules.append(record)
        return record
    }
}
