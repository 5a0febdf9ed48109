import Foundation

/// A price alert: a notification when a condition on a symbol's price holds (nothing is ordered).
///
/// Conditions: `crossing`, `crossing_up`, `crossing_down`, `greater_than`, `less_than` (against `value` or a
/// `movingAverage` of daily closes); `entering_channel`, `exiting_channel`, `inside_channel`, `outside_channel`
/// (`lower`, `upper`); `moving_up`, `moving_down` (an amount), `moving_up_percent`, `moving_down_percent` (percent),
/// each `within` a number of bars ("5") or a duration ("90s", "15m", "2h", "1d").
public struct Alert: Codable, Hashable, Sendable, Identifiable {
    public var id: String
    public var symbol: String
    public var name: String?
    public var condition: String
    @OptionalExactDecimal public var value: Decimal?
    public var movingAverage: Int?
    @OptionalExactDecimal public var lower: Decimal?
    @OptionalExactDecimal public var upper: Decimal?
    public var within: Within?
    /// `once`, `once_per_bar` or `once_per_minute`.
    public var frequency: String
    public var timeframe: String
    @OptionalServerTime public var expiresAt: Date?
    public var message: String?
    /// `active`, `triggered`, `expired` or `canceled`.
    public var status: String
    @ServerTime public var createdAt: Date
    @ServerTime public var updatedAt: Date
    @OptionalServerTime public var lastTriggeredAt: Date?
    @OptionalExactDecimal public var lastTriggeredPrice: Decimal?
    public var triggerCount: Int
    /// The price now and the level it is compared with.
    @OptionalExactDecimal public var price: Decimal?
    @OptionalExactDecimal public var level: Decimal?
    public var currency: String?

    /// A movement's window: bars (a number) or a duration ("90s").
    public enum Within: Codable, Hashable, Sendable {
        case bars(Int)
        case duration(String)

        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let n = try? c.decode(Int.self) { self = .bars(n) } else { self = .duration(try c.decode(String.self)) }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .bars(let n): try c.encode(n)
            case .duration(let text): try c.encode(text)
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, symbol, name, condition, value, lower, upper, within, frequency, timeframe, message, status, price
        case level, currency
        case movingAverage = "moving_average", expiresAt = "expires_at", createdAt = "created_at"
        case updatedAt = "updated_at", lastTriggeredAt = "last_triggered_at"
        case lastTriggeredPrice = "last_triggered_price", triggerCount = "trigger_count"
    }
}

/// A new alert (``PapertradeClient/createAlert(_:)``).
public struct AlertRequest: Encodable, Hashable, Sendable {
    public var symbol: String
    public var condition: String
    public var value: Decimal?
    public var movingAverage: Int?
    public var lower: Decimal?
    public var upper: Decimal?
    public var within: Alert.Within?
    public var frequency: String?
    public var timeframe: String?
    public var expiresAt: Date?
    public var message: String?

    public init(
        symbol: String, condition: String, value: Decimal? = nil, movingAverage: Int? = nil, lower: Decimal? = nil,
        upper: Decimal? = nil, within: Alert.Within? = nil, frequency: String? = nil, timeframe: String? = nil,
        expiresAt: Date? = nil, message: String? = nil
    ) {
        self.symbol = symbol
        self.condition = condition
        self.value = value
        self.movingAverage = movingAverage
        self.lower = lower
        self.upper = upper
        self.within = within
        self.frequency = frequency
        self.timeframe = timeframe
        self.expiresAt = expiresAt
        self.message = message
    }

    /// A price alert: the price rises above (or falls below) `price`.
    public static func price(_ symbol: String, above price: Decimal) -> AlertRequest {
        AlertRequest(symbol: symbol, condition: "greater_than", value: price)
    }

    public static func price(_ symbol: String, below price: Decimal) -> AlertRequest {
        AlertRequest(symbol: symbol, condition: "less_than", value: price)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Alert.CodingKeys.self)
        try c.encode(symbol, forKey: .symbol)
        try c.encode(condition, forKey: .condition)
        for (value, key) in [(value, Alert.CodingKeys.value), (lower, .lower), (upper, .upper)] {
            if let value { try c.encode(ExactDecimal.text(value), forKey: key) }
        }
        try c.encodeIfPresent(movingAverage, forKey: .movingAverage)
        try c.encodeIfPresent(within, forKey: .within)
        try c.encodeIfPresent(frequency, forKey: .frequency)
        try c.encodeIfPresent(timeframe, forKey: .timeframe)
        if let expiresAt { try c.encode(ServerTime.text(expiresAt), forKey: .expiresAt) }
        try c.encodeIfPresent(message, forKey: .message)
    }
}

/// A queued order rule ("queue purchase"): an order placed automatically when a price condition holds — near
/// limit-up, at a price, after a change, on a moving-average cross.
public struct QueueRule: Codable, Hashable, Sendable, Identifiable {
    /// The trigger: `type` (`price_at_least`, `price_at_most`, `change_percent_at_least`, `change_percent_at_most`,
    /// `within_of_limit_up`, `within_percent_of_limit_up`, `within_of_limit_down`, `within_percent_of_limit_down`,
    /// `touches_limit_up`, `crosses_above_moving_average`, `crosses_below_moving_average`) and its value.
    public struct Condition: Codable, Hashable, Sendable {
        public var type: String
        public var value: ConditionValue?

