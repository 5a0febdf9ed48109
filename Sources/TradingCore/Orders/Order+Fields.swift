/// One field's value, typed as its writers need it: ids and times stay values (each form writes them its own
/// way: a stored time is nanoseconds, an API time RFC 3339), decimals stay exact.
public enum OrderFieldValue: Sendable, Hashable {
    case id(Identifier?)
    case ids([Identifier])
    case text(String?)
    case decimal(FixedDecimal?)
    case time(Timestamp?)
    case integer(Int64)
    case flag(Bool)

    /// Whether the value is an absent optional (the stored form leaves the key out, as `encodeIfPresent` does).
    public var isAbsent: Bool {
        switch self {
        case .id(nil), .text(nil), .decimal(nil), .time(nil): return true
        default: return false
        }
    }
}

extension Order.Field {
    /// This field's value in `order`.
    public func value(of order: Order) -> OrderFieldValue {
        switch self {
        case .id: return .id(order.id.uuid)
        case .clientOrderID: return .text(order.clientOrderID.text)
        case .accountID: return .id(order.accountID.uuid)
        case .instrument: return .integer(Int64(order.instrument.index))
        case .symbol: return .text(order.symbol)
        case .side: return .text(order.side.rawValue)
        case .type: return .text(order.type.rawValue)
        case .timeInForce: return .text(order.timeInForce.rawValue)
        case .orderClass: return .text(order.orderClass.rawValue)
        case .qty: return .decimal(order.qty)
        case .notional: return .decimal(order.notional)
        case .filledQty: return .decimal(order.filledQty)
        case .filledValue: return .decimal(order.filledValue)
        case .limitPrice: return .decimal(order.limitPrice)
        case .stopPrice: return .decimal(order.stopPrice)
        case .trailPrice: return .decimal(order.trailPrice)
        case .trailPercent: return .decimal(order.trailPercent)
        case .hwm: return .decimal(order.hwm)
        case .extendedHours: return .flag(order.extendedHours)
        case .status: return .text(order.status.rawValue)
        case .createdAt: return .time(order.createdAt)
        case .updatedAt: return .time(order.updatedAt)
        case .submittedAt: return .time(order.submittedAt)
        case .filledAt: return .time(order.filledAt)
        case .expiredAt: return .time(order.expiredAt)
        case .canceledAt: return .time(order.canceledAt)
        case .failedAt: return .time(order.failedAt)
        case .replacedAt: return .time(order.replacedAt)
        case .expiresAt: return .time(order.expiresAt)
        case .replacedBy: return .id(order.replacedBy?.uuid)
        case .replaces: return .id(order.replaces?.uuid)
        case .legs: return .ids(order.legs.map(\.uuid))
        case .parentID: return .id(order.parentID?.uuid)
        case .triggered: return .flag(order.triggered)
        case .fees: return .decimal(order.fees)
        case .reason: return .text(order.reason)
        case .eligibleAt: return .time(order.eligibleAt)
        case .reservedCash: return .decimal(order.reservedCash)
        case .reservedShares: return .decimal(order.reservedShares)
        case .positionIntent: return .text(order.positionIntent?.rawValue)
        case .note: return .text(order.note)
        }
    }
}
