import JSON
import TradingCore

/// Alpaca's crypto market data (`data.alpaca.markets/v1beta3/crypto/us`): bars, the latest order book and the
/// snapshot of each pair. Alpaca serves crypto data without keys (keys, when given, raise its rate limit).
public struct AlpacaCryptoFeed: MarketDataFeed {
    public let keyID: String
    public let secret: String
    public let transport: any HTTPTransport
    public var baseURL = "https://data.alpaca.markets"
    public var location = "us"
    public var name: String { "Alpaca Crypto Data" }
    public var attributionURL: String? { "https://alpaca.markets" }

    public init(keyID: String = "", secret: String = "", transport: any HTTPTransport) {
        self.keyID = keyID
        self.secret = secret
        self.transport = transport
    }

    var root: String { baseURL + "/v1beta3/crypto/\(location)" }

    func get(_ path: String, symbols: [String], query: String = "") async throws(FeedError) -> [UInt8] {
        let list = symbols.map { FinnhubFeed.escape($0) }.joined(separator: ",")
        var headers: [String: String] = [:]
        if !keyID.isEmpty, !secret.isEmpty {
            headers = ["APCA-API-KEY-ID": keyID, "APCA-API-SECRET-KEY": secret]
        }
        let response = try await transport.get(
            HTTPRequest(url: root + path + "?symbols=" + list + query, headers: headers), provider: name)
        if let error = AlpacaDataParser.error(status: response.status, body: response.body) { throw error }
        return response.body
    }

    public func bars(_ symbol: String, timeframe: BarTimeframe, from: Timestamp, to: Timestamp) async throws(FeedError)
        -> [PriceBar]
    {
        try await AlpacaDataParser.allBars(of: symbol) { token throws(FeedError) in
            var query =
                "&timeframe=\(timeframe)&start=\(from.rfc3339(in: .utc, fractionalDigits: 0))"
                + "&end=\(to.rfc3339(in: .utc, fractionalDigits: 0))&limit=10000"
            if let token { query += "&page_token=\(FinnhubFeed.escape(token))" }
            return try await get("/bars", symbols: [symbol], query: query)
        }
    }

    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        guard let quote = try await quotes([symbol])[symbol] else { throw .unknownSymbol(symbol) }
        return quote
    }

    public func latestQuotes(_ symbols: [String]) async -> [String: MarketQuote] {
        guard !symbols.isEmpty else { return [:] }
        return (try? await quotes(symbols)) ?? [:]
    }

    /// The pairs' snapshots (last trade, today's and yesterday's UTC daily bars) with their order books, two calls
    /// for any number of pairs.
    func quotes(_ symbols: [String]) async throws(FeedError) -> [String: MarketQuote] {
        let snapshots = try AlpacaDataParser.cryptoSnapshots(try await get("/snapshots", symbols: symbols))
        let books = try AlpacaDataParser.cryptoOrderbooks(try await get("/latest/orderbooks", symbols: symbols))
        var out: [String: MarketQuote] = [:]
        for (symbol, snapshot) in snapshots {
            let book = books[symbol]
            let time = Swift.max(book?.time ?? snapshot.tradeTime, snapshot.tradeTime)
            out[symbol] = MarketQuote(
                symbol: symbol, time: time, last: snapshot.last, open: snapshot.daily?.open,
                high: snapshot.daily?.high, low: snapshot.daily?.low,
                previousClose: snapshot.previousDaily?.close ?? snapshot.daily?.open ?? snapshot.last,
                volume: snapshot.daily?.volume ?? .zero, turnover: snapshot.daily?.turnover ?? .zero,
                bids: book?.bids ?? BookSide([]), asks: book?.asks ?? BookSide([]), limitUp: nil, limitDown: nil,
                phase: .continuous, tradingDate: TradingCalendar.crypto.tradingDate(at: time),
                lastTradeTime: snapshot.tradeTime)
        }
        return out
    }

    public func search(_ text: String, market: Market?, limit: Int) async throws(FeedError) -> [SearchResult] {
        throw .unsupported(provider: name, feature: "search")
    }

    public func profile(_ symbol: String) async throws(FeedError) -> CompanyProfile {
        throw .unsupported(provider: name, feature: "company profiles")
    }
}

extension AlpacaDataParser {
    /// A pair's snapshot: its last trade, and its UTC day's and the day before's bars.
    public struct CryptoSnapshot: Sendable, Hashable {
        public var last: Price
        public var tradeTime: Timestamp
        public var daily: PriceBar?
        public var previousDaily: PriceBar?
    }

    /// `/v1beta3/crypto/us/snapshots` → `{"snapshots": {"BTC/USD": {latestTrade, latestQuote, minuteBar, dailyBar,
    /// prevDailyBar}}}`. A pair without a trade is left out.
    public static func cryptoSnapshots(_ body: [UInt8]) throws(FeedError) -> [String: CryptoSnapshot] {
        let json: JSONValue
        do { json = try JSONValue(parsing: body) } catch {
            throw .malformed(provider: provider, detail: error.description)
        }
        guard let snapshots = json["snapshots"]?.object else {
            throw .malformed(provider: provider, detail: "no snapshots object")
        }
        var out: [String: CryptoSnapshot] = [:]
        for (symbol, s) in snapshots {
            guard let price = s["latestTrade"]?["p"]?.decimal, let t = s["latestTrade"]?["t"]?.string,
                let time = RFC3339.parse(t)
            else { continue }
            let daily = try s["dailyBar"].flatMap { $0.isNull ? nil : $0 }.map(bar)
            let previous = try s["prevDailyBar"].flatMap { $0.isNull ? nil : $0 }.map(bar)
            out[symbol] = CryptoSnapshot(last: price, tradeTime: time, daily: daily, previousDaily: previous)
        }
        return out
    }

    /// `/v1beta3/crypto/us/latest/orderbooks` → `{"orderbooks": {"BTC/USD": {"t", "b": [{"p", "s"}], "a": [...]}}}`,
    /// the levels best first.
    public static func cryptoOrderbooks(_ body: [UInt8]) throws(FeedError) -> [String: (
        time: Timestamp, bids: BookSide, asks: BookSide
    )] {
        let json: JSONValue
        do { json = try JSONValue(parsing: body) } catch {
            throw .malformed(provider: provider, detail: error.description)
        }
        guard let books = json["orderbooks"]?.object else {
            throw .malformed(provider: provider, detail: "no orderbooks object")
        }
        var out: [String: (time: Timestamp, bids: BookSide, asks: BookSide)] = [:]
        for (symbol, book) in books {
            guard let t = book["t"]?.string, let time = RFC3339.parse(t) else {
                throw .malformed(provider: provider, detail: "an order book without its time")
            }
            func side(_ key: String, bestFirst: (Price, Price) -> Bool) throws(FeedError) -> BookSide {
                var levels: [(Price, Quantity)] = []
                for level in book[key]?.array ?? [] {
                    guard let p = level["p"]?.decimal, let s = level["s"]?.decimal, p.isPositive, s.isPositive else {
                        throw .malformed(provider: provider, detail: "an order book level without a price and size")
                    }
                    levels.append((p, s))
                }
                return BookSide(levels.sorted { bestFirst($0.0, $1.0) })
            }
            out[symbol] = (time, try side("b", bestFirst: >), try side("a", bestFirst: <))
        }
        return out
    }
}
