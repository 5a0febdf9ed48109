/// An ISO 4217 currency an account or instrument is denominated in.
public enum Currency: String, Sendable, Codable, CaseIterable, Hashable {
    case usd = "USD"
    case cny = "CNY"
    case hkd = "HKD"
    // The G10 currencies beside the dollar, and offshore yuan: what the forex pairs trade (`Instrument.forexPair`).
    case eur = "EUR"
    case gbp = "GBP"
    case jpy = "JPY"
    case chf = "CHF"
    case cad = "CAD"
    case aud = "AUD"
    case nzd = "NZD"
    case sek = "SEK"
    case nok = "NOK"
    /// Offshore yuan (traded in Hong Kong, freely convertible); an A-share account's yuan are CNY.
    case cnh = "CNH"

    /// Digits of the minor unit (cents, fen; the yen has none): cash balances are kept to this precision.
    public var minorUnitDigits: Int { self == .jpy ? 0 : 2 }

    /// One minor unit: 0.01.
    public var minorUnit: FixedDecimal { FixedDecimal(units: 1, exponent: minorUnitDigits) }

    public var symbol: String {
        switch self {
        case .usd: return "$"
        case .cny: return "¥"
        case .hkd: return "HK$"
        case .eur: return "€"
        case .gbp: return "£"
        case .jpy: return "¥"
        case .chf: return "CHF "
        case .cad: return "C$"
        case .aud: return "A$"
        case .nzd: return "NZ$"
        case .sek: return "kr "
        case .nok: return "kr "
        case .cnh: return "CNH "
        }
    }

    /// Rounds an amount to the minor unit ("to cents / fen") by the given rule.
    public func round(_ amount: FixedDecimal, _ rule: RoundingRule) -> FixedDecimal {
        amount.rounded(places: minorUnitDigits, rule: rule)
    }
}
