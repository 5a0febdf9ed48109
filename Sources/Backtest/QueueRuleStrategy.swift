import JSON
import TradingCore

/// Queue purchase rules replayed as a strategy: each rule's condition is evaluated at every bar's close by the same
/// `RuleBook` the live market pump uses (limit-up distances, change since the previous close, moving averages of the
/// closes), and its order (market, limit, or a limit at the day's limit-up price) goes to the engine to fill from
/// the next bar on — so the A-share app's "buy when it nears limit-up" can be tried on years of history.
///
/// Live, a rule fires once; here each rule re-arms every trading day, and a buy rule waits while its symbol is held
/// (a sell rule while it is not), so a rule set is a repeatable strategy.
public struct QueueRuleStrategy: Strategy {
    /// A rule of the set: the symbol it watches (nil: every symbol of the run), its condition and its order.
    public struct Rule: Sendable, Hashable {
        public var symbol: String?
        public var condition: RuleCondition
        public var action: RuleAction

        public init(symbol: String?, condition: RuleCondition, action: RuleAction) {
            self.symbol = symbol
            self.condition = condition
            self.action = action
        }
    }

    public var rules: [Rule]
    var book = RuleBook()
    var armedOn: [Int: CivilDate] = [:]
    var fired: [QueueRule] = []

    public init(rules: [Rule]) { self.rules = rules }

    /// Rules as the native API's queue bodies: `[{"symbol": "000338", "side": "buy", "qty": "100",
    /// "condition": {"type": "within_percent_of_limit_up", "value": "1"}, "order_type": "limit_up"}, …]`
    /// (`symbol` optional here: a rule without one applies to every symbol).
    public static func rules(_ json: JSONValue) throws(QueueRuleJSON.Problem) -> [Rule] {
        guard case .array(let items) = json, !items.isEmpty else {
            throw QueueRuleJSON.Problem("the rules file must be a JSON array of queue rules")
        }
        var out: [Rule] = []
        for (i, item) in items.enumerated() {
            guard case .object(let o) = item else { throw QueueRuleJSON.Problem("rule \(i + 1) is not an object") }
            do throws(QueueRuleJSON.Problem) {
                let action = try QueueRuleJSON.action(o)
                guard action.qty != nil || action.notional != nil else {
                    throw QueueRuleJSON.Problem("qty or notional is required")
                }
                out.append(
                    Rule(
                        symbol: o["symbol"]?.string?.uppercased(),
                        condition: try QueueRuleJSON.condition(o["condition"]),
                        action: action))
            } catch {
                throw QueueRuleJSON.Problem("rule \(i + 1): \(error.description)")
            }
        }
        return out
    }

    public mutating func onBar(_ bar: BarContext, orders: inout OrderBook) {
        let instrument = InstrumentID(Int32(bar.series))
        let date = bar.date
        if armedOn[bar.series] != date {
            // A new trading day: (re-)arm this symbol's rules.
            armedOn[bar.series] = date
            for (k, rule) in rules.enumerated() where rule.symbol == nil || rule.symbol == bar.symbol {
                let id = QueueRuleID(high: UInt64(bar.series), low: UInt64(k))
                if book.rule(id) == nil {
                    book.add(
                        QueueRule(
                            id: id, accountID: AccountID(high: 0, low: 1), symbol: bar.symbol,
                            condition: rule.condition,
                            action: rule.action, lifetime: .untilTriggered, createdAt: bar.bar.time),
                        instrument: instrument)
                }
            }
        }
        fired.removeAll(keepingCapacity: true)
        book.evaluate(
            instrument, price: bar.bar.close, previousClose: bar.previousClose, band: bar.band, into: &fired)
        book.recordClose(instrument, close: bar.bar.close)
        for rule in fired {
            // Buy rules wait while the symbol is held, sell rules while it is not (a fired rule re-arms tomorrow).
            if rule.action.side == .buy ? !bar.position.isZero : !bar.position.isPositive { continue }
            guard
                case .success(var request) = rule.action.request(symbol: bar.symbol, band: bar.band, clientOrderID: "")
            else { continue }
            request.clientOrderID = nil
            request.timeInForce = .gtc
            if rule.action.side == .sell, let qty = request.qty { request.qty = min(qty, bar.position) }
            orders.place(request)
        }
    }
}
