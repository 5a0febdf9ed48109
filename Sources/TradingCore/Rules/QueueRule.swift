/// A queued automatic order ("queue purchase"): when the condition holds on a price update of the instrument,
/// the action's order is placed — once. The A-share app queued buys near limit-up; any condition below works
/// for any instrument.
public struct QueueRule: Sendable, Codable, Hashable {
    public var id: QueueRuleID
    public var accountID: AccountID
    public var symbol: String
    public var condition: RuleCondition
    public var action: RuleAction
    public var lifetime: RuleLifetime
    public var createdAt: Timestamp

    public init(
        id: QueueRuleID, accountID: AccountID, symbol: String, condition: RuleCondition, action: RuleAction,
        lifetime: RuleLifetime, createdAt: Timestamp
    ) {
        self.id = id
        self.accountID = accountID
        self.symbol = symbol
        self.condition = condition
        self.action = action
        self.lifetime = lifetime
        self.createdAt = createdAt
    }
}

/// When a rule fires.
public enum RuleCondition: Sendable, Codable, Hashable {
    case priceAtLeast(Price)
    case priceAtMost(Price)
    /// Change since the previous close, in percent (5 = +5%).
    case changePercentAtLeast(FixedDecimal)
    case changePercentAtMost(FixedDecimal)
    /// Within an amount of the day's limit-up (limit-down) price: price ≥ limitUp − amount.
    case withinOfLimitUp(FixedDecimal)
    case withinOfLimitDown(FixedDecimal)
    /// Within a percentage of the limit price: price ≥ limitUp × (1 − pct/100).
    case withinPercentOfLimitUp(FixedDecimal)
    case withinPercentOfLimitDown(FixedDecimal)
    /// The price reaches limit-up.
    case touchesLimitUp
    /// The price crosses above (below) the simple moving average of the last N closes.
    case crossesAboveMovingAverage(bars: Int)
    case crossesBelowMovingAverage(bars: Int)

    /// Closes of bars the condition needs (0 for price conditions).
    public var barsNeeded: Int {
        switch self {
        case .crossesAboveMovingAverage(let n), .crossesBelowMovingAverage(let n): return n
        default: return 0
        }
    }

    /// Whether the condition needs the day's price band (A-share limits).
    public var needsBand: Bool {
        switch self {
        case .withinOfLimitUp, .withinOfLimitDown, .withinPercentOfLimitUp, .withinPercentOfLimitDown, .touchesLimitUp:
            return true
        default: return false
        }
    }

    /// The level a price has to reach, for display ("trigger level"): the limit-up price for limit rules.
    public func triggerLevel(previousClose: Price?, band: PriceBand?) -> Price? {
        switch self {
        case .priceAtLeast(let p), .priceAtMost(let p): return p
        case .changePercentAtLeast(let pct), .changePercentAtMost(let pct):
            return previousClose.map {
                $0.multiplied(by: .one + (pct.divided(by: 100) ?? .zero), places: 2, rule: .halfUp)
            }
        case .withinOfLimitUp(let amount): return band.map { $0.limitUp - amount }
        case .withinOfLimitDown(let amount): return band.map { $0.limitDown + amount }
        case .withinPercentOfLimitUp(let pct):
            return band.map {
                $0.limitUp.multiplied(by: .one - (pct.divided(by: 100) ?? .zero), places: 2, rule: .halfUp)
            }
        case .withinPercentOfLimitDown(let pct):
            return band.map {
                $0.limitDown.multiplied(by: .one + (pct.divided(by: 100) ?? .zero), places: 2, rule: .halfUp)
            }
        case .touchesLimitUp: return band?.limitUp
        case .crossesAboveMovingAverage, .crossesBelowMovingAverage: return nil
        }
    }
}

/// What a rule does when it fires: one order.
public struct RuleAction: Sendable, Codable, Hashable {
    public enum Pricing: Sendable, Codable, Hashable {
        case market
        case limit(Price)
        /// A limit order at the day's limit-up price (the A-share app's queue purchase).
        case limitUp
    }

    public var side: OrderSide
    public var qty: Quantity?
    public var notional: FixedDecimal?
    public var pricing: Pricing

    public init(side: OrderSide, qty: Quantity? = nil, notional: FixedDecimal? = nil, pricing: Pricing = .market) {
        self.side = side
        self.qty = qty
        self.notional = notional
        self.pricing = pricing
    }

    /// The order request the rule places, or nil (with the reason) if it cannot be priced now.
    public func request(symbol: String, band: PriceBand?, clientOrderID: ClientOrderID) -> Result<
        OrderRequest, OrderRejection
    > {
        var request = OrderRequest(
            symbol: symbol, side: side, type: .market, timeInForce: .day, qty: qty, notional: notional,
            clientOrderID: clientOrderID)
        switch pricing {
        case .market: break
        case .limit(let price):
            request.type = .limit
            request.limitPrice = price
        case .limitUp:
            guard let band else {
                return .failure(
                    OrderRejection(.noQuote, "no price limits known for \(symbol) today; a limit-up order needs them"))
            }
            request.type = .limit
            request.limitPrice = band.limitUp
        }
        return .success(request)
    }
}

/// How long a rule stays queued.
public enum RuleLifetime: Sendable, Codable, Hashable {
    /// Until it fires once (or is canceled).
    case untilTriggered
    /// Until the end of the given trading date.
    case until(CivilDate)
    /// For the session of the given trading date only.
    case session(CivilDate)

    /// Whether the rule is still alive on a trading date.
    public func isAlive(on date: CivilDate) -> Bool {
        switch self {
        case .untilTriggered: return true
        case .until(let last): return date <= last
        case .session(let day): return date == day
        }
    }
}
