import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Alpaca Market Data v2 (stocks) over the configured feed: historical bars, trades, quotes and auctions (multi and
/// single symbol, paged with `limit`, `sort` and `page_token`), latest bars/quotes/trades (multi and single symbol),
/// snapshots, and the exchange and condition code tables.
/// Market-data numbers are JSON numbers, as Alpaca sends them.
struct MarketDataController {
    let market: MarketView

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
        group.get("stocks/trades", use: multiTrades)
        group.get("stocks/{symbol}/trades", use: singleTrades)
        group.get("stocks/quotes", use: multiQuotes)
        group.get("stocks/{symbol}/quotes", use: singleQuotes)
        group.get("stocks/auctions", use: multiAuctions)
        group.get("stocks/{symbol}/auctions", use: singleAuctions)
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

    /// The latest quote. A halted listing's (a trading pause or a news halt: no book) carries UQDF's "Z", No Open No
    /// Resume, where an open market's carries "R", Regular Two Sided Open.
    static func quote(_ q: MarketQuote) -> JSONValue {
        .object([
            "t": .string(q.time.description), "bp": .number(q.bids.best?.price ?? .zero),
            "bs": .number(q.bids.best?.size ?? .zero),
            "ap": .number(q.asks.best?.price ?? .zero), "as": .number(q.asks.best?.size ?? .zero),
            "bx": .string("V"), "ax": .string("V"), "c": .array([.string(q.halt == nil ? "R" : "Z")]),
            "z": .string("C"),
        ])
    }

    /// The latest trade, stamped with when it traded (a closed market's last trade is the close, not now).
    static func trade(_ q: MarketQuote) -> JSONValue {
        let time = q.lastTradeTime ?? q.time
        return .object([
            "t": .string(time.description), "p": .number(q.last), "s": .int(100), "x": .string("V"),
            "i": .int(Int(time.nanoseconds % 1_000_000_000)), "c": .array([.string("@")]), "z": .string("C"),
        ])
    }

    /// The SIP tape a US listing reports to (A: NYSE, B: Arca, American and Cboe, C: Nasdaq); A-shares say "C".
    func tape(_ symbol: String) -> String {
        switch market.directory.entry(symbol)?.instrument.exchange {
        case .nyse?: return "A"
        case .arca?, .amex?, .bats?: return "B"
        default: return "C"
        }
    }

    /// The code of the exchange whose auctions set a listing's official open and close.
    func listingExchangeCode(_ symbol: String) -> String {
        switch market.directory.entry(symbol)?.instrument.exchange {
        case .nyse?: return "N"
        case .nasdaq?: return "Q"
        case .arca?: return "P"
        case .amex?: return "A"
        case .bats?: return "Z"
        case let other?: return other.rawValue
        case nil: return "V"
        }
    }

    func trade(_ t: TradeTick) -> JSONValue {
        .object([
            "t": .string(t.time.description), "p": .number(t.price), "s": .number(t.size), "x": .string("V"),
            "i": .int(Int(t.time.nanoseconds)), "c": .array([.string("@")]), "z": .string(tape(t.symbol)),
        ])
    }

    func quote(_ q: TopOfBook) -> JSONValue {
        .object([
            "t": .string(q.time.description), "bp": .number(q.bidPrice), "bs": .number(q.bidSize),
            "ap": .number(q.askPrice), "as": .number(q.askSize), "bx": .string("V"), "ax": .string("V"),
            "c": .array([.string("R")]), "z": .string(tape(q.symbol)),
        ])
    }

    func auction(_ a: DailyAuctions, symbol: String) -> JSONValue {
        let x = listingExchangeCode(symbol)
        func print(_ p: DailyAuctions.Print?, condition: String) -> JSONValue {
            guard let p else { return .array([]) }
            return .array([
                .object([
                    "t": .string(p.time.description), "p": .number(p.price), "s": .number(p.size),
                    "x": .string(x), "c": .string(condition),
                ])
            ])
        }
        return .object([
            "d": .string(a.date.description), "o": print(a.opening, condition: "O"),
            "c": print(a.closing, condition: "6"),
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

    /// `start` (today's midnight in New York by default), `end` (now; never later) and `limit` (1,000; 1 to 10,000),
    /// and the feed, sort and currency parameters checked against Alpaca's values.
    func range(_ request: Request) throws -> (start: Timestamp, end: Timestamp, limit: Int) {
        let now = market.clock.now()
        let start =
            try request.timeQuery("start", zone: .newYork)
            ?? Timestamp(TradingCalendar.xnys.zone.localTime(of: now).date, in: .newYork)
        let end = min(try request.timeQuery("end", zone: .newYork) ?? now, now)
        let limit = Int(request.query("limit") ?? "1000") ?? 0
        guard (1...10_000).contains(limit) else { throw APIError.unprocessable("limit must be 1 to 10000") }
        guard start <= end else { throw APIError.unprocessable("start must not be after end") }
        try Self.feedAndCurrency(request)
        // Symbols are never renamed here, so `asof` changes nothing; it must still be a date.
        if let asof = request.query("asof"), CivilDate(asof) == nil {
            throw APIError.unprocessable("invalid asof \(asof); expected YYYY-MM-DD")
        }
        return (start, end, limit)
    }

    /// `feed` (every feed is served from the same one) and `currency` (USD only), checked by every data route.
    static func feedAndCurrency(_ request: Request) throws {
        if let feed = request.query("feed"),
            !["iex", "sip", "otc", "delayed_sip", "boats", "overnight"].contains(feed.lowercased())
        {
            throw APIError.unprocessable(
                "invalid feed \(feed); expected iex, sip, otc, delayed_sip, boats or overnight")
        }
        if let currency = request.query("currency"), currency.uppercased() != "USD" {
            throw APIError.unprocessable("invalid currency \(currency); papertrade answers in USD")
        }
    }

    func descending(_ request: Request) throws -> Bool {
        try request.sortsDescending(default: false)
    }

    /// Items for symbols in symbol order, `limit` in all. A page token ("SYMBOL|nanoseconds") names the last item
    /// of the page before: the next page continues after it (before it, sorted descending).
    func paged<Item>(
        _ symbols: [String], request: Request,
        fetch: (String, Timestamp, Timestamp, Int, Bool) async throws(FeedError) -> [Item],
        time: (Item) -> Timestamp, encode: (Item) -> JSONValue
    ) async throws -> ([String: [JSONValue]], String?) {
        let (start, end, limit) = try range(request)
        let descending = try descending(request)
        var after: (symbol: String, time: Int64)?
        if let token = request.query("page_token") {
            let parts = token.split(separator: "|")
            guard parts.count == 2, let ns = Int64(parts[1]) else { throw APIError.unprocessable("invalid page_token") }
            after = (String(parts[0]), ns)
        }
        var out: [String: [JSONValue]] = [:]
        var count = 0
        var last: (String, Timestamp)?
        for symbol in symbols.sorted() {
            if let after, symbol < after.symbol { continue }
            guard market.directory.entry(symbol) != nil else { continue }
            var from = start, to = end.adding(nanoseconds: 1)
            if let after, symbol == after.symbol {
                if descending {
                    to = min(to, Timestamp(nanoseconds: after.time))
                } else {
                    from = max(from, Timestamp(nanoseconds: after.time + 1))
                }
            }
            guard from < to else { continue }
            let items: [Item]
            do { items = try await fetch(symbol, from, to, limit - count + 1, descending) } catch {
                throw APIError(feed: error)
            }
            for item in items {
                // Full, and more to come: the next page starts after the last item given.
                if count == limit, let last { return (out, "\(last.0)|\(last.1.nanoseconds)") }
                out[symbol, default: []].append(encode(item))
                last = (symbol, time(item))
                count += 1
            }
        }
        return (out, nil)
    }

    func pagedBars(_ symbols: [String], request: Request) async throws -> ([String: [JSONValue]], String?) {
        guard let tfText = request.query("timeframe") else { throw APIError.unprocessable("timeframe is required") }
        guard let timeframe = BarTimeframe(tfText) else { throw APIError.unprocessable("invalid timeframe \(tfText)") }
        let adjustmentText = request.query("adjustment") ?? "raw"
        guard let adjustment = BarAdjustment(rawValue: adjustmentText.lowercased()) else {
            throw APIError.unprocessable("invalid adjustment \(adjustmentText); expected raw, split, dividend or all")
        }
        let feed = market.feed
        let directory = market.directory
        let now = market.clock.now()
        return try await paged(
            symbols, request: request,
            fetch: { symbol, from, to, limit, descending throws(FeedError) in
                var bars = try await feed.bars(symbol, timeframe: timeframe, from: from, to: to)
                if adjustment != .raw, let zone = directory.entry(symbol)?.instrument.calendar.zone {
                    // Restated as of the end of the request (or now): the same on every page.
                    let through = zone.localTime(of: min(to, now)).date
                    let actions = try await feed.corporateActions(
                        symbol, from: zone.localTime(of: from).date, through: through)
                    bars = adjustment.apply(to: bars, actions: actions, zone: zone, through: through)
                }
                return Array((descending ? bars.reversed() : bars).prefix(limit))
            }, time: \.time, encode: Self.bar)
    }

    func pagedTrades(_ symbols: [String], request: Request) async throws -> ([String: [JSONValue]], String?) {
        try await pagedTrades(symbols, request: request, encode: trade)
    }

    /// Trades written by `encode` (crypto's are written without exchanges and tapes: `CryptoDataController`).
    func pagedTrades(_ symbols: [String], request: Request, encode: (TradeTick) -> JSONValue) async throws -> (
        [String: [JSONValue]], String?
    ) {
        let feed = market.feed
        return try await paged(
            symbols, request: request,
            fetch: { symbol, from, to, limit, descending throws(FeedError) in
                try await feed.trades(symbol, from: from, to: to, limit: limit, descending: descending)
            }, time: \.time, encode: encode)
    }

    func pagedQuotes(_ symbols: [String], request: Request) async throws -> ([String: [JSONValue]], String?) {
        try await pagedQuotes(symbols, request: request, encode: quote)
    }

    func pagedQuotes(_ symbols: [String], request: Request, encode: (TopOfBook) -> JSONValue) async throws -> (
        [String: [JSONValue]], String?
    ) {
        let feed = market.feed
        return try await paged(
            symbols, request: request,
            fetch: { symbol, from, to, limit, descending throws(FeedError) in
                try await feed.quotes(symbol, from: from, to: to, limit: limit, descending: descending)
            }, time: \.time, encode: encode)
    }

    /// Auctions page by trading day: a day is in [start, end) when its opening auction is.
    func pagedAuctions(_ symbols: [String], request: Request) async throws -> ([String: [JSONValue]], String?) {
        let feed = market.feed
        func time(_ a: DailyAuctions) -> Timestamp { a.opening?.time ?? Timestamp(a.date, in: .utc) }
        let (items, token) = try await paged(
            symbols, request: request,
            fetch: { symbol, from, to, limit, descending throws(FeedError) in
                // A day either side: an A-share session opens on the evening before in New York.
                let days = try await feed.auctions(
                    symbol, from: ExchangeTimeZone.utc.localTime(of: from).date.adding(days: -1),
                    through: ExchangeTimeZone.utc.localTime(of: to).date.adding(days: 1)
                ).filter { time($0) >= from && time($0) < to }
                return Array((descending ? days.reversed() : days).prefix(limit)).map { (symbol, $0) }
            }, time: { time($0.1) }, encode: { auction($0.1, symbol: $0.0) })
        return (items, token)
    }

    // MARK: Routes

    typealias Pager = ([String], Request) async throws -> ([String: [JSONValue]], String?)

    /// The multi-symbol form: `{"<key>": {"AAPL": [...]}, "next_page_token": ...}`.
    func multi(_ request: Request, key: String, _ pager: Pager) async throws -> Response {
        let (items, token) = try await pager(try symbols(request), request)
        return JSONValue.object([key: .object(items.mapValues { .array($0) }), "next_page_token": .text(token)])
            .response()
    }

    /// The single-symbol form: `{"<key>": [...], "symbol": "AAPL", "next_page_token": ...}`.
    func single(_ request: Request, context: AppContext, key: String, _ pager: Pager) async throws -> Response {
        let symbol = try context.parameters.require("symbol").uppercased()
        guard market.directory.entry(symbol) != nil else { throw APIError.notFound("symbol \(symbol) not found") }
        let (items, token) = try await pager([symbol], request)
        return JSONValue.object([
            key: .array(items[symbol] ?? []), "symbol": .string(symbol), "next_page_token": .text(token),
        ]).response()
    }

    @Sendable func multiBars(_ request: Request, context: AppContext) async throws -> Response {
        try await multi(request, key: "bars", pagedBars)
    }

    @Sendable func singleBars(_ request: Request, context: AppContext) async throws -> Response {
        try await single(request, context: context, key: "bars", pagedBars)
    }

    @Sendable func multiTrades(_ request: Request, context: AppContext) async throws -> Response {
        try await multi(request, key: "trades", pagedTrades)
    }

    @Sendable func singleTrades(_ request: Request, context: AppContext) async throws -> Response {
        try await single(request, context: context, key: "trades", pagedTrades)
    }

    @Sendable func multiQuotes(_ request: Request, context: AppContext) async throws -> Response {
        try await multi(request, key: "quotes", pagedQuotes)
    }

    @Sendable func singleQuotes(_ request: Request, context: AppContext) async throws -> Response {
        try await single(request, context: context, key: "quotes", pagedQuotes)
    }

    @Sendable func multiAuctions(_ request: Request, context: AppContext) async throws -> Response {
        try await multi(request, key: "auctions", pagedAuctions)
    }

    @Sendable func singleAuctions(_ request: Request, context: AppContext) async throws -> Response {
        try await single(request, context: context, key: "auctions", pagedAuctions)
    }

    func latest(_ request: Request, _ encode: (MarketQuote) -> JSONValue, key: String) async throws -> Response {
        try Self.feedAndCurrency(request)
        var out: [String: JSONValue] = [:]
        for symbol in try symbols(request) where market.directory.entry(symbol) != nil {
            if let q = try? await market.feed.quote(symbol) { out[symbol] = encode(q) }
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
        let now = market.clock.now()
        return
            (try? await market.feed.bars(
                symbol, timeframe: .minutes(1), from: now.adding(seconds: -4 * 86_400), to: now))?.last
    }

    @Sendable func latestBars(_ request: Request, context: AppContext) async throws -> Response {
        try Self.feedAndCurrency(request)
        var out: [String: JSONValue] = [:]
        for symbol in try symbols(request) where market.directory.entry(symbol) != nil {
            if let last = await latestBar(symbol) { out[symbol] = Self.bar(last) }
        }
        return JSONValue.object(["bars": .object(out)]).response()
    }

    /// The single-symbol latest forms (what the older alpaca-trade-api SDK calls): `{"symbol", "<key>": …}`.
    func single(
        _ request: Request, _ context: AppContext, key: String, _ value: (String) async throws -> JSONValue?
    ) async throws -> Response {
        try Self.feedAndCurrency(request)
        let symbol = try context.parameters.require("symbol").uppercased()
        guard market.directory.entry(symbol) != nil, let found = try await value(symbol) else {
            throw APIError.notFound("symbol \(symbol) not found")
        }
        return JSONValue.object(["symbol": .string(symbol), key: found]).response()
    }

    func feedQuote(_ symbol: String) async throws -> MarketQuote {
        do throws(FeedError) { return try await market.feed.quote(symbol) } catch { throw APIError(feed: error) }
    }

    @Sendable func latestBar(_ request: Request, context: AppContext) async throws -> Response {
        try await single(request, context, key: "bar") { await latestBar($0).map(Self.bar) }
    }

    @Sendable func latestQuote(_ request: Request, context: AppContext) async throws -> Response {
        try await single(request, context, key: "quote") { symbol in
            Self.quote(try await feedQuote(symbol))
        }
    }

    @Sendable func latestTrade(_ request: Request, context: AppContext) async throws -> Response {
        try await single(request, context, key: "trade") { symbol in
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
        guard market.directory.entry(symbol) != nil, let q = try? await market.feed.quote(symbol) else {
            return nil
        }
        let now = market.clock.now()
        let minute =
            (try? await market.feed.bars(
                symbol, timeframe: .minutes(1), from: now.adding(seconds: -4 * 86_400), to: now))?.last
        let days =
            (try? await market.feed.bars(
                symbol, timeframe: .day, from: now.adding(seconds: -10 * 86_400), to: now.adding(seconds: 1))) ?? []
        return .object([
            "latestTrade": Self.trade(q), "latestQuote": Self.quote(q), "minuteBar": minute.map(Self.bar) ?? .null,
            "dailyBar": days.last.map(Self.bar) ?? .null, "prevDailyBar": days.dropLast().last.map(Self.bar) ?? .null,
        ])
    }

    @Sendable func snapshots(_ request: Request, context: AppContext) async throws -> Response {
        try Self.feedAndCurrency(request)
        var out: [String: JSONValue] = [:]
        for symbol in try symbols(request) { if let s = await snapshotValue(symbol) { out[symbol] = s } }
        return JSONValue.object(out).response()
    }

    @Sendable func snapshot(_ request: Request, context: AppContext) async throws -> Response {
        try Self.feedAndCurrency(request)
        let symbol = try context.parameters.require("symbol").uppercased()
        guard var s = await snapshotValue(symbol)?.object else { throw APIError.notFound("symbol \(symbol) not found") }
        s["symbol"] = .string(symbol)
        return JSONValue.object(s).response()
    }
}
