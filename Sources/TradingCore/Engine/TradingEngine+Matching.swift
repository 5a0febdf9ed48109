/// How market events fill orders.
///
/// - Quotes: a buy takes the ask levels (a sell the bid levels) up to its limit, each level at its own price,
///   at most `quoteParticipation` of each level's size, shared by our orders in price-time priority.
/// - Trades: a market order fills at the trade price; a limit fills only when the trade is strictly through
///   it (queue position at the limit is unknown), at the trade price. Size ≤ `volumeParticipation` × size.
/// - Bars: market orders at the open; a buy limit at the open if the open is at or below it, else at the limit
///   if the low went strictly below it (sells mirrored). Size ≤ `volumeParticipation` × volume.
/// - Auctions: opg/cls orders at the auction price; their unfilled rest expires.
/// - Stops trigger in regular hours on trades (buy: price ≥ stop; sell: ≤), on quotes when even the far side
///   passed the stop (buy: bid ≥ stop; sell: ask ≤ stop), on bars by the high/low. Trailing stops move their
///   stop with the high-water mark (low-water for buys) first.
/// - A-shares never fill a buy at the limit-up price, or a sell at limit-down, from trades or bars: at the
///   limit the queue is ahead of us; only a quote showing size at that price fills.
/// Every fill price is one the event quoted or traded (or within the bar's range): see the property tests.
extension TradingEngine {
    /// Feeds one market event. Allocation-free when the event cannot touch a working order.
    public mutating func apply(_ event: MarketEvent) {
        if event.time >= nextDeadline { advance(to: event.time) }
        let i = Int(event.instrument.index)
        guard i >= 0, i < books.count else { return }
        switch event.kind {
        case .quote(let quote):
            books[i].quote = quote
            books[i].quoteTime = event.time
            if !packages.isEmpty { matchPackages(on: event.instrument, at: event.time) }
            guard !books[i].resting.isEmpty, books[i].quoteMayAct(quote) else { return }
        case .trade(let price, _):
            books[i].lastTrade = price
            guard !books[i].resting.isEmpty, books[i].tradeMayAct(price) else { return }
        case .bar(let bar):
            books[i].lastTrade = bar.close
            guard !books[i].resting.isEmpty,
                books[i].tradeMayAct(bar.low) || books[i].tradeMayAct(bar.high)
            else { return }
        case .auction(_, let price, _):
            books[i].lastTrade = price
            guard books[i].hasAuctionOrders else { return }
        case .reference(let previousClose):
            setReference(event.instrument, previousClose: previousClose, at: event.time)
            return
        }
        match(event.instrument, event: event, only: nil)
    }

    /// One bar of one instrument (what a backtest feeds, bar after bar): the same as applying a `.bar` event, but the
    /// event (~400 bytes, sized for a quote's book) is built only when an order may act on the bar — most bars just
    /// become the last price.
    public mutating func apply(bar: Bar, instrument: InstrumentID, at time: Timestamp) {
        let i = Int(instrument.index)
        guard i >= 0, i < books.count else { return }
        guard time < nextDeadline,
            books[i].resting.isEmpty || !(books[i].tradeMayAct(bar.low) || books[i].tradeMayAct(bar.high))
        else {
            apply(MarketEvent(instrument: instrument, time: time, kind: .bar(bar)))
            return
        }
        books[i].lastTrade = bar.close
    }

    /// Records a quote as the instrument's market view — what validation, reservations and a new order's
    /// immediate fill use — without matching the orders resting on it: a placement's fresh quote serves that
    /// placement only. Resting orders (and queue rules) see market updates through `apply` alone.
    public mutating func observe(_ quote: Quote, instrument: InstrumentID, at time: Timestamp) {
        let i = Int(instrument.index)
        guard i >= 0, i < books.count else { return }
        books[i].quote = quote
        books[i].quoteTime = time
    }

    /// Records a price as the instrument's last trade without matching anything: a corporate action restated the
    /// price (a split divides it), and holdings are valued at the restated one from now on.
    public mutating func recordLastTrade(_ price: Price, instrument: InstrumentID) {
        let i = Int(instrument.index)
        guard i >= 0, i < books.count else { return }
        books[i].lastTrade = price
    }

    /// Whether the stored price band belongs to the trading day of `time`.
    mutating func bandIsCurrent(_ id: InstrumentID, at time: Timestamp) -> Bool {
        guard let date = books[Int(id.index)].bandDate else { return false }
        return date == tradingDate(instruments[Int(id.index)], at: time)
    }

