/// The engine's view of one instrument: last market state and the orders working on it, with thresholds that
/// let a market event that cannot touch any order return after a few comparisons.
struct InstrumentBook: Sendable {
    var quote: Quote?
    var quoteTime: Timestamp = .distantPast
    var lastTrade: Price?
    var previousClose: Price?
    var band: PriceBand?
    var bandDate: CivilDate?

    /// Working orders (held bracket legs are not here until their entry fills).
    var resting: [OrderID] = []

    // Thresholds over `resting`, recomputed when it changes.
    /// Highest limit of a buy that is live (or +∞ if any live buy is a market order).
    var bestBuy: Price = Self.minusInfinity
    /// Lowest limit of a sell that is live (−∞ if any live sell is a market order).
    var bestSell: Price = Self.plusInfinity
    /// Lowest untriggered buy stop; highest untriggered sell stop.
    var lowestBuyStop: Price = Self.plusInfinity
    var highestSellStop: Price = Self.minusInfinity
    var hasTrailingStops = false
    var hasAuctionOrders = false

    static let plusInfinity = FixedDecimal(raw: .max)
    static let minusInfinity = FixedDecimal(raw: .min)

    /// Whether a quote could fill or trigger anything here.
    @inline(__always)
    func quoteMayAct(_ q: Quote) -> Bool {
        if hasTrailingStops { return true }
        if let ask = q.asks.best?.price, ask <= bestBuy || ask >= lowestBuyStop { return true }
        if let bid = q.bids.best?.price, bid >= bestSell || bid <= highestSellStop { return true }
        return false
    }

    /// Whether a trade price could fill or trigger anything here.
    @inline(__always)
    func tradeMayAct(_ price: Price) -> Bool {
        hasTrailingStops || price <= bestBuy || price >= bestSell || price >= lowestBuyStop || price <= highestSellStop
    }
}
