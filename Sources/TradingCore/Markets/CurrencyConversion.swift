/// Converting an amount of one currency into another at a currency pair's bid or ask, exactly, as a transfer between
/// two of a user's accounts does: selling the pair's base currency takes the bid, buying it takes the ask; the
/// credited amount is rounded down to its minor unit and a debit worked back from a wanted credit is rounded up, so
/// the conversion never pays out more than the price gives. Amounts under USD 25,000 go to the odd-lot venue, as IB
/// routes conversions smaller than IDEALPRO's minimum: its spread is `oddLotWidening` times IDEALPRO's.
public struct CurrencyConversion: Sendable, Hashable {
    /// IDEALPRO's smallest order, in US dollars.
    public static let idealproMinimumUSD = FixedDecimal(25_000)
    /// How many times wider the odd-lot venue's spread is than IDEALPRO's.
    public static let oddLotWidening = 5

    public var from: Currency
    public var to: Currency
    /// The debited amount, in `from`.
    public var fromAmount: FixedDecimal
    /// The credited amount, in `to`.
    public var toAmount: FixedDecimal
    /// Units of `to` one unit of `from` bought, as applied (to nine places).
    public var rate: FixedDecimal
    /// The same at the pair's mid price.
    public var midRate: FixedDecimal
    /// The pair's price used: its bid (selling its base currency) or its ask (buying it), widened for an odd lot.
    public var pairPrice: Price
    /// Whether the amount went to the odd-lot venue.
    public var oddLot: Bool
    /// The debit less what the credit is worth at the mid price, in `from` (half-up to its minor unit): the spread and
    /// the rounding to minor units.
    public var spreadCost: FixedDecimal

    /// Which side of a conversion an amount names.
    public enum Fixed: Sendable, Hashable {
        /// The amount to debit, in the `from` currency.
        case debit(FixedDecimal)
        /// The amount to credit, in the `to` currency.
        case credit(FixedDecimal)
    }

    /// The currency a pair quotes for an account's currency: an A-share account's yuan (CNY) convert at the offshore
    /// yuan's rate (CNH), freely convertible; every other currency is its own.
    public static func pairCurrency(_ currency: Currency) -> Currency { currency == .cny ? .cnh : currency }

    /// Converts at a pair's top of the book. `pair` is (base, quote) as the pair is written (`USD.CNH`: dollars priced
    /// in yuan); `from` and `to` are the two accounts' currencies, one each side of the pair. `usdPerBase` values the
    /// base currency in dollars (1 when the base is USD) for the odd-lot threshold. Nil when the pair does not join
    /// the two currencies, the book is crossed or empty, or the amount converts to nothing.
    public static func convert(
        _ fixed: Fixed, from: Currency, to: Currency, pair: CurrencyPair, bid: Price, ask: Price,
        tick: Price, usdPerBase: FixedDecimal
    ) -> CurrencyConversion? {
        let (f, t) = (pairCurrency(from), pairCurrency(to))
        let sellingBase: Bool
        if f == pair.base && t == pair.quote {
            sellingBase = true
        } else if f == pair.quote && t == pair.base {
            sellingBase = false
        } else {
            return nil
        }
        guard bid.isPositive, ask > bid, tick.isPositive else { return nil }
        let two = FixedDecimal(2)
        guard let mid = (bid + ask).divided(by: two) else { return nil }
        // The base currency's amount decides the venue.
        let baseAmount: FixedDecimal?
        switch (fixed, sellingBase) {
        case (.debit(let a), true), (.credit(let a), false): baseAmount = a
        case (.debit(let a), false), (.credit(let a), true): baseAmount = a.divided(by: mid)
        }
        guard let baseAmount, baseAmount.isPositive else { return nil }
        let oddLot = baseAmount.multiplied(by: usdPerBase) < idealproMinimumUSD
        var price = sellingBase ? bid : ask
        if oddLot {
            let half = (mid - bid).times(oddLotWidening)
            price =
                sellingBase
                ? (mid - half).rounded(toMultipleOf: tick, rule: .floor)
                : (mid + half).rounded(toMultipleOf: tick, rule: .ceiling)
            guard price.isPositive else { return nil }
        }
        // to = from × price (selling the base) or from ÷ price (buying it); and back.
        func credit(for debit: FixedDecimal) -> FixedDecimal? {
            sellingBase
                ? debit.multiplied(by: price, places: to.minorUnitDigits, rule: .down)
                : debit.divided(by: price, places: to.minorUnitDigits, rule: .down)
        }
        func debit(for credit: FixedDecimal) -> FixedDecimal? {
            sellingBase
                ? credit.divided(by: price, places: from.minorUnitDigits, rule: .up)
                : credit.multiplied(by: price, places: from.minorUnitDigits, rule: .up)
        }
        let fromAmount: FixedDecimal
        let toAmount: FixedDecimal
        switch fixed {
        case .debit(let a):
            guard let c = credit(for: a) else { return nil }
            (fromAmount, toAmount) = (a, c)
        case .credit(let a):
            guard let d = debit(for: a) else { return nil }
            (fromAmount, toAmount) = (d, a)
        }
        guard fromAmount.isPositive, toAmount.isPositive else { return nil }
        guard let rate = sellingBase ? price : FixedDecimal.one.divided(by: price),
            let midRate = sellingBase ? mid : FixedDecimal.one.divided(by: mid),
            let worth = sellingBase
                ? toAmount.divided(by: mid, places: from.minorUnitDigits, rule: .halfUp)
                : Optional(toAmount.multiplied(by: mid, places: from.minorUnitDigits, rule: .halfUp))
        else { return nil }
        return CurrencyConversion(
            from: from, to: to, fromAmount: fromAmount, toAmount: toAmount, rate: rate, midRate: midRate,
            pairPrice: price, oddLot: oddLot, spreadCost: fromAmount - worth)
    }
}
