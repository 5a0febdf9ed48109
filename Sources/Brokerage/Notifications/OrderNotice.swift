import BrokerageModel
import TradingCore

/// What an owner is told of their orders: a complete fill, or an order the system (not the user) ended. Everything
/// else an order goes through (new, accepted, partial fills, the user's own cancel) is told by the order's stream only.
enum OrderNotice {
    /// Whether the update deserves a notification (decided before anything is looked up: most updates do not).
    static func isWorthTelling(_ update: OrderUpdate) -> Bool {
        let o = update.order
        switch update.event {
        case .fill where o.status == .filled: break
        case .canceled where o.reason != nil && o.reason != "account reset": break
        default: return false
        }
        // A multi-leg order is told once: each leg's fill says what it traded (the package's parent trades nothing
        // itself), and a cancellation is the package's (its legs end with it).
        return !(o.orderClass == .mleg && (o.parentID == nil) == (update.event == .fill))
    }

    /// The notification, worded in `text`'s language with amounts in `currency` (nil when not worth telling).
    static func record(_ update: OrderUpdate, owner: UserID, text: Catalogue, currency: String) -> NotificationRecord? {
        guard isWorthTelling(update) else { return nil }
        let o = update.order
        let title: String
        let body: String
        let kind: String
        switch update.event {
        case .fill:
            kind = "fill"
            let side = o.side == .buy ? "buy" : "sell"
            title = text("fill.title." + side, ["symbol": text.instrumentName(o.symbol)])
            // A currency pair's quantity is its base currency, and its price a rate in its quote currency.
            let pair = CurrencyPair(symbol: o.symbol)
            body = text(
                "fill.body." + side,
                [
                    "symbol": text.instrumentName(o.symbol), "qty": o.filledQty.description,
                    // (An option's quantity is contracts.)
                    "unit": pair?.base.rawValue
                        ?? text(
                            (OptionContract(occSymbol: o.symbol) == nil ? "shares" : "contracts")
                                + (o.filledQty == .one ? ".one" : ".other")),
                    "at": o.filledAvgPrice.map {
                        text("fill.at", ["price": pair == nil ? MoneyText.text($0, symbol: currency) : $0.description])
                    } ?? "",
                ])
        default:
            kind = "order_canceled"
            title = text("canceled.title", ["symbol": text.instrumentName(o.symbol)])
            body = o.reason ?? ""
        }
        return NotificationRecord(
            id: PendingCommit.notificationID(), userID: owner, accountID: o.accountID, kind: kind,
            title: title, body: body, createdAt: update.time)
    }
}