    mutating func setReference(_ id: InstrumentID, previousClose: Price, at time: Timestamp) {
        let i = Int(id.index)
        let instrument = instruments[i]
        let date = tradingDate(instrument, at: time)
        var listingDay: Int?
        if let listed = instrument.listingDate, date >= listed, date.daysSinceEpoch - listed.daysSinceEpoch < 30 {
            listingDay = instrument.calendar.tradingDays(from: listed, through: date).count
        }
        books[i].previousClose = previousClose
        books[i].band = instrument.priceLimit.band(
            previousClose: previousClose, tick: instrument.tick,
            tradingDayOfListing: listingDay)
        books[i].bandDate = date
    }

    /// Tries the current quote against a new order at once (no latency configured), then applies ioc/fok.
    mutating func fillImmediately(_ id: OrderID, at time: Timestamp) {
        guard
            let order = orders.read(
                id,
                { o in (working: o.status.isOpen && o.status != .held, instrument: o.instrument, tif: o.timeInForce) }),
            order.working
        else { return }
        let i = Int(order.instrument.index)
        // No price quoted (a backtest's engine sees bars): nothing to fill against now, and only ioc/fok orders end
        // here.
        guard books[i].askPrice != nil || books[i].bidPrice != nil || order.tif == .ioc || order.tif == .fok else {
            return
        }
        let instrument = instruments[i]
        let phase = self.phase(of: instrument, at: time)
        let fresh: Bool
        switch configuration.sessions {
        case .alwaysOpen: fresh = true
        case .exchangeCalendars:
            let window = sessionCache.window(instrument.calendar, at: time)
            fresh = books[i].quoteTime >= window.start && phase != .closed
        }
        // (The quote is copied once, here: each `quote != nil` copied all ~300 bytes of it to compare.)
        if fresh, let quote = books[i].quote, orders.read(id, { $0.eligibleAt <= time }) == true {
            if order.tif == .fok, let o = orders[id], !canFillCompletely(o, quote: quote, phase: phase) {
                finish(id, .canceled, reason: "fok order could not be filled completely", at: time)
                return
            }
            match(
                order.instrument, event: MarketEvent(instrument: order.instrument, time: time, kind: .quote(quote)),
                only: id)
        }
        if order.tif == .ioc || order.tif == .fok, orders[id]?.status.isOpen == true {
            let reason = order.tif == .fok ? "fok order could not be filled completely" : "ioc remainder canceled"
            finish(id, .canceled, reason: reason, at: time)
        }
    }

    func canFillCompletely(_ order: Order, quote: Quote, phase: MarketPhase) -> Bool {
        guard let qty = order.leavesQty, order.mayTrade(in: phase) else { return false }
        let side = order.side == .buy ? quote.asks : quote.bids
        var available = FixedDecimal.zero
        for j in 0..<side.count {
            let level = side[j]
            if let limit = order.workingLimit, order.side == .buy ? level.price > limit : level.price < limit { break }
            available += level.size.multiplied(by: configuration.quoteParticipation, rule: .down)
        }
        return available >= qty
    }

    // MARK: - Matching

