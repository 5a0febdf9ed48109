import TradingCore

/// Amounts as the server writes them for people (notifications, alerts, pushes): the currency's sign and the digits
/// grouped by thousands, "¥1,544.78" and "$25,000.00" — as the app shows the same amounts.
enum MoneyText {
    /// `symbol` then `amount` with at least `minimumPlaces` decimals (more only where the amount has them).
    static func text(_ amount: FixedDecimal, symbol: String, minimumPlaces: Int = 2) -> String {
        symbol + grouped(amount.formatted(minimumPlaces: minimumPlaces))
    }

    /// "-1234567.5" → "-1,234,567.5".
    static func grouped(_ plain: String) -> String {
        let negative = plain.hasPrefix("-")
        let unsigned = negative ? plain.dropFirst() : Substring(plain)
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = Array(parts.first ?? "")
        var out = ""
        for (i, digit) in whole.enumerated() {
            if i > 0, (whole.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        if parts.count > 1 { out += "." + parts[1] }
        return (negative ? "-" : "") + out
    }
}
