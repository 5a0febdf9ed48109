/// Queued rules, indexed by instrument (`PriceConditionBook`): a price update evaluates only the rules on that
/// instrument. A rule that fires leaves the book in the same step, so it fires exactly once; the caller journals
/// that removal together with the order it places.
public typealias RuleBook = PriceConditionBook<QueueRule>

extension QueueRule: PriceWatch {
    /// For moving-average crosses: which side of the average the last price was on.
    public struct Memory: WatchMemory {
        /// −1 below, +1 above, 0 not seen yet (a price exactly on the average leaves it as it was).
        var side: Int8 = 0
        public init() {}
    }

    /// The previous close (change conditions) and the day's price band (limit-up and limit-down conditions).
    public typealias Moment = (previousClose: Price?, band: PriceBand?)

    public var barsNeeded: Int { condition.barsNeeded }

    public static func evaluate(
        _ rule: QueueRule, memory: inout Memory, price: Price, moment: Moment, closes: RecentCloses
    ) -> (firing: QueueRule, done: Bool)? {
        let (previousClose, band) = moment
        let fires: Bool
        switch rule.condition {
        case .priceAtLeast(let level): fires = price >= level
        case .priceAtMost(let level): fires = price <= level
        case .changePercentAtLeast(let pct):
            fires = previousClose.map { change(price, $0) >= scaled($0, pct) } ?? false
        case .changePercentAtMost(let pct):
            fires = previousClose.map { change(price, $0) <= scaled($0, pct) } ?? false
        case .withinOfLimitUp(let amount): fires = band.map { price >= $0.limitUp - amount } ?? false
        case .withinOfLimitDown(let amount): fires = band.map { price <= $0.limitDown + amount } ?? false
        case .withinPercentOfLimitUp(let pct):
            fires = band.map { price.raw * 100 >= $0.limitUp.raw * 100 - scaled($0.limitUp, pct) } ?? false
        case .withinPercentOfLimitDown(let pct):
            fires = band.map { price.raw * 100 <= $0.limitDown.raw * 100 + scaled($0.limitDown, pct) } ?? false
        case .touchesLimitUp: fires = band.map { price >= $0.limitUp } ?? false
        case .crossesAboveMovingAverage(let n), .crossesBelowMovingAverage(let n):
            guard let average = closes.average(n) else { return nil }
            let side: Int8 = price > average ? 1 : (price < average ? -1 : 0)
            if case .crossesAboveMovingAverage = rule.condition {
                fires = memory.side == -1 && side == 1
            } else {
                fires = memory.side == 1 && side == -1
            }
            if side != 0 { memory.side = side }
        }
        return fires ? (rule, true) : nil
    }

    /// (price − previous close) × 100, in raw units: compared with previous close × pct, no division needed.
    @inline(__always) static func change(_ price: Price, _ previous: Price) -> Int128 {
        (price.raw - previous.raw) * 100
    }

    /// value × pct in the same raw units as `change` (value.raw × pct.raw / 10^9).
    @inline(__always) static func scaled(_ value: Price, _ pct: FixedDecimal) -> Int128 {
        value.raw * pct.raw / FixedDecimal.one.raw
    }
}

extension PriceConditionBook where Watch == QueueRule {
    /// Whether any rule waits on the instrument.
    @inline(__always)
    public func hasRules(_ instrument: InstrumentID) -> Bool { isWatched(instrument) }

    public func rule(_ id: QueueRuleID) -> QueueRule? { watch(id) }

    /// An account's rules, oldest first.
    public func rules(of account: AccountID) -> [QueueRule] {
        watches.filter { $0.accountID == account }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Evaluates the instrument's rules at a price (or only the rule `only`, when given); appends the rules that
    /// fire to `fired` and removes them.
    public mutating func evaluate(
        _ instrument: InstrumentID, price: Price, previousClose: Price?, band: PriceBand?,
        only: QueueRuleID? = nil, into fired: inout [QueueRule]
    ) {
        evaluate(instrument, price: price, moment: (previousClose, band), only: only, into: &fired)
    }

    /// Removes rules whose lifetime ended before `date`; returns them.
    public mutating func expire(on date: CivilDate) -> [QueueRule] {
        removeAll { !$0.lifetime.isAlive(on: date) }
    }
}