    mutating func match(_ id: InstrumentID, event: MarketEvent, only: OrderID?) {
        let i = Int(id.index)
        let instrument = instruments[i]
        let phase = self.phase(of: instrument, at: event.time)
        candidates.removeAll(keepingCapacity: true)
        if let only {
            if let entry = bookIndex(of: only, in: i).map({ books[i].resting[$0] }) { candidates.append(entry) }
        } else {
            candidates.append(contentsOf: books[i].resting)
        }
        if candidates.count > 1 { candidates.sort { $0.hasPriority(over: $1) } }
        var liquidity = Liquidity(event: event, participation: configuration)
        let band = bandIsCurrent(id, at: event.time) ? books[i].band : nil
        var thresholdsStale = false
        let list = candidates
        // (Asked once: matching the event's kind per order copied the whole event, ~400 bytes, each time.)
        let auction: AuctionKind? = if case .auction(let kind, _, _) = event.kind { kind } else { nil }
        for entry in list {
            let orderID = entry.id
            // What matching decides on, read without copying the order (only a stop waiting for its trigger is).
            guard
                let order = orders.read(
                    orderID,
                    { o in
                        (
                            working: o.status.isOpen && o.status != .held, timeInForce: o.timeInForce,
                            needsTrigger: o.needsTrigger, eligibleAt: o.eligibleAt, mayTrade: o.mayTrade(in: phase),
                            hasLimit: o.workingLimit != nil
                        )
                    }), order.working
            else { continue }
            // Auctions fill only auction orders; auction orders fill only in auctions.
            let isAuctionOrder = order.timeInForce == .opg || order.timeInForce == .cls
            if let kind = auction {
                guard isAuctionOrder, (kind == .open) == (order.timeInForce == .opg) else { continue }
            } else if isAuctionOrder {
                continue
            }
            // A crypto fee's rate: an order the market came to while it rested takes the maker's; one that trades as
            // it arrives (placed now, or a stop-limit triggered by this event) or at the market, the taker's.
            var role: LiquidityRole = only == nil && order.hasLimit ? .maker : .taker
            if order.needsTrigger, var order = orders[orderID] {
                role = .taker
                guard phase.isRegularTrading || configuration.sessions == .alwaysOpen else { continue }
                if order.type == .trailingStop { updateTrail(&order, event: event, instrument: instrument) }
                guard Self.triggers(order, event: event) else {
                    orders[orderID] = order
                    continue
                }
                order.triggered = true
                order.updatedAt = event.time
                orders[orderID] = order
                if let k = bookIndex(of: orderID, in: i) { books[i].replace(at: k, with: RestingOrder(order)) }
                thresholdsStale = true
            }
            guard order.eligibleAt <= event.time, order.mayTrade || isAuctionOrder else { continue }
            fill(orderID, liquidity: &liquidity, band: band, instrument: instrument, role: role, at: event.time)
            if isAuctionOrder, orders[orderID]?.status.isOpen == true {
                finish(orderID, .expired, reason: "not filled in the auction", at: event.time)
            }
        }
        // A full pass has looked at every order anyway: make thresholds left wide by removals exact again.
        if thresholdsStale || (only == nil && books[i].thresholdsMayBeWide) { books[i].refreshThresholds() }
    }

    /// Fills as much of one order as the event's remaining liquidity, the account and the market rules allow.
    mutating func fill(
        _ orderID: OrderID, liquidity: inout Liquidity, band: PriceBand?, instrument: Instrument,
        role: LiquidityRole, at time: Timestamp
    ) {
        guard
            let order = orders.read(
                orderID,
                { o in
                    (side: o.side, workingLimit: o.workingLimit, type: o.type, stopPrice: o.stopPrice)
                })
        else { return }
        let buy = order.side == .buy
        let limit = order.workingLimit
        // Price-limit rule: no fills at limit-up for buys / limit-down for sells except from displayed quotes.
        let blockedPrice: Price? = band.map { buy ? $0.limitUp : $0.limitDown }
        switch liquidity.kind {
        case .quote:
            let count = buy ? liquidity.asks.count : liquidity.bids.count
            let worst = count > 0 ? (buy ? liquidity.asks[count - 1].price : liquidity.bids[count - 1].price) : .zero
            for j in 0..<count {
                guard orders[orderID]?.status.isOpen == true else { return }
                let level = buy ? liquidity.asks[j] : liquidity.bids[j]
                if let limit, buy ? level.price > limit : level.price < limit { break }
                guard level.size.isPositive else { continue }
                var price = level.price
                if configuration.slippageTicks > 0 || configuration.slippageBasisPoints > 0 {
                    price = slipped(price, buy: buy, worst: worst, limit: limit, instrument: instrument)
                }
                let taken = execute(
                    orderID, available: level.size, price: price, instrument: instrument, role: role, at: time)
                if buy { liquidity.asks.consume(taken, at: j) } else { liquidity.bids.consume(taken, at: j) }
            }
        case .trade(let price):
            if let limit, buy ? !(price < limit) : !(price > limit) { return }
            if price == blockedPrice { return }
            let taken = execute(
                orderID, available: liquidity.budget(buy), price: price, instrument: instrument, role: role, at: time)
            liquidity.spend(taken, buy: buy)
        case .bar(let bar):
            var price: Price
            if order.type == .stop || order.type == .trailingStop, let stop = order.stopPrice {
                price = buy ? Swift.max(bar.open, stop) : Swift.min(bar.open, stop)
            } else {
                price = bar.open
            }
            if let limit {
                if buy ? price > limit : price < limit {
                    guard buy ? bar.low < limit : bar.high > limit else { return }
                    price = limit
                }
            }
            price = Swift.min(Swift.max(price, bar.low), bar.high)
            if configuration.slippageTicks > 0 || configuration.slippageBasisPoints > 0 {
                price = slipped(price, buy: buy, worst: buy ? bar.high : bar.low, limit: limit, instrument: instrument)
            }
            if price == blockedPrice { return }
            let taken = execute(
                orderID, available: liquidity.budget(buy), price: price, instrument: instrument, role: role, at: time)
            liquidity.spend(taken, buy: buy)
        case .auction(let price):
            if let limit, buy ? price > limit : price < limit { return }
            let taken = execute(
                orderID, available: liquidity.budget(buy), price: price, instrument: instrument, role: role, at: time)
            liquidity.spend(taken, buy: buy)
        }
    }

