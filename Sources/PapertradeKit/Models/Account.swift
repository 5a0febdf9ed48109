import Foundation

/// The market an account trades: US stocks in dollars or China A-shares in yuan.
public struct Market: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let us: Market = "us"
    public static let cn: Market = "cn"
}

/// A paper account with its balances (`positions` is filled when the account is read by id).
public struct Account: Codable, Hashable, Sendable, Identifiable {
    public var id: String
    public var name: String
    public var market: Market
    public var currency: String
    public var accountNumber: String
    /// `cash` or `margin`.
    public var type: String
    @ExactDecimal public var cash: Decimal
    @ExactDecimal public var buyingPower: Decimal
    @ExactDecimal public var equity: Decimal
    @ExactDecimal public var marketValue: Decimal
    /// Today's P&L: equity now less the equity at the close before this session, less money moved in since (shares
    /// bought today count from their price; sales, fees and dividends are in it).
    @ExactDecimal public var dayChange: Decimal
    @ExactDecimal public var startingCash: Decimal
    public var multiplier: Int
    public var maxMarginMultiplier: Int
    @ExactDecimal public var maintenanceMargin: Decimal
    @ExactDecimal public var marginDeficit: Decimal
    /// A game account: every player starts with the same cash, so it takes no deposits or withdrawals.
    public var inGame: Bool
    /// A class's account whose orders need a journal note (nil from servers before classes).
    public var journalRequired: Bool?
    public var positions: [Position]?
    /// Cash in other currencies, in the account's currency at the rates (nil from servers before currencies).
    @OptionalExactDecimal public var foreignCash: Decimal?
    /// The other currencies held (bought on currency pairs), each valued at its pair.
    public var balances: [CurrencyBalance]?

    enum CodingKeys: String, CodingKey {
        case id, name, market, currency, type, cash, equity, multiplier, positions, balances
        case foreignCash = "foreign_cash"
        case accountNumber = "account_number", buyingPower = "buying_power", marketValue = "market_value"
        case dayChange = "day_change", startingCash = "starting_cash", maxMarginMultiplier = "max_margin_multiplier"
        case maintenanceMargin = "maintenance_margin", marginDeficit = "margin_deficit", inGame = "in_game"
        case journalRequired = "journal_required"
    }
}

/// Cash an account holds in a currency other than its own: the amount, what open orders leave of it, the pair that
/// prices it and the rate (units of the account's currency per unit), and its worth, cost and profits in the account's
/// currency.
public struct CurrencyBalance: Codable, Hashable, Sendable {
    public var currency: String
    @ExactDecimal public var amount: Decimal
    @ExactDecimal public var available: Decimal
    public var pair: String
    @OptionalExactDecimal public var pairPrice: Decimal?
    @ExactDecimal public var rate: Decimal
    @ExactDecimal public var value: Decimal
    @ExactDecimal public var cost: Decimal
    @ExactDecimal public var unrealizedPL: Decimal
    @ExactDecimal public var realizedPL: Decimal

    enum CodingKeys: String, CodingKey {
        case currency, amount, available, pair, rate, value, cost
        case pairPrice = "pair_price", unrealizedPL = "unrealized_pl", realizedPL = "realized_pl"
    }
}

