/// Checks an order request against the instrument's market rules, the market's state and the account, and
/// says precisely why it cannot be placed. Checks run in the order a user would fix them: shape of the
/// request, prices, market hours, lots and limits, then money and shares.
///
/// It holds plain values taken from the engine (never the engine itself, whose storage a copy would pin).
struct OrderValidator {
    /// What the validator knows of the instrument's market at the order's time, as the engine's caches have it.
    struct MarketMoment {
        let phase: MarketPhase
        let isTradingDay: Bool
        let tradingDate: CivilDate
        /// Today's price band, if a reference event set one for today.
        let band: PriceBand?
        let bestBid: Price?
        let bestAsk: Price?
        let lastTrade: Price?
        /// Shares traded so far today, when the market view says (game rules only).
        let dayVolume: Quantity?
    }

    /// The engine's session policy (the one setting of its configuration validation reads: copying the whole
    /// configuration, ~250 bytes, into every validator showed in a backtest's profile).
    let sessions: EngineConfiguration.SessionPolicy
    let account: Account
    let instrumentID: InstrumentID
    let instrument: Instrument
    let time: Timestamp
    /// The instrument's market at `time`.
    let market: MarketMoment
    /// What the request would reserve if it is a buy to open or a short sale.
    let buyCost: FixedDecimal
    /// What the account may spend on it: free cash on cash accounts, Reg T buying power on margin accounts
    /// (the non-marginable figure for stocks under $2.50).
    let buyingPower: FixedDecimal
    /// Whether the request opens or closes a long or a short, from the position now.
    let intent: PositionIntent
    /// The account's margin figures at the engine's marks (margin accounts only).
    let margin: MarginState?
    /// Whether the account already used the request's client order id.
    let clientOrderIDTaken: Bool
    /// The account's equity at the engine's marks, for a game's one-stock limit (nil when it has none).
    let gameEquity: FixedDecimal?
    /// For a sale of a stock: its shares that calls the account wrote hold (they cannot be sold). Zero otherwise.
    var sharesCoveringCalls: Quantity = .zero
    /// For a sale of an option contract: the underlying's shares free to cover written calls. Zero otherwise.
    var sharesFreeToCover: Quantity = .zero
    /// For a sale of an option contract: the cash and shares it adds to what the account's written contracts require
    /// (`SpreadRule`) if it fills whole. None otherwise.
    var optionNeeds = SpreadRule.Requirement.none
    /// For an order on a coin pair (`BTC/USDT`): the coin it pays with and how much of it is free and needed. Nil
    /// otherwise, and when the pair's coins are not registered with the engine.
    var coinFunds: CoinFunds?

    struct CoinFunds {
        /// The coin paid with (`USDT` for a purchase of BTC/USDT, `BTC` for a sale).
        var coin: String
        var needed: Quantity
        var available: Quantity
        /// Whether the quote coin has a dollar price (without one a fill cannot be valued).
        var rateKnown: Bool
    }

    func validate(_ r: OrderRequest) throws(OrderRejection) {
        // Currency pairs pay in one currency and receive another: their own rules (`validateForex`).
        if instrument.kind == .forex { return try validateForex(r) }
        guard instrument.currency == account.currency, instrument.kind != .index else {
            if instrument.kind == .index {
                throw OrderRejection(.unsupported, "\(instrument.symbol) is an index and cannot be traded")
            }
            throw OrderRejection(
                .currencyMismatch,
                "\(instrument.symbol) trades in \(instrument.currency.rawValue); this account holds \(account.currency.rawValue)",
                facts: .init(
                    "currency_mismatch",
                    [
                        "symbol": instrument.symbol, "currency": instrument.currency.rawValue,
                        "account_currency": account.currency.rawValue,
                    ]))
        }
        if let pair = instrument.coinPair { return try validateCoinPair(r, pair: pair) }
        if let contract = instrument.option { try validateOption(r, contract: contract) }
        if instrument.kind == .crypto { try validateCrypto(r) }
        try validateTerms(r)
        switch intent {
        case .sellToClose:
            try validateSellable(r)
            if let contract = instrument.option { try validateCoverKept(r, contract: contract) }
        case .sellToOpen:
            if let contract = instrument.option {
                try validateWrite(r, contract: contract)
            } else {
                try validateShortSale(r)
            }
        case .buyToClose: try instrument.option == nil ? validateCover(r) : validateBuyBack(r)
        case .buyToOpen: try validateBuyingPower(r)
        }
        // (Crypto trades are not day trades: the pattern day trader rule counts securities.)
        if !r.isLiquidation, instrument.kind != .crypto { try validateDayTrading() }
    }

