/// An exact decimal number with nine fractional digits: every price, quantity and amount in papertrade.
///
/// Stored as a 128-bit integer count of billionths, so addition, subtraction and comparison are exact
/// integer operations, and products and quotients round once, by a rule the caller names. Nine digits
/// cover Alpaca's smallest quantity ("0.000000001"); 128 bits leave room for any realistic balance
/// (magnitudes up to about 1.7 × 10^29).
///
/// Binary floating point never enters: text is parsed digit by digit and printed digit by digit.
public struct FixedDecimal: Sendable, Hashable, Comparable {
    /// Fractional digits kept.
    public static let scale = 9
    /// 10^scale: the raw value of 1.
    public static let one = FixedDecimal(raw: 1_000_000_000)
    public static let zero = FixedDecimal(raw: 0)
    static let unit: Int128 = 1_000_000_000

    /// The number × 10^9.
    public var raw: Int128

    @inlinable public init(raw: Int128) { self.raw = raw }

    /// An integer amount: `FixedDecimal(100)` is 100.
    public init(_ integer: Int) { raw = Int128(integer) * Self.unit }

    /// `units × 10^-exponent`, e.g. `FixedDecimal(units: 15025, exponent: 2)` is 150.25.
    /// Requires `exponent` in 0...9.
    public init(units: Int, exponent: Int) {
        precondition((0...Self.scale).contains(exponent), "exponent must be in 0...9")
        raw = Int128(units) * Self.powerOfTen(Self.scale - exponent)
    }

    @inlinable public static func < (lhs: FixedDecimal, rhs: FixedDecimal) -> Bool { lhs.raw < rhs.raw }

    public var isZero: Bool { raw == 0 }
    public var isNegative: Bool { raw < 0 }
    public var isPositive: Bool { raw > 0 }
    public var magnitude: FixedDecimal { FixedDecimal(raw: raw < 0 ? -raw : raw) }

    /// Whether the number has no fractional part.
    public var isInteger: Bool { raw % Self.unit == 0 }

    /// The number of fractional digits needed to write it exactly (0 for integers, 9 at most).
    public var fractionalDigits: Int {
        var r = raw % Self.unit
        if r == 0 { return 0 }
        var digits = Self.scale
        while r % 10 == 0 {
            r /= 10
            digits -= 1
        }
        return digits
    }

    /// Whole units, truncated toward zero; nil when they do not fit in an Int.
    public var integerPart: Int? { Int(exactly: raw / Self.unit) }

    static func powerOfTen(_ n: Int) -> Int128 {
        n >= 0 && n < powersOfTen.count ? powersOfTen[n] : (0..<n).reduce(Int128(1)) { p, _ in p * 10 }
    }

    /// 10^n for n in 0...9, without a table lookup.
    static func smallPowerOfTen(_ n: Int) -> Int64 {
        var p: Int64 = 1
        for _ in 0..<n { p &*= 10 }
        return p
    }

    private static let powersOfTen: [Int128] = (0...38).map { n in (0..<n).reduce(Int128(1)) { p, _ in p * 10 } }
}

// MARK: - Arithmetic

extension FixedDecimal: AdditiveArithmetic {
    @inlinable public static func + (lhs: FixedDecimal, rhs: FixedDecimal) -> FixedDecimal {
        FixedDecimal(raw: lhs.raw + rhs.raw)
    }
    @inlinable public static func - (lhs: FixedDecimal, rhs: FixedDecimal) -> FixedDecimal {
        FixedDecimal(raw: lhs.raw - rhs.raw)
    }
    @inlinable public static func += (lhs: inout FixedDecimal, rhs: FixedDecimal) { lhs.raw += rhs.raw }
    @inlinable public static func -= (lhs: inout FixedDecimal, rhs: FixedDecimal) { lhs.raw -= rhs.raw }
    @inlinable public static prefix func - (value: FixedDecimal) -> FixedDecimal { FixedDecimal(raw: -value.raw) }
}

extension FixedDecimal {
    /// The product, rounded once to `places` fractional digits by `rule`.
    ///
    /// `price.multiplied(by: qty, places: 2, rule: .halfUp)` is a trade value in cents with no double rounding.
    @inlinable
    public func multiplied(
        by other: FixedDecimal, places: Int = FixedDecimal.scale,
        rule: RoundingRule = .halfEven
    ) -> FixedDecimal {
        // A whole number times anything (shares × a price, the common case) is exact at 9 places: no 128-bit
        // division needed, and no overflow (two factors under 2⁶³ make a product under 2¹²⁶). Inlined into callers
        // (a backtest values its holdings on every bar).
        if places == Self.scale, let a = Int64(exactly: raw), let b = Int64(exactly: other.raw) {
            if a % 1_000_000_000 == 0 { return FixedDecimal(raw: Int128(a / 1_000_000_000) &* Int128(b)) }
            if b % 1_000_000_000 == 0 { return FixedDecimal(raw: Int128(a) &* Int128(b / 1_000_000_000)) }
        }
        return multipliedRounding(by: other, places: places, rule: rule)
    }