/// A holding valued now. `qty` is negative when short; percentages are fractions (0.05 = +5%). An option position
/// counts contracts of `multiplier` shares each; its prices stay per share.
public struct Position: Codable, Hashable, Sendable {
    public var symbol: String
    public var name: String
    public var market: Market
    public var currency: String
    /// `long` or `short`.
    public var side: String
    @ExactDecimal public var qty: Decimal
    /// What may be sold today (A-shares bought today settle T+1).
    @ExactDecimal public var qtyAvailable: Decimal
    @ExactDecimal public var avgEntryPrice: Decimal
    @ExactDecimal public var costBasis: Decimal
    @ExactDecimal public var currentPrice: Decimal
    @ExactDecimal public var lastdayPrice: Decimal
    @ExactDecimal public var changeToday: Decimal
    @ExactDecimal public var marketValue: Decimal
    @ExactDecimal public var unrealizedPL: Decimal
    @ExactDecimal public var unrealizedPLPercent: Decimal
    @ExactDecimal public var unrealizedIntradayPL: Decimal
    @ExactDecimal public var unrealizedIntradayPLPercent: Decimal
    @ExactDecimal public var realizedPL: Decimal
    /// The position's part of the account's `dayChange` (its fees included).
    @ExactDecimal public var dayPL: Decimal
    /// `stock` or `option`.
    public var assetClass: String
    public var multiplier: Int
    public var underlying: String?
    /// Shares one contract delivers on exercise: 100, or an adjusted contract's (after a split) — nil for shares.
    public var deliverable: Int?
    /// Whether the owner asked that this long option position not be exercised at expiry (`doNotExercise`).
    public var doNotExercise: Bool?
    /// An option position's greeks from the pricing model, per share (nil for shares).
    public var greeks: PositionGreeks?
    /// An option position's delta in shares of the underlying: the shares it moves like (signed).
    @OptionalExactDecimal public var positionDelta: Decimal?
    /// An option position's theta in money a day: what time decay makes or costs it (signed).
    @OptionalExactDecimal public var positionTheta: Decimal?

    enum CodingKeys: String, CodingKey {
        case symbol, name, market, currency, side, qty, multiplier, underlying, greeks, deliverable
        case doNotExercise = "do_not_exercise"
        case positionDelta = "position_delta", positionTheta = "position_theta"
        case qtyAvailable = "qty_available", avgEntryPrice = "avg_entry_price", costBasis = "cost_basis"
        case currentPrice = "current_price", lastdayPrice = "lastday_price", changeToday = "change_today"
        case marketValue = "market_value", unrealizedPL = "unrealized_pl", unrealizedPLPercent = "unrealized_plpc"
        case unrealizedIntradayPL = "unrealized_intraday_pl"
        case unrealizedIntradayPLPercent = "unrealized_intraday_plpc"
        case realizedPL = "realized_pl", assetClass = "asset_class", dayPL = "day_pl"
    }
}

/// The pricing model's greeks of an option, per share: delta, gamma, theta (a calendar day), vega (a volatility
/// point), and the implied volatility they come from.
public struct PositionGreeks: Codable, Hashable, Sendable {
    @ExactDecimal public var delta: Decimal
    @ExactDecimal public var gamma: Decimal
    @ExactDecimal public var theta: Decimal
    @ExactDecimal public var vega: Decimal
    @ExactDecimal public var impliedVolatility: Decimal

    enum CodingKeys: String, CodingKey {
        case delta, gamma, theta, vega
        case impliedVolatility = "implied_volatility"
    }
}

/// One line of an account's history: a fill, a fee, a deposit or withdrawal, a dividend, a corporate action….
/// `kind` says which; the other fields are those the kind has.
public struct Transaction: Codable, Hashable, Sendable {
    public var sequence: Int
    public var kind: String
    @ServerTime public var time: Date
    /// Cash in (positive) or out (negative).
    @OptionalExactDecimal public var amount: Decimal?
    public var symbol: String?
    @OptionalExactDecimal public var qty: Decimal?
    @OptionalExactDecimal public var price: Decimal?
    public var orderID: String?
    /// A fee's kind: `commission`, `sec`, `taf`, `stamp_duty`, `transfer`….
    public var fee: String?
    public var method: String?
    public var note: String?
    /// Placed by a queued rule rather than by hand.
    public var automatic: Bool?
    /// A `crypto_fee`'s side (a purchase's fee is `qty` coins, a sale's is `amount`), `maker` or `taker`, its rate
    /// (0.0025 = 0.25%) and its worth in money.
    public var side: OrderSide?
    public var liquidity: String?
    @OptionalExactDecimal public var rate: Decimal?
    @OptionalExactDecimal public var value: Decimal?
    /// A `transfer`'s id, `out` or `in`, the other account, and what it paid or received in its currency (`rate`:
    /// units credited per unit debited).
    public var transferID: String?
    public var direction: String?
    public var counterpartyAccount: String?
    @OptionalExactDecimal public var counterpartyAmount: Decimal?
    public var counterpartyCurrency: String?

