/// An order and everything that has happened to it, in the shape of Alpaca's Order object.
///
/// A value with copy-on-write storage: its fields sit in one heap block that copies share until one of them changes.
/// Orders are copied far more often than changed — into every order event, into the engine's reads, into API
/// answers — and a copy of the ~650 bytes of fields (with their reference-counted text and arrays) cost more than
/// the work around it; now a copy is one reference. Changing a field of an order held only once (the engine's table
/// changes its orders in place) copies nothing either.
public struct Order: Sendable, Codable, Hashable, CustomReflectable {
    /// The stored fields, documented on the accessors below. The synthesized `Codable` writes them under
    /// `Order.CodingKeys`, so a field added here without a key does not compile.
    struct Fields: Sendable, Codable, Hashable {
        typealias CodingKeys = Order.CodingKeys
        var id: OrderID
        var clientOrderID: ClientOrderID
        var accountID: AccountID
        var instrument: InstrumentID
        var symbol: String
        var side: OrderSide
        var type: OrderType
        var timeInForce: TimeInForce
        var orderClass: OrderClass
        var qty: Quantity?
        var notional: FixedDecimal?
        var filledQty: Quantity
        var filledValue: FixedDecimal
        var limitPrice: Price?
        var stopPrice: Price?
        var trailPrice: Price?
        var trailPercent: FixedDecimal?
        var hwm: Price?
        var extendedHours: Bool
        var status: OrderStatus
        var createdAt: Timestamp
        var updatedAt: Timestamp
        var submittedAt: Timestamp
        var filledAt: Timestamp?
        var expiredAt: Timestamp?
        var canceledAt: Timestamp?
        var failedAt: Timestamp?
        var replacedAt: Timestamp?
        var expiresAt: Timestamp?
        var replacedBy: OrderID?
        var replaces: OrderID?
        var legs: [OrderID]
        var parentID: OrderID?
        var triggered: Bool
        var fees: FixedDecimal
        var reason: String?
        var eligibleAt: Timestamp
        var reservedCash: FixedDecimal
        var reservedShares: Quantity
        var positionIntent: PositionIntent? = nil
        var note: String? = nil
    }

    private var storage: CopyOnWrite<Fields>

    init(_ fields: Fields) { storage = CopyOnWrite(fields) }

