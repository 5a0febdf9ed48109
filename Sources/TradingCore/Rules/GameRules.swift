/// The rules a game binds its players' accounts to, on top of the market's own (the Investopedia / Stock-Trak
/// rule set: `../shared/reference/classroom-games.md`). Every order of a game account is checked against them
/// before anything else the validator checks, whichever surface placed it, so a bot on the Alpaca API meets the
/// same refusal, in the same words, as a student in the web app.
///
/// Nil limits mean "no limit". Margin and short selling are the account's `MarginTerms`; commissions its
/// `FeeSchedule` (`GameRules.commissionSchedule`): both are set when the account is opened.
public struct GameRules: Sendable, Codable, Hashable {
    /// Orders placed before the start wait for it (they fill from the first market update after it; a day order
    /// is for the start's trading day). From the end on, orders are refused.
    public var startsAt: Timestamp?
    public var endsAt: Timestamp?
    /// The lowest price a stock may be bought at, and sold short at.
    public var minimumBuyPrice: Price?
    public var minimumShortPrice: Price?
    /// The most of the portfolio one stock may take, in percent, checked on cost when an order opens or adds to a
    /// position: (the position's cost + the order's value) ÷ the account's equity at that moment.
    public var maximumPositionPercent: FixedDecimal?
    /// The largest order, in percent of the shares the stock traded so far that day (unchecked before the day's
    /// first trade).
    public var maximumVolumePercent: FixedDecimal?
    /// No sale within this many minutes of the last purchase of the same stock.
    public var quickSellMinutes: Int?
    /// Orders an account may place per trading day (bracket and OCO exit legs are part of their order).
    public var maximumOrdersPerDay: Int?
    /// Whether shares bought (or sold short) today may be sold (covered) today.
    public var dayTrading: Bool
    /// Whether short sales are allowed (the account is then a margin account).
    public var shortSelling: Bool
    /// Set when the game's owner removed the player: the account takes no more orders.
    public var removed: Bool = false
    /// Whether the players may trade options (nil: games made before the rule, which allowed them).
    public var options: Bool? = nil
    /// Whether crypto pairs count in the game (nil: games made before crypto, and games that did not ask for them:
    /// a stock market game is played with stocks unless its owner adds coins).
    public var crypto: Bool? = nil
    /// Whether currency pairs may be traded (nil: games made before currencies, and games that did not ask for them).
    public var forex: Bool? = nil
    /// Whether every order must carry a journal note (a class's trade journal: students say why they trade).
    public var journal: Bool? = nil
    /// When the game's end was applied to the account (its open orders canceled, no more fills): nil while it plays.
    /// On a cluster the node making the standings final waits until every player's node has set it.
    public var closedAt: Timestamp? = nil
    /// Set once the player was told where they finished, in the step that journals that notification: sent once,
    /// whichever node serves the account.
    public var finalNoticeSent: Bool? = nil

    /// Options are allowed unless the game says otherwise.
    public var optionsAllowed: Bool { options ?? true }

    /// Crypto pairs are allowed only when the game says so.
    public var cryptoAllowed: Bool { crypto ?? false }

    /// Currency pairs are allowed only when the game says so.
    public var forexAllowed: Bool { forex ?? false }

    /// Orders need a note only when the game says so.
    public var journalRequired: Bool { journal ?? false }

    public init(
        startsAt: Timestamp? = nil, endsAt: Timestamp? = nil, minimumBuyPrice: Price? = nil,
        minimumShortPrice: Price? = nil, maximumPositionPercent: FixedDecimal? = nil,
        maximumVolumePercent: FixedDecimal? = nil, quickSellMinutes: Int? = nil, maximumOrdersPerDay: Int? = nil,
        dayTrading: Bool = true, shortSelling: Bool = true
    ) {
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.minimumBuyPrice = minimumBuyPrice
        self.minimumShortPrice = minimumShortPrice
        self.maximumPositionPercent = maximumPositionPercent
        self.maximumVolumePercent = maximumVolumePercent
        self.quickSellMinutes = quickSellMinutes
        self.maximumOrdersPerDay = maximumOrdersPerDay
        self.dayTrading = dayTrading
        self.shortSelling = shortSelling
    }

    /// A game's commission as a fee schedule: a flat amount per order (charged once, on its first fill) and/or a
    /// percentage of the traded value, both sides. Nil when neither is set (the market's real fees apply).
    public static func commissionSchedule(flat: FixedDecimal?, percent: FixedDecimal?) -> FeeSchedule? {
        var components: [FeeComponent] = []
        if let flat, flat.isPositive {
            components.append(
                FeeComponent(kind: .commission, sides: .both, basis: .value(rate: .zero), minimum: flat, rounding: .up))
        }
        if let percent, percent.isPositive {
            let rate = percent.divided(by: FixedDecimal(100), rule: .halfEven) ?? .zero
            components.append(FeeComponent(kind: .commission, sides: .both, basis: .value(rate: rate), rounding: .up))
        }
        return components.isEmpty ? nil : FeeSchedule(components: components)
    }
}

