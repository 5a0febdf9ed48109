/// Multi-leg option orders (Alpaca's `order_class: mleg`, options level 3): two to four contracts of one underlying
/// bought and sold together as one package — verticals, straddles, strangles, iron condors, butterflies, rolls.
///
/// - The parent is the package: `qty` strategy units, a net `limit_price` per unit (positive: the most it pays, a
///   debit; negative: the least it takes in, a credit) or market. It stands on the underlying (its `symbol`), rests
///   on no book, and holds what the package needs while it works: the net debit, what its written legs add to the
///   account's requirement (`SpreadRule`: a spread needs the difference of its strikes), and the shares its calls
///   need when no long call covers them.
/// - Each leg is a child order on its contract for `qty × ratio` contracts, with its own intent (buy or sell, to open
///   or to close); a leg that sells contracts held holds them.
/// - A package's units fill whole — every leg of a unit at once — at each quote: every leg at its own side's best
///   price (buys at the ask, sells at the bid — never a price that was not quoted), when the net is within the
///   limit, for as many units as every leg's displayed size allows; units beyond that walk the legs' books level by
///   level while the net stays within the limit. Fills are booked leg by leg (each an ordinary fill with its
///   activity); the parent's average price is the net per unit.
/// - Canceling, expiring or a system cancel of the parent or of any leg ends the whole package.
extension TradingEngine {
    /// The most legs a package may have (Alpaca: 2–4).
    static let maximumLegs = 4

    /// Places a multi-leg order. Every leg's contract and the underlying must be registered (and quoted, to fill at
    /// once). Returns the parent as it stands after placement; its `legs` name the children.
    @discardableResult
    public mutating func submitMultiLeg(_ request: OrderRequest, account accountID: AccountID, at time: Timestamp)
        throws(OrderRejection) -> Order
    {
        let package: Package
        do {
            let account = try existingAccount(accountID)
            package = try validateMultiLeg(request, account: account, at: time)
        }
        let parentID = OrderID(newIdentifier(at: time))
        let underlying = instruments[Int(package.underlying.index)]
        let firstLeg = instruments[Int(package.legs[0].instrument.index)]
        let expiresAt = expiry(request.timeInForce, extendedHours: false, instrument: firstLeg, at: time)
        let eligibleAt = time.adding(nanoseconds: configuration.fillLatency)
        var legIDs: [OrderID] = []
        var children: [Order] = []
        for leg in package.legs {
            let instrument = instruments[Int(leg.instrument.index)]
            let child = Order(
                Order.Fields(
                    id: OrderID(newIdentifier(at: time)), clientOrderID: ClientOrderID(newIdentifier(at: time)),
                    accountID: accountID, instrument: leg.instrument, symbol: instrument.symbol, side: leg.side,
                    type: request.type, timeInForce: request.timeInForce, orderClass: .mleg,
                    qty: package.units.times(leg.ratio), notional: nil, filledQty: .zero, filledValue: .zero,
                    limitPrice: nil, stopPrice: nil, trailPrice: nil, trailPercent: nil, hwm: nil,
                    extendedHours: false, status: .new, createdAt: time, updatedAt: time, submittedAt: time,
                    filledAt: nil, expiredAt: nil, canceledAt: nil, failedAt: nil, replacedAt: nil,
                    expiresAt: expiresAt, replacedBy: nil, replaces: nil, legs: [], parentID: parentID,
                    triggered: false, fees: .zero, reason: nil, eligibleAt: eligibleAt, reservedCash: .zero,
                    reservedShares: .zero, positionIntent: leg.intent))
            legIDs.append(child.id)
            children.append(child)
        }
        let parent = Order(
            Order.Fields(
                id: parentID, clientOrderID: request.clientOrderID ?? ClientOrderID(newIdentifier(at: time)),
                accountID: accountID, instrument: package.underlying, symbol: underlying.symbol,
                side: (request.limitPrice ?? .zero).isNegative ? .sell : .buy, type: request.type,
                timeInForce: request.timeInForce, orderClass: .mleg, qty: package.units, notional: nil,
                filledQty: .zero, filledValue: .zero, limitPrice: request.limitPrice, stopPrice: nil, trailPrice: nil,
                trailPercent: nil, hwm: nil, extendedHours: false, status: .new, createdAt: time, updatedAt: time,
                submittedAt: time, filledAt: nil, expiredAt: nil, canceledAt: nil, failedAt: nil, replacedAt: nil,
                expiresAt: expiresAt, replacedBy: nil, replaces: nil, legs: legIDs, parentID: nil, triggered: false,
                fees: .zero, reason: nil, eligibleAt: eligibleAt, reservedCash: .zero, reservedShares: .zero,
                positionIntent: nil, note: request.note))
        if accounts[accountID]?.inGame == true {
            let date = tradingDate(firstLeg, at: time)
            accounts[accountID]?.gameActivity?.recordOrder(on: date)
        }
        accept(parent, at: time)
        for child in children { accept(child, at: time) }
        // (The parent's hold is worked out from its legs, which exist only now.)
        reserve(parentID)
        trackPackage(parentID)
        matchPackage(parentID, at: time)
        return orders[parentID] ?? parent
    }

