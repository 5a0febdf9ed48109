/// Writing options: a contract sold to open must be covered, as Alpaca requires at every level (naked writing is
/// offered at none). What covers it is worked out by the universal spread rule (`SpreadRule`) over the account's
/// contracts of the same underlying:
/// - at options level 1 and 2, shares and cash alone cover: a call needs 100 shares of the underlying a contract,
///   held and kept for the life of the short contract (a covered call); a put needs its strike × 100 in cash, set
///   aside (a cash-secured put);
/// - at level 3 a long contract covers too (a spread legged into one order at a time): a written call above a long
///   call, or a written put above a long put, needs only the difference of the strikes in cash.
///
/// What holds the shares or the cash while the short contract lives:
/// - an unfilled write holds the shares its calls need in the underlying's position (`Position.reservedForSale`), as
///   a sell order of the stock would, and the cash as an order's reserved cash;
/// - a filled short contract holds them by existing: `Account.optionRequirements` works both out from the positions,
///   a sale of the stock leaves the shares alone, and buying power leaves the cash out.
/// A long contract that covers a written one is held the same way: selling it is refused unless shares or cash
/// take its place, and a fill that would leave a written contract uncovered does not happen.
extension TradingEngine {
    /// Shares of a call's underlying free to cover a new write: held, sellable today, and neither promised to sell
    /// orders (unfilled writes included) nor covering calls written already.
    func sharesFreeToCover(_ account: borrowing Account, underlying symbol: String, on date: CivilDate) -> Quantity {
        guard let stock = symbols[symbol], let position = account.positions[stock] else { return .zero }
        let free = position.availableToSell(on: date) - account.sharesCoveringCalls(symbol)
        return Swift.max(.zero, free)
    }

    /// The stock whose shares an order on `id` holds while it writes calls: the underlying of a call option (nil for
    /// anything else, and for an underlying the engine does not know).
    func coveringStock(of id: InstrumentID) -> InstrumentID? {
        guard let contract = instruments[Int(id.index)].option, contract.right == .call else { return nil }
        return symbols[contract.underlying]
    }

    /// What changing the account's position in `contract` by `qty` contracts adds to what its written contracts
    /// require: cash and shares of the underlying (never less than nothing).
    static func addedRequirement(
        _ account: borrowing Account, contract: OptionContract, by qty: Quantity, longsCover: Bool = true
    ) -> SpreadRule.Requirement {
        let (before, after) = account.optionRequirementChange(contract, by: qty, longsCover: longsCover)
        return SpreadRule.Requirement(
            cash: Swift.max(.zero, after.cash - before.cash), shares: Swift.max(.zero, after.shares - before.shares))
    }

    /// What a write holds while it works: the cash and shares writing the contracts left to sell adds to the
    /// account's requirement, plus a sale's fee cushion.
    func writeReservation(_ order: ReservationTerms, contract: OptionContract, account: borrowing Account)
        -> SpreadRule.Requirement
    {
        let cushion = account.fees.minimumChargeCushion(side: .sell, currency: account.currency)
        let leaves = order.leavesQty ?? .zero
        guard leaves.isPositive else { return SpreadRule.Requirement(cash: cushion, shares: .zero) }
        var added = Self.addedRequirement(account, contract: contract, by: -leaves)
        added.cash = added.cash.rounded(places: account.currency.minorUnitDigits, rule: .up) + cushion
        return added
    }

    /// Cash buying written contracts back holds while it works: their cost and fees, less the collateral buying them
    /// back releases (the shares a call held are released instead). Never less than the fee cushion.
    func buyBackReservation(_ order: ReservationTerms, instrument: Instrument, account: borrowing Account)
        -> FixedDecimal
    {
        let (fees, currency) = (account.fees, account.currency)
        let cushion = fees.minimumChargeCushion(side: .buy, currency: currency)
        guard let contract = instrument.option else { return cushion }
        let cost = buyReservation(order, instrument: instrument, fees: fees, currency: currency)
        let (before, after) = account.optionRequirementChange(contract, by: order.leavesQty ?? .zero)
        let released = Swift.max(.zero, before.cash - after.cash).rounded(places: currency.minorUnitDigits, rule: .down)
        return Swift.max(cushion, cost - released)
    }

    /// Whether filling `qty` more of an option order would leave a written contract uncovered: the shares or cash it
    /// adds to the requirement are not there. A write's own hold counts as there (it was set aside for it).
    func leavesUncovered(
        _ order: borrowing Order, qty: Quantity, contract: OptionContract, account: borrowing Account,
        on date: CivilDate
    ) -> Bool {
        let signed = order.side == .buy ? qty : -qty
        let added = Self.addedRequirement(account, contract: contract, by: signed)
        if added.shares.isPositive {
            var free = sharesFreeToCover(account, underlying: contract.underlying, on: date)
            if order.intent == .sellToOpen { free += order.reservedShares }
            if added.shares > free { return true }
        }
        return added.cash.isPositive && added.cash > account.buyingPower + order.reservedCash
    }
}

