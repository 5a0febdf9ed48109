import Foundation

public struct OrderSide: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let buy: OrderSide = "buy"
    public static let sell: OrderSide = "sell"
}

public struct OrderType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let market: OrderType = "market"
    public static let limit: OrderType = "limit"
    public static let stop: OrderType = "stop"
    public static let stopLimit: OrderType = "stop_limit"
    public static let trailingStop: OrderType = "trailing_stop"
}

public struct TimeInForce: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let day: TimeInForce = "day"
    public static let gtc: TimeInForce = "gtc"
    public static let ioc: TimeInForce = "ioc"
    public static let fok: TimeInForce = "fok"
    public static let opg: TimeInForce = "opg"
    public static let cls: TimeInForce = "cls"
}

public struct OrderStatus: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let new: OrderStatus = "new"
    public static let accepted: OrderStatus = "accepted"
    public static let pendingNew: OrderStatus = "pending_new"
    public static let partiallyFilled: OrderStatus = "partially_filled"
    public static let filled: OrderStatus = "filled"
    public static let canceled: OrderStatus = "canceled"
    public static let expired: OrderStatus = "expired"
    public static let rejected: OrderStatus = "rejected"
    public static let replaced: OrderStatus = "replaced"
    public static let held: OrderStatus = "held"

    /// Still working: it may yet fill or be canceled.
    public var isOpen: Bool {
        [
            .new, .accepted, .pendingNew, .partiallyFilled, .held, "accepted_for_bidding", "pending_cancel",
            "pending_replace",
        ].contains(self)
    }
}

/// An order as the engine keeps it: what was asked, what happened, and why when it was refused. Bracket and OCO
/// children are in `legs`.
public struct Order: Codable, Hashable, Sendable, Identifiable {
    public var id: String
    public var clientOrderID: String
    public var accountID: String
    public var symbol: String
    public var side: OrderSide
    public var type: OrderType
    public var timeInForce: TimeInForce
    /// "" (simple), `bracket`, `oco` or `oto`.
    public var orderClass: String
    public var positionIntent: String?
    public var extendedHours: Bool
    @OptionalExactDecimal public var qty: Decimal?
    @OptionalExactDecimal public var notional: Decimal?
    @OptionalExactDecimal public var limitPrice: Decimal?
    @OptionalExactDecimal public var stopPrice: Decimal?
    @OptionalExactDecimal public var trailPrice: Decimal?
    @OptionalExactDecimal public var trailPercent: Decimal?
    /// A trailing stop's high-water mark (low for a buy).
    @OptionalExactDecimal public var hwm: Decimal?
    public var status: OrderStatus
    @ExactDecimal public var filledQty: Decimal
    @OptionalExactDecimal public var filledAvgPrice: Decimal?
    @ExactDecimal public var fees: Decimal
    /// Why the engine refused or canceled it, in the account owner's language.
    public var rejectReason: String?
    @ServerTime public var createdAt: Date
    @ServerTime public var updatedAt: Date
    @OptionalServerTime public var submittedAt: Date?
    @OptionalServerTime public var filledAt: Date?
    @OptionalServerTime public var expiredAt: Date?
    @OptionalServerTime public var canceledAt: Date?
    @OptionalServerTime public var failedAt: Date?
    @OptionalServerTime public var replacedAt: Date?
    @OptionalServerTime public var expiresAt: Date?
    public var replacedBy: String?
    public var replaces: String?
    public var legs: [Order]?
    /// The trader's journal note (a class may require one on every order); never changed once placed.
    public var note: String?

    enum CodingKeys: String, CodingKey {
        case id, symbol, side, type, qty, notional, hwm, status, fees, replaces, legs, note
        case clientOrderID = "client_order_id", accountID = "account_id", timeInForce = "time_in_force"
        case orderClass = "order_class", positionIntent = "position_intent", extendedHours = "extended_hours"
        case limitPrice = "limit_price", stopPrice = "stop_price", trailPrice = "trail_price"
        case trailPercent = "trail_percent", filledQty = "filled_qty", filledAvgPrice = "filled_avg_price"
        case rejectReason = "reject_reason", createdAt = "created_at", updatedAt = "updated_at"
        case submittedAt = "submitted_at", filledAt = "filled_at", expiredAt = "expired_at", canceledAt = "canceled_at"
        case failedAt = "failed_at", replacedAt = "replaced_at", expiresAt = "expires_at", replacedBy = "replaced_by"
    }
}

