/// An account at one trading day's close: a row of its performance history, kept as the ledger moves so a
/// performance request reads rows instead of replaying the ledger.
public struct EquityDay: Sendable, Hashable {
    public var accountID: AccountID
    public var date: CivilDate
    /// Cash plus positions at the day's closing prices.
    public var equity: FixedDecimal
    public var cash: FixedDecimal
    public var positionsValue: FixedDecimal
    /// Net external money in during the day (deposits +, withdrawals −; a reset: the new cash minus the value
    /// it replaced; an account's first day: its opening cash).
    public var flow: FixedDecimal
    public var dividends: FixedDecimal
    public var fees: FixedDecimal
    /// Realized P&L of the day's sales, before fees.
    public var realizedPnL: FixedDecimal
    /// The last ledger entry folded in: the next day continues after it.
    public var lastSequence: Int64
    /// Shares held at the close, and the price each was last valued at (the day's close, else the last fill).
    public var holdings: [String: Quantity]
    public var marks: [String: Price]

    public init(
        accountID: AccountID, date: CivilDate, equity: FixedDecimal, cash: FixedDecimal,
        positionsValue: FixedDecimal, flow: FixedDecimal, dividends: FixedDecimal, fees: FixedDecimal,
        realizedPnL: FixedDecimal, lastSequence: Int64, holdings: [String: Quantity], marks: [String: Price]
    ) {
        self.accountID = accountID
        self.date = date
        self.equity = equity
        self.cash = cash
        self.positionsValue = positionsValue
        self.flow = flow
        self.dividends = dividends
        self.fees = fees
        self.realizedPnL = realizedPnL
        self.lastSequence = lastSequence
        self.holdings = holdings
        self.marks = marks
    }

    /// The row as the metrics see it.
    public var valuation: ValuationPoint {
        ValuationPoint(date: date, value: equity, flow: flow, dividends: dividends, fees: fees)
    }
}

/// Folds ledger entries into daily closes. It carries an account's cash, shares and last prices from one close
/// to the next, so each new row needs only the entries since the previous one — and a backfill from the
/// ledger produces exactly the rows the live recorder would have.
public struct EquityDayBuilder: Sendable {
    public let accountID: AccountID
    public let currency: Currency
    public private(set) var cash: FixedDecimal
    public private(set) var holdings: [String: Quantity]
    public private(set) var marks: [String: Price]
    public private(set) var lastSequence: Int64
    private var flow: FixedDecimal
    /// Money moved in since the last close (the next row's flow so far).
    public var pendingFlow: FixedDecimal { flow }
    private var fees: FixedDecimal = .zero
    private var dividends: FixedDecimal = .zero
    private var realized: FixedDecimal = .zero

    /// A new account: its opening cash is the first day's flow.
    public init(accountID: AccountID, currency: Currency, openingCash: FixedDecimal) {
        self.accountID = accountID
        self.currency = currency
        cash = openingCash
        holdings = [:]
        marks = [:]
        lastSequence = 0
        flow = openingCash
    }

    /// Continues after a stored row.
    public init(continuing day: EquityDay, currency: Currency) {
        accountID = day.accountID
        self.currency = currency
        cash = day.cash
        holdings = day.holdings
        marks = day.marks
        lastSequence = day.lastSequence
        flow = .zero
    }

    /// The cash an account opened with, from its ledger: before the first reset the ledger's entries moved cash
    /// from it; without a reset it is still the account's starting cash.
    public static func openingCash(ledger: some Sequence<LedgerEntry>, startingCash: FixedDecimal) -> FixedDecimal {
        var moved = FixedDecimal.zero
        for entry in ledger {
            if case .reset(let start) = entry.kind { return start - entry.cashChange - moved }
            moved += entry.cashChange
        }
        return startingCash
    }