extension OrderValidator {
    /// A sale of a contract the account does not hold long writes it: what it adds to the written contracts'
    /// requirement (`optionNeeds`) must be there — shares of the underlying held and free for calls, cash within
    /// options buying power for the rest (a put's strike × its shares, or a spread's largest loss).
    func validateWrite(_ r: OrderRequest, contract: OptionContract) throws(OrderRejection) {
        let symbol = instrument.symbol
        let qty = r.qty ?? .zero
        if optionNeeds.shares > sharesFreeToCover {
            let spreads = account.optionsTradingLevel >= .spreads
            throw OrderRejection(
                .insufficientQty,
                "writing \(qty) \(symbol) needs \(optionNeeds.shares) shares of \(contract.underlying) to cover it; \(sharesFreeToCover) are free (held, and not promised to sell orders or to calls already written): uncovered calls are not offered\(spreads ? " (a long \(contract.underlying) call expiring no sooner covers one too)" : "")",
                facts: .init(
                    "option.write.uncovered",
                    [
                        "qty": qty.description, "symbol": symbol, "shares": optionNeeds.shares.description,
                        "underlying": contract.underlying, "free": sharesFreeToCover.description,
                    ]))
        }
        let cushion = account.fees.minimumChargeCushion(side: .sell, currency: account.currency)
        let needed = optionNeeds.cash.rounded(places: account.currency.minorUnitDigits, rule: .up)
        guard needed.isPositive, needed + cushion > buyingPower else { return }
        let shares = qty.times(contract.deliverable)
        let (required, available) = ((needed + cushion).formatted(places: 2), buyingPower.formatted(places: 2))
        let values = [
            "qty": qty.description, "symbol": symbol, "shares": shares.description, "required": required,
            "available": available,
        ]
        // Secured by cash alone, or a spread whose long contracts cover part of it.
        if contract.right == .put, needed == contract.strike.multiplied(by: qty.times(contract.multiplier)) {
            throw OrderRejection(
                .insufficientBuyingPower,
                "writing \(qty) \(symbol) sets aside \(required) (the strike × \(shares) shares) to secure it; options buying power is \(available): uncovered puts are not offered",
                facts: .init("option.write.unsecured", values))
        }
        throw OrderRejection(
            .insufficientBuyingPower,
            "writing \(qty) \(symbol) sets aside \(required) (the most your \(contract.underlying) contracts could lose at expiry with it) to secure it; options buying power is \(available)",
            facts: .init("option.write.spread", values.merging(["underlying": contract.underlying]) { $1 }))
    }

    /// Selling a long contract that covers a written one (a spread's long leg): shares or cash must take its place,
    /// or the sale is refused — buy the written contracts back first.
    func validateCoverKept(_ r: OrderRequest, contract: OptionContract) throws(OrderRejection) {
        let symbol = instrument.symbol
        let qty = r.qty ?? .zero
        let needed = optionNeeds.cash.rounded(places: account.currency.minorUnitDigits, rule: .up)
        let sharesShort = optionNeeds.shares > sharesFreeToCover
        guard sharesShort || needed > buyingPower else { return }
        let values = [
            "qty": qty.description, "symbol": symbol, "underlying": contract.underlying,
            "shares": optionNeeds.shares.description, "free": sharesFreeToCover.description,
            "required": needed.formatted(places: 2), "available": buyingPower.formatted(places: 2),
        ]
        if sharesShort {
            throw OrderRejection(
                .insufficientQty,
                "\(qty) \(symbol) cover calls you wrote: selling them needs \(optionNeeds.shares) shares of \(contract.underlying) to cover the calls instead, and \(sharesFreeToCover) are free; buy the written calls back first",
                facts: .init("option.close.covers_calls", values))
        }
        throw OrderRejection(
            .insufficientBuyingPower,
            "\(qty) \(symbol) cover contracts you wrote: selling them sets aside \(values["required"] ?? "") to secure those instead, and options buying power is \(values["available"] ?? ""); buy the written contracts back first",
            facts: .init("option.close.covers", values))
    }

    /// Buying written contracts back costs their premium: the cash must be there, counting the collateral buying them
    /// back releases.
    func validateBuyBack(_ r: OrderRequest) throws(OrderRejection) {
        try validateCover(r)
        try validateBuyingPower(r)
    }
}
