import MarketData
import TradingCore

/// Options at and near expiry: the expiry's settlement (exercise, assignment, expiring worthless), early assignment,
/// and the sell-out of contracts an account could not carry through an exercise.
extension Shard {
    /// Settles every option position whose contract expired by the close of `date` (a US trading day), once: a
    /// contract at least $0.01 in the money at the underlying's close is exercised (Alpaca's auto-exercise) — a
    /// written one is assigned — and the rest expire worthless. An exercise the account cannot carry — a call whose
    /// shares it cannot pay for, a put without the shares to deliver — is not made: the contracts expire (Alpaca sells
    /// such positions before the close when it can, and otherwise does not exercise them). An assignment always is:
    /// the shares covering a written call are sold, the cash securing a written put buys. Each owner is told, in
    /// their language. The activities (OPEXC, OPASN, OPTRD, OPEXP) are written the same day, with the positions.
    func settleExpiredOptions(through date: CivilDate) async throws(BrokerageError) {
        let now = clock.now()
        var settlements: [String: Price?] = [:]
        for id in records.keys.sorted() {
            guard let account = engine.account(id) else { continue }
            let expired = account.positions.values.filter { position in
                !position.qty.isZero
                    && engine.instrument(position.instrument).option.map { $0.expiration <= date } == true
            }
            // Written contracts first: a spread's assignment delivers (or takes) the shares its long leg's exercise
            // then takes (or delivers), so a vertical settles to the difference of the strikes whatever the cash.
            .sorted { ($0.qty.isNegative ? 0 : 1, $0.symbol) < ($1.qty.isNegative ? 0 : 1, $1.symbol) }
            for position in expired {
                guard let contract = engine.instrument(position.instrument).option,
                    let stock = market.instrument(contract.underlying)
                else { continue }
                let key = "\(contract.underlying) \(contract.expiration)"
                if settlements[key] == nil {
                    settlements[key] = .some(await settlementPrice(of: stock, on: contract.expiration))
                }
                let close = settlements[key] ?? nil
                let underlying = engine.register(stock)
                // A long position its owner asked not to exercise expires whatever the close (a written one is
                // assigned: that is not the writer's choice).
                let declined = position.qty.isPositive && position.doNotExercise == true
                let inTheMoney = close.map {
                    !declined && intrinsicValue(contract, at: $0) >= FixedDecimal(units: 1, exponent: 2)
                }
                var exercised = false
                var refusal: OrderRejection?
                if inTheMoney == true {
                    do {
                        try engine.settleOption(
                            id, option: position.instrument, underlying: underlying, exercise: true,
                            settlementPrice: close, at: now)
                        exercised = true
                    } catch {
                        refusal = error
                    }
                }
                if !exercised {
                    do {
                        try engine.settleOption(
                            id, option: position.instrument, underlying: underlying, exercise: false,
                            settlementPrice: close, at: now)
                    } catch {
                        continue
                    }
                }
                notifySettlement(
                    id, contract: contract, contracts: position.qty, exercised: exercised, close: close,
                    refusal: refusal, at: now)
            }
        }
        try await commit()
    }

