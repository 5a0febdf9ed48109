extension TradingEngine {
    /// Places an order: validates it against the instrument's market rules and the account, reserves buying
    /// power or shares, and (with no fill latency) fills what the current quote allows at once.
    /// Returns the order as it stands after that; throws the precise reason for a refusal.
    @discardableResult
    public mutating func submit(
        _ request: OrderRequest, account accountID: AccountID,
        at time: Timestamp
    ) throws(OrderRejection) -> Order {
        if request.orderClass == .mleg, request.legs != nil {
            return try submitMultiLeg(request, account: accountID, at: time)
        }
        guard let instrumentID = symbols[request.symbol] else {
            _ = try existingAccount(accountID)
            throw OrderRejection(
                .unknownSymbol, "asset \(request.symbol) not found",
                facts: .init("unknown_symbol", ["symbol": request.symbol]))
        }
        let instrument = instruments[Int(instrumentID.index)]
        // A game account's order placed before its game starts waits for the start, and is for the start's day.
        var works = time
        let inGame: Bool
        let checked: (intent: PositionIntent, opening: FixedDecimal?)
        do {
            // This copy of the account ends here: alive while the order reserves, it would make the account copy
            // its positions.
            let account = try existingAccount(accountID)
            checked = try validate(request, account: account, instrument: instrumentID, at: time)
            inGame = account.inGame
            if inGame, let start = account.gameRules?.startsAt, start > time { works = start }
        }
        let clientOrderID = request.clientOrderID ?? ClientOrderID(newIdentifier(at: time))
        let id = OrderID(newIdentifier(at: time))
        if inGame {
            let date = tradingDate(instrument, at: time)
            accounts[accountID]?.gameActivity?.recordOrder(on: date)
        }
        var order = Order(
            Order.Fields(
                id: id, clientOrderID: clientOrderID, accountID: accountID, instrument: instrumentID,
                symbol: instrument.symbol, side: request.side, type: request.type, timeInForce: request.timeInForce,
                orderClass: request.orderClass, qty: request.qty, notional: request.notional, filledQty: .zero,
                filledValue: .zero, limitPrice: request.limitPrice, stopPrice: request.stopPrice,
                trailPrice: request.trailPrice, trailPercent: request.trailPercent, hwm: nil,
                extendedHours: request.extendedHours, status: .new, createdAt: time, updatedAt: time,
                submittedAt: time, filledAt: nil, expiredAt: nil, canceledAt: nil, failedAt: nil, replacedAt: nil,
                expiresAt: expiry(
                    request.timeInForce, extendedHours: request.extendedHours, instrument: instrument, at: works),
                replacedBy: nil, replaces: nil, legs: [], parentID: nil, triggered: false, fees: .zero, reason: nil,
                eligibleAt: works.adding(nanoseconds: configuration.fillLatency), reservedCash: .zero,
                reservedShares: .zero,
                positionIntent: checked.intent, note: request.note))
        // What an opening order reserves was priced by validation, from the same state; a trailing stop's is not
        // (its stop is set just below).
        var reservation = checked.opening
        if order.type == .trailingStop {
            initializeTrail(&order, instrument: instrument)
            reservation = nil
        }
        accept(consume order, reservation: reservation, at: time)
        createLegs(for: id, request: request, at: time)
        fillImmediately(id, at: time)
        return orders[id] ?? Order.probe(request, instrument: instrumentID, account: accountID) // (accept stored it)
    }

    /// Whether `request` would be accepted for the account now, without placing it: throws the refusal `submit`
    /// would give (the trade sheet says it while the user types), returns nothing otherwise. Changes no state.
    public mutating func check(_ request: OrderRequest, account accountID: AccountID, at time: Timestamp)
        throws(OrderRejection)
    {
        if request.orderClass == .mleg, request.legs != nil {
            let account = try existingAccount(accountID)
            _ = try validateMultiLeg(request, account: account, at: time)
            return
        }
        guard let instrumentID = symbols[request.symbol] else {
            throw OrderRejection(
                .unknownSymbol, "asset \(request.symbol) not found",
                facts: .init("unknown_symbol", ["symbol": request.symbol]))
        }
        let account = try existingAccount(accountID)
        try validate(request, account: account, instrument: instrumentID, at: time)
    }

    /// Replaces an open order with a new one carrying the changed fields (Alpaca's PATCH): the new order gets
    /// a new id and `replaces`; the old one ends `replaced` with `replaced_by`.
    @discardableResult
    public mutating func replace(
        _ orderID: OrderID, account accountID: AccountID, with change: ReplaceRequest,
        at time: Timestamp
    ) throws(OrderRejection) -> Order {
        _ = try existingAccount(accountID)
        guard let old = orders[orderID], old.accountID == accountID else {
            throw OrderRejection(.orderNotFound, "order not found")
        }
        guard old.status.isOpen else {
            throw OrderRejection(.notReplaceable, "order is \(old.status.rawValue) and can no longer be replaced")
        }
        guard old.notional == nil else {
            throw OrderRejection(.notReplaceable, "notional orders cannot be replaced")
        }
        let carriesFills = change.qtyIncludesFills == true
        guard old.filledQty.isZero || carriesFills else {
            throw OrderRejection(
                .notReplaceable, "order is partially filled; cancel it and place a new order for the rest")
        }
        if old.orderClass == .mleg {
            guard old.parentID == nil else {
                throw OrderRejection(
                    .notReplaceable, "a leg of a multi-leg order is replaced with its package: replace the parent order"
                )
            }
            return try replacePackage(old, with: change, at: time)
        }
        guard old.parentID == nil, old.orderClass == .simple else {
            throw OrderRejection(
                .notReplaceable,
                "orders of class \(old.orderClass.rawValue) cannot be replaced yet; cancel and place a new one")
        }
        var request = OrderRequest(
            symbol: old.symbol, side: old.side, type: old.type,
            timeInForce: change.timeInForce ?? old.timeInForce, qty: change.qty ?? old.qty,
            limitPrice: change.limitPrice ?? old.limitPrice,
            stopPrice: change.stopPrice ?? old.stopPrice,
            trailPrice: old.trailPrice, trailPercent: old.trailPercent,
            extendedHours: old.extendedHours,
            clientOrderID: change.clientOrderID)
        request.note = old.note
        if carriesFills, !old.filledQty.isZero {
            let total = change.qty ?? old.qty ?? old.filledQty
            guard total > old.filledQty else {
                throw OrderRejection(
                    .invalidInput,
                    "the new quantity \(total) must be above the \(old.filledQty) already filled")
            }
            request.qty = total - old.filledQty
        }
        if let trail = change.trail {
            if old.trailPercent != nil { request.trailPercent = trail } else { request.trailPrice = trail }
        }
        if old.type == .trailingStop, change.stopPrice == nil { request.stopPrice = nil }
        // Validate the new order as if the old one's reservations were already released; on refusal the old
        // order reserves again and keeps working.
        releaseReservations(orderID)
        do {
            let account = try existingAccount(accountID)
            try validate(request, account: account, instrument: old.instrument, at: time)
        } catch {
            reserve(orderID)
            throw error
        }
        finish(orderID, .replaced, reason: nil, at: time)
        let replacement = try submit(request, account: accountID, at: time)
        orders[orderID]?.replacedBy = replacement.id
        orders[replacement.id]?.replaces = orderID
        return orders[replacement.id] ?? replacement
    }

    /// Cancels an open order (and its exit legs).
    @discardableResult
    public mutating func cancel(
        _ orderID: OrderID, account accountID: AccountID,
        at time: Timestamp
    ) throws(OrderRejection) -> Order {
        // (Asked of the table: `accounts[id] != nil` copies the whole account to compare it with nil.)
        guard accounts.index(forKey: accountID) != nil else { throw Self.unknownAccount(accountID) }
        guard let order = orders[orderID], order.accountID == accountID else {
            throw OrderRejection(.orderNotFound, "order not found")
        }
        guard order.status.isOpen else {
            throw OrderRejection(.notCancelable, "order is \(order.status.rawValue) and can no longer be canceled")
        }
        // A leg of a multi-leg order is canceled with its package.
        if order.orderClass == .mleg, let parentID = order.parentID {
            return try cancel(parentID, account: accountID, at: time)
        }
        finish(orderID, .canceled, reason: nil, at: time)
        return orders[orderID] ?? order
    }

    /// Cancels every open order of an account; returns each order's id with the outcome.
    public mutating func cancelAll(
        account accountID: AccountID,
        at time: Timestamp
    ) throws(OrderRejection) -> [(OrderID, Result<Order, OrderRejection>)] {
        _ = try existingAccount(accountID)
        let ids = openOrders.filter { orders[$0]?.accountID == accountID && orders[$0]?.parentID == nil }.sorted()
        var results: [(OrderID, Result<Order, OrderRejection>)] = []
        for id in ids {
            do throws(OrderRejection) {
                results.append((id, .success(try cancel(id, account: accountID, at: time))))
            } catch {
                results.append((id, .failure(error)))
            }
        }
        return results
    }

    /// Open orders of an account, oldest first.
    public func openOrders(of accountID: AccountID) -> [Order] {
        openOrders.compactMap { orders[$0] }.filter { $0.accountID == accountID }
            .sorted { ($0.submittedAt, $0.id) < ($1.submittedAt, $1.id) }
    }

    public func order(_ id: OrderID) -> Order? { orders[id] }

    public func order(clientOrderID: ClientOrderID, account: AccountID) -> Order? {
        clientOrderIDs[account, clientOrderID].flatMap { orders[$0] }
    }

    // MARK: - Lifecycle internals

    /// Records a validated order, reserves what it needs, and makes it work (or hold, for exit legs).
    /// `reservation`: the cash an opening order holds back, when the caller priced it already.
    mutating func accept(
        _ order: consuming Order, reservation: FixedDecimal? = nil, at time: Timestamp
    ) {
        let id = order.id
        let held = order.status == .held
        // A multi-leg order rests on no book: its legs' quotes try it as one (`matchPackage`).
        let booked = order.orderClass != .mleg
        clientOrderIDs.insert(order.clientOrderID, account: order.accountID, order: id)
        if let expiresAt = order.expiresAt, expiresAt < nextDeadline { nextDeadline = expiresAt }
        // Moved in: the table's is the only reference, so reserving changes it in place.
        orders[id] = consume order
        openOrders.insert(id)
        if !held {
            reserve(id, opening: reservation)
            if booked { addToBook(id) }
        }
        publish(held ? .held : .new, id, at: time)
    }

    /// Ends an order on `event` (fill, canceled, expired, replaced, rejected): releases what it reserved, takes it
    /// off the book, and resolves its group (a filled entry activates its exits; a finished exit cancels its twin).
    /// Does nothing when the order's status does not allow the event (`OrderStatus.after`).
    mutating func finish(
        _ id: OrderID, _ event: OrderUpdate.Event, reason: String?, at time: Timestamp,
        fill: Fill? = nil
    ) {
        guard let status = orders.read(id, { $0.status.after(event) }) ?? nil else { return }
        assert(status.isTerminal, "finish(\(event)) must end the order")
        releaseReservations(id)
        removeFromBook(id)
        openOrders.remove(id)
        closedOrders.append(id)
        orders.update(id) { order in
            order.status = status
            order.updatedAt = time
            if let reason { order.reason = reason }
            switch status {
            case .filled: order.filledAt = time
            case .canceled: order.canceledAt = time
            case .expired: order.expiredAt = time
            case .replaced: order.replacedAt = time
            case .rejected: order.failedAt = time
            default: break
            }
        }
        publish(event, id, at: time, fill: fill)
        resolveGroup(after: id, at: time)
    }

    mutating func publish(_ event: OrderUpdate.Event, _ id: OrderID, at time: Timestamp, fill: Fill? = nil) {
        guard configuration.publishesOrderUpdates, let order = orders[id] else { return }
        outbox.append(
            .order(
                OrderUpdate(
                    event: event, order: order, time: time, fill: fill,
                    positionQty: positionQty(order.accountID, order.instrument))))
    }

    /// When a day/gtc/opg/cls order expires.
    mutating func expiry(_ tif: TimeInForce, extendedHours: Bool, instrument: Instrument, at time: Timestamp)
        -> Timestamp?
    {
        let calendar = instrument.calendar
        switch configuration.sessions {
        case .alwaysOpen:
            switch tif {
            case .gtc: return time.adding(nanoseconds: Int64(configuration.gtcLifetimeDays) * Duration64.day)
            case .ioc, .fok: return nil
            default: return sessionCache.localDay(calendar, at: time).end
            }
        case .exchangeCalendars:
            let session = sessionCache.currentOrNextSession(calendar, at: time)
            switch tif {
            case .day: return extendedHours ? session.end : session.close
            case .gtc:
                let horizon = time.adding(nanoseconds: Int64(configuration.gtcLifetimeDays) * Duration64.day)
                return sessionCache.currentOrNextSession(calendar, at: horizon).close
            case .opg: return session.open.adding(nanoseconds: Duration64.minute)
            case .cls: return session.close.adding(nanoseconds: Duration64.minute)
            case .ioc, .fok: return nil
            }
        }
    }

    /// Expires every open order whose time has come. Market events call this when they pass the next deadline.
    public mutating func advance(to time: Timestamp) {
        guard time >= nextDeadline else { return }
        var next = Timestamp.distantFuture
        for id in openOrders.sorted() {
            guard let order = orders[id], let expiresAt = order.expiresAt else { continue }
            if expiresAt <= time {
                // Exit legs go with their parent's group resolution; a held leg's own expiry still applies.
                finish(id, .expired, reason: nil, at: expiresAt)
            } else if expiresAt < next {
                next = expiresAt
            }
        }
        nextDeadline = next
    }

    // MARK: Reservations

    /// Holds back what an order needs: cash for a buy (cost of the remainder plus fees), shares and a fee
    /// cushion for a sale; buying power for a short sale (its value, as a buy would) and a fee cushion for a cover.
    ///
    /// `opening`: what an order that opens a position holds back, when validation priced it already (such orders
    /// hold no shares).
    mutating func reserve(_ id: OrderID, opening: FixedDecimal? = nil) {
        // (Worked out on a copy of the order that ends before the order changes; a closure over the engine inside
        // `orders.read` would copy the whole engine.)
        let accountID: AccountID
        let (instrumentID, cash, shares): (InstrumentID, FixedDecimal, Quantity)
        // The currency the cash is held in, when not the account's (an order on a currency pair).
        let paid: Currency?
        do {
            guard let order = orders[id] else { return }
            accountID = order.accountID
            paid = instruments[Int(order.instrument.index)].currencyPair?.paid(order.side)
            // (A call write holds shares as well as cash: `reservation` works both out.)
            if let opening, order.intent != .sellToOpen || instruments[Int(order.instrument.index)].option == nil {
                (instrumentID, cash, shares) = (order.instrument, opening, .zero)
            } else {
                guard let account = accounts[order.accountID] else { return }
                (instrumentID, cash, shares) = reservation(order, account: account)
            }
        }
        orders.update(id) { order in
            order.reservedCash = cash
            order.reservedShares = shares
        }
        withAccount(accountID) { account in
            if !cash.isZero { account.hold(cash, in: paid ?? account.currency) }
            if shares.isPositive, let p = account.positions.index(forKey: instrumentID) {
                // (In place: through `positions[id]?` the position is moved out of the table and back.)
                account.positions.values[p].reservedForSale += shares
            }
        }
    }

    /// What `reserve` holds back for an order of an account: cash and shares (and where the shares are held).
    func reservation(_ order: borrowing Order, account: borrowing Account) -> (
        InstrumentID, cash: FixedDecimal, shares: Quantity
    ) {
        if order.orderClass == .mleg { return packageReservation(order, account: account) }
        let instrument = instruments[Int(order.instrument.index)]
        if let pair = instrument.currencyPair {
            let held = forexReservation(ReservationTerms(order), side: order.side, pair: pair, instrument: instrument)
            return (order.instrument, held, .zero)
        }
        if let pair = instrument.coinPair {
            let held = coinReservation(ReservationTerms(order), side: order.side, pair: pair, instrument: instrument)
            return (held?.position ?? order.instrument, .zero, held?.qty ?? .zero)
        }
        let (fees, currency) = (account.fees(for: instrument), account.currency)
        var cash = FixedDecimal.zero
        var shares = FixedDecimal.zero
        switch order.intent {
        case .buyToOpen:
            cash = buyReservation(ReservationTerms(order), instrument: instrument, fees: fees, currency: currency)
        case .buyToClose:
            cash = buyBackReservation(ReservationTerms(order), instrument: instrument, account: account)
        case .sellToOpen:
            // A write holds what it adds to the requirement: cash, and the shares its calls need in the
            // underlying's position.
            if let contract = instrument.option {
                let held = writeReservation(ReservationTerms(order), contract: contract, account: account)
                guard held.shares.isPositive, let stock = coveringStock(of: order.instrument) else {
                    return (order.instrument, held.cash, .zero)
                }
                return (stock, held.cash, held.shares)
            }
            cash = shortSaleReservation(ReservationTerms(order), fees: fees, currency: currency)
        case .sellToClose:
            cash = fees.minimumChargeCushion(side: .sell, currency: currency)
            if !sharesReservedByTwin(order) { shares = (order.leavesQty ?? sellQtyForNotional(order)) }
        }
        return (order.instrument, cash, shares)
    }

    mutating func releaseReservations(_ id: OrderID) {
        guard
            let (accountID, ordered, cash, shares, intent, side) = orders.update(
                id,
                { order in
                    defer {
                        order.reservedCash = .zero
                        order.reservedShares = .zero
                    }
                    return (
                        order.accountID, order.instrument, order.reservedCash, order.reservedShares, order.intent,
                        order.side
                    )
                })
        else { return }
        guard !cash.isZero || shares.isPositive else { return }
        let paid = instruments[Int(ordered.index)].currencyPair?.paid(side)
        // A call write's shares are held in the underlying's position; a coin pair's coins in their dollar pairs'.
        let instrument: InstrumentID
        if let pair = instruments[Int(ordered.index)].coinPair, let paying = symbols[pair.paidLeg(side)] {
            instrument = paying
        } else {
            instrument = intent == .sellToOpen && shares.isPositive ? coveringStock(of: ordered) ?? ordered : ordered
        }
        withAccount(accountID) { account in
            if !cash.isZero { account.hold(-cash, in: paid ?? account.currency) }
            if shares.isPositive, let p = account.positions.index(forKey: instrument) {
                account.positions.values[p].reservedForSale -= shares
                // A position sold out while an exit twin still held its shares goes once the hold is gone.
                if account.positions.values[p].qty.isZero, account.positions.values[p].reservedForSale.isZero {
                    account.positions.remove(at: p)
                }
            }
        }
    }

    /// What a reservation is priced from: an order's terms and what it has filled. Made from a placed order, or from
    /// a request that is not one yet (validation prices the reservation first: an order made for that was a heap
    /// block allocated and freed per placement, ~3% of a backtest).
    struct ReservationTerms {
        var instrument: InstrumentID
        var type: OrderType
        var qty: Quantity?
        var notional: FixedDecimal?
        var limitPrice: Price?
        var stopPrice: Price?
        var filledQty = FixedDecimal.zero
        var filledValue = FixedDecimal.zero
        var fees = FixedDecimal.zero

        var leavesQty: Quantity? { qty.map { $0 - filledQty } }

        init(_ order: borrowing Order) {
            instrument = order.instrument
            type = order.type
            qty = order.qty
            notional = order.notional
            limitPrice = order.limitPrice
            stopPrice = order.stopPrice
            filledQty = order.filledQty
            filledValue = order.filledValue
            fees = order.fees
        }

        init(_ request: OrderRequest, instrument: InstrumentID) {
            self.instrument = instrument
            type = request.type
            qty = request.qty
            notional = request.notional
            limitPrice = request.limitPrice
            stopPrice = request.stopPrice
        }
    }

    /// Cash a buy must hold for what remains of it: the remainder at its limit (or the market with the
    /// cushion), plus the fees that remainder would add.
    func buyReservation(_ order: ReservationTerms, instrument: Instrument, fees: FeeSchedule, currency: Currency)
        -> FixedDecimal
    {
        let price = reservationPrice(order, instrument: instrument)
        let multiplier = instrument.multiplier
        let value: FixedDecimal
        let remainingQty: Quantity
        if let notional = order.notional {
            value = notional - order.filledValue.rounded(places: currency.minorUnitDigits, rule: .halfUp)
            remainingQty = price.isPositive ? (value.divided(by: price, rule: .up) ?? .zero) : .zero
        } else {
            remainingQty = order.leavesQty ?? .zero
            value = price.multiplied(
                by: multiplier == .one ? remainingQty : remainingQty.multiplied(by: multiplier),
                places: currency.minorUnitDigits, rule: .up)
        }
        guard value.isPositive else { return .zero }
        // The fees the whole order will have paid once the remainder fills, on the same cent basis as fills use.
        let basis = (LedgerMath.feeBasis(order.filledValue, multiplier: multiplier, currency: currency) + value)
            .rounded(places: currency.minorUnitDigits, rule: .halfUp)
        let feesAfter = fees.total(
            side: .buy, filledQty: order.filledQty + remainingQty, filledValue: basis, currency: currency)
        return value + Swift.max(.zero, feesAfter - order.fees)
    }

    /// Buying power a short sale holds for what remains of it: the remainder's value at its limit (or the market
    /// with the cushion), plus the fee cushion of a sale.
    func shortSaleReservation(_ order: ReservationTerms, fees: FeeSchedule, currency: Currency) -> FixedDecimal {
        let instrument = instruments[Int(order.instrument.index)]
        let price = reservationPrice(order, instrument: instrument)
        let value = price.multiplied(
            by: (order.leavesQty ?? .zero).multiplied(by: instrument.multiplier), places: currency.minorUnitDigits,
            rule: .up)
        guard value.isPositive else { return .zero }
        return value + fees.minimumChargeCushion(side: .sell, currency: currency)
    }

    /// The per-share price a buy (or short sale) reserves at: its limit, or the market (ask, else last trade, else stop) with
    /// the cushion.
    func reservationPrice(_ order: ReservationTerms, instrument: Instrument) -> Price {
        if let limit = order.limitPrice, order.type == .limit || order.type == .stopLimit { return limit }
        let i = Int(order.instrument.index)
        var market = books[i].askPrice ?? books[i].lastTrade ?? .zero
        if let stop = order.stopPrice, stop > market { market = stop }
        if let band = books[i].band, instrument.priceLimit.fraction != nil { return band.limitUp }
        return market.multiplied(by: .one + configuration.marketBuyCushion, places: 4, rule: .up)
    }

    func sellQtyForNotional(_ order: Order) -> Quantity {
        guard let notional = order.notional else { return .zero }
        let book = books[Int(order.instrument.index)]
        guard let bid = book.bidPrice ?? book.lastTrade, bid.isPositive else { return .zero }
        let held = accounts[order.accountID]?.positions[order.instrument]?.qty ?? .zero
        return Swift.min(held, (notional.divided(by: bid, rule: .up) ?? .zero))
    }

    /// In an exit pair (oco, or the exits of a bracket/oto) only the first leg holds the shares.
    func sharesReservedByTwin(_ order: Order) -> Bool {
        guard let parentID = order.parentID, let parent = orders[parentID] else { return false }
        if parent.orderClass == .oco { return true } // the oco parent (take-profit) holds them
        guard let first = parent.legs.first else { return false }
        return first != order.id && orders[first]?.status.isOpen == true
    }

    // MARK: Book membership

    mutating func addToBook(_ id: OrderID) {
        guard let (i, entry) = orders.read(id, { (Int($0.instrument.index), RestingOrder($0)) }) else { return }
        bookPositions[id] = books[i].resting.count
        books[i].append(entry)
    }

    mutating func removeFromBook(_ id: OrderID) {
        guard let instrument = orders.read(id, { $0.instrument }), let position = bookPositions[id] else { return }
        bookPositions[id] = nil
        if let moved = books[Int(instrument.index)].remove(at: position) { bookPositions[moved] = position }
    }

    /// Where a working order is in its book. The newest entry is checked first: the order a step works on is most
    /// often the one just submitted.
    func bookIndex(of id: OrderID, in book: Int) -> Int? {
        if let last = books[book].resting.last, last.id == id { return books[book].resting.count - 1 }
        return bookPositions[id]
    }

    // MARK: Trailing stops

    mutating func initializeTrail(_ order: inout Order, instrument: Instrument) {
        let book = books[Int(order.instrument.index)]
        guard
            let mark = book.lastTrade
                ?? book.quote.flatMap({ order.side == .sell ? $0.bids.best?.price : $0.asks.best?.price })
        else { return }
        order.hwm = mark
        order.stopPrice = trailStop(order, mark: mark, instrument: instrument)
    }

    /// The stop a trail implies at a water mark: hwm − trail (or × (1 − pct)) for sells; lwm + trail for buys,
    /// on the tick grid, rounded against the order (toward the mark).
    func trailStop(_ order: Order, mark: Price, instrument: Instrument) -> Price {
        let sell = order.side == .sell
        var stop: Price
        if let trail = order.trailPrice {
            stop = sell ? mark - trail : mark + trail
        } else {
            let pct = (order.trailPercent ?? .zero).divided(by: FixedDecimal(100)) ?? .zero
            stop = mark.multiplied(by: sell ? .one - pct : .one + pct)
        }
        return instrument.tick.round(stop, sell ? .ceiling : .floor)
    }
}