/// What a game account did that its rules count: orders placed on the current trading day, and orders that
/// traded (the leaderboard's "trades"). Kept across resets: a reset does not buy more orders for the day.
public struct GameActivity: Sendable, Codable, Hashable {
    public var date: CivilDate?
    public var ordersToday: Int
    /// Orders that filled at least in part since the account joined its game.
    public var trades: Int

    public init(date: CivilDate? = nil, ordersToday: Int = 0, trades: Int = 0) {
        self.date = date
        self.ordersToday = ordersToday
        self.trades = trades
    }

    /// Orders placed on `date`.
    public func orders(on date: CivilDate) -> Int { self.date == date ? ordersToday : 0 }

    mutating func recordOrder(on date: CivilDate) {
        if self.date == date {
            ordersToday += 1
        } else {
            self.date = date
            ordersToday = 1
        }
    }
}

extension OrderValidator {
    /// Whether a game account may place this order at all: not removed, the game not over, today's orders not used
    /// up, a journal note where the class asks for one.
    func validateGameStanding(_ rules: GameRules, _ r: OrderRequest) throws(OrderRejection) {
        if rules.removed {
            throw OrderRejection(
                .gameRule, "The game's owner removed you from this game: its account takes no more orders",
                facts: .init("game.removed", [:]))
        }
        if let end = rules.endsAt, time >= end {
            throw OrderRejection(
                .gameRule, "This game ended at \(end.minuteText) UTC: no more orders, its standings are final",
                facts: .init("game.ended", ["end": end.minuteText]))
        }
        let activity = account.gameActivity ?? GameActivity()
        if let most = rules.maximumOrdersPerDay, activity.orders(on: market.tradingDate) >= most {
            throw OrderRejection(
                .gameRule,
                "This game allows at most \(most) \(most == 1 ? "order" : "orders") a day; you have placed \(activity.orders(on: market.tradingDate)) today",
                facts: .init("game.orders_per_day", ["most": String(most)]))
        }
        if rules.journalRequired, !r.isLiquidation, (r.note ?? "").allSatisfy(\.isWhitespace) {
            throw OrderRejection(
                .gameRule, "This class asks for a journal note on every order: write why you are placing it",
                facts: .init("game.journal_required", [:]))
        }
    }

    /// A game account's rules, before every other check but the currency's.
    func validateGameRules(_ r: OrderRequest) throws(OrderRejection) {
        guard account.inGame, let rules = account.gameRules else { return }
        let symbol = instrument.symbol
        try validateGameStanding(rules, r)
        if instrument.kind == .option, !rules.optionsAllowed {
            throw OrderRejection(
                .gameRule, "This game does not allow options: it is played with stocks and ETFs (\(symbol))",
                facts: .init("game.no_options", ["symbol": symbol]))
        }
        if instrument.kind == .crypto, !rules.cryptoAllowed {
            throw OrderRejection(
                .gameRule, "This game does not allow crypto: it is played with stocks and ETFs (\(symbol))",
                facts: .init("game.no_crypto", ["symbol": symbol]))
        }
        let price = estimatedPrice(r)
        switch intent {
        case .buyToOpen:
            if let minimum = rules.minimumBuyPrice, let price, price < minimum {
                throw minimumPriceRefusal("buying", minimum: minimum, price: price, sentence: "game.minimum_buy_price")
            }
        case .sellToOpen:
            guard rules.shortSelling else {
                throw OrderRejection(
                    .gameRule, "This game does not allow short selling: you hold no \(symbol) to sell",
                    facts: .init("game.no_short_selling", ["symbol": symbol]))
            }
            if let minimum = rules.minimumShortPrice, let price, price < minimum {
                throw minimumPriceRefusal(
                    "short selling", minimum: minimum, price: price, sentence: "game.minimum_short_price")
            }
        case .sellToClose, .buyToClose:
            try validateGameClosing(r, rules: rules)
        }
        if intent == .buyToOpen || intent == .sellToOpen {
            try validateGameConcentration(r, rules: rules, price: price)
        }
        if let percent = rules.maximumVolumePercent, let volume = market.dayVolume, volume.isPositive,
            let shares = r.qty ?? price.flatMap({ r.notional?.divided(by: $0, rule: .up) })
        {
            let most = volume.multiplied(by: percent).divided(by: FixedDecimal(100), rule: .down) ?? .zero
            if shares > most {
                throw OrderRejection(
                    .gameRule,
                    "This game allows orders of at most \(percent.formatted(minimumPlaces: 0))% of the day's volume: \(volume.formatted(minimumPlaces: 0)) shares of \(symbol) traded so far today, so at most \(most.rounded(places: 0, rule: .down).formatted(minimumPlaces: 0))",
                    facts: .init(
                        "game.volume_share",
                        [
                            "percent": percent.formatted(minimumPlaces: 0), "symbol": symbol,
                            "most": most.rounded(places: 0, rule: .down).formatted(minimumPlaces: 0),
                        ]))
            }
        }
    }

