/// Orders on crypto pairs priced in another coin (`BTC/USDT`, `CoinPair`). The account holds each coin as the
/// position of its dollar pair, so a fill is booked as two: the base coin's dollar pair bought (or sold) at the pair's
/// price in dollars, and the quote coin's dollar pair sold (or bought) at its own dollar price — the quote coin's mark
/// (`USDT/USD`'s) at that moment. Both sides are worth the same dollars, so cash does not move; each coin's cost and
/// profit stay in dollars, as every other position's. The fee is taken in the coin received, out of its position, at
/// the account's maker/taker tier. A purchase holds back the quote coins it may pay (its remainder at its limit, or
/// at the ask with the market cushion), a sale the base coins; nothing is bought on margin or sold short.
extension TradingEngine {
    /// The dollar pairs of a coin pair's two coins in this engine (nil until both are registered: the shard registers
    /// them with the pair).
    func coinLegs(_ pair: CoinPair) -> (base: InstrumentID, quote: InstrumentID)? {
        guard let base = symbols[pair.baseLeg], let quote = symbols[pair.quoteLeg] else { return nil }
        return (base, quote)
    }

    /// Dollars one quote coin is worth now: its dollar pair's mark (nil before a price is known).
    func dollarRate(_ pair: CoinPair) -> Price? {
        guard let quote = symbols[pair.quoteLeg], let rate = mark(quote), rate.isPositive else { return nil }
        return rate
    }

    /// What an order on a coin pair holds back, and in which coin's position: a purchase its remainder times its
    /// price in quote coins, a sale its remainder of base coins. Nil when the pair's coins are not registered.
    func coinReservation(_ terms: ReservationTerms, side: OrderSide, pair: CoinPair, instrument: Instrument)
        -> (position: InstrumentID, qty: Quantity)?
    {
        guard let paying = symbols[pair.paidLeg(side)] else { return nil }
        let remaining = Swift.max(.zero, terms.leavesQty ?? .zero)
        guard side == .buy else { return (paying, remaining) }
        let price = reservationPrice(terms, instrument: instrument)
        return (paying, price.multiplied(by: remaining, places: FixedDecimal.scale, rule: .up))
    }

    /// How much of an order on a coin pair can execute at `price`: what it still wants and what is offered, on the
    /// pair's quantity steps, and no more than the coin it pays with can cover (its own hold included). Nothing
    /// executes without the quote coin's dollar price (the fill could not be valued).
    func coinExecutionStep(
        _ order: borrowing Order, account: borrowing Account, available: Quantity, price: Price, pair: CoinPair
    ) -> ExecutionStep {
        guard let legs = coinLegs(pair), dollarRate(pair) != nil else { return .none }
        let step = Self.quantityStep(instruments[Int(order.instrument.index)])
        let qty = Swift.min(order.leavesQty ?? .zero, available).rounded(toMultipleOf: step, rule: .down)
        guard qty.isPositive else { return .none }
        let paying = account.positions[order.side == .buy ? legs.quote : legs.base]
        let free = (paying?.qty ?? .zero) - ((paying?.reservedForSale ?? .zero) - order.reservedShares)
        let coins = order.side == .buy ? free.divided(by: price, rule: .down) ?? .zero : free
        let most = coins.rounded(toMultipleOf: step, rule: .down)
        return most < qty ? .bookAffordable(Swift.max(.zero, most)) : .book(qty)
    }

    /// The smallest quantity step of a pair (its lot's increment; a billionth when it has none).
    static func quantityStep(_ instrument: Instrument) -> Quantity {
        if case .fractional(_, let increment) = instrument.lot, increment.isPositive { return increment }
        return FixedDecimal(raw: 1)
    }

    /// Books one execution on a coin pair: both coins' positions and the fee (`bookCoins`), the order, the ledger
    /// (a fill entry per coin, their cash changes cancelling out, and the fee's), and the order's update, which
    /// speaks of the pair: its quantity and its price in the quote coin.
    mutating func bookCoinPair(
        _ orderID: OrderID, _ order: FillingOrder, qty: Quantity, price: Price, pair: CoinPair, date: CivilDate,
        role: LiquidityRole, at time: Timestamp
    ) {
        guard let legs = coinLegs(pair), let rate = dollarRate(pair) else { return }
        releaseReservations(orderID)
        let coins = CoinFill(pair: pair, legs: legs, side: order.side, qty: qty, price: price, rate: rate)
        guard
            let booked = withAccount(
                order.accountID,
                { account in
                    Self.bookCoins(coins, of: order, orderID: orderID, date: date, role: role, at: time, to: &account)
                })
        else { return }
        guard
            let (cumulativeQty, leavesQty, complete) = recordExecution(
                orderID, qty: qty, value: coins.quoteQty, at: time)
        else { return }
        let execution = ExecutionID(newIdentifier(at: time))
        let legFills = [
            (coins.base, execution, booked.baseRealized),
            (coins.quote, ExecutionID(newIdentifier(at: time)), booked.quoteRealized),
        ]
        for (leg, executionID, realized) in legFills {
            let fill = Fill(
                executionID: executionID, orderID: orderID, instrument: leg.instrument, symbol: leg.symbol,
                side: leg.side, qty: leg.qty, price: leg.price, value: coins.value, cumulativeQty: cumulativeQty,
                leavesQty: leavesQty, tradingDate: date, realizedPnL: realized)
            record(
                .fill(fill), cashChange: leg.side == .buy ? -coins.value : coins.value, account: order.accountID,
                at: time)
        }
        if let fee = booked.fee { record(.cryptoFee(fee), cashChange: .zero, account: order.accountID, at: time) }
        // The order's update: the pair, its quantity and its price in the quote coin.
        let fill = Fill(
            executionID: execution, orderID: orderID, instrument: order.instrument, symbol: order.symbol,
            side: order.side, qty: qty, price: price, value: coins.quoteQty, cumulativeQty: cumulativeQty,
            leavesQty: leavesQty, tradingDate: date, realizedPnL: booked.baseRealized)
        settle(orderID, filled: fill, complete: complete, at: time)
    }

