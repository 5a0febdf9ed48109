import MarketData
import TradingCore

/// Options an owner acts on: exercising now, the do-not-exercise instruction, and the settlement price and intrinsic
/// value those and the expiry use.
extension Shard {
    /// Exercises the account's whole long position in a contract now (Alpaca's `POST /v2/positions/{symbol}/exercise`):
    /// refused for a short position, for a contract the account does not hold, and after the close of its expiration
    /// day (the expiry settles it then).
    func exercise(_ symbol: String, account id: AccountID) async throws(BrokerageError) {
        guard let instrumentID = engine.instrumentID(for: symbol),
            let position = engine.account(id)?.positions[instrumentID], !position.qty.isZero,
            let contract = engine.instrument(instrumentID).option
        else {
            throw .rejected(
                OrderRejection(
                    .insufficientQty, "no available position for the specified contract",
                    facts: .init("option.no_position", ["symbol": symbol])))
        }
        guard position.qty.isPositive else {
            throw .rejected(
                OrderRejection(
                    .insufficientQty, "cannot exercise short position",
                    facts: .init("option.exercise_short", ["symbol": symbol])))
        }
        let now = clock.now()
        let calendar = TradingCalendar.xnys
        let local = calendar.zone.localTime(of: now)
        if clock.sessions != .alwaysOpen, let today = calendar.schedule(on: local.date), now >= today.close {
            throw .rejected(
                OrderRejection(
                    .marketClosed, "exercise requests are not accepted between the close and midnight ET",
                    facts: .init("option.exercise_after_close", [:])))
        }
        if let expiry = calendar.schedule(on: contract.expiration)?.close, now >= expiry {
            throw .rejected(
                OrderRejection(
                    .marketClosed,
                    "\(symbol) expired at the close of \(contract.expiration): exercise instructions are no longer taken",
                    facts: .init("option.expired", ["symbol": symbol, "date": contract.expiration.description])))
        }
        guard let stock = market.instrument(contract.underlying) else {
            throw .notFound("asset not found for \(contract.underlying)")
        }
        let underlying = engine.register(stock)
        do {
            try engine.settleOption(
                id, option: instrumentID, underlying: underlying, exercise: true, settlementPrice: nil, at: now)
        } catch {
            throw .rejected(error)
        }
        notifySettlement(
            id, contract: contract, contracts: position.qty, exercised: true, close: nil, refusal: nil, at: now)
        try await commit()
    }

    /// Asks that the account's long position in a contract not be exercised at expiry (Alpaca's
    /// `POST /v2/positions/{symbol}/do-not-exercise`): it then expires worthless even in the money. Taken until
    /// 16:30 ET on the expiration day, as Alpaca's support pages say; refused for a short position or none.
    func doNotExercise(_ symbol: String, account id: AccountID) async throws(BrokerageError) {
        guard let instrumentID = engine.instrumentID(for: symbol), let contract = engine.instrument(instrumentID).option
        else {
            throw .rejected(
                OrderRejection(
                    .insufficientQty, "no available position for the specified contract",
                    facts: .init("option.no_position", ["symbol": symbol])))
        }
        let calendar = TradingCalendar.xnys
        let deadline = Timestamp(contract.expiration, hour: 16, minute: 30, in: calendar.zone)
        if clock.now() >= deadline {
            throw .rejected(
                OrderRejection(
                    .marketClosed,
                    "\(symbol) expires on \(contract.expiration): do-not-exercise instructions are taken until 4:30 pm ET that day",
                    facts: .init("option.dne_late", ["symbol": symbol, "date": contract.expiration.description])))
        }
        do { try engine.markDoNotExercise(id, option: instrumentID) } catch { throw .rejected(error) }
        pending.accounts.insert(id)
        try await commit()
    }

    /// The underlying's official close on `date`: its daily bar, or the quote when the feed's session is that day and
    /// closed. nil when the feed cannot say (the contracts then expire: no exercise is made on a guess).
    func settlementPrice(of stock: Instrument, on date: CivilDate) async -> Price? {
        let zone = stock.calendar.zone
        if let bar = try? await feed.bars(
            stock.symbol, timeframe: .day, from: Timestamp(date, in: zone),
            to: Timestamp(date.adding(days: 1), in: zone)
        ).last(where: { zone.localTime(of: $0.time).date == date }) {
            return bar.close
        }
        if let quote = try? await feed.quote(stock.symbol), quote.tradingDate == date,
            quote.phase == .closed
                || quote.phase == .postMarket
        {
            return quote.last
        }
        return nil
    }

    /// What exercising is worth per unit of premium at the underlying's price (an adjusted contract's on its
    /// deliverable).
    func intrinsicValue(_ contract: OptionContract, at price: Price) -> FixedDecimal {
        contract.intrinsicValue(at: price)
    }

    /// Tells the owner what expiry or exercise did to `contracts` (signed: negative for contracts the account wrote).
    func notifySettlement(
        _ id: AccountID, contract: OptionContract, contracts: Quantity, exercised: Bool, close: Price?,
        refusal: OrderRejection?, at now: Timestamp
    ) {
        let written = contracts.isNegative
        let shares = contracts.magnitude.times(contract.deliverable)
        func values(_ text: Catalogue) -> [String: String] {
            [
                "symbol": text.instrumentName(contract.occSymbol), "contracts": contracts.magnitude.description,
                "shares": shares.description,
                "underlying": contract.underlying,
                "strike": MoneyText.text(contract.strike, symbol: "$", minimumPlaces: 2),
                "close": close.map { MoneyText.text($0, symbol: "$", minimumPlaces: 2) } ?? "",
                "reason": refusal.map { RejectionWording.message($0, in: text.language) } ?? "",
            ]
        }
        if exercised {
            let event = written ? "assignment" : "exercise"
            let right = contract.right == .call ? "call" : "put"
            notify(id, kind: "option_\(event)", at: now) { text in
                (text("option.\(event).title", values(text)), text("option.\(event).\(right).body", values(text)))
            }
        } else {
            let key =
                written
                ? "option.expiry.written.body"
                : refusal == nil ? "option.expiry.body" : "option.expiry.unexercised.body"
            notify(id, kind: "option_expiry", at: now) { text in
                (text("option.expiry.title", values(text)), text(key, values(text)))
            }
        }
    }
}
