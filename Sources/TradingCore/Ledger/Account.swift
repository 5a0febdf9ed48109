/// An account's balances: the live state the ledger entries fold into.
public struct Account: Sendable, Codable, Hashable {
    public var id: AccountID
    public var market: Market
    public var currency: Currency
    public var startingCash: FixedDecimal
    public var cash: FixedDecimal
    /// Cash promised to open buy orders (and the fee cushion of open sells).
    public var reservedCash: FixedDecimal
    public var fees: FeeSchedule
    public var positions: [InstrumentID: Position]
    /// Sequence number of the last ledger entry.
    public var lastSequence: Int64
    /// Σ fees charged since the last reset.
    public var totalFees: FixedDecimal
    /// Cash or margin account, and its leverage limit (accounts stored before margin existed are cash accounts).
    public var terms: MarginTerms
    /// The last US close the account's margin day was closed for (interest charged, maintenance checked).
    public var marginDayClosed: CivilDate?
    /// An open margin call: equity fell below maintenance margin at a close.
    public var marginCall: MarginCall?
    /// Day trades of the last few weeks, oldest first (the pattern day trader rule counts the last five trading days).
    public var dayTrades: [DayTrade]
    /// The last trading day whose corporate actions were applied to the account (nil: none tracked yet).
    public var corporateActionsThrough: CivilDate?
    /// The rules of the game the account plays in, and what they count (nil outside games).
    public var gameRules: GameRules?
    public var gameActivity: GameActivity?

    /// Whether the account plays in a game. (Asked on every order and fill: `gameRules != nil` copied the ~200-byte
    /// rules to compare them with nil.)
    public var inGame: Bool { if case .none = gameRules { false } else { true } }

    public init(
        id: AccountID, market: Market, startingCash: FixedDecimal, fees: FeeSchedule? = nil, terms: MarginTerms = .cash,
        gameRules: GameRules? = nil
    ) {
        self.id = id
        self.market = market
        currency = market.currency
        self.startingCash = startingCash
        cash = startingCash
        reservedCash = .zero
        self.fees = fees ?? .default(for: market)
        positions = [:]
        lastSequence = 0
        totalFees = .zero
        self.terms = market == .us ? terms : .cash
        marginDayClosed = nil
        marginCall = nil
        dayTrades = []
        corporateActionsThrough = nil
        self.gameRules = gameRules
        gameActivity = gameRules == nil ? nil : GameActivity()
    }

    enum CodingKeys: String, CodingKey {
        case id, market, currency, startingCash, cash, reservedCash, fees, positions, lastSequence, totalFees, terms
        case marginDayClosed, marginCall, dayTrades, corporateActionsThrough, gameRules, gameActivity
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(AccountID.self, forKey: .id)
        market = try c.decode(Market.self, forKey: .market)
        currency = try c.decode(Currency.self, forKey: .currency)
        startingCash = try c.decode(FixedDecimal.self, forKey: .startingCash)
        cash = try c.decode(FixedDecimal.self, forKey: .cash)
        reservedCash = try c.decode(FixedDecimal.self, forKey: .reservedCash)
        fees = try c.decode(FeeSchedule.self, forKey: .fees)
        positions = try c.decode([InstrumentID: Position].self, forKey: .positions)
        lastSequence = try c.decode(Int64.self, forKey: .lastSequence)
        totalFees = try c.decode(FixedDecimal.self, forKey: .totalFees)
        terms = try c.decodeIfPresent(MarginTerms.self, forKey: .terms) ?? .cash
        marginDayClosed = try c.decodeIfPresent(CivilDate.self, forKey: .marginDayClosed)
        marginCall = try c.decodeIfPresent(MarginCall.self, forKey: .marginCall)
        dayTrades = try c.decodeIfPresent([DayTrade].self, forKey: .dayTrades) ?? []
        corporateActionsThrough = try c.decodeIfPresent(CivilDate.self, forKey: .corporateActionsThrough)
        gameRules = try c.decodeIfPresent(GameRules.self, forKey: .gameRules)
        gameActivity = try c.decodeIfPresent(GameActivity.self, forKey: .gameActivity)
    }

    /// Cash free for withdrawals (and, on cash accounts, for new buy orders): borrowed money cannot be taken out.
    /// Orders on margin accounts spend `margin(marks:).buyingPower`.
    public var buyingPower: FixedDecimal { cash - reservedCash }

    /// Cash plus positions at the given marks (missing marks value at cost).
    public func equity(marks: (InstrumentID) -> Price?) -> FixedDecimal {
        positions.values.reduce(cash) { total, position in
            if let mark = marks(position.instrument) { return total + position.qty.multiplied(by: mark) }
            return total + position.costBasis
        }
    }
}
