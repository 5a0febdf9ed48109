/// One line of an account's activity log. Balances are the fold of these entries (`LedgerReplay`), and the
/// live ledger is checked against that fold by the property tests.
public struct LedgerEntry: Sendable, Codable, Hashable {
    /// 1, 2, 3, … per account.
    public var sequence: Int64
    public var accountID: AccountID
    public var time: Timestamp
    public var kind: Kind
    /// Signed change of cash this entry made.
    public var cashChange: FixedDecimal

    public init(sequence: Int64, accountID: AccountID, time: Timestamp, kind: Kind, cashChange: FixedDecimal) {
        self.sequence = sequence
        self.accountID = accountID
        self.time = time
        self.kind = kind
        self.cashChange = cashChange
    }

    public enum Kind: Sendable, Codable, Hashable {
        case deposit(method: TransferMethod, note: String?)
        case withdrawal(method: TransferMethod, note: String?)
        case fill(Fill)
        case fee(kind: FeeKind, orderID: OrderID, symbol: String)
        /// A crypto fill's maker or taker fee, in the asset the fill received: coins out of a purchase (moving no
        /// cash), dollars out of a sale (the cash change).
        case cryptoFee(CryptoFeeBooking)
        /// Account reset: positions and orders cleared, cash set to the starting balance.
        case reset(startingCash: FixedDecimal)
        /// Margin interest for one night on borrowed cash (`balance`, positive) at an annual `rate` (0.07 = 7%).
        case interest(rate: FixedDecimal, balance: FixedDecimal)
        /// A margin call's steps, moving no cash: issued (equity `deficit` short of maintenance), met, or positions
        /// being sold to meet it (`liquidation`).
        case marginCall(deficit: FixedDecimal, event: MarginCallEvent)
        /// The stock-loan fee for hard-to-borrow shares held short overnight: `qty` shares (positive) of `symbol`
        /// worth `value` at the close, at an annual `rate`, over the nights to the next trading day.
        case borrowFee(symbol: String, qty: Quantity, rate: FixedDecimal, value: FixedDecimal)
        /// A dividend, split or stock dividend on the ex-date: the cash change is the dividend (paid by a short) or
        /// the cash in lieu of a fraction of a share.
        case corporateAction(CorporateActionBooking)
        /// An option position exercised or expired (moves no cash).
        case optionEvent(OptionEventBooking)
        /// Shares bought or sold at the strike by an exercise: the cash change is the strike × the shares.
        case optionDelivery(OptionDeliveryBooking)
        /// Money moved to or from another account of the same user (converted when their currencies differ): the
        /// cash change is what left or reached this account.
        case transfer(TransferBooking)
    }
}

/// One side of a transfer between two accounts of one user (`LedgerEntry.Kind.transfer`): the debit of the account
/// it left or the credit of the account it reached, with what the other side paid or received and the rate.
public struct TransferBooking: Sendable, Codable, Hashable {
    public enum Direction: String, Sendable, Codable, Hashable {
        /// Debited from this account.
        case out
        /// Credited to this account.
        case `in`
    }

    public var transferID: TransferID
    public var direction: Direction
    /// The account on the other side.
    public var counterparty: AccountID
    /// What the other side paid (a credit) or received (a debit), in its currency.
    public var counterpartyAmount: FixedDecimal
    public var counterpartyCurrency: Currency
    /// Units of the credited currency one unit of the debited currency bought (1 between accounts of one currency).
    public var rate: FixedDecimal

    public init(
        transferID: TransferID, direction: Direction, counterparty: AccountID, counterpartyAmount: FixedDecimal,
        counterpartyCurrency: Currency, rate: FixedDecimal
    ) {
        self.transferID = transferID
        self.direction = direction
        self.counterparty = counterparty
        self.counterpartyAmount = counterpartyAmount
        self.counterpartyCurrency = counterpartyCurrency
        self.rate = rate
    }
}

/// A crypto fee booked on a fill (`LedgerEntry.Kind.cryptoFee`).
public struct CryptoFeeBooking: Sendable, Codable, Hashable {
    public var orderID: OrderID
    /// The pair (`BTC/USD`).
    public var symbol: String
    public var side: OrderSide
    public var role: LiquidityRole
    /// The rate charged (0.0025 = 25 basis points).
    public var rate: FixedDecimal
    /// Coins taken out of a purchase (zero for a sale, whose fee is the entry's cash change).
    public var qty: Quantity
    /// The fill's price: what the coins were worth.
    public var price: Price
    /// The fee in money: the sale's fee, or the coins' worth at the fill price (half-up to the minor unit).
    public var value: FixedDecimal

    public init(
        orderID: OrderID, symbol: String, side: OrderSide, role: LiquidityRole, rate: FixedDecimal, qty: Quantity,
        price: Price, value: FixedDecimal
    ) {
        self.orderID = orderID
        self.symbol = symbol
        self.side = side
        self.role = role
        self.rate = rate
        self.qty = qty
        self.price = price
        self.value = value
    }
}

/// What happened to a margin call.
public enum MarginCallEvent: String, Sendable, Codable, Hashable {
    case issued, met, liquidation
}

/// An execution of (part of) an order.
public struct Fill: Sendable, Codable, Hashable {
    public var executionID: ExecutionID
    public var orderID: OrderID
    public var instrument: InstrumentID
    public var symbol: String
    public var side: OrderSide
    public var qty: Quantity
    public var price: Price
    /// Trade value moved in cash: price × qty rounded half-up to the minor unit (of the quote currency of a pair).
    public var value: FixedDecimal
    /// The order's filled quantity after this fill, and what remains (nil for notional orders).
    public var cumulativeQty: Quantity
    public var leavesQty: Quantity?
    /// The trading day of the fill (T+1 locks shares bought on it).
    public var tradingDate: CivilDate
    /// Realized P&L of this fill before fees (sells only).
    public var realizedPnL: FixedDecimal
    /// The contract multiplier of an option fill (100): `value` is price × qty × multiplier. Nil for shares.
    public var multiplier: Int? = nil
    /// The pair of a fill on a currency pair: `qty` is in its base currency and `value` in its quote currency (half-up
    /// to its minor unit), one of them the account's own (`LedgerMath.applyForex`). Nil for everything else.
    public var pair: CurrencyPair? = nil

    /// `multiplier` as a decimal (1 for shares).
    public var valueMultiplier: Quantity { multiplier.map { FixedDecimal($0) } ?? .one }
}
