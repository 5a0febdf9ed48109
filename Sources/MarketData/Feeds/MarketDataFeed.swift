import TradingCore

/// Where prices come from, behind one protocol: the simulated market (the default) or a real provider.
public protocol MarketDataFeed: Sendable {
    /// Shown at the bottom of the app ("Data: Simulated market", or the provider, linked).
    var name: String { get }
    var attributionURL: String? { get }
    /// The built-in simulated market (the app names it in the user's language; a provider's name is its own).
    var isSimulated: Bool { get }

    func quote(_ symbol: String) async throws(FeedError) -> MarketQuote
    func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult]
    func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile
    func news(_ symbol: String, from: CivilDate, to: CivilDate) async throws(FeedError) -> [NewsItem]
    func recommendations(_ symbol: String) async throws(FeedError) -> [RecommendationTrend]
    func earnings(_ symbol: String) async throws(FeedError) -> [EarningsSurprise]
    /// Scheduled earnings reports dated `from` through `through`, by date then symbol: of `symbols`, or of every
    /// company the feed covers when nil.
    func earningsCalendar(from: CivilDate, through: CivilDate, symbols: [String]?) async throws(FeedError)
        -> [EarningsReport]
    /// A symbol's trading halts in its sessions `from` through `through` that have started by now, oldest first.
    func halts(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError) -> [TradingHalt]
    func peers(_ symbol: String) async throws(FeedError) -> [String]
    /// The market overview's indices (SSE Composite, SZSE Component, NASDAQ, Dow Jones, S&P 500) the feed covers.
    func indices() async throws(FeedError) -> [IndexQuote]
    /// A market's top gainers, losers or most active stocks.
    func movers(_ market: Market, kind: MoverKind, limit: Int) async throws(FeedError) -> [Mover]
    /// Prints in [from, to), oldest first (newest first when `descending`), at most `limit`. Times are unique per
    /// symbol, so a page can continue after the last one it gave.
    func trades(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TradeTick]
    /// Best bid and offer updates in [from, to), ordered and limited as `trades`.
    func quotes(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TopOfBook]
    /// Opening and closing auctions of the trading days from `from` through `to`, oldest first.
    func auctions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError) -> [DailyAuctions]
    /// An index's bars (performance benchmarks). Providers whose chart API takes the index's symbol need not
    /// implement it: the default asks `bars` for `index.rawValue` (^GSPC, sh000001).
    func indexBars(_ index: MarketIndex, timeframe: BarTimeframe, from: Timestamp, to: Timestamp)
        async throws(FeedError) -> [PriceBar]
    /// Dividends, splits and stock dividends with ex-dates from `from` through `through`, by ex-date, as announced
    /// by then. Providers without corporate actions have none.
    func corporateActions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError)
        -> [CorporateAction]
    /// On a cluster of `nodes` nodes, holds this process to its share of the provider's rate limits (each limit ÷
    /// nodes), so the whole cluster stays within them; a cluster node sets it on every pass as nodes come and go.
    func shareRateLimits(among nodes: Int)
    /// The quotes of several symbols now, by symbol; those the feed could not quote are left out. A stream's round
    /// asks this: the simulated market computes the lot in one go on the compute lane.
    func latestQuotes(_ symbols: [String]) async -> [String: MarketQuote]
}

extension MarketDataFeed {
    /// The 52-week high and low: the daily bars of the year to `now` and today's session so far (the quote's high,
    /// low and last — today's daily bar may not be out yet, and a range must hold the price it is shown beside).
    /// Nil when the feed has neither.
    public func yearRange(_ symbol: String, now: Timestamp) async -> (high: Price, low: Price)? {
        let bars = (try? await bars(symbol, timeframe: .day, from: now.adding(seconds: -365 * 86_400), to: now)) ?? []
        var highs = bars.map(\.high)
        var lows = bars.map(\.low)
        if let quote = try? await quote(symbol) {
            highs += [quote.high, quote.last].compactMap { $0 }
            lows += [quote.low, quote.last].compactMap { $0 }
        }
        guard let high = highs.max(), let low = lows.min() else { return nil }
        return (high, low)
    }

