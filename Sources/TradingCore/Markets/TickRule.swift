/// The minimum price increment of an instrument.
public enum TickRule: Sendable, Codable, Hashable {
    /// US Rule 612: $0.01 at or above $1.00, $0.0001 below.
    case usEquity
    /// US equity options (the Penny Program): $0.01 below $3.00 and $0.05 from $3.00.
    case usOption
    /// US options of the classes that quote in pennies at every price (SPY, QQQ, IWM).
    case usOptionPennies
    /// One increment for every price (CNY 0.01 for A-shares, 0.001 for A-share funds).
    case fixed(FixedDecimal)

    public static let cent = TickRule.fixed(FixedDecimal(units: 1, exponent: 2))
    public static let tenthOfCent = TickRule.fixed(FixedDecimal(units: 1, exponent: 3))

    static let usSubDollarTick = FixedDecimal(units: 1, exponent: 4)
    /// Where Penny Program option classes move from pennies to nickels.
    public static let optionNickelThreshold = FixedDecimal(3)

    /// The tick that applies at a price.
    public func tick(at price: Price) -> FixedDecimal {
        switch self {
        case .usEquity: return price >= .one ? TickRule.cent.tick(at: price) : TickRule.usSubDollarTick
        case .fixed(let tick): return tick
        case .usOptionPennies: return FixedDecimal(units: 1, exponent: 2)
        case .usOption:
            return price < TickRule.optionNickelThreshold
                ? FixedDecimal(units: 1, exponent: 2) : FixedDecimal(units: 5, exponent: 2)
        }
    }

    /// Whether a price is on the grid.
    public func isValid(_ price: Price) -> Bool { price.isMultiple(of: tick(at: price)) }

    /// A price rounded onto the grid (stops derived from a trail, limit prices from a percentage).
    public func round(_ price: Price, _ rule: RoundingRule) -> Price {
        price.rounded(toMultipleOf: tick(at: price), rule: rule)
    }

    /// Decimal places of the tick at a price (2 for cents).
    public func places(at price: Price) -> Int { tick(at: price).fractionalDigits }
}