    /// "This game allows buying only stocks priced at least $1.00; PNNY is at $0.85".
    func minimumPriceRefusal(_ what: String, minimum: Price, price: Price, sentence: String) -> OrderRejection {
        let currency = account.currency.symbol
        let (least, now) = (
            currency + minimum.formatted(minimumPlaces: 2), currency + price.formatted(minimumPlaces: 2)
        )
        return OrderRejection(
            .gameRule,
            "This game allows \(what) only stocks priced at least \(least); \(instrument.symbol) is at \(now)",
            facts: .init(sentence, ["minimum": least, "symbol": instrument.symbol]))
    }

    /// Day trading and the quick-sell delay: what stops an order that closes shares.
    func validateGameClosing(_ r: OrderRequest, rules: GameRules) throws(OrderRejection) {
        guard let position = account.positions[instrumentID] else { return }
        let symbol = instrument.symbol
        if !rules.dayTrading {
            let openedToday = position.openedQty(on: market.tradingDate)
            let older = position.qty.magnitude - openedToday
            let closing = r.qty ?? position.qty.magnitude
            if openedToday.isPositive, closing > older {
                let (done, undo) = position.isShort ? ("sold short", "cover") : ("bought", "sell")
                throw OrderRejection(
                    .gameRule,
                    "This game does not allow day trading: \(openedToday.formatted(minimumPlaces: 0)) shares of \(symbol) were \(done) today; \(undo) them from the next trading day",
                    facts: .init(
                        "game.day_trading",
                        ["symbol": symbol, "qty": openedToday.formatted(minimumPlaces: 0)]))
            }
        }
        if let minutes = rules.quickSellMinutes, !position.isShort, let bought = position.lastBoughtAt {
            let elapsed = (time.nanoseconds - bought.nanoseconds) / Duration64.minute
            if elapsed < Int64(minutes) {
                let wait = Int64(minutes) - elapsed
                throw OrderRejection(
                    .gameRule,
                    "This game allows no sale within \(minutes) minutes of a purchase: \(symbol) was bought \(elapsed) \(elapsed == 1 ? "minute" : "minutes") ago; you may sell it in \(wait) \(wait == 1 ? "minute" : "minutes")",
                    facts: .init(
                        "game.quick_sell", ["symbol": symbol, "minutes": String(minutes), "wait": String(wait)]))
            }
        }
    }

    /// The one-stock share of the portfolio, on cost, after the order.
    func validateGameConcentration(_ r: OrderRequest, rules: GameRules, price: Price?) throws(OrderRejection) {
        guard let percent = rules.maximumPositionPercent, let equity = gameEquity, equity.isPositive else { return }
        let multiplier = instrument.multiplier
        guard
            let value = r.notional
                ?? price.flatMap({ p in r.qty.map { $0.multiplied(by: multiplier).multiplied(by: p) } })
        else { return }
        let cost = (account.positions[instrumentID]?.costBasis.magnitude ?? .zero) + value
        let share = cost.times(100).divided(by: equity, rule: .up) ?? .zero
        guard share > percent else { return }
        // One decimal is enough unless it would round the share down to the limit itself.
        var rounded = share.rounded(places: 1, rule: .halfUp)
        if rounded <= percent { rounded = share.rounded(places: 2, rule: .up) }
        let shown = rounded.formatted(minimumPlaces: 0)
        throw OrderRejection(
            .gameRule,
            "This game allows at most \(percent.formatted(minimumPlaces: 0))% of your portfolio in one stock; this order would make \(instrument.symbol) \(shown)%",
            facts: .init(
                "game.position_share",
                ["percent": percent.formatted(minimumPlaces: 0), "symbol": instrument.symbol, "share": shown]))
    }

    /// The price an order is judged at: its limit, else the side of the quote it would take, else the last trade,
    /// else its stop.
    func estimatedPrice(_ r: OrderRequest) -> Price? {
        if let limit = r.limitPrice { return limit }
        let side = r.side == .buy ? market.bestAsk : market.bestBid
        return side ?? market.lastTrade ?? r.stopPrice
    }
}

extension Timestamp {
    /// "2026-12-01 21:00" (UTC).
    public var minuteText: String {
        let text = description
        guard text.count >= 16 else { return text }
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }
}