    @usableFromInline
    func multipliedRounding(by other: FixedDecimal, places: Int, rule: RoundingRule) -> FixedDecimal {
        // Shares × a price to the cent (trade values, reservations): with a whole factor the product is exact at 9
        // places, and when it fits 64 bits it is rounded with 64-bit arithmetic (128-bit division is a library call
        // several times slower).
        if let a = Int64(exactly: raw), let b = Int64(exactly: other.raw) {
            var exact: (partialValue: Int64, overflow: Bool)?
            if a % 1_000_000_000 == 0 {
                exact = (a / 1_000_000_000).multipliedReportingOverflow(by: b)
            } else if b % 1_000_000_000 == 0 {
                exact = a.multipliedReportingOverflow(by: b / 1_000_000_000)
            }
            if let exact, !exact.overflow {
                return FixedDecimal(raw: Int128(exact.partialValue)).rounded(places: places, rule: rule)
            }
        }
        // raw(a) × raw(b) is the product × 10^18; divide by 10^(18 - places) then rescale.
        let divisor = Self.powerOfTen(2 * Self.scale - places)
        let (high, low) = raw.multipliedFullWidth(by: other.raw)
        let quotient: Int128
        let remainder: Int128
        if (high == 0 && low >> 127 == 0) || (high == -1 && low >> 127 == 1) {
            let product = Int128(bitPattern: low)
            quotient = product / divisor
            remainder = product % divisor
        } else {
            (quotient, remainder) = divisor.dividingFullWidth((high, low))
        }
        let rounded = Self.round(quotient: quotient, remainder: remainder, divisor: divisor, rule: rule)
        return FixedDecimal(raw: rounded * Self.powerOfTen(Self.scale - places))
    }

    /// The product as `multiplied(by:places:rule:)` rounds it, or nil when it does not fit 128 bits (that one traps).
    ///
    /// For a product of two numbers that come from a request or a file, where a trap would stop the process: the
    /// caller turns nil into a refusal that says the numbers are too large.
    public func multipliedReportingOverflow(
        by other: FixedDecimal, places: Int = FixedDecimal.scale, rule: RoundingRule = .halfEven
    ) -> FixedDecimal? {
        guard (0...Self.scale).contains(places) else { return nil }
        let divisor = UInt128(Self.powerOfTen(2 * Self.scale - places))
        let product = raw.magnitude.multipliedFullWidth(by: other.raw.magnitude)
        guard product.high < divisor else { return nil } // the quotient itself would not fit 128 bits
        let quotient = divisor.dividingFullWidth(product).quotient
        // Room for the rescale to 9 places and one more unit from rounding away from zero.
        guard quotient < UInt128(Int128.max) / UInt128(Self.powerOfTen(Self.scale - places)) - 1 else { return nil }
        return multipliedRounding(by: other, places: places, rule: rule)
    }

    /// The sum, or nil when it does not fit 128 bits.
    public func addingReportingOverflow(_ other: FixedDecimal) -> FixedDecimal? {
        let (sum, overflow) = raw.addingReportingOverflow(other.raw)
        return overflow ? nil : FixedDecimal(raw: sum)
    }

    /// The quotient, rounded once to `places` fractional digits by `rule`; nil when dividing by zero or when the
    /// quotient does not fit 128 bits (a huge number over a tiny one).
    public func divided(
        by other: FixedDecimal, places: Int = FixedDecimal.scale,
        rule: RoundingRule = .halfEven
    ) -> FixedDecimal? {
        guard other.raw != 0, (0...Self.scale).contains(places) else { return nil }
        // A dividend under 2⁶⁴ (about 1.8 × 10^10) gives a quotient under 2⁹⁴ whatever the divisor: no check needed.
        if raw.magnitude >> 64 != 0 {
            let magnitude = raw.magnitude.multipliedFullWidth(by: UInt128(Self.powerOfTen(places)))
            let d = other.raw.magnitude
            guard magnitude.high < d,
                d.dividingFullWidth(magnitude).quotient
                    < UInt128(Int128.max) / UInt128(Self.powerOfTen(Self.scale - places)) - 1
            else { return nil }
        }
        // (a × 10^places) / b gives the quotient in units of 10^-places.
        let numerator = raw.multipliedFullWidth(by: Self.powerOfTen(places))
        var divisor = other.raw
        var high = numerator.high
        var low = numerator.low
        if divisor < 0 {
            divisor = -divisor
            // Negate the 256-bit numerator.
            low = ~low &+ 1
            high = ~high &+ (low == 0 ? 1 : 0)
        }
        let (quotient, remainder) = divisor.dividingFullWidth((high, low))
        let rounded = Self.round(quotient: quotient, remainder: remainder, divisor: divisor, rule: rule)
        return FixedDecimal(raw: rounded * Self.powerOfTen(Self.scale - places))
    }

