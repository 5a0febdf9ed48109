/// An order and everything that has happened to it, in the shape of Alpaca's Order object.
///
/// A value with copy-on-write storage: its fields sit in one heap block that copies share until one of them changes.
/// Orders are copied far more often than changed — into every order event, into the engine's reads, into API
/// answers — and a copy of the ~650 bytes of fields (with their reference-counted text and arrays) cost more than
/// the work around it; now a copy is one reference. Changing a field of an order held only once (the engine's table
/// changes its orders in place) copies nothing either.
// Sendable: `Fields` is (checked); the block holding them is changed only while uniquely referenced.
public struct Order: @unchecked Sendable, Codable, Hashable, CustomReflectable {
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
    }

    /// The block (its header addressed in place: no exclusivity check per access, unlike a class property).
    final class Storage: ManagedBuffer<Fields, Void> {
        static func make(_ fields: Fields) -> Storage {
            unsafeDowncast(Storage.create(minimumCapacity: 0) { _ in fields }, to: Storage.self)
        }
    }

    private var storage: Storage

    init(_ fields: Fields) { storage = Storage.make(fields) }

    /// The fields where they are. Read through a pointer rather than the buffer's `header`: that is a class's stored
    /// property, and every read and change of one is checked for exclusive access at run time (~7% of a backtest's
    /// time when the order's accessors used it).
    private var fields: UnsafeMutablePointer<Fields> { storage.withUnsafeMutablePointerToHeader { $0 } }

    /// The fields, for changing: the block is copied first if another order shares it.
    private var unique: Fields {
        get { fields.pointee }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage.make(fields.pointee) }
            yield &fields.pointee
        }
    }

    public var id: OrderID {
        get { fields.pointee.id }
        _modify { yield &unique.id }
    }
    public var clientOrderID: ClientOrderID {
        get { fields.pointee.clientOrderID }
        _modify { yield &unique.clientOrderID }
    }
    public var accountID: AccountID {
        get { fields.pointee.accountID }
        _modify { yield &unique.accountID }
    }
    public var instrument: InstrumentID {
        get { fields.pointee.instrument }
        _modify { yield &unique.instrument }
    }
    public var symbol: String {
        get { fields.pointee.symbol }
        _modify { yield &unique.symbol }
    }
    public var side: OrderSide {
        get { fields.pointee.side }
        _modify { yield &unique.side }
    }
    public var type: OrderType {
        get { fields.pointee.type }
        _modify { yield &unique.type }
    }
    public var timeInForce: TimeInForce {
        get { fields.pointee.timeInForce }
        _modify { yield &unique.timeInForce }
    }
    public var orderClass: OrderClass {
        get { fields.pointee.orderClass }
        _modify { yield &unique.orderClass }
    }
    public var qty: Quantity? {
        get { fields.pointee.qty }
        _modify { yield &unique.qty }
    }
    public var notional: FixedDecimal? {
        get { fields.pointee.notional }
        _modify { yield &unique.notional }
    }
    public var filledQty: Quantity {
        get { fields.pointee.filledQty }
        _modify { yield &unique.filledQty }
    }
    /// Σ price × qty of the fills, exact (9 places): the average price derives from it.
    public var filledValue: FixedDecimal {
        get { fields.pointee.filledValue }
        _modify { yield &unique.filledValue }
    }
    public var limitPrice: Price? {
        get { fields.pointee.limitPrice }
        _modify { yield &unique.limitPrice }
    }
    /// The stop price; for a trailing stop it moves with the high-water mark.
    public var stopPrice: Price? {
        get { fields.pointee.stopPrice }
        _modify { yield &unique.stopPrice }
    }
    public var trailPrice: Price? {
        get { fields.pointee.trailPrice }
        _modify { yield &unique.trailPrice }
    }
    public var trailPercent: FixedDecimal? {
        get { fields.pointee.trailPercent }
        _modify { yield &unique.trailPercent }
    }
    /// High-water mark of a trailing sell stop (low-water mark of a trailing buy stop).
    public var hwm: Price? {
        get { fields.pointee.hwm }
        _modify { yield &unique.hwm }
    }
    public var extendedHours: Bool {
        get { fields.pointee.extendedHours }
        _modify { yield &unique.extendedHours }
    }
    public var status: OrderStatus {
        get { fields.pointee.status }
        _modify { yield &unique.status }
    }
    public var createdAt: Timestamp {
        get { fields.pointee.createdAt }
        _modify { yield &unique.createdAt }
    }
    public var updatedAt: Timestamp {
        get { fields.pointee.updatedAt }
        _modify { yield &unique.updatedAt }
    }
    public var submittedAt: Timestamp {
        get { fields.pointee.submittedAt }
        _modify { yield &unique.submittedAt }
    }
    public var filledAt: Timestamp? {
        get { fields.pointee.filledAt }
        _modify { yield &unique.filledAt }
    }
    public var expiredAt: Timestamp? {
        get { fields.pointee.expiredAt }
        _modify { yield &unique.expiredAt }
    }
    public var canceledAt: Timestamp? {
        get { fields.pointee.canceledAt }
        _modify { yield &unique.canceledAt }
    }
    public var failedAt: Timestamp? {
        get { fields.pointee.failedAt }
        _modify { yield &unique.failedAt }
    }
    public var replacedAt: Timestamp? {
        get { fields.pointee.replacedAt }
        _modify { yield &unique.replacedAt }
    }
    /// When a day/gtc order expires if still open.
    public var expiresAt: Timestamp? {
        get { fields.pointee.expiresAt }
        _modify { yield &unique.expiresAt }
    }
    public var replacedBy: OrderID? {
        get { fields.pointee.replacedBy }
        _modify { yield &unique.replacedBy }
    }
    public var replaces: OrderID? {
        get { fields.pointee.replaces }
        _modify { yield &unique.replaces }
    }
    /// Exit legs of a bracket/oco/oto parent.
    public var legs: [OrderID] {
        get { fields.pointee.legs }
        _modify { yield &unique.legs }
    }
    public var parentID: OrderID? {
        get { fields.pointee.parentID }
        _modify { yield &unique.parentID }
    }
    /// A stop (or stop-limit, trailing stop) whose trigger has fired: it now works as market (or limit).
    public var triggered: Bool {
        get { fields.pointee.triggered }
        _modify { yield &unique.triggered }
    }
    /// Fees charged so far.
    public var fees: FixedDecimal {
        get { fields.pointee.fees }
        _modify { yield &unique.fees }
    }
    /// Why the order was rejected or canceled by the system (insufficient funds at fill, …).
    public var reason: String? {
        get { fields.pointee.reason }
        _modify { yield &unique.reason }
    }
    /// The order may not fill before this time (configured fill latency).
    public var eligibleAt: Timestamp {
        get { fields.pointee.eligibleAt }
        _modify { yield &unique.eligibleAt }
    }
    /// Cash this order holds back from buying power (buys: cost and fees of what remains; sells: the fee
    /// cushion).
    public internal(set) var reservedCash: FixedDecimal {
        get { fields.pointee.reservedCash }
        _modify { yield &unique.reservedCash }
    }
    /// Shares this sell order holds back (the legs of an exit pair share one reservation).
    public internal(set) var reservedShares: Quantity {
        get { fields.pointee.reservedShares }
        _modify { yield &unique.reservedShares }
    }
    /// Opens or closes a long or a short (set at placement; orders stored before short selling existed have none
    /// and were all long-only: buys to open, sells to close).
    public var positionIntent: PositionIntent? {
        get { fields.pointee.positionIntent }
        _modify { yield &unique.positionIntent }
    }

    public static func == (lhs: Order, rhs: Order) -> Bool {
        lhs.storage === rhs.storage || lhs.fields.pointee == rhs.fields.pointee
    }
    public func hash(into hasher: inout Hasher) { fields.pointee.hash(into: &hasher) }
    public init(from decoder: any Decoder) throws { self.init(try Fields(from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try fields.pointee.encode(to: encoder) }
    /// Prints (in test failures, the debugger) as its fields.
    public var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: fields.pointee).children, displayStyle: .struct)
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
        case positionIntent
    }
    public typealias Field = CodingKeys
}
