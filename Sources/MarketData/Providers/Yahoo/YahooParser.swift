import JSON
import TradingCore

/// Reads Yahoo Finance's chart and search JSON (query2.finance.yahoo.com, unofficial).
public enum YahooParser {
    static let provider = "Yahoo Finance"

    /// /v8/finance/chart/{symbol} → bars (rows with nulls are skipped) and the current quote. Prices are rounded
    /// half-up to `tick` when given (a currency pair's tenth of a pip), else to cents (4 places below $1); the quote's
    /// phase and trading date are `calendar`'s.
    public static func chart(
        _ body: [UInt8], symbol: String, tick: TickRule? = nil, calendar: TradingCalendar = .xnys
    ) throws(FeedError) -> (bars: [PriceBar], quote: MarketQuote?) {
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
                // A bar's prices keep its close's places (a sub-dollar close's four places for all four).
                let r = { (x: FixedDecimal) in rounded(x, tick: tick, like: close) }
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
            let round = { (x: FixedDecimal) in rounded(x, tick: tick, like: x) }
            quote = MarketQuote(
                symbol: symbol, time: time, last: round(price), open: nil,
                high: meta?["regularMarketDayHigh"]?.roundedDecimal.map(round),
                low: meta?["regularMarketDayLow"]?.roundedDecimal.map(round), previousClose: round(previous),
                volume: meta?["regularMarketVolume"]?.decimal ?? .zero, turnover: .zero, bids: .empty,
                asks: .empty, limitUp: nil, limitDown: nil, phase: calendar.phase(at: time),
                tradingDate: calendar.tradingDate(at: time))
            quote?.lastPriceOnly = true
        }
        return (bars, quote)
    }

    /// Yahoo sends binary-float artefacts like 150.25000762939453: a price is kept to `tick` when given, else to
    /// cents (4 places when `reference` is below $1).
    static func rounded(_ x: FixedDecimal, tick: TickRule?, like reference: FixedDecimal) -> FixedDecimal {
        if let tick { return tick.round(x, .halfUp) }
        return x.rounded(places: reference < .one ? 4 : 2, rule: .halfUp)
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
