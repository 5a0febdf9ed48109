import BrokerageModel
import MarketData
import TradingCore

/// How the market reaches a shard: what a placement looks at (`prepareMarket`), the one path by which market data
/// reaches resting orders, queue rules and alerts (`applyMarketUpdate`, from the pump), the sessions' references and
/// auctions, and the pump's tick.
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
        // A pair priced in another coin is paid from, and received into, its coins' dollar pairs: the quote coin's
        // price values the fill in dollars.
        if let pair = directory.entry(request.symbol)?.instrument.coinPair {
            _ = try await prepareMarket(for: pair.baseLeg)
            _ = try await prepareMarket(for: pair.quoteLeg)
        }
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
        if sessionMarks.needsReference(id, for: quote.tradingDate) {
            engine.apply(
                MarketEvent(instrument: id, time: clock.now(), kind: .reference(previousClose: quote.previousClose)))
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
            var marks = sessionMarks.auctionDates(id)
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
            sessionMarks.setAuctionDates(id, marks)
        }
    }

    // MARK: Market pump

    /// The symbols this shard holds something for: working orders, queued rules, active alerts (what the pump
    /// fetches quotes for and hands to it).
    func interests() -> [String] {
        let instruments = Set(engine.instrumentsWithWorkingOrders).union(rules.book.instruments)
            .union(alerts.book.instruments)
        var symbols = Set(instruments.map { engine.instrument($0).symbol })
        // A coin pair's working orders are valued at the quote coin's dollar price: keep it current too.
        for id in instruments { if let pair = engine.instrument(id).coinPair { symbols.insert(pair.quoteLeg) } }
        return symbols.sorted()
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

    /// The closes of the daily bars before today's (about 400 days), oldest first; empty if the feed fails.
    func settledDailyCloses(_ symbol: String) async -> [Price] {
        let now = clock.now()
        guard
            let bars = try? await feed.bars(symbol, timeframe: .day, from: now.adding(seconds: -400 * 86_400), to: now)
        else { return [] }
        let calendar = directory.entry(symbol)?.instrument.calendar
        let today = calendar?.tradingDate(at: now)
        return bars.filter { calendar?.tradingDate(at: $0.time) != today }.map(\.close)
    }
}

extension MarketEvent {
    /// The same event stamped at another time (a provider quote applied at the moment it is used).
    func at(_ time: Timestamp) -> MarketEvent { MarketEvent(instrument: instrument, time: time, kind: kind) }
}