    /// A feed without rate limits of its own (the simulated market) has nothing to share.
    public func shareRateLimits(among nodes: Int) {}
    /// One `quote` after another.
    public func latestQuotes(_ symbols: [String]) async -> [String: MarketQuote] {
        var quotes: [String: MarketQuote] = [:]
        for symbol in symbols { quotes[symbol] = try? await quote(symbol) }
        return quotes
    }
    public func indexBars(_ index: MarketIndex, timeframe: BarTimeframe, from: Timestamp, to: Timestamp)
        async throws(FeedError) -> [PriceBar]
    {
        try await bars(index.rawValue, timeframe: timeframe, from: from, to: to)
    }
    public var attributionURL: String? { nil }
    public var isSimulated: Bool { false }
    public func news(_ symbol: String, from: CivilDate, to: CivilDate) async throws(FeedError) -> [NewsItem] {
        throw .unsupported(provider: name, feature: "news")
    }
    public func recommendations(_ symbol: String) async throws(FeedError) -> [RecommendationTrend] {
        throw .unsupported(provider: name, feature: "recommendation trends")
    }
    public func earnings(_ symbol: String) async throws(FeedError) -> [EarningsSurprise] {
        throw .unsupported(provider: name, feature: "earnings surprises")
    }
    public func earningsCalendar(from: CivilDate, through: CivilDate, symbols: [String]?) async throws(FeedError)
        -> [EarningsReport]
    {
        throw .unsupported(provider: name, feature: "the earnings calendar")
    }
    public func halts(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError) -> [TradingHalt] {
        throw .unsupported(provider: name, feature: "trading halts")
    }
    public func peers(_ symbol: String) async throws(FeedError) -> [String] {
        throw .unsupported(provider: name, feature: "peers")
    }
    public func indices() async throws(FeedError) -> [IndexQuote] {
        throw .unsupported(provider: name, feature: "index quotes")
    }
    public func movers(_ market: Market, kind: MoverKind, limit: Int) async throws(FeedError) -> [Mover] {
        throw .unsupported(provider: name, feature: "market movers")
    }
    public func trades(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TradeTick]
    {
        throw .unsupported(provider: name, feature: "historical trades")
    }
    public func quotes(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TopOfBook]
    {
        throw .unsupported(provider: name, feature: "historical quotes")
    }
    public func auctions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError)
        -> [DailyAuctions]
    {
        throw .unsupported(provider: name, feature: "auctions")
    }
    public func corporateActions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError)
        -> [CorporateAction]
    {
        []
    }
}

/// The simulated market as a feed: works offline, on the configured clock.
public struct SimulatedFeed: MarketDataFeed {
    public let market: SimulatedMarket
    public let clock: MarketClock
    public var name: String { "Simulated market" }
    public var isSimulated: Bool { true }

