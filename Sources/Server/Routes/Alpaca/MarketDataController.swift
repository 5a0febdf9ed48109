import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Alpaca Market Data v2 (stocks) over the configured feed: bars (multi and single symbol, paginated), latest
/// bars/quotes/trades (multi and single symbol), snapshots, and the exchange and condition code tables.
/// Market-data numbers are JSON numbers, as Alpaca sends them.
struct MarketDataController {
    let services: Papertrade

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("stocks/bars", use: multiBars)
        group.get("stocks/{symbol}/bars", use: singleBars)
        group.get("stocks/bars/latest", use: latestBars)
        group.get("stocks/quotes/latest", use: latestQuotes)
        group.get("stocks/trades/latest", use: latestTrades)
        group.get("stocks/snapshots", use: snapshots)
        group.get("stocks/{symbol}/snapshot", use: snapshot)
        group.get("stocks/{symbol}/bars/latest", use: latestBar)
        group.get("stocks/{symbol}/quotes/latest", use: latestQuote)
        group.get("stocks/{symbol}/trades/latest", use: latestTrade)
        group.get("stocks/meta/exchanges", use: exchanges)
        group.get("stocks/meta/conditions/{ticktype}", use: conditions)
    }

    // MARK: Encoding

    static func bar(_ b: PriceBar) -> JSONValue {
        .object([
            "t": .string(b.time.rfc3339(in: .utc, fractionalDigits: 0)), "o": .number(b.open), "h": .number(b.high),
            "l": .number(b.low), "c": .number(b.close), "v": .number(b.volume), "n": .int(b.tradeCount),
            "vw": .number(b.vwap),
        ])
    }

    static func quote(_ q: MarketQuote) -> JSONValue {
        .object([
            "t": .string(q.time.description), "bp": .number(q.bids.best?.price ?? .zero),
            "bs": .number(q.bids.best?.size ?? .zero),
            "ap": .number(q.asks.best?.price ?? .zero), "as": .number(q.asks.best?.size ?? .zero),
            "bx": .string("V"), "ax": .string("V"), "c": .array([.string("R")]), "z": .string("C"),
        ])
    }

    static func trade(_ q: MarketQuote) -> JSONValue {
        .object([
            "t": .string(q.time.description), "p": .number(q.last), "s": .int(100), "x": .string("V"),
            "i": .int(Int(q.time.nanoseconds % 1_000_000_000)), "c": .array([.string("@")]), "z": .string("C"),
        ])
    }

    // MARK: Parameters

    func symbols(_ request: Request) throws -> [String] {
        guard let text = request.query("symbols"), !text.isEmpty else {
            throw APIError.unprocessable("symbols is required")
        }
        let list = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.filter {
            !$0.isEmpty
        }
        guard list.count <= 200 else { throw APIError.unprocessable("at most 200 symbols per request") }
        return list
    }

    func range(_ request: Request) throws -> (BarTimeframe, Timestamp, Timestamp, Int) {
        guard let tfText = request.query("timeframe") else { throw APIError.unprocessable("timeframe is required") }
        guard let timeframe = BarTimeframe(tfText) else { throw APIError.unprocessable("invalid timeframe \(tfText)") }
        let now = services.clock.now()
        let start =
            try request.timeQuery("start", zone: .newYork)
            ?? Timestamp(TradingCalendar.xnys.zone.localTime(of: now).date, in: .newYork)
        let end = min(try request.timeQuery("end", zone: .newYork) ?? now, now)
        let limit = Int(request.query("limit") ?? "1000") ?? 0
        guard (1...10_000).contains(limit) else { throw APIError.unprocessable("limit must be 1 to 10000") }
        guard start <= end else { throw APIError.unprocessable("start must not be after end") }
        return (timeframe, start, end, limit)
    }

    /// Bars for symbols in symbol order, `limit` in all, continuing after `page_token` ("SYMBOL|nanoseconds").
    func pagedBars(_ symbols: [String], request: Request) async throws -> ([String: [JSONValue]], String?) {
        let (timeframe, start, end, limit) = try range(request)
        var after: (String, Int64)?
        if let token = request.query("page_token") {
            let parts = token.split(separator: "|")
            guard parts.count == 2, let ns = Int64(parts[1]) else { throw APIError.unprocessable("invalid page_token") }
            after = (String(parts[0]), ns)
        }
        var out: [String: [JSONValue]] = [:]
        var count = 0
        for symbol in symbols.sorted() {
            if let after, symbol < after.0 { continue }
            guard services.directory.entry(symbol) != nil else { continue }
            let bars: [PriceBar]
            do {
                bars = try await services.feed.bars(
                    symbol, timeframe: timeframe, from: start, to: end.adding(nanoseconds: 1))
            } catch {
                throw APIError(feed: error)
            }
            for bar in bars {
                if let after, symbol == after.0, bar.time.nanoseconds <= after.1 { continue }
                // Full: the next page starts at this bar.
                if count == limit { return (out, "\(symbol)|\(bar.time.nanoseconds - 1)") }
                out[symbol, default: []].append(Self.bar(bar))
                count += 1
            }
        }
        return (out, nil)
    }

    // MARK: Routes

    @Sendable func multiBars(_ request: Request, context: AppContext) async throws -> Response {
        let (bars, token) = try await pagedBars(try symbols(request), request: request)
        return JSONValue.object(["bars": .object(bars.mapValues { .array($0) }), "next_page_token": .text(token)])
            .response()
    }

    @Sendable func singleBars(_ request: Request, context: AppContext) async throws -> Response {
        let symbol = try context.parameters.require("symbol").uppercased()
        guard services.directory.entry(symbol) != nil else { throw APIError.notFound("symbol \(symbol) not found") }
        let (bars, token) = try await pagedBars([symbol], request: request)
        return JSONValue.object([
            "bars": .array(bars[symbol] ?? []), "symbol": .string(symbol), "next_page_token": .text(token),
        ]).response()
    }

    func latest(_ request: Request, _ encode: (MarketQuote) -> JSONValue, key: String) async throws -> Response {
        var out: [String: JSONValue] = [:]
        for symbol in try symbols(request) where services.directory.entry(symbol) != nil {
            if let q = try? await services.feed.quote(symbol) { out[symbol] = encode(q) }
        }
        return JSONValue.object([key: .object(out)]).response()
    }

    @Sendable func latestQuotes(_ request: Request, context: AppContext) async throws -> Response {
        try await latest(request, Self.quote, key: "quotes")
    }

    @Sendable func latestTrades(_ request: Request, context: AppContext) async throws -> Response {
        try await latest(request, Self.trade, key: "trades")
    }

    /// The latest minute bar (looking back four days, over a weekend).
    func latestBar(_ symbol: String) async -> PriceBar? {
        let now = services.clock.now()
        return
            (try? await services.feed.bars(
                symbol, timeframe: .minutes(1), from: now.adding(seconds: -4 * 86_400), to: now))?.last
    }

    @Sendable func latestBars(_ request: Request, context: AppContext) async throws -> Response {
        var out: [String: JSONValue] = [:]
        for symbol in try symbols(request) where services.directory.entry(symbol) != nil {
            if let last = await latestBar(symbol) { out[symbol] = Self.bar(last) }
        }
        return JSONValue.object(["bars": .object(out)]).response()
    }

    /// The single-symbol latest forms (what the older alpaca-trade-api SDK calls): `{"symbol", "<key>": …}`.
    func single(_ context: AppContext, key: String, _ value: (String) async throws -> JSONValue?) async throws
        -> Response
    {
        let symbol = try context.parameters.require("symbol").uppercased()
        guard services.directory.entry(symbol) != nil, let found = try await value(symbol) else {
            throw APIError.notFound("symbol \(symbol) not found")
        }
        return JSONValue.object(["symbol": .string(symbol), key: found]).response()
    }

    func feedQuote(_ symbol: String) async throws -> MarketQuote {
        do throws(FeedError) { return try await services.feed.quote(symbol) } catch { throw APIError(feed: error) }
    }

    @Sendable func latestBar(_ request: Request, context: AppContext) async throws -> Response {
        try await single(context, key: "bar") { await latestBar($0).map(Self.bar) }
    }

    @Sendable func latestQuote(_ request: Request, context: AppContext) async throws -> Response {
        try await single(context, key: "quote") { symbol in
            Self.quote(try await feedQuote(symbol))
        }
    }

    @Sendable func latestTrade(_ request: Request, context: AppContext) async throws -> Response {
        try await single(context, key: "trade") { symbol in
            Self.trade(try await feedQuote(symbol))
        }
    }

    /// Exchange codes as Alpaca names them (the codes on trades and quotes: `x`, `bx`, `ax`).
    static let exchangeNames: [String: String] = [
        "A": "NYSE American (AMEX)", "B": "NASDAQ OMX BX", "C": "National Stock Exchange", "D": "FINRA ADF",
        "E": "Market Independent", "H": "MIAX", "I": "International Securities Exchange", "J": "Cboe EDGA",
        "K": "Cboe EDGX", "L": "Long Term Stock Exchange", "M": "Chicago Stock Exchange",
        "N": "New York Stock Exchange",
        "P": "NYSE Arca", "Q": "NASDAQ OMX", "S": "NASDAQ Small Cap", "T": "NASDAQ Int", "U": "Members Exchange",
        "V": "IEX", "W": "CBOE", "X": "NASDAQ OMX PSX", "Y": "Cboe BYX", "Z": "Cboe BZX",
    ]

    /// Trade and quote condition codes (CTS/UTDF and CQS/UQDF) for the ones papertrade's data carries and the
    /// common others.
    static let conditionNames: [String: [String: String]] = [
        "trade": [
            "@": "Regular Sale", "A": "Acquisition", "B": "Bunched Trade", "C": "Cash Sale", "D": "Distribution",
            "E": "Placeholder", "F": "Intermarket Sweep", "G": "Bunched Sold Trade", "H": "Price Variation Trade",
            "I": "Odd Lot Trade", "K": "Rule 155 Trade (AMEX)", "L": "Sold Last", "M": "Market Center Official Close",
            "N": "Next Day", "O": "Opening Prints", "P": "Prior Reference Price", "Q": "Market Center Official Open",
            "R": "Seller", "S": "Split Trade", "T": "Form T", "U": "Extended Trading Hours (Sold Out of Sequence)",
            "V": "Contingent Trade", "W": "Average Price Trade", "X": "Cross/Periodic Auction Trade",
            "Y": "Yellow Flag Regular Trade", "Z": "Sold (Out of Sequence)", "4": "Derivatively Priced",
            "5": "Re-Opening Prints", "6": "Closing Prints", "7": "Qualified Contingent Trade (QCT)",
            "8": "Placeholder for 611 Exempt", "9": "Corrected Consolidated Close (per listing market)",
        ],
        "quote": [
            "A": "Manual Ask Automated Bid", "B": "Manual Bid Automated Ask", "F": "Fast Trading",
            "H": "Manual Bid And Ask", "I": "Order Imbalance", "L": "Closed Quote", "N": "Non Firm Quote",
            "O": "Opening Quote Automated", "R": "Regular Two Sided Open", "U": "Manual Bid And Ask Non Firm",
            "Y": "No Offer No Bid One Sided Open", "X": "Order Influx", "Z": "No Open No Resume",
            "4": "On Demand Intra Day Auction",
        ],
    ]

    @Sendable func exchanges(_ request: Request, context: AppContext) async throws -> Response {
        JSONValue.object(Self.exchangeNames.mapValues(JSONValue.string)).response()
    }

    @Sendable func conditions(_ request: Request, context: AppContext) async throws -> Response {
        let tickType = try context.parameters.require("ticktype").lowercased()
        guard let table = Self.conditionNames[tickType] else {
            throw APIError.unprocessable("invalid ticktype \(tickType); expected trade or quote")
        }
        if let tape = request.query("tape"), !["A", "B", "C"].contains(tape.uppercased()) {
            throw APIError.unprocessable("invalid tape \(tape); expected A, B or C")
        }
        return JSONValue.object(table.mapValues(JSONValue.string)).response()
    }

    func snapshotValue(_ symbol: String) async -> JSONValue? {
        guard services.directory.entry(symbol) != nil, let q = try? await services.feed.quote(symbol) else {
            return nil
        }
        let now = services.clock.now()
        let minute =
            (try? await services.feed.bars(
                symbol, timeframe: .minutes(1), from: now.adding(seconds: -4 * 86_400), to: now))?.last
        let days =
            (try? await services.feed.bars(
                symbol, timeframe: .day, from: now.adding(seconds: -10 * 86_400), to: now.adding(seconds: 1))) ?? []
        return .object([
            "latestTrade": Self.trade(q), "latestQuote": Self.quote(q), "minuteBar": minute.map(Self.bar) ?? .null,
            "dailyBar": days.last.map(Self.bar) ?? .null, "prevDailyBar": days.dropLast().last.map(Self.bar) ?? .null,
        ])
    }

    @Sendable func snapshots(_ request: Request, context: AppContext) async throws -> Response {
        var out: [String: JSONValue] = [:]
        for symbol in try symbols(request) { if let s = await snapshotValue(symbol) { out[symbol] = s } }
        return JSONValue.object(out).response()
    }

    @Sendable func snapshot(_ request: Request, context: AppContext) async throws -> Response {
        let symbol = try context.parameters.require("symbol").uppercased()
        guard var s = await snapshotValue(symbol)?.object else { throw APIError.notFound("symbol \(symbol) not found") }
        s["symbol"] = .string(symbol)
        return JSONValue.object(s).response()
    }
}
