import BrokerageModel
import MarketData
import TradingCore

extension Shard {
    // MARK: Market state
    //
    // Market data reaches resting orders and queue rules through one path: `applyMarketUpdate`, called by the
    // market pump (and by nothing inside a placement). A placement only *looks* at the market (`prepareMarket`):
    // the fresh quote it fetches becomes the instrument's market view for validating and filling that order, and
    // other accounts' orders and rules see the market move at the next pump.

    /// The market as a placement (or replacement) sees it: registers the instrument on first use, sets the
    /// session's reference (previous close → A-share price band) on a new trading date, and records a fresh quote
    /// as the instrument's market view (`TradingEngine.observe`), so the order validates and fills against the
    /// market as it is. Matches no resting order and evaluates no rule.
    func prepareMarket(for symbol: String) async throws(BrokerageError) -> InstrumentID {
        let (id, quote) = try await currentQuote(symbol, reuse: true)
        if let quote {
            engine.observe(quote.engineQuote, instrument: id, at: clock.now())
            // A halted stock has no offers: its last trade prices a market order, which waits for the reopening.
            if quote.isHalted { engine.recordLastTrade(quote.last, instrument: id) }
        }
        return id
    }

    /// The market a request's placement sees (`prepareMarket`): its symbol's, or for a multi-leg order every leg's
    /// contract's and the underlying's.
    func prepareMarkets(for request: OrderRequest) async throws(BrokerageError) {
        guard request.orderClass == .mleg, let legs = request.legs else {
            _ = try await prepareMarket(for: request.symbol)
            return
        }
        var underlyings: Set<String> = []
        for leg in legs {
            _ = try await prepareMarket(for: leg.symbol)
            if let contract = OptionContract(occSymbol: leg.symbol) { underlyings.insert(contract.underlying) }
        }
        for symbol in underlyings.sorted() { _ = try await prepareMarket(for: symbol) }
    }

    /// One market update for one instrument (its quote fetched once by the pump for every shard): matched against
    /// the orders resting on it and evaluated against its queued rules (which may place orders) and alerts.
    func applyMarketUpdate(_ quote: MarketQuote, instrument: Instrument) {
        let id = receive(quote, for: instrument)
        guard let quote = usable(quote) else { return }
        let now = clock.now()
        engine.apply(quote.event(for: id).at(now))
        announceHalt(quote, instrument: id, at: now)
        evaluateRules(id, quote: quote, at: now)
        evaluateAlerts(id, quote: quote, at: now)
    }

    /// Registers the instrument, fetches its quote (through the `SharedMarket`) and sets the session's reference
    /// when the trading date changed. The quote is nil when it may not serve orders — the feed failed (an order can
    /// still be validated; it fills on a later update), or a provider quote is more than five minutes old during
    /// trading. With `reuse`, a quote fetched by any shard less than `SharedMarket.refreshReuse` ago serves again (orders in
    /// a burst share one quote).
    func currentQuote(_ symbol: String, reuse: Bool) async throws(BrokerageError) -> (InstrumentID, MarketQuote?) {
        let instrument: Instrument
        switch await market.tradable(symbol) {
        case .instrument(let found): instrument = found
        case .expired(let contract, let date):
            throw .rejected(
                OrderRejection(
                    .invalidInput, "\(contract.symbol) expired on \(date) and no longer trades",
                    facts: .init("option.expired", ["symbol": contract.symbol, "date": date.description])))
        case .unknown: throw .notFound("asset not found for \(symbol)")
        }
        let quote: MarketQuote
        do { quote = try await market.quote(instrument.symbol, reuse: reuse) } catch {
            if case .unknownSymbol = error { throw .feed(error) }
            return (engine.register(instrument), nil)
        }
        return (receive(quote, for: instrument), usable(quote))
    }

    /// Registers the instrument with this shard's engine and sets its reference (previous close → price band) when
    /// the quote is of a new trading date.
    func receive(_ quote: MarketQuote, for instrument: Instrument) -> InstrumentID {
        let id = engine.register(instrument)
        if referenceDates[id] != quote.tradingDate {
            engine.apply(
                MarketEvent(instrument: id, time: clock.now(), kind: .reference(previousClose: quote.previousClose)))
            referenceDates[id] = quote.tradingDate
        }
        return id
    }

    /// The quote, unless it is a provider's quote more than five minutes old during trading.
    func usable(_ quote: MarketQuote) -> MarketQuote? {
        let age = clock.now().nanoseconds - quote.time.nanoseconds
        return age < 5 * Duration64.minute || quote.phase == .closed ? quote : nil
    }

