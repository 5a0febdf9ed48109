/// An account's balances: the live state the ledger entries fold into.
///
/// A value with copy-on-write storage, as `Order` is: its fields sit in one heap block that copies share until one of
/// them changes. Accounts are read whole far more often than changed whole — placing an order copied its account
/// twice (validation, the fill's decision), ~520 bytes and a retain of each of its tables, ~4% of a backtest — and
/// the engine changes its accounts in place, where a block held once is changed where it is.
public struct Account: Sendable, Codable, Hashable, CustomReflectable {
    /// The stored fields, documented on the accessors below (written flat under `Account.CodingKeys`): what the
    /// account is, its money, its positions and the record of what it did that rules look back on.
    struct Fields: Sendable, Codable, Hashable {
        typealias CodingKeys = Account.CodingKeys
        var id: AccountID
        var market: Market
        var currency: Currency
        var fees: FeeSchedule
        var terms: MarginTerms
        var gameRules: GameRules?
        var money: Money
        var positions: [InstrumentID: Position]
        var record: Record
        /// Derived from `positions` (never written): see `Account.optionRequirements`.
        var optionRequirements: [String: SpreadRule.Requirement]
        /// Σ of `optionRequirements`' cash (derived with them): see `Account.optionCollateral`.
        var optionCollateral: FixedDecimal

        /// Cash in the account's currency and in others, what open orders hold of it, and the fees paid.
        struct Money: Sendable, Hashable {
            var startingCash: FixedDecimal
            var cash: FixedDecimal
            var reservedCash: FixedDecimal
            var totalFees: FixedDecimal
            var balances: [Currency: CurrencyBalance]
        }

        /// What the account did that its rules look back on: the ledger's last sequence, margin days and calls, day
        /// trades, corporate actions applied, a game's counts, crypto volume.
        struct Record: Sendable, Hashable {
            var lastSequence: Int64
            var marginDayClosed: CivilDate?
            var marginCall: MarginCall?
            var dayTrades: [DayTrade]
            var corporateActionsThrough: CivilDate?
            var gameActivity: GameActivity?
            var cryptoVolume: CryptoVolume
        }

        init(
            id: AccountID, market: Market, startingCash: FixedDecimal, fees: FeeSchedule, terms: MarginTerms,
            gameRules: GameRules?
        ) {
            self.id = id
            self.market = market
            currency = market.currency
            self.fees = fees
            self.terms = terms
            self.gameRules = gameRules
            money = Money(
                startingCash: startingCash, cash: startingCash, reservedCash: .zero, totalFees: .zero, balances: [:])
            positions = [:]
            record = Record(
                lastSequence: 0, marginDayClosed: nil, marginCall: nil, dayTrades: [], corporateActionsThrough: nil,
                gameActivity: gameRules == nil ? nil : GameActivity(), cryptoVolume: CryptoVolume())
            optionRequirements = [:]
            optionCollateral = .zero
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(AccountID.self, forKey: .id)
            market = try c.decode(Market.self, forKey: .market)
            currency = try c.decode(Currency.self, forKey: .currency)
            fees = try c.decode(FeeSchedule.self, forKey: .fees)
            terms = try c.decodeIfPresent(MarginTerms.self, forKey: .terms) ?? .cash
            gameRules = try c.decodeIfPresent(GameRules.self, forKey: .gameRules)
            money = Money(
                startingCash: try c.decode(FixedDecimal.self, forKey: .startingCash),
                cash: try c.decode(FixedDecimal.self, forKey: .cash),
                reservedCash: try c.decode(FixedDecimal.self, forKey: .reservedCash),
                totalFees: try c.decode(FixedDecimal.self, forKey: .totalFees),
                balances: try c.decodeIfPresent([Currency: CurrencyBalance].self, forKey: .balances) ?? [:])
            positions = try c.decode([InstrumentID: Position].self, forKey: .positions)
            record = Record(
                lastSequence: try c.decode(Int64.self, forKey: .lastSequence),
                marginDayClosed: try c.decodeIfPresent(CivilDate.self, forKey: .marginDayClosed),
                marginCall: try c.decodeIfPresent(MarginCall.self, forKey: .marginCall),
                dayTrades: try c.decodeIfPresent([DayTrade].self, forKey: .dayTrades) ?? [],
                corporateActionsThrough: try c.decodeIfPresent(CivilDate.self, forKey: .corporateActionsThrough),
                gameActivity: try c.decodeIfPresent(GameActivity.self, forKey: .gameActivity),
                cryptoVolume: try c.decodeIfPresent(CryptoVolume.self, forKey: .cryptoVolume) ?? CryptoVolume())
            optionRequirements = SpreadRule.requirements(of: positions.values)
            optionCollateral = optionRequirements.values.reduce(.zero) { $0 + $1.cash }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(market, forKey: .market)
            try c.encode(currency, forKey: .currency)
            try c.encode(fees, forKey: .fees)
            try c.encode(terms, forKey: .terms)
            try c.encodeIfPresent(gameRules, forKey: .gameRules)
            try c.encode(money.startingCash, forKey: .startingCash)
            try c.encode(money.cash, forKey: .cash)
            try c.encode(money.reservedCash, forKey: .reservedCash)
            try c.encode(money.totalFees, forKey: .totalFees)
            // (Written only when held: most accounts keep one currency.)
            if !money.balances.isEmpty { try c.encode(money.balances, forKey: .balances) }
            try c.encode(positions, forKey: .positions)
            try c.encode(record.lastSequence, forKey: .lastSequence)
            try c.encodeIfPresent(record.marginDayClosed, forKey: .marginDayClosed)
            try c.encodeIfPresent(record.marginCall, forKey: .marginCall)
            try c.encode(record.dayTrades, forKey: .dayTrades)
            try c.encodeIfPresent(record.corporateActionsThrough, forKey: .corporateActionsThrough)
            try c.encodeIfPresent(record.gameActivity, forKey: .gameActivity)
            try c.encode(record.cryptoVolume, forKey: .cryptoVolume)
        }
    }