    /// After a US close: assigns in full the written contracts whose holders would exercise them now rather than hold
    /// them — those worth no more, at the close, than exercising pays (the model's American value,
    /// `OptionSnapshot.theoreticalValue`, at most their intrinsic value, which is at least a cent). That is the deep
    /// in-the-money put whose strike earns more interest by the expiration than its time value is worth, or a call on
    /// an underlying whose dividends are worth more than its time value; real holders exercise those early and the
    /// OCC assigns their writers, and a learner who writes options should meet it here first. Contracts expiring
    /// today are the expiry's (`settleExpiredOptions`). Each writer is told why, in their language; the activities
    /// (OPASN and the shares' delivery) are written at once.
    func assignEarly(on date: CivilDate) async throws(BrokerageError) {
        let now = clock.now()
        var assigned = false
        for id in records.keys.sorted() {
            guard let account = engine.account(id) else { continue }
            for position in account.positions.values.sorted(by: { $0.symbol < $1.symbol })
            where position.qty.isNegative {
                guard let contract = engine.instrument(position.instrument).option, contract.expiration > date,
                    let stock = market.instrument(contract.underlying),
                    let snapshot = try? await market.options.snapshot(contract.occSymbol), !snapshot.expired
                else { continue }
                let intrinsic = intrinsicValue(contract, at: snapshot.underlyingPrice)
                guard intrinsic >= FixedDecimal(units: 1, exponent: 2), snapshot.theoreticalValue <= intrinsic else {
                    continue
                }
                let underlying = engine.register(stock)
                do {
                    try engine.settleOption(
                        id, option: position.instrument, underlying: underlying, exercise: true,
                        settlementPrice: snapshot.underlyingPrice, at: now)
                } catch {
                    continue
                }
                assigned = true
                let right = contract.right == .call ? "call" : "put"
                notify(id, kind: "option_assignment", at: now) { text in
                    let values = [
                        "symbol": text.instrumentName(contract.occSymbol),
                        "contracts": position.qty.magnitude.description,
                        "shares": position.qty.magnitude.times(contract.deliverable).description,
                        "underlying": contract.underlying,
                        "strike": MoneyText.text(contract.strike, symbol: "$", minimumPlaces: 2),
                        "close": MoneyText.text(snapshot.underlyingPrice, symbol: "$", minimumPlaces: 2),
                        "expiration": contract.expiration.description,
                    ]
                    return (
                        text("option.assignment.title", values),
                        text("option.assignment.early.\(right).body", values)
                    )
                }
            }
        }
        if assigned { try await commit() }
    }

    /// In the last three quarters of an hour of an expiration day (from 15:15 ET, as Alpaca does), sells at market
    /// the long positions expiring today that are in the money and that the account could not exercise — a call
    /// whose shares it cannot pay for, a put without the shares to deliver — so their value is not lost at the close.
    /// Once per position: a contract with a sell order working is left to it. The owner is told why.
    func sellOutUncarriedOptions(at now: Timestamp) async throws(BrokerageError) {
        let calendar = TradingCalendar.xnys
        let local = calendar.zone.localTime(of: now)
        guard let session = calendar.schedule(on: local.date), now >= session.close.adding(seconds: -45 * 60),
            now < session.close
        else { return }
        var placed = false
        for id in records.keys.sorted() {
            guard let account = engine.account(id) else { continue }
            let working = Set(engine.openOrders(of: id).filter { $0.side == .sell }.map(\.instrument))
            for position in account.positions.values.sorted(by: { $0.symbol < $1.symbol })
            where position.qty.isPositive && !working.contains(position.instrument) {
                guard let contract = engine.instrument(position.instrument).option,
                    contract.expiration == local.date, let stock = market.instrument(contract.underlying),
                    let spot = try? await market.quote(stock.symbol, reuse: true).last,
                    intrinsicValue(contract, at: spot) >= FixedDecimal(units: 1, exponent: 2),
                    // A long leg covering a written contract stays: the expiry settles the spread as one.
                    !account.coversWrittenContracts(contract)
                else { continue }
                let underlying = engine.register(stock)
                guard
                    let why = engine.exerciseShortfall(
                        id, option: position.instrument, underlying: underlying, at: now)
                else { continue }
                var request = OrderRequest(
                    symbol: contract.occSymbol, side: .sell, type: .market, timeInForce: .day, qty: position.qty)
                request.isLiquidation = true
                guard (try? await prepareMarket(for: contract.occSymbol)) != nil,
                    (try? engine.submit(request, account: id, at: now)) != nil
                else { continue }
                placed = true
                notify(id, kind: "option_sell_out", at: now) { text in
                    let values = [
                        "symbol": text.instrumentName(contract.occSymbol), "contracts": position.qty.description,
                        "reason": RejectionWording.message(why, in: text.language),
                    ]
                    return (text("option.sell_out.title", values), text("option.sell_out.body", values))
                }
            }
        }
        if placed || !pending.notifications.isEmpty { try await commit() }
    }
}