    /// A fill price moved against the order by the configured slippage (ticks, then basis points rounded up to the
    /// tick), never past `worst` (the far end of what the event quoted or traded) nor through the order's limit.
    func slipped(_ price: Price, buy: Bool, worst: Price, limit: Price?, instrument: Instrument) -> Price {
        let tick = instrument.tick.tick(at: price)
        var slip = tick.times(configuration.slippageTicks)
        if configuration.slippageBasisPoints > 0 {
            let bps =
                price.multiplied(by: FixedDecimal(configuration.slippageBasisPoints)).divided(
                    by: FixedDecimal(10_000), rule: .up) ?? .zero
            slip += bps.rounded(toMultipleOf: tick, rule: .up)
        }
        var moved = buy ? Swift.min(price + slip, worst) : Swift.max(price - slip, worst)
        if let limit { moved = buy ? Swift.min(moved, limit) : Swift.max(moved, limit) }
        return moved
    }

    /// Executes up to `available` shares of an order at `price`, bounded by what the order still wants, what
    /// the account can pay (buys) or deliver (sells), and whole shares unless the order is fractional.
    /// Returns the quantity executed.
    mutating func execute(
        _ orderID: OrderID, available: Quantity, price: Price, instrument: Instrument, role: LiquidityRole,
        at time: Timestamp
    ) -> Quantity {
        guard available.isPositive, price.isPositive else { return .zero }
        let date = tradingDate(instrument, at: time)
        // Decided on copies of the order and its account that end before anything changes: a copy still alive when
        // the fill changes the account would make it copy its positions (and the order its fields).
        let step: ExecutionStep
        do {
            guard let order = orders[orderID], let account = accounts[order.accountID] else { return .zero }
            step = executionStep(order, account: account, available: available, price: price, date: date)
        }
        switch step {
        case .none:
            return .zero
        case .complete:
            finish(orderID, .fill, reason: nil, at: time)
            return .zero
        case .book(let qty):
            book(orderID, qty: qty, price: price, instrument: instrument, date: date, role: role, at: time)
            return qty
        case .bookAffordable(let qty):
            if qty.isPositive {
                book(orderID, qty: qty, price: price, instrument: instrument, date: date, role: role, at: time)
            }
            finish(orderID, .canceled, reason: "insufficient buying power to fill the rest at \(price)", at: time)
            return Swift.max(qty, .zero)
        case .uncovered:
            finish(
                orderID, .canceled,
                reason:
                    "filling it would leave contracts you wrote uncovered: the shares or cash that cover them are no longer free",
                at: time)
            return .zero
        }
    }

    /// What one execution of an order does.
    enum ExecutionStep {
        /// Nothing can trade.
        case none
        /// A notional buy has bought all it can: it is filled.
        case complete
        case book(Quantity)
        /// Only this much is affordable: book it (if any) and cancel the rest.
        case bookAffordable(Quantity)
        /// A sale of an option contract that would leave a written contract uncovered (`leavesUncovered`): cancel it.
        case uncovered
    }