    /// The order's own terms, before the money and shares it needs: quantity, prices, a game's rules, time in force,
    /// class, client order id, price limits and lots.
    func validateTerms(_ r: OrderRequest) throws(OrderRejection) {
        try validateQuantity(r)
        try validatePrices(r)
        try validateGameRules(r)
        try validateTimeInForce(r)
        try validateOrderClass(r)
        try validateClientOrderID(r)
        try validatePriceLimits(r)
        try validateLots(r)
    }

    // MARK: Magnitudes

    /// The largest notional any order may name.
    static let maximumNotional = FixedDecimal(1_000_000_000_000)

    /// Refuses a quantity, notional or price beyond the configured maximums, before anything is computed from them.
    ///
    /// Runs first, ahead of the reservation the validator is built with: that multiplies quantity by price, and two
    /// numbers each refused alone (qty 10^20 × limit 10^14) overflowed the product and trapped the process. Within
    /// these bounds every product the engine forms (value, fees, margin) fits with room to spare.
    static func checkMagnitudes(_ r: OrderRequest, configuration: EngineConfiguration) throws(OrderRejection) {
        if let note = r.note, note.count > OrderRequest.longestNote {
            throw OrderRejection(
                .invalidInput, "note is \(note.count) characters; at most \(OrderRequest.longestNote) are kept")
        }
        if let qty = r.qty, qty > configuration.maximumQty {
            throw OrderRejection(.invalidInput, "qty \(qty) exceeds the maximum of \(configuration.maximumQty)")
        }
        if let notional = r.notional, notional > maximumNotional {
            throw OrderRejection(.invalidInput, "notional \(notional) exceeds the maximum of \(maximumNotional)")
        }
        // (Field by field: a list of them was an allocation per order.)
        func check(_ name: String, _ price: Price?) throws(OrderRejection) {
            guard let price, price > configuration.maximumPrice else { return }
            throw OrderRejection(.invalidInput, "\(name) \(price) exceeds the maximum of \(configuration.maximumPrice)")
        }
        try check("limit_price", r.limitPrice)
        try check("stop_price", r.stopPrice)
        try check("trail_price", r.trailPrice)
        try check("take_profit.limit_price", r.takeProfit?.limitPrice)
        try check("stop_loss.stop_price", r.stopLoss?.stopPrice)
        try check("stop_loss.limit_price", r.stopLoss?.limitPrice)
    }

    // MARK: Quantity

    func validateQuantity(_ r: OrderRequest) throws(OrderRejection) {
        switch (r.qty, r.notional) {
        case (nil, nil): throw OrderRejection(.invalidInput, "qty or notional is required")
        case (.some, .some): throw OrderRejection(.invalidInput, "only one of qty or notional may be given")
        case (let qty?, nil):
            guard qty.isPositive else { throw OrderRejection(.invalidInput, "qty must be > 0") }
            if let maximum = instrument.maximumOrderQty, qty > maximum {
                throw OrderRejection(
                    .lotSize,
                    "qty \(qty) exceeds the maximum single order of \(maximum) shares for \(instrument.symbol)",
                    facts: .init(
                        "lot_size.maximum",
                        ["qty": qty.description, "maximum": maximum.description, "symbol": instrument.symbol]))
            }
            if !qty.isInteger, !instrument.lot.admitsFractions {
                guard instrument.fractionable else {
                    throw OrderRejection(
                        .lotSize, "fractional qty \(qty) is not allowed: \(instrument.symbol) trades in whole shares",
                        facts: .init("lot_size.whole", ["qty": qty.description, "symbol": instrument.symbol]))
                }
                guard r.type == .market, r.timeInForce == .day else {
                    throw OrderRejection(
                        .invalidInput, "fractional orders must be market orders with time_in_force day")
                }
            }
        case (nil, let notional?):
            guard notional.isPositive else { throw OrderRejection(.invalidInput, "notional must be > 0") }
            guard notional.isMultiple(of: account.currency.minorUnit) else {
                throw OrderRejection(
                    .invalidInput,
                    "notional \(notional) has more than \(account.currency.minorUnitDigits) decimal places")
            }
            guard instrument.fractionable else {
                throw OrderRejection(
                    .invalidInput,
                    "notional orders are not available for \(instrument.symbol): it trades in whole shares")
            }
            // (Crypto's notional orders are market orders good until canceled or immediate: `validateCrypto`.)
            guard r.type == .market, r.timeInForce == .day || instrument.kind == .crypto else {
                throw OrderRejection(.invalidInput, "notional orders must be market orders with time_in_force day")
            }
            guard !r.extendedHours else {
                throw OrderRejection(.invalidInput, "notional orders are not accepted in extended hours")
            }
        }
    }

