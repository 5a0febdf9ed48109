/// A currency pair as it is written: `EUR.USD` is euros (the base) priced in dollars (the quote).
public struct CurrencyPair: Sendable, Codable, Hashable, CustomStringConvertible {
    public var base: Currency
    public var quote: Currency

    public init(base: Currency, quote: Currency) {
        self.base = base
        self.quote = quote
    }

    /// A pair written as IB writes it (`EUR.USD`); nil unless both halves are currencies papertrade knows and differ.
    public init?(symbol: String) {
        let parts = symbol.split(separator: ".")
        guard parts.count == 2, let base = Currency(rawValue: String(parts[0])),
            let quote = Currency(rawValue: String(parts[1])), base != quote
        else { return nil }
        self.init(base: base, quote: quote)
    }

    public var description: String { "\(base.rawValue).\(quote.rawValue)" }

    /// The currency an order on the pair pays with: the quote for a purchase (of the base), the base for a sale.
    public func paid(_ side: OrderSide) -> Currency { side == .buy ? quote : base }

    /// The pair's currency that is not `home` (nil when `home` is neither).
    public func other(than home: Currency) -> Currency? {
        if base == home { return quote }
        if quote == home { return base }
        return nil
    }
}

/// Cash an account holds in a currency other than its own, bought on a currency pair: the amount, what open orders
/// paying in it hold back, and what it cost in the account's currency (average cost, as a position's), so that the
/// holding has a value and a profit in the account's currency at the pair's price.
///
/// IB's view of the same thing is a cash balance per currency (`/portfolio/{acct}/ledger`) and a position in the pair
/// (`EUR.USD` 30,000 at an average price); both are read from this.
public struct CurrencyBalance: Sendable, Codable, Hashable {
    public var currency: Currency
    /// The pair that prices the currency in the account's currency (`EUR.USD` for euros in a dollar account), by id
    /// in this engine (`TradingEngine.restore` binds it again by `pairSymbol`).
    public var pair: InstrumentID
    public var pairSymbol: String
    /// Whether `currency` is the pair's base (EUR in EUR.USD: worth amount × price) rather than its quote (JPY in
    /// USD.JPY: worth amount ÷ price).
    public var isPairBase: Bool
    /// Held, in `currency` (never below zero: currencies are not borrowed).
    public var amount: FixedDecimal
    /// Promised to open orders that pay in `currency`.
    public var reserved: FixedDecimal
    /// What `amount` cost in the account's currency: Σ paid, less the share of it each sale released.
    public var cost: FixedDecimal
    /// Gains and losses in the account's currency closed out by selling the currency.
    public var realizedPnL: FixedDecimal

    public init(currency: Currency, pair: InstrumentID, pairSymbol: String, isPairBase: Bool) {
        self.currency = currency
        self.pair = pair
        self.pairSymbol = pairSymbol
        self.isPairBase = isPairBase
        amount = .zero
        reserved = .zero
        cost = .zero
        realizedPnL = .zero
    }

    /// What may still be spent.
    public var available: FixedDecimal { amount - reserved }

    /// Whether nothing is held or promised (the balance can go).
    public var isEmpty: Bool { amount.isZero && reserved.isZero }

    /// Units of the account's currency one unit of `currency` is worth at the pair's `price` (nine places).
    public func rate(at price: Price) -> FixedDecimal {
        isPairBase ? price : (FixedDecimal.one.divided(by: price, rule: .halfEven) ?? .zero)
    }

    /// The amount's worth in the account's currency at the pair's `price`, half-up to `places` (its cost without one).
    public func value(at price: Price?, places: Int) -> FixedDecimal {
        guard let price, price.isPositive else { return cost }
        if isPairBase { return amount.multiplied(by: price, places: places, rule: .halfUp) }
        return amount.divided(by: price, places: places, rule: .halfUp) ?? cost
    }

    /// Average cost of one unit in the account's currency (nine places); zero when none is held.
    public var averageCost: FixedDecimal {
        amount.isPositive ? cost.divided(by: amount, rule: .halfEven) ?? .zero : .zero
    }
}

extension Account {
    /// What the account may spend in `currency`: its own currency's free cash (`buyingPower`), or what it holds of
    /// another less what open orders hold.
    public func available(_ currency: Currency) -> FixedDecimal {
        currency == self.currency ? buyingPower : balances[currency]?.available ?? .zero
    }

    /// Cash in other currencies at the pairs' marks, in the account's currency (at cost without a mark).
    public func foreignCashValue(marks: (InstrumentID) -> Price?) -> FixedDecimal {
        balances.values.reduce(.zero) { total, balance in
            total + balance.value(at: marks(balance.pair), places: currency.minorUnitDigits)
        }
    }

    /// Holds (positive) or releases (negative) `amount` of `currency` for an open order.
    mutating func hold(_ amount: FixedDecimal, in currency: Currency) {
        if currency == self.currency {
            reservedCash += amount
        } else if let i = balances.index(forKey: currency) {
            balances.values[i].reserved += amount
            if balances.values[i].isEmpty { balances.remove(at: i) }
        }
    }
}

extension LedgerMath {
    /// Books a fill on a currency pair into an account whose currency is `home` (one side of the pair) and its
    /// balance of the pair's other currency: the home currency moves by the returned cash change, the other by the
    /// fill's quantity (the base) or value (the quote). Buying the other currency adds what was paid to its cost;
    /// selling it releases a proportional share of the cost and realizes the difference (returned). Shared by the
    /// live ledger and its replay.
    static func applyForex(
        _ side: OrderSide, qty: Quantity, value: FixedDecimal, pair: CurrencyPair, home: Currency,
        to balance: inout CurrencyBalance
    ) -> (cashChange: FixedDecimal, realized: FixedDecimal) {
        // The other currency's change and the home currency's, signed.
        let (otherChange, homeChange): (FixedDecimal, FixedDecimal) =
            pair.quote == home
            ? (side == .buy ? qty : -qty, side == .buy ? -value : value)
            : (side == .buy ? -value : value, side == .buy ? qty : -qty)
        if otherChange.isPositive {
            balance.amount += otherChange
            balance.cost += homeChange.magnitude
            return (homeChange, .zero)
        }
        let sold = otherChange.magnitude
        let released = costReleased(costBasis: balance.cost, held: balance.amount, sold: sold)
        balance.amount -= sold
        balance.cost -= released
        let realized = homeChange - released
        balance.realizedPnL += realized
        return (homeChange, realized)
    }
}
