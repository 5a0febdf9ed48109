/// An order and everything that has happened to it, in the shape of Alpaca's Order object.
public struct Order: Sendable, Codable, Hashable {
    public var id: OrderID
    public var clientOrderID: ClientOrderID
    public var accountID: AccountID
    public var instrument: InstrumentID
    public var symbol: String
    public var side: OrderSide
    public var type: OrderType
    public var timeInForce: TimeInForce
    public var orderClass: OrderClass
    public var qty: Quantity?
    public var notional: FixedDecimal?
    public var filledQty: Quantity
    /// Σ price × qty of the fills, exact (9 places): the average price derives from it.
    public var filledValue: FixedDecimal
    public var limitPrice: Price?
    /// The stop price; for a trailing stop it moves with the high-water mark.
    public var stopPrice: Price?
    public var trailPrice: Price?
    public var trailPercent: FixedDecimal?
    /// High-water mark of a trailing sell stop (low-water mark of a trailing buy stop).
    public var hwm: Price?
    public var extendedHours: Bool
    public var status: OrderStatus
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    public var submittedAt: Timestamp
    public var filledAt: Timestamp?
    public var expiredAt: Timestamp?
    public var canceledAt: Timestamp?
    public var failedAt: Timestamp?
    public var replacedAt: Timestamp?
    /// When a day/gtc order expires if still open.
    public var expiresAt: Timestamp?
    public var replacedBy: OrderID?
    public var replaces: OrderID?
    /// Exit legs of a bracket/oco/oto parent.
    public var legs: [OrderID]
    public var parentID: OrderID?
    /// A stop (or stop-limit, trailing stop) whose trigger has fired: it now works as market (or limit).
    public var triggered: Bool
    /// Fees charged so far.
    public var fees: FixedDecimal
    /// Why the order was rejected or canceled by the system (insufficient funds at fill, …).
    public var reason: String?
    /// The order may not fill before this time (configured fill latency).
    public var eligibleAt: Timestamp
    /// Cash this order holds back from buying power (buys: cost and fees of what remains; sells: the fee
    /// cushion).
    public internal(set) var reservedCash: FixedDecimal
    /// Shares this sell order holds back (the legs of an exit pair share one reservation).
    public internal(set) var reservedShares: Quantity
    /// Opens or closes a long or a short (set at placement; orders stored before short selling existed have none
    /// and were all long-only: buys to open, sells to close).
    public var positionIntent: PositionIntent? = nil

    /// The remaining quantity, for qty orders. Notional orders size at fill time.
    public var leavesQty: Quantity? { qty.map { $0 - filledQty } }

    /// Average fill price, rounded half-even to 9 places; nil before the first fill.
    public var filledAvgPrice: Price? {
        filledQty.isPositive ? filledValue.divided(by: filledQty, places: FixedDecimal.scale, rule: .halfEven) : nil
    }

    /// The order's intent, for orders stored before intents were recorded too (long-only then).
    public var intent: PositionIntent { positionIntent ?? (side == .buy ? .buyToOpen : .sellToClose) }

    /// Whether the order is an exit leg still waiting for its entry to fill.
    public var isHeldLeg: Bool { status == .held }

    /// The price the order is willing to trade at once its trigger (if any) has fired: nil = market.
    var workingLimit: Price? {
        switch type {
        case .market, .stop, .trailingStop: return nil
        case .limit, .stopLimit: return limitPrice
        }
    }

    var needsTrigger: Bool { (type == .stop || type == .stopLimit || type == .trailingStop) && !triggered }
}

extension Order {
    /// The order's fields in declaration order: the one description its stored form and its API forms are made
    /// from. They are the synthesized `Codable`'s keys, so a stored property added to `Order` without a case here
    /// does not compile (the decoder could not fill it), and a case added here makes the compiler ask each writer
    /// what to do with it (`value(of:)`; the Alpaca encoding's names).
    public enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
        case id, clientOrderID, accountID, instrument, symbol, side, type, timeInForce, orderClass, qty, notional
        case filledQty, filledValue, limitPrice, stopPrice, trailPrice, trailPercent, hwm, extendedHours, status
        case createdAt, updatedAt, submittedAt, filledAt, expiredAt, canceledAt, failedAt, replacedAt, expiresAt
        case replacedBy, replaces, legs, parentID, triggered, fees, reason, eligibleAt, reservedCash, reservedShares
        case positionIntent
    }
    public typealias Field = CodingKeys
}