    /// One execution on a coin pair, in dollars: the base coin at the pair's price times the quote coin's dollar
    /// rate, the quote coin at that rate, both sides worth `value` (the same product, rounded once).
    struct CoinFill {
        struct Leg {
            var instrument: InstrumentID
            var symbol: String
            var side: OrderSide
            var qty: Quantity
            /// Dollars per coin.
            var price: Price
        }

        var base: Leg
        var quote: Leg
        /// Quote coins paid or received: price × qty, exact.
        var quoteQty: Quantity
        /// What each side is worth in dollars, half-up to the cent.
        var value: FixedDecimal

        init(
            pair: CoinPair, legs: (base: InstrumentID, quote: InstrumentID), side: OrderSide, qty: Quantity,
            price: Price, rate: Price
        ) {
            quoteQty = price.multiplied(by: qty)
            let basePrice = price.multiplied(by: rate)
            value = LedgerMath.tradeValue(price: basePrice, qty: qty, currency: .usd)
            base = Leg(instrument: legs.base, symbol: pair.baseLeg, side: side, qty: qty, price: basePrice)
            quote = Leg(
                instrument: legs.quote, symbol: pair.quoteLeg, side: side == .buy ? .sell : .buy, qty: quoteQty,
                price: rate)
        }

        /// The leg the order receives: the base coin for a purchase, the quote coin for a sale.
        var received: Leg { base.side == .buy ? base : quote }
        /// The leg the order pays with.
        var paid: Leg { base.side == .buy ? quote : base }
    }

    /// Books a coin-pair execution into its account: each coin's position moves as its dollar pair's fill would
    /// (`LedgerMath.apply`, the ledger replay's arithmetic), then the fee comes out of the coin received
    /// (`chargeCrypto`: coins out of the position, its cost kept; the value counts toward the 30-day volume once).
    static func bookCoins(
        _ coins: CoinFill, of order: FillingOrder, orderID: OrderID, date: CivilDate, role: LiquidityRole,
        at time: Timestamp, to account: inout Account
    ) -> (baseRealized: FixedDecimal, quoteRealized: FixedDecimal, fee: CryptoFeeBooking?) {
        // The coin paid leaves its position; the coin received joins its own, less the fee.
        let (paid, received) = (coins.paid, coins.received)
        var paying = account.positions.removeValue(forKey: paid.instrument) ?? Position(leg: paid)
        let paidPnL = paying.book(paid, value: coins.value)
        account.keep(paying)
        var receiving = account.positions.removeValue(forKey: received.instrument) ?? Position(leg: received)
        let receivedPnL = receiving.book(received, value: coins.value)
        if account.inGame {
            receiving.lastBoughtAt = time
            if order.filledQty.isZero { account.gameActivity?.trades += 1 }
        }
        let fee = chargeCrypto(
            qty: received.qty, price: received.price, value: coins.value,
            of: FillingOrder(
                accountID: order.accountID, instrument: received.instrument, symbol: received.symbol, side: .buy,
                filledQty: order.filledQty, filledValue: order.filledValue),
            orderID: orderID, date: date, role: role, position: &receiving, account: &account)
        account.totalFees += fee?.value ?? .zero
        account.keep(receiving)
        let baseIsReceived = received.instrument == coins.base.instrument
        return (baseIsReceived ? receivedPnL : paidPnL, baseIsReceived ? paidPnL : receivedPnL, fee)
    }
}

extension Position {
    /// A new position in a coin-pair leg's dollar pair.
    fileprivate init(leg: TradingEngine.CoinFill.Leg) {
        self.init(instrument: leg.instrument, symbol: leg.symbol, multiplier: nil)
    }

    /// Books a coin-pair leg as its dollar pair's fill would (`LedgerMath.apply`, as the replay does); the P&L it
    /// realized.
    fileprivate mutating func book(_ leg: TradingEngine.CoinFill.Leg, value: FixedDecimal) -> FixedDecimal {
        let pnl = LedgerMath.apply(
            leg.side, qty: leg.qty, price: leg.price, value: value, to: &qty, costBasis: &costBasis)
        realizedPnL += pnl
        return pnl
    }
}

extension Account {
    /// Puts a position back unless nothing is held or held back.
    fileprivate mutating func keep(_ position: Position) {
        if !(position.qty.isZero && position.reservedForSale.isZero) { positions[position.instrument] = position }
    }
}
