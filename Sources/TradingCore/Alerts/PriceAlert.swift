/// A price alert: when its condition holds on a price update of the instrument, the user is notified — nothing is
/// ordered. Conditions, operands and frequencies are TradingView's (see shared/reference/alerts-and-push.md).
public struct PriceAlert: Sendable, Codable, Hashable {
    public var id: AlertID
    public var symbol: String
    public var condition: AlertCondition
    public var frequency: AlertFrequency
    /// The bar "once per bar" and "within N bars" count in.
    public var timeframe: AlertTimeframe
    /// Open-ended when nil.
    public var expiresAt: Timestamp?
    /// The user's own words, added to the notification.
    public var message: String?
    public var createdAt: Timestamp

    public init(
        id: AlertID, symbol: String, condition: AlertCondition, frequency: AlertFrequency = .once,
        timeframe: AlertTimeframe = .day, expiresAt: Timestamp? = nil, message: String? = nil, createdAt: Timestamp
    ) {
        self.id = id
        self.symbol = symbol
        self.condition = condition
        self.frequency = frequency
        self.timeframe = timeframe
        self.expiresAt = expiresAt
        self.message = message
        self.createdAt = createdAt
    }
}

/// What a price is compared with: a fixed value, or the simple moving average of the last N daily closes.
public enum AlertOperand: Sendable, Codable, Hashable {
    case value(Price)
    case movingAverage(bars: Int)
}

/// A span of market time for the "moving" conditions: a duration, or a number of the alert's bars.
public enum AlertWindow: Sendable, Codable, Hashable {
    case seconds(Int64)
    case bars(Int)

    /// The span in nanoseconds for bars of `timeframe` (a day bar counts 24 hours).
    public func nanoseconds(_ timeframe: AlertTimeframe) -> Int64 {
        switch self {
        case .seconds(let s): return s * Duration64.second
        case .bars(let n): return Int64(n) * timeframe.seconds * Duration64.second
        }
    }
}

/// When an alert triggers. Crossings compare the previous price update with this one: crossing up means the
/// previous price was below the level and this one is at or above it (crossing down the mirror image). Channels
/// include their bounds. The moving conditions compare the price with the lowest (highest) price seen within
/// the window: "moving up 2 within 5 minutes" holds when the price is at least 2 above the 5-minute low.
public enum AlertCondition: Sendable, Codable, Hashable {
    case crossing(AlertOperand)
    case crossingUp(AlertOperand)
    case crossingDown(AlertOperand)
    case greaterThan(AlertOperand)
    case lessThan(AlertOperand)
    case enteringChannel(lower: Price, upper: Price)
    case exitingChannel(lower: Price, upper: Price)
    case insideChannel(lower: Price, upper: Price)
    case outsideChannel(lower: Price, upper: Price)
    /// An amount of price.
    case movingUp(FixedDecimal, within: AlertWindow)
    case movingDown(FixedDecimal, within: AlertWindow)
    /// Percent (5 = 5%).
    case movingUpPercent(FixedDecimal, within: AlertWindow)
    case movingDownPercent(FixedDecimal, within: AlertWindow)

    /// The API's name for the condition.
    public var name: String {
        switch self {
        case .crossing: return "crossing"
        case .crossingUp: return "crossing_up"
        case .crossingDown: return "crossing_down"
        case .greaterThan: return "greater_than"
        case .lessThan: return "less_than"
        case .enteringChannel: return "entering_channel"
        case .exitingChannel: return "exiting_channel"
        case .insideChannel: return "inside_channel"
        case .outsideChannel: return "outside_channel"
        case .movingUp: return "moving_up"
        case .movingDown: return "moving_down"
        case .movingUpPercent: return "moving_up_percent"
        case .movingDownPercent: return "moving_down_percent"
        }
    }

    public var operand: AlertOperand? {
        switch self {
        case .crossing(let o), .crossingUp(let o), .crossingDown(let o), .greaterThan(let o), .lessThan(let o):
            return o
        default: return nil
        }
    }

    public var channel: (lower: Price, upper: Price)? {
        switch self {
        case .enteringChannel(let l, let u), .exitingChannel(let l, let u), .insideChannel(let l, let u),
            .outsideChannel(let l, let u):
            return (l, u)
        default: return nil
        }
    }

    /// The amount (or percent) and window of a moving condition.
    public var movement: (amount: FixedDecimal, within: AlertWindow)? {
        switch self {
        case .movingUp(let a, let w), .movingDown(let a, let w), .movingUpPercent(let a, let w),
            .movingDownPercent(let a, let w):
            return (a, w)
        default: return nil
        }
    }

    /// Daily closes the condition needs (a moving-average operand), 0 otherwise.
    public var barsNeeded: Int {
        if case .movingAverage(let n)? = operand { return n }
        return 0
    }

    /// Why the condition cannot be used, or nil when it is sound.
    public var problem: String? {
        switch operand {
        case .value(let v)?: if !v.isPositive { return "value must be positive" }
        case .movingAverage(let n)?: if !(2...250).contains(n) { return "a moving average needs 2 to 250 bars" }
        case nil: break
        }
        if let (lower, upper) = channel {
            if lower.isNegative { return "lower must not be negative" }
            if lower >= upper { return "lower (\(lower)) must be below upper (\(upper))" }
        }
        if let (amount, within) = movement {
            if !amount.isPositive { return "value must be positive" }
            switch within {
            case .seconds(let s): if !(1...(366 * 86_400)).contains(s) { return "within must be 1 second to a year" }
            case .bars(let n): if !(1...1_000).contains(n) { return "within must be 1 to 1000 bars" }
            }
        }
        return nil
    }
}

/// How often an alert may trigger.
public enum AlertFrequency: String, Sendable, Codable, Hashable, CaseIterable {
    /// The first time the condition holds; then the alert is done.
    case once
    /// At most once in each bar of the alert's timeframe.
    case oncePerBar = "once_per_bar"
    /// At most once a minute (60 seconds after the last trigger).
    case oncePerMinute = "once_per_minute"
}

/// The bar length of an alert, in Alpaca's timeframe names.
public enum AlertTimeframe: String, Sendable, Codable, Hashable, CaseIterable {
    case minute = "1Min"
    case fiveMinutes = "5Min"
    case fifteenMinutes = "15Min"
    case thirtyMinutes = "30Min"
    case hour = "1Hour"
    /// The trading day (bars are trading dates in the exchange's time zone).
    case day = "1Day"

    public var seconds: Int64 {
        switch self {
        case .minute: return 60
        case .fiveMinutes: return 300
        case .fifteenMinutes: return 900
        case .thirtyMinutes: return 1_800
        case .hour: return 3_600
        case .day: return 86_400
        }
    }
}
