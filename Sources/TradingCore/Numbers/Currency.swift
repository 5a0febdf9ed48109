/// An ISO 4217 currency an account or instrument is denominated in.
public enum Currency: String, Sendable, Codable, CaseIterable, Hashable {
    case usd = "USD"
    case cny = "CNY"
    case hkd = "HKD"

    /// Digits of the minor unit (cents, fen): cash balances are kept to this precision.
    public var minorUnitDigits: Int { 2 }

    /// One minor unit: 0.01.
    public var minorUnit: FixedDecimal { FixedDecimal(units: 1, exponent: minorUnitDigits) }

    public var symbol: String {
        switch self {
        case .usd: return "$"
        case .cny: return "¥"
        case .hkd: return "HK$"
        }
    }

    /// Rounds an amount to the minor unit ("to cents / fen") by the given rule.
    public func round(_ amount: FixedDecimal, _ rule: RoundingRule) -> FixedDecimal {
        amount.rounded(places: minorUnitDigits, rule: rule)
    }
}