    /// The day's auctions, once each, stamped at the time they happen: the opening auction at the session's open
    /// price (fills `opg` orders), the closing auction at the day's close (fills `cls` orders). The pump applies them
    /// before moving the engine's clock, since auction orders expire a minute after their auction. Volume (which
    /// bounds what an auction fills) is the day's volume. The prices come from the `SharedMarket` (computed once
    /// for every shard). With an always-open clock there are no auctions.
    func applyDueAuctions(_ symbols: [String], at now: Timestamp) async {
        guard clock.sessions != .alwaysOpen else { return }
        for symbol in symbols {
            guard let entry = directory.entry(symbol), let id = engine.instrumentID(for: entry.symbol) else { continue }
            let calendar = entry.instrument.calendar
            let today = calendar.zone.localTime(of: now).date
            guard let schedule = calendar.schedule(on: today) else { continue }
            var marks = auctionsApplied[id] ?? (open: nil, close: nil)
            if marks.open != today, now >= schedule.open,
                let auction = await market.openingAuction(entry.symbol, on: today, at: schedule.open)
            {
                engine.apply(MarketEvent(instrument: id, time: schedule.open, kind: auction))
                marks.open = today
            }
            if marks.close != today, now >= schedule.close,
                let auction = await market.closingAuction(entry.symbol, on: today, zone: calendar.zone, at: now)
            {
                engine.apply(MarketEvent(instrument: id, time: schedule.close, kind: auction))
                marks.close = today
            }
            auctionsApplied[id] = marks
        }
    }