extension TradingEngine {
    /// Forgets closed orders once the caller has persisted them, so memory follows open orders rather than
    /// history. Orders whose bracket/oco group still has an open member are kept (the group needs them).
    /// Their client_order_ids are forgotten with them: from then on the caller's stored orders say an id is taken.
    public mutating func pruneClosedOrders() {
        closedOrders = prune(closedOrders)
    }

    /// The orders closed since the last call (or `pruneClosedOrders()`): the caller prunes them once the step that
    /// closed them is durable.
    public mutating func takeClosedOrders() -> [OrderID] {
        defer { closedOrders = [] }
        return closedOrders
    }

    /// Forgets these closed orders (reads fall back to storage); returns those kept because their bracket or OCO
    /// group still has an open member.
    public mutating func prune(_ ids: [OrderID]) -> [OrderID] {
        var stillNeeded: [OrderID] = []
        for id in ids {
            guard let order = orders[id] else { continue }
            if groupHasOpenMember(order) {
                stillNeeded.append(id)
            } else {
                clientOrderIDs.remove(order.clientOrderID, account: order.accountID, order: id)
                orders[id] = nil
            }
        }
        return stillNeeded
    }

    func groupHasOpenMember(_ order: Order) -> Bool {
        let root = order.parentID.flatMap { orders[$0] } ?? order
        if root.status.isOpen { return true }
        return root.legs.contains { orders[$0]?.status.isOpen == true }
    }
}
