import Foundation
import TradingCore

/// Sina Finance for A-shares: real-time quotes with 5-level depth (GB18030, Referer required) and K-lines.
public struct SinaFeed: MarketDataFeed {
    public let transport: any HTTPTransport
    public let directory: SymbolDirectory
    public var quoteURL = "https://hq.sinajs.cn/list="
    public var klineURL = "https://money.finance.sina.com.cn/quotes_service/api/json_v2.php/CN_MarketData.getKLineData"
    public var name: String { "Sina Finance" }
    public var attributionURL: String? { "https://finance.sina.com.cn" }
    static let headers = ["Referer": "https://finance.sina.com.cn"]

    public init(transport: any HTTPTransport, directory: SymbolDirectory) {
        self.transport = transport
        self.directory = directory
    }

    /// Quotes for up to ~800 codes in one request.
    public func quotes(_ symbols: [String]) async throws(FeedError) -> [String: Result<MarketQuote, FeedError>] {
        let list = symbols.map(SinaParser.sinaSymbol).joined(separator: ",")
        let response = try await transport.get(HTTPRequest(url: quoteURL + list, headers: Self.headers), provider: name)
        guard (200..<300).contains(response.status) else {
            throw .http(
                provider: name, status: response.status,
                message: String(decoding: response.body.prefix(120), as: UTF8.self))
        }
        return try SinaParser.quotes(
            try SinaParser.decode(response.body, contentType: response.headers["content-type"]))
    }

    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        guard let result = try await quotes([symbol])[symbol] else { throw .unknownSymbol(symbol) }
        return try result.get()
    }

    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        let scale: Int
        switch timeframe {
        case .minutes(let n) where [5, 15, 30].contains(n): scale = n
        case .hours(1): scale = 60
        case .day: scale = 240
        default: throw .unsupported(provider: name, feature: "\(timeframe) bars")
        }
        let url = klineURL + "?symbol=\(SinaParser.sinaSymbol(symbol))&scale=\(scale)&ma=no&datalen=1023"
        let response = try await transport.get(HTTPRequest(url: url, headers: Self.headers), provider: name)
        guard (200..<300).contains(response.status) else {
            throw .http(provider: name, status: response.status, message: "K-line request refused")
        }
        let text = try SinaParser.decode(response.body, contentType: response.headers["content-type"])
        return try SinaParser.kline(text, scaleMinutes: scale).filter { $0.time >= from && $0.time < to }
    }

    /// The SSE Composite, SZSE Component and CSI 300 from Sina's short index quotes (`s_sh000001`), one request. The short
    /// form carries no time, so the quotes are stamped with the time they were read.
    public func indices() async throws(FeedError) -> [IndexQuote] {
        let indices = MarketIndex.allCases.filter { $0.market == .cn }
        let url = quoteURL + indices.map { "s_" + $0.rawValue }.joined(separator: ",")
        let response = try await transport.get(HTTPRequest(url: url, headers: Self.headers), provider: name)
        guard (200..<300).contains(response.status) else {
            throw .http(provider: name, status: response.status, message: "index quotes refused")
        }
        let quotes = try SinaParser.quotes(
            try SinaParser.decode(response.body, contentType: response.headers["content-type"]))
        let now = Timestamp(nanoseconds: Int64(Date().timeIntervalSince1970 * 1_000) * 1_000_000)
        var out: [IndexQuote] = []
        for index in indices {
            guard let result = quotes[String(index.rawValue.dropFirst(2))] else { continue }
            let quote = try result.get()
            out.append(IndexQuote(index: index, time: now, value: quote.last, previousClose: quote.previousClose))
        }
        return out
    }

    public func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult] {
        directory.search(text, market: market ?? .cn, limit: limit)
    }

    public func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile {
        guard let entry = directory.entry(symbol) else { throw .unknownSymbol(symbol) }
        return CompanyProfile(
            symbol: symbol, name: entry.name, exchange: entry.instrument.exchange.rawValue, industry: nil,
            country: "CN", currency: "CNY", ipoDate: entry.instrument.listingDate, website: nil,
            logo: nil, marketCapitalizationMillions: nil, sharesOutstandingMillions: nil)
    }
}