    /// Places an order and returns it (as it stands after the step: a marketable order may already be filled)
    /// once the step is durable. The wait for the disk happens off the actor (`Brokerage.settle`): the actor is free for the
    /// next request meanwhile, and the answer does not queue behind other requests' work on the actor.
    nonisolated func submit(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> Order {
        let (order, step) = try await place(request, account: account)
        if let step { try await Self.settle(step, of: self) }
        return order
    }

    func place(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> (Order, StagedStep?) {
        guard records.index(forKey: account) != nil else { throw .notFound("account not found") }
        try await prepareMarkets(for: request)
        let order: Order
        do { order = try engine.submit(request, account: account, at: clock.now()) } catch {
            metrics.rejected(error.reason)
            throw .rejected(error)
        }
        metrics.placed.increment()
        let step = try stage()
        return (engine.order(order.id) ?? order, step)
    }

    /// The refusal placing `request` would meet now, or nil: nothing is placed or written.
    func check(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> OrderRejection? {
        guard records.index(forKey: account) != nil else { throw .notFound("account not found") }
        try await prepareMarkets(for: request)
        do { try engine.check(request, account: account, at: clock.now()) } catch { return error }
        return nil
    }

    func cancel(_ id: OrderID, account: AccountID) async throws(BrokerageError) -> Order {
        let order: Order
        do { order = try engine.cancel(id, account: account, at: clock.now()) } catch {
            if error.reason == .orderNotFound, let stored = try? await storage.order(id), stored.accountID == account {
                throw .rejected(
                    OrderRejection(.notCancelable, "order is \(stored.status.rawValue) and can no longer be canceled"))
            }
            throw .rejected(error)
        }
        try await commit()
        return order
    }

    func cancelAll(account: AccountID) async throws(BrokerageError) -> [(OrderID, Result<Order, BrokerageError>)] {
        let results: [(OrderID, Result<Order, OrderRejection>)]
        do { results = try engine.cancelAll(account: account, at: clock.now()) } catch { throw .rejected(error) }
        try await commit()
        return results.map { ($0.0, $0.1.mapError(BrokerageError.rejected)) }
    }

    func replace(_ id: OrderID, account: AccountID, with change: ReplaceRequest) async throws(BrokerageError)
        -> Order
    {
        if let order = engine.order(id) {
            _ = try await prepareMarket(for: order.symbol)
            // A package fills on its legs' quotes.
            for leg in order.legs {
                if let symbol = engine.order(leg)?.symbol { _ = try await prepareMarket(for: symbol) }
            }
        }
        let replacement: Order
        do { replacement = try engine.replace(id, account: account, with: change, at: clock.now()) } catch {
            throw .rejected(error)
        }
        try await commit()
        return engine.order(replacement.id) ?? replacement
    }

    /// An order by id: from the engine while it is open (or recently closed), else from storage.
    func order(_ id: OrderID, account: AccountID) async throws(BrokerageError) -> Order {
        if let order = engine.order(id), order.accountID == account { return order }
        let stored: Order?
        do { stored = try await storage.order(id) } catch { throw .storage(error) }
        guard let stored, stored.accountID == account else { throw .notFound("order not found") }
        return stored
    }

    func order(clientOrderID: ClientOrderID, account: AccountID) async throws(BrokerageError) -> Order {
        if let order = engine.order(clientOrderID: clientOrderID, account: account) { return order }
        let stored: Order?
        do { stored = try await storage.order(clientOrderID: clientOrderID, account: account) } catch {
            throw .storage(error)
        }
        guard let stored else { throw .notFound("order not found") }
        return stored
    }

    // MARK: Market pump

    /// The symbols this shard holds something for: working orders, queued rules, active alerts (what the pump
    /// fetches quotes for and hands to it).
    func interests() -> [String] {
        let instruments = Set(engine.instrumentsWithWorkingOrders).union(ruleBook.instruments)
            .union(alertBook.instruments)
        return instruments.map { engine.instrument($0).symbol }.sorted()
    }

    /// One pump tick for this shard: the day's due auctions, day-order expiry, rule and alert lifetimes, then each
    /// update (quotes of the symbols it asked for, in symbol order), committed as one step. Returns the staged step
    /// (nil when nothing changed) for the pump to wait on off the shard.
    func pump(_ symbols: [String], quotes: [String: MarketQuote], at now: Timestamp) async throws(BrokerageError)
        -> StagedStep?
    {
        await applyDueAuctions(symbols, at: now)
        engine.advance(to: now)
        expireRules(at: now)
        expireAlerts(at: now)
        for symbol in symbols {
            // (An adjusted contract is known to the engine only: its deliverable is not in its symbol.)
            guard let quote = quotes[symbol],
                let instrument = engine.instrumentID(for: symbol).map(engine.instrument) ?? market.instrument(symbol)
            else { continue }
            applyMarketUpdate(quote, instrument: instrument)
        }
        return try stage()
    }

    /// How many accounts this shard holds.
    func accountCount() -> Int { records.count }

    /// How many orders are open in this shard (`papertrade admin shards`).
    func openOrderCount() -> Int {
        records.keys.reduce(0) { $0 + engine.openOrders(of: $1).count }
    }

    /// Waits until every step staged so far is durable (or failed): graceful shutdown calls it before the
    /// database is closed.
    func flush() async {
        for entry in inFlight { try? await entry.step.durable() }
    }
}

extension MarketEvent {
    /// The same event stamped at another time (a provider quote applied at the moment it is used).
    func at(_ time: Timestamp) -> MarketEvent { MarketEvent(instrument: instrument, time: time, kind: kind) }
}

extension Shard {
    /// Sells all or part of a position at market (Alpaca's DELETE /v2/positions/{symbol}).
    /// `qty` shares, or `percentage` (0–100) of the position; everything when both are nil.
    func closePosition(
        _ symbol: String, account: AccountID, qty: Quantity?, percentage: FixedDecimal?, liquidation: Bool = false
    ) async throws(BrokerageError) -> Order {
        guard let instrumentID = engine.instrumentID(for: symbol),
            let position = engine.account(account)?.positions[instrumentID], !position.qty.isZero
        else {
            throw .notFound("position does not exist")
        }
        let instrument = engine.instrument(instrumentID)
        // A long is sold, a short bought back.
        let held = position.qty.magnitude
        var amount = held
        if let qty {
            guard qty.isPositive, qty <= held else {
                throw .invalid("qty must be between 0 and the position's \(held)")
            }
            amount = qty
        } else if let percentage {
            guard percentage.isPositive, percentage <= FixedDecimal(100) else {
                throw .invalid("percentage must be between 0 and 100")
            }
            amount = held.multiplied(by: percentage).divided(by: FixedDecimal(100), rule: .down) ?? .zero
            if !instrument.fractionable || position.isShort { amount = amount.rounded(places: 0, rule: .down) }
            guard amount.isPositive else {
                throw .invalid("\(percentage)% of \(held) shares is less than one share")
            }
        }
        var request = OrderRequest(
            symbol: symbol, side: position.isShort ? .buy : .sell, type: .market, timeInForce: .day, qty: amount)
        request.isLiquidation = liquidation
        return try await submit(request, account: account)
    }

    /// Symbols the account holds, long or short.
    func heldSymbols(_ account: AccountID) -> [String] {
        (engine.account(account)?.positions.values.filter { !$0.qty.isZero }.map(\.symbol) ?? []).sorted()
    }
}