    /// Folds one more entry in (entries in sequence order; ones already folded are skipped).
    public mutating func apply(_ entry: LedgerEntry) {
        guard entry.sequence > lastSequence else { return }
        lastSequence = entry.sequence
        switch entry.kind {
        case .deposit, .withdrawal, .transfer:
            flow += entry.cashChange
        case .fee:
            fees -= entry.cashChange
        case .cryptoFee(let fee):
            fees += fee.value
            if fee.side == .buy {
                let left = holdings[fee.symbol, default: .zero] - fee.qty
                holdings[fee.symbol] = left.isZero ? nil : left
            }
        case .corporateAction(let booking):
            if booking.kind.changesShares {
                holdings[booking.symbol] = booking.qtyAfter.isZero ? nil : booking.qtyAfter
                // Prices after a split are the old ones ÷ the ratio: the last mark follows them.
                if let mark = marks[booking.symbol] {
                    marks[booking.symbol] =
                        mark.multiplied(by: booking.oldRate).divided(by: booking.newRate, rule: .halfEven) ?? mark
                }
                realized += entry.cashChange - booking.releasedCost
            } else {
                dividends += entry.cashChange
            }
        case .interest, .marginCall, .borrowFee:
            // Interest and borrow fees are costs of borrowing: they lower equity like a loss, not a withdrawal.
            break
        case .optionEvent(let event):
            let left = holdings[event.symbol, default: .zero] + event.qty
            holdings[event.symbol] = left.isZero ? nil : left
            realized += event.realizedPnL
        case .optionDelivery(let delivery):
            let held = holdings[delivery.symbol, default: .zero]
            let after = delivery.side == .buy ? held + delivery.qty : held - delivery.qty
            holdings[delivery.symbol] = after.isZero ? nil : after
            if marks[delivery.symbol] == nil { marks[delivery.symbol] = delivery.price }
            realized += delivery.realizedPnL
        case .fill(let fill):
            let held = holdings[fill.symbol, default: .zero]
            // A pair quoted in another currency against the account's (USD.JPY in dollars) holds that currency: the
            // fill's value moves it (`value(of:)` prices it back). Every other fill moves its quantity.
            if let pair = fill.pair, pair.base == currency {
                holdings[fill.symbol] = fill.side == .buy ? held - fill.value : held + fill.value
            } else {
                holdings[fill.symbol] = fill.side == .buy ? held + fill.qty : held - fill.qty
            }
            if holdings[fill.symbol]?.isZero != false { holdings[fill.symbol] = nil }
            marks[fill.symbol] = fill.price
            // Sales close longs and purchases cover shorts: either may realize P&L (opening fills realize none).
            realized += fill.realizedPnL
        case .reset(let start):
            // Everything held is replaced by the new starting cash: out goes the value before, in comes the cash.
            let before = start - entry.cashChange + positionsValue(at: marks)
            flow += start - before
            holdings = [:]
        }
        cash += entry.cashChange
    }

    /// The row for `date`, valuing shares at `closes` (a symbol without one keeps its last price), and starts
    /// the next day.
    public mutating func close(date: CivilDate, closes: [String: Price]) -> EquityDay {
        for symbol in holdings.keys { if let close = closes[symbol] { marks[symbol] = close } }
        marks = marks.filter { holdings[$0.key] != nil }
        let positions = positionsValue(at: marks)
        let day = EquityDay(
            accountID: accountID, date: date, equity: cash + positions, cash: cash, positionsValue: positions,
            flow: flow, dividends: dividends, fees: fees, realizedPnL: realized, lastSequence: lastSequence,
            holdings: holdings, marks: marks)
        flow = .zero
        fees = .zero
        dividends = .zero
        realized = .zero
        return day
    }

    /// Σ shares × price, each rounded half-up to the currency's minor unit (as trade values are).
    public func positionsValue(at prices: [String: Price]) -> FixedDecimal {
        holdings.reduce(FixedDecimal.zero) { total, holding in
            guard let price = prices[holding.key] else { return total }
            return total + Self.value(of: holding.key, qty: holding.value, at: price, currency: currency)
        }
    }

    /// One holding's value at `price`, rounded half-up to the currency's minor unit (an option holding is contracts:
    /// each is worth the premium × its multiplier).
    public static func value(of symbol: String, qty: Quantity, at price: Price, currency: Currency) -> FixedDecimal {
        // A holding of the quote currency of a pair priced against the account's (yen, by USD.JPY): amount ÷ price.
        if let pair = CurrencyPair(symbol: symbol), pair.base == currency {
            return price.isPositive
                ? qty.divided(by: price, places: currency.minorUnitDigits, rule: .halfUp) ?? .zero : .zero
        }
        let shares = OptionContract.multiplier(ofSymbol: symbol).map { qty.times($0) } ?? qty
        return shares.multiplied(by: price, places: currency.minorUnitDigits, rule: .halfUp)
    }
}
