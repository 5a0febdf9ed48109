/// Orders on currency pairs: a purchase of `EUR.USD` pays dollars and receives euros, a sale the reverse; in a dollar
/// account one side is its cash and the other a `CurrencyBalance`. No position is opened: the balance is the holding
/// (its cost and profit in dollars), as IB's ledger keeps cash per currency. Fills are fractional to the base
/// currency's minor unit; the value is the quote currency's, half-up to its minor unit.
extension TradingEngine {
    /// What an order on a pair holds back in the currency it pays with (`CurrencyPair.paid`): a purchase the
    /// remainder at its limit (or the ask with the market cushion) in the quote currency, rounded up to its minor
    /// unit; a sale the remainder of the base currency.
    func forexReservation(_ order: ReservationTerms, side: OrderSide, pair: CurrencyPair, instrument: Instrument)
        -> FixedDecimal
    {
        let remaining = Swift.max(.zero, order.leavesQty ?? .zero)
        guard side == .buy else { return remaining }
        let price = reservationPrice(order, instrument: instrument)
        return price.multiplied(by: remaining, places: pair.quote.minorUnitDigits, rule: .up)
    }

    /// How much of an order on a pair can execute at `price`: what it still wants, what is offered, and what the
    /// account can pay in the currency it pays with (its own hold included). Less than wanted books and cancels the
    /// rest, as a purchase beyond buying power does.
    func forexExecutionStep(
        _ order: borrowing Order, account: borrowing Account, available: Quantity, price: Price, pair: CurrencyPair
    ) -> ExecutionStep {
        let places = pair.base.minorUnitDigits
        let qty = Swift.min(order.leavesQty ?? .zero, available).rounded(places: places, rule: .down)
        guard qty.isPositive else { return .none }
        let spendable = account.available(pair.paid(order.side)) + order.reservedCash
        let most =
            order.side == .buy
            ? spendable.divided(by: price, places: places, rule: .down) ?? .zero
            : spendable.rounded(places: places, rule: .down)
        return most < qty ? .bookAffordable(Swift.max(.zero, most)) : .book(qty)
    }

    /// Books one execution on a pair: both currencies (`LedgerMath.applyForex`), the order, the fill's ledger entry
    /// (its cash change the account's own currency's), and the update event.
    mutating func bookForex(
        _ orderID: OrderID, _ order: FillingOrder, qty: Quantity, price: Price, pair: CurrencyPair, date: CivilDate,
        at time: Timestamp
    ) {
        releaseReservations(orderID)
        let value = LedgerMath.tradeValue(price: price, qty: qty, currency: pair.quote)
        guard
            let (cashChange, realized) = withAccount(
                order.accountID,
                { account -> (FixedDecimal, FixedDecimal)? in
                    guard let other = pair.other(than: account.currency) else { return nil }
                    var balance =
                        account.balances.removeValue(forKey: other)
                        ?? CurrencyBalance(
                            currency: other, pair: order.instrument, pairSymbol: order.symbol,
                            isPairBase: other == pair.base)
                    let booked = LedgerMath.applyForex(
                        order.side, qty: qty, value: value, pair: pair, home: account.currency, to: &balance)
                    if !balance.isEmpty || !balance.cost.isZero { account.balances[other] = balance }
                    if account.inGame, order.filledQty.isZero { account.gameActivity?.trades += 1 }
                    return booked
                }) ?? nil
        else { return }
        guard
            let (cumulativeQty, leavesQty, complete) = recordExecution(
                orderID, qty: qty, value: price.multiplied(by: qty), at: time)
        else { return }
        let fill = Fill(
            executionID: ExecutionID(newIdentifier(at: time)), orderID: orderID, instrument: order.instrument,
            symbol: order.symbol, side: order.side, qty: qty, price: price, value: value,
            cumulativeQty: cumulativeQty, leavesQty: leavesQty, tradingDate: date, realizedPnL: realized, pair: pair)
        record(.fill(fill), cashChange: cashChange, account: order.accountID, at: time)
        settle(orderID, filled: fill, complete: complete, at: time)
    }

    /// An execution on an order for a quantity (a currency or coin pair's): its filled quantity and value grow, it is
    /// partly filled (or stays filled), complete once the quantity is reached. Nil when the order is gone.
    mutating func recordExecution(_ orderID: OrderID, qty: Quantity, value: FixedDecimal, at time: Timestamp)
        -> (cumulativeQty: Quantity, leavesQty: Quantity?, complete: Bool)?
    {
        orders.update(orderID) { order in
            order.filledQty += qty
            order.filledValue += value
            order.updatedAt = time
            order.status = order.status.after(.partialFill) ?? order.status
            return (order.filledQty, order.leavesQty, order.filledQty >= (order.qty ?? .zero))
        }
    }
}