    func executionStep(
        _ order: borrowing Order, account: borrowing Account, available: Quantity, price: Price, date: CivilDate
    ) -> ExecutionStep {
        if let pair = instruments[Int(order.instrument.index)].currencyPair {
            return forexExecutionStep(order, account: account, available: available, price: price, pair: pair)
        }
        if let pair = instruments[Int(order.instrument.index)].coinPair {
            return coinExecutionStep(order, account: account, available: available, price: price, pair: pair)
        }
        let currency = account.currency
        let fractional = order.notional != nil || !(order.qty?.isInteger ?? true)
        var qty: Quantity
        if let leaves = order.leavesQty {
            qty = Swift.min(leaves, available)
        } else {
            // Notional: what the remaining amount buys (sells) at this price, truncated to 9 places.
            let remaining =
                (order.notional ?? .zero) - order.filledValue.rounded(places: currency.minorUnitDigits, rule: .halfUp)
            qty = Swift.min(remaining.divided(by: price, rule: .down) ?? .zero, available)
        }
        if !fractional { qty = qty.rounded(places: 0, rule: .down) }
        let held = account.positions[order.instrument]?.qty ?? .zero
        if order.side == .sell, held.isPositive || order.intent != .sellToOpen {
            // Selling shares held: no more than may be delivered (a short sale sells borrowed shares instead).
            qty = Swift.min(qty, sellCapacity(order, account: account, on: date))
            if !fractional { qty = qty.rounded(places: 0, rule: .down) }
        } else if order.side == .buy, held.isNegative {
            // A purchase covers the short first; one fill never turns it into a long.
            qty = Swift.min(qty, held.magnitude)
        }
        guard qty.isPositive else {
            return order.notional != nil && order.filledQty.isPositive && order.side == .buy ? .complete : .none
        }
        if order.side == .sell, let contract = instruments[Int(order.instrument.index)].option,
            leavesUncovered(order, qty: qty, contract: contract, account: account, on: date)
        {
            return .uncovered
        }
        if order.side == .buy, !held.isNegative {
            let spendable = buyingPower(account, for: order.instrument, price: price) + order.reservedCash
            var affordable = qty
            while affordable.isPositive, cost(order, qty: affordable, price: price, account: account) > spendable {
                let estimate =
                    (spendable
                    - account.fees(for: instruments[Int(order.instrument.index)]).minimumChargeCushion(
                        side: .buy, currency: currency))
                    .divided(by: price.multiplied(by: instruments[Int(order.instrument.index)].multiplier), rule: .down)
                    ?? .zero
                let next = Swift.min(affordable - (fractional ? FixedDecimal(raw: 1) : .one), estimate)
                affordable = fractional ? next : next.rounded(places: 0, rule: .down)
            }
            if affordable < qty { return .bookAffordable(affordable) }
        }
        return .book(qty)
    }

    /// Shares an order may still deliver now: sellable today, minus what other orders hold (its exit twin's
    /// hold is its own).
    func sellCapacity(_ order: borrowing Order, account: borrowing Account, on date: CivilDate) -> Quantity {
        guard let position = account.positions[order.instrument] else { return .zero }
        var ownHold = order.reservedShares
        if let twin = twin(of: order) { ownHold += orders[twin]?.reservedShares ?? .zero }
        return position.sellableQty(on: date) - (position.reservedForSale - ownHold)
    }

    /// Cash a buy of `qty` at `price` takes: trade value plus the fees it adds to the order.
    func cost(_ order: Order, qty: Quantity, price: Price, account: Account) -> FixedDecimal {
        let currency = account.currency
        let instrument = instruments[Int(order.instrument.index)]
        let multiplier = instrument.multiplier
        let value = LedgerMath.tradeValue(price: price, qty: qty, multiplier: multiplier, currency: currency)
        let basis = LedgerMath.feeBasis(
            order.filledValue + price.multiplied(by: qty), multiplier: multiplier, currency: currency)
        let fees = account.fees(for: instrument).total(
            side: .buy, filledQty: order.filledQty + qty, filledValue: basis, currency: currency)
        return value + fees - order.fees
    }

