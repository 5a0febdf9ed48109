import JSON
import TradingCore

/// Alpaca Market Data v2 (stocks): bars and latest prices from data.alpaca.markets.
public struct AlpacaDataFeed: MarketDataFeed {
    public let keyID: String
    public let secret: String
    public let transport: any HTTPTransport
    public var baseURL = "https://data.alpaca.markets"
    public var dataFeed = "iex"
    public var name: String { "Alpaca Market Data" }
    public var attributionURL: String? { "https://alpaca.markets" }

    public init(keyID: String, secret: String, transport: any HTTPTransport) {
        self.keyID = keyID
        self.secret = secret
        self.transport = transport
    }

    func get(_ url: String) async throws(FeedError) -> [UInt8] {
        guard !keyID.isEmpty, !secret.isEmpty else { throw .missingCredentials(provider: name) }
        let response = try await transport.get(
            HTTPRequest(url: url, headers: ["APCA-API-KEY-ID": keyID, "APCA-API-SECRET-KEY": secret]),
            provider: name)
        if let error = AlpacaDataParser.error(status: response.status, body: response.body) { throw error }
        return response.body
    }

    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        try await AlpacaDataParser.allBars(of: nil) { token throws(FeedError) in
            var url =
                baseURL
                + "/v2/stocks/\(symbol)/bars?timeframe=\(timeframe)&start=\(from.rfc3339(in: .utc, fractionalDigits: 0))"
                + "&end=\(to.rfc3339(in: .utc, fractionalDigits: 0))&limit=10000&feed=\(dataFeed)"
            if let token { url += "&page_token=\(FinnhubFeed.escape(token))" }
            return try await get(url)
        }
    }

    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        let body = try await get(baseURL + "/v2/stocks/\(symbol)/snapshot?feed=\(dataFeed)")
        let json: JSONValue
        do { json = try JSONValue(parsing: body) } catch { throw .malformed(provider: name, detail: error.description) }
        guard let price = json["latestTrade"]?["p"]?.decimal, let t = json["latestTrade"]?["t"]?.string,
            let time = RFC3339.parse(t)
        else {
            throw .unknownSymbol(symbol)
        }
        let previous = json["prevDailyBar"]?["c"]?.decimal ?? price
        let daily = json["dailyBar"]
        var bids: [(Price, Quantity)] = [], asks: [(Price, Quantity)] = []
        if let q = json["latestQuote"], let bp = q["bp"]?.decimal, let bs = q["bs"]?.decimal { bids = [(bp, bs)] }
        if let q = json["latestQuote"], let ap = q["ap"]?.decimal, let az = q["as"]?.decimal { asks = [(ap, az)] }
        return MarketQuote(
            symbol: symbol, time: time, last: price, open: daily?["o"]?.decimal, high: daily?["h"]?.decimal,
            low: daily?["l"]?.decimal, previousClose: previous, volume: daily?["v"]?.decimal ?? .zero,
            turnover: .zero, bids: BookSide(bids), asks: BookSide(asks), limitUp: nil, limitDown: nil,
            phase: TradingCalendar.xnys.phase(at: time), tradingDate: TradingCalendar.xnys.tradingDate(at: time))
    }

    public func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult] {
        throw .unsupported(provider: name, feature: "search")
    }

    public func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile {
        throw .unsupported(provider: name, feature: "company profiles")
    }
}
