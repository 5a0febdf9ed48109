/// Why a piece of text is not a number papertrade accepts.
public enum DecimalParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case invalidCharacter(String)
    case tooManyFractionalDigits(String)
    case outOfRange(String)

    public var description: String {
        switch self {
        case .empty: return "empty number"
        case .invalidCharacter(let text): return "\"\(text)\" is not a decimal number"
        case .tooManyFractionalDigits(let text): return "\(text) has more than \(FixedDecimal.scale) decimal places"
        case .outOfRange(let text): return "\(text) is out of range"
        }
    }
}

extension FixedDecimal: LosslessStringConvertible, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The largest magnitude accepted from text (10^20), far inside the 128-bit limit (about 1.7 × 10^29).
    ///
    /// It does not make every product safe — two numbers at this limit multiply to 10^40 — so each input is bounded
    /// again where it is used (an order's quantity and prices by `OrderValidator.checkMagnitudes`, a transfer's amount,
    /// a game's cash), and what multiplies two inputs uses `multipliedReportingOverflow`. It stays this wide because
    /// stored balances and volumes are read back through it.
    public static let maximumParsedMagnitude = FixedDecimal(raw: Int128(1_000_000_000_000_000_000) * 100 * unit)

    public init(integerLiteral value: Int) { self.init(value) }

    /// Parses "150.25", "-0.5", "+3", ".5", "10.0", "1e-7", "1.5E3" exactly; nil for anything else.
    public init?(_ description: String) {
        guard let value = try? FixedDecimal(parsing: description) else { return nil }
        self = value
    }

    /// Parses the forms JSON and Alpaca use (a JSON number's text or a decimal string) exactly.
    /// More than nine fractional digits is an error, never a silent rounding.
    public init(parsing text: String) throws(DecimalParseError) {
        var utf8 = Array(text.utf8)[...]
        guard !utf8.isEmpty else { throw .empty }
        var negative = false
        if let first = utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            utf8 = utf8.dropFirst()
        }
        // Split off an exponent.
        var exponent = 0
        if let e = utf8.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            var expDigits = utf8[(e + 1)...]
            var expNegative = false
            if let sign = expDigits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                expNegative = sign == UInt8(ascii: "-")
                expDigits = expDigits.dropFirst()
            }
            guard !expDigits.isEmpty, expDigits.count <= 4 else { throw .invalidCharacter(text) }
            for d in expDigits {
                guard d >= 48 && d <= 57 else { throw .invalidCharacter(text) }
                exponent = exponent * 10 + Int(d - 48)
            }
            if expNegative { exponent = -exponent }
            utf8 = utf8[..<e]
        }
        var digits: Int128 = 0
        var fractional = 0
        var sawPoint = false
        var sawDigit = false
        var significant = 0
        for c in utf8 {
            if c == UInt8(ascii: ".") {
                guard !sawPoint else { throw .invalidCharacter(text) }
                sawPoint = true
                continue
            }
            guard c >= 48 && c <= 57 else { throw .invalidCharacter(text) }
            sawDigit = true
            if digits != 0 || c != 48 { significant += 1 }
            guard significant <= 36 else { throw .outOfRange(text) }
            digits = digits * 10 + Int128(c - 48)
            if sawPoint { fractional += 1 }
        }
        guard sawDigit else { throw .invalidCharacter(text) }
        // value = digits × 10^(exponent − fractional); raw = value × 10^9.
        var shift = Self.scale + exponent - fractional
        if shift < 0 {
            // Only trailing zeros may be dropped.
            while shift < 0 {
                guard digits % 10 == 0 else { throw .tooManyFractionalDigits(text) }
                digits /= 10
                shift += 1
            }
        }
        guard shift <= 38 else {
            if digits == 0 {
                self.init(raw: 0)
                return
            }
            throw .outOfRange(text)
        }
        let (scaled, overflow) = digits.multipliedReportingOverflow(by: Self.powerOfTen(shift))
        guard !overflow, scaled <= Self.maximumParsedMagnitude.raw else { throw .outOfRange(text) }
        self.init(raw: negative ? -scaled : scaled)
    }

    /// The shortest exact form: "150.25", "10", "0.000000001", "-3.5".
    public var description: String { formatted(minimumPlaces: 0) }

    /// Exactly `places` fractional digits (rounded half-up if the number has more): "100000.00" for cash.
    public func formatted(places: Int) -> String {
        rounded(places: places, rule: .halfUp).formatted(minimumPlaces: places, maximumPlaces: places)
    }

    /// At least `minimumPlaces` fractional digits, more only where the number needs them.
    public func formatted(minimumPlaces: Int, maximumPlaces: Int = FixedDecimal.scale) -> String {
        Self.formattedFast(raw, minimumPlaces: minimumPlaces, maximumPlaces: maximumPlaces)
            ?? formattedWide(minimumPlaces: minimumPlaces, maximumPlaces: maximumPlaces)
    }

    /// The general path of `formatted(minimumPlaces:maximumPlaces:)`: any magnitude, rounding half-up where fewer
    /// places are asked for than the number has.
    func formattedWide(minimumPlaces: Int, maximumPlaces: Int) -> String {
        let negative = raw < 0
        let magnitude = negative ? -raw : raw
        let whole = magnitude / Self.unit
        var fraction = magnitude % Self.unit
        var places = Self.scale
        while places > minimumPlaces && places > 0 && fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        if places > maximumPlaces {
            // Caller asked for fewer digits than the value has: round half-up first.
            return rounded(places: maximumPlaces, rule: .halfUp).formatted(
                minimumPlaces: minimumPlaces,
                maximumPlaces: maximumPlaces)
        }
        var text = negative ? "-" : ""
        text += String(whole)
        if places > 0 {
            var fractionText = String(fraction)
            if fractionText.count < places {
                fractionText = String(repeating: "0", count: places - fractionText.count) + fractionText
            }
            text += "." + fractionText
        }
        return text
    }
}