        public init(type: String, value: ConditionValue? = nil) {
            self.type = type
            self.value = value
        }

        public static func priceAtMost(_ price: Decimal) -> Condition {
            .init(type: "price_at_most", value: .amount(price))
        }
        public static func priceAtLeast(_ price: Decimal) -> Condition {
            .init(type: "price_at_least", value: .amount(price))
        }
        /// Within `percent` percent of the day's limit-up price (A-shares).
        public static func nearLimitUp(percent: Decimal) -> Condition {
            .init(type: "within_percent_of_limit_up", value: .amount(percent))
        }
        public static let touchesLimitUp = Condition(type: "touches_limit_up")
    }

    /// An amount ("100", "1.5") or a number of bars (20).
    public enum ConditionValue: Codable, Hashable, Sendable {
        case amount(Decimal)
        case bars(Int)

        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let n = try? c.decode(Int.self) {
                self = .bars(n)
            } else {
                self = .amount(try ExactDecimal.decode(from: c, decoder: decoder))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .amount(let value): try c.encode(ExactDecimal.text(value))
            case .bars(let n): try c.encode(n)
            }
        }
    }

    /// How long the rule waits: `until_triggered`, `until` a date, or one `session`.
    public struct Lifetime: Codable, Hashable, Sendable {
        public var type: String
        public var date: String?

        public init(type: String, date: String? = nil) {
            self.type = type
            self.date = date
        }
    }

    public var id: String
    public var accountID: String
    public var symbol: String
    public var name: String?
    public var side: OrderSide
    @OptionalExactDecimal public var qty: Decimal?
    @OptionalExactDecimal public var notional: Decimal?
    public var currency: String?
    public var condition: Condition
    /// `market`, `limit` or `limit_up`.
    public var orderType: String
    @OptionalExactDecimal public var limitPrice: Decimal?
    public var lifetime: Lifetime
    /// `queued`, `fired`, `failed`, `expired` or `canceled`.
    public var status: String
    /// The price now and the level the condition waits for.
    @OptionalExactDecimal public var price: Decimal?
    @OptionalExactDecimal public var triggerLevel: Decimal?
    @OptionalExactDecimal public var firedPrice: Decimal?
    public var orderID: String?
    public var message: String?
    @ServerTime public var createdAt: Date
    @ServerTime public var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, symbol, name, side, qty, notional, currency, condition, lifetime, status, price, message
        case accountID = "account_id", orderType = "order_type", limitPrice = "limit_price"
        case triggerLevel = "trigger_level", firedPrice = "fired_price", orderID = "order_id"
        case createdAt = "created_at", updatedAt = "updated_at"
    }
}

/// A new queued rule (``PapertradeClient/addQueueRule(_:account:)``).
public struct QueueRuleRequest: Encodable, Hashable, Sendable {
    public var symbol: String
    public var side: OrderSide
    public var qty: Decimal?
    public var notional: Decimal?
    public var condition: QueueRule.Condition
    public var orderType: String
    public var limitPrice: Decimal?
    public var lifetime: QueueRule.Lifetime?

    public init(
        symbol: String, side: OrderSide = .buy, qty: Decimal? = nil, notional: Decimal? = nil,
        condition: QueueRule.Condition, orderType: String = "market", limitPrice: Decimal? = nil,
        lifetime: QueueRule.Lifetime? = nil
    ) {
        self.symbol = symbol
        self.side = side
        self.qty = qty
        self.notional = notional
        self.condition = condition
        self.orderType = orderType
        self.limitPrice = limitPrice
        self.lifetime = lifetime
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: QueueRule.CodingKeys.self)
        try c.encode(symbol, forKey: .symbol)
        try c.encode(side, forKey: .side)
        for (value, key) in [(qty, QueueRule.CodingKeys.qty), (notional, .notional), (limitPrice, .limitPrice)] {
            if let value { try c.encode(ExactDecimal.text(value), forKey: key) }
        }
        try c.encode(condition, forKey: .condition)
        try c.encode(orderType, forKey: .orderType)
        try c.encodeIfPresent(lifetime, forKey: .lifetime)
    }
}

/// Something that happened to the user: a fill, a triggered alert or rule, a margin call, a game's end….
/// `title` and `body` are in the user's language.
public struct AppNotification: Codable, Hashable, Sendable, Identifiable {
    public var id: String
    public var kind: String
    public var title: String
    public var body: String
    public var accountID: String?
    @ServerTime public var createdAt: Date
    public var read: Bool

    enum CodingKeys: String, CodingKey {
        case id, kind, title, body, read
        case accountID = "account_id", createdAt = "created_at"
    }
}

/// The newest notifications and how many are unread.
public struct NotificationList: Codable, Hashable, Sendable {
    public var unread: Int
    public var notifications: [AppNotification]
}