    // MARK: Prices

    func validatePrices(_ r: OrderRequest) throws(OrderRejection) {
        switch r.type {
        case .market:
            // (Field by field rather than a loop over a list of them: the list was an allocation per order.)
            if r.limitPrice != nil {
                throw OrderRejection(.invalidInput, "limit_price must not be given for market orders")
            }
            if r.stopPrice != nil {
                throw OrderRejection(.invalidInput, "stop_price must not be given for market orders")
            }
        case .limit:
            guard r.limitPrice != nil else {
                throw OrderRejection(.invalidInput, "limit_price is required for limit orders")
            }
            if r.stopPrice != nil, r.orderClass != .oco {
                throw OrderRejection(.invalidInput, "stop_price must not be given for limit orders")
            }
        case .stop:
            guard r.stopPrice != nil else {
                throw OrderRejection(.invalidInput, "stop_price is required for stop orders")
            }
            if r.limitPrice != nil {
                throw OrderRejection(.invalidInput, "limit_price must not be given for stop orders; use stop_limit")
            }
        case .stopLimit:
            guard r.stopPrice != nil, r.limitPrice != nil else {
                throw OrderRejection(.invalidInput, "stop_price and limit_price are required for stop_limit orders")
            }
        case .trailingStop:
            switch (r.trailPrice, r.trailPercent) {
            case (nil, nil), (.some, .some):
                throw OrderRejection(
                    .invalidInput, "trailing_stop orders need exactly one of trail_price or trail_percent")
            case (let price?, nil):
                guard price.isPositive else { throw OrderRejection(.invalidInput, "trail_price must be > 0") }
                try checkTick("trail_price", price)
            case (nil, let percent?):
                guard percent.isPositive, percent < FixedDecimal(100) else {
                    throw OrderRejection(.invalidInput, "trail_percent must be between 0 and 100")
                }
            }
            guard r.timeInForce == .day || r.timeInForce == .gtc else {
                throw OrderRejection(.invalidInput, "trailing_stop orders must be day or gtc")
            }
            if r.limitPrice != nil || r.stopPrice != nil {
                throw OrderRejection(
                    .invalidInput,
                    "trailing_stop orders take trail_price or trail_percent, not limit_price or stop_price")
            }
        }
        try checkPrice("limit_price", r.limitPrice)
        try checkPrice("stop_price", r.stopPrice)
        try checkPrice("take_profit.limit_price", r.takeProfit?.limitPrice)
        try checkPrice("stop_loss.stop_price", r.stopLoss?.stopPrice)
        try checkPrice("stop_loss.limit_price", r.stopLoss?.limitPrice)
    }

    /// A price the request gives: positive, within the maximum, on the tick grid.
    func checkPrice(_ name: String, _ price: Price?) throws(OrderRejection) {
        guard let price else { return }
        guard price.isPositive else { throw OrderRejection(.invalidInput, "\(name) must be > 0") }
        try checkTick(name, price)
    }

    func checkTick(_ name: String, _ price: Price) throws(OrderRejection) {
        guard !instrument.tick.isValid(price) else { return }
        if case .usEquity = instrument.tick {
            throw OrderRejection(
                .subPenny, "invalid \(name) \(price). sub-penny increment does not fulfill minimum pricing criteria",
                facts: .init("sub_penny", ["name": name, "price": price.description]))
        }
        let step = instrument.tick.tick(at: price)
        throw OrderRejection(
            .offTick,
            "invalid \(name) \(price): \(instrument.exchange.rawValue) prices move in steps of \(step)",
            facts: .init(
                "off_tick",
                [
                    "name": name, "price": price.description, "exchange": instrument.exchange.rawValue,
                    "step": step.description,
                ]))
    }