    private var storage: CopyOnWrite<Fields>

    public var id: AccountID {
        get { storage.fields.id }
        _modify { yield &storage.fields.id }
    }
    public var market: Market {
        get { storage.fields.market }
        _modify { yield &storage.fields.market }
    }
    public var currency: Currency {
        get { storage.fields.currency }
        _modify { yield &storage.fields.currency }
    }
    public var startingCash: FixedDecimal {
        get { storage.fields.money.startingCash }
        _modify { yield &storage.fields.money.startingCash }
    }
    public var cash: FixedDecimal {
        get { storage.fields.money.cash }
        _modify { yield &storage.fields.money.cash }
    }
    /// Cash promised to open buy orders (and the fee cushion of open sells).
    public var reservedCash: FixedDecimal {
        get { storage.fields.money.reservedCash }
        _modify { yield &storage.fields.money.reservedCash }
    }
    public var fees: FeeSchedule {
        get { storage.fields.fees }
        _modify { yield &storage.fields.fees }
    }

    /// The schedule a trade in `instrument` pays in money as it fills: the account's, whose components (commission,
    /// SEC fee, FINRA TAF, stamp duty) are securities' — a crypto pair pays none of them, but its maker/taker fee
    /// (`fees.crypto`, by `cryptoVolume`), which the fill books in the asset it receives.
    public func fees(for instrument: Instrument) -> FeeSchedule {
        instrument.kind == .crypto ? .free : fees
    }
    /// The account's crypto trades by day over the last 30 days: what its crypto fee tier follows.
    public var cryptoVolume: CryptoVolume {
        get { storage.fields.record.cryptoVolume }
        _modify { yield &storage.fields.record.cryptoVolume }
    }
    /// Cash in currencies other than `currency`, bought on currency pairs (none in most accounts).
    public var balances: [Currency: CurrencyBalance] {
        get { storage.fields.money.balances }
        _modify { yield &storage.fields.money.balances }
    }
    public var positions: [InstrumentID: Position] {
        get { storage.fields.positions }
        _modify { yield &storage.fields.positions }
    }
    /// Sequence number of the last ledger entry.
    public var lastSequence: Int64 {
        get { storage.fields.record.lastSequence }
        _modify { yield &storage.fields.record.lastSequence }
    }
    /// Σ fees charged since the last reset.
    public var totalFees: FixedDecimal {
        get { storage.fields.money.totalFees }
        _modify { yield &storage.fields.money.totalFees }
    }
    /// Cash or margin account, and its leverage limit (accounts stored before margin existed are cash accounts).
    public var terms: MarginTerms {
        get { storage.fields.terms }
        _modify { yield &storage.fields.terms }
    }
    /// The last US close the account's margin day was closed for (interest charged, maintenance checked).
    public var marginDayClosed: CivilDate? {
        get { storage.fields.record.marginDayClosed }
        _modify { yield &storage.fields.record.marginDayClosed }
    }
    /// An open margin call: equity fell below maintenance margin at a close.
    public var marginCall: MarginCall? {
        get { storage.fields.record.marginCall }
        _modify { yield &storage.fields.record.marginCall }
    }
    /// Day trades of the last few weeks, oldest first (the pattern day trader rule counts the last five trading days).
    public var dayTrades: [DayTrade] {
        get { storage.fields.record.dayTrades }
        _modify { yield &storage.fields.record.dayTrades }
    }
    /// The last trading day whose corporate actions were applied to the account (nil: none tracked yet).
    public var corporateActionsThrough: CivilDate? {
        get { storage.fields.record.corporateActionsThrough }
        _modify { yield &storage.fields.record.corporateActionsThrough }
    }
    /// The rules of the game the account plays in, and what they count (nil outside games).
    public var gameRules: GameRules? {
        get { storage.fields.gameRules }
        _modify { yield &storage.fields.gameRules }
    }
    public var gameActivity: GameActivity? {
        get { storage.fields.record.gameActivity }
        _modify { yield &storage.fields.record.gameActivity }
    }

