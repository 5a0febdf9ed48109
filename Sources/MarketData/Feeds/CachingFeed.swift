import Synchronization
import TradingCore

/// Wraps a real provider: quotes are reused for a short TTL and profiles for days; when the provider fails,
/// the caller gets `FeedError.unavailable` carrying the last good quote and its age — stale data is labelled,
/// never passed off as fresh. Unknown symbols and unsupported features pass straight through.
public final class CachingFeed: MarketDataFeed {
    public let inner: any MarketDataFeed
    public let clock: MarketClock
    public let quoteTTL: Int64
    public let profileTTL: Int64
    private let quotes = Mutex<[String: (quote: MarketQuote, fetchedAt: Timestamp)]>([:])
    private let profiles = Mutex<[String: (profile: CompanyProfile, fetchedAt: Timestamp)]>([:])

    public func shareRateLimits(among nodes: Int) { inner.shareRateLimits(among: nodes) }

    public init(_ inner: any MarketDataFeed, clock: MarketClock, quoteTTLSeconds: Int64 = 5, profileTTLDays: Int64 = 10)
    {
        self.inner = inner
        self.clock = clock
        quoteTTL = quoteTTLSeconds * Duration64.second
        profileTTL = profileTTLDays * Duration64.day
    }

    public var name: String { inner.name }
    public var attributionURL: String? { inner.attributionURL }
    public var isSimulated: Bool { inner.isSimulated }

    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        let now = clock.now()
        let cached = quotes.withLock { $0[symbol] }
        if let cached, now.nanoseconds - cached.fetchedAt.nanoseconds < quoteTTL { return cached.quote }
        do {
            let fresh = try await inner.quote(symbol)
            quotes.withLock { $0[symbol] = (fresh, now) }
            return fresh
        } catch {
            switch error {
            case .unknownSymbol, .unsupported, .missingCredentials: throw error
            default:
                let age = cached.map { Int((now.nanoseconds - $0.quote.time.nanoseconds) / Duration64.second) }
                throw .unavailable(
                    provider: inner.name, reason: error.description, lastKnown: cached?.quote, ageSeconds: age)
            }
        }
    }

    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        try await inner.bars(symbol, timeframe: timeframe, from: from, to: to)
    }

    public func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult] {
        try await inner.search(text, market: market, limit: limit)
    }

    public func indices() async throws(FeedError) -> [IndexQuote] { try await inner.indices() }

    public func indexBars(_ index: MarketIndex, timeframe: BarTimeframe, from: Timestamp, to: Timestamp)
        async throws(FeedError) -> [PriceBar]
    {
        try await inner.indexBars(index, timeframe: timeframe, from: from, to: to)
    }

    public func movers(_ market: Market, kind: MoverKind, limit: Int) async throws(FeedError) -> [Mover] {
        try await inner.movers(market, kind: kind, limit: limit)
    }

    public func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile {
        let now = clock.now()
        if let cached = profiles.withLock({ $0[symbol] }), now.nanoseconds - cached.fetchedAt.nanoseconds < profileTTL {
            return cached.profile
        }
        let fresh = try await inner.profile(symbol)
        profiles.withLock { $0[symbol] = (fresh, now) }
        return fresh
    }

    public func news(_ symbol: String, from: CivilDate, to: CivilDate) async throws(FeedError) -> [NewsItem] {
        try await inner.news(symbol, from: from, to: to)
    }
    public func recommendations(_ symbol: String) async throws(FeedError) -> [RecommendationTrend] {
        try await inner.recommendations(symbol)
    }
    public func earnings(_ symbol: String) async throws(FeedError) -> [EarningsSurprise] {
        try await inner.earnings(symbol)
    }
    public func earningsCalendar(from: CivilDate, through: CivilDate, symbols: [String]?) async throws(FeedError)
        -> [EarningsReport]
    {
        try await inner.earningsCalendar(from: from, through: through, symbols: symbols)
    }
    public func halts(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError) -> [TradingHalt] {
        try await inner.halts(symbol, from: from, through: through)
    }
    public func peers(_ symbol: String) async throws(FeedError) -> [String] { try await inner.peers(symbol) }
    public func trades(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TradeTick]
    {
        try await inner.trades(symbol, from: from, to: to, limit: limit, descending: descending)
    }
    public func quotes(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TopOfBook]
    {
        try await inner.quotes(symbol, from: from, to: to, limit: limit, descending: descending)
    }
    public func auctions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError)
        -> [DailyAuctions]
    {
        try await inner.auctions(symbol, from: from, through: through)
    }
    public func corporateActions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError)
        -> [CorporateAction]
    {
        try await inner.corporateActions(symbol, from: from, through: through)
    }
}
