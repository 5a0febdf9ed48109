import TradingCore

/// A dividend or split booked to an account, in its owner's language ("AAPL paid a dividend of $0.24 a share on 100
/// shares: $24.00", "AAPL 2-for-1 split: 100 shares became 200").
struct CorporateActionWording {
    let text: Catalogue
    let currency: Currency

    func money(_ amount: FixedDecimal) -> String {
        MoneyText.text(amount.magnitude.rounded(places: 2, rule: .halfUp), symbol: currency.symbol)
    }

    /// The notification's kind for a booking: a dividend's or a split's (a bonus issue is told as a split).
    static func kind(of b: CorporateActionBooking) -> String { b.kind == .cashDividend ? "dividend" : "split" }

    /// The notification's kind, title and body for a booking that moved `cash`.
    func booked(_ b: CorporateActionBooking, cash: FixedDecimal) -> (kind: String, title: String, body: String) {
        switch b.kind {
        case .cashDividend:
            let values = [
                "symbol": b.symbol, "cash": MoneyText.text(b.cashPerShare, symbol: currency.symbol, minimumPlaces: 0),
                "qty": b.qtyBefore.magnitude.description, "amount": money(cash),
            ]
            return (
                Self.kind(of: b), text("action.dividend.title", values),
                text(b.qtyBefore.isNegative ? "action.dividend.short.body" : "action.dividend.body", values)
            )
        case .forwardSplit, .reverseSplit, .stockDividend:
            let lieu =
                b.fractionPaid.isPositive
                ? text("action.lieu", ["fraction": b.fractionPaid.description, "amount": money(cash)]) : ""
            let bonus = b.kind == .stockDividend
            let values = [
                "symbol": b.symbol, "before": b.qtyBefore.description, "after": b.qtyAfter.description, "lieu": lieu,
                "ratio": bonus ? b.newRate.description : "\(b.newRate)-for-\(b.oldRate)",
            ]
            return (
                Self.kind(of: b), text(bonus ? "action.bonus.title" : "action.split.title", values),
                text(bonus ? "action.bonus.body" : "action.split.body", values)
            )
        }
    }
}
