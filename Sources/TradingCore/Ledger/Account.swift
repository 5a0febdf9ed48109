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

    public init(id: AccountID, market: Market, startingCash: FixedDecimal, fees: FeeSchedule? = nil) {
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
    }

    /// Cash free for new buy orders: cash accounts never borrow.
    public var buyingPower: FixedDecimal { cash - reservedCash }

    /// Cash plus positions at the given marks (missing marks value at cost).
    public func equity(marks: (InstrumentID) -> Price?) -> FixedDecimal {
        positions.values.reduce(cash) { total, position in
            if let mark = marks(position.instrument) { return total + position.qty.multiplied(by: mark) }
            return total + position.costBasis
        }
    }
}
