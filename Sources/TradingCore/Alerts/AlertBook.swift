/// Price alerts, indexed by instrument (`PriceConditionBook`, like the queue's rules): a price update evaluates only
/// the alerts on that instrument. An alert that may trigger only once leaves the book in the step it triggers, so
/// it triggers exactly once; a repeating one keeps the time of its last trigger, which the caller journals with the
/// notification, so a restart does not trigger it again in the same bar or minute.
///
/// What a condition remembers between updates lives in the book, in memory: the previous price (crossings, entering
/// and exiting a channel) and the window of recent prices (moving conditions). After a restart the first update
/// only sets them again, so nothing triggers on a crossing the alert did not see.
public typealias AlertBook = PriceConditionBook<PriceAlert>

/// A price alert that triggered: at which price, and against which level (the value or moving average).
public struct AlertTrigger: Sendable, Hashable {
    public var alert: PriceAlert
    public var price: Price
    public var level: Price?
    /// Whether the alert is done (it triggers only once).
    public var isFinal: Bool
}

extension PriceAlert: PriceWatch {
    public struct Memory: WatchMemory {
        var previous: Price?
        /// Recent prices as a monotonic queue (`window[head...]`): ascending for moving up (its front is the window's
        /// low), descending for moving down (the high). Amortized O(1) per update, and it stays short.
        var window: [(time: Int64, price: Price)] = []
        var head = 0
        var lastTriggered: Timestamp?
        var lastTriggeredBar: Int64?
        public init() {}
    }

    /// When the price is seen, and the instrument's trading date then (day bars).
    public typealias Moment = (now: Timestamp, tradingDate: CivilDate)

    public var barsNeeded: Int { condition.barsNeeded }

    public static func evaluate(
        _ alert: PriceAlert, memory: inout Memory, price: Price, moment: Moment, closes: RecentCloses
    ) -> (firing: AlertTrigger, done: Bool)? {
        let (now, tradingDate) = moment
        let operandLevel = alert.condition.operand.flatMap { AlertBook.level($0, closes: closes) }
        let (holds, level) = Self.holds(alert, &memory, price: price, at: now, level: operandLevel)
        memory.previous = price
        let bar = Self.bar(alert.timeframe, at: now, tradingDate: tradingDate)
        guard holds, mayTrigger(alert, memory, at: now, bar: bar) else { return nil }
        memory.lastTriggered = now
        memory.lastTriggeredBar = bar
        let isFinal = alert.frequency == .once
        return (AlertTrigger(alert: alert, price: price, level: level, isFinal: isFinal), isFinal)
    }

    // MARK: Conditions

    static func holds(
        _ alert: PriceAlert, _ memory: inout Memory, price: Price, at now: Timestamp, level: Price?
    ) -> (Bool, Price?) {
        let previous = memory.previous
        switch alert.condition {
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
            let low = slide(&memory, price: price, at: now, span: within.nanoseconds(alert.timeframe), keepLow: true)
            if case .movingUp = alert.condition { return (price - low >= amount, low) }
            return ((price - low).raw * 100 >= scaled(low, amount), low)
        case .movingDown(let amount, let within), .movingDownPercent(let amount, let within):
            let high = slide(
                &memory, price: price, at: now, span: within.nanoseconds(alert.timeframe), keepLow: false)
            if case .movingDown = alert.condition { return (high - price >= amount, high) }
            return ((high - price).raw * 100 >= scaled(high, amount), high)
        }
    }

    /// Adds the price to the memory's window and returns the window's low (`keepLow`) or high.
    static func slide(_ memory: inout Memory, price: Price, at now: Timestamp, span: Int64, keepLow: Bool) -> Price {
        let t = now.nanoseconds
        while memory.window.count > memory.head,
            keepLow
                ? memory.window[memory.window.count - 1].price >= price
                : memory.window[memory.window.count - 1].price <= price
        {
            memory.window.removeLast()
        }
        memory.window.append((t, price))
        while memory.head < memory.window.count - 1, memory.window[memory.head].time < t - span { memory.head += 1 }
        if memory.head > 64, memory.head * 2 > memory.window.count {
            memory.window.removeFirst(memory.head)
            memory.head = 0
        }
        return memory.window[memory.head].price
    }

    /// base × pct in raw units: a change × 100 (raw) is compared with it, no division needed.
    @inline(__always) static func scaled(_ base: Price, _ pct: FixedDecimal) -> Int128 {
        base.raw * pct.raw / FixedDecimal.one.raw
    }

    static func mayTrigger(_ alert: PriceAlert, _ memory: Memory, at now: Timestamp, bar: Int64) -> Bool {
        guard let last = memory.lastTriggered else { return true }
        switch alert.frequency {
        case .once: return true
        case .oncePerMinute: return now.nanoseconds - last.nanoseconds >= Duration64.minute
        case .oncePerBar: return memory.lastTriggeredBar != bar
        }
    }

    /// The bar a moment falls in: the trading date for day bars, else the UTC-aligned interval.
    static func bar(_ timeframe: AlertTimeframe, at time: Timestamp, tradingDate: CivilDate) -> Int64 {
        if timeframe == .day { return Int64(tradingDate.daysSinceEpoch) }
        return time.seconds.floorDivided(by: timeframe.seconds)
    }
}

extension PriceConditionBook where Watch == PriceAlert {
    public typealias Trigger = AlertTrigger

    /// Adds (or replaces) an alert. `lastTriggered` is the stored time and trading date of its last trigger.
    public mutating func add(
        _ alert: PriceAlert, instrument: InstrumentID, lastTriggered: (time: Timestamp, tradingDate: CivilDate)?
    ) {
        var memory = PriceAlert.Memory()
        if let lastTriggered {
            memory.lastTriggered = lastTriggered.time
            memory.lastTriggeredBar = PriceAlert.bar(
                alert.timeframe, at: lastTriggered.time, tradingDate: lastTriggered.tradingDate)
        }
        add(alert, instrument: instrument, memory: memory)
    }

    public func alert(_ id: AlertID) -> PriceAlert? { watch(id) }

    @inline(__always)
    public func hasAlerts(_ instrument: InstrumentID) -> Bool { isWatched(instrument) }

    /// The level an operand stands for now (nil: a moving average without enough closes yet).
    public func level(_ operand: AlertOperand, instrument: InstrumentID) -> Price? {
        Self.level(operand, closes: recentCloses(instrument))
    }

    static func level(_ operand: AlertOperand, closes: RecentCloses) -> Price? {
        switch operand {
        case .value(let v): return v
        case .movingAverage(let n): return closes.average(n)
        }
    }

    /// Evaluates the instrument's alerts (or only `only`) at a price; appends the triggers to `triggered`.
    /// `tradingDate` is the instrument's trading date at `now` (day bars).
    public mutating func evaluate(
        _ instrument: InstrumentID, price: Price, at now: Timestamp, tradingDate: CivilDate, only: AlertID? = nil,
        into triggered: inout [AlertTrigger]
    ) {
        evaluate(instrument, price: price, moment: (now, tradingDate), only: only, into: &triggered)
    }

    /// Removes the alerts whose expiry is at or before `now`; returns them.
    public mutating func expire(at now: Timestamp) -> [PriceAlert] {
        removeAll { $0.expiresAt.map { $0 <= now } ?? false }
    }
}