    public var id: OrderID {
        get { storage.fields.id }
        _modify { yield &storage.fields.id }
    }
    public var clientOrderID: ClientOrderID {
        get { storage.fields.clientOrderID }
        _modify { yield &storage.fields.clientOrderID }
    }
    public var accountID: AccountID {
        get { storage.fields.accountID }
        _modify { yield &storage.fields.accountID }
    }
    public var instrument: InstrumentID {
        get { storage.fields.instrument }
        _modify { yield &storage.fields.instrument }
    }
    public var symbol: String {
        get { storage.fields.symbol }
        _modify { yield &storage.fields.symbol }
    }
    public var side: OrderSide {
        get { storage.fields.side }
        _modify { yield &storage.fields.side }
    }
    public var type: OrderType {
        get { storage.fields.type }
        _modify { yield &storage.fields.type }
    }
    public var timeInForce: TimeInForce {
        get { storage.fields.timeInForce }
        _modify { yield &storage.fields.timeInForce }
    }
    public var orderClass: OrderClass {
        get { storage.fields.orderClass }
        _modify { yield &storage.fields.orderClass }
    }
    public var qty: Quantity? {
        get { storage.fields.qty }
        _modify { yield &storage.fields.qty }
    }
    public var notional: FixedDecimal? {
        get { storage.fields.notional }
        _modify { yield &storage.fields.notional }
    }
    public var filledQty: Quantity {
        get { storage.fields.filledQty }
        _modify { yield &storage.fields.filledQty }
    }
    /// Σ price × qty of the fills, exact (9 places): the average price derives from it.
    public var filledValue: FixedDecimal {
        get { storage.fields.filledValue }
        _modify { yield &storage.fields.filledValue }
    }
    public var limitPrice: Price? {
        get { storage.fields.limitPrice }
        _modify { yield &storage.fields.limitPrice }
    }
    /// The stop price; for a trailing stop it moves with the high-water mark.
    public var stopPrice: Price? {
        get { storage.fields.stopPrice }
        _modify { yield &storage.fields.stopPrice }
    }
    public var trailPrice: Price? {
        get { storage.fields.trailPrice }
        _modify { yield &storage.fields.trailPrice }
    }
    public var trailPercent: FixedDecimal? {
        get { storage.fields.trailPercent }
        _modify { yield &storage.fields.trailPercent }
    }
    /// High-water mark of a trailing sell stop (low-water mark of a trailing buy stop).
    public var hwm: Price? {
        get { storage.fields.hwm }
        _modify { yield &storage.fields.hwm }
    }
    public var extendedHours: Bool {
        get { storage.fields.extendedHours }
        _modify { yield &storage.fields.extendedHours }
    }
    public var status: OrderStatus {
        get { storage.fields.status }
        _modify { yield &storage.fields.status }
    }
    public var createdAt: Timestamp {
        get { storage.fields.createdAt }
        _modify { yield &storage.fields.createdAt }
    }
    public var updatedAt: Timestamp {
        get { storage.fields.updatedAt }
        _modify { yield &storage.fields.updatedAt }
    }
    public var submittedAt: Timestamp {
        get { storage.fields.submittedAt }
        _modify { yield &storage.fields.submittedAt }
    }
    public var filledAt: Timestamp? {
        get { storage.fields.filledAt }
        _modify { yield &storage.fields.filledAt }
    }
    public var expiredAt: Timestamp? {
        get { storage.fields.expiredAt }
        _modify { yield &storage.fields.expiredAt }
    }
    public var canceledAt: Timestamp? {
        get { storage.fields.canceledAt }
        _modify { yield &storage.fields.canceledAt }
    }
    public var failedAt: Timestamp? {
        get { storage.fields.failedAt }
        _modify { yield &storage.fields.failedAt }
    }
    public var replacedAt: Timestamp? {
        get { storage.fields.replacedAt }
        _modify { yield &storage.fields.replacedAt }
    }
    /// When a day/gtc order expires if still open.
    public var expiresAt: Timestamp? {
        get { storage.fields.expiresAt }
        _modify { yield &storage.fields.expiresAt }
    }
    public var replacedBy: OrderID? {
        get { storage.fields.replacedBy }
        _modify { yield &storage.fields.replacedBy }
    }
    public var replaces: OrderID? {
        get { storage.fields.replaces }
        _modify { yield &storage.fields.replaces }
    }
    /// Exit legs of a bracket/oco/oto parent.
    public var legs: [OrderID] {
        get { storage.fields.legs }
        _modify { yield &storage.fields.legs }
    }
    public var parentID: OrderID? {
        get { storage.fields.parentID }
        _modify { yield &storage.fields.parentID }
    }
    /// A stop (or stop-limit, trailing stop) whose trigger has fired: it now works as market (or limit).
    public var triggered: Bool {
        get { storage.fields.triggered }
        _modify { yield &storage.fields.triggered }
    }
    /// Fees charged so far.
    public var fees: FixedDecimal {
        get { storage.fields.fees }
        _modify { yield &storage.fields.fees }
    }
    /// Why the order was rejected or canceled by the system (insufficient funds at fill, …).
    public var reason: String? {
        get { storage.fields.reason }
        _modify { yield &storage.fields.reason }
    }
    /// The order may not fill before this time (configured fill latency).
    public var eligibleAt: Timestamp {
        get { storage.fields.eligibleAt }
        _modify { yield &storage.fields.eligibleAt }
    }
    /// Cash this order holds back from buying power (buys: cost and fees of what remains; sells: the fee
    /// cushion).
    public internal(set) var reservedCash: FixedDecimal {
        get { storage.fields.reservedCash }
        _modify { yield &storage.fields.reservedCash }
    }
    /// Shares this sell order holds back (the legs of an exit pair share one reservation).
    public internal(set) var reservedShares: Quantity {
        get { storage.fields.reservedShares }
        _modify { yield &storage.fields.reservedShares }
    }
    /// Opens or closes a long or a short (set at placement; orders stored before short selling existed have none
    /// and were all long-only: buys to open, sells to close).
    public var positionIntent: PositionIntent? {
        get { storage.fields.positionIntent }
        _modify { yield &storage.fields.positionIntent }
    }

    /// Why the trader placed it, in their words (a class's trade journal): set at placement, carried to a
    /// replacement, never changed after.
    public var note: String? {
        get { storage.fields.note }
        _modify { yield &storage.fields.note }
    }

    public static func == (lhs: Order, rhs: Order) -> Bool {
        lhs.storage.shares(rhs.storage) || lhs.storage.fields == rhs.storage.fields
    }
    public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }
    public init(from decoder: any Decoder) throws { self.init(try Fields(from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }
    /// Prints (in test failures, the debugger) as its fields.
    public var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: storage.fields).children, displayStyle: .struct)
    }

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
        case positionIntent, note
    }
    public typealias Field = CodingKeys
}
