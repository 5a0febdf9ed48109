/// A holding of one instrument in one account: long (positive quantity) or, on margin accounts, short (negative).
public struct Position: Sendable, Codable, Hashable {
    public var instrument: InstrumentID
    public var symbol: String
    /// Shares held; negative for a short position.
    public var qty: Quantity
    /// Σ price × qty of the shares still held, exact, signed as the quantity (a short's is minus what it was sold
    /// for): the average entry price derives from it.
    public var costBasis: FixedDecimal
    /// Gains and losses closed out by sells, net of every fee paid on this instrument.
    public var realizedPnL: FixedDecimal
    /// Shares bought on `lockedDate` that T+1 makes unsellable until the next trading day.
    public var lockedQty: Quantity
    public var lockedDate: CivilDate?
    /// Shares promised to open sell orders.
    public var reservedForSale: Quantity
    /// Shares of this position opened on a trading day (bought for a long, sold short for a short): closing them the
    /// same day is a day trade. Nil once a day has passed (positions stored before day trades were counted have none).
    public var openedToday: OpenedToday?
    /// When shares were last bought, kept for game accounts (a game's quick-sell delay counts from it).
    public var lastBoughtAt: Timestamp?
    /// Shares one unit of `qty` stands for, when not 1: an option position's contract multiplier (100). Values (cost
    /// basis, market value, P&L) are price × qty × multiplier; prices (the average entry) stay per share.
    public var multiplier: Int?
    /// An option position its owner asked not to exercise (Alpaca's do-not-exercise): at expiry it expires worthless
    /// even in the money. Nil (or false) for every other position.
    public var doNotExercise: Bool?
    /// Shares one contract delivers when that is not its multiplier: a position in an adjusted contract (after a
    /// split that is not a whole number). Nil for every other position.
    public var deliverable: Int?

    public struct OpenedToday: Sendable, Codable, Hashable {
        public var date: CivilDate
        public var qty: Quantity
    }

    public init(instrument: InstrumentID, symbol: String, multiplier: Int? = nil) {
        self.instrument = instrument
        self.symbol = symbol
        self.multiplier = multiplier == 1 ? nil : multiplier
        qty = .zero
        costBasis = .zero
        realizedPnL = .zero
        lockedQty = .zero
        lockedDate = nil
        reservedForSale = .zero
    }

    /// The contract an option position is in, with its deliverable (nil for shares).
    public var optionContract: OptionContract? {
        guard multiplier != nil, let parsed = OptionContract(occSymbol: symbol) else { return nil }
        guard let deliverable, deliverable != parsed.multiplier else { return parsed }
        return parsed.adjusted(root: parsed.root, deliverable: deliverable)
    }

    /// `multiplier` as a decimal (1 for shares).
    public var valueMultiplier: Quantity { multiplier.map { FixedDecimal($0) } ?? .one }

    /// Average entry price per share, half-even to 9 places; zero when flat.
    public var averageEntryPrice: Price {
        guard !qty.isZero else { return .zero }
        guard let multiplier else { return costBasis.divided(by: qty, rule: .halfEven) ?? .zero }
        return costBasis.divided(by: qty.times(multiplier), rule: .halfEven) ?? .zero
    }

    /// What the position is worth at `price` a share, exact and signed as the quantity.
    public func value(at price: Price) -> FixedDecimal {
        guard let multiplier else { return qty.multiplied(by: price) }
        return qty.times(multiplier).multiplied(by: price)
    }

    public var isShort: Bool { qty.isNegative }

    /// Shares opened on `date` that are still held: closing any of them that day is a day trade.
    public func openedQty(on date: CivilDate) -> Quantity {
        guard let openedToday, openedToday.date == date else { return .zero }
        return Swift.min(openedToday.qty, qty.magnitude)
    }

    /// Shares that settlement allows selling on `tradingDate` (T+1 locks today's buys).
    public func sellableQty(on tradingDate: CivilDate) -> Quantity {
        lockedDate == tradingDate ? qty - lockedQty : qty
    }

    /// Shares that can still go into a new sell order.
    public func availableToSell(on tradingDate: CivilDate) -> Quantity {
        sellableQty(on: tradingDate) - reservedForSale
    }

    /// Valuation at a mark price: market value, unrealized P&L (vs. cost) and intraday P&L (vs. the
    /// previous close, as Alpaca's unrealized_intraday_pl).
    public func valuation(at mark: Price, previousClose: Price?) -> PositionValuation {
        let marketValue = value(at: mark)
        let unrealized = marketValue - costBasis
        let dayChange = previousClose.map { value(at: mark - $0) } ?? .zero
        let unrealizedPercent =
            costBasis.isZero
            ? FixedDecimal.zero
            : (unrealized.divided(by: costBasis.magnitude, places: 6, rule: .halfEven) ?? .zero)
        return PositionValuation(
            marketValue: marketValue, unrealizedPnL: unrealized,
            unrealizedPnLPercent: unrealizedPercent, dayChange: dayChange)
    }
}

/// What a position is worth at a mark price.
public struct PositionValuation: Sendable, Hashable {
    public var marketValue: FixedDecimal
    public var unrealizedPnL: FixedDecimal
    /// As a fraction (0.05 = +5%), 6 places.
    public var unrealizedPnLPercent: FixedDecimal
    public var dayChange: FixedDecimal
}