    public init(market: SimulatedMarket, clock: MarketClock) {
        self.market = market
        self.clock = clock
    }

    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        guard let q = market.quote(symbol, at: clock.now()) else { throw .unknownSymbol(symbol) }
        return q
    }

    /// All at one instant, on the compute lane: a round of a stream following a thousand symbols takes the lane's
    /// time, not the request threads'.
    public func latestQuotes(_ symbols: [String]) async -> [String: MarketQuote] {
        let (market, now) = (market, clock.now())
        return await ComputeLane.run {
            var quotes: [String: MarketQuote] = [:]
            for symbol in symbols { quotes[symbol] = market.quote(symbol, at: now) }
            return quotes
        }
    }

    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        guard market.directory.entry(symbol) != nil else { throw .unknownSymbol(symbol) }
        let (market, to) = (market, min(to, clock.now()))
        return await ComputeLane.run { market.bars(symbol, timeframe: timeframe, from: from, to: to) }
    }

    public func indexBars(_ index: MarketIndex, timeframe: BarTimeframe, from: Timestamp, to: Timestamp)
        async throws(FeedError) -> [PriceBar]
    {
        let (market, to) = (market, min(to, clock.now()))
        return await ComputeLane.run { market.indexBars(index, timeframe: timeframe, from: from, to: to) }
    }
    public func earningsCalendar(from: CivilDate, through: CivilDate, symbols: [String]?) async throws(FeedError)
        -> [EarningsReport]
    {
        let market = market
        return await ComputeLane.run { market.earnings(from: from, through: through, symbols: symbols) }
    }
    public func halts(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError) -> [TradingHalt] {
        guard market.directory.entry(symbol) != nil else { throw .unknownSymbol(symbol) }
        let now = clock.now()
        return market.halts(symbol, from: from, through: through).filter { $0.start <= now }
    }
    public func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult] {
        self.market.directory.search(text, market: market, limit: limit)
    }

    public func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile {
        guard let entry = market.directory.entry(symbol) else { throw .unknownSymbol(symbol) }
        let i = entry.instrument
        return CompanyProfile(
            symbol: i.symbol, name: i.name, exchange: i.exchange.rawValue,
            industry: entry.industry.isEmpty ? nil : entry.industry,
            country: i.market == .us ? "US" : "CN", currency: i.currency.rawValue,
            ipoDate: i.listingDate, website: nil, logo: nil,
            marketCapitalizationMillions: nil, sharesOutstandingMillions: nil)
    }

    public func indices() async throws(FeedError) -> [IndexQuote] {
        let (market, now) = (market, clock.now())
        return await ComputeLane.run { market.overview(at: now) }
    }

    public func trades(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TradeTick]
    {
        guard market.directory.entry(symbol) != nil else { throw .unknownSymbol(symbol) }
        let (market, to) = (market, min(to, clock.now()))
        return await ComputeLane.run {
            market.trades(symbol, from: from, to: to, limit: limit, descending: descending)
        }
    }

    public func quotes(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TopOfBook]
    {
        guard market.directory.entry(symbol) != nil else { throw .unknownSymbol(symbol) }
        let (market, to) = (market, min(to, clock.now()))
        return await ComputeLane.run {
            market.quotes(symbol, from: from, to: to, limit: limit, descending: descending)
        }
    }

    public func auctions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError)
        -> [DailyAuctions]
    {
        guard market.directory.entry(symbol) != nil else { throw .unknownSymbol(symbol) }
        let (market, now) = (market, clock.now())
        return await ComputeLane.run { market.auctions(symbol, from: from, through: through, before: now) }
    }

    /// The simulated market's news: its corporate actions' announcements, once made.
    public func news(_ symbol: String, from: CivilDate, to: CivilDate) async throws(FeedError) -> [NewsItem] {
        guard let entry = market.directory.entry(symbol) else { throw .unknownSymbol(symbol) }
        let now = clock.now()
        let today = entry.instrument.calendar.zone.localTime(of: now).date
        return market.news(symbol, from: from, through: min(to, today)).filter { $0.time <= now }
    }

    /// The simulated market's actions, each once it is declared (future ex-dates included once announced).
    public func corporateActions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError)
        -> [CorporateAction]
    {
        guard let entry = market.directory.entry(symbol) else { throw .unknownSymbol(symbol) }
        let today = entry.instrument.calendar.zone.localTime(of: clock.now()).date
        return market.corporateActions(symbol, from: from, through: through).filter { $0.declarationDate <= today }
    }

    public func movers(_ market: Market, kind: MoverKind, limit: Int) async throws(FeedError) -> [Mover] {
        let (simulated, now) = (self.market, clock.now())
        return await ComputeLane.run { simulated.movers(market, kind: kind, at: now, limit: limit) }
    }

    /// Companies of the same GICS sub-industry (known for S&P 500 members).
    public func peers(_ symbol: String) async throws(FeedError) -> [String] {
        guard let entry = market.directory.entry(symbol) else { throw .unknownSymbol(symbol) }
        guard !entry.industry.isEmpty else { return [] }
        return market.directory.entries.filter { $0.industry == entry.industry && $0.symbol != symbol }.prefix(8).map(
            \.symbol)
    }
}

/// Sends each symbol to the feed of its market (e.g. Sina for A-shares, Finnhub for US stocks), a crypto pair to the
/// crypto feed (Alpaca's crypto data; the US feed's when none is given) and a currency pair to the forex feed (Yahoo's
/// rates or the simulated market's; the US feed's when none is given).
public struct MarketRoutedFeed: MarketDataFeed {
    public let us: any MarketDataFeed
    public let cn: any MarketDataFeed
    public let crypto: any MarketDataFeed
    public let forex: any MarketDataFeed
    public let directory: SymbolDirectory

    public init(
        us: any MarketDataFeed, cn: any MarketDataFeed, crypto: (any MarketDataFeed)? = nil,
        forex: (any MarketDataFeed)? = nil, directory: SymbolDirectory
    ) {
        self.us = us
        self.cn = cn
        self.crypto = crypto ?? us
        self.forex = forex ?? us
        self.directory = directory
    }

    public var name: String {
        var name = us.name == cn.name ? us.name : "\(us.name) (US), \(cn.name) (A-shares)"
        if crypto.name != us.name { name += ", \(crypto.name) (crypto)" }
        if forex.name != us.name { name += ", \(forex.name) (currencies)" }
        return name
    }
    public var attributionURL: String? { us.attributionURL ?? cn.attributionURL }
    public var isSimulated: Bool { us.isSimulated && cn.isSimulated }

    func feed(_ symbol: String) -> any MarketDataFeed {
        if isChinese(symbol) { return cn }
        switch directory.entry(symbol)?.instrument.kind {
        case .crypto?: return crypto
        case .forex?: return forex
        default: return us
        }
    }

    public func shareRateLimits(among nodes: Int) {
        us.shareRateLimits(among: nodes)
        cn.shareRateLimits(among: nodes)
        if crypto.name != us.name { crypto.shareRateLimits(among: nodes) }
        if forex.name != us.name { forex.shareRateLimits(among: nodes) }
    }

    func isForex(_ symbol: String) -> Bool { directory.entry(symbol)?.instrument.kind == .forex }

    func isCrypto(_ symbol: String) -> Bool { directory.entry(symbol)?.instrument.kind == .crypto }