    // MARK: Time in force and market hours

    func validateTimeInForce(_ r: OrderRequest) throws(OrderRejection) {
        let alwaysOpen = sessions == .alwaysOpen
        // The local minute matters only to auction orders' windows (working it out takes the zone's offset).
        var minute: Int { instrument.calendar.zone.localTime(of: time).secondOfDay / 60 }
        if r.extendedHours {
            guard instrument.market == .us else {
                throw OrderRejection(
                    .invalidInput, "extended hours trading is not available on \(instrument.exchange.rawValue)")
            }
            guard r.type == .limit, r.timeInForce == .day || r.timeInForce == .gtc else {
                throw OrderRejection(
                    .invalidInput, "extended hours orders must be limit orders with time_in_force day or gtc")
            }
        }
        switch r.timeInForce {
        case .opg, .cls:
            guard r.type == .market || r.type == .limit else {
                throw OrderRejection(.invalidInput, "\(r.timeInForce.rawValue) orders must be market or limit orders")
            }
            guard !alwaysOpen else {
                throw OrderRejection(
                    .marketClosed,
                    "\(r.timeInForce.rawValue) orders need auctions, which an always-open market does not hold")
            }
            if let (from, until) = rejectionWindow(r.timeInForce), minute >= from, minute < until, market.isTradingDay {
                throw OrderRejection(
                    .marketClosed,
                    "\(r.timeInForce.rawValue) orders are not accepted between \(clock(from)) and \(clock(until)) \(zoneName)"
                )
            }
        case .ioc, .fok:
            guard market.phase.isRegularTrading || (r.extendedHours && market.phase.isExtendedHours) else {
                throw OrderRejection(
                    .marketClosed,
                    "market is \(market.phase.rawValue.replacingUnderscores); \(r.timeInForce.rawValue) orders need continuous trading"
                )
            }
        case .day, .gtc:
            break
        }
        if instrument.market == .cn, r.type == .market, !market.phase.isRegularTrading {
            throw OrderRejection(
                .marketClosed,
                "market orders for \(instrument.exchange.rawValue) are accepted only during continuous trading (09:30–11:30, 13:00–14:57 CST); market is \(market.phase.rawValue.replacingUnderscores)",
                facts: .init(
                    "market_closed.cn_market_order",
                    ["exchange": instrument.exchange.rawValue, "phase": market.phase.rawValue]))
        }
    }

    /// Local minutes during which an auction order for the next auction is refused.
    func rejectionWindow(_ tif: TimeInForce) -> (Int, Int)? {
        switch (instrument.market, tif) {
        case (.us, .opg): return (9 * 60 + 28, 19 * 60)
        case (.us, .cls): return (15 * 60 + 50, 19 * 60)
        case (.cn, .opg): return (9 * 60 + 25, 15 * 60)
        default: return nil
        }
    }

    var zoneName: String { instrument.market == .us ? "ET" : "CST" }