/// What to trade: every order type the engine takes — market, limit, stop, stop-limit and trailing stop, by
/// shares or (market orders) by amount of money, with brackets. The static builders cover the common cases.
public struct OrderRequest: Codable, Hashable, Sendable {
    /// A bracket's exit: a take-profit limit, or a stop-loss stop (with an optional limit).
    public struct Exit: Codable, Hashable, Sendable {
        @OptionalExactDecimal public var limitPrice: Decimal?
        @OptionalExactDecimal public var stopPrice: Decimal?

        public init(limitPrice: Decimal? = nil, stopPrice: Decimal? = nil) {
            self.limitPrice = limitPrice
            self.stopPrice = stopPrice
        }

        enum CodingKeys: String, CodingKey {
            case limitPrice = "limit_price", stopPrice = "stop_price"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            if let limitPrice { try c.encode(ExactDecimal.text(limitPrice), forKey: .limitPrice) }
            if let stopPrice { try c.encode(ExactDecimal.text(stopPrice), forKey: .stopPrice) }
        }
    }

    public var symbol: String
    public var side: OrderSide
    public var type: OrderType
    public var timeInForce: TimeInForce
    @OptionalExactDecimal public var qty: Decimal?
    @OptionalExactDecimal public var notional: Decimal?
    @OptionalExactDecimal public var limitPrice: Decimal?
    @OptionalExactDecimal public var stopPrice: Decimal?
    @OptionalExactDecimal public var trailPrice: Decimal?
    /// In percent (5 = 5%).
    @OptionalExactDecimal public var trailPercent: Decimal?
    public var extendedHours: Bool?
    public var clientOrderID: String?
    public var orderClass: String?
    public var takeProfit: Exit?
    public var stopLoss: Exit?
    /// For options: `buy_to_open`, `sell_to_close`….
    public var positionIntent: String?
    /// A journal note kept with the order (up to 2,000 characters; a class may require one).
    public var note: String?

    public init(
        symbol: String, side: OrderSide, type: OrderType = .market, timeInForce: TimeInForce = .day,
        qty: Decimal? = nil, notional: Decimal? = nil, limitPrice: Decimal? = nil, stopPrice: Decimal? = nil,
        trailPrice: Decimal? = nil, trailPercent: Decimal? = nil, extendedHours: Bool? = nil,
        clientOrderID: String? = nil, orderClass: String? = nil, takeProfit: Exit? = nil, stopLoss: Exit? = nil,
        positionIntent: String? = nil, note: String? = nil
    ) {
        self.symbol = symbol
        self.side = side
        self.type = type
        self.timeInForce = timeInForce
        self.qty = qty
        self.notional = notional
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.trailPrice = trailPrice
        self.trailPercent = trailPercent
        self.extendedHours = extendedHours
        self.clientOrderID = clientOrderID
        self.orderClass = orderClass
        self.takeProfit = takeProfit
        self.stopLoss = stopLoss
        self.positionIntent = positionIntent
        self.note = note
    }

    public static func market(_ symbol: String, _ side: OrderSide, qty: Decimal, timeInForce: TimeInForce = .day)
        -> OrderRequest
    {
        OrderRequest(symbol: symbol, side: side, type: .market, timeInForce: timeInForce, qty: qty)
    }

    /// A market order for an amount of money (fractional shares, or a crypto pair's coins: give `.gtc` or `.ioc`).
    public static func market(
        _ symbol: String, _ side: OrderSide, notional: Decimal, timeInForce: TimeInForce = .day
    ) -> OrderRequest {
        OrderRequest(symbol: symbol, side: side, type: .market, timeInForce: timeInForce, notional: notional)
    }