    enum CodingKeys: String, CodingKey {
        case sequence, kind, time, amount, symbol, qty, price, fee, method, note, automatic, side, liquidity, rate
        case value, direction
        case orderID = "order_id"
        case transferID = "transfer_id"
        case counterpartyAccount = "counterparty_account"
        case counterpartyAmount = "counterparty_amount"
        case counterpartyCurrency = "counterparty_currency"
    }
}

/// How a transfer between two accounts converts (nothing between accounts of one currency: rate 1).
public struct TransferPricing: Codable, Hashable, Sendable {
    /// Units credited per unit debited, as applied; and at the pair's mid price.
    @ExactDecimal public var rate: Decimal
    @ExactDecimal public var midRate: Decimal
    /// The currency pair priced (`USD.CNH`) and the bid or ask taken.
    public var pair: String?
    @OptionalExactDecimal public var pairPrice: Decimal?
    /// What the spread cost, in the debited currency, and any fee.
    @ExactDecimal public var spreadCost: Decimal
    @ExactDecimal public var fee: Decimal
    /// Under USD 25,000: IB's odd-lot venue, at a wider spread.
    public var oddLot: Bool

    enum CodingKeys: String, CodingKey {
        case rate, pair, fee
        case midRate = "mid_rate"
        case pairPrice = "pair_price"
        case spreadCost = "spread_cost"
        case oddLot = "odd_lot"
    }
}

/// What a transfer between two of the user's accounts would move now (`PapertradeClient.transferQuote`).
public struct AccountTransferQuote: Codable, Sendable {
    public var fromAccount: String
    public var toAccount: String
    @ExactDecimal public var fromAmount: Decimal
    public var fromCurrency: String
    @ExactDecimal public var toAmount: Decimal
    public var toCurrency: String
    public var pricing: TransferPricing

    enum CodingKeys: String, CodingKey {
        case fromAccount = "from_account"
        case toAccount = "to_account"
        case fromAmount = "from_amount"
        case fromCurrency = "from_currency"
        case toAmount = "to_amount"
        case toCurrency = "to_currency"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        fromAccount = try c.decode(String.self, forKey: .fromAccount)
        toAccount = try c.decode(String.self, forKey: .toAccount)
        _fromAmount = try c.decode(ExactDecimal.self, forKey: .fromAmount)
        fromCurrency = try c.decode(String.self, forKey: .fromCurrency)
        _toAmount = try c.decode(ExactDecimal.self, forKey: .toAmount)
        toCurrency = try c.decode(String.self, forKey: .toCurrency)
        pricing = try TransferPricing(from: decoder)
    }

    /// As the server writes it: the pricing's fields beside the amounts.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(fromAccount, forKey: .fromAccount)
        try c.encode(toAccount, forKey: .toAccount)
        try c.encode(_fromAmount, forKey: .fromAmount)
        try c.encode(fromCurrency, forKey: .fromCurrency)
        try c.encode(_toAmount, forKey: .toAmount)
        try c.encode(toCurrency, forKey: .toCurrency)
        try pricing.encode(to: encoder)
    }
}

