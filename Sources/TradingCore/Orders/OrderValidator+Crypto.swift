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

    /// An order on a pair priced in another coin (`BTC/USDT`): Alpaca's crypto rules, then a quantity (a notional
    /// is in dollars, which such a pair is not priced in), the pair's steps and ticks, and enough of the coin it
    /// pays with — the quote coin for a purchase, the base coin for a sale — free of other orders.
    func validateCoinPair(_ r: OrderRequest, pair: CoinPair) throws(OrderRejection) {
        try validateCrypto(r)
        if r.notional != nil {
            throw OrderRejection(
                .invalidInput,
                "\(pair) is priced in \(pair.quote), not dollars: give qty (in \(pair.base)) instead of notional",
                facts: .init(
                    "crypto.coin_pair_notional", ["symbol": pair.description, "quote": pair.quote, "base": pair.base]))
        }
        try validateTerms(r)
        guard let funds = coinFunds else {
            throw OrderRejection(
                .unsupported, "\(pair) cannot be traded here: \(pair.baseLeg) and \(pair.quoteLeg) must be listed too")
        }
        let needsMarketPrice = r.side == .buy && r.type == .market
        if !funds.rateKnown || (needsMarketPrice && market.bestAsk == nil && market.lastTrade == nil) {
            let symbol = funds.rateKnown ? pair.description : pair.quoteLeg
            throw OrderRejection(
                .noQuote, "no market price for \(symbol) yet; try again in a moment",
                facts: .init("no_quote", ["symbol": symbol]))
        }
        // Quote coins change hands exactly: price × qty must fit the nine places amounts keep.
        let price = r.limitPrice ?? market.bestAsk ?? market.lastTrade ?? .zero
        if let qty = r.qty,
            price.multiplied(by: qty) != price.multiplied(by: qty, places: FixedDecimal.scale, rule: .down)
        {
            throw OrderRejection(
                .invalidInput, "qty × price of \(pair) must come to at most nine decimal places",
                facts: .init("crypto.coin_pair_precision", ["symbol": pair.description]))
        }
        guard funds.needed <= funds.available else {
            throw OrderRejection(
                .insufficientQty,
                "insufficient balance for \(funds.coin) (requested: \(funds.needed), available: \(Swift.max(.zero, funds.available)))",
                facts: .init(
                    "crypto.coin_balance",
                    [
                        "coin": funds.coin, "requested": funds.needed.description,
                        "available": Swift.max(.zero, funds.available).description, "symbol": pair.description,
                    ]))
        }
    }
}
