import TradingCore

/// Money moved between two accounts of one user, converted at the live rate when their currencies differ. The debit
/// and this record (pending) commit together in the source account's shard; the credit and the record marked
/// completed commit together in the destination's, exactly once (a `TransferCredit` row per transfer: a second credit
/// cannot commit). The two shards may be served by different nodes: the destination's owner credits what is pending
/// for its shards (`Brokerage.creditPendingTransfers`), so a kill -9 between the two steps delays the credit until
/// the shard's next owner looks, and never loses or doubles it.
public struct TransferRecord: Sendable, Codable, Hashable {
    public enum Status: String, Sendable, Codable, Hashable {
        /// Debited; the credit has not committed yet.
        case pending
        /// Debited and credited.
        case completed
    }

    public var id: TransferID
    public var userID: UserID
    /// The client's own id for the transfer (unique per source account): a retry with it gets the same transfer,
    /// never a second one.
    public var clientTransferID: String?
    /// Debited: the source account, in its currency.
    public var from: TransferSide
    /// Credited: the destination account, in its currency.
    public var to: TransferSide
    /// The destination's shard (where its credit is made; what its owner looks for).
    public var toShard: Int
    /// The conversion (`TransferPricing`): the rate applied, the mid rate, the pair it was priced on.
    public var pricing: TransferPricing
    public var status: Status
    public var createdAt: Timestamp
    public var completedAt: Timestamp?

    public init(
        id: TransferID, userID: UserID, clientTransferID: String? = nil, from: TransferSide, to: TransferSide,
        toShard: Int, pricing: TransferPricing, status: Status, createdAt: Timestamp, completedAt: Timestamp? = nil
    ) {
        self.id = id
        self.userID = userID
        self.clientTransferID = clientTransferID
        self.from = from
        self.to = to
        self.toShard = toShard
        self.pricing = pricing
        self.status = status
        self.createdAt = createdAt
        self.completedAt = completedAt
    }

    /// The debit's ledger booking (on the source account).
    public var debitBooking: TransferBooking {
        TransferBooking(
            transferID: id, direction: .out, counterparty: to.account, counterpartyAmount: to.amount,
            counterpartyCurrency: to.currency, rate: pricing.rate)
    }

    /// The credit's ledger booking (on the destination account).
    public var creditBooking: TransferBooking {
        TransferBooking(
            transferID: id, direction: .in, counterparty: from.account, counterpartyAmount: from.amount,
            counterpartyCurrency: from.currency, rate: pricing.rate)
    }
}

/// One side of a transfer: the account, its name as its owner saw it when the transfer was made (for the notice and
/// the history), and the amount it paid or received in its currency.
public struct TransferSide: Sendable, Codable, Hashable {
    public var account: AccountID
    public var name: String
    public var amount: FixedDecimal
    public var currency: Currency

    public init(account: AccountID, name: String, amount: FixedDecimal, currency: Currency) {
        self.account = account
        self.name = name
        self.amount = amount
        self.currency = currency
    }
}

/// How a transfer's amount was converted: nothing (one currency, rate 1), or at a currency pair's bid or ask.
public struct TransferPricing: Sendable, Codable, Hashable {
    /// Units of the credited currency one unit of the debited currency bought, as applied (1 without conversion).
    public var rate: FixedDecimal
    /// The same at the pair's mid price: what the conversion would give without the spread.
    public var midRate: FixedDecimal
    /// The pair priced (`USD.CNH`), nil without conversion.
    public var pair: String?
    /// The pair's price the conversion took: its bid (selling the pair's base currency) or its ask (buying it).
    public var pairPrice: FixedDecimal?
    /// The spread's cost, in the debited currency: the amount debited less what the credit is worth at the mid rate.
    public var spreadCost: FixedDecimal
    /// A fee, in the debited currency (none today: the spread is the conversion's price).
    public var fee: FixedDecimal
    /// Whether the pair's size at the top of IDEALPRO's book was small enough (under USD 25,000) to go to the odd-lot
    /// venue, at a wider spread, as IB routes small conversions.
    public var oddLot: Bool

    public init(
        rate: FixedDecimal, midRate: FixedDecimal, pair: String?, pairPrice: FixedDecimal?, spreadCost: FixedDecimal,
        fee: FixedDecimal, oddLot: Bool
    ) {
        self.rate = rate
        self.midRate = midRate
        self.pair = pair
        self.pairPrice = pairPrice
        self.spreadCost = spreadCost
        self.fee = fee
        self.oddLot = oddLot
    }

    /// No conversion: both accounts keep one currency.
    public static let none = TransferPricing(
        rate: .one, midRate: .one, pair: nil, pairPrice: nil, spreadCost: .zero, fee: .zero, oddLot: false)
}

/// The credit of a transfer, as committed with it: at most one per transfer (the table's key refuses a second).
public struct TransferCredit: Sendable, Hashable {
    public var transferID: TransferID
    public var account: AccountID
    public var time: Timestamp

    public init(transferID: TransferID, account: AccountID, time: Timestamp) {
        self.transferID = transferID
        self.account = account
        self.time = time
    }
}
