import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Alpaca's crypto market data (`/v1beta3/crypto/{feed}/…`, what alpaca-py's `CryptoHistoricalDataClient` and
/// alpaca-mcp-server's crypto tools call) over the configured feed: bars, quotes and trades (paged like the stocks'),
/// the latest bar, quote, trade and order book, and snapshots, for `symbols=BTC/USD,ETH/USD`. Every feed (`us`,
/// `us-1`, `eu-1`) is served from the same market. The paging, ranges and bars are the stock data's
/// (`MarketDataController`); crypto trades and quotes are written as Alpaca writes them, without exchanges or tapes
/// (a trade says its taker's side, `tks`).
struct CryptoDataController {
    let data: MarketDataController
    var market: MarketView { data.market }

    static let feeds: Set<String> = ["us", "us-1", "eu-1"]

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("crypto/{feed}/bars", use: bars)
        group.get("crypto/{feed}/quotes", use: quotes)
        group.get("crypto/{feed}/trades", use: trades)
        group.get("crypto/{feed}/latest/bars", use: latestBars)
        group.get("crypto/{feed}/latest/quotes", use: latestQuotes)
        group.get("crypto/{feed}/latest/trades", use: latestTrades)
        group.get("crypto/{feed}/latest/orderbooks", use: latestOrderbooks)
        group.get("crypto/{feed}/snapshots", use: snapshots)
    }

    // MARK: Encoding

    static func trade(_ t: TradeTick) -> JSONValue {
        // The taker's side: deterministic per print (its nanoseconds), as a real tape's would look.
        .object([
            "t": .string(t.time.description), "p": .number(t.price), "s": .number(t.size),
            "i": .int(Int(t.time.nanoseconds)), "tks": .string(t.time.nanoseconds % 2 == 0 ? "B" : "S"),
        ])
    }

    static func quote(_ q: TopOfBook) -> JSONValue {
        .object([
            "t": .string(q.time.description), "bp": .number(q.bidPrice), "bs": .number(q.bidSize),
            "ap": .number(q.askPrice), "as": .number(q.askSize),
        ])
    }

    static func latestQuote(_ q: MarketQuote) -> JSONValue {
        .object([
            "t": .string(q.time.description), "bp": .number(q.bids.best?.price ?? .zero),
            "bs": .number(q.bids.best?.size ?? .zero), "ap": .number(q.asks.best?.price ?? .zero),
            "as": .number(q.asks.best?.size ?? .zero),
        ])
    }

    static func latestTrade(_ q: MarketQuote) -> JSONValue {
        let time = q.lastTradeTime ?? q.time
        return .object([
            "t": .string(time.description), "p": .number(q.last), "s": .number(q.asks.best?.size ?? .zero),
            "i": .int(Int(time.nanoseconds)), "tks": .string("B"),
        ])
    }

    /// The book's levels, best first: `{"t", "b": [{"p", "s"}], "a": [...]}`.
    static func orderbook(_ q: MarketQuote) -> JSONValue {
        func side(_ levels: BookSide) -> JSONValue {
            .array((0..<levels.count).map { .object(["p": .number(levels[$0].price), "s": .number(levels[$0].size)]) })
        }
        return .object(["t": .string(q.time.description), "b": side(q.bids), "a": side(q.asks)])
    }

    // MARK: Parameters

    /// The request's pairs (`symbols`), each a crypto pair the directory lists (the legacy `BTCUSD` too); the feed
    /// in the path checked.
    func pairs(_ request: Request, context: AppContext) throws -> [String] {
        let feed = try context.parameters.require("feed").lowercased()
        guard Self.feeds.contains(feed) else {
            throw APIError.notFound("unknown crypto feed \(feed); expected us, us-1 or eu-1")
        }
        let symbols = try data.symbols(request)
        for symbol in symbols where market.directory.entry(symbol)?.instrument.kind != .crypto {
            throw APIError.unprocessable("invalid symbol \(symbol): not a crypto pair (BTC/USD, ETH/USD, …)")
        }
        return symbols
    }

    // MARK: Routes

    /// `{"<key>": {"BTC/USD": [...]}, "next_page_token": ...}`.
    func multi(
        _ request: Request, _ context: AppContext, key: String, _ pager: MarketDataController.Pager
    ) async throws -> Response {
        let (items, token) = try await pager(try pairs(request, context: context), request)
        return JSONValue.object([key: .object(items.mapValues { .array($0) }), "next_page_token": .text(token)])
            .response()
    }

    @Sendable func bars(_ request: Request, context: AppContext) async throws -> Response {
        try await multi(request, context, key: "bars", data.pagedBars)
    }

    @Sendable func trades(_ request: Request, context: AppContext) async throws -> Response {
        try await multi(request, context, key: "trades") {
            try await data.pagedTrades($0, request: $1, encode: Self.trade)
        }
    }

    @Sendable func quotes(_ request: Request, context: AppContext) async throws -> Response {
        try await multi(request, context, key: "quotes") {
            try await data.pagedQuotes($0, request: $1, encode: Self.quote)
        }
    }

    /// `{"<key>": {"BTC/USD": …}}` from each pair's current quote.
    func latest(
        _ request: Request, _ context: AppContext, key: String, _ encode: (MarketQuote) -> JSONValue
    ) async throws -> Response {
        var out: [String: JSONValue] = [:]
        for symbol in try pairs(request, context: context) {
            if let q = try? await market.feed.quote(symbol) { out[symbol] = encode(q) }
        }
        return JSONValue.object([key: .object(out)]).response()
    }

    @Sendable func latestQuotes(_ request: Request, context: AppContext) async throws -> Response {
        try await latest(request, context, key: "quotes", Self.latestQuote)
    }

    @Sendable func latestTrades(_ request: Request, context: AppContext) async throws -> Response {
        try await latest(request, context, key: "trades", Self.latestTrade)
    }

    @Sendable func latestOrderbooks(_ request: Request, context: AppContext) async throws -> Response {
        try await latest(request, context, key: "orderbooks", Self.orderbook)
    }

    @Sendable func latestBars(_ request: Request, context: AppContext) async throws -> Response {
        var out: [String: JSONValue] = [:]
        for symbol in try pairs(request, context: context) {
            if let bar = await data.latestBar(symbol) { out[symbol] = MarketDataController.bar(bar) }
        }
        return JSONValue.object(["bars": .object(out)]).response()
    }

    /// `{"snapshots": {"BTC/USD": {latestTrade, latestQuote, minuteBar, dailyBar, prevDailyBar}}}`.
    @Sendable func snapshots(_ request: Request, context: AppContext) async throws -> Response {
        var out: [String: JSONValue] = [:]
        for symbol in try pairs(request, context: context) {
            guard var snapshot = await data.snapshotValue(symbol)?.object, let q = try? await market.feed.quote(symbol)
            else { continue }
            snapshot["latestTrade"] = Self.latestTrade(q)
            snapshot["latestQuote"] = Self.latestQuote(q)
            out[symbol] = .object(snapshot)
        }
        return JSONValue.object(["snapshots": .object(out)]).response()
    }
}
