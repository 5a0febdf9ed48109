/// What exercise or expiry did to an option position (Alpaca's OPEXC and OPEXP activities). It moves no cash: the
/// shares an exercise delivers are their own entry (`OptionDeliveryBooking`, Alpaca's OPTRD), written in the same step.
public struct OptionEventBooking: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable, Hashable {
        /// The holder exercised: the contracts became shares bought (call) or sold (put) at the strike.
        case exercise
        /// The contracts expired worthless (out of the money, or not exercised).
        case expiry
        /// The writer was assigned: the contracts became shares sold (call) or bought (put) at the strike.
        case assignment
        /// A split of the underlying adjusted the contracts (Alpaca's OPCA): the old contracts out, the adjusted ones
        /// in, the cost basis carried over (`OptionAdjustment`).
        case adjustment
        /// The contracts' deliverable became cash only — a reverse split left less than a share, paid as cash in lieu
        /// — so OCC accelerated their expiration to that day and they settled in cash (Alpaca's OPCSH): each pays
        /// its value, the cash less the aggregate strike for a call (the strike less the cash for a put), or nothing.
        case cashDeliverable = "cash_deliverable"
    }

    public var kind: Kind
    /// The contract's OCC symbol.
    public var symbol: String
    /// Contracts taken out of the position, signed as Alpaca writes them (−2: two long contracts; 2: two written).
    public var qty: Quantity
    /// The position's cost basis the event released (a written position's is minus the premium it took in): an
    /// exercise or assignment carries it into the delivered shares (`OptionDeliveryBooking.carriedCost`); an expiry
    /// loses it (a writer keeps the premium).
    public var releasedCost: FixedDecimal
    /// The underlying's price the event was decided at: its close on expiration day (nil for an early exercise).
    public var settlementPrice: Price?
    /// The cash a cash settlement paid the account (negative: what a writer paid); nil for the other kinds, which
    /// move no cash.
    public var cash: FixedDecimal?

    public init(
        kind: Kind, symbol: String, qty: Quantity, releasedCost: FixedDecimal, settlementPrice: Price?,
        cash: FixedDecimal? = nil
    ) {
        self.kind = kind
        self.symbol = symbol
        self.qty = qty
        self.releasedCost = releasedCost
        self.settlementPrice = settlementPrice
        self.cash = cash
    }

    /// The P&L the event itself realizes: an expiry's lost premium (a writer's kept premium), a cash settlement's cash
    /// less the contracts' cost; nothing on exercise or assignment (the premium rides on in the shares' cost or the
    /// sale's proceeds).
    public var realizedPnL: FixedDecimal {
        switch kind {
        case .expiry: -releasedCost
        case .cashDeliverable: (cash ?? .zero) - releasedCost
        case .exercise, .assignment, .adjustment: .zero
        }
    }
}

/// The shares an exercise or assignment delivers at the strike (Alpaca's OPTRD): a call's holder buys them and its
/// writer sells them; a put's holder sells them and its writer buys them. The cash moved is the strike × the shares.
public struct OptionDeliveryBooking: Sendable, Codable, Hashable {
    /// The underlying's symbol.
    public var symbol: String
    /// The contract exercised.
    public var optionSymbol: String
    public var side: OrderSide
    /// Shares delivered (positive).
    public var qty: Quantity
    /// The price per share delivered: the strike (an adjusted contract's strike × multiplier ÷ deliverable).
    public var price: Price
    /// The contracts' cost: added to the cost of shares bought, taken from the proceeds of shares sold (a written
    /// contract's is negative: its premium lowers the cost of shares bought, adds to the proceeds of shares sold).
    public var carriedCost: FixedDecimal
    /// P&L the delivery realized (a sale of shares held: proceeds less their cost and the carried premium).
    public var realizedPnL: FixedDecimal
}

extension LedgerMath {
    /// Books a delivery into the underlying's holding and returns the P&L it realized. Shared by the live ledger and
    /// its replay.
    static func apply(
        _ delivery: OptionDeliveryBooking, value: FixedDecimal, to held: inout Quantity, costBasis: inout FixedDecimal
    ) -> FixedDecimal {
        let realized = apply(
            delivery.side, qty: delivery.qty, price: delivery.price, value: value, to: &held, costBasis: &costBasis)
        // A purchase that leaves shares held carries the premium in their cost; otherwise it is realized now.
        if delivery.side == .buy, held.isPositive {
            costBasis += delivery.carriedCost
            return realized
        }
        return realized - delivery.carriedCost
    }
}

