/// Queued rules, indexed by instrument: a price update evaluates only the rules on that instrument (no work at
/// all for rules on other symbols), each in a few integer comparisons. A rule that fires leaves the book in the
/// same step, so it fires exactly once; the caller journals that removal together with the order it places.
public struct RuleBook: Sendable {
    struct Slot: Sendable {
        var rule: QueueRule
        var instrument: Int
        /// For moving-average crosses: which side of the average the last price was on (−1, 0 unknown, +1).
        var side: Int8
    }

    private var slots: [Slot?] = []
    private var free: [Int] = []
    private var byInstrument: [[Int]] = []
    private var location: [QueueRuleID: Int] = [:]
    /// Recent closes per instrument, for moving averages (as many as the longest average needs).
    private var closes: [[Price]] = []
    private var closesNeeded: [Int] = []
    /// Rules evaluated so far (for tests and benchmarks: proof that other symbols cost nothing).
    public private(set) var evaluations = 0
    private var scratch: [Int] = []

    public init() {}

    public var count: Int { location.count }

    public mutating func add(_ rule: QueueRule, instrument: InstrumentID) {
        let i = Int(instrument.index)
        if i >= byInstrument.count {
            byInstrument += Array(repeating: [], count: i - byInstrument.count + 1)
            closes += Array(repeating: [], count: i - closes.count + 1)
            closesNeeded += Array(repeating: 0, count: i - closesNeeded.count + 1)
        }
        remove(rule.id)
        let slot = Slot(rule: rule, instrument: i, side: 0)
        let index: Int
        if let reused = free.popLast() {
            slots[reused] = slot
            index = reused
        } else {
            slots.append(slot)
            index = slots.count - 1
        }
        byInstrument[i].append(index)
        location[rule.id] = index
        closesNeeded[i] = max(closesNeeded[i], rule.condition.barsNeeded)
    }

    @discardableResult
    public mutating func remove(_ id: QueueRuleID) -> QueueRule? {
        guard let index = location.removeValue(forKey: id), let slot = slots[index] else { return nil }
        slots[index] = nil
        free.append(index)
        byInstrument[slot.instrument].removeAll { $0 == index }
        return slot.rule
    }

    /// Whether any rule waits on the instrument (a price update of any other instrument costs only this check).
    @inline(__always)
    public func hasRules(_ instrument: InstrumentID) -> Bool {
        let i = Int(instrument.index)
        return i < byInstrument.count && !byInstrument[i].isEmpty
    }

    /// Instruments with at least one rule.
    public var instruments: [InstrumentID] {
        byInstrument.indices.filter { !byInstrument[$0].isEmpty }.map { InstrumentID(Int32($0)) }
    }

    public func rule(_ id: QueueRuleID) -> QueueRule? { location[id].flatMap { slots[$0]?.rule } }

    public func rules(of account: AccountID) -> [QueueRule] {
        slots.compactMap { $0?.rule }.filter { $0.accountID == account }.sorted {
            ($0.createdAt, $0.id) < ($1.createdAt, $1.id)
        }
    }

    /// Feeds a finished bar's close (moving averages use the last N).
    public mutating func recordClose(_ instrument: InstrumentID, close: Price) {
        let i = Int(instrument.index)
        guard i < closes.count, closesNeeded[i] > 0 else { return }
        closes[i].append(close)
        if closes[i].count > closesNeeded[i] { closes[i].removeFirst(closes[i].count - closesNeeded[i]) }
    }

    /// Evaluates the instrument's rules at a price (or only the rule `only`, when given); appends the rules that
    /// fire to `fired` and removes them.
    public mutating func evaluate(
        _ instrument: InstrumentID, price: Price, previousClose: Price?, band: PriceBand?,
        only: QueueRuleID? = nil, into fired: inout [QueueRule]
    ) {
        let i = Int(instrument.index)
        guard i < byInstrument.count, !byInstrument[i].isEmpty else { return }
        scratch.removeAll(keepingCapacity: true)
        for index in byInstrument[i] {
            guard var slot = slots[index], only == nil || slot.rule.id == only else { continue }
            evaluations += 1
            let fires: Bool
            switch slot.rule.condition {
            case .priceAtLeast(let level): fires = price >= level
            case .priceAtMost(let level): fires = price <= level
            case .changePercentAtLeast(let pct):
                fires = previousClose.map { Self.change(price, $0) >= Self.scaled($0, pct) } ?? false
            case .changePercentAtMost(let pct):
                fires = previousClose.map { Self.change(price, $0) <= Self.scaled($0, pct) } ?? false
            case .withinOfLimitUp(let amount): fires = band.map { price >= $0.limitUp - amount } ?? false
            case .withinOfLimitDown(let amount): fires = band.map { price <= $0.limitDown + amount } ?? false
            case .withinPercentOfLimitUp(let pct):
                fires = band.map { price.raw * 100 >= $0.limitUp.raw * 100 - Self.scaled($0.limitUp, pct) } ?? false
            case .withinPercentOfLimitDown(let pct):
                fires = band.map { price.raw * 100 <= $0.limitDown.raw * 100 + Self.scaled($0.limitDown, pct) } ?? false
            case .touchesLimitUp: fires = band.map { price >= $0.limitUp } ?? false
            case .crossesAboveMovingAverage(let n), .crossesBelowMovingAverage(let n):
                guard let average = movingAverage(i, bars: n) else {
                    fires = false
                    break
                }
                let side: Int8 = price > average ? 1 : (price < average ? -1 : 0)
                if case .crossesAboveMovingAverage = slot.rule.condition {
                    fires = slot.side == -1 && side == 1
                } else {
                    fires = slot.side == 1 && side == -1
                }
                if side != 0 {
                    slot.side = side
                    slots[index] = slot
                }
            }
            if fires { scratch.append(index) }
        }
        for index in scratch {
            if let slot = slots[index] {
                fired.append(slot.rule)
                remove(slot.rule.id)
            }
        }
    }

    /// Removes rules whose lifetime ended before `date`; returns them.
    public mutating func expire(on date: CivilDate) -> [QueueRule] {
        let ended = slots.compactMap { $0?.rule }.filter { !$0.lifetime.isAlive(on: date) }
        for rule in ended { remove(rule.id) }
        return ended
    }

    /// (price − previous close) × 100, in raw units: compared with previous close × pct, no division needed.
    @inline(__always) static func change(_ price: Price, _ previous: Price) -> Int128 {
        (price.raw - previous.raw) * 100
    }

    /// value × pct in the same raw units as `change` (value.raw × pct.raw / 10^9).
    @inline(__always) static func scaled(_ value: Price, _ pct: FixedDecimal) -> Int128 {
        value.raw * pct.raw / FixedDecimal.one.raw
    }

    func movingAverage(_ i: Int, bars: Int) -> Price? {
        let series = closes[i]
        guard bars > 0, series.count >= bars else { return nil }
        let sum = series.suffix(bars).reduce(FixedDecimal.zero, +)
        return sum.divided(by: FixedDecimal(bars), rule: .halfEven)
    }
}
