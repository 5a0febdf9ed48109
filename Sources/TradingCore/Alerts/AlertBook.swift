/// Price alerts, indexed by instrument like the queue's `RuleBook`: a price update evaluates only the alerts on
/// that instrument. An alert that may trigger only once leaves the book in the step it triggers, so it triggers
/// exactly once; a repeating one keeps the time of its last trigger, which the caller journals with the
/// notification, so a restart does not trigger it again in the same bar or minute.
///
/// What a condition remembers between updates lives here, in memory: the previous price (crossings, entering
/// and exiting a channel) and the window of recent prices (moving conditions). After a restart the first update
/// only sets them again, so nothing triggers on a crossing the alert did not see.
public struct AlertBook: Sendable {
    /// A price alert that triggered: at which price, and against which level (the value or moving average).
    public struct Trigger: Sendable, Hashable {
        public var alert: PriceAlert
        public var price: Price
        public var level: Price?
        /// Whether the alert is done (it triggers only once).
        public var isFinal: Bool
    }

    struct Slot: Sendable {
        var alert: PriceAlert
        var instrument: Int
        var previous: Price?
        /// Recent prices as a monotonic queue (`window[head...]`): ascending for moving up (its front is the window's
        /// low), descending for moving down (the high). Amortized O(1) per update, and it stays short.
        var window: [(time: Int64, price: Price)] = []
        var head = 0
        var lastTriggered: Timestamp?
        var lastTriggeredBar: Int64?
    }

    private var slots: [Slot?] = []
    private var free: [Int] = []
    private var byInstrument: [[Int]] = []
    private var location: [AlertID: Int] = [:]
    private var closes: [[Price]] = []
    private var closesNeeded: [Int] = []
    private var scratch: [Int] = []
    /// Alerts evaluated so far (tests and benchmarks).
    public private(set) var evaluations = 0

    public init() {}

    public var count: Int { location.count }

    /// Adds (or replaces) an alert. `lastTriggered` is the stored time and trading date of its last trigger.
    public mutating func add(
        _ alert: PriceAlert, instrument: InstrumentID, lastTriggered: (time: Timestamp, tradingDate: CivilDate)? = nil
    ) {
        let i = Int(instrument.index)
        if i >= byInstrument.count {
            let missing = i - byInstrument.count + 1
            byInstrument += Array(repeating: [], count: missing)
            closes += Array(repeating: [], count: missing)
            closesNeeded += Array(repeating: 0, count: missing)
        }
        remove(alert.id)
        var slot = Slot(alert: alert, instrument: i)
        if let lastTriggered {
            slot.lastTriggered = lastTriggered.time
            slot.lastTriggeredBar = Self.bar(
                alert.timeframe, at: lastTriggered.time, tradingDate: lastTriggered.tradingDate)
        }
        let index: Int
        if let reused = free.popLast() {
            slots[reused] = slot
            index = reused
        } else {
            slots.append(slot)
            index = slots.count - 1
        }
        byInstrument[i].append(index)
        location[alert.id] = index
        closesNeeded[i] = max(closesNeeded[i], alert.condition.barsNeeded)
    }

    @discardableResult
    public mutating func remove(_ id: AlertID) -> PriceAlert? {
        guard let index = location.removeValue(forKey: id), let slot = slots[index] else { return nil }
        slots[index] = nil
        free.append(index)
        byInstrument[slot.instrument].removeAll { $0 == index }
        return slot.alert
    }

    public func alert(_ id: AlertID) -> PriceAlert? { location[id].flatMap { slots[$0]?.alert } }

    /// Instruments with at least one alert (the market pump fetches their quotes).
    public var instruments: [InstrumentID] {
        byInstrument.indices.filter { !byInstrument[$0].isEmpty }.map { InstrumentID(Int32($0)) }
    }

    @inline(__always)
    public func hasAlerts(_ instrument: InstrumentID) -> Bool {
        let i = Int(instrument.index)
        return i < byInstrument.count && !byInstrument[i].isEmpty
    }

    /// Feeds a finished daily bar's close (moving-average operands use the last N).
    public mutating func recordClose(_ instrument: InstrumentID, close: Price) {
        let i = Int(instrument.index)
        guard i < closes.count, closesNeeded[i] > 0 else { return }
        closes[i].append(close)
        if closes[i].count > closesNeeded[i] { closes[i].removeFirst(closes[i].count - closesNeeded[i]) }
    }

    /// The level an operand stands for now (nil: a moving average without enough closes yet).
    public func level(_ operand: AlertOperand, instrument: InstrumentID) -> Price? {
        switch operand {
        case .value(let v): return v
        case .movingAverage(let n):
            let i = Int(instrument.index)
            guard i < closes.count, closes[i].count >= n else { return nil }
            return closes[i].suffix(n).reduce(FixedDecimal.zero, +).divided(by: FixedDecimal(n), rule: .halfEven)
        }
    }