extension TradingEngine {
    /// Exercises an account's long option position (or assigns its written one), or lets it expire, and returns the
    /// entries written.
    ///
    /// Exercise: a call buys `qty × multiplier` shares of the underlying at the strike (cash, or buying power on a
    /// margin account, must pay for them); a put sells that many shares held (they must be there, not promised to
    /// open orders). Assignment, which is not the writer's choice: a written call sells the shares that cover it, a
    /// written put buys them with the cash that secures it. The contracts' cost (a writer's: minus the premium) moves
    /// into the shares (`OptionDeliveryBooking.carriedCost`). Expiry: the contracts are removed, and their cost is the
    /// loss (a writer's premium the gain). Open orders on the contract are canceled first. `underlying` must be
    /// registered.
    @discardableResult
    public mutating func settleOption(
        _ accountID: AccountID, option id: InstrumentID, underlying: InstrumentID, exercise: Bool,
        settlementPrice: Price?, at time: Timestamp
    ) throws(OrderRejection) -> [LedgerEntry] {
        let instrument = instruments[Int(id.index)]
        guard let contract = instrument.option, accounts[accountID] != nil else {
            throw OrderRejection(.invalidInput, "\(instrument.symbol) is not an option")
        }
        guard let held = accounts[accountID]?.positions[id], !held.qty.isZero else {
            throw OrderRejection(
                .insufficientQty, "no available position for \(instrument.symbol)",
                facts: .init("option.no_position", ["symbol": instrument.symbol]))
        }
        let written = held.qty.isNegative
        if exercise, !written,
            let shortfall = exerciseShortfall(accountID, option: id, underlying: underlying, at: time)
        {
            throw shortfall
        }
        for order in openOrders(of: accountID) where order.instrument == id {
            _ = try? cancel(order.id, account: accountID, at: time)
        }
        guard let account = accounts[accountID], var position = account.positions[id] else { return [] }
        let contracts = position.qty
        let shares = contracts.magnitude.times(contract.deliverable)
        let stock = instruments[Int(underlying.index)]
        let strikeValue = contract.strikeValue(contracts: contracts.magnitude, currency: account.currency)
        let event = OptionEventBooking(
            kind: !exercise ? .expiry : written ? .assignment : .exercise, symbol: instrument.symbol, qty: -contracts,
            releasedCost: position.costBasis, settlementPrice: settlementPrice)
        position.qty = .zero
        position.costBasis = .zero
        position.realizedPnL += event.realizedPnL
        // (The account is changed field by field from here: `record` moves its cash and sequence in place.)
        accounts[accountID]?.positions[id] = position.reservedForSale.isZero ? nil : position
        accounts[accountID]?.refreshOptionRequirements()
        var entries = [record(.optionEvent(event), cashChange: .zero, account: accountID, at: time)]
        guard exercise else { return entries }

        // The holder of a call buys, of a put sells; the writer does the other.
        let buys = (contract.right == .call) != written
        var delivery = OptionDeliveryBooking(
            symbol: stock.symbol, optionSymbol: instrument.symbol, side: buys ? .buy : .sell,
            qty: shares, price: contract.deliveryPrice, carriedCost: event.releasedCost, realizedPnL: .zero)
        var stockPosition =
            accounts[accountID]?.positions[underlying] ?? Position(instrument: underlying, symbol: stock.symbol)
        delivery.realizedPnL = LedgerMath.apply(
            delivery, value: strikeValue, to: &stockPosition.qty, costBasis: &stockPosition.costBasis)
        stockPosition.realizedPnL += delivery.realizedPnL
        if delivery.side == .buy { stockPosition.lastBoughtAt = time }
        accounts[accountID]?.positions[underlying] =
            stockPosition.qty.isZero && stockPosition.reservedForSale.isZero ? nil : stockPosition
        entries.append(
            record(
                .optionDelivery(delivery), cashChange: delivery.side == .buy ? -strikeValue : strikeValue,
                account: accountID, at: time))
        return entries
    }

    /// Settles an account's position in a contract whose deliverable became cash only (`OptionEventBooking.Kind
    /// .cashDeliverable`): `cashPerContract` is what one contract now delivers. A long contract is paid its value —
    /// a call the cash less the strike × multiplier, a put the strike × multiplier less the cash, never below zero —
    /// and a written one pays it; the position closes and what it held (a writer's collateral) is freed. Open orders
    /// on the contract are canceled first. nil when the account holds none of it.
    @discardableResult
    public mutating func settleOptionInCash(
        _ accountID: AccountID, option id: InstrumentID, cashPerContract: FixedDecimal, underlyingPrice: Price?,
        at time: Timestamp
    ) -> LedgerEntry? {
        let instrument = instruments[Int(id.index)]
        guard let contract = instrument.option else { return nil }
        let reason = "\(instrument.symbol) now delivers cash only and was settled"
        for order in openOrders(of: accountID) where order.instrument == id {
            if order.orderClass == .mleg, let parent = order.parentID {
                finish(parent, .canceled, reason: reason, at: time)
            }
            if orders[order.id]?.status.isOpen == true { finish(order.id, .canceled, reason: reason, at: time) }
        }
        guard let account = accounts[accountID], var position = account.positions[id], !position.qty.isZero else {
            return nil
        }
        let strike = contract.strikeValue(contracts: .one, currency: account.currency)
        let perContract = contract.right == .call ? cashPerContract - strike : strike - cashPerContract
        let value = perContract.isPositive ? perContract.multiplied(by: position.qty.magnitude) : .zero
        let cash = position.qty.isPositive ? value : -value
        let event = OptionEventBooking(
            kind: .cashDeliverable, symbol: instrument.symbol, qty: -position.qty, releasedCost: position.costBasis,
            settlementPrice: underlyingPrice, cash: cash)
        position.qty = .zero
        position.costBasis = .zero
        position.realizedPnL += event.realizedPnL
        accounts[accountID]?.positions[id] = position.reservedForSale.isZero ? nil : position
        accounts[accountID]?.refreshOptionRequirements()
        return record(.optionEvent(event), cashChange: cash, account: accountID, at: time)
    }

