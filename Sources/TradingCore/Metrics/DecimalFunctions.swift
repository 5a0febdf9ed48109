/// Square roots, logarithms and exponentials of decimals: what the performance figures need beyond the four
/// operations (volatility and Sharpe take a square root; the money-weighted return solves for a rate with
/// fractional powers).
///
/// Computed in integers carrying 18 fractional digits and rounded once to `FixedDecimal`'s nine, so every
/// platform prints the same figures to the last digit and a test can state them exactly. No binary floating point.
public enum DecimalFunctions {
    /// √x rounded half-up to nine places; nil for a negative x or one above 1.7 × 10^20.
    public static func squareRoot(_ x: FixedDecimal) -> FixedDecimal? {
        guard !x.isNegative else { return nil }
        // √(raw / 10^9) × 10^9 = √(raw × 10^9).
        let (scaled, overflow) = x.raw.multipliedReportingOverflow(by: FixedDecimal.unit)
        guard !overflow else { return nil }
        return FixedDecimal(raw: roundedSquareRoot(scaled))
    }

    /// ln x rounded half-even to nine places; nil when x ≤ 0.
    public static func naturalLogarithm(_ x: FixedDecimal) -> FixedDecimal? {
        guard x.isPositive else { return nil }
        return Wide.ln(Wide(x)).rounded
    }

    /// e^x rounded half-even to nine places; nil when the result is beyond `FixedDecimal`'s range (x above ~46).
    public static func exponential(_ x: FixedDecimal) -> FixedDecimal? {
        guard let result = Wide.exp(Wide(x)), result.raw <= Int128.max / 2 else { return nil }
        return result.rounded
    }

    /// base^exponent for a positive base, rounded to nine places; nil when the base is not positive or the
    /// result is out of range.
    public static func power(_ base: FixedDecimal, _ exponent: FixedDecimal) -> FixedDecimal? {
        guard base.isPositive else { return nil }
        guard let result = Wide.exp(Wide.ln(Wide(base)) * Wide(exponent)) else { return nil }
        return result.rounded
    }

    /// ⌊√n⌉ for n ≥ 0 (Newton's method on integers, then rounded half-up).
    static func roundedSquareRoot(_ n: Int128) -> Int128 {
        if n < 2 { return n }
        let bits = Int128.bitWidth - n.leadingZeroBitCount
        var x = Int128(1) << ((bits + 1) / 2) // ≥ √n
        while true {
            let y = (x + n / x) / 2
            if y >= x { break }
            x = y
        }
        // x = ⌊√n⌋; round up when (x + ½)² ≤ n, i.e. x² + x < n.
        return x * x + x < n ? x + 1 : x
    }
}

/// A decimal with 18 fractional digits (magnitudes below 1.7 × 10^20): the working precision of
/// `DecimalFunctions` and the money-weighted return's solver.
struct Wide: Comparable {
    var raw: Int128
    static let unit: Int128 = 1_000_000_000_000_000_000
    static let one = Wide(raw: unit)
    static let zero = Wide(raw: 0)
    /// ln 2 to 18 places.
    static let ln2 = Wide(raw: 693_147_180_559_945_309)

    init(raw: Int128) { self.raw = raw }
    init(_ x: FixedDecimal) { raw = x.raw * FixedDecimal.unit }
    init(_ n: Int) { raw = Int128(n) * Self.unit }

    /// Half-even to nine places.
    var rounded: FixedDecimal {
        let q = raw / FixedDecimal.unit
        let r = raw % FixedDecimal.unit
        return FixedDecimal(
            raw: FixedDecimal.round(quotient: q, remainder: r, divisor: FixedDecimal.unit, rule: .halfEven))
    }

    static func < (a: Wide, b: Wide) -> Bool { a.raw < b.raw }
    static func + (a: Wide, b: Wide) -> Wide { Wide(raw: a.raw + b.raw) }
    static func - (a: Wide, b: Wide) -> Wide { Wide(raw: a.raw - b.raw) }
    static prefix func - (a: Wide) -> Wide { Wide(raw: -a.raw) }

    /// The product, truncated to 18 places (a 256-bit intermediate, so no overflow inside).
    static func * (a: Wide, b: Wide) -> Wide {
        Wide(raw: unit.dividingFullWidth(a.raw.multipliedFullWidth(by: b.raw)).quotient)
    }

    /// The quotient, truncated to 18 places; b must not be zero.
    static func / (a: Wide, b: Wide) -> Wide {
        var numerator = a.raw.multipliedFullWidth(by: unit)
        var divisor = b.raw
        if divisor < 0 {
            divisor = -divisor
            numerator.low = ~numerator.low &+ 1
            numerator.high = ~numerator.high &+ (numerator.low == 0 ? 1 : 0)
        }
        return Wide(raw: divisor.dividingFullWidth(numerator).quotient)
    }

    func dividedBy(_ n: Int) -> Wide { Wide(raw: raw / Int128(n)) }

    /// √x to 18 places (17 above 170, 16 above 17,000, …); nil for a negative x.
    static func squareRoot(_ x: Wide) -> Wide? {
        guard x.raw >= 0 else { return nil }
        // √(raw × 10^18) needs raw × 10^18 to fit: above that, √(x / 100^k) × 10^k.
        var raw = x.raw
        var shift: Int128 = 1
        while raw > Int128.max / unit {
            raw /= 100
            shift *= 10
        }
        return Wide(raw: DecimalFunctions.roundedSquareRoot(raw * unit) * shift)
    }

    /// ln x for x > 0: x = m × 2^k with m in [1, 2), ln m = 2 atanh((m − 1)/(m + 1)) (a series in z² ≤ 1/9).
    static func ln(_ x: Wide) -> Wide {
        var m = x.raw
        var k = 0
        while m >= 2 * unit {
            m >>= 1
            k += 1
        }
        while m < unit {
            m <<= 1
            k -= 1
        }
        let z = Wide(raw: m - unit) / Wide(raw: m + unit)
        let z2 = z * z
        var term = z
        var sum = z
        var n = 1
        while term.raw != 0 {
            term = term * z2
            n += 2
            sum = sum + term.dividedBy(n)
        }
        return Wide(raw: sum.raw * 2 + Int128(k) * ln2.raw)
    }

    /// e^x: x = k ln 2 + r with |r| ≤ ln 2 / 2, e^r by its Taylor series; nil when e^x ≥ 2^66 (beyond any
    /// figure we print), zero when it is below 10^-18.
    static func exp(_ x: Wide) -> Wide? {
        // k = x / ln 2 rounded to nearest.
        let k = Int((x.raw + (x.raw >= 0 ? ln2.raw / 2 : -ln2.raw / 2)) / ln2.raw)
        if k > 65 { return nil }
        if k < -70 { return .zero }
        let r = Wide(raw: x.raw - Int128(k) * ln2.raw)
        var term = Wide.one
        var sum = Wide.one
        var n = 1
        while term.raw != 0 {
            term = (term * r).dividedBy(n)
            sum = sum + term
            n += 1
        }
        return Wide(raw: k >= 0 ? sum.raw << k : sum.raw >> -k)
    }
}