    /// Books one execution: ledger entries (fill, fees), the position, the order, and the update event.
    mutating func book(
        _ orderID: OrderID, qty: Quantity, price: Price, instrument: Instrument, date: CivilDate,
        role: LiquidityRole = .taker, at time: Timestamp
    ) {
        // What the fill needs of the order, read from a copy that ends here (the order changes in place below).
        let order: FillingOrder
        do {
            guard let o = orders[orderID] else { return }
            order = FillingOrder(
                accountID: o.accountID, instrument: o.instrument, symbol: o.symbol, side: o.side,
                filledQty: o.filledQty, filledValue: o.filledValue)
        }
        guard accounts.index(forKey: order.accountID) != nil else { return }
        if let pair = instrument.currencyPair {
            return bookForex(orderID, order, qty: qty, price: price, pair: pair, date: date, at: time)
        }
        if let pair = instrument.coinPair {
            return bookCoinPair(
                orderID, order, qty: qty, price: price, pair: pair, date: date, role: role, at: time)
        }
        // Reservations go first (the fill and the reservation of what remains replace them); then the account
        // changes in place.
        releaseReservations(orderID)
        guard
            let (currency, value, exact, realized, feeCharges, feeTotal, soldOut, cryptoFee) = withAccount(
                order.accountID,
                { account in
                    Self.book(
                        qty: qty, price: price, of: order, orderID: orderID, instrument: instrument, date: date,
                        role: role, at: time, to: &account)
                })
        else { return }

        // Order.
        guard
            let (cumulativeQty, leavesQty, complete) = orders.update(
                orderID,
                { order in
                    order.filledQty += qty
                    order.filledValue += exact
                    order.fees += feeTotal
                    order.updatedAt = time
                    let complete: Bool
                    if let total = order.qty {
                        complete = order.filledQty >= total
                    } else {
                        let spent = order.filledValue.rounded(places: currency.minorUnitDigits, rule: .halfUp)
                        complete =
                            (order.notional ?? .zero) - spent < currency.minorUnit || (order.side == .sell && soldOut)
                    }
                    // `finish` marks a complete order filled (and takes it off the book).
                    order.status = order.status.after(.partialFill) ?? order.status
                    return (order.filledQty, order.leavesQty, complete)
                })
        else { return }

        let fill = Fill(
            executionID: ExecutionID(newIdentifier(at: time)), orderID: orderID, instrument: order.instrument,
            symbol: order.symbol, side: order.side, qty: qty, price: price, value: value,
            cumulativeQty: cumulativeQty, leavesQty: leavesQty, tradingDate: date, realizedPnL: realized,
            multiplier: instrument.option?.multiplier)
        record(.fill(fill), cashChange: order.side == .buy ? -value : value, account: order.accountID, at: time)
        for charge in feeCharges {
            record(
                .fee(kind: charge.kind, orderID: orderID, symbol: order.symbol), cashChange: -charge.amount,
                account: order.accountID, at: time)
        }
        if let cryptoFee {
            record(
                .cryptoFee(cryptoFee), cashChange: cryptoFee.side == .sell ? -cryptoFee.value : .zero,
                account: order.accountID, at: time)
        }
        resizeTwin(of: orderID)
        settle(orderID, filled: fill, complete: complete, at: time)
    }

    /// After an execution is booked: a complete order is finished (filled, off the book); the rest of a partly filled
    /// one holds back what it still needs, and its update says the fill.
    mutating func settle(_ orderID: OrderID, filled fill: Fill, complete: Bool, at time: Timestamp) {
        if complete {
            finish(orderID, .fill, reason: nil, at: time, fill: fill)
        } else {
            reserve(orderID)
            publish(.partialFill, orderID, at: time, fill: fill)
        }
    }

    /// What booking a fill needs of its order, as it was before the fill. (A struct: as a tuple holding a string, the
    /// closure that books into the account had the runtime copy it field by field, ~1% of a backtest.)
    struct FillingOrder {
        var accountID: AccountID
        var instrument: InstrumentID
        var symbol: String
        var side: OrderSide
        var filledQty: Quantity
        var filledValue: FixedDecimal
    }

