/// A request to place an order, in Alpaca's terms (POST /v2/orders), already decoded into exact values.
public struct OrderRequest: Sendable, Codable, Hashable {
    public var symbol: String
    public var side: OrderSide
    public var type: OrderType
    public var timeInForce: TimeInForce
    /// Exactly one of `qty` and `notional`.
    public var qty: Quantity?
    /// A cash amount to buy or sell (market day orders only).
    public var notional: FixedDecimal?
    public var limitPrice: Price?
    public var stopPrice: Price?
    public var trailPrice: Price?
    /// Percent, e.g. 1.5 for 1.5%.
    public var trailPercent: FixedDecimal?
    public var extendedHours: Bool
    public var clientOrderID: ClientOrderID?
    public var orderClass: OrderClass
    public var takeProfit: TakeProfit?
    public var stopLoss: StopLoss?
    /// What the client says the order does (Alpaca's `position_intent`). Options orders are refused when it does not
    /// match the position; the engine works out the intent of every order from the position itself.
    public var positionIntent: PositionIntent?
    /// Placed by the house to meet a margin call: the pattern day trader rule does not stop it (a broker's own
    /// liquidation is not the customer's day trade to refuse).
    public var isLiquidation = false
    /// The contracts of a multi-leg order (`orderClass == .mleg`; `symbol` and `side` are then unused).
    public var legs: [OptionLeg]? = nil
    /// The trader's reason for the order (a class's trade journal; required where the game's rules say so).
    public var note: String? = nil
    /// The longest journal note, in characters.
    public static let longestNote = 2_000

    /// One leg of a multi-leg order: a contract, its ratio to the order's units, the side, and optionally the
    /// intent the client states (checked against the position).
    public struct OptionLeg: Sendable, Codable, Hashable {
        public var symbol: String
        public var ratio: Int
        public var side: OrderSide
        public var positionIntent: PositionIntent?

        public init(symbol: String, ratio: Int = 1, side: OrderSide, positionIntent: PositionIntent? = nil) {
            self.symbol = symbol
            self.ratio = ratio
            self.side = side
            self.positionIntent = positionIntent
        }
    }

    /// Everything but `isLiquidation`, which no client sends: only the house sets it.
    enum CodingKeys: String, CodingKey {
        case symbol, side, type, timeInForce, qty, notional, limitPrice, stopPrice, trailPrice, trailPercent
        case extendedHours, clientOrderID, orderClass, takeProfit, stopLoss, positionIntent, legs, note
    }

    public struct TakeProfit: Sendable, Codable, Hashable {
        public var limitPrice: Price
        public init(limitPrice: Price) { self.limitPrice = limitPrice }
    }

    public struct StopLoss: Sendable, Codable, Hashable {
        public var stopPrice: Price
        public var limitPrice: Price?
        public init(stopPrice: Price, limitPrice: Price? = nil) {
            self.stopPrice = stopPrice
            self.limitPrice = limitPrice
        }
    }

    public init(
        symbol: String, side: OrderSide, type: OrderType = .market, timeInForce: TimeInForce = .day,
        qty: Quantity? = nil, notional: FixedDecimal? = nil, limitPrice: Price? = nil,
        stopPrice: Price? = nil, trailPrice: Price? = nil, trailPercent: FixedDecimal? = nil,
        extendedHours: Bool = false, clientOrderID: ClientOrderID? = nil, orderClass: OrderClass = .simple,
        takeProfit: TakeProfit? = nil, stopLoss: StopLoss? = nil, positionIntent: PositionIntent? = nil
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
    }
}

/// PATCH /v2/orders/{id}: the fields to change; nil keeps the old value.
public struct ReplaceRequest: Sendable, Codable, Hashable {
    public var qty: Quantity?
    public var timeInForce: TimeInForce?
    public var limitPrice: Price?
    public var stopPrice: Price?
    /// New trail (price or percent, whichever the order uses).
    public var trail: FixedDecimal?
    public var clientOrderID: ClientOrderID?
    /// IB's modify: `qty` is the order's new total, shares already filled included, and a partly filled order may
    /// be changed — the replacement is for the rest (new total − filled). Off (nil) for Alpaca's replace, which
    /// refuses partly filled orders.
    public var qtyIncludesFills: Bool?

    public init(
        qty: Quantity? = nil, timeInForce: TimeInForce? = nil, limitPrice: Price? = nil,
        stopPrice: Price? = nil, trail: FixedDecimal? = nil, clientOrderID: ClientOrderID? = nil,
        qtyIncludesFills: Bool? = nil
    ) {
        self.qtyIncludesFills = qtyIncludesFills
        self.qty = qty
        self.timeInForce = timeInForce
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.trail = trail
        self.clientOrderID = clientOrderID
    }
}