    /// Multiplication by an integer count (exact).
    @inlinable public func times(_ n: Int) -> FixedDecimal {
        // Factors under 2⁶² and 2³² cannot overflow: multiplied without the overflow check (a library call for
        // 128 bits, the slow part of a moving-average strategy's comparison on every bar).
        if raw.magnitude < 1 << 62, n.magnitude < 1 << 32 { return FixedDecimal(raw: raw &* Int128(n)) }
        return FixedDecimal(raw: raw * Int128(n))
    }

    /// This number rounded to `places` fractional digits (0...9) by `rule`.
    public func rounded(places: Int, rule: RoundingRule) -> FixedDecimal {
        // Amounts under ~9.2 billion fit 64 bits: rounded with 64-bit division rather than 128-bit.
        if let small = Int64(exactly: raw), (0...Self.scale).contains(places) {
            let divisor = Self.smallPowerOfTen(Self.scale - places)
            let (q, r) = small.quotientAndRemainder(dividingBy: divisor)
            let rounded = Self.round(quotient: Int128(q), remainder: Int128(r), divisor: Int128(divisor), rule: rule)
            return FixedDecimal(raw: rounded * Int128(divisor))
        }
        let divisor = Self.powerOfTen(Self.scale - places)
        let q = raw / divisor
        let r = raw % divisor
        return FixedDecimal(raw: Self.round(quotient: q, remainder: r, divisor: divisor, rule: rule) * divisor)
    }

    /// This number rounded to a multiple of `increment` (a tick, a lot) by `rule`.
    public func rounded(toMultipleOf increment: FixedDecimal, rule: RoundingRule) -> FixedDecimal {
        guard increment.raw > 0 else { return self }
        let q = raw / increment.raw
        let r = raw % increment.raw
        return FixedDecimal(
            raw: Self.round(quotient: q, remainder: r, divisor: increment.raw, rule: rule) * increment.raw)
    }

    /// Whether this number is an exact multiple of `increment`.
    public func isMultiple(of increment: FixedDecimal) -> Bool {
        increment.raw == 0 ? raw == 0 : raw % increment.raw == 0
    }

    public static func min(_ a: FixedDecimal, _ b: FixedDecimal) -> FixedDecimal { a < b ? a : b }
    public static func max(_ a: FixedDecimal, _ b: FixedDecimal) -> FixedDecimal { a < b ? b : a }

    /// Applies `rule` to a truncated quotient whose remainder (same sign as the dividend) is `remainder`
    /// out of a positive `divisor`.
    static func round(quotient q: Int128, remainder r: Int128, divisor d: Int128, rule: RoundingRule) -> Int128 {
        if r == 0 { return q }
        let negative = r < 0
        let twice = (negative ? -r : r) * 2
        let awayFromZero: Bool
        switch rule {
        case .down: awayFromZero = false
        case .up: awayFromZero = true
        case .ceiling: awayFromZero = !negative
        case .floor: awayFromZero = negative
        case .halfUp: awayFromZero = twice >= d
        case .halfDown: awayFromZero = twice > d
        case .halfEven: awayFromZero = twice > d || (twice == d && q % 2 != 0)
        }
        return awayFromZero ? (negative ? q - 1 : q + 1) : q
    }
}

/// How a result that does not fit the wanted precision is rounded. Each money path names its rule.
public enum RoundingRule: String, Sendable, Codable, CaseIterable {
    /// Toward zero (truncate): quantities bought with a notional amount.
    case down
    /// Away from zero: regulatory fees that are "rounded up to the nearest cent".
    case up
    /// Toward +∞.
    case ceiling
    /// Toward −∞.
    case floor
    /// Ties away from zero: A-share limit prices, commissions and stamp duty, cash to cents.
    case halfUp
    /// Ties toward zero.
    case halfDown
    /// Ties to even (banker's rounding): averages, where unbiased rounding matters over many operations.
    case halfEven
}
