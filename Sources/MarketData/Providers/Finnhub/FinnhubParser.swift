import JSON
import TradingCore

/// Reads Finnhub's JSON (https://finnhub.io/api/v1) into papertrade's types. Pure functions of the response.
public enum FinnhubParser {
    static let provider = "Finnhub"

    /// Maps an HTTP status and body to an error, or nil for a 2xx.
    public static func error(status: Int, body: [UInt8]) -> FeedError? {
        guard !(200..<300).contains(status) else { return nil }
        let message =
            (try? JSONValue(parsing: body))?["error"]?.string ?? String(decoding: body.prefix(200), as: UTF8.self)
        switch status {
        case 401: return .unauthorized(provider: provider, message: message)
        case 403:
            return message.contains("access")
                ? .notEntitled(provider: provider, message: message)
                : .unauthorized(provider: provider, message: message)
        case 429: return .rateLimited(provider: provider, retryAfterSeconds: nil)
        default: return .http(provider: provider, status: status, message: message)
        }
    }

    static func document(_ body: [UInt8]) throws(FeedError) -> JSONValue {
        do { return try JSONValue(parsing: body) } catch {
            throw .malformed(provider: provider, detail: error.description)
        }
    }

    /// /quote → {c, d, dp, h, l, o, pc, t}. An unknown symbol comes back as all zeros.
    public static func quote(_ body: [UInt8], symbol: String, tick: TickRule = .usEquity) throws(FeedError)
        -> MarketQuote
    {
        let json = try document(body)
        guard let c = json["c"]?.decimal, let pc = json["pc"]?.decimal, let t = json["t"]?.int else {
            throw .malformed(provider: provider, detail: "quote without c, pc or t")
        }
        if c.isZero && t == 0 { throw .unknownSymbol(symbol) }
        let time = Timestamp(seconds: Int64(t))
        var quote = MarketQuote(
            symbol: symbol, time: time, last: c, open: json["o"]?.decimal, high: json["h"]?.decimal,
            low: json["l"]?.decimal, previousClose: pc, volume: .zero, turnover: .zero,
            bids: .empty, asks: .empty, limitUp: nil, limitDown: nil,
            phase: TradingCalendar.xnys.phase(at: time), tradingDate: TradingCalendar.xnys.tradingDate(at: time))
        quote.lastPriceOnly = true
        return quote
    }

    /// /stock/profile2. An unknown symbol is an empty object.
    public static func profile(_ body: [UInt8], symbol: String) throws(FeedError) -> CompanyProfile {
        let json = try document(body)
        guard let object = json.object else { throw .malformed(provider: provider, detail: "profile is not an object") }
        guard !object.isEmpty, let name = json["name"]?.string else { throw .unknownSymbol(symbol) }
        return CompanyProfile(
            symbol: json["ticker"]?.string ?? symbol, name: name,
            exchange: json["exchange"]?.string ?? "", industry: json["finnhubIndustry"]?.string,
            country: json["country"]?.string, currency: json["currency"]?.string,
            ipoDate: json["ipo"]?.string.flatMap(CivilDate.init),
            website: json["weburl"]?.string, logo: json["logo"]?.string.flatMap { $0.isEmpty ? nil : $0 },
            marketCapitalizationMillions: json["marketCapitalization"]?.decimal,
            sharesOutstandingMillions: json["shareOutstanding"]?.decimal)
    }

    /// /search → {count, result: [{description, displaySymbol, symbol, type}]}.
    public static func search(_ body: [UInt8]) throws(FeedError) -> [SearchResult] {
        let json = try document(body)
        guard let results = json["result"]?.array else {
            throw .malformed(provider: provider, detail: "search without result")
        }
        return results.compactMap { r in
            guard let symbol = r["symbol"]?.string, !symbol.isEmpty else { return nil }
            return SearchResult(
                symbol: symbol, name: r["description"]?.string ?? symbol, exchange: .nasdaq,
                market: .us, kind: r["type"]?.string == "ETP" ? .etf : .stock)
        }
    }

