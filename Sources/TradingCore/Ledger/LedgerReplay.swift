/// Recomputes balances from an activity log alone: what a ledger says, independent of the live state. Holdings
/// are keyed by symbol: instrument ids are dense indexes of one engine and differ between runs, so stored entries
/// from several runs agree only on symbols.
public struct LedgerReplay: Sendable, Hashable {
    public struct Holding: Sendable, Hashable {
        public var qty: Quantity = .zero
        public var costBasis: FixedDecimal = .zero
        public var realizedPnL: FixedDecimal = .zero
    }

    /// Cash in another currency: the amount, its cost and what selling it realized, in the account's currency.
    public struct CurrencyHolding: Sendable, Hashable {
        public var amount: FixedDecimal = .zero
        public var cost: FixedDecimal = .zero
        public var realizedPnL: FixedDecimal = .zero
    }

    /// The account's own currency (fills on currency pairs move it and one other).
    public let currency: Currency
    public private(set) var cash: FixedDecimal = .zero
    public private(set) var holdings: [String: Holding] = [:]
    /// Cash in other currencies (held or once held), by currency.
    public private(set) var balances: [Currency: CurrencyHolding] = [:]
    public private(set) var totalFees: FixedDecimal = .zero

    public init(
        startingCash: FixedDecimal, currency: Currency = .usd, entries: some Sequence<LedgerEntry> = [LedgerEntry]()
    ) {
        self.currency = currency
        cash = startingCash
        for entry in entries { apply(entry) }
    }

    /// Folds one more entry in (entries in sequence order).
    public mutating func apply(_ entry: LedgerEntry) {
        switch entry.kind {
        case .reset(let startingCash):
            cash = startingCash
            holdings = [:]
            balances = [:]
            totalFees = .zero
            return
        case .deposit, .withdrawal, .transfer, .interest, .marginCall, .borrowFee:
            break
        case .fee(_, let orderID, _):
            totalFees -= entry.cashChange
            // Fees belong to the position of the fill they follow; the live ledger books them there too.
            if let symbol = feeSymbol[orderID] {
                holdings[symbol, default: Holding()].realizedPnL += entry.cashChange
            }
        case .cryptoFee(let fee):
            totalFees += fee.value
            // Coins out of a purchase leave its cost on fewer coins; a sale's money is a fee of the position's.
            if fee.side == .buy {
                holdings[fee.symbol, default: Holding()].qty -= fee.qty
            } else {
                holdings[fee.symbol, default: Holding()].realizedPnL += entry.cashChange
            }
        case .corporateAction(let booking):
            var holding = holdings[booking.symbol, default: Holding()]
            holding.realizedPnL += LedgerMath.apply(
                booking, cashChange: entry.cashChange, to: &holding.qty, costBasis: &holding.costBasis)
            holdings[booking.symbol] = holding
        case .optionEvent(let event):
            var holding = holdings[event.symbol, default: Holding()]
            holding.qty += event.qty
            holding.costBasis -= event.releasedCost
            holding.realizedPnL += event.realizedPnL
            holdings[event.symbol] = holding
        case .optionDelivery(let delivery):
            var holding = holdings[delivery.symbol, default: Holding()]
            if holding.qty.isZero { holding = Holding() }
            holding.realizedPnL += LedgerMath.apply(
                delivery, value: entry.cashChange.magnitude, to: &holding.qty, costBasis: &holding.costBasis)
            holdings[delivery.symbol] = holding
        case .fill(let fill) where fill.pair != nil:
            guard let pair = fill.pair, let other = pair.other(than: currency) else { break }
            var held = balances[other, default: CurrencyHolding()]
            var balance = CurrencyBalance(
                currency: other, pair: fill.instrument, pairSymbol: fill.symbol, isPairBase: other == pair.base)
            (balance.amount, balance.cost) = (held.amount, held.cost)
            let booked = LedgerMath.applyForex(
                fill.side, qty: fill.qty, value: fill.value, pair: pair, home: currency, to: &balance)
            (held.amount, held.cost) = (balance.amount, balance.cost)
            held.realizedPnL += booked.realized
            balances[other] = held
        case .fill(let fill):
            feeSymbol[fill.orderID] = fill.symbol
            var holding = holdings[fill.symbol, default: Holding()]
            // A position that went flat is closed; buying again opens a new one (as the live ledger does).
            if holding.qty.isZero { holding = Holding() }
            holding.realizedPnL += LedgerMath.apply(
                fill.side, qty: fill.qty, price: fill.price, multiplier: fill.valueMultiplier, value: fill.value,
                to: &holding.qty, costBasis: &holding.costBasis)
            holdings[fill.symbol] = holding
        }
        cash += entry.cashChange
    }

