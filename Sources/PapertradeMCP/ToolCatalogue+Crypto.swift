import Foundation
import MCP
import PapertradeKit

/// Crypto tools, named as alpaca-mcp-server names them: an order on a pair (gtc or ioc, by qty or dollars) and the
/// pairs' market data from `/v1beta3/crypto/us` (bars, quotes, trades, the latest of each, the book, snapshots).
extension ToolCatalogue {
    static let pair = Schema.symbols("Crypto pairs, as BTC/USD.")

    /// `start` from `days`, `hours` or `minutes` back when no start is given (the stock and crypto bars tools).
    static func start(_ a: ToolArguments) throws -> String? {
        if let start = try a.string("start") { return start }
        let back =
            (try a.int("days") ?? 0) * 86_400 + (try a.int("hours") ?? 0) * 3600 + (try a.int("minutes") ?? 0) * 60
        return back > 0 ? ServerTime.text(Date().addingTimeInterval(-Double(back))) : nil
    }

    static let history: [String: Value] = [
        "start": Schema.time, "end": Schema.time,
        "days": Schema.integer("Start this many days ago.", maximum: 3650),
        "hours": Schema.integer("Start this many hours ago.", maximum: 24 * 365),
        "minutes": Schema.integer("Start this many minutes ago.", maximum: 60 * 24 * 30),
        "limit": Schema.integer("At most this many items (up to 10000).", maximum: 10_000),
    ]

    static func historyQuery(_ a: ToolArguments) throws -> [String: String?] {
        [
            "symbols": try symbolList(a), "start": try start(a), "end": try a.string("end"),
            "limit": try a.int("limit").map(String.init),
        ]
    }

    static func latest(_ name: String, _ title: String, _ description: String, _ kind: String) -> ToolDefinition {
        ToolDefinition(
            name: name, title: title, description: description, properties: ["symbols": pair], required: ["symbols"],
            effect: .reads, idempotent: true
        ) { a, client in try await client.get("/v1beta3/crypto/us/latest/\(kind)", ["symbols": try symbolList(a)]) }
    }

    static let crypto: [ToolDefinition] = [
        ToolDefinition(
            name: "place_crypto_order", title: "Place a crypto order",
            description: """
                Buy or sell a crypto pair (BTC/USD), any hour of any day: market, limit or stop_limit, good until \
                canceled (gtc, the default) or immediate or cancel (ioc); qty in coins (fractions on the pair's \
                steps) or, at market, notional in dollars. Crypto cannot be sold short or bought on margin. The \
                order's status says whether it filled: never assume it did.
                """,
            properties: [
                "symbol": Schema.string("A crypto pair, as BTC/USD."), "side": Schema.side,
                "qty": Schema.amount("Coins (fractional, in the pair's steps)."),
                "notional": Schema.amount("Dollars instead of qty (market orders)."),
                "type": Schema.string("market, limit or stop_limit.", values: ["market", "limit", "stop_limit"]),
                "time_in_force": Schema.string("gtc (default) or ioc.", values: ["gtc", "ioc"]),
                "limit_price": Schema.amount("The limit price (limit and stop_limit)."),
                "stop_price": Schema.amount("The stop price (stop_limit)."),
                "client_order_id": Schema.string(
                    "Your own id for the order (unique per account): retry with it safely."),
            ], required: ["symbol", "side"], effect: .adds, idempotent: false
        ) { a, client in
            let body: [String: Any?] = [
                "symbol": try a.required("symbol").uppercased(), "side": try a.required("side"),
                "type": try a.string("type") ?? "market", "time_in_force": try a.string("time_in_force") ?? "gtc",
                "qty": try a.decimal("qty"), "notional": try a.decimal("notional"),
                "limit_price": try a.decimal("limit_price"), "stop_price": try a.decimal("stop_price"),
                "client_order_id": try a.string("client_order_id"),
            ]
            guard (body["qty"] ?? nil) != nil || (body["notional"] ?? nil) != nil else {
                throw ToolFailure("give qty (coins) or notional (dollars)")
            }
            return try await client.call("POST", "/v2/orders", body: body)
        },
        ToolDefinition(
            name: "get_crypto_bars", title: "Crypto price bars",
            description:
                "Historical bars of crypto pairs, every hour of every day. With days (or hours, minutes) instead of start: that long before now.",
            properties: history.merging([
                "symbols": pair,
                "timeframe": Schema.string("1Min … 59Min, 1Hour … 23Hour, 1Day, 1Week or 1Month (default 1Hour)."),
            ]) { a, _ in a }, required: ["symbols"], effect: .reads, idempotent: true
        ) { a, client in
            var query = try historyQuery(a)
            query["timeframe"] = try a.string("timeframe") ?? "1Hour"
            return try await client.get("/v1beta3/crypto/us/bars", query)
        },
        ToolDefinition(
            name: "get_crypto_quotes", title: "Crypto quotes",
            description: "Historical best bids and asks of crypto pairs.",
            properties: history.merging(["symbols": pair]) { a, _ in a }, required: ["symbols"], effect: .reads,
            idempotent: true
        ) { a, client in try await client.get("/v1beta3/crypto/us/quotes", try historyQuery(a)) },
        ToolDefinition(
            name: "get_crypto_trades", title: "Crypto trades",
            description: "Historical trades of crypto pairs (price, size, the taker's side).",
            properties: history.merging(["symbols": pair]) { a, _ in a }, required: ["symbols"], effect: .reads,
            idempotent: true
        ) { a, client in try await client.get("/v1beta3/crypto/us/trades", try historyQuery(a)) },
        latest("get_crypto_latest_quote", "Latest crypto quote", "The best bid and ask now, per pair.", "quotes"),
        latest("get_crypto_latest_trade", "Latest crypto trade", "The last trade, per pair.", "trades"),
        latest("get_crypto_latest_bar", "Latest crypto bar", "The latest minute bar, per pair.", "bars"),
        latest(
            "get_crypto_latest_orderbook", "Crypto order book", "Five levels of bids and asks now, per pair.",
            "orderbooks"),
        ToolDefinition(
            name: "get_crypto_snapshot", title: "Crypto snapshot",
            description:
                "Per pair: the latest trade and quote, this minute's and today's (UTC) bar, and yesterday's bar.",
            properties: ["symbols": pair], required: ["symbols"], effect: .reads, idempotent: true
        ) { a, client in try await client.get("/v1beta3/crypto/us/snapshots", ["symbols": try symbolList(a)]) },
    ]
}
