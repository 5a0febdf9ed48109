/// How a split of the underlying changes its listed contracts, the OCC way. A whole-number forward split (2:1, 3:1,
/// 4:1, 10:1) keeps the contracts standard: each becomes N contracts at the strike ÷ N (to OCC's $0.001), still
/// delivering 100 shares, so a holder's stake (contracts × deliverable × strike) is unchanged. Other ratios (3:2 and
/// reverse splits) keep the count and the strike and change the deliverable, under an adjusted root (`AAPL1`).
public enum OptionAdjustment {
    /// The whole number of new contracts per old one a split makes, or nil when its ratio is not a whole number
    /// above one (those adjust the deliverable instead), or when the action does not change shares.
    public static func wholeSplitFactor(_ action: CorporateAction) -> Int? {
        guard action.kind == .forwardSplit, action.oldRate.isPositive, action.newRate > action.oldRate,
            let ratio = action.newRate.divided(by: action.oldRate, rule: .halfEven), ratio.isInteger,
            ratio <= FixedDecimal(1000)
        else { return nil }
        return ratio.integerPart
    }

    /// A strike after a whole-number split: ÷ `factor`, half-even to OCC's $0.001 (a $250 strike after 3:1 is
    /// $83.333). nil when it would round to nothing.
    public static func adjustedStrike(_ strike: Price, factor: Int) -> Price? {
        guard factor > 0,
            let divided = strike.divided(by: FixedDecimal(factor), places: 3, rule: .halfEven),
            divided.isPositive
        else { return nil }
        return divided
    }

    /// Shares an adjusted contract delivers after a split that is not a whole number: 100 × the ratio, rounded down
    /// (OCC pays any fraction of a share in cash; the simulated market's ratios leave none: 3:2 → 150, 1:10 → 10).
    /// nil for a whole-number split or an action that does not change shares.
    public static func adjustedDeliverable(_ action: CorporateAction, multiplier: Int = 100) -> Int? {
        guard action.kind.changesShares, wholeSplitFactor(action) == nil,
            let shares = FixedDecimal(multiplier).multiplied(by: action.newRate)
                .divided(by: action.oldRate, places: 0, rule: .down),
            shares.isPositive
        else { return nil }
        return shares.integerPart
    }

    /// The adjusted root a split that is not a whole number gives an underlying's contracts: the underlying with a
    /// digit, the number of such splits of it in the four years to this one (OCC appends 1, then 2, …).
    public static func adjustedRoot(underlying: String, ordinal: Int) -> String {
        String(underlying.prefix(5)) + String(min(max(ordinal, 1), 9))
    }

    /// The contract a standard contract becomes after a whole-number split (nil when the strike would vanish).
    public static func adjusted(_ contract: OptionContract, factor: Int) -> OptionContract? {
        guard let strike = adjustedStrike(contract.strike, factor: factor) else { return nil }
        return OptionContract(
            underlying: contract.underlying, expiration: contract.expiration, right: contract.right, strike: strike,
            multiplier: contract.multiplier, style: contract.style, root: contract.root)
    }
}

extension TradingEngine {
    /// Carries an account's position in a contract through a split of its underlying: it becomes `factor` times as
    /// many contracts of `to` (registered) — after a whole-number split the contract at the strike ÷ `factor`; after
    /// another ratio (`factor` 1) the adjusted contract at the same strike delivering 100 × the ratio shares — with
    /// the same cost basis, the same day-trade and do-not-exercise state. Open orders on the old contract are canceled first
    /// (its symbol names a different contract from the ex-date). Writes two OPCA entries — the old contracts out, the
    /// new ones in — that move no cash; nil when the account holds none of it.
    @discardableResult
    public mutating func adjustOptionPosition(
        _ accountID: AccountID, option id: InstrumentID, to newID: InstrumentID, factor: Int, at time: Timestamp
    ) -> [LedgerEntry]? {
        let old = instruments[Int(id.index)]
        let new = instruments[Int(newID.index)]
        guard factor >= 1, old.option != nil, let contract = new.option, id != newID else { return nil }
        for order in openOrders(of: accountID) where order.instrument == id {
            if order.orderClass == .mleg, let parent = order.parentID {
                finish(parent, .canceled, reason: "\(old.symbol) was adjusted for a split of its underlying", at: time)
            }
            if orders[order.id]?.status.isOpen == true {
                finish(
                    order.id, .canceled, reason: "\(old.symbol) was adjusted for a split of its underlying", at: time)
            }
        }
        guard let account = accounts[accountID], let held = account.positions[id], !held.qty.isZero else { return nil }
        let qty = held.qty.times(factor)
        var moved =
            account.positions[newID] ?? Position(instrument: newID, symbol: new.symbol, multiplier: held.multiplier)
        if contract.isAdjusted { moved.deliverable = contract.deliverable }
        let merging = !moved.qty.isZero
        moved.qty += qty
        moved.costBasis += held.costBasis
        moved.lastBoughtAt = held.lastBoughtAt ?? moved.lastBoughtAt
        if !merging {
            moved.doNotExercise = held.doNotExercise
            moved.openedToday = held.openedToday.map { .init(date: $0.date, qty: $0.qty.times(factor)) }
            moved.lockedQty = held.lockedQty.times(factor)
            moved.lockedDate = held.lockedDate
        }
        var left = held
        left.qty = .zero
        left.costBasis = .zero
        accounts[accountID]?.positions[id] = left.reservedForSale.isZero ? nil : left
        accounts[accountID]?.positions[newID] = moved
        accounts[accountID]?.refreshOptionRequirements()
        let out = OptionEventBooking(
            kind: .adjustment, symbol: old.symbol, qty: -held.qty, releasedCost: held.costBasis, settlementPrice: nil)
        let into = OptionEventBooking(
            kind: .adjustment, symbol: new.symbol, qty: qty, releasedCost: -held.costBasis, settlementPrice: nil)
        return [
            record(.optionEvent(out), cashChange: .zero, account: accountID, at: time),
            record(.optionEvent(into), cashChange: .zero, account: accountID, at: time),
        ]
    }
}
