import TradingCore

/// What an owner is told of their queue, in their language: a rule's order placed ("buy 100 shares of 600519 at the
/// limit-up price ¥1,859.00"), its order refused and why, the queue left empty.
struct QueueWording {
    let text: Catalogue
    /// The account's currency symbol ("$", "¥").
    let currency: String

    func money(_ p: FixedDecimal) -> String { MoneyText.text(p, symbol: currency) }

    /// "buy 100 shares of 600519", "买入 600519 100 股".
    func describe(_ rule: QueueRule) -> String {
        let side = text(rule.action.side == .buy ? "side.buy" : "side.sell")
        if let qty = rule.action.qty {
            return text(
                "queue.what.qty",
                [
                    "side": side, "qty": qty.description, "symbol": rule.symbol,
                    "unit": text(qty == .one ? "shares.one" : "shares.other"),
                ])
        }
        let amount = money(rule.action.notional ?? .zero)
        return text("queue.what.notional", ["side": side, "amount": amount, "symbol": rule.symbol])
    }

    /// The rule fired at `price` and placed `order`.
    func placed(_ rule: QueueRule, order: Order, price: Price) -> (title: String, body: String) {
        let pricing: String
        switch order.limitPrice {
        case let limit? where rule.action.pricing == .limitUp:
            pricing = text("queue.pricing.limit_up", ["price": money(limit)])
        case let limit?: pricing = text("queue.pricing.limit", ["price": money(limit)])
        case nil: pricing = text("queue.pricing.market")
        }
        return (
            text("queue.placed.title"),
            text("queue.placed.body", ["what": describe(rule), "pricing": pricing, "price": money(price)])
        )
    }

    /// The rule fired but its order was refused: the reason (kept with the rule) and the notification.
    func failed(_ rule: QueueRule, _ rejection: OrderRejection) -> (reason: String, title: String, body: String) {
        let reason = RejectionWording.message(rejection, in: text.language)
        let cash = rejection.reason == .insufficientBuyingPower
        return (
            reason,
            text(cash ? "queue.failed.title.cash" : "queue.failed.title"),
            text("queue.failed.body", ["what": describe(rule), "reason": cash ? text("queue.failed.cash") : reason])
        )
    }
}
