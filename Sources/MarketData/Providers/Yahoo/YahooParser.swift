import JSON
import TradingCore

/// Reads Yahoo Finance's chart and search JSON (query2.finance.yahoo.com, unofficial).
public enum YahooParser {
    static let provider = "Yahoo Finance"

    /// /v8/finance/chart/{symbol} → bars (rows with nulls are skipped) and the current quote.
    public static func chart(_ body: [UInt8], symbol: String) throws(FeedError) -> (
        bars: [PriceBar], quote: MarketQuote?
    ) {
        let json: JSONValue
        do { json = try JSONValue(parsing: body) } catch {
            throw .malformed(provider: provider, detail: error.description)
        }
        guard let chart = json["chart"] else { throw .malformed(provider: provider, detail: "no chart object") }
        if let error = chart["error"], !error.isNull {
            let code = error["code"]?.string ?? ""
            let text = error["description"]?.string ?? code
            if code == "Not Found" { throw .unknownSymbol(symbol) }
            throw .http(provider: provider, status: 400, message: text)
        }
        guard let result = chart["result"]?[0] else { throw .malformed(provider: provider, detail: "no chart result") }
        let meta = result["meta"]
        var bars: [PriceBar] = []
        if let times = result["timestamp"]?.array, let q = result["indicators"]?["quote"]?[0] {
            let o = q["open"]?.array ?? [], h = q["high"]?.array ?? [], l = q["low"]?.array ?? []
            let c = q["close"]?.array ?? [], v = q["volume"]?.array ?? []
            guard [o.count, h.count, l.count, c.count, v.count].allSatisfy({ $0 == times.count }) else {
                throw .malformed(provider: provider, detail: "indicator arrays and timestamps differ in length")
            }
            for i in times.indices {
                guard let t = times[i].int, let open = o[i].roundedDecimal, let high = h[i].roundedDecimal,
                    let low = l[i].roundedDecimal, let close = c[i].roundedDecimal
                else { continue } // Yahoo leaves nulls for minutes without trades
                let volume = v[i].decimal ?? .zero
                // Yahoo sends binary-float artefacts like 150.25000762939453: keep cents (4 places below $1).
                let places = close < .one ? 4 : 2
                func r(_ x: FixedDecimal) -> FixedDecimal { x.rounded(places: places, rule: .halfUp) }
                bars.append(
                    PriceBar(
                        time: Timestamp(seconds: Int64(t)), open: r(open), high: r(high), low: r(low),
                        close: r(close), volume: volume, tradeCount: 0, vwap: r(close),
                        turnover: volume.multiplied(by: r(close), places: 2, rule: .halfUp)))
            }
        }
        var quote: MarketQuote?
        if let price = meta?["regularMarketPrice"]?.roundedDecimal, let t = meta?["regularMarketTime"]?.int {
            let previous =
                meta?["chartPreviousClose"]?.roundedDecimal ?? meta?["previousClose"]?.roundedDecimal ?? price
            let time = Timestamp(seconds: Int64(t))
            let round = { (x: FixedDecimal) in x.rounded(places: x < .one ? 4 : 2, rule: .halfUp) }
            quote = MarketQuote(
                symbol: symbol, time: time, last: round(price), open: nil,
                high: meta?["regularMarketDayHigh"]?.roundedDecimal.map(round),
                low: meta?["regularMarketDayLow"]?.roundedDecimal.map(round), previousClose: round(previous),
                volume: meta?["regularMarketVolume"]?.decimal ?? .zero, turnover: .zero, bids: .empty,
                asks: .empty, limitUp: nil, limitDown: nil, phase: TradingCalendar.xnys.phase(at: time),
                tradingDate: TradingCalendar.xnys.tradingDate(at: time))
        }
        return (bars, quote)
    }

    /// /v1/finance/search → quotes without a symbol are dropped.
    public static func search(_ body: [UInt8]) throws(FeedError) -> [SearchResult] {
        let json: JSONValue
        do { json = try JSONValue(parsing: body) } catch {
            throw .malformed(provider: provider, detail: error.description)
        }
        guard let quotes = json["quotes"]?.array else {
            throw .malformed(provider: provider, detail: "search without quotes")
        }
        return quotes.compactMap { q in
            guard let symbol = q["symbol"]?.string, !symbol.isEmpty else { return nil }
            let name = q["longname"]?.string ?? q["shortname"]?.string ?? symbol
            let exchange: Exchange =
                [
                    "NYQ": .nyse, "NMS": .nasdaq, "NGM": .nasdaq, "NCM": .nasdaq, "PCX": .arca,
                    "ASE": .amex, "BTS": .bats, "SHH": .sse, "SHZ": .szse,
                ][q["exchange"]?.string ?? ""] ?? .otc
            return SearchResult(
                symbol: symbol, name: name, exchange: exchange, market: exchange.market,
                kind: q["quoteType"]?.string == "ETF" ? .etf : .stock)
        }
    }
}
