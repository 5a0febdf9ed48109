import TradingCore

/// What margin costs and how a margin call runs (the operator's settings; Alpaca's paper defaults).
public struct MarginPolicy: Sendable, Hashable {
    /// Annual interest on borrowed cash, charged nightly on a 360-day year (0.07 = 7%).
    public var interestRate = FixedDecimal(units: 7, exponent: 2)
    /// Trading days after the close that issued a margin call by whose close it must be met.
    public var callDays = 2
    /// Equity below this share of maintenance margin is liquidated at once, call or no call (0.5: half).
    public var liquidationThreshold = FixedDecimal(units: 5, exponent: 1)
    /// The house's initial and maintenance requirements.
    public var rates = MarginRates()

    public init() {}
}

extension Shard {
    func setMarginPolicy(_ policy: MarginPolicy) {
        marginPolicy = policy
        engine.setMarginRates(policy.rates)
    }

    /// The end of a US session for margin accounts: one night's interest (three over a weekend) on borrowed cash
    /// and the stock-loan fee of hard-to-borrow shorts (valued at the feed's closing prices), then the maintenance
    /// check: a new margin call when equity is short of maintenance margin, the call closed
    /// when it is met, and positions sold when a call is still unmet on its due day. Each close is settled once.
    func closeMarginDay(_ date: CivilDate) async throws(BrokerageError) {
        let now = clock.now()
        for id in records.keys.sorted() {
            // Once per close: a second run (a restart, the service and a caller both) changes nothing.
            guard let account = engine.account(id), account.terms.type == .margin,
                account.marginDayClosed.map({ $0 < date }) ?? true
            else { continue }
            let marks = try await summary(id).positions.reduce(into: [InstrumentID: Price]()) {
                $0[$1.position.instrument] = $1.current
            }
            engine.chargeBorrowFees(id, close: date, marks: { marks[$0] }, at: now)
            engine.chargeMarginInterest(id, close: date, rate: marginPolicy.interestRate, at: now)
            pending.accounts.insert(id)
            try await checkMaintenance(id, close: date, at: now)
        }
        try await commit()
    }

    /// During the session: liquidates accounts whose equity fell below the liquidation threshold of their
    /// maintenance margin (a margin call cannot wait for them).
    func checkMarginThreshold() async throws(BrokerageError) {
        for id in records.keys.sorted() {
            // Only accounts that borrow — cash or shares — can fall that far.
            guard let account = engine.account(id), account.terms.type == .margin,
                account.cash.isNegative || account.positions.values.contains(where: \.isShort)
            else {
                continue
            }
            let margin = try await summary(id).margin
            guard margin.equity < margin.maintenanceMargin.multiplied(by: marginPolicy.liquidationThreshold) else {
                continue
            }
            try await liquidate(id, deficit: margin.deficit, at: clock.now())
        }
        try await commit()
    }

    func checkMaintenance(_ id: AccountID, close date: CivilDate, at now: Timestamp) async throws(BrokerageError) {
        guard let account = engine.account(id) else { return }
        let margin = try await summary(id).margin
        let amount = margin.deficit.formatted(places: 2)
        switch (account.marginCall, margin.deficit.isPositive) {
        case (nil, true):
            var due = date
            for _ in 0..<marginPolicy.callDays { due = TradingCalendar.xnys.nextTradingDay(after: due) }
            let call = MarginCall(amount: margin.deficit, issuedAt: now, due: due)
            try record(id, call: call, deficit: margin.deficit, event: .issued, at: now)
            notify(id, kind: "margin_call", at: now) { text in
                (text("margin.call.title"), text("margin.call.body", ["amount": amount, "due": due.description]))
            }
        case (_?, false):
            try record(id, call: nil, deficit: .zero, event: .met, at: now)
            notify(id, kind: "margin_call_met", at: now) { text in (text("margin.met.title"), text("margin.met.body")) }
        case (let call?, true) where date >= call.due:
            try await liquidate(id, deficit: margin.deficit, at: now)
        default:
            break
        }
    }

    func record(_ id: AccountID, call: MarginCall?, deficit: FixedDecimal, event: MarginCallEvent, at now: Timestamp)
        throws(BrokerageError)
    {
        do { try engine.recordMarginCall(id, call: call, deficit: deficit, event: event, at: now) } catch {
            throw .rejected(error)
        }
    }

    /// Cancels the account's open orders and closes positions, largest first, until what the closing orders release
    /// from maintenance margin covers the deficit (each dollar of a long sold releases its maintenance rate: 30%, or
    /// all of it under $2.50; each share short bought back its short requirement). The orders are market orders:
    /// outside the session they fill at the next open.
    func liquidate(_ id: AccountID, deficit: FixedDecimal, at now: Timestamp) async throws(BrokerageError) {
        _ = try await cancelAll(account: id)
        let summary = try await summary(id)
        let rates = engine.configuration.margin
        var remaining = deficit
        var sold: [String] = []
        for p in summary.positions.sorted(by: {
            $0.valuation.marketValue.magnitude > $1.valuation.marketValue.magnitude
        }) {
            guard remaining.isPositive else { break }
            let held = p.position.qty.magnitude
            let perShare =
                p.position.isShort
                ? rates.shortMaintenance(shares: .one, at: p.current)
                : p.current.multiplied(by: rates.maintenance(at: p.current))
            guard perShare.isPositive else { continue }
            var qty = remaining.divided(by: perShare, places: 0, rule: .up) ?? held
            qty = Swift.min(qty, held)
            do {
                _ = try await closePosition(
                    p.position.symbol, account: id, qty: qty, percentage: nil, liquidation: true)
                remaining -= qty.multiplied(by: perShare)
                sold.append("\(qty) \(p.position.symbol)")
            } catch {
                continue
            }
        }
        try record(id, call: nil, deficit: deficit, event: .liquidation, at: now)
        notify(id, kind: "margin_liquidation", at: now) { text in
            (
                text("margin.liquidation.title"),
                text(
                    "margin.liquidation.body",
                    ["amount": deficit.formatted(places: 2), "sold": sold.joined(separator: ", ")])
            )
        }
    }
}
