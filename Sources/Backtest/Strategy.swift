import TradingCore

/// A trading strategy for the backtester. After each bar closes, `onBar` sees the history up to and including that
/// bar — never a later one (the context holds nothing else) — and may place orders; they reach the engine then and
/// fill from the next market event on (by default the next bar's open), under the same rules as live orders:
/// lots, ticks, fees, T+1, price limits, volume participation.
///
/// A value type: the backtester owns it, so a run is deterministic and two runs never share state.
public protocol Strategy: Sendable {
    mutating func onBar(_ bar: BarContext, orders: inout OrderBook)
}

/// What a strategy sees at a bar's close.
///
/// The backtester keeps one context per symbol and moves it on in place bar after bar. Its fields live behind one
/// reference (copied on write, so a context a strategy keeps does not change under it): handing it to the strategy
/// passes a pointer. As a ~200-byte struct it was copied afresh for every bar's call, ~6% of a backtest's time.
public struct BarContext: Sendable {
    struct Fields {
        let symbol: String
        let series: Int
        var closes: Closes
        var position: Quantity
        var cash: FixedDecimal
        var equity: FixedDecimal
        var date: CivilDate
        var previousClose: Price?
        var band: PriceBand?
    }

    private var storage: CopyOnWrite<Fields>

    /// The symbol whose bar closed, and its place in the run's list of symbols (0, 1, …: an index for a
    /// strategy's own per-symbol arrays).
    public var symbol: String { storage.fields.symbol }
    public var series: Int { storage.fields.series }
    /// The bar that just closed.
    public var bar: HistoricalBar { storage.fields.closes.bars[storage.fields.closes.endIndex - 1] }
    /// This symbol's closes so far, oldest first (the last one is `bar.close`).
    public var closes: Closes { storage.fields.closes }
    /// Shares held now (negative when short), cash and equity at the last closes.
    public var position: Quantity { storage.fields.position }
    public var cash: FixedDecimal { storage.fields.cash }
    public var equity: FixedDecimal { storage.fields.equity }
    /// The bar's trading date (in its market's time zone), the previous day's last close, and the day's price
    /// limits when the market has them (A-shares).
    public var date: CivilDate { storage.fields.date }
    public var previousClose: Price? { storage.fields.previousClose }
    public var band: PriceBand? { storage.fields.band }

    /// A context before the symbol's first bar (`startDay` and `move(to:)` bring it to one).
    init(symbol: String, series: Int, bars: [HistoricalBar]) {
        storage = CopyOnWrite(
            Fields(
                symbol: symbol, series: series, closes: Closes(bars: bars), position: .zero, cash: .zero,
                equity: .zero, date: CivilDate(1970, 1, 1), previousClose: nil, band: nil))
    }

    /// A new trading day of the symbol: its date, previous close and price limits.
    mutating func startDay(_ date: CivilDate, previousClose: Price?, band: PriceBand?) {
        storage.update { fields in
            fields.date = date
            fields.previousClose = previousClose
            fields.band = band
        }
    }

    /// The context at the close of bar `index` of the symbol's series (one bar later, most of the time: only the
    /// window and the account's figures change).
    mutating func move(to index: Int, position: Quantity, cash: FixedDecimal, equity: FixedDecimal) {
        storage.update { fields in
            fields.closes.endIndex = index + 1
            fields.position = position
            fields.cash = cash
            fields.equity = equity
        }
    }

    /// The mean of the last `n` closes (exact), or nil before there are `n`.
    public func average(_ n: Int) -> FixedDecimal? {
        guard n > 0, closes.count >= n else { return nil }
        let sum = closes.suffix(n).reduce(FixedDecimal.zero, +)
        return sum.divided(by: FixedDecimal(n), places: 9, rule: .halfEven)
    }

    /// The sum of the last `n` closes, or nil before there are `n` (comparing sums scaled by the other window's
    /// length compares two averages without rounding).
    public func sum(_ n: Int, ending offset: Int = 0) -> FixedDecimal? {
        guard n > 0, offset >= 0, closes.count >= n + offset else { return nil }
        return closes.dropLast(offset).suffix(n).reduce(FixedDecimal.zero, +)
    }
}

/// A symbol's closes up to the bar that just closed, oldest first: a window on the series' bars that grows by one
/// each bar (nothing is appended or copied). Positions past the window — later bars — cannot be read.
public struct Closes: RandomAccessCollection, Sendable {
    let bars: [HistoricalBar]
    public var startIndex: Int { 0 }
    public internal(set) var endIndex: Int

    init(bars: [HistoricalBar]) {
        self.bars = bars
        endIndex = 0
    }

    public subscript(position: Int) -> Price {
        precondition(position >= 0 && position < endIndex, "close \(position) is not in the \(endIndex) seen so far")
        return bars[position].close
    }
}

/// The orders a strategy places at one bar.
public struct OrderBook: Sendable {
    public internal(set) var requests: [OrderRequest] = []

    public init() {}

    /// A market order (good till canceled: it waits for the next bar, whenever that comes).
    public mutating func market(_ symbol: String, _ side: OrderSide, qty: Quantity) {
        requests.append(OrderRequest(symbol: symbol, side: side, type: .market, timeInForce: .gtc, qty: qty))
    }