/// Money moved between two of the user's accounts (`PapertradeClient.transfer`): `completed` once credited,
/// `pending` while the destination's server credits it.
public struct AccountTransfer: Codable, Sendable {
    public var id: String
    /// The client's own id for it, when one was given.
    public var clientTransferID: String?
    public var status: String
    public var fromAccount: String
    public var toAccount: String
    public var fromName: String
    public var toName: String
    @ExactDecimal public var fromAmount: Decimal
    public var fromCurrency: String
    @ExactDecimal public var toAmount: Decimal
    public var toCurrency: String
    public var pricing: TransferPricing
    @ServerTime public var createdAt: Date
    @OptionalServerTime public var completedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, status
        case clientTransferID = "client_transfer_id"
        case fromAccount = "from_account"
        case toAccount = "to_account"
        case fromName = "from_name"
        case toName = "to_name"
        case fromAmount = "from_amount"
        case fromCurrency = "from_currency"
        case toAmount = "to_amount"
        case toCurrency = "to_currency"
        case createdAt = "created_at"
        case completedAt = "completed_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        clientTransferID = try c.decodeIfPresent(String.self, forKey: .clientTransferID)
        status = try c.decode(String.self, forKey: .status)
        fromAccount = try c.decode(String.self, forKey: .fromAccount)
        toAccount = try c.decode(String.self, forKey: .toAccount)
        fromName = try c.decode(String.self, forKey: .fromName)
        toName = try c.decode(String.self, forKey: .toName)
        _fromAmount = try c.decode(ExactDecimal.self, forKey: .fromAmount)
        fromCurrency = try c.decode(String.self, forKey: .fromCurrency)
        _toAmount = try c.decode(ExactDecimal.self, forKey: .toAmount)
        toCurrency = try c.decode(String.self, forKey: .toCurrency)
        _createdAt = try c.decode(ServerTime.self, forKey: .createdAt)
        _completedAt = try c.decode(OptionalServerTime.self, forKey: .completedAt)
        pricing = try TransferPricing(from: decoder)
    }

    /// As the server writes it: the pricing's fields beside the rest.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(clientTransferID, forKey: .clientTransferID)
        try c.encode(status, forKey: .status)
        try c.encode(fromAccount, forKey: .fromAccount)
        try c.encode(toAccount, forKey: .toAccount)
        try c.encode(fromName, forKey: .fromName)
        try c.encode(toName, forKey: .toName)
        try c.encode(_fromAmount, forKey: .fromAmount)
        try c.encode(fromCurrency, forKey: .fromCurrency)
        try c.encode(_toAmount, forKey: .toAmount)
        try c.encode(toCurrency, forKey: .toCurrency)
        try c.encode(_createdAt, forKey: .createdAt)
        try c.encode(_completedAt, forKey: .completedAt)
        try pricing.encode(to: encoder)
    }
}

/// How money moves in or out of an account.
public struct TransferMethod: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let bank: TransferMethod = "bank"
    public static let card: TransferMethod = "card"
    public static let transfer: TransferMethod = "transfer"
}

/// A deposit's or withdrawal's answer: the account after it, and the transaction it wrote.
public struct TransferResult: Decodable, Sendable {
    public var account: Account
    public var transaction: Transaction

    enum CodingKeys: String, CodingKey { case transaction }

    public init(from decoder: any Decoder) throws {
        account = try Account(from: decoder)
        transaction = try decoder.container(keyedBy: CodingKeys.self).decode(Transaction.self, forKey: .transaction)
    }
}

/// A new API key for an account. The secret is shown this once; the server keeps only its hash.
public struct APIKey: Codable, Hashable, Sendable {
    public var accountID: String
    public var keyID: String
    public var secret: String

    enum CodingKeys: String, CodingKey {
        case secret
        case accountID = "account_id", keyID = "key_id"
    }
}

/// One of an account's API keys as listed: its id and when it was made (its secret was shown once, when made).
public struct APIKeyInfo: Codable, Hashable, Sendable, Identifiable {
    public var keyID: String
    public var accountID: String
    @OptionalServerTime public var createdAt: Date?
    public var id: String { keyID }

    enum CodingKeys: String, CodingKey {
        case keyID = "key_id", accountID = "account_id", createdAt = "created_at"
    }
}

/// The logged-in user.
public struct User: Codable, Hashable, Sendable, Identifiable {
    public var id: String
    public var username: String
    /// `en`, `zh`, or nil to follow the browser.
    public var language: String?
    /// Set while the user logs in with a password someone else chose (a teacher's roster): change it with
    /// `changePassword` (nil from servers before classes).
    public var mustChangePassword: Bool?
    public var accounts: [Account]

    enum CodingKeys: String, CodingKey {
        case id, username, language, accounts
        case mustChangePassword = "must_change_password"
    }
}