    private var feeSymbol: [OrderID: String] = [:]
}

/// Arithmetic shared by the live ledger and its replay, so both round identically.
enum LedgerMath {
    /// The part of the cost basis a sale of `sold` out of `held` shares releases: proportional, half-even to 9
    /// places; everything when the position is closed.
    static func costReleased(costBasis: FixedDecimal, held: Quantity, sold: Quantity) -> FixedDecimal {
        if sold >= held { return costBasis }
        let fraction = costBasis.multiplied(by: sold, places: FixedDecimal.scale, rule: .halfEven)
        return fraction.divided(by: held, rule: .halfEven) ?? costBasis
    }

    /// Books a fill into a holding of `qty` shares (negative: short) with `costBasis`, and returns the P&L it
    /// realized (before fees). Buying adds to a long or covers a short; selling closes a long or opens a short. A
    /// fill that crosses zero closes the holding first and opens the other side with the rest, its cash value
    /// split at the same price. Shared by the live ledger and its replay, so both book identically. Values are
    /// price × qty × `multiplier` (an option contract's 100).
    static func apply(
        _ side: OrderSide, qty: Quantity, price: Price, multiplier: Quantity = .one, value: FixedDecimal,
        to held: inout Quantity, costBasis: inout FixedDecimal
    ) -> FixedDecimal {
        let closing = side == .buy ? held.isNegative : held.isPositive
        guard closing else {
            held += side == .buy ? qty : -qty
            let exact = exactValue(price: price, qty: qty, multiplier: multiplier)
            costBasis += side == .buy ? exact : -exact
            return .zero
        }
        let open = held.magnitude
        let closed = Swift.min(qty, open)
        // Every currency papertrade keeps has two minor digits (`Currency.minorUnitDigits`).
        let closedValue =
            closed == qty ? value : tradeValue(price: price, qty: closed, multiplier: multiplier, currency: .usd)
        let released = costReleased(costBasis: costBasis.magnitude, held: open, sold: closed)
        var realized: FixedDecimal
        if side == .sell {
            held -= closed
            costBasis -= released
            realized = closedValue - released
        } else {
            held += closed
            costBasis += released
            realized = released - closedValue
        }
        if closed < qty {
            realized += apply(
                side, qty: qty - closed, price: price, multiplier: multiplier, value: value - closedValue, to: &held,
                costBasis: &costBasis)
        }
        return realized
    }

    /// Trade value moved in cash: price × qty × multiplier, half-up to the minor unit.
    static func tradeValue(price: Price, qty: Quantity, multiplier: Quantity = .one, currency: Currency)
        -> FixedDecimal
    {
        if multiplier == .one { return price.multiplied(by: qty, places: currency.minorUnitDigits, rule: .halfUp) }
        return price.multiplied(by: qty.multiplied(by: multiplier), places: currency.minorUnitDigits, rule: .halfUp)
    }

    /// The value fees are charged on, from an order's filled value (price × qty, per share): × multiplier, half-up to
    /// the minor unit.
    static func feeBasis(_ filledValue: FixedDecimal, multiplier: Quantity, currency: Currency) -> FixedDecimal {
        let value = multiplier == .one ? filledValue : filledValue.multiplied(by: multiplier)
        return value.rounded(places: currency.minorUnitDigits, rule: .halfUp)
    }

    /// Trade value, exact: price × qty × multiplier.
    static func exactValue(price: Price, qty: Quantity, multiplier: Quantity = .one) -> FixedDecimal {
        multiplier == .one ? price.multiplied(by: qty) : price.multiplied(by: qty.multiplied(by: multiplier))
    }
}