    /// A limit order, good till canceled.
    public mutating func limit(_ symbol: String, _ side: OrderSide, qty: Quantity, price: Price) {
        requests.append(
            OrderRequest(symbol: symbol, side: side, type: .limit, timeInForce: .gtc, qty: qty, limitPrice: price))
    }

    /// Any order the engine takes (stops, trailing stops, brackets…).
    public mutating func place(_ request: OrderRequest) { requests.append(request) }
}

// MARK: Built-in strategies

/// Buys `qty` shares of every symbol at the first bar (filled at the next open) and holds them.
public struct BuyAndHold: Strategy {
    public var qty: Quantity
    /// Per symbol (by its place in the run's list): bought already.
    var bought: [Bool] = []

    public init(qty: Quantity) { self.qty = qty }

    public mutating func onBar(_ bar: BarContext, orders: inout OrderBook) {
        if bar.series >= bought.count { bought += Array(repeating: false, count: bar.series + 1 - bought.count) }
        guard !bought[bar.series] else { return }
        bought[bar.series] = true
        orders.market(bar.symbol, .buy, qty: qty)
    }
}

/// The moving-average crossover: buy `qty` when the fast simple moving average of closes crosses above the slow
/// one, sell the whole position when it crosses below (long only). A cross is the sign of (fast − slow) changing
/// from the last bar on which the two differed — backtrader's CrossOver — compared exactly (sums scaled by the other
/// window's length, no rounding).
public struct SMACross: Strategy {
    public var fast: Int
    public var slow: Int
    public var qty: Quantity
    /// Per symbol: the two windows' running sums over the closes seen so far, and the sign of fast − slow at the last
    /// bar where they differed.
    var windows: [Windows] = []

    struct Windows {
        var seen = 0
        var fast = FixedDecimal.zero
        var slow = FixedDecimal.zero
        /// 1 or -1; 0 before the averages first differ.
        var lastSign: Int8 = 0
    }

    public init(fast: Int = 10, slow: Int = 30, qty: Quantity = .one) {
        self.fast = fast
        self.slow = slow
        self.qty = qty
    }

    public mutating func onBar(_ bar: BarContext, orders: inout OrderBook) {
        let s = bar.series
        if s >= windows.count { windows += Array(repeating: Windows(), count: s + 1 - windows.count) }
        // The sums move by one close each bar (exact, so the same as summing the windows again); anything else
        // (closes not grown by one) sums them afresh. (The closes are read through `bar`, not bound to a local: a
        // local copy of the window retains and releases the bars on every bar.) The symbol's state is worked on as
        // a local and written back once.
        let count = bar.closes.count
        var w = windows[s]
        defer { windows[s] = w }
        if w.seen == count - 1, count > 0 {
            let newest = bar.closes[count - 1]
            w.fast += newest
            w.slow += newest
            if count > fast { w.fast -= bar.closes[count - 1 - fast] }
            if count > slow { w.slow -= bar.closes[count - 1 - slow] }
        } else {
            w.fast = bar.closes.suffix(fast).reduce(.zero, +)
            w.slow = bar.closes.suffix(slow).reduce(.zero, +)
        }
        w.seen = count
        guard count >= slow else { return }
        // fast/slow against slow/fast, both scaled by slow × fast: whole numbers compared, nothing rounded.
        let (scaledFast, scaledSlow) = (w.fast.times(slow), w.slow.times(fast))
        let sign: Int8 = scaledFast > scaledSlow ? 1 : scaledFast < scaledSlow ? -1 : 0
        guard sign != 0 else { return }
        let previous = w.lastSign
        w.lastSign = sign
        guard previous != 0, previous != sign else { return }
        if sign > 0, bar.position.isZero {
            orders.market(bar.symbol, .buy, qty: qty)
        } else if sign < 0, bar.position.isPositive {
            orders.market(bar.symbol, .sell, qty: bar.position)
        }
    }
}

/// Built-in strategies by name, with `--param k=v` parameters.
public enum BuiltInStrategy {
    public static let names = ["buy-and-hold", "sma-cross", "queue-rules"]

    public static func make(_ name: String, parameters: [String: String], qty: Quantity) throws(StrategyProblem)
        -> any Strategy
    {
        func integer(_ key: String, _ fallback: Int) throws(StrategyProblem) -> Int {
            guard let text = parameters[key] else { return fallback }
            guard let n = Int(text), n > 0 else { throw StrategyProblem("\(key) must be a positive whole number") }
            return n
        }
        switch name {
        case "buy-and-hold", "buy_and_hold":
            return BuyAndHold(qty: qty)
        case "sma-cross", "sma_cross":
            let known: Set<String> = ["fast", "slow"]
            if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
                throw StrategyProblem("sma-cross takes fast and slow, not \(unknown)")
            }
            let fast = try integer("fast", 10), slow = try integer("slow", 30)
            guard fast < slow else { throw StrategyProblem("fast (\(fast)) must be shorter than slow (\(slow))") }
            return SMACross(fast: fast, slow: slow, qty: qty)
        default:
            throw StrategyProblem("unknown strategy \(name); built in: \(names.joined(separator: ", "))")
        }
    }
}

public struct StrategyProblem: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
