import Foundation
import Testing

@testable import TradingCore

@Suite("Exact decimals")
struct FixedDecimalTests {
    @Test("parses and prints Alpaca's string forms exactly")
    func alpacaStringForms() throws {
        for text in ["150.25", "0.000000001", "100000", "-3.5", "0"] {
            #expect(try FixedDecimal(parsing: text).description == text)
        }
        #expect(try FixedDecimal(parsing: "10.0").description == "10")
        #expect(try FixedDecimal(parsing: "1000.50").description == "1000.5")
        #expect(try FixedDecimal(parsing: "+.5").description == "0.5")
        #expect(try FixedDecimal(parsing: "1.5e3").description == "1500")
        #expect(try FixedDecimal(parsing: "1E-9").description == "0.000000001")
        #expect(FixedDecimal(raw: 1).description == "0.000000001")
    }

    @Test("0.1 + 0.2 is exactly 0.3")
    func noBinaryFloatingPoint() {
        #expect(d("0.1") + d("0.2") == d("0.3"))
    }

    @Test("rejects text that is not an exact decimal")
    func rejectsBadText() throws {
        #expect(throws: DecimalParseError.invalidCharacter("12a")) { try FixedDecimal(parsing: "12a") }
        #expect(throws: DecimalParseError.empty) { try FixedDecimal(parsing: "") }
        #expect(throws: DecimalParseError.invalidCharacter("1.2.3")) { try FixedDecimal(parsing: "1.2.3") }
        #expect(throws: DecimalParseError.invalidCharacter("-")) { try FixedDecimal(parsing: "-") }
        #expect(throws: DecimalParseError.tooManyFractionalDigits("0.0000000001")) {
            try FixedDecimal(parsing: "0.0000000001")
        }
        #expect(throws: DecimalParseError.outOfRange("1e30")) { try FixedDecimal(parsing: "1e30") }
        #expect(throws: DecimalParseError.invalidCharacter("NaN")) { try FixedDecimal(parsing: "NaN") }
        // Trailing zeros beyond nine places are not extra precision.
        #expect(try FixedDecimal(parsing: "1.50000000000") == d("1.5"))
    }

    @Test("rounds by named rules: half-up, half-even, up, down, ceiling, floor")
    func roundingRules() {
        #expect(d("2.345").rounded(places: 2, rule: .halfUp) == d("2.35"))
        #expect(d("2.345").rounded(places: 2, rule: .halfEven) == d("2.34"))
        #expect(d("2.355").rounded(places: 2, rule: .halfEven) == d("2.36"))
        #expect(d("2.345").rounded(places: 2, rule: .halfDown) == d("2.34"))
        #expect(d("2.341").rounded(places: 2, rule: .up) == d("2.35"))
        #expect(d("2.349").rounded(places: 2, rule: .down) == d("2.34"))
        #expect(d("-2.341").rounded(places: 2, rule: .ceiling) == d("-2.34"))
        #expect(d("-2.341").rounded(places: 2, rule: .floor) == d("-2.35"))
        #expect(d("-2.345").rounded(places: 2, rule: .halfUp) == d("-2.35"))
        #expect(d("10.07").rounded(toMultipleOf: d("0.05"), rule: .halfUp) == d("10.05"))
    }

    @Test("multiplies and divides with a single rounding")
    func productsAndQuotients() {
        // A-share limit-up: 99.68 × 1.2 = 119.616 → 119.62
        #expect(d("99.68").multiplied(by: d("1.2"), places: 2, rule: .halfUp) == d("119.62"))
        #expect(d("150.25").multiplied(by: d("0.000000001")) == d("0.00000015"))
        #expect(d("1").divided(by: d("3"), places: 4, rule: .halfEven) == d("0.3333"))
        #expect(d("-2").divided(by: d("3"), places: 2, rule: .halfUp) == d("-0.67"))
        #expect(d("2").divided(by: d("-3"), places: 2, rule: .down) == d("-0.66"))
        #expect(d("1").divided(by: .zero) == nil)
        // Large values keep exact: 10^12 shares × $10^6.
        #expect(d("1000000000000").multiplied(by: d("1000000")) == d("1000000000000000000"))
    }

    @Test("whole numbers times decimals (shares × prices) are exact either way round, signs and sizes included")
    func wholeTimesDecimal() {
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<2_000 {
            let shares = Int(generator.next() % 2_000_001) - 1_000_000
            let price = FixedDecimal(raw: Int128(Int64(bitPattern: generator.next()) % 1_000_000_000_000_000))
            let whole = FixedDecimal(shares)
            #expect(whole.multiplied(by: price) == price.times(shares))
            #expect(price.multiplied(by: whole) == price.times(shares))
        }
        // Beyond 64-bit raw values (over ~9.2 billion) the general path gives the same exact products.
        let big = d("20000000000")
        #expect(big.multiplied(by: d("1.5")) == d("30000000000"))
        #expect(d("1.5").multiplied(by: big) == d("30000000000"))
        // Neither whole: rounded once at the 9th place, half to even.
        #expect(d("0.000000005").multiplied(by: d("0.5")) == d("0.000000002"))
        #expect(d("-0.000000015").multiplied(by: d("0.1")) == d("-0.000000002"))
    }

    @Test("formats with a fixed number of places for cash")
    func fixedPlaces() {
        #expect(d("100000").formatted(places: 2) == "100000.00")
        #expect(d("0.005").formatted(places: 2) == "0.01")
        #expect(d("-1.5").formatted(places: 2) == "-1.50")
    }

    @Test("encodes as a JSON string and decodes strings or integers")
    func codable() throws {
        struct Box: Codable, Equatable { var v: FixedDecimal }
        let encoded = try JSONEncoder().encode(Box(v: d("150.25")))
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"v":"150.25"}"#)
        #expect(try JSONDecoder().decode(Box.self, from: Data(#"{"v":"0.000000001"}"#.utf8)).v == d("0.000000001"))
        #expect(try JSONDecoder().decode(Box.self, from: Data(#"{"v":100}"#.utf8)).v == d("100"))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Box.self, from: Data(#"{"v":"1.2.3"}"#.utf8)) }
    }

    @Test("products and quotients that do not fit 128 bits are reported, not trapped; those that fit agree exactly")
    func overflowReported() {
        let huge = d("99999999999999999999") // the largest text accepts, about 10^20
        #expect(huge.multipliedReportingOverflow(by: huge) == nil)
        #expect(huge.multipliedReportingOverflow(by: d("99999999999999"), places: 2, rule: .up) == nil)
        #expect(huge.multipliedReportingOverflow(by: d("1000000000")) == huge.times(1_000_000_000))
        for (a, b) in [("150.25", "3"), ("-0.000000015", "0.1"), ("20000000000", "1.5"), ("1000000000", "1000000000")] {
            #expect(
                d(a).multipliedReportingOverflow(by: d(b), places: 2, rule: .halfUp)
                    == d(a).multiplied(by: d(b), places: 2, rule: .halfUp))
        }
        // A huge number over a tiny one: nil, like a division by zero.
        #expect(FixedDecimal(raw: Int128.max / 2).divided(by: d("0.1")) == nil)
        #expect(FixedDecimal(raw: Int128.min / 2).divided(by: d("0.000000001"), places: 0) == nil)
        #expect(huge.divided(by: d("0.000000001")) == huge.times(1_000_000_000))
        #expect(d("1").divided(by: d("3"), places: 4, rule: .halfUp) == d("0.3333"))
        #expect(FixedDecimal(raw: Int128.max).addingReportingOverflow(FixedDecimal(raw: 1)) == nil)
    }

    @Test(
        "the 64-bit way of printing (every price) writes what the general one does, for any size, sign and places asked, over many seeds"
    )
    func fastFormattingAgrees() {
        for seed in UInt64(1)...8 {
            var generator = SplitMix(seed: seed)
            for _ in 0..<20_000 {
                // Magnitudes from a unit to past the 64-bit edge, with trailing zeros as often as not.
                let digits = Int.random(in: 1...21, using: &generator)
                var raw = Int128(UInt64.random(in: 0...UInt64.max, using: &generator)) % Int128(10) ** digits
                if Bool.random(using: &generator) {
                    raw -= raw % (Int128(10) ** Int.random(in: 0...9, using: &generator))
                }
                if Bool.random(using: &generator) { raw = -raw }
                if digits == 21 { raw = Int128(UInt64.max) + Int128.random(in: -2...2, using: &generator) }
                let value = FixedDecimal(raw: raw)
                let minimum = Int.random(in: 0...10, using: &generator)
                let maximum = Int.random(in: minimum...12, using: &generator)
                #expect(
                    value.formatted(minimumPlaces: minimum, maximumPlaces: maximum)
                        == value.formattedWide(minimumPlaces: minimum, maximumPlaces: maximum),
                    "\(raw) \(minimum) \(maximum)")
            }
        }
    }
}

/// A small seeded generator: the same numbers on every machine.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private func ** (base: Int128, exponent: Int) -> Int128 {
    (0..<exponent).reduce(Int128(1)) { result, _ in result * base }
}

infix operator ** : MultiplicationPrecedence