    /// Books one execution into its account (position, day trades, fees): the account's part of `book`, on the
    /// account in place. Returns what the ledger and the order need.
    static func book(
        qty: Quantity, price: Price,
        of order: FillingOrder, orderID: OrderID, instrument: Instrument, date: CivilDate, role: LiquidityRole,
        at time: Timestamp, to account: inout Account
    ) -> (
        currency: Currency, value: FixedDecimal, exact: FixedDecimal, realized: FixedDecimal, fees: [FeeCharge],
        feeTotal: FixedDecimal, soldOut: Bool, cryptoFee: CryptoFeeBooking?
    ) {
        let currency = account.currency
        // The order's filled value stays per share (its average price is a premium, not a contract's cost); cash and
        // the position move by the value times the contract multiplier.
        let exact = price.multiplied(by: qty)
        let multiplier = instrument.multiplier
        let value = LedgerMath.tradeValue(price: price, qty: qty, multiplier: multiplier, currency: currency)

        // Position.
        var position =
            account.positions.removeValue(forKey: order.instrument)
            ?? Position(instrument: order.instrument, symbol: order.symbol, multiplier: instrument.option?.multiplier)
        if let contract = instrument.option, contract.isAdjusted { position.deliverable = contract.deliverable }
        let heldBefore = position.qty
        let realized = LedgerMath.apply(
            order.side, qty: qty, price: price, multiplier: multiplier, value: value, to: &position.qty,
            costBasis: &position.costBasis)
        position.realizedPnL += realized
        if order.side == .buy, !instrument.sellableSameDay {
            if position.lockedDate == date {
                position.lockedQty += qty
            } else {
                position.lockedDate = date
                position.lockedQty = qty
            }
        }
        // The pattern day trader rule counts securities: a coin bought and sold the same day is no day trade.
        if instrument.kind != .crypto {
            countDayTrade(
                orderID, side: order.side, symbol: order.symbol, qty: qty, heldBefore: heldBefore,
                position: &position, account: &account, date: date)
        }
        if account.inGame {
            if order.side == .buy, !heldBefore.isNegative { position.lastBoughtAt = time }
            if order.filledQty.isZero { account.gameActivity?.trades += 1 }
        }

        // Fees: the order's cumulative fees after this fill, minus what it paid already, per kind.
        let basisBefore = LedgerMath.feeBasis(order.filledValue, multiplier: multiplier, currency: currency)
        let basisAfter = LedgerMath.feeBasis(order.filledValue + exact, multiplier: multiplier, currency: currency)
        let schedule = account.fees(for: instrument)
        let before = schedule.fees(
            side: order.side, filledQty: order.filledQty, filledValue: basisBefore, currency: currency)
        let after = schedule.fees(
            side: order.side, filledQty: order.filledQty + qty, filledValue: basisAfter, currency: currency)
        var feeCharges: [FeeCharge] = []
        for charge in after {
            let paid = before.first { $0.kind == charge.kind }?.amount ?? .zero
            if charge.amount > paid { feeCharges.append(FeeCharge(kind: charge.kind, amount: charge.amount - paid)) }
        }
        var feeTotal = feeCharges.reduce(FixedDecimal.zero) { $0 + $1.amount }
        var cryptoFee: CryptoFeeBooking?
        if instrument.kind == .crypto {
            cryptoFee = chargeCrypto(
                qty: qty, price: price, value: value, of: order, orderID: orderID, date: date, role: role,
                position: &position, account: &account)
            // A sale's fee is money, paid like the securities' fees; a purchase's is coins, its worth in the cost.
            if order.side == .sell { feeTotal += cryptoFee?.value ?? .zero }
        }
        position.realizedPnL -= feeTotal
        account.totalFees += feeTotal
        if order.side == .buy, let cryptoFee { account.totalFees += cryptoFee.value }
        let soldOut = position.qty.isZero
        if !(position.qty.isZero && position.reservedForSale.isZero) { account.positions[order.instrument] = position }
        // What written contracts require follows the option positions (a long contract may cover a written one).
        if position.multiplier != nil { account.refreshOptionRequirements() }
        return (currency, value, exact, realized, feeCharges, feeTotal, soldOut, cryptoFee)
    }

    /// A crypto fill's maker or taker fee at the account's tier (its volume of the 30 days before `date`), taken from
    /// what the fill received: coins out of the position bought (its cost stays: the coins left cost more each), or
    /// money out of a sale's proceeds (its entry's cash change). The fill's value then counts toward the volume.
    static func chargeCrypto(
        qty: Quantity, price: Price, value: FixedDecimal, of order: FillingOrder, orderID: OrderID, date: CivilDate,
        role: LiquidityRole, position: inout Position, account: inout Account
    ) -> CryptoFeeBooking? {
        let tiers = account.fees.crypto
        let volume = account.cryptoVolume.trailing(before: date)
        account.cryptoVolume.add(value, on: date)
        let (coin, money) = tiers.charge(
            side: order.side, role: role, volume: volume, qty: qty, value: value, currency: account.currency)
        guard coin.isPositive || money.isPositive else { return nil }
        position.qty -= coin
        let worth =
            order.side == .buy
            ? LedgerMath.tradeValue(price: price, qty: coin, currency: account.currency) : money
        return CryptoFeeBooking(
            orderID: orderID, symbol: order.symbol, side: order.side, role: role,
            rate: tiers.tier(forVolume: volume).rate(role), qty: coin, price: price, value: worth)
    }

