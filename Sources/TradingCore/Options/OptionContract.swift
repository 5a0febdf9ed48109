/// Whether an option gives the right to buy (call) or to sell (put) the underlying at the strike.
public enum OptionRight: String, Sendable, Codable, Hashable, CaseIterable {
    case call
    case put

    /// The letter OCC symbols carry: C or P.
    public var letter: Character { self == .call ? "C" : "P" }
}

/// When an option may be exercised: any day up to expiry (US equity and ETF options) or only at expiry (broad index
/// options).
public enum OptionStyle: String, Sendable, Codable, Hashable {
    case american
    case european
}

/// One listed option contract: the underlying, the expiration date, call or put, the strike, and how many shares one
/// contract delivers. A value with no prices — the chain (MarketData) prices it, the engine trades it.
///
/// Its name on the wire is the OCC (OSI) symbol as Alpaca writes it, without the root's padding:
/// `AAPL261218C00250000` = AAPL, 2026-12-18, call, strike 250.000 (strike × 1000 in eight digits).
public struct OptionContract: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The OCC root: the underlying's symbol for standard contracts (up to 6 characters), an adjusted root such as
    /// `AAPL1` after a corporate action changed the deliverable.
    public let root: String
    /// The stock or ETF delivered on exercise.
    public let underlying: String
    public let expiration: CivilDate
    public let right: OptionRight
    /// Dollars per share, at most three decimal places (OCC's grid).
    public let strike: Price
    /// The strike in thousandths of a dollar, as OCC writes it (an integer the pricing models read without
    /// converting a 128-bit decimal per contract).
    public let strikeMillis: Int
    /// The premium's multiplier (100): a contract's value is its price × multiplier, and exercising it pays (or
    /// takes) the strike × multiplier.
    public let multiplier: Int
    /// Shares delivered on exercise: the multiplier for a standard contract; after a split that is not a whole
    /// number (3:2, 1:10) the adjusted contract delivers 100 × the ratio (150, 10) at the same strike, as OCC adjusts.
    public let deliverable: Int
    public let style: OptionStyle

    /// The largest strike an OCC symbol can write: 99,999.999.
    public static let maximumStrike = FixedDecimal(units: 99_999_999, exponent: 3)

    /// A standard contract (100 shares, American, the underlying as the root). nil when the strike is not a
    /// positive price on OCC's $0.001 grid below $100,000 or the underlying cannot be a root.
    public init?(
        underlying: String, expiration: CivilDate, right: OptionRight, strike: Price,
        multiplier: Int = 100, style: OptionStyle = .american, root: String? = nil, deliverable: Int? = nil
    ) {
        let root = root ?? underlying
        guard Self.isValidRoot(root), !underlying.isEmpty, strike.isPositive, strike <= Self.maximumStrike,
            strike.isMultiple(of: FixedDecimal(units: 1, exponent: 3)), multiplier > 0, (deliverable ?? 1) > 0,
            (0...99).contains(expiration.year - 2000)
        else { return nil }
        self.deliverable = deliverable ?? multiplier
        self.root = root
        self.underlying = underlying
        self.expiration = expiration
        self.right = right
        self.strike = strike
        strikeMillis = Int(truncatingIfNeeded: Int64(strike.raw / (FixedDecimal.one.raw / 1000)))
        self.multiplier = multiplier
        self.style = style
    }

    /// The multiplier of the contract an OCC symbol names (nil for anything that is not one: a stock's symbol is
    /// never sixteen characters with a date and strike in them). Ledgers keep symbols; this says which are contracts.
    public static func multiplier(ofSymbol symbol: String) -> Int? {
        guard symbol.utf8.count >= 16 else { return nil }
        return OptionContract(occSymbol: symbol)?.multiplier
    }

    /// Parses an OCC symbol, padded (`SPY   251124C00692000`) or not (`SPY251124C00692000`), any case. The last
    /// fifteen characters are fixed (date, right, strike), so it is read from the right: roots vary in length and
    /// adjusted roots carry digits. nil for anything else — a malformed symbol is never guessed at.
    public init?(occSymbol text: String) {
        let chars = Array(text.uppercased().utf8)
        guard chars.count >= 16, chars.count <= 21 else { return nil }
        let tail = chars.suffix(15)
        // The 21-character form pads the root with trailing spaces; a space anywhere else is not a symbol.
        var rootBytes = chars.prefix(chars.count - 15)
        while rootBytes.last == UInt8(ascii: " ") { rootBytes = rootBytes.dropLast() }
        let root = String(decoding: rootBytes, as: UTF8.self)
        func digits(_ slice: ArraySlice<UInt8>) -> Int? {
            var value = 0
            for byte in slice {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let t = Array(tail)
        guard let yy = digits(t[0..<2]), let mm = digits(t[2..<4]), let dd = digits(t[4..<6]),
            let strikeMillis = digits(t[7..<15]), CivilDate.isValid(2000 + yy, mm, dd)
        else { return nil }
        let right: OptionRight
        switch t[6] {
        case UInt8(ascii: "C"): right = .call
        case UInt8(ascii: "P"): right = .put
        default: return nil
        }
        // An adjusted root (AAPL1) delivers the underlying it was adjusted from; the chain knows its deliverable.
        self.init(
            underlying: Self.underlying(ofRoot: root), expiration: CivilDate(2000 + yy, mm, dd), right: right,
            strike: FixedDecimal(units: strikeMillis, exponent: 3), root: root)
    }

    /// OCC roots: 1–6 characters, letters first, then letters, digits or a dot (`BRK.B` is written `BRKB`).
    static func isValidRoot(_ root: String) -> Bool {
        guard (1...6).contains(root.utf8.count), let first = root.utf8.first,
            first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z")
        else { return false }
        return root.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
        }
    }

    /// The underlying a root names: the root without the digit an adjustment appended.
    public static func underlying(ofRoot root: String) -> String {
        var text = Substring(root)
        while let last = text.last, last.isNumber, text.count > 1 { text = text.dropLast() }
        return String(text)
    }

    /// The OCC symbol without padding, as Alpaca writes it: `AAPL261218C00250000`.
    public var occSymbol: String {
        let yy = expiration.year - 2000
        let millis = Int128(strikeMillis)
        func pad(_ value: Int128, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return root + pad(Int128(yy), 2) + pad(Int128(expiration.month), 2) + pad(Int128(expiration.day), 2)
            + String(right.letter) + pad(millis, 8)
    }

    public var description: String { occSymbol }

    /// `AAPL Dec 18 2026 250 Call`, as Alpaca names contracts.
    public var name: String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = expiration.day < 10 ? "0\(expiration.day)" : "\(expiration.day)"
        return "\(root) \(months[expiration.month - 1]) \(day) \(expiration.year) \(strike.description) "
            + (right == .call ? "Call" : "Put")
    }

    /// Whether exercise delivers other than `multiplier` shares (an adjusted contract).
    public var isAdjusted: Bool { deliverable != multiplier }

    /// What the deliverable is worth per unit of premium at an underlying price: the price itself for a standard
    /// contract, price × deliverable ÷ multiplier for an adjusted one (150 shares at $100 for a 100-multiplier
    /// contract: $150). Models price an adjusted contract as a standard one on this.
    public func deliverablePrice(at underlyingPrice: Price) -> Price {
        guard isAdjusted else { return underlyingPrice }
        return underlyingPrice.times(deliverable).divided(by: FixedDecimal(multiplier), rule: .halfEven)
            ?? underlyingPrice
    }

    /// What exercising is worth per unit of premium at an underlying price: max(S − K, 0) for a call, max(K − S, 0)
    /// for a put (S the deliverable's price per unit, `deliverablePrice`).
    public func intrinsicValue(at underlyingPrice: Price) -> Price {
        let price = deliverablePrice(at: underlyingPrice)
        let value = right == .call ? price - strike : strike - price
        return value.isPositive ? value : .zero
    }

    /// The contract with an adjusted root delivering `deliverable` shares at the same strike (nil when the root is not
    /// a valid OCC root).
    public func adjusted(root: String, deliverable: Int) -> OptionContract? {
        OptionContract(
            underlying: underlying, expiration: expiration, right: right, strike: strike, multiplier: multiplier,
            style: style, root: root, deliverable: deliverable)
    }

    enum CodingKeys: String, CodingKey {
        case root, underlying, expiration, right, strike, strikeMillis, multiplier, deliverable, style
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        root = try c.decode(String.self, forKey: .root)
        underlying = try c.decode(String.self, forKey: .underlying)
        expiration = try c.decode(CivilDate.self, forKey: .expiration)
        right = try c.decode(OptionRight.self, forKey: .right)
        strike = try c.decode(Price.self, forKey: .strike)
        strikeMillis = try c.decode(Int.self, forKey: .strikeMillis)
        multiplier = try c.decode(Int.self, forKey: .multiplier)
        // (Contracts written before adjusted contracts existed deliver their multiplier.)
        deliverable = try c.decodeIfPresent(Int.self, forKey: .deliverable) ?? multiplier
        style = try c.decode(OptionStyle.self, forKey: .style)
    }

    /// Chain order: underlying, expiration, strike, calls before puts.
    public static func < (lhs: OptionContract, rhs: OptionContract) -> Bool {
        if lhs.underlying != rhs.underlying { return lhs.underlying < rhs.underlying }
        if lhs.expiration != rhs.expiration { return lhs.expiration < rhs.expiration }
        if lhs.strike != rhs.strike { return lhs.strike < rhs.strike }
        if lhs.right != rhs.right { return lhs.right == .call }
        return lhs.root < rhs.root
    }
}
