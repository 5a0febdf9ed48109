import MarketData
import TradingCore

/// The market as every surface reads it: the clock, the symbol directory, the feed, the listed options, and the
/// quote and instrument an order on a symbol trades against. Read-only; what it answers is shared by every shard.
public struct MarketView: Sendable {
    public let clock: MarketClock
    public let directory: SymbolDirectory
    public let feed: any MarketDataFeed
    /// Listed options of the US underlyings, priced off the feed.
    public let options: OptionMarket
    let market: SharedMarket

    init(_ market: SharedMarket) {
        self.market = market
        clock = market.clock
        directory = market.directory
        feed = market.feed
        options = market.options
    }

    /// The quote orders on `symbol` trade against: a stock's from the feed, an option contract's from its chain.
    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        try await market.quote(symbol, reuse: true)
    }

    /// The instrument a symbol names: a directory entry, or an option contract of an optionable underlying.
    public func instrument(_ symbol: String) -> Instrument? { market.instrument(symbol) }
}