    func clock(_ minutes: Int) -> String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0\(h)" : "\(h)") + ":" + (m < 10 ? "0\(m)" : "\(m)")
    }

    // MARK: Order classes

    func validateOrderClass(_ r: OrderRequest) throws(OrderRejection) {
        switch r.orderClass {
        case .mleg:
            // (`TradingEngine.submit` sends multi-leg orders to `submitMultiLeg`: this is a single contract's.)
            throw OrderRejection(.invalidInput, "mleg orders name their contracts in legs, not in symbol")
        case .simple:
            if r.takeProfit != nil || r.stopLoss != nil {
                throw OrderRejection(.invalidInput, "take_profit and stop_loss need order_class bracket, oco or oto")
            }
        case .bracket:
            guard let tp = r.takeProfit?.limitPrice, let sl = r.stopLoss?.stopPrice else {
                throw OrderRejection(
                    .invalidInput, "bracket orders need take_profit.limit_price and stop_loss.stop_price")
            }
            try checkEntryAndExits(r, takeProfit: tp, stopLoss: sl)
        case .oto:
            guard (r.takeProfit == nil) != (r.stopLoss == nil) else {
                throw OrderRejection(.invalidInput, "oto orders need exactly one of take_profit or stop_loss")
            }
            try checkEntryAndExits(r, takeProfit: r.takeProfit?.limitPrice, stopLoss: r.stopLoss?.stopPrice)
        case .oco:
            guard r.type == .limit else { throw OrderRejection(.invalidInput, "oco orders must be limit orders") }
            guard intent == .sellToClose || intent == .buyToClose else {
                throw OrderRejection(
                    .invalidInput,
                    "oco orders exit a position: a sell for a long position, a buy for a short one; you have no \(r.side == .sell ? "long" : "short") position in \(instrument.symbol)"
                )
            }
            guard let sl = r.stopLoss?.stopPrice else {
                throw OrderRejection(.invalidInput, "oco orders need stop_loss.stop_price")
            }
            let tp = r.takeProfit?.limitPrice ?? r.limitPrice ?? .zero
            if r.side == .sell, tp <= sl {
                throw OrderRejection(.invalidInput, "take_profit.limit_price must be above stop_loss.stop_price")
            }
            if r.side == .buy, tp >= sl {
                throw OrderRejection(
                    .invalidInput, "take_profit.limit_price must be below stop_loss.stop_price to exit a short")
            }
            guard r.timeInForce == .day || r.timeInForce == .gtc else {
                throw OrderRejection(.invalidInput, "oco orders must be day or gtc")
            }
        }
    }

    /// Entries open a position (a buy, or a short sale); the exits close it: above the entry to take profit on a
    /// long and below it to stop the loss, mirrored for a short.
    func checkEntryAndExits(_ r: OrderRequest, takeProfit: Price?, stopLoss: Price?) throws(OrderRejection) {
        guard intent == .buyToOpen || intent == .sellToOpen else {
            throw OrderRejection(
                .invalidInput,
                "\(r.orderClass.rawValue) orders open a position: this \(r.side.rawValue) would close your \(r.side == .buy ? "short" : "long") position in \(instrument.symbol)"
            )
        }
        guard r.type == .market || r.type == .limit else {
            throw OrderRejection(.invalidInput, "\(r.orderClass.rawValue) entry orders must be market or limit orders")
        }
        guard r.timeInForce == .day || r.timeInForce == .gtc else {
            throw OrderRejection(.invalidInput, "\(r.orderClass.rawValue) orders must be day or gtc")
        }
        guard r.qty != nil else {
            throw OrderRejection(.invalidInput, "\(r.orderClass.rawValue) orders need qty, not notional")
        }
        let long = r.side == .buy
        let (above, below) = long ? ("above", "below") : ("below", "above")
        if let tp = takeProfit, let sl = stopLoss, long ? tp <= sl : tp >= sl {
            throw OrderRejection(
                .invalidInput,
                "take_profit.limit_price must be \(above) stop_loss.stop_price for a \(long ? "buy" : "short sale")")
        }
        if let limit = r.limitPrice {
            if let tp = takeProfit, long ? tp <= limit : tp >= limit {
                throw OrderRejection(
                    .invalidInput, "take_profit.limit_price \(tp) must be \(above) the entry limit_price \(limit)")
            }
            if let sl = stopLoss, long ? sl >= limit : sl <= limit {
                throw OrderRejection(
                    .invalidInput, "stop_loss.stop_price \(sl) must be \(below) the entry limit_price \(limit)")
            }
        }
    }

    // MARK: Identity

    func validateClientOrderID(_ r: OrderRequest) throws(OrderRejection) {
        guard let id = r.clientOrderID else { return }
        guard (1...128).contains(id.utf8Count) else {
            throw OrderRejection(.invalidInput, "client_order_id must be 1 to 128 characters")
        }
        guard !clientOrderIDTaken else {
            throw OrderRejection(.duplicateClientOrderID, "client_order_id must be unique")
        }
    }

    // MARK: Market rules

    func validatePriceLimits(_ r: OrderRequest) throws(OrderRejection) {
        guard let band = market.band else { return }
        for (name, price) in [
            ("limit_price", r.limitPrice), ("take_profit.limit_price", r.takeProfit?.limitPrice),
            ("stop_loss.limit_price", r.stopLoss?.limitPrice),
        ] {
            guard let price, !band.contains(price) else { continue }
            throw OrderRejection(
                .outsidePriceLimits,
                "\(name) \(price) is outside today's price limits for \(instrument.symbol): \(band.limitDown) – \(band.limitUp)",
                facts: .init(
                    "outside_price_limits",
                    [
                        "name": name, "price": price.description, "symbol": instrument.symbol,
                        "down": band.limitDown.description, "up": band.limitUp.description,
                    ]))
        }
    }

    func validateLots(_ r: OrderRequest) throws(OrderRejection) {
        guard let qty = r.qty else { return }
        // Fractions were checked against `fractionable` with the quantity.
        if !qty.isInteger && instrument.fractionable && !instrument.lot.admitsFractions { return }
        let held = account.positions[instrumentID]?.qty ?? .zero
        if let problem = instrument.lot.violation(side: r.side, qty: qty, held: held, symbol: instrument.symbol) {
            throw problem
        }
    }

    func validateSellable(_ r: OrderRequest) throws(OrderRejection) {
        let position = account.positions[instrumentID]
        let held = position?.qty ?? .zero
        guard let qty = r.qty ?? sellQtyEstimate(r) else { return }
        let date = market.tradingDate
        let reserved = position?.reservedForSale ?? .zero
        let sellable = position?.sellableQty(on: date) ?? .zero
        let available = sellable - reserved - sharesCoveringCalls
        guard qty > available else { return }
        if !sharesCoveringCalls.isZero, qty <= sellable - reserved {
            throw OrderRejection(
                .insufficientQty,
                "\(sharesCoveringCalls) of your \(instrument.symbol) shares cover calls you wrote and cannot be sold while the calls are open (buy them back first); available: \(available)",
                facts: .init(
                    "insufficient_qty.covering_calls",
                    [
                        "covering": sharesCoveringCalls.description, "symbol": instrument.symbol,
                        "available": available.description,
                    ]))
        }
        if qty <= held - reserved - sharesCoveringCalls, !instrument.sellableSameDay {
            throw OrderRejection(
                .notSellableToday,
                "T+1: \(held - sellable) of your \(held) shares of \(instrument.symbol) were bought today and can be sold from the next trading day; sellable now: \(available)",
                facts: .init(
                    "not_sellable_today",
                    [
                        "bought": (held - sellable).description, "held": held.description,
                        "symbol": instrument.symbol, "sellable": available.description,
                    ]))
        }
        throw OrderRejection(
            .insufficientQty,
            "insufficient qty available for order (requested: \(qty), available: \(available))",
            facts: .init("insufficient_qty", ["requested": qty.description, "available": available.description]))
    }

    /// A sale with no long position: a short sale, open to margin accounts that allow it, in shortable names, in
    /// whole shares, within buying power (Reg T: the sale's value at 50% initial margin, so a dollar of buying power
    /// a dollar sold).
    func validateShortSale(_ r: OrderRequest) throws(OrderRejection) {
        let symbol = instrument.symbol
        guard account.market == .us, account.terms.type == .margin else {
            let why =
                account.market == .us ? "short selling needs a margin account" : "A-share accounts cannot sell short"
            throw OrderRejection(
                .insufficientQty, "insufficient qty available for order: no position in \(symbol) (\(why))",
                facts: .init("insufficient_qty.no_position", ["symbol": symbol]))
        }
        guard !account.terms.noShorting else {
            throw OrderRejection(
                .shortingNotAllowed,
                "account is not allowed to short: its configuration sets no_shorting (no position in \(symbol) to sell)",
                facts: .init("shorting_not_allowed.no_shorting", ["symbol": symbol]))
        }
        guard let margin, margin.isMargin else {
            throw OrderRejection(
                .shortingNotAllowed,
                "account is not allowed to short: short sales need margin (max_margin_multiplier above 1 and at least $2,000 of equity)",
                facts: .init("shorting_not_allowed.equity", ["symbol": symbol]))
        }
        guard instrument.borrow.shortable else {
            throw OrderRejection(
                .notShortable, "asset \(symbol) is not shortable: no shares are available to borrow",
                facts: .init("not_shortable", ["symbol": symbol]))
        }
        guard r.notional == nil, r.qty?.isInteger ?? false else {
            throw OrderRejection(
                .invalidInput, "fractional orders cannot be sold short",
                facts: .init("shorting_not_allowed.fractional", ["symbol": symbol]))
        }
        try validateBuyingPower(r)
    }

    /// A buy with a short position covers it, and covers no more than it: a buy that would cover and then open a
    /// long is refused (place the rest once the short is closed). Covering needs no buying power: it releases the
    /// short's margin.
    func validateCover(_ r: OrderRequest) throws(OrderRejection) {
        let short = (account.positions[instrumentID]?.qty ?? .zero).magnitude
        guard let qty = r.qty else {
            throw OrderRejection(
                .invalidInput, "notional orders cannot cover a short position: give qty (at most \(short))")
        }
        guard qty <= short else {
            throw OrderRejection(
                .insufficientQty,
                "a buy of \(qty) would cover the \(short) shares short in \(instrument.symbol) and open a long position: buy at most \(short) to cover, then buy again",
                facts: .init(
                    "cover_exceeds_short",
                    ["qty": qty.description, "short": short.description, "symbol": instrument.symbol]))
        }
    }

    /// The pattern day trader rule, for margin accounts whose configuration checks it (`pdt_check`).
    func validateDayTrading() throws(OrderRejection) {
        guard let margin else { return }
        let opensToday =
            account.positions[instrumentID].map { $0.openedQty(on: market.tradingDate).isPositive } ?? false
        if let refusal = account.dayTradeRefusal(
            intent: intent, opensToday: opensToday, equity: margin.equity, on: market.tradingDate)
        {
            throw refusal
        }
    }

    func sellQtyEstimate(_ r: OrderRequest) -> Quantity? {
        guard let notional = r.notional, let bid = market.bestBid ?? market.lastTrade else { return nil }
        return notional.divided(by: bid, rule: .up)
    }

    func validateBuyingPower(_ r: OrderRequest) throws(OrderRejection) {
        let needsMarketPrice = r.notional == nil && (r.type == .market || r.type == .trailingStop)
        if needsMarketPrice, market.bestAsk == nil, market.lastTrade == nil, market.band == nil {
            throw OrderRejection(
                .noQuote, "no market price for \(instrument.symbol) yet; place a limit order instead",
                facts: .init("no_quote", ["symbol": instrument.symbol]))
        }
        let cost = buyCost
        guard cost <= buyingPower else {
            let (required, available) = (cost.formatted(places: 2), buyingPower.formatted(places: 2))
            throw OrderRejection(
                .insufficientBuyingPower,
                "insufficient buying power (required: \(required), available: \(available))",
                facts: .init("insufficient_buying_power", ["required": required, "available": available]))
        }
    }
}

