import TradingCore

/// Finnhub (US): quote, profile, search, news, recommendation trends, earnings surprises, peers, candles.
/// Keys rotate; each key is held to the free tier's 60 calls a minute.
public struct FinnhubFeed: MarketDataFeed {
    public let keys: KeyRing
    public let transport: any HTTPTransport
    public let clock: MarketClock
    public var baseURL = "https://finnhub.io/api/v1"
    public var name: String { "Finnhub" }
    public var attributionURL: String? { "https://finnhub.io" }

    public init(keys: [String], transport: any HTTPTransport, clock: MarketClock, callsPerMinute: Int = 60) {
        self.keys = KeyRing(keys: keys, requestsPerWindow: callsPerMinute, windowSeconds: 60)
        self.transport = transport
        self.clock = clock
    }

    public func shareRateLimits(among nodes: Int) { keys.share(among: nodes) }

    /// GETs a path with the next usable key; a key that is rate-limited or refused rests and the next is tried.
    func get(_ path: String, _ query: [(String, String)]) async throws(FeedError) -> [UInt8] {
        guard !keys.keys.isEmpty else { throw .missingCredentials(provider: name) }
        var lastError = FeedError.rateLimited(provider: name, retryAfterSeconds: 60)
        for _ in 0..<keys.keys.count {
            let now = clock.now()
            guard let (index, key) = keys.take(at: now) else { break }
            let url = baseURL + path + "?" + query.map { "\($0.0)=\(Self.escape($0.1))" }.joined(separator: "&")
            let response = try await transport.get(
                HTTPRequest(url: url, headers: ["X-Finnhub-Token": key]), provider: name)
            guard let error = FinnhubParser.error(status: response.status, body: response.body) else {
                return response.body
            }
            switch error {
            case .rateLimited: keys.rest(index, until: now.adding(seconds: 60))
            case .unauthorized: keys.rest(index, until: now.adding(seconds: 3600))
            default: throw error
            }
            lastError = error
        }
        throw lastError
    }

    static func escape(_ value: String) -> String {
        String(
            value.utf8.map { b -> String in
                switch b {
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: return String(UnicodeScalar(b))
                default: return "%" + String(b, radix: 16, uppercase: true).leftPadded(2)
                }
            }.joined())
    }

    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        try FinnhubParser.quote(try await get("/quote", [("symbol", symbol)]), symbol: symbol)
    }

    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        let resolution: String
        switch timeframe {
        case .minutes(let n) where [1, 5, 15, 30].contains(n): resolution = String(n)
        case .hours(1): resolution = "60"
        case .day: resolution = "D"
        case .week: resolution = "W"
        case .month: resolution = "M"
        default: throw .unsupported(provider: name, feature: "\(timeframe) bars")
        }
        return try FinnhubParser.candles(
            try await get(
                "/stock/candle",
                [
                    ("symbol", symbol), ("resolution", resolution),
                    ("from", String(from.seconds)), ("to", String(to.seconds)),
                ]))
    }

    public func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult] {
        guard market != .cn else { return [] }
        return Array(try FinnhubParser.search(try await get("/search", [("q", text)])).prefix(limit))
    }

    public func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile {
        try FinnhubParser.profile(try await get("/stock/profile2", [("symbol", symbol)]), symbol: symbol)
    }

    public func news(_ symbol: String, from: CivilDate, to: CivilDate) async throws(FeedError) -> [NewsItem] {
        try FinnhubParser.news(
            try await get("/company-news", [("symbol", symbol), ("from", from.description), ("to", to.description)]))
    }

    public func recommendations(_ symbol: String) async throws(FeedError) -> [RecommendationTrend] {
        try FinnhubParser.recommendations(try await get("/stock/recommendation", [("symbol", symbol)]))
    }

    public func earnings(_ symbol: String) async throws(FeedError) -> [EarningsSurprise] {
        try FinnhubParser.earnings(try await get("/stock/earnings", [("symbol", symbol)]))
    }

    /// /calendar/earnings takes one symbol or none: a few symbols are asked for one by one, more are filtered from
    /// the whole calendar.
    public func earningsCalendar(from: CivilDate, through: CivilDate, symbols: [String]?) async throws(FeedError)
        -> [EarningsReport]
    {
        let range = [("from", from.description), ("to", through.description)]
        var reports: [EarningsReport] = []
        if let symbols, symbols.count <= 5 {
            for symbol in symbols {
                reports += try FinnhubParser.earningsCalendar(
                    try await get("/calendar/earnings", range + [("symbol", symbol)]))
            }
        } else {
            let wanted = symbols.map(Set.init)
            reports = try FinnhubParser.earningsCalendar(try await get("/calendar/earnings", range)).filter {
                wanted?.contains($0.symbol) ?? true
            }
        }
        return reports.sorted { ($0.date, $0.symbol) < ($1.date, $1.symbol) }
    }

    public func peers(_ symbol: String) async throws(FeedError) -> [String] {
        try FinnhubParser.peers(try await get("/stock/peers", [("symbol", symbol)]))
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