extension FixedDecimal {
    /// `formatted(minimumPlaces:maximumPlaces:)` for magnitudes below 2⁶⁴ units (about 18 billion) that need no
    /// rounding — every price and nearly every amount — in 64-bit arithmetic, digit by digit: the
    /// 128-bit divisions and the string concatenations of the general path cost an API response encoding thousands
    /// of figures a fifth of its time. nil: take the general path.
    @inline(__always)
    static func formattedFast(_ raw: Int128, minimumPlaces: Int, maximumPlaces: Int) -> String? {
        let magnitude = raw.magnitude
        guard magnitude <= UInt128(UInt64.max), minimumPlaces >= 0 else { return nil }
        let units = UInt64(magnitude)
        let whole = units / 1_000_000_000
        var fraction = units % 1_000_000_000
        var places = scale
        while places > minimumPlaces && places > 0 && fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        guard places <= maximumPlaces else { return nil }
        // Scalar by scalar: a price's text (15 bytes or fewer) stays inside the String, with no allocation.
        var text = ""
        var scalars = text.unicodeScalars
        func digit(_ d: UInt64) { scalars.append(Unicode.Scalar(UInt8(ascii: "0") + UInt8(d))) }
        if raw < 0 { scalars.append("-") }
        var power: UInt64 = 1
        while power <= whole / 10 { power *= 10 }
        var w = whole
        while power > 0 {
            digit(w / power)
            w %= power
            power /= 10
        }
        if places > 0 {
            scalars.append(".")
            var unit: UInt64 = 1
            for _ in 1..<places { unit *= 10 }
            var f = fraction
            while unit > 0 {
                digit(f / unit)
                f %= unit
                unit /= 10
            }
        }
        text.unicodeScalars = scalars
        return text
    }
}

extension FixedDecimal: Codable {
    /// Decodes a JSON string ("150.25") or a JSON integer; encodes as a string, as Alpaca does.
    /// (A JSON number with a fraction must be read from its source text by the edge decoder, never via Double.)
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            do { self = try FixedDecimal(parsing: text) } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
            }
        } else {
            let integer = try container.decode(Int.self)
            self.init(integer)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A price per unit of an instrument, in the instrument's currency.
public typealias Price = FixedDecimal
/// A number of shares (fractional for US notional orders).
public typealias Quantity = FixedDecimal
