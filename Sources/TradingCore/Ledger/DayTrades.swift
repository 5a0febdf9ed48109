/// Alpaca's `pdt_check`: which orders the pattern day trader rule stops, once an account under $25,000 has made
/// three day trades in five trading days — `entry`: orders that open a position (closing it the same day would be
/// the fourth); `exit`: orders that would close a position opened today (the fourth itself); `both`. The rule only
/// applies to accounts that turn it on (`MarginTerms.dayTradeProtection`): FINRA is retiring it.
public enum DayTradeCheck: String, Sendable, Codable, Hashable, CaseIterable {
    case entry, exit, both

    var checksEntry: Bool { self == .entry || self == .both }
    var checksExit: Bool { self == .exit || self == .both }
}

/// A day trade: shares opened and closed on the same trading day (bought then sold, or sold short then covered),
/// counted once per closing order, as Alpaca counts them.
public struct DayTrade: Sendable, Codable, Hashable {
    public var date: CivilDate
    public var orderID: OrderID
    public var symbol: String

    public init(date: CivilDate, orderID: OrderID, symbol: String) {
        self.date = date
        self.orderID = orderID
        self.symbol = symbol
    }
}

/// FINRA's pattern day trader rule as Alpaca applies it.
public enum PatternDayTrading {
    /// Trading days counted, ending today.
    public static let windowDays = 5
    /// Day trades within the window that make a pattern day trader.
    public static let patternCount = 4
    /// Accounts with at least this much equity may day trade freely.
    public static let minimumEquity = FixedDecimal(25_000)
    /// Day trades older than this many calendar days are forgotten (the window never reaches that far back).
    static let keptDays = 14
}

extension Account {
    /// Day trades in the five US trading days ending with `date` (Alpaca's `daytrade_count`).
    public func dayTradeCount(on date: CivilDate) -> Int {
        var start = date
        for _ in 1..<PatternDayTrading.windowDays { start = TradingCalendar.xnys.previousTradingDay(before: start) }
        return dayTrades.reduce(0) { $0 + ($1.date >= start && $1.date <= date ? 1 : 0) }
    }

    /// Whether the account counts as a pattern day trader on `date` (four or more day trades in the window).
    public func isPatternDayTrader(on date: CivilDate) -> Bool {
        dayTradeCount(on: date) >= PatternDayTrading.patternCount
    }

    /// Records a day trade by a closing order (once per order and day) and forgets old ones. The list is in date
    /// order, so both look only at its ends: today's entries for the duplicate, the oldest for what to forget (a
    /// minute-bar backtest makes thousands of day trades a fortnight; scanning them all per fill was quadratic).
    mutating func recordDayTrade(_ trade: DayTrade) {
        // (By index, field by field: iterating the entries copied each one, its symbol retained and released.)
        var k = dayTrades.endIndex
        while k > dayTrades.startIndex {
            k -= 1
            if dayTrades[k].date != trade.date { break }
            if dayTrades[k].orderID == trade.orderID { return }
        }
        let oldest = trade.date.adding(days: -PatternDayTrading.keptDays)
        if let first = dayTrades.first, first.date < oldest {
            dayTrades.removeFirst(dayTrades.firstIndex { $0.date >= oldest } ?? dayTrades.count)
        }
        dayTrades.append(trade)
    }

    /// The refusal the pattern day trader rule gives an order with `intent` in `symbol` on `date`, if any: the
    /// account is under $25,000 of `equity` with three day trades in the window, and the order opens a position
    /// (entry check) or closes shares opened today (exit check).
    func dayTradeRefusal(
        intent: PositionIntent, opensToday: Bool, equity: FixedDecimal, on date: CivilDate
    ) -> OrderRejection? {
        let check = terms.dayTradeCheck
        guard terms.dayTradeProtection, market == .us, equity < PatternDayTrading.minimumEquity else { return nil }
        let count = dayTradeCount(on: date)
        guard count >= PatternDayTrading.patternCount - 1 else { return nil }
        let opening = intent == .buyToOpen || intent == .sellToOpen
        guard (opening && check.checksEntry) || (!opening && opensToday && check.checksExit) else { return nil }
        return OrderRejection(
            .patternDayTrading,
            "trade denied due to pattern day trading protection: \(count) day trades in the last 5 trading days and equity under $25,000",
            facts: .init("pattern_day_trading", ["count": String(count)]))
    }
}
