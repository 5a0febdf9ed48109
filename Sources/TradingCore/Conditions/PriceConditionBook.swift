/// Something that waits on one instrument's price and fires when its condition holds: a price alert, a queued rule.
public protocol PriceWatch: Sendable {
    associatedtype ID: Hashable & Sendable
    /// What the condition remembers between prices (the last price, a window of recent prices, which side of an
    /// average the price was on). Kept in memory only: after a restart the first price sets it again.
    associatedtype Memory: WatchMemory
    /// The market facts beside the price that evaluating needs (the previous close and price band, the time).
    associatedtype Moment
    /// What firing yields to the caller.
    associatedtype Firing

    var id: ID { get }
    /// Daily closes the condition's moving average needs (0: none).
    var barsNeeded: Int { get }

    /// Evaluates the watch at a price: what it fired (nil: nothing) and whether it is done (it then leaves the book
    /// in this same step, so it fires exactly once).
    static func evaluate(
        _ watch: Self, memory: inout Memory, price: Price, moment: Moment, closes: RecentCloses
    ) -> (firing: Firing, done: Bool)?
}

/// A watch's memory between prices; a new watch starts from `init()`.
public protocol WatchMemory: Sendable {
    init()
}

/// The recent daily closes of one instrument (as many as its longest moving average needs), oldest first.
public struct RecentCloses: Sendable {
    let closes: [Price]

    /// The average of the last `bars` closes (half-even), nil until there are that many.
    public func average(_ bars: Int) -> Price? {
        guard bars > 0, closes.count >= bars else { return nil }
        return closes.suffix(bars).reduce(FixedDecimal.zero, +).divided(by: FixedDecimal(bars), rule: .halfEven)
    }
}

/// Conditions waiting on prices, indexed by instrument: a price update evaluates only the watches on that
/// instrument — no work at all for those on other symbols — each in a few integer comparisons. Price alerts
/// (`AlertBook`) and queued rules (`RuleBook`) are both kept here; what a condition means and remembers is its
/// `PriceWatch`'s, the slots, the per-instrument index and the closes moving averages read are the book's.
public struct PriceConditionBook<Watch: PriceWatch>: Sendable {
    struct Slot: Sendable {
        var watch: Watch
        var instrument: Int
        var memory: Watch.Memory

        mutating func evaluate(price: Price, moment: Watch.Moment, closes: RecentCloses) -> (
            firing: Watch.Firing, done: Bool
        )? {
            Watch.evaluate(watch, memory: &memory, price: price, moment: moment, closes: closes)
        }
    }

    private var slots: [Slot?] = []
    private var free: [Int] = []
    private var byInstrument: [[Int]] = []
    private var location: [Watch.ID: Int] = [:]
    /// Recent closes per instrument, for moving averages (as many as the longest average on it needs).
    private var closes: [[Price]] = []
    private var closesNeeded: [Int] = []
    private var scratch: [Int] = []
    /// Watches evaluated so far (tests and benchmarks: proof that other symbols cost nothing).
    public private(set) var evaluations = 0

    public init() {}

    public var count: Int { location.count }

    /// Adds (or replaces) a watch on an instrument, starting from `memory`.
    public mutating func add(_ watch: Watch, instrument: InstrumentID, memory: Watch.Memory = .init()) {
        let i = Int(instrument.index)
        if i >= byInstrument.count {
            let missing = i - byInstrument.count + 1
            byInstrument += Array(repeating: [], count: missing)
            closes += Array(repeating: [], count: missing)
            closesNeeded += Array(repeating: 0, count: missing)
        }
        remove(watch.id)
        let slot = Slot(watch: watch, instrument: i, memory: memory)
        let index: Int
        if let reused = free.popLast() {
            slots[reused] = slot
            index = reused
        } else {
            slots.append(slot)
            index = slots.count - 1
        }
        byInstrument[i].append(index)
        location[watch.id] = index
        closesNeeded[i] = max(closesNeeded[i], watch.barsNeeded)
    }

    @discardableResult
    public mutating func remove(_ id: Watch.ID) -> Watch? {
        guard let index = location.removeValue(forKey: id), let slot = slots[index] else { return nil }
        slots[index] = nil
        free.append(index)
        byInstrument[slot.instrument].removeAll { $0 == index }
        return slot.watch
    }

    public func watch(_ id: Watch.ID) -> Watch? { location[id].flatMap { slots[$0]?.watch } }

    /// Every watch in the book.
    public var watches: [Watch] { slots.compactMap { $0?.watch } }

    /// Instruments with at least one watch (the market pump fetches their quotes).
    public var instruments: [InstrumentID] {
        byInstrument.indices.filter { !byInstrument[$0].isEmpty }.map { InstrumentID(Int32($0)) }
    }

    /// Whether anything waits on the instrument (a price update of any other instrument costs only this check).
    @inline(__always)
    public func isWatched(_ instrument: InstrumentID) -> Bool {
        let i = Int(instrument.index)
        return i < byInstrument.count && !byInstrument[i].isEmpty
    }

    /// Feeds a finished daily bar's close (moving averages use the last N).
    public mutating func recordClose(_ instrument: InstrumentID, close: Price) {
        let i = Int(instrument.index)
        guard i < closes.count, closesNeeded[i] > 0 else { return }
        closes[i].append(close)
        if closes[i].count > closesNeeded[i] { closes[i].removeFirst(closes[i].count - closesNeeded[i]) }
    }

    /// The instrument's recent closes.
    public func recentCloses(_ instrument: InstrumentID) -> RecentCloses {
        let i = Int(instrument.index)
        return RecentCloses(closes: i < closes.count ? closes[i] : [])
    }

    /// Evaluates the instrument's watches (or only `only`) at a price; appends what fired to `fired` and removes
    /// the watches that are done.
    public mutating func evaluate(
        _ instrument: InstrumentID, price: Price, moment: Watch.Moment, only: Watch.ID? = nil,
        into fired: inout [Watch.Firing]
    ) {
        let i = Int(instrument.index)
        guard i < byInstrument.count, !byInstrument[i].isEmpty else { return }
        scratch.removeAll(keepingCapacity: true)
        let recent = RecentCloses(closes: closes[i])
        for index in byInstrument[i] where only == nil || slots[index]?.watch.id == only {
            // (In place: the watch is read and its memory changed where they are, never copied out and back.)
            // (The index lists live slots only.)
            evaluations += 1
            guard let outcome = slots[index]?.evaluate(price: price, moment: moment, closes: recent) else { continue }
            fired.append(outcome.firing)
            if outcome.done { scratch.append(index) }
        }
        for index in scratch {
            if let id = slots[index]?.watch.id { remove(id) }
        }
    }

    /// Removes the watches `ended` says are over; returns them.
    public mutating func removeAll(where ended: (Watch) -> Bool) -> [Watch] {
        let gone = watches.filter(ended)
        for watch in gone { remove(watch.id) }
        return gone
    }
}