    /// Marks an account's long option position not to be exercised at expiry (Alpaca's do-not-exercise): it then
    /// expires worthless even in the money. Refused for a contract the account does not hold and for a written one.
    public mutating func markDoNotExercise(_ accountID: AccountID, option id: InstrumentID) throws(OrderRejection) {
        let symbol = instruments[Int(id.index)].symbol
        guard let held = accounts[accountID]?.positions[id], !held.qty.isZero, held.multiplier != nil else {
            throw OrderRejection(
                .insufficientQty, "no available position for the specified contract",
                facts: .init("option.no_position", ["symbol": symbol]))
        }
        guard held.qty.isPositive else {
            throw OrderRejection(
                .insufficientQty, "cannot submit DNE for short position",
                facts: .init("option.dne_short", ["symbol": symbol]))
        }
        accounts[accountID]?.positions[id]?.doNotExercise = true
    }

    /// Why the account could not exercise its whole long position in a contract now, or nil when it can: a call's
    /// shares cost the strike × the shares, which cash (buying power on a margin account) must cover; a put's shares
    /// must be held and not promised to open orders.
    public mutating func exerciseShortfall(
        _ accountID: AccountID, option id: InstrumentID, underlying: InstrumentID, at time: Timestamp
    ) -> OrderRejection? {
        let instrument = instruments[Int(id.index)]
        guard let contract = instrument.option, let account = accounts[accountID],
            let contracts = account.positions[id]?.qty, contracts.isPositive
        else { return nil }
        let shares = contracts.times(contract.deliverable)
        let stock = instruments[Int(underlying.index)]
        switch contract.right {
        case .call:
            let strikeValue = contract.strikeValue(contracts: contracts, currency: account.currency)
            let available = buyingPower(account, for: underlying, price: contract.deliveryPrice)
            guard strikeValue > available else { return nil }
            let (required, have) = (strikeValue.formatted(places: 2), available.formatted(places: 2))
            return OrderRejection(
                .insufficientBuyingPower,
                "exercising \(contracts) \(instrument.symbol) buys \(shares) shares of \(stock.symbol) for \(required); buying power is \(have)",
                facts: .init(
                    "option.exercise_buying_power",
                    [
                        "contracts": contracts.description, "symbol": instrument.symbol,
                        "shares": shares.description, "underlying": stock.symbol, "required": required,
                        "available": have,
                    ]))
        case .put:
            let date = tradingDate(stock, at: time)
            // Shares that cover written calls are not the put's to deliver.
            let deliverable =
                (account.positions[underlying]?.availableToSell(on: date) ?? .zero)
                - account.sharesCoveringCalls(stock.symbol)
            guard deliverable < shares else { return nil }
            return OrderRejection(
                .insufficientQty,
                "exercising \(contracts) \(instrument.symbol) sells \(shares) shares of \(stock.symbol); \(deliverable) are available",
                facts: .init(
                    "option.exercise_shares",
                    [
                        "contracts": contracts.description, "symbol": instrument.symbol,
                        "shares": shares.description, "underlying": stock.symbol,
                        "available": deliverable.description,
                    ]))
        }
    }
}

extension OptionContract {
    /// What exercising `contracts` pays (a call's holder) or receives (a put's holder): strike × multiplier each,
    /// half-up to the currency's minor unit.
    public func strikeValue(contracts: Quantity, currency: Currency) -> FixedDecimal {
        LedgerMath.tradeValue(price: strike, qty: contracts.times(multiplier), currency: currency)
    }

    /// The price per share delivered on exercise: the strike, or for an adjusted contract the strike × multiplier ÷
    /// deliverable (a $150 strike delivering 150 shares: $100 a share), to 9 places.
    public var deliveryPrice: Price {
        guard isAdjusted else { return strike }
        return strike.times(multiplier).divided(by: FixedDecimal(deliverable), rule: .halfEven) ?? strike
    }
}