    /// Keeps count of what a fill opens today, and records a day trade when it closes shares opened today (once
    /// per closing order and day). Shares opened today close first.
    static func countDayTrade(
        _ orderID: OrderID, side: OrderSide, symbol: String, qty: Quantity, heldBefore: Quantity,
        position: inout Position, account: inout Account, date: CivilDate
    ) {
        guard account.market == .us else { return }
        let opening = side == .buy ? !heldBefore.isNegative : !heldBefore.isPositive
        if opening {
            let already = position.openedToday?.date == date ? position.openedToday?.qty ?? .zero : .zero
            position.openedToday = Position.OpenedToday(date: date, qty: already + qty)
            return
        }
        guard let opened = position.openedToday, opened.date == date, opened.qty.isPositive else { return }
        let today = Swift.min(opened.qty, heldBefore.magnitude)
        let closed = Swift.min(qty, heldBefore.magnitude)
        position.openedToday?.qty = today - Swift.min(today, closed)
        account.recordDayTrade(DayTrade(date: date, orderID: orderID, symbol: symbol))
    }

    // MARK: Triggers

    mutating func updateTrail(_ order: inout Order, event: MarketEvent, instrument: Instrument) {
        let sell = order.side == .sell
        let mark: Price?
        switch event.kind {
        case .trade(let price, _): mark = price
        case .quote(let q): mark = sell ? q.bids.best?.price : q.asks.best?.price
        case .bar(let bar): mark = sell ? bar.high : bar.low
        default: mark = nil
        }
        guard let mark else { return }
        if let hwm = order.hwm, sell ? mark <= hwm : mark >= hwm { return }
        order.hwm = mark
        order.stopPrice = trailStop(order, mark: mark, instrument: instrument)
    }

    static func triggers(_ order: Order, event: MarketEvent) -> Bool {
        guard let stop = order.stopPrice else { return false }
        let buy = order.side == .buy
        switch event.kind {
        case .trade(let price, _): return buy ? price >= stop : price <= stop
        case .quote(let q):
            if buy { return q.bids.best.map { $0.price >= stop } ?? false }
            return q.asks.best.map { $0.price <= stop } ?? false
        case .bar(let bar): return buy ? bar.high >= stop : bar.low <= stop
        default: return false
        }
    }
}

extension Order {
    /// Whether the order may trade in a market phase: regular hours, or extended hours if it says so.
    func mayTrade(in phase: MarketPhase) -> Bool {
        phase.isRegularTrading || (extendedHours && phase.isExtendedHours)
    }
}

/// What an event offers our orders, consumed as they fill.
struct Liquidity {
    enum Kind {
        case quote
        case trade(Price)
        case bar(Bar)
        case auction(Price)
    }

    var kind: Kind
    var asks: BookSide = .empty
    var bids: BookSide = .empty
    /// Volume budgets per side for trades, bars and auctions.
    var buyBudget: Quantity = .zero
    var sellBudget: Quantity = .zero

    init(event: MarketEvent, participation: EngineConfiguration) {
        switch event.kind {
        case .quote(let q):
            kind = .quote
            asks = q.asks.scaled(by: participation.quoteParticipation)
            bids = q.bids.scaled(by: participation.quoteParticipation)
        case .trade(let price, let size):
            kind = .trade(price)
            buyBudget = size.multiplied(by: participation.volumeParticipation, rule: .down)
        case .bar(let bar):
            kind = .bar(bar)
            buyBudget = bar.volume.multiplied(by: participation.volumeParticipation, rule: .down)
        case .auction(_, let price, let volume):
            kind = .auction(price)
            buyBudget = volume.multiplied(by: participation.volumeParticipation, rule: .down)
        case .reference:
            kind = .quote
        }
        sellBudget = buyBudget
    }

    func budget(_ buy: Bool) -> Quantity { buy ? buyBudget : sellBudget }

    mutating func spend(_ qty: Quantity, buy: Bool) {
        if buy { buyBudget -= qty } else { sellBudget -= qty }
    }
}

extension BookSide {
    func scaled(by fraction: FixedDecimal) -> BookSide {
        guard fraction != .one else { return self }
        var copy = self
        for j in 0..<count { copy.storage[j].size = storage[j].size.multiplied(by: fraction, rule: .down) }
        return copy
    }

    mutating func consume(_ qty: Quantity, at level: Int) {
        storage[level].size -= qty
    }
}
