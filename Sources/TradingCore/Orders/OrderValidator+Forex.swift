/// The rules for an order on a currency pair (IB's IDEALPRO), checked instead of the securities' position rules: the
/// account's own currency is one side of the pair (dollar accounts trade the pairs against the dollar; a yuan
/// account converts by transfer), market or limit orders, simple, day, good until canceled or immediate-or-cancel,
/// a quantity of the base currency to the cent, and the currency the order pays with held: a purchase pays the quote
/// currency (`qty` × the limit, or the ask with the market cushion), a sale pays `qty` of the base. Currencies are
/// never borrowed or sold short.
extension OrderValidator {
    func validateForex(_ r: OrderRequest) throws(OrderRejection) {
        let symbol = instrument.symbol
        guard let pair = instrument.currencyPair, pair.other(than: account.currency) != nil else {
            throw OrderRejection(
                .currencyMismatch,
                "\(symbol) trades \(instrument.currencyPair?.base.rawValue ?? symbol) against \(instrument.currency.rawValue); this account holds \(account.currency.rawValue) — trade currency pairs in your USD account, and move money between your accounts with a transfer",
                facts: .init(
                    "forex.account_currency", ["symbol": symbol, "account_currency": account.currency.rawValue]))
        }
        if account.inGame, let rules = account.gameRules {
            try validateGameStanding(rules, r)
            guard rules.forexAllowed else {
                throw OrderRejection(
                    .gameRule, "This game does not allow currencies: it is played with stocks and ETFs (\(symbol))",
                    facts: .init("game.no_forex", ["symbol": symbol]))
            }
        }
        guard r.type == .market || r.type == .limit else {
            throw OrderRejection(
                .invalidInput,
                "\(r.type.rawValue) orders are not available on currency pairs: place market or limit orders",
                facts: .init("forex.order_type", ["type": r.type.rawValue]))
        }
        guard r.timeInForce == .day || r.timeInForce == .gtc || r.timeInForce == .ioc else {
            throw OrderRejection(
                .invalidInput,
                "time_in_force \(r.timeInForce.rawValue) is not available on currency pairs: use day, gtc or ioc",
                facts: .init("forex.time_in_force", ["tif": r.timeInForce.rawValue]))
        }
        guard r.orderClass == .simple else {
            throw OrderRejection(
                .invalidInput,
                "\(r.orderClass.rawValue) orders are not available on currency pairs: place simple orders",
                facts: .init("forex.order_class", ["class": r.orderClass.rawValue]))
        }
        if r.extendedHours {
            throw OrderRejection(
                .invalidInput,
                "extended_hours does not apply to currency pairs, which trade around the clock on weekdays")
        }
        guard let qty = r.qty, r.notional == nil else {
            throw OrderRejection(
                .invalidInput,
                "orders on currency pairs give qty, an amount of \(pair.base.rawValue) (IB's cashQty and fxQty become one)"
            )
        }
        guard qty.isPositive else { throw OrderRejection(.invalidInput, "qty must be > 0") }
        guard qty.isMultiple(of: pair.base.minorUnit) else {
            throw OrderRejection(
                .lotSize,
                "qty \(qty) has more than \(pair.base.minorUnitDigits) decimal places: \(pair.base.rawValue) is traded to its minor unit",
                facts: .init("forex.qty_places", ["qty": qty.description, "currency": pair.base.rawValue]))
        }
        try validatePrices(r)
        try validateTimeInForce(r)
        try validateClientOrderID(r)
        if r.type == .market, market.bestAsk == nil, market.bestBid == nil, market.lastTrade == nil {
            throw OrderRejection(
                .noQuote, "no market price for \(symbol) yet; place a limit order instead",
                facts: .init("no_quote", ["symbol": symbol]))
        }
        // What it pays, exactly as the engine will hold it (`buyCost`), against what the account has of that currency.
        let paid = pair.paid(r.side)
        let available = account.available(paid)
        guard buyCost <= available else {
            let places = paid.minorUnitDigits
            let (required, left) = (
                buyCost.formatted(places: places), Swift.max(.zero, available).formatted(places: places)
            )
            throw OrderRejection(
                paid == account.currency ? .insufficientBuyingPower : .insufficientQty,
                "insufficient \(paid.rawValue) balance to \(r.side == .buy ? "buy" : "sell") \(qty) \(symbol) (required: \(required) \(paid.rawValue), available: \(left) \(paid.rawValue))",
                facts: .init(
                    "forex.insufficient_balance",
                    ["currency": paid.rawValue, "required": required, "available": left, "symbol": symbol]))
        }
    }
}
