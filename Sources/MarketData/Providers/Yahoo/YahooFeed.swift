import Foundation
import TradingCore

/// Yahoo Finance chart and search (unofficial; needs a browser User-Agent).
public struct YahooFeed: MarketDataFeed {
    public let transport: any HTTPTransport
    public var baseURL = "https://query2.finance.yahoo.com"
    public var name: String { "Yahoo Finance" }
    public var attributionURL: String? { "https://finance.yahoo.com" }
    static let headers = [
        "User-Agent":
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"
    ]

    public init(transport: any HTTPTransport) { self.transport = transport }

    func get(_ url: String) async throws(FeedError) -> [UInt8] {
        let response = try await transport.get(HTTPRequest(url: url, headers: Self.headers), provider: name)
        switch response.status {
        case 200..<300, 404: return response.body // 404 carries the chart error object
        case 429: throw .rateLimited(provider: name, retryAfterSeconds: nil)
        default:
            throw .http(
                provider: name, status: response.status,
                message: String(decoding: response.body.prefix(120), as: UTF8.self))
        }
    }

    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        // Index symbols start with ^, which a URL path must escape.
        let path = symbol.replacingOccurrences(of: "^", with: "%5E")
        let chart = try YahooParser.chart(
            try await get(baseURL + "/v8/finance/chart/\(path)?range=1d&interval=5m"), symbol: symbol)
        guard let quote = chart.quote else { throw .malformed(provider: name, detail: "chart without a price") }
        return quote
    }

    /// The NASDAQ Composite, Nasdaq-100, Dow Jones and S&P 500, each from its chart (^IXIC, ^NDX, ^DJI, ^GSPC).
    public func indices() async throws(FeedError) -> [IndexQuote] {
        var out: [IndexQuote] = []
        for index in MarketIndex.allCases where index.market == .us {
            let quote = try await quote(index.rawValue)
            out.append(
                IndexQuote(index: index, time: quote.time, value: quote.last, previousClose: quote.previousClose))
        }
        return out
    }

    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        let url = try barsURL(
            symbol.replacingOccurrences(of: "^", with: "%5E"), timeframe: timeframe, from: from, to: to)
        return try YahooParser.chart(try await get(url), symbol: symbol).bars
    }

    /// The chart that holds `remote`'s bars of `timeframe` between two instants.
    func barsURL(_ remote: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) throws(FeedError) -> String
    {
        let interval: String
        switch timeframe {
        case .minutes(let n) where [1, 2, 5, 15, 30, 90].contains(n): interval = "\(n)m"
        case .hours(1): interval = "60m"
        case .day: interval = "1d"
        case .week: interval = "1wk"
        case .month: interval = "1mo"
        default: throw .unsupported(provider: name, feature: "\(timeframe) bars")
        }
        return baseURL
            + "/v8/finance/chart/\(remote)?period1=\(from.seconds)&period2=\(to.seconds)&interval=\(interval)"
    }

    public func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult] {
        let q = FinnhubFeed.escape(text)
        let results = try YahooParser.search(try await get(baseURL + "/v1/finance/search?q=\(q)&quotesCount=\(limit)"))
        return Array(results.filter { market == nil || $0.market == market }.prefix(limit))
    }

    public func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile {
        throw .unsupported(provider: name, feature: "company profiles")
    }
}