    func isChinese(_ symbol: String) -> Bool {
        directory.entry(symbol)?.instrument.market == .cn || (symbol.count == 6 && symbol.allSatisfy(\.isNumber))
    }

    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote { try await feed(symbol).quote(symbol) }
    public func latestQuotes(_ symbols: [String]) async -> [String: MarketQuote] {
        let chinese = symbols.filter(isChinese)
        let pairs = symbols.filter { !isChinese($0) && isCrypto($0) }
        let currencies = symbols.filter { !isChinese($0) && isForex($0) }
        let us = symbols.filter { !isChinese($0) && !isCrypto($0) && !isForex($0) }
        return await self.us.latestQuotes(us).merging(await cn.latestQuotes(chinese)) { a, _ in a }.merging(
            await crypto.latestQuotes(pairs)
        ) { a, _ in a }.merging(await forex.latestQuotes(currencies)) { a, _ in a }
    }
    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        try await feed(symbol).bars(symbol, timeframe: timeframe, from: from, to: to)
    }
    public func indexBars(_ index: MarketIndex, timeframe: BarTimeframe, from: Timestamp, to: Timestamp)
        async throws(FeedError) -> [PriceBar]
    {
        try await (index.market == .cn ? cn : us).indexBars(index, timeframe: timeframe, from: from, to: to)
    }
    public func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult] {
        // The directory answers searches for both markets: it is local and ranks Chinese names too.
        directory.search(text, market: market, limit: limit)
    }
    public func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile {
        try await feed(symbol).profile(symbol)
    }
    public func news(_ symbol: String, from: CivilDate, to: CivilDate) async throws(FeedError) -> [NewsItem] {
        try await feed(symbol).news(symbol, from: from, to: to)
    }
    public func recommendations(_ symbol: String) async throws(FeedError) -> [RecommendationTrend] {
        try await feed(symbol).recommendations(symbol)
    }
    public func earnings(_ symbol: String) async throws(FeedError) -> [EarningsSurprise] {
        try await feed(symbol).earnings(symbol)
    }
    public func halts(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError) -> [TradingHalt] {
        try await feed(symbol).halts(symbol, from: from, through: through)
    }
    /// Each market's reports from its own feed; a market whose feed has no calendar leaves the other's (both
    /// failing throws the US feed's error).
    public func earningsCalendar(from: CivilDate, through: CivilDate, symbols: [String]?) async throws(FeedError)
        -> [EarningsReport]
    {
        var reports: [EarningsReport] = []
        var failure: FeedError?
        for (feed, chinese) in [(us, false), (cn, true)] {
            let mine = symbols?.filter { isChinese($0) == chinese }
            if let mine, mine.isEmpty { continue }
            do {
                reports += try await feed.earningsCalendar(from: from, through: through, symbols: mine).filter {
                    isChinese($0.symbol) == chinese
                }
            } catch {
                failure = failure ?? error
            }
        }
        if reports.isEmpty, let failure { throw failure }
        return reports.sorted { ($0.date, $0.symbol) < ($1.date, $1.symbol) }
    }
    public func peers(_ symbol: String) async throws(FeedError) -> [String] { try await feed(symbol).peers(symbol) }
    public func trades(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TradeTick]
    {
        try await feed(symbol).trades(symbol, from: from, to: to, limit: limit, descending: descending)
    }
    public func quotes(_ symbol: String, from: Timestamp, to: Timestamp, limit: Int, descending: Bool)
        async throws(FeedError) -> [TopOfBook]
    {
        try await feed(symbol).quotes(symbol, from: from, to: to, limit: limit, descending: descending)
    }
    public func corporateActions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError)
        -> [CorporateAction]
    {
        try await feed(symbol).corporateActions(symbol, from: from, through: through)
    }
    public func auctions(_ symbol: String, from: CivilDate, through: CivilDate) async throws(FeedError)
        -> [DailyAuctions]
    {
        try await feed(symbol).auctions(symbol, from: from, through: through)
    }

    /// Each market's indices from its own feed; one market's failure leaves the other's indices (both failing
    /// throws the US feed's error).
    public func indices() async throws(FeedError) -> [IndexQuote] {
        guard us.name != cn.name else { return try await us.indices() }
        var found: [IndexQuote] = []
        var failure: FeedError?
        for (feed, market) in [(cn, Market.cn), (us, Market.us)] {
            do { found += try await feed.indices().filter { $0.index.market == market } } catch { failure = error }
        }
        if found.isEmpty, let failure { throw failure }
        return found
    }

    public func movers(_ market: Market, kind: MoverKind, limit: Int) async throws(FeedError) -> [Mover] {
        try await (market == .cn ? cn : us).movers(market, kind: kind, limit: limit)
    }
}
