/// Alpaca's rules for an order on a crypto pair, checked before the rules every order meets (quantity steps, ticks,
/// buying power): market, limit or stop-limit orders, good until canceled or immediate-or-cancel, simple, without
/// the extended-hours flag (the market never closes), a notional only on a market order, and no sale of more than is
/// held — crypto is never sold short, and never bought on margin (`TradingEngine.buyingPower`).
///
/// Alpaca's own words are kept where its clients match on them ("invalid crypto time_in_force").
extension OrderValidator {
    func validateCrypto(_ r: OrderRequest) throws(OrderRejection) {
        let symbol = instrument.symbol
        guard r.type == .market || r.type == .limit || r.type == .stopLimit else {
            throw OrderRejection(
                .invalidInput,
                "invalid crypto order type \(r.type.rawValue): crypto orders are market, limit or stop_limit",
                facts: .init("crypto.order_type", ["type": r.type.rawValue]))
        }
        guard r.timeInForce == .gtc || r.timeInForce == .ioc else {
            throw OrderRejection(
                .invalidInput, "invalid crypto time_in_force",
                facts: .init("crypto.time_in_force", ["tif": r.timeInForce.rawValue]))
        }
        guard r.orderClass == .simple else {
            throw OrderRejection(
                .invalidInput,
                "\(r.orderClass.rawValue) orders are not available for crypto: place simple orders",
                facts: .init("crypto.order_class", ["class": r.orderClass.rawValue]))
        }
        if r.extendedHours {
            throw OrderRejection(
                .invalidInput, "extended_hours does not apply to crypto, which trades around the clock",
                facts: .init("crypto.extended_hours", [:]))
        }
        if r.notional != nil, r.type != .market {
            throw OrderRejection(
                .invalidInput, "notional crypto orders must be market orders: give qty with a limit price",
                facts: .init("crypto.notional_type", ["type": r.type.rawValue]))
        }
        if intent == .sellToOpen {
            let coin = symbol.split(separator: "/").first.map(String.init) ?? symbol
            let requested = (r.qty ?? sellQtyEstimate(r))?.description ?? r.notional?.description ?? "0"
            throw OrderRejection(
                .insufficientQty, "insufficient balance for \(coin) (requested: \(requested), available: 0)",
                facts: .init("crypto.no_balance", ["coin": coin, "requested": requested, "symbol": symbol]))
        }
    }
}