extension TradingEngine {
    /// Checks a request for an account (see `OrderValidator`).
    /// Returns what it worked out that placing the order needs again: whether it opens or closes, and for an order
    /// that opens, the cash it reserves.
    @discardableResult
    mutating func validate(
        _ request: OrderRequest, account: Account, instrument id: InstrumentID, at time: Timestamp
    ) throws(OrderRejection) -> (intent: PositionIntent, opening: FixedDecimal?) {
        try OrderValidator.checkMagnitudes(request, configuration: configuration)
        let validator = validator(account: account, instrument: id, request: request, at: time)
        try validator.validate(request)
        // (A coin pair's order holds coins, worked out when it is reserved.)
        let opens =
            (validator.intent == .buyToOpen || validator.intent == .sellToOpen) && validator.coinFunds == nil
        return (validator.intent, opens ? validator.buyCost : nil)
    }

    /// A validator for a request, with the market state it needs taken from the engine's caches.
    mutating func validator(
        account: Account, instrument id: InstrumentID, request: OrderRequest,
        at time: Timestamp
    ) -> OrderValidator {
        let i = Int(id.index)
        let instrument = instruments[i]
        let alwaysOpen = configuration.sessions == .alwaysOpen
        let local = sessionCache.localDate(instrument.calendar, at: time)
        let band = bandIsCurrent(id, at: time) ? books[i].band : nil
        // A coin pair opens or closes the position of its base coin's dollar pair.
        let coins = instrument.coinPair.flatMap { coinLegs($0) }
        let intent = PositionIntent(side: request.side, held: account.positions[coins?.base ?? id]?.qty ?? .zero)
        // The cost the order would reserve, computed exactly as the engine will reserve it.
        let terms = ReservationTerms(request, instrument: id)
        let cost: FixedDecimal =
            if let pair = instrument.currencyPair {
                forexReservation(terms, side: request.side, pair: pair, instrument: instrument)
            } else if instrument.coinPair != nil {
                .zero
            } else {
                switch intent {
                case .buyToOpen:
                    buyReservation(
                        terms, instrument: instrument, fees: account.fees(for: instrument), currency: account.currency)
                case .sellToOpen:
                    if let contract = instrument.option {
                        writeReservation(terms, contract: contract, account: account).cash
                    } else {
                        shortSaleReservation(terms, fees: account.fees(for: instrument), currency: account.currency)
                    }
                case .buyToClose where instrument.option != nil:
                    buyBackReservation(terms, instrument: instrument, account: account)
                case .buyToClose, .sellToClose: .zero
                }
            }
        // (Selling a long contract may spend too: when it covers a written one, cash must take its place.)
        let spends =
            instrument.coinPair == nil
            && (instrument.option != nil || (intent != .sellToClose && intent != .buyToClose))
        var validator = OrderValidator(
            sessions: configuration.sessions, account: account, instrumentID: id, instrument: instrument, time: time,
            market: OrderValidator.MarketMoment(
                phase: phase(of: instrument, at: time),
                isTradingDay: alwaysOpen || sessionCache.isTradingDay(instrument.calendar, local),
                tradingDate: tradingDate(instrument, at: time), band: band,
                bestBid: books[i].bidPrice, bestAsk: books[i].askPrice, lastTrade: books[i].lastTrade,
                dayVolume: books[i].quoteDayVolume),
            buyCost: cost,
            buyingPower: spends
                ? buyingPower(account, for: id, price: reservationPrice(terms, instrument: instrument)) : .zero,
            intent: intent,
            margin: account.terms.type == .margin ? account.margin(marks: mark, rates: configuration.margin) : nil,
            clientOrderIDTaken: request.clientOrderID.map {
                clientOrderIDs[account.id, $0] != nil
            }
                ?? false,
            gameEquity: !account.inGame || account.gameRules?.maximumPositionPercent == nil
                ? nil : account.equity(marks: mark))
        if let pair = instrument.coinPair, let legs = coins {
            let paying = account.positions[request.side == .buy ? legs.quote : legs.base]
            let needed =
                request.side == .buy
                ? coinReservation(terms, side: .buy, pair: pair, instrument: instrument)?.qty ?? .zero
                : request.qty ?? .zero
            validator.coinFunds = OrderValidator.CoinFunds(
                coin: request.side == .buy ? pair.quote : pair.base, needed: needed,
                available: (paying?.qty ?? .zero) - (paying?.reservedForSale ?? .zero),
                rateKnown: dollarRate(pair) != nil)
        }
        if let contract = instrument.option, intent == .sellToOpen || intent == .sellToClose {
            // What the sale adds to the written contracts' requirement; below level 3 a write is covered by shares
            // and cash alone.
            let longsCover = intent == .sellToClose || account.optionsTradingLevel >= .spreads
            validator.optionNeeds = Self.addedRequirement(
                account, contract: contract, by: -(request.qty ?? .zero), longsCover: longsCover)
            validator.sharesFreeToCover = sharesFreeToCover(
                account, underlying: contract.underlying, on: validator.market.tradingDate)
        } else if intent == .sellToClose {
            validator.sharesCoveringCalls = account.sharesCoveringCalls(instrument.symbol)
        }
        return validator
    }
}

extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}

extension Order {
    /// An unplaced order with a request's terms, for pricing its reservation before it exists.
    static func probe(_ r: OrderRequest, instrument: InstrumentID, account: AccountID) -> Order {
        Order(
            Fields(
                id: OrderID(high: 0, low: 0), clientOrderID: "", accountID: account, instrument: instrument,
                symbol: r.symbol, side: r.side, type: r.type, timeInForce: r.timeInForce, orderClass: r.orderClass,
                qty: r.qty, notional: r.notional, filledQty: .zero, filledValue: .zero, limitPrice: r.limitPrice,
                stopPrice: r.stopPrice, trailPrice: r.trailPrice, trailPercent: r.trailPercent, hwm: nil,
                extendedHours: r.extendedHours, status: .new, createdAt: .distantPast, updatedAt: .distantPast,
                submittedAt: .distantPast, filledAt: nil, expiredAt: nil, canceledAt: nil, failedAt: nil,
                replacedAt: nil, expiresAt: nil, replacedBy: nil, replaces: nil, legs: [], parentID: nil,
                triggered: false, fees: .zero, reason: nil, eligibleAt: .distantPast, reservedCash: .zero,
                reservedShares: .zero))
    }
}
