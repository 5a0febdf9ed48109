/// The engine's view of one instrument: last market state and the orders working on it, with thresholds that
/// let a market event that cannot touch any order return after a few comparisons.
struct InstrumentBook: Sendable {
    var quote: Quote? {
        didSet {
            bidPrice = quote?.bids.best?.price
            askPrice = quote?.asks.best?.price
            quoteDayVolume = quote?.dayVolume
        }
    }
    /// The quote's best prices and day volume, kept beside it: orders read them, and reading them through `quote`
    /// (an optional chain into the array's element) copied the whole book each time — five times per placement.
    private(set) var bidPrice: Price?
    private(set) var askPrice: Price?
    private(set) var quoteDayVolume: Quantity?
    var quoteTime: Timestamp = .distantPast
    var lastTrade: Price?
    var previousClose: Price?
    var band: PriceBand?
    var bandDate: CivilDate?

    /// Working orders (held bracket legs are not here until their entry fills), as compact entries so that
    /// thresholds and priority never need the full orders. In no particular order: matching sorts its candidates by
    /// priority, so an order leaves by swapping the last entry into its place (`remove(at:)`; the engine keeps where
    /// each order is, `TradingEngine.bookPositions`) — O(1) where removing from the middle of an ordered array moved
    /// every later entry and rescanned the thresholds: cancelling 100,000 resting orders on one symbol took 15 s
    /// (now 0.4 s: `TradingCoreBench`).
    private(set) var resting: [RestingOrder] = []
    /// Set when an order that may have set a threshold left: the thresholds are then wider than they need be (a
    /// market event may be looked at for nothing, never missed) until `match` recomputes them.
    private(set) var thresholdsMayBeWide = false

    // Thresholds over `resting`: widened when an order arrives, recomputed by `refreshThresholds`.
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

    mutating func resetThresholds() {
        bestBuy = Self.minusInfinity
        bestSell = Self.plusInfinity
        lowestBuyStop = Self.plusInfinity
        highestSellStop = Self.minusInfinity
        hasTrailingStops = false
        hasAuctionOrders = false
    }

    /// Widens the thresholds to cover one working order.
    mutating func include(_ order: RestingOrder) {
        if order.isAuction {
            hasAuctionOrders = true
            return
        }
        if order.needsTrigger {
            if order.isTrailing { hasTrailingStops = true }
            if let stop = order.stop {
                if order.side == .buy {
                    lowestBuyStop = min(lowestBuyStop, stop)
                } else {
                    highestSellStop = max(highestSellStop, stop)
                }
            }
            return
        }
        if order.side == .buy {
            bestBuy = max(bestBuy, order.limit ?? Self.plusInfinity)
        } else {
            bestSell = min(bestSell, order.limit ?? Self.minusInfinity)
        }
    }

    mutating func refreshThresholds() {
        resetThresholds()
        for i in resting.indices { include(resting[i]) }
        thresholdsMayBeWide = false
    }

    /// Adds a working order at the end and widens the thresholds to cover it.
    mutating func append(_ entry: RestingOrder) {
        resting.append(entry)
        include(entry) // thresholds only widen when an order arrives
    }

    /// Puts an order's new state (e.g. triggered) in its place; the caller refreshes the thresholds.
    mutating func replace(at index: Int, with entry: RestingOrder) {
        resting[index] = entry
    }

    /// Takes entry `index` off by moving the last entry into its place; returns the id of the entry that moved.
    /// The thresholds are left as they are: at worst wider than needed (see `thresholdsMayBeWide`), so a removal
    /// never scans the book.
    mutating func remove(at index: Int) -> OrderID? {
        let last = resting.removeLast()
        var moved: OrderID?
        if index < resting.count {
            resting[index] = last
            moved = last.id
        }
        if resting.isEmpty {
            resetThresholds()
            thresholdsMayBeWide = false
        } else {
            thresholdsMayBeWide = true
        }
        return moved
    }

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

/// What the book needs to know about a working order: side, prices, trigger state and time priority.
struct RestingOrder: Sendable {
    var id: OrderID
    var side: OrderSide
    /// The price it trades at once live; nil = market.
    var limit: Price?
    /// Untriggered stop price.
    var stop: Price?
    var needsTrigger: Bool
    var isTrailing: Bool
    var isAuction: Bool
    var submittedAt: Timestamp

    init(_ order: Order) {
        id = order.id
        side = order.side
        limit = order.workingLimit
        stop = order.stopPrice
        needsTrigger = order.needsTrigger
        isTrailing = order.type == .trailingStop
        isAuction = order.timeInForce == .opg || order.timeInForce == .cls
        submittedAt = order.submittedAt
    }

    /// Market (or triggered stop) first, then the better limit, then the earlier submission.
    func hasPriority(over other: RestingOrder) -> Bool {
        if limit != other.limit {
            switch (limit, other.limit) {
            case (nil, _): return true
            case (_, nil): return false
            case (let a?, let b?): return side == .buy ? a > b : a < b
            }
        }
        return (submittedAt, id) < (other.submittedAt, other.id)
    }
}