    /// Replaces a working package with one of the same legs and a new net limit, number of units or time in force
    /// (Alpaca's PATCH on an mleg order — how a learner chases a spread's price): the new parent and legs get new ids,
    /// the old ones end `replaced`. Checked as a new package would be, with the old one's holds released; refused,
    /// the old package keeps working as it was. A package that has filled units is not replaced (cancel it and place
    /// the rest), nor is a market package's type changed.
    mutating func replacePackage(_ old: Order, with change: ReplaceRequest, at time: Timestamp)
        throws(OrderRejection) -> Order
    {
        guard old.filledQty.isZero else {
            throw OrderRejection(
                .notReplaceable, "the multi-leg order has filled units; cancel it and place a new order for the rest")
        }
        guard change.stopPrice == nil, change.trail == nil else {
            throw OrderRejection(.invalidInput, "a multi-leg order has no stop price or trail to change")
        }
        if change.limitPrice != nil, old.type != .limit {
            throw OrderRejection(.invalidInput, "a market multi-leg order has no limit price to change")
        }
        let units = old.qty ?? .one
        var legs: [OrderRequest.OptionLeg] = []
        for id in old.legs {
            guard let leg = orders[id], let qty = leg.qty,
                let ratio = qty.divided(by: units, rule: .down).flatMap(\.integerPart)
            else { continue }
            legs.append(.init(symbol: leg.symbol, ratio: ratio, side: leg.side, positionIntent: leg.positionIntent))
        }
        var request = OrderRequest(
            symbol: old.symbol, side: old.side, type: old.type, timeInForce: change.timeInForce ?? old.timeInForce,
            qty: change.qty ?? old.qty, limitPrice: change.limitPrice ?? old.limitPrice,
            clientOrderID: change.clientOrderID, orderClass: .mleg)
        request.legs = legs
        // Checked as if the old package's holds were already released; on refusal they are taken again.
        let held = [old.id] + old.legs
        for id in held { releaseReservations(id) }
        do {
            let account = try existingAccount(old.accountID)
            _ = try validateMultiLeg(request, account: account, at: time)
        } catch {
            for id in held { reserve(id) }
            throw error
        }
        finish(old.id, .replaced, reason: nil, at: time)
        let replacement = try submitMultiLeg(request, account: old.accountID, at: time)
        orders[old.id]?.replacedBy = replacement.id
        orders[replacement.id]?.replaces = old.id
        return orders[replacement.id] ?? replacement
    }

    /// A package as validation worked it out.
    struct Package {
        struct Leg {
            var instrument: InstrumentID
            var contract: OptionContract
            var ratio: Int
            var side: OrderSide
            var intent: PositionIntent
        }
        var underlying: InstrumentID
        var units: Quantity
        var legs: [Leg]
    }