    public static func limit(
        _ symbol: String, _ side: OrderSide, qty: Decimal, limitPrice: Decimal, timeInForce: TimeInForce = .day
    ) -> OrderRequest {
        OrderRequest(
            symbol: symbol, side: side, type: .limit, timeInForce: timeInForce, qty: qty, limitPrice: limitPrice)
    }

    public static func stop(
        _ symbol: String, _ side: OrderSide, qty: Decimal, stopPrice: Decimal, limitPrice: Decimal? = nil,
        timeInForce: TimeInForce = .day
    ) -> OrderRequest {
        OrderRequest(
            symbol: symbol, side: side, type: limitPrice == nil ? .stop : .stopLimit, timeInForce: timeInForce,
            qty: qty, limitPrice: limitPrice, stopPrice: stopPrice)
    }

    /// A trailing stop `trailPercent` percent (5 = 5%) behind the best price since it was placed.
    public static func trailingStop(
        _ symbol: String, _ side: OrderSide, qty: Decimal, trailPercent: Decimal, timeInForce: TimeInForce = .day
    ) -> OrderRequest {
        OrderRequest(
            symbol: symbol, side: side, type: .trailingStop, timeInForce: timeInForce, qty: qty,
            trailPercent: trailPercent)
    }

    /// A limit entry with a take-profit limit and a stop-loss stop attached.
    public static func bracket(
        _ symbol: String, _ side: OrderSide, qty: Decimal, limitPrice: Decimal?, takeProfit: Decimal,
        stopLoss: Decimal, timeInForce: TimeInForce = .gtc
    ) -> OrderRequest {
        OrderRequest(
            symbol: symbol, side: side, type: limitPrice == nil ? .market : .limit, timeInForce: timeInForce, qty: qty,
            limitPrice: limitPrice, orderClass: "bracket", takeProfit: Exit(limitPrice: takeProfit),
            stopLoss: Exit(stopPrice: stopLoss))
    }

    enum CodingKeys: String, CodingKey {
        case symbol, side, type, qty, notional
        case timeInForce = "time_in_force", limitPrice = "limit_price", stopPrice = "stop_price"
        case trailPrice = "trail_price", trailPercent = "trail_percent", extendedHours = "extended_hours"
        case clientOrderID = "client_order_id", orderClass = "order_class", takeProfit = "take_profit"
        case stopLoss = "stop_loss", positionIntent = "position_intent", note
    }

    /// Leaves out what is not set (the server treats a null price as a wrong value).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(symbol, forKey: .symbol)
        try c.encode(side, forKey: .side)
        try c.encode(type, forKey: .type)
        try c.encode(timeInForce, forKey: .timeInForce)
        for (value, key) in [
            (qty, CodingKeys.qty), (notional, .notional), (limitPrice, .limitPrice), (stopPrice, .stopPrice),
            (trailPrice, .trailPrice), (trailPercent, .trailPercent),
        ] {
            if let value { try c.encode(ExactDecimal.text(value), forKey: key) }
        }
        try c.encodeIfPresent(extendedHours, forKey: .extendedHours)
        try c.encodeIfPresent(clientOrderID, forKey: .clientOrderID)
        try c.encodeIfPresent(orderClass, forKey: .orderClass)
        try c.encodeIfPresent(takeProfit, forKey: .takeProfit)
        try c.encodeIfPresent(stopLoss, forKey: .stopLoss)
        try c.encodeIfPresent(positionIntent, forKey: .positionIntent)
        try c.encodeIfPresent(note, forKey: .note)
    }
}

/// An order's life event as the stream reports it: `new`, `fill`, `partial_fill`, `canceled`, `expired`,
/// `rejected`, `replaced`….
public struct OrderUpdate: Codable, Hashable, Sendable {
    public var event: String
    public var accountID: String
    public var order: Order

    enum CodingKeys: String, CodingKey {
        case event, order
        case accountID = "account_id"
    }
}