    /// What the contracts the account has written require, by underlying (Alpaca's universal spread rule,
    /// `SpreadRule`): the cash set aside (a cash-secured put's strike × its shares; a spread's largest loss) and the
    /// shares of the underlying that cover calls no long call covers. Derived from the positions (their OCC symbols
    /// name the contracts); the engine refreshes it when an option position changes.
    public var optionRequirements: [String: SpreadRule.Requirement] { storage.fields.optionRequirements }

    /// Cash set aside for the contracts the account has written, until they are bought back, expire or are
    /// assigned: Σ of `optionRequirements`' cash. Buying power leaves it out.
    public var optionCollateral: FixedDecimal { storage.fields.optionCollateral }

    /// Shares of `underlying` that written calls hold (they cannot be sold while the calls are open).
    public func sharesCoveringCalls(_ underlying: String) -> Quantity {
        storage.fields.optionRequirements[underlying]?.shares ?? .zero
    }

    /// Recomputes `optionRequirements` from the positions (after an option position changed).
    public mutating func refreshOptionRequirements() {
        let requirements = SpreadRule.requirements(of: positions.values)
        guard requirements != storage.fields.optionRequirements else { return }
        storage.fields.optionRequirements = requirements
        storage.fields.optionCollateral = requirements.values.reduce(.zero) { $0 + $1.cash }
    }

    /// Whether the long position in `contract` covers written contracts: without it they would require more.
    public func coversWrittenContracts(_ contract: OptionContract) -> Bool {
        guard let held = positions.values.first(where: { $0.symbol == contract.occSymbol }), held.qty.isPositive
        else { return false }
        let (before, after) = optionRequirementChange(contract, by: -held.qty)
        return after.cash > before.cash || after.shares > before.shares
    }

    /// What `underlying`'s written contracts would require if the position in `contract` changed by `qty` contracts
    /// (negative: sold), against what they require now. `longsCover: false` counts no long contract as cover (an
    /// account below options level 3).
    public func optionRequirementChange(_ contract: OptionContract, by qty: Quantity, longsCover: Bool = true)
        -> (before: SpreadRule.Requirement, after: SpreadRule.Requirement)
    {
        var legs: [SpreadRule.Leg] = []
        var found = false
        for position in positions.values where position.multiplier != nil && !position.qty.isZero {
            guard let held = position.optionContract, held.underlying == contract.underlying
            else { continue }
            legs.append(SpreadRule.Leg(held, qty: position.qty))
        }
        let before = SpreadRule.requirement(of: legs, longsCover: longsCover)
        for i in legs.indices where legs[i].contract == contract {
            legs[i].qty += qty
            found = true
        }
        if !found { legs.append(SpreadRule.Leg(contract, qty: qty)) }
        return (before, SpreadRule.requirement(of: legs, longsCover: longsCover))
    }

    /// Whether the account plays in a game. (Asked on every order and fill: `gameRules != nil` copied the ~200-byte
    /// rules to compare them with nil.)
    public var inGame: Bool { if case .none = storage.fields.gameRules { false } else { true } }

    public init(
        id: AccountID, market: Market, startingCash: FixedDecimal, fees: FeeSchedule? = nil, terms: MarginTerms = .cash,
        gameRules: GameRules? = nil
    ) {
        storage = CopyOnWrite(
            Fields(
                id: id, market: market, startingCash: startingCash, fees: fees ?? .default(for: market),
                terms: market == .us ? terms : .cash, gameRules: gameRules))
    }

    enum CodingKeys: String, CodingKey {
        case id, market, currency, startingCash, cash, reservedCash, fees, positions, lastSequence, totalFees, terms
        case marginDayClosed, marginCall, dayTrades, corporateActionsThrough, gameRules, gameActivity, cryptoVolume
        case balances
    }

    public init(from decoder: any Decoder) throws { storage = CopyOnWrite(try Fields(from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }
    public static func == (lhs: Account, rhs: Account) -> Bool {
        lhs.storage.shares(rhs.storage) || lhs.storage.fields == rhs.storage.fields
    }
    public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }
    /// Prints (in test failures, the debugger) as its fields.
    public var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: storage.fields).children, displayStyle: .struct)
    }

    /// Cash free for withdrawals (and, on cash accounts, for new buy orders): borrowed money cannot be taken out.
    /// Orders on margin accounts spend `margin(marks:).buyingPower`.
    public var buyingPower: FixedDecimal { cash - reservedCash - optionCollateral }

    /// Cash (in every currency) plus positions at the given marks (missing marks value at cost).
    public func equity(marks: (InstrumentID) -> Price?) -> FixedDecimal {
        let cash = balances.isEmpty ? cash : cash + foreignCashValue(marks: marks)
        return positions.values.reduce(cash) { total, position in
            if let mark = marks(position.instrument) { return total + position.value(at: mark) }
            return total + position.costBasis
        }
    }
}