    /// Evaluates the instrument's alerts (or only `only`) at a price; appends the triggers to `triggered`.
    /// `tradingDate` is the instrument's trading date at `now` (day bars).
    public mutating func evaluate(
        _ instrument: InstrumentID, price: Price, at now: Timestamp, tradingDate: CivilDate, only: AlertID? = nil,
        into triggered: inout [Trigger]
    ) {
        let i = Int(instrument.index)
        guard i < byInstrument.count, !byInstrument[i].isEmpty else { return }
        scratch.removeAll(keepingCapacity: true)
        for index in byInstrument[i] {
            guard var slot = slots[index], only == nil || slot.alert.id == only else { continue }
            evaluations += 1
            let (holds, level) = Self.holds(
                &slot, price: price, at: now,
                level: slot.alert.condition.operand.flatMap {
                    self.level($0, instrument: instrument)
                })
            slot.previous = price
            let bar = Self.bar(slot.alert.timeframe, at: now, tradingDate: tradingDate)
            if holds, Self.mayTrigger(slot, at: now, bar: bar) {
                slot.lastTriggered = now
                slot.lastTriggeredBar = bar
                let isFinal = slot.alert.frequency == .once
                triggered.append(Trigger(alert: slot.alert, price: price, level: level, isFinal: isFinal))
                if isFinal { scratch.append(index) }
            }
            slots[index] = slot
        }
        for index in scratch {
            if let id = slots[index]?.alert.id { remove(id) }
        }
    }

    /// Removes the alerts whose expiry is at or before `now`; returns them.
    public mutating func expire(at now: Timestamp) -> [PriceAlert] {
        let ended = slots.compactMap { $0?.alert }.filter { $0.expiresAt.map { $0 <= now } ?? false }
        for alert in ended { remove(alert.id) }
        return ended
    }

    // MARK: Conditions

    static func holds(_ slot: inout Slot, price: Price, at now: Timestamp, level: Price?) -> (Bool, Price?) {
        let previous = slot.previous
        switch slot.alert.condition {
        case .crossing:
            guard let level, let previous else { return (false, level) }
            return ((previous < level && price >= level) || (previous > level && price <= level), level)
        case .crossingUp:
            guard let level, let previous else { return (false, level) }
            return (previous < level && price >= level, level)
        case .crossingDown:
            guard let level, let previous else { return (false, level) }
            return (previous > level && price <= level, level)
        case .greaterThan:
            guard let level else { return (false, nil) }
            return (price > level, level)
        case .lessThan:
            guard let level else { return (false, nil) }
            return (price < level, level)
        case .insideChannel(let lower, let upper): return (lower <= price && price <= upper, nil)
        case .outsideChannel(let lower, let upper): return (price < lower || price > upper, nil)
        case .enteringChannel(let lower, let upper):
            guard let previous else { return (false, nil) }
            let wasInside = lower <= previous && previous <= upper
            return (!wasInside && lower <= price && price <= upper, nil)
        case .exitingChannel(let lower, let upper):
            guard let previous else { return (false, nil) }
            let wasInside = lower <= previous && previous <= upper
            return (wasInside && (price < lower || price > upper), nil)
        case .movingUp(let amount, let within), .movingUpPercent(let amount, let within):
            let low = slide(&slot, price: price, at: now, span: within.nanoseconds(slot.alert.timeframe), keepLow: true)
            if case .movingUp = slot.alert.condition { return (price - low >= amount, low) }
            return ((price - low).raw * 100 >= Self.scaled(low, amount), low)
        case .movingDown(let amount, let within), .movingDownPercent(let amount, let within):
            let high = slide(
                &slot, price: price, at: now, span: within.nanoseconds(slot.alert.timeframe), keepLow: false)
            if case .movingDown = slot.alert.condition { return (high - price >= amount, high) }
            return ((high - price).raw * 100 >= Self.scaled(high, amount), high)
        }
    }

    /// Adds the price to the slot's window and returns the window's low (`keepLow`) or high.
    static func slide(_ slot: inout Slot, price: Price, at now: Timestamp, span: Int64, keepLow: Bool) -> Price {
        let t = now.nanoseconds
        while slot.window.count > slot.head,
            keepLow
                ? slot.window[slot.window.count - 1].price >= price : slot.window[slot.window.count - 1].price <= price
        {
            slot.window.removeLast()
        }
        slot.window.append((t, price))
        while slot.head < slot.window.count - 1, slot.window[slot.head].time < t - span { slot.head += 1 }
        if slot.head > 64, slot.head * 2 > slot.window.count {
            slot.window.removeFirst(slot.head)
            slot.head = 0
        }
        return slot.window[slot.head].price
    }

    /// base × pct in raw units: a change × 100 (raw) is compared with it, no division needed.
    @inline(__always) static func scaled(_ base: Price, _ pct: FixedDecimal) -> Int128 {
        base.raw * pct.raw / FixedDecimal.one.raw
    }

    static func mayTrigger(_ slot: Slot, at now: Timestamp, bar: Int64) -> Bool {
        guard let last = slot.lastTriggered else { return true }
        switch slot.alert.frequency {
        case .once: return true
        case .oncePerMinute: return now.nanoseconds - last.nanoseconds >= Duration64.minute
        case .oncePerBar: return slot.lastTriggeredBar != bar
        }
    }

    /// The bar a moment falls in: the trading date for day bars, else the UTC-aligned interval.
    static func bar(_ timeframe: AlertTimeframe, at time: Timestamp, tradingDate: CivilDate) -> Int64 {
        if timeframe == .day { return Int64(tradingDate.daysSinceEpoch) }
        return time.seconds.floorDivided(by: timeframe.seconds)
    }
}
