import TradingCore

/// Where the simulator's Double model meets exact money: every price, size and amount is rounded here, once,
/// onto the grid it must live on.
enum Quantize {
    /// A price level rounded half-up onto the tick grid at that price.
    static func price(_ level: Double, tick: TickRule) -> Price {
        // (The floor is the smallest tick of any instrument: a meme coin's 0.000000001.)
        let clamped = level.isFinite ? min(max(level, 0.000_000_001), 1_000_000_000) : 0.0001
        let places: Int
        switch tick {
        case .usEquity: places = clamped >= 0.99995 ? 2 : 4
        case .fixed(let increment): places = increment.fractionalDigits
        case .usOption, .usOptionPennies: places = 2
        }
        let units = Int((clamped * powers[places]).rounded(.toNearestOrAwayFromZero))
        let value = FixedDecimal(units: max(units, 1), exponent: places)
        // Ticks that are one unit of their last digit (0.01, 0.001, 0.0001) need no further rounding.
        switch tick {
        case .fixed(let increment) where increment != FixedDecimal(units: 1, exponent: places): break
        case .usOption: break
        default: return value
        }
        return tick.round(value, .halfUp)
    }

    private static let powers: [Double] = (0...9).map { pow(10, Double($0)) }

    /// Shares rounded down to whole lots (at least one lot).
    static func shares(_ amount: Double, lot: Int) -> Quantity {
        // Clamped like prices: a model value past Int's range (or NaN) must not trap on its way to a quantity.
        let wanted = amount / Double(max(lot, 1))
        let lots = wanted.isFinite ? Int(min(max(wanted, 1), 1e12)) : 1
        return FixedDecimal(lots * max(lot, 1))
    }

    /// A cash amount to cents.
    static func amount(_ value: Double) -> FixedDecimal {
        let cents = value.isFinite ? Int((min(max(value, 0), 1e15) * 100).rounded()) : 0
        return FixedDecimal(units: cents, exponent: 2)
    }

    /// An exact price back as a model level (for comparisons inside the model only).
    static func level(_ price: Price) -> Double {
        Double(price.description) ?? 0
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
