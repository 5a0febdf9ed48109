/// The fees an account pays on its trades. Every component is configurable per account; the defaults are
/// the published rates noted on each (dates in the comments).
public struct FeeSchedule: Sendable, Codable, Hashable {
    /// The securities' fees (commission, SEC fee, FINRA TAF, stamp duty, transfer fee).
    public var components: [FeeComponent]
    /// What crypto trades pay instead (none of the securities' fees apply to a coin).
    public var crypto: CryptoFeeTiers

    public init(components: [FeeComponent], crypto: CryptoFeeTiers = .alpaca) {
        self.components = components
        self.crypto = crypto
    }

    private enum CodingKeys: String, CodingKey { case components, crypto }

    /// Schedules stored before crypto existed pay Alpaca's crypto rates.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        components = try c.decode([FeeComponent].self, forKey: .components)
        crypto = try c.decodeIfPresent(CryptoFeeTiers.self, forKey: .crypto) ?? .alpaca
    }

    /// US defaults: zero commission; SEC Section 31 fee on sells ($0.00 per $1M since 2025-05-14; it was
    /// $27.80 per $1M before — set `rate` to 0.0000278 to model that); FINRA TAF $0.000166 per share sold,
    /// max $8.30 per trade, rounded up to the cent.
    public static let usDefault = FeeSchedule(components: [
        FeeComponent(kind: .secFee, sides: .sell, basis: .value(rate: .zero), rounding: .up),
        FeeComponent(
            kind: .finraTAF, sides: .sell, basis: .shares(perShare: FixedDecimal(units: 166, exponent: 6)),
            maximum: FixedDecimal(units: 830, exponent: 2), rounding: .up),
    ])

    /// A-share defaults: broker commission 0.025% min ¥5 both sides; stamp duty 0.05% on sells (since
    /// 2023-08-28); transfer fee 0.001% both sides (since 2022-04-29); each rounded half-up to the fen.
    public static let cnDefault = FeeSchedule(components: [
        FeeComponent(
            kind: .commission, sides: .both, basis: .value(rate: FixedDecimal(units: 25, exponent: 5)),
            minimum: FixedDecimal(5), rounding: .halfUp),
        FeeComponent(
            kind: .stampDuty, sides: .sell, basis: .value(rate: FixedDecimal(units: 5, exponent: 4)),
            rounding: .halfUp),
        FeeComponent(
            kind: .transferFee, sides: .both, basis: .value(rate: FixedDecimal(units: 1, exponent: 5)),
            rounding: .halfUp),
    ])

    public static let free = FeeSchedule(components: [], crypto: .free)

    public static func `default`(for market: Market) -> FeeSchedule { market == .us ? .usDefault : .cnDefault }

    /// Total fees for an order that has filled `qty` shares worth `value` so far. Minimums and maximums apply
    /// per order, so a fill's fee is `total(after) − total(before)`: partial fills never pay the minimum twice.
    public func fees(side: OrderSide, filledQty: Quantity, filledValue: FixedDecimal, currency: Currency) -> [FeeCharge]
    {
        guard filledQty.isPositive else { return [] }
        var charges: [FeeCharge] = []
        for component in components where component.sides.includes(side) {
            let amount = component.amount(qty: filledQty, value: filledValue, currency: currency)
            if amount.isPositive { charges.append(FeeCharge(kind: component.kind, amount: amount)) }
        }
        return charges
    }

    /// Sum of `fees(…)`.
    public func total(side: OrderSide, filledQty: Quantity, filledValue: FixedDecimal, currency: Currency)
        -> FixedDecimal
    {
        fees(side: side, filledQty: filledQty, filledValue: filledValue, currency: currency).reduce(.zero) {
            $0 + $1.amount
        }
    }

    /// The most an order can pay in fees beyond a proportional share of its proceeds: minimums plus a minor
    /// unit per component for rounding. A sell holds this much cash back, so fees can never overdraw cash.
    public func minimumChargeCushion(side: OrderSide, currency: Currency) -> FixedDecimal {
        components.filter { $0.sides.includes(side) }.reduce(.zero) { $0 + ($1.minimum ?? .zero) + currency.minorUnit }
    }
}

/// One fee of a schedule.
public struct FeeComponent: Sendable, Codable, Hashable {
    public enum Basis: Sendable, Codable, Hashable {
        /// A fraction of the trade value (0.00025 = 0.025%).
        case value(rate: FixedDecimal)
        /// An amount per share.
        case shares(perShare: FixedDecimal)
    }

    public var kind: FeeKind
    public var sides: FeeSides
    public var basis: Basis
    public var minimum: FixedDecimal?
    public var maximum: FixedDecimal?
    public var rounding: RoundingRule

    public init(
        kind: FeeKind, sides: FeeSides, basis: Basis, minimum: FixedDecimal? = nil,
        maximum: FixedDecimal? = nil, rounding: RoundingRule
    ) {
        self.kind = kind
        self.sides = sides
        self.basis = basis
        self.minimum = minimum
        self.maximum = maximum
        self.rounding = rounding
    }

    func amount(qty: Quantity, value: FixedDecimal, currency: Currency) -> FixedDecimal {
        var amount: FixedDecimal
        switch basis {
        case .value(let rate): amount = value.multiplied(by: rate, places: currency.minorUnitDigits, rule: rounding)
        case .shares(let perShare):
            amount = qty.multiplied(by: perShare, places: currency.minorUnitDigits, rule: rounding)
        }
        if let minimum, amount < minimum { amount = minimum }
        if let maximum, amount > maximum { amount = maximum }
        return amount
    }
}

public enum FeeKind: String, Sendable, Codable, Hashable, CaseIterable {
    case commission
    case stampDuty = "stamp_duty"
    case transferFee = "transfer_fee"
    case secFee = "sec_fee"
    case finraTAF = "finra_taf"
}

public enum FeeSides: String, Sendable, Codable, Hashable {
    case buy, sell, both

    func includes(_ side: OrderSide) -> Bool {
        switch self {
        case .both: return true
        case .buy: return side == .buy
        case .sell: return side == .sell
        }
    }
}

/// A fee charged on a fill.
public struct FeeCharge: Sendable, Codable, Hashable {
    public var kind: FeeKind
    public var amount: FixedDecimal

    public init(kind: FeeKind, amount: FixedDecimal) {
        self.kind = kind
        self.amount = amount
    }
}
