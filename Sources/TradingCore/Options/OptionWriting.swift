/// Writing options (Alpaca's level 1): a call sold to open is covered by 100 shares of the underlying a contract,
/// held and kept for the life of the short contract; a put sold to open is secured by its strike × 100 in cash, set
/// aside (`Account.putCollateral`). Naked writing is not offered, as Alpaca offers it at no level.
///
/// What holds the shares or the cash while the short contract lives:
/// - an unfilled call write holds its shares in the underlying's position (`Position.reservedForSale`), as a sell
///   order of the stock would; an unfilled put write holds its collateral as an order's reserved cash;
/// - a filled short call holds its shares by existing: `sharesCoveringCalls` counts them from the positions, and a
///   sale of the stock leaves them alone; a filled short put's collateral is `Account.putCollateral`.
extension TradingEngine {
    /// Shares of `underlying` that the account's short call positions hold: each contract's multiplier of shares.
    func sharesCoveringCalls(_ account: borrowing Account, underlying symbol: String) -> Quantity {
        var shares = Quantity.zero
        for position in account.positions.values where position.multiplier != nil && position.qty.isNegative {
            guard let contract = instruments[Int(position.instrument.index)].option, contract.right == .call,
                contract.underlying == symbol
            else { continue }
            shares += position.qty.magnitude.times(contract.multiplier)
        }
        return shares
    }

    /// Shares of a call's underlying free to cover a new write: held, sellable today, and neither promised to sell
    /// orders (unfilled writes included) nor covering calls written already.
    func sharesFreeToCover(_ account: borrowing Account, call contract: OptionContract, on date: CivilDate) -> Quantity
    {
        guard let stock = symbols[contract.underlying], let position = account.positions[stock] else { return .zero }
        let free = position.availableToSell(on: date) - sharesCoveringCalls(account, underlying: contract.underlying)
        return Swift.max(.zero, free)
    }

    /// The stock whose shares an order on `id` holds while it writes calls: the underlying of a call option (nil for
    /// anything else, and for an underlying the engine does not know).
    func coveringStock(of id: InstrumentID) -> InstrumentID? {
        guard let contract = instruments[Int(id.index)].option, contract.right == .call else { return nil }
        return symbols[contract.underlying]
    }

    /// Cash a write holds while it works: a put's strike × the shares of the contracts left to sell (a call's shares
    /// hold it instead), plus a sale's fee cushion.
    func writeReservation(_ order: ReservationTerms, contract: OptionContract, fees: FeeSchedule, currency: Currency)
        -> FixedDecimal
    {
        let cushion = fees.minimumChargeCushion(side: .sell, currency: currency)
        guard contract.right == .put else { return cushion }
        let shares = (order.leavesQty ?? .zero).times(contract.multiplier)
        return contract.strike.multiplied(by: shares, places: currency.minorUnitDigits, rule: .up) + cushion
    }

    /// Cash buying written contracts back holds while it works: their cost and fees, less the collateral the puts it
    /// closes release (a call's shares are released instead). Never less than the fee cushion.
    func buyBackReservation(
        _ order: ReservationTerms, instrument: Instrument, fees: FeeSchedule, currency: Currency
    ) -> FixedDecimal {
        let cushion = fees.minimumChargeCushion(side: .buy, currency: currency)
        guard let contract = instrument.option else { return cushion }
        let cost = buyReservation(order, instrument: instrument, fees: fees, currency: currency)
        var released = FixedDecimal.zero
        if contract.right == .put {
            let shares = (order.leavesQty ?? .zero).times(contract.multiplier)
            released = contract.strike.multiplied(by: shares, places: currency.minorUnitDigits, rule: .down)
        }
        return Swift.max(cushion, cost - released)
    }
}

extension OrderValidator {
    /// A sale of a contract the account does not hold long writes it: a call covered by shares of the underlying held
    /// and free, a put secured by its strike × its shares in cash (within options buying power).
    func validateWrite(_ r: OrderRequest, contract: OptionContract) throws(OrderRejection) {
        let symbol = instrument.symbol
        let qty = r.qty ?? .zero
        let shares = qty.times(contract.multiplier)
        switch contract.right {
        case .call:
            guard shares > sharesFreeToCover else { return }
            throw OrderRejection(
                .insufficientQty,
                "writing \(qty) \(symbol) needs \(shares) shares of \(contract.underlying) to cover it; \(sharesFreeToCover) are free (held, and not promised to sell orders or to calls already written): uncovered calls are not offered",
                facts: .init(
                    "option.write.uncovered",
                    [
                        "qty": qty.description, "symbol": symbol, "shares": shares.description,
                        "underlying": contract.underlying, "free": sharesFreeToCover.description,
                    ]))
        case .put:
            guard buyCost > buyingPower else { return }
            let (required, available) = (buyCost.formatted(places: 2), buyingPower.formatted(places: 2))
            throw OrderRejection(
                .insufficientBuyingPower,
                "writing \(qty) \(symbol) sets aside \(required) (the strike × \(shares) shares) to secure it; options buying power is \(available): uncovered puts are not offered",
                facts: .init(
                    "option.write.unsecured",
                    [
                        "qty": qty.description, "symbol": symbol, "shares": shares.description,
                        "required": required, "available": available,
                    ]))
        }
    }

    /// Buying written contracts back costs their premium: the cash must be there, counting the collateral the puts
    /// bought back release.
    func validateBuyBack(_ r: OrderRequest) throws(OrderRejection) {
        try validateCover(r)
        try validateBuyingPower(r)
    }
}