    /// Checks a multi-leg request against Alpaca's rules and the account: the shape (2–4 legs of distinct option
    /// contracts of one underlying, ratios in lowest terms, whole units, market or limit, day or gtc, no extended
    /// hours), the options level (3), each leg's intent against the position, and the money (the net debit and what
    /// the written legs add to the requirement, within options buying power; shares free for calls no long call
    /// covers).
    mutating func validateMultiLeg(_ r: OrderRequest, account: Account, at time: Timestamp) throws(OrderRejection)
        -> Package
    {
        let legs = r.legs ?? []
        guard (2...Self.maximumLegs).contains(legs.count) else {
            throw OrderRejection(
                .invalidInput, "a multi-leg order has 2 to 4 legs; this one has \(legs.count)",
                facts: .init("mleg.leg_count", ["count": String(legs.count)]))
        }
        guard r.notional == nil, let units = r.qty else {
            throw OrderRejection(.invalidInput, "qty (the number of strategy units) is required for mleg orders")
        }
        guard units.isPositive, units.isInteger, units <= configuration.maximumQty else {
            throw OrderRejection(
                .invalidInput, "qty must be a whole number of strategy units from 1 to \(configuration.maximumQty)")
        }
        guard r.type == .market || r.type == .limit else {
            throw OrderRejection(
                .invalidInput, "mleg orders are market or limit orders, not \(r.type.rawValue)",
                facts: .init("option.order_type", ["type": r.type.rawValue]))
        }
        guard r.timeInForce == .day || r.timeInForce == .gtc else {
            throw OrderRejection(
                .invalidInput, "options orders must have time_in_force day or gtc, not \(r.timeInForce.rawValue)",
                facts: .init("option.time_in_force", ["tif": r.timeInForce.rawValue]))
        }
        guard !r.extendedHours else {
            throw OrderRejection(
                .invalidInput, "options trade in regular hours only: extended_hours must be false",
                facts: .init("option.extended_hours", [:]))
        }
        switch (r.type, r.limitPrice) {
        case (.limit, nil): throw OrderRejection(.invalidInput, "limit_price is required for limit orders")
        case (.market, .some): throw OrderRejection(.invalidInput, "limit_price is not allowed for market orders")
        case (_, let limit?):
            guard limit.magnitude <= configuration.maximumPrice, !limit.isZero else {
                throw OrderRejection(
                    .invalidInput,
                    "limit_price must be a net price per unit: positive to pay (a debit), negative to take in (a credit)"
                )
            }
            guard limit.isMultiple(of: FixedDecimal(units: 1, exponent: 2)) else {
                throw OrderRejection(.invalidInput, "limit_price \(limit) is not a multiple of 0.01")
            }
        default: break
        }
        if let id = r.clientOrderID {
            guard (1...128).contains(id.utf8Count) else {
                throw OrderRejection(.invalidInput, "client_order_id must be 1 to 128 characters")
            }
            guard clientOrderIDs[account.id, id] == nil else {
                throw OrderRejection(.duplicateClientOrderID, "client_order_id must be unique")
            }
        }
        let level = account.optionsTradingLevel
        guard level >= .spreads else {
            throw OrderRejection(
                .optionsLevel,
                "multi-leg orders need options trading level 3; this account's level is \(level.rawValue)",
                facts: .init("option.level.spreads", ["needed": "3", "level": String(level.rawValue)]))
        }
        if account.inGame, account.gameRules?.optionsAllowed == false {
            throw OrderRejection(
                .gameRule, "This game does not allow options: it is played with stocks and ETFs",
                facts: .init("game.no_options", ["symbol": legs[0].symbol]))
        }

        var package: [Package.Leg] = []
        var ratios: [Int] = []
        for leg in legs {
            guard let id = symbols[leg.symbol] else {
                throw OrderRejection(
                    .unknownSymbol, "asset \(leg.symbol) not found",
                    facts: .init("unknown_symbol", ["symbol": leg.symbol]))
            }
            guard let contract = instruments[Int(id.index)].option else {
                throw OrderRejection(
                    .invalidInput, "every leg of a multi-leg order is an option contract; \(leg.symbol) is not",
                    facts: .init("mleg.stock_leg", ["symbol": leg.symbol]))
            }
            guard !package.contains(where: { $0.instrument == id }) else {
                throw OrderRejection(
                    .invalidInput, "each leg must be a different contract; \(leg.symbol) appears twice",
                    facts: .init("mleg.duplicate_leg", ["symbol": leg.symbol]))
            }
            if let first = package.first, first.contract.underlying != contract.underlying {
                throw OrderRejection(
                    .invalidInput,
                    "every leg must be on one underlying: \(leg.symbol) is on \(contract.underlying), \(first.contract.occSymbol) on \(first.contract.underlying)",
                    facts: .init(
                        "mleg.underlyings", ["first": first.contract.underlying, "other": contract.underlying]))
            }
            guard leg.ratio > 0, leg.ratio <= 1000 else {
                throw OrderRejection(.invalidInput, "ratio_qty must be a whole number from 1 to 1000")
            }
            guard contract.expiration >= tradingDate(instruments[Int(id.index)], at: time) else {
                throw OrderRejection(
                    .invalidInput, "\(leg.symbol) expired on \(contract.expiration) and no longer trades",
                    facts: .init("option.expired", ["symbol": leg.symbol, "date": contract.expiration.description]))
            }
            let contracts = units.times(leg.ratio)
            let maximum = instruments[Int(id.index)].maximumOrderQty ?? configuration.maximumQty
            guard contracts <= maximum else {
                throw OrderRejection(
                    .lotSize,
                    "the \(leg.symbol) leg trades \(contracts) contracts, more than the maximum of \(maximum)",
                    facts: .init(
                        "lot_size.maximum",
                        ["qty": contracts.description, "maximum": maximum.description, "symbol": leg.symbol]))
            }
            let held = account.positions[id]?.qty ?? .zero
            let intent = PositionIntent(side: leg.side, held: held)
            if let stated = leg.positionIntent, stated != intent {
                throw OrderRejection(
                    .invalidInput,
                    "position_intent \(stated.rawValue) does not match the position: you hold \(held) contracts of \(leg.symbol), so this leg's \(leg.side.rawValue) is \(intent.rawValue)",
                    facts: .init(
                        "option.intent_mismatch",
                        [
                            "stated": stated.rawValue, "intent": intent.rawValue, "held": held.description,
                            "symbol": leg.symbol,
                        ]))
            }
            // A leg closes what is held, or opens: never both in one leg.
            let closable =
                intent == .sellToClose
                ? (account.positions[id].map { $0.qty - $0.reservedForSale } ?? .zero) : held.magnitude
            if intent == .sellToClose || intent == .buyToClose, contracts > closable {
                throw OrderRejection(
                    .insufficientQty,
                    "the \(leg.symbol) leg \(intent == .sellToClose ? "sells" : "buys back") \(contracts) contracts; \(closable) are held and free to close (a leg closes or opens, not both)",
                    facts: .init(
                        "mleg.leg_exceeds_position",
                        ["symbol": leg.symbol, "qty": contracts.description, "available": closable.description]))
            }
            package.append(
                Package.Leg(instrument: id, contract: contract, ratio: leg.ratio, side: leg.side, intent: intent))
            ratios.append(leg.ratio)
        }
        guard ratios.reduce(0, Self.gcd) == 1 else {
            throw OrderRejection(
                .invalidInput,
                "ratio_qty must be in lowest terms (\(ratios.map(String.init).joined(separator: ":")) can be divided by \(ratios.reduce(0, Self.gcd))): send the smallest whole ratio and put the rest in qty",
                facts: .init("mleg.ratio_terms", ["ratios": ratios.map(String.init).joined(separator: ":")]))
        }
        guard let underlying = symbols[package[0].contract.underlying] else {
            throw OrderRejection(
                .unknownSymbol, "asset \(package[0].contract.underlying) not found",
                facts: .init("unknown_symbol", ["symbol": package[0].contract.underlying]))
        }
        let result = Package(underlying: underlying, units: units, legs: package)

        // Money and cover: what the whole package adds, against what is free.
        let (needed, shares) = packageHold(result, units: units, limit: r.limitPrice, account: account)
        let date = tradingDate(instruments[Int(underlying.index)], at: time)
        let free = sharesFreeToCover(account, underlying: package[0].contract.underlying, on: date)
        let symbol = package[0].contract.underlying
        if shares > free {
            throw OrderRejection(
                .insufficientQty,
                "this order leaves calls written that no long call covers: they need \(shares) shares of \(symbol), and \(free) are free — every short leg must be covered",
                facts: .init(
                    "mleg.uncovered", ["underlying": symbol, "shares": shares.description, "free": free.description]))
        }
        let available = buyingPower(account, for: package[0].instrument, price: .one)
        if needed > available {
            let (required, have) = (needed.formatted(places: 2), available.formatted(places: 2))
            throw OrderRejection(
                .insufficientBuyingPower,
                "this order needs \(required) of options buying power (its net debit and what its written legs could lose at expiry); options buying power is \(have)",
                facts: .init("mleg.buying_power", ["required": required, "available": have]))
        }
        return result
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// What `units` of a package hold while they work: the net debit (at the limit, or at the quotes with the
    /// market cushion), plus what the legs add to the account's requirement, plus each leg's fee cushion — in cash;
    /// and the shares of the underlying its calls need.
    func packageHold(_ package: Package, units: Quantity, limit: Price?, account: borrowing Account)
        -> (cash: FixedDecimal, shares: Quantity)
    {
        guard units.isPositive else { return (.zero, .zero) }
        let currency = account.currency
        var debit: FixedDecimal
        if let limit {
            debit = limit.multiplied(by: units.times(100))
        } else {
            debit = .zero
            for leg in package.legs {
                let i = Int(leg.instrument.index)
                let price: Price
                if leg.side == .buy {
                    let ask = books[i].askPrice ?? books[i].lastTrade ?? .zero
                    price = ask.multiplied(by: .one + configuration.marketBuyCushion, places: 4, rule: .up)
                } else {
                    price = books[i].bidPrice ?? .zero
                }
                let value = price.multiplied(by: units.times(leg.ratio * leg.contract.multiplier))
                debit += leg.side == .buy ? value : -value
            }
        }
        let added = packageRequirement(package, units: units, account: account)
        var cushion = FixedDecimal.zero
        for leg in package.legs { cushion += account.fees.minimumChargeCushion(side: leg.side, currency: currency) }
        let cash = Swift.max(.zero, debit + added.cash).rounded(places: currency.minorUnitDigits, rule: .up)
        return (cash + cushion, added.shares)
    }

    /// What filling `units` of every leg adds to the account's requirement for written contracts.
    func packageRequirement(_ package: Package, units: Quantity, account: borrowing Account) -> SpreadRule.Requirement {
        var legs: [SpreadRule.Leg] = []
        let underlying = package.legs[0].contract.underlying
        for position in account.positions.values where position.multiplier != nil && !position.qty.isZero {
            guard let held = position.optionContract, held.underlying == underlying else { continue }
            legs.append(SpreadRule.Leg(held, qty: position.qty))
        }
        let before = SpreadRule.requirement(of: legs)
        for leg in package.legs {
            let change = units.times(leg.ratio)
            let signed = leg.side == .buy ? change : -change
            if let k = legs.firstIndex(where: { $0.contract == leg.contract }) {
                legs[k].qty += signed
            } else {
                legs.append(SpreadRule.Leg(leg.contract, qty: signed))
            }
        }
        let after = SpreadRule.requirement(of: legs)
        return SpreadRule.Requirement(
            cash: Swift.max(.zero, after.cash - before.cash), shares: Swift.max(.zero, after.shares - before.shares))
    }

    /// The package an open parent describes (nil when it is not one, or a leg is gone).
    func package(of parent: borrowing Order) -> Package? {
        guard parent.orderClass == .mleg, parent.parentID == nil, let units = parent.qty else { return nil }
        var legs: [Package.Leg] = []
        for id in parent.legs {
            guard let child = orders[id], let contract = instruments[Int(child.instrument.index)].option,
                let qty = child.qty, units.isPositive
            else { return nil }
            let ratio = (qty.divided(by: units, rule: .down) ?? .one).integerPart ?? 1
            legs.append(
                Package.Leg(
                    instrument: child.instrument, contract: contract, ratio: Swift.max(1, ratio), side: child.side,
                    intent: child.intent))
        }
        return legs.isEmpty ? nil : Package(underlying: parent.instrument, units: units, legs: legs)
    }

    /// What an order of a package holds while it works: the parent, its package's hold for the units left (in
    /// cash, and in shares of the underlying); a leg that sells contracts held, those contracts; other legs nothing.
    func packageReservation(_ order: borrowing Order, account: borrowing Account) -> (
        InstrumentID, cash: FixedDecimal, shares: Quantity
    ) {
        if order.parentID == nil {
            guard let package = package(of: order) else { return (order.instrument, .zero, .zero) }
            let limit = order.type == .limit ? order.limitPrice : nil
            let hold = packageHold(package, units: order.leavesQty ?? .zero, limit: limit, account: account)
            return (order.instrument, hold.cash, hold.shares)
        }
        return (order.instrument, .zero, order.intent == .sellToClose ? order.leavesQty ?? .zero : .zero)
    }

    // MARK: Matching

    /// Files an open package under each of its legs' contracts, so their quotes reach it.
    mutating func trackPackage(_ parentID: OrderID) {
        guard let parent = orders[parentID] else { return }
        for leg in parent.legs {
            guard let instrument = orders[leg]?.instrument else { continue }
            packages[instrument, default: []].append(parentID)
        }
    }

    mutating func untrackPackage(_ parentID: OrderID) {
        for (instrument, ids) in packages where ids.contains(parentID) {
            let rest = ids.filter { $0 != parentID }
            packages[instrument] = rest.isEmpty ? nil : rest
        }
    }

    /// Tries every open package with a leg on `instrument` against the legs' quotes.
    mutating func matchPackages(on instrument: InstrumentID, at time: Timestamp) {
        guard let ids = packages[instrument] else { return }
        for id in ids { matchPackage(id, at: time) }
    }

    /// Fills as many units of a package as the legs' books allow, when the net is within its limit: a round at every
    /// leg's best level, then — while units are left — rounds further into the books (a leg moves to its next level
    /// when what is left at its current one cannot make a whole unit), each round priced at its own levels and
    /// checked against the limit again, until a book runs out or the net passes the limit.
    mutating func matchPackage(_ parentID: OrderID, at time: Timestamp) {
        var walk = PackageWalk()
        for _ in 0..<(BookSide.capacity * Self.maximumLegs) {
            guard fillPackageRound(parentID, walk: &walk, at: time) else { return }
        }
    }

    /// One round of `matchPackage`: the units every leg's current level can give at once. Returns whether the
    /// package is still working and another round may fill more.
    private mutating func fillPackageRound(_ parentID: OrderID, walk: inout PackageWalk, at time: Timestamp) -> Bool {
        guard let parent = orders[parentID], parent.status.isOpen, parent.eligibleAt <= time,
            let package = package(of: parent), let leaves = parent.leavesQty, leaves.isPositive,
            let account = accounts[parent.accountID]
        else { return false }
        var net = FixedDecimal.zero
        var units = leaves
        var prices: [Price] = []
        for (k, leg) in package.legs.enumerated() {
            let i = Int(leg.instrument.index)
            let instrument = instruments[i]
            let phase = self.phase(of: instrument, at: time)
            guard phase.isRegularTrading || configuration.sessions == .alwaysOpen else { return false }
            if configuration.sessions == .exchangeCalendars {
                let window = sessionCache.window(instrument.calendar, at: time)
                guard books[i].quoteTime >= window.start else { return false }
            }
            guard let quote = books[i].quote else { return false }
            let side = leg.side == .buy ? quote.asks : quote.bids
            let ratio = FixedDecimal(leg.ratio)
            func left(_ level: Int) -> Quantity {
                side[level].size.multiplied(by: configuration.quoteParticipation, rule: .down)
                    - (level == walk.levels[k] ? walk.taken[k] : .zero)
            }
            while walk.levels[k] < side.count, left(walk.levels[k]) < ratio {
                walk.levels[k] += 1
                walk.taken[k] = .zero
            }
            guard walk.levels[k] < side.count else { return false }
            let level = side[walk.levels[k]]
            let fits = (left(walk.levels[k]).divided(by: ratio, rule: .down) ?? .zero).rounded(places: 0, rule: .down)
            units = Swift.min(units, fits)
            prices.append(level.price)
            let value = level.price.times(leg.ratio)
            net += leg.side == .buy ? value : -value
        }
        if let limit = parent.limitPrice, parent.type == .limit, net > limit { return false }
        guard units.isPositive else { return false }

        // The account must carry the units at these prices: shares for calls no long call covers, and cash for the
        // net debit and what the written legs add (the parent's own hold is there for it).
        let (needed, shares) = packageHold(package, units: units, limit: net, account: account)
        let date = tradingDate(instruments[Int(package.underlying.index)], at: time)
        let free =
            sharesFreeToCover(account, underlying: package.legs[0].contract.underlying, on: date)
            + parent.reservedShares
        let spendable = buyingPower(account, for: package.legs[0].instrument, price: .one) + parent.reservedCash
        if shares > free || needed > spendable {
            finish(
                parentID, .canceled,
                reason: shares > free
                    ? "filling it would leave calls written uncovered: the shares that cover them are no longer free"
                    : "insufficient buying power to fill it at a net \(net)",
                at: time)
            return false
        }

        releaseReservations(parentID)
        for (k, leg) in package.legs.enumerated() {
            guard let child = parent.legs.first(where: { orders[$0]?.instrument == leg.instrument }) else { continue }
            let instrument = instruments[Int(leg.instrument.index)]
            book(
                child, qty: units.times(leg.ratio), price: prices[k], instrument: instrument,
                date: tradingDate(instrument, at: time), at: time)
        }
        for (k, leg) in package.legs.enumerated() { walk.taken[k] += units.times(leg.ratio) }
        let complete =
            orders.update(parentID) { order in
                order.filledQty += units
                order.filledValue += net.multiplied(by: units)
                order.updatedAt = time
                order.status = order.status.after(.partialFill) ?? order.status
                return order.filledQty >= (order.qty ?? .zero)
            } ?? true
        if complete {
            finish(parentID, .fill, reason: nil, at: time)
            return false
        }
        reserve(parentID)
        publish(.partialFill, parentID, at: time)
        return true
    }
}

/// How far one `matchPackage` has walked each leg's book: the level it is at and the contracts it took there.
struct PackageWalk {
    var levels = [Int](repeating: 0, count: TradingEngine.maximumLegs)
    var taken = [Quantity](repeating: .zero, count: TradingEngine.maximumLegs)
}

extension TradingEngine {
    /// After a package's parent or leg ended: a parent that ended ends its open legs the same way; a leg that ended
    /// other than by filling ends the package.
    mutating func resolvePackage(after order: Order, at time: Timestamp) {
        if order.parentID == nil {
            untrackPackage(order.id)
            guard order.status != .filled else { return }
            let event: OrderUpdate.Event =
                order.status == .expired ? .expired : order.status == .replaced ? .replaced : .canceled
            for leg in order.legs where orders[leg]?.status.isOpen == true {
                finish(leg, event, reason: order.reason ?? "multi-leg order \(order.status.rawValue)", at: time)
            }
        } else if order.status != .filled, let parentID = order.parentID, orders[parentID]?.status.isOpen == true {
            let event: OrderUpdate.Event = order.status == .expired ? .expired : .canceled
            finish(parentID, event, reason: order.reason ?? "a leg was \(order.status.rawValue)", at: time)
        }
    }
}
