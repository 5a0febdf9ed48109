import TradingCore

/// Where the simulator's Double model meets exact money: every price, size and amount is rounded here, once,
/// onto the grid it must live on.
enum Quantize {
    /// A price level rounded half-up onto the tick grid at that price.
    static func price(_ level: Double, tick: TickRule) -> Price {
        let clamped = level.isFinite ? min(max(level, 0.0001), 1_000_000_000) : 0.0001
        let places = tick.places(at: FixedDecimal(Int(clamped.rounded(.down))))
        let scale = pow(10, Double(places))
        let units = Int((clamped * scale).rounded(.toNearestOrAwayFromZero))
        let value = FixedDecimal(units: max(units, 1), exponent: places)
        return tick.round(value, .halfUp)
    }

    /// Shares rounded down to whole lots (at least one lot).
    static func shares(_ amount: Double, lot: Int) -> Quantity {
        let lots = amount.isFinite ? max(1, Int(amount / Double(lot))) : 1
        return FixedDecimal(lots * lot)
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