    /// /company-news → [{category, datetime, headline, id, image, related, source, summary, url}].
    public static func news(_ body: [UInt8]) throws(FeedError) -> [NewsItem] {
        guard let items = try document(body).array else {
            throw .malformed(provider: provider, detail: "news is not a list")
        }
        return items.compactMap { n in
            guard let headline = n["headline"]?.string, let t = n["datetime"]?.int else { return nil }
            return NewsItem(
                id: n["id"]?.int ?? 0, time: Timestamp(seconds: Int64(t)), headline: headline,
                summary: n["summary"]?.string ?? "", source: n["source"]?.string ?? "",
                url: n["url"]?.string ?? "", image: n["image"]?.string.flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    /// /stock/recommendation → [{buy, hold, period, sell, strongBuy, strongSell, symbol}].
    public static func recommendations(_ body: [UInt8]) throws(FeedError) -> [RecommendationTrend] {
        guard let items = try document(body).array else {
            throw .malformed(provider: provider, detail: "recommendations is not a list")
        }
        return items.compactMap { r in
            guard let period = r["period"]?.string.flatMap(CivilDate.init) else { return nil }
            return RecommendationTrend(
                period: period, strongBuy: r["strongBuy"]?.int ?? 0, buy: r["buy"]?.int ?? 0,
                hold: r["hold"]?.int ?? 0, sell: r["sell"]?.int ?? 0, strongSell: r["strongSell"]?.int ?? 0)
        }
    }

    /// /stock/earnings → [{actual, estimate, period, quarter, surprise, surprisePercent, symbol, year}].
    public static func earnings(_ body: [UInt8]) throws(FeedError) -> [EarningsSurprise] {
        guard let items = try document(body).array else {
            throw .malformed(provider: provider, detail: "earnings is not a list")
        }
        return items.compactMap { e in
            guard let period = e["period"]?.string.flatMap(CivilDate.init) else { return nil }
            return EarningsSurprise(
                period: period, actual: e["actual"]?.decimal, estimate: e["estimate"]?.decimal,
                surprise: e["surprise"]?.decimal, surprisePercent: e["surprisePercent"]?.decimal)
        }
    }

    /// /calendar/earnings → {earningsCalendar: [{date, hour: "bmo"|"amc"|"dmh"|"", quarter, year, symbol, eps…}]}.
    public static func earningsCalendar(_ body: [UInt8]) throws(FeedError) -> [EarningsReport] {
        guard let items = try document(body)["earningsCalendar"]?.array else {
            throw .malformed(provider: provider, detail: "earningsCalendar is not a list")
        }
        return items.compactMap { e in
            guard let symbol = e["symbol"]?.string, !symbol.isEmpty,
                let date = e["date"]?.string.flatMap(CivilDate.init)
            else { return nil }
            let time: EarningsTime?
            switch e["hour"]?.string {
            case "bmo": time = .beforeOpen
            case "amc": time = .afterClose
            case "dmh": time = .duringHours
            default: time = nil
            }
            return EarningsReport(
                symbol: symbol, date: date, time: time, fiscalYear: e["year"]?.int ?? date.year,
                fiscalQuarter: e["quarter"]?.int ?? 0)
        }
    }

    /// /stock/peers → ["AAPL", …].
    public static func peers(_ body: [UInt8]) throws(FeedError) -> [String] {
        guard let items = try document(body).array else {
            throw .malformed(provider: provider, detail: "peers is not a list")
        }
        return items.compactMap(\.string)
    }

    /// /stock/candle → {c, h, l, o, t, v arrays, s: "ok" | "no_data"}.
    public static func candles(_ body: [UInt8]) throws(FeedError) -> [PriceBar] {
        let json = try document(body)
        switch json["s"]?.string {
        case "no_data": return []
        case "ok": break
        default: throw .malformed(provider: provider, detail: "candles without status")
        }
        guard let o = json["o"]?.array, let h = json["h"]?.array, let l = json["l"]?.array, let c = json["c"]?.array,
            let t = json["t"]?.array, let v = json["v"]?.array,
            Set([o.count, h.count, l.count, c.count, t.count, v.count]).count == 1
        else {
            throw .malformed(provider: provider, detail: "candle arrays missing or of different lengths")
        }
        var bars: [PriceBar] = []
        for i in t.indices {
            guard let open = o[i].decimal, let high = h[i].decimal, let low = l[i].decimal, let close = c[i].decimal,
                let time = t[i].int, let volume = v[i].decimal
            else {
                throw .malformed(provider: provider, detail: "candle \(i) has a non-numeric value")
            }
            bars.append(
                PriceBar(
                    time: Timestamp(seconds: Int64(time)), open: open, high: high, low: low, close: close,
                    volume: volume, tradeCount: 0, vwap: close,
                    turnover: volume.multiplied(by: close, places: 2, rule: .halfUp)))
        }
        return bars
    }
}
