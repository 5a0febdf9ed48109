import TradingCore

/// A queue rule's condition and order pricing as JSON — `{"type": "within_percent_of_limit_up", "value": "1"}`,
/// `"order_type": "limit_up"` — in one place for every reader: the native API's queue routes and the backtester's
/// rule files (`papertrade backtest --strategy queue-rules --rules FILE.json`).
public enum QueueRuleJSON {
    /// What is wrong with the JSON, in the words the API answers with.
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    public static let conditionTypes = [
        "price_at_least", "price_at_most", "change_percent_at_least", "change_percent_at_most", "within_of_limit_up",
        "within_of_limit_down", "within_percent_of_limit_up", "within_percent_of_limit_down", "touches_limit_up",
        "crosses_above_moving_average", "crosses_below_moving_average",
    ]

    /// A decimal field (a JSON number or a decimal string).
    public static func decimal(_ value: JSONValue?, _ field: String) throws(Problem) -> FixedDecimal {
        guard let value else { throw Problem("\(field) is required") }
        guard let d = value.decimal else { throw Problem("\(field) must be a decimal number") }
        return d
    }

    public static func condition(_ json: JSONValue?) throws(Problem) -> RuleCondition {
        guard case .object(let c)? = json, let type = c["type"]?.string else {
            throw Problem("condition must be an object with a type")
        }
        let value = { () throws(Problem) -> FixedDecimal in try decimal(c["value"], "condition.value") }
        switch type {
        case "price_at_least": return .priceAtLeast(try value())
        case "price_at_most": return .priceAtMost(try value())
        case "change_percent_at_least": return .changePercentAtLeast(try value())
        case "change_percent_at_most": return .changePercentAtMost(try value())
        case "within_of_limit_up": return .withinOfLimitUp(try value())
        case "within_of_limit_down": return .withinOfLimitDown(try value())
        case "within_percent_of_limit_up": return .withinPercentOfLimitUp(try value())
        case "within_percent_of_limit_down": return .withinPercentOfLimitDown(try value())
        case "touches_limit_up": return .touchesLimitUp
        case "crosses_above_moving_average", "crosses_below_moving_average":
            guard let n = c["value"]?.int else { throw Problem("condition.value must be a whole number of bars") }
            return type == "crosses_above_moving_average"
                ? .crossesAboveMovingAverage(bars: n) : .crossesBelowMovingAverage(bars: n)
        default: throw Problem("unknown condition type \(type)")
        }
    }

    public static func encode(_ condition: RuleCondition) -> JSONValue {
        switch condition {
        case .priceAtLeast(let v): return .object(["type": .string("price_at_least"), "value": .decimal(v)])
        case .priceAtMost(let v): return .object(["type": .string("price_at_most"), "value": .decimal(v)])
        case .changePercentAtLeast(let v):
            return .object(["type": .string("change_percent_at_least"), "value": .decimal(v)])
        case .changePercentAtMost(let v):
            return .object(["type": .string("change_percent_at_most"), "value": .decimal(v)])
        case .withinOfLimitUp(let v): return .object(["type": .string("within_of_limit_up"), "value": .decimal(v)])
        case .withinOfLimitDown(let v): return .object(["type": .string("within_of_limit_down"), "value": .decimal(v)])
        case .withinPercentOfLimitUp(let v):
            return .object(["type": .string("within_percent_of_limit_up"), "value": .decimal(v)])
        case .withinPercentOfLimitDown(let v):
            return .object(["type": .string("within_percent_of_limit_down"), "value": .decimal(v)])
        case .touchesLimitUp: return .object(["type": .string("touches_limit_up")])
        case .crossesAboveMovingAverage(let n):
            return .object(["type": .string("crosses_above_moving_average"), "value": .int(n)])
        case .crossesBelowMovingAverage(let n):
            return .object(["type": .string("crosses_below_moving_average"), "value": .int(n)])
        }
    }

    /// `order_type` (market, limit with `limit_price`, limit_up).
    public static func pricing(orderType: JSONValue?, limitPrice: JSONValue?) throws(Problem) -> RuleAction.Pricing {
        switch orderType?.string ?? "market" {
        case "market": return .market
        case "limit": return .limit(try decimal(limitPrice, "limit_price"))
        case "limit_up": return .limitUp
        case let other: throw Problem("order_type must be market, limit or limit_up, not \(other)")
        }
    }

    /// A rule's action: `side`, `qty` or `notional`, and its pricing.
    public static func action(_ o: [String: JSONValue]) throws(Problem) -> RuleAction {
        guard let side = o["side"]?.string.flatMap(OrderSide.init(rawValue:)) else {
            throw Problem("side must be buy or sell")
        }
        let qty = try o["qty"].map { v throws(Problem) in try decimal(v, "qty") }
        let notional = try o["notional"].map { v throws(Problem) in try decimal(v, "notional") }
        return RuleAction(
            side: side, qty: qty, notional: notional,
            pricing: try pricing(orderType: o["order_type"], limitPrice: o["limit_price"]))
    }
}
