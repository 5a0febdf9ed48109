import Foundation
import MCP
import PapertradeKit

/// Every tool, in the order `tools/list` gives them: the account, orders and positions, market data, watchlists,
/// options, then papertrade's own.
enum ToolCatalogue {
    static let all: [ToolDefinition] = account + orders + marketData + crypto + watchlists + options + papertrade

    static let byName: [String: ToolDefinition] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    // MARK: - Account

    static let account: [ToolDefinition] = [
        ToolDefinition(
            name: "get_account_info", title: "Account",
            description: "The account's balances and status: cash, buying power, equity, margin, day-trade count.",
            properties: [:], required: [], effect: .reads, idempotent: true
        ) { _, client in try await client.get("/v2/account") },
        ToolDefinition(
            name: "get_account_config", title: "Account configuration",
            description: "The account's settings: shorting, margin multiplier, PDT checks, options trading level.",
            properties: [:], required: [], effect: .reads, idempotent: true
        ) { _, client in try await client.get("/v2/account/configurations") },
        ToolDefinition(
            name: "get_portfolio_history", title: "Portfolio history",
            description: "Equity and profit/loss over time (one point per timeframe).",
            properties: [
                "period": Schema.string("How far back: 1D, 1W, 1M, 3M, 6M, 1A or all (e.g. 1M)."),
                "timeframe": Schema.string("One point per 1Min, 5Min, 15Min, 1H or 1D."),
                "date_end": Schema.date, "start": Schema.time, "end": Schema.time,
                "extended_hours": Schema.boolean("Include extended hours (intraday timeframes)."),
            ], required: [], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/v2/account/portfolio/history",
                [
                    "period": try a.string("period"), "timeframe": try a.string("timeframe"),
                    "date_end": try a.string("date_end"), "start": try a.string("start"), "end": try a.string("end"),
                    "extended_hours": try a.bool("extended_hours").map(String.init),
                ])
        },
        ToolDefinition(
            name: "get_account_activities", title: "Account activities",
            description:
                "Fills, dividends, fees, transfers and other account activities, newest first. activity_types: FILL, DIV, FEE, CSD, CSW, JNLC, INT, OPEXC, OPEXP…",
            properties: [
                "activity_types": Schema.symbols("Activity types to include."), "date": Schema.date,
                "after": Schema.time, "until": Schema.time,
                "direction": Schema.string("desc (newest first) or asc.", values: ["asc", "desc"]),
                "page_size": Schema.integer("At most this many (up to 100).", maximum: 100),
            ], required: [], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/v2/account/activities",
                [
                    "activity_types": try a.list("activity_types")?.joined(separator: ","),
                    "date": try a.string("date"),
                    "after": try a.string("after"), "until": try a.string("until"),
                    "direction": try a.string("direction"), "page_size": try a.int("page_size").map(String.init),
                ])
        },
    ]

    // MARK: - Orders and positions

    static let orderProperties: [String: Value] = [
        "symbol": Schema.symbol, "side": Schema.side,
        "qty": Schema.amount("Shares (fractional for US market orders)."),
        "notional": Schema.amount("An amount of money instead of qty (US market orders)."),
        "type": Schema.string(
            "market, limit, stop, stop_limit or trailing_stop.",
            values: ["market", "limit", "stop", "stop_limit", "trailing_stop"]),
        "time_in_force": Schema.timeInForce,
        "limit_price": Schema.amount("The limit price (limit and stop_limit)."),
        "stop_price": Schema.amount("The stop price (stop and stop_limit)."),
        "trail_price": Schema.amount("A trailing stop's distance in price."),
        "trail_percent": Schema.amount("A trailing stop's distance in percent (5 = 5%)."),
        "extended_hours": Schema.boolean("Also fill before the open and after the close (limit, day)."),
        "client_order_id": Schema.string("Your own id for the order (unique per account): retry with it safely."),
        "order_class": Schema.string("simple, bracket, oco or oto.", values: ["simple", "bracket", "oco", "oto"]),
        "take_profit_limit_price": Schema.amount("A bracket's take-profit limit price."),
        "stop_loss_stop_price": Schema.amount("A bracket's stop-loss stop price."),
        "stop_loss_limit_price": Schema.amount("A bracket's stop-loss limit price (a stop-limit exit)."),
    ]

    /// The order body Alpaca's POST /v2/orders takes, from the tool's arguments.
    static func orderBody(_ a: ToolArguments) throws -> [String: Any?] {
        var body: [String: Any?] = [
            "symbol": try a.required("symbol").uppercased(), "side": try a.required("side"),
            "type": try a.string("type") ?? "market", "time_in_force": try a.string("time_in_force") ?? "day",
            "qty": try a.decimal("qty"), "notional": try a.decimal("notional"),
            "limit_price": try a.decimal("limit_price"), "stop_price": try a.decimal("stop_price"),
            "trail_price": try a.decimal("trail_price"), "trail_percent": try a.decimal("trail_percent"),
            "extended_hours": try a.bool("extended_hours"), "client_order_id": try a.string("client_order_id"),
            "order_class": try a.string("order_class"), "position_intent": try a.string("position_intent"),
        ]
        if let limit = try a.decimal("take_profit_limit_price") { body["take_profit"] = ["limit_price": limit] }
        let stop = try a.decimal("stop_loss_stop_price")
        let stopLimit = try a.decimal("stop_loss_limit_price")
        if stop != nil || stopLimit != nil {
            body["stop_loss"] = ["stop_price": stop, "limit_price": stopLimit].compactMapValues { $0 }
        }
        if body["order_class"] == nil, body["take_profit"] != nil, body["stop_loss"] != nil {
            body["order_class"] = "bracket"
        }
        guard (body["qty"] ?? nil) != nil || (body["notional"] ?? nil) != nil else {
            throw ToolFailure("give qty (shares) or notional (an amount of money)")
        }
        return body
    }

    static let orders: [ToolDefinition] = [
        ToolDefinition(
            name: "get_orders", title: "Orders",
            description: "Orders by status (open by default), newest first.",
            properties: [
                "status": Schema.string("open, closed or all.", values: ["open", "closed", "all"]),
                "limit": Schema.integer("At most this many (up to 500).", maximum: 500),
                "after": Schema.time, "until": Schema.time,
                "direction": Schema.string("desc (newest first) or asc.", values: ["asc", "desc"]),
                "symbols": Schema.symbols("Only these symbols."), "side": Schema.side,
                "nested": Schema.boolean("Put a bracket's exits under its entry order (legs)."),
            ], required: [], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/v2/orders",
                [
                    "status": try a.string("status"), "limit": try a.int("limit").map(String.init),
                    "after": try a.string("after"), "until": try a.string("until"),
                    "direction": try a.string("direction"), "symbols": try a.list("symbols")?.joined(separator: ","),
                    "side": try a.string("side"), "nested": try a.bool("nested").map(String.init),
                ])
        },
        ToolDefinition(
            name: "get_order_by_id", title: "Order",
            description: "One order by its id, with its fills so far.",
            properties: ["order_id": Schema.string("The order's id.")], required: ["order_id"], effect: .reads,
            idempotent: true
        ) { a, client in try await client.get("/v2/orders/" + PapertradeClient.path(try a.required("order_id"))) },
        ToolDefinition(
            name: "place_stock_order", title: "Place a stock order",
            description: """
                Place an order for a US stock or an A-share: market, limit, stop, stop_limit or trailing_stop, by \
                qty or (market, US) notional; with take_profit_limit_price and stop_loss_stop_price it is a bracket. \
                A refusal (buying power, market hours, price limits, lot size, game rules) comes back as an error \
                with the broker's reason. The order's status says whether it filled: never assume it did.
                """,
            properties: orderProperties, required: ["symbol", "side"], effect: .adds, idempotent: false
        ) { a, client in try await client.call("POST", "/v2/orders", body: try orderBody(a)) },
        ToolDefinition(
            name: "replace_order_by_id", title: "Replace an order",
            description:
                "Change an open order's qty, prices or time in force (the old order is replaced by a new one).",
            properties: [
                "order_id": Schema.string("The open order's id."), "qty": Schema.amount("New quantity."),
                "limit_price": Schema.amount("New limit price."), "stop_price": Schema.amount("New stop price."),
                "trail": Schema.amount("New trailing distance."), "time_in_force": Schema.timeInForce,
                "client_order_id": Schema.string("A client order id for the new order."),
            ], required: ["order_id"], effect: .adds, idempotent: false
        ) { a, client in
            try await client.call(
                "PATCH", "/v2/orders/" + PapertradeClient.path(try a.required("order_id")),
                body: [
                    "qty": try a.decimal("qty"), "limit_price": try a.decimal("limit_price"),
                    "stop_price": try a.decimal("stop_price"), "trail": try a.decimal("trail"),
                    "time_in_force": try a.string("time_in_force"), "client_order_id": try a.string("client_order_id"),
                ])
        },
        ToolDefinition(
            name: "cancel_order_by_id", title: "Cancel an order",
            description: "Cancel one open order.",
            properties: ["order_id": Schema.string("The order's id.")], required: ["order_id"], effect: .destroys,
            idempotent: true
        ) { a, client in
            let id = PapertradeClient.path(try a.required("order_id"))
            _ = try await client.call("DELETE", "/v2/orders/" + id)
            return try await client.get("/v2/orders/" + id)
        },
        ToolDefinition(
            name: "cancel_all_orders", title: "Cancel all orders",
            description: "Cancel every open order of the account; lists each with the status of its cancel request.",
            properties: [:], required: [], effect: .destroys, idempotent: true
        ) { _, client in try await client.call("DELETE", "/v2/orders") },
        ToolDefinition(
            name: "get_all_positions", title: "Positions",
            description: "Every open position with its quantity, cost, market value and unrealized profit or loss.",
            properties: [:], required: [], effect: .reads, idempotent: true
        ) { _, client in try await client.get("/v2/positions") },
        ToolDefinition(
            name: "get_open_position", title: "Position",
            description: "One open position, by symbol (or an option contract's symbol or id).",
            properties: ["symbol": Schema.symbol], required: ["symbol"], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get("/v2/positions/" + PapertradeClient.path(try a.required("symbol").uppercased()))
        },
        ToolDefinition(
            name: "close_position", title: "Close a position",
            description: "Sell (or buy back) all of a position at market, or qty shares, or a percentage of it.",
            properties: [
                "symbol": Schema.symbol, "qty": Schema.amount("Close only this many shares."),
                "percentage": Schema.amount("Close only this percent of the position (50 = half)."),
            ], required: ["symbol"], effect: .destroys, idempotent: false
        ) { a, client in
            var path = "/v2/positions/" + PapertradeClient.path(try a.required("symbol").uppercased())
            let query = PapertradeClient.queryItems([
                "qty": try a.decimal("qty"), "percentage": try a.decimal("percentage"),
            ])
            if !query.isEmpty {
                var components = URLComponents()
                components.queryItems = query
                path += "?" + (components.percentEncodedQuery ?? "")
            }
            return try await client.call("DELETE", path)
        },
        ToolDefinition(
            name: "close_all_positions", title: "Close all positions",
            description: "Liquidate every position at market; with cancel_orders, cancel open orders first.",
            properties: ["cancel_orders": Schema.boolean("Cancel open orders first.")], required: [],
            effect: .destroys, idempotent: false
        ) { a, client in
            try await client.call(
                "DELETE", "/v2/positions" + ((try a.bool("cancel_orders") ?? false) ? "?cancel_orders=true" : ""))
        },
    ]

    // MARK: - Market data

    static let marketData: [ToolDefinition] = [
        ToolDefinition(
            name: "get_stock_latest_quote", title: "Latest quote",
            description: "The best bid and ask now, per symbol.",
            properties: ["symbols": Schema.symbols("Symbols to quote.")], required: ["symbols"], effect: .reads,
            idempotent: true
        ) { a, client in
            try await client.get("/v2/stocks/quotes/latest", ["symbols": try symbolList(a)])
        },
        ToolDefinition(
            name: "get_stock_snapshot", title: "Snapshot",
            description: "Per symbol: the latest trade and quote, this minute's and today's bar, and yesterday's bar.",
            properties: ["symbols": Schema.symbols("Symbols.")], required: ["symbols"], effect: .reads,
            idempotent: true
        ) { a, client in
            try await client.get("/v2/stocks/snapshots", ["symbols": try symbolList(a)])
        },
        ToolDefinition(
            name: "get_stock_bars", title: "Price bars",
            description:
                "Historical bars (open, high, low, close, volume) per symbol. With days (or hours, minutes) instead of start: that long before now.",
            properties: [
                "symbols": Schema.symbols("Symbols."),
                "timeframe": Schema.string("1Min … 59Min, 1Hour … 23Hour, 1Day, 1Week or 1Month (default 1Day)."),
                "start": Schema.time, "end": Schema.time,
                "days": Schema.integer("Start this many days ago.", maximum: 3650),
                "hours": Schema.integer("Start this many hours ago.", maximum: 24 * 365),
                "minutes": Schema.integer("Start this many minutes ago.", maximum: 60 * 24 * 30),
                "limit": Schema.integer("At most this many bars (up to 10000).", maximum: 10_000),
                "sort": Schema.string("asc (oldest first) or desc.", values: ["asc", "desc"]),
            ], required: ["symbols"], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/v2/stocks/bars",
                [
                    "symbols": try symbolList(a), "timeframe": try a.string("timeframe") ?? "1Day",
                    "start": try start(a),
                    "end": try a.string("end"), "limit": try a.int("limit").map(String.init),
                    "sort": try a.string("sort"),
                ])
        },
        ToolDefinition(
            name: "get_clock", title: "Market clock",
            description: "Whether the US market is open now, with the next open and close.",
            properties: [:], required: [], effect: .reads, idempotent: true
        ) { _, client in try await client.get("/v2/clock") },
        ToolDefinition(
            name: "get_calendar", title: "Market calendar",
            description: "The US market's trading days between two dates, with their open and close times.",
            properties: ["start": Schema.date, "end": Schema.date], required: [], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get("/v2/calendar", ["start": try a.string("start"), "end": try a.string("end")])
        },
        ToolDefinition(
            name: "get_asset", title: "Asset",
            description: "A symbol's asset record: name, exchange, whether it is tradable, shortable, fractionable.",
            properties: ["symbol": Schema.symbol], required: ["symbol"], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get("/v2/assets/" + PapertradeClient.path(try a.required("symbol").uppercased()))
        },
    ]

    static func symbolList(_ a: ToolArguments) throws -> String {
        guard let symbols = try a.list("symbols") ?? a.string("symbol").map({ [$0] }), !symbols.isEmpty else {
            throw ToolFailure("symbols is required")
        }
        return symbols.map { $0.uppercased() }.joined(separator: ",")
    }

    // MARK: - Watchlists

    static let watchlists: [ToolDefinition] = [
        ToolDefinition(
            name: "get_watchlists", title: "Watchlists",
            description: "The account's watchlists with their symbols.",
            properties: [:], required: [], effect: .reads, idempotent: true
        ) { _, client in try await client.get("/v2/watchlists") },
        ToolDefinition(
            name: "create_watchlist", title: "Create a watchlist",
            description: "A new watchlist with a name and symbols.",
            properties: [
                "name": Schema.string("Its name (unique in the account)."), "symbols": Schema.symbols("Symbols."),
            ],
            required: ["name"], effect: .adds, idempotent: false
        ) { a, client in
            try await client.call(
                "POST", "/v2/watchlists",
                body: ["name": try a.required("name"), "symbols": try a.list("symbols")?.map { $0.uppercased() } ?? []])
        },
    ]

    // MARK: - Options

    static let options: [ToolDefinition] = [
        ToolDefinition(
            name: "get_option_contracts", title: "Option contracts",
            description: "Listed option contracts of underlyings, filtered by expiration, type and strike.",
            properties: [
                "underlying_symbols": Schema.symbols("Underlyings (AAPL, SPY…)."),
                "expiration_date": Schema.date, "expiration_date_gte": Schema.date,
                "expiration_date_lte": Schema.date, "type": Schema.string("call or put.", values: ["call", "put"]),
                "strike_price_gte": Schema.amount("Lowest strike."),
                "strike_price_lte": Schema.amount("Highest strike."),
                "limit": Schema.integer("At most this many (up to 10000).", maximum: 10_000),
            ], required: ["underlying_symbols"], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/v2/options/contracts",
                [
                    "underlying_symbols": try a.list("underlying_symbols")?.joined(separator: ",").uppercased(),
                    "expiration_date": try a.string("expiration_date"),
                    "expiration_date_gte": try a.string("expiration_date_gte"),
                    "expiration_date_lte": try a.string("expiration_date_lte"), "type": try a.string("type"),
                    "strike_price_gte": try a.decimal("strike_price_gte"),
                    "strike_price_lte": try a.decimal("strike_price_lte"),
                    "limit": try a.int("limit").map(String.init),
                ])
        },
        ToolDefinition(
            name: "get_option_chain", title: "Option chain",
            description:
                "Snapshots of an underlying's contracts: latest quote and trade, greeks and implied volatility.",
            properties: [
                "underlying_symbol": Schema.symbol, "expiration_date": Schema.date,
                "type": Schema.string("call or put.", values: ["call", "put"]),
                "strike_price_gte": Schema.amount("Lowest strike."),
                "strike_price_lte": Schema.amount("Highest strike."),
                "limit": Schema.integer("At most this many (up to 1000).", maximum: 1000),
            ], required: ["underlying_symbol"], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/v1beta1/options/snapshots/" + PapertradeClient.path(try a.required("underlying_symbol").uppercased()),
                [
                    "expiration_date": try a.string("expiration_date"), "type": try a.string("type"),
                    "strike_price_gte": try a.decimal("strike_price_gte"),
                    "strike_price_lte": try a.decimal("strike_price_lte"),
                    "limit": try a.int("limit").map(String.init),
                ])
        },
        ToolDefinition(
            name: "place_option_order", title: "Place an option order",
            description: """
                Buy or sell option contracts (OCC symbols, e.g. AAPL261218C00250000): market or limit, day or \
                gtc, whole contracts of 100 shares. Selling contracts not held writes them: a call covered by 100 \
                shares a contract, a put secured by its strike × 100 in cash. Multi-leg orders are not available yet.
                """,
            properties: [
                "symbol": Schema.string("The contract's OCC symbol."), "side": Schema.side,
                "qty": Schema.amount("Contracts."),
                "type": Schema.string(
                    "market, limit, stop or stop_limit.", values: ["market", "limit", "stop", "stop_limit"]),
                "time_in_force": Schema.string("day or gtc.", values: ["day", "gtc"]),
                "limit_price": Schema.amount("Limit price per share."), "stop_price": Schema.amount("Stop price."),
                "position_intent": Schema.string(
                    "buy_to_open, buy_to_close, sell_to_open or sell_to_close.",
                    values: ["buy_to_open", "buy_to_close", "sell_to_open", "sell_to_close"]),
                "client_order_id": Schema.string("Your own id for the order."),
                "legs": .object(["type": "array", "description": "Multi-leg orders: not available yet."]),
            ], required: ["symbol", "side", "qty"], effect: .adds, idempotent: false
        ) { a, client in
            if a.values["legs"] != nil, a.values["legs"] != .null {
                throw ToolFailure("multi-leg option orders are not available yet: place each leg on its own")
            }
            return try await client.call("POST", "/v2/orders", body: try orderBody(a))
        },
        ToolDefinition(
            name: "exercise_options_position", title: "Exercise options",
            description:
                "Exercise a long option position now (American style): shares are bought or sold at the strike.",
            properties: ["symbol_or_contract_id": Schema.string("The contract's OCC symbol or id.")],
            required: ["symbol_or_contract_id"], effect: .destroys, idempotent: false
        ) { a, client in
            try await client.call(
                "POST",
                "/v2/positions/" + PapertradeClient.path(try a.required("symbol_or_contract_id").uppercased())
                    + "/exercise")
        },
    ]

    // MARK: - papertrade's own

    static let papertrade: [ToolDefinition] = [
        ToolDefinition(
            name: "search_symbols", title: "Search symbols",
            description: "Find stocks, ETFs and indexes by ticker, A-share code or name (Apple, 茅台).",
            properties: [
                "query": Schema.string("What to look for."),
                "market": Schema.string("us or cn.", values: ["us", "cn"]),
                "limit": Schema.integer("At most this many (up to 50).", maximum: 50),
            ], required: ["query"], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/api/v1/search",
                [
                    "q": try a.required("query"), "market": try a.string("market"),
                    "limit": try a.int("limit").map(String.init),
                ])
        },
        ToolDefinition(
            name: "get_earnings_calendar", title: "Earnings calendar",
            description:
                "Companies' scheduled earnings reports between two dates (default: the coming week), before the open or after the close; a report moves the price at the next open.",
            properties: [
                "start": Schema.string("First date, YYYY-MM-DD (default today)."),
                "end": Schema.string("Last date, YYYY-MM-DD (default a week after start; at most a year after it)."),
                "symbols": Schema.string("Comma-separated symbols (default: every company)."),
                "market": Schema.string("us or cn.", values: ["us", "cn"]),
            ], required: [], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/api/v1/earnings",
                [
                    "from": try a.string("start"), "to": try a.string("end"), "symbols": try a.string("symbols"),
                    "market": try a.string("market"),
                ])
        },
        ToolDefinition(
            name: "get_performance", title: "Performance",
            description:
                "How the account did over a period: time- and money-weighted return, volatility, Sharpe, maximum drawdown, realized and unrealized P/L, dividends, fees, against its benchmark.",
            properties: [
                "period": Schema.string(
                    "1D, 1W, 1M, 3M, 6M, YTD, 1Y or ALL (default 1M).",
                    values: ["1D", "1W", "1M", "3M", "6M", "YTD", "1Y", "ALL"])
            ], required: [], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/api/v1/accounts/\(try await client.keyAccountID())/performance",
                ["period": try a.string("period")?.uppercased()])
        },
        ToolDefinition(
            name: "list_games", title: "Games",
            description: "Trading games: public ones, or (scope mine) those the account's owner runs or plays.",
            properties: ["scope": Schema.string("public or mine.", values: ["public", "mine"])], required: [],
            effect: .reads, idempotent: true
        ) { a, client in try await client.get("/api/v1/games", ["scope": try a.string("scope")]) },
        ToolDefinition(
            name: "get_leaderboard", title: "Leaderboard",
            description: "A game's standings: rank, player, return, equity, trades.",
            properties: ["game_id": Schema.string("The game's id.")], required: ["game_id"], effect: .reads,
            idempotent: true
        ) { a, client in
            try await client.get("/api/v1/games/\(PapertradeClient.path(try a.required("game_id")))/leaderboard")
        },
        ToolDefinition(
            name: "join_game", title: "Join a game",
            description: """
                Join a game for the account's owner (by game_id, with code for a private game, or by code alone): a \
                new game account with the game's starting cash. With api_key, also an API key to trade it (shown once).
                """,
            properties: [
                "game_id": Schema.string("The game's id."), "code": Schema.string("The join code."),
                "api_key": Schema.boolean("Also make an API key for the game account."),
            ], required: [], effect: .adds, idempotent: false
        ) { a, client in
            let body: [String: Any?] = ["code": try a.string("code"), "api_key": try a.bool("api_key") ?? false]
            if let game = try a.string("game_id") {
                return try await client.call("POST", "/api/v1/games/\(PapertradeClient.path(game))/join", body: body)
            }
            guard try a.string("code") != nil else { throw ToolFailure("give game_id or code") }
            return try await client.call("POST", "/api/v1/games/join", body: body)
        },
        ToolDefinition(
            name: "get_price_alerts", title: "Price alerts",
            description: "The owner's active price alerts.",
            properties: [:], required: [], effect: .reads, idempotent: true
        ) { _, client in try await client.get("/api/v1/alerts") },
        ToolDefinition(
            name: "create_price_alert", title: "Create a price alert",
            description: """
                A notification when a price condition holds (nothing is ordered). condition: crossing, crossing_up, \
                crossing_down, greater_than, less_than (with value or moving_average); entering_channel, \
                exiting_channel, inside_channel, outside_channel (lower, upper); moving_up, moving_down, \
                moving_up_percent, moving_down_percent (value, within).
                """,
            properties: [
                "symbol": Schema.symbol,
                "condition": Schema.string(
                    "The condition.",
                    values: [
                        "crossing", "crossing_up", "crossing_down", "greater_than", "less_than", "entering_channel",
                        "exiting_channel", "inside_channel", "outside_channel", "moving_up", "moving_down",
                        "moving_up_percent", "moving_down_percent",
                    ]),
                "value": Schema.amount("The price (or the move) to compare with."),
                "moving_average": Schema.integer("Compare with this many days' average close instead.", maximum: 400),
                "lower": Schema.amount("A channel's lower price."), "upper": Schema.amount("A channel's upper price."),
                "within": Schema.string("A move's window: bars (\"5\") or a duration (\"15m\", \"2h\", \"1d\")."),
                "frequency": Schema.string(
                    "once, once_per_bar or once_per_minute.", values: ["once", "once_per_bar", "once_per_minute"]),
                "message": Schema.string("A note shown with the notification."),
            ], required: ["symbol", "condition"], effect: .adds, idempotent: false
        ) { a, client in
            var within: Any? = try a.string("within")
            if let text = within as? String, let bars = Int(text) { within = bars }
            return try await client.call(
                "POST", "/api/v1/alerts",
                body: [
                    "symbol": try a.required("symbol").uppercased(), "condition": try a.required("condition"),
                    "value": try a.decimal("value"), "moving_average": try a.int("moving_average"),
                    "lower": try a.decimal("lower"), "upper": try a.decimal("upper"), "within": within,
                    "frequency": try a.string("frequency"), "message": try a.string("message"),
                ])
        },
        ToolDefinition(
            name: "get_queue_rules", title: "Queued order rules",
            description: "The account's queued rules (orders placed automatically when a condition holds).",
            properties: ["history": Schema.boolean("Rules that fired, failed or were canceled instead.")],
            required: [], effect: .reads, idempotent: true
        ) { a, client in
            try await client.get(
                "/api/v1/accounts/\(try await client.keyAccountID())/queue"
                    + ((try a.bool("history") ?? false) ? "/history" : ""))
        },
        ToolDefinition(
            name: "add_queue_rule", title: "Queue an order rule",
            description: """
                Queue purchase: an order placed automatically once, when a condition holds. condition: \
                price_at_least, price_at_most, change_percent_at_least, change_percent_at_most, within_of_limit_up, \
                within_percent_of_limit_up, within_of_limit_down, within_percent_of_limit_down, touches_limit_up \
                (no value), crosses_above_moving_average, crosses_below_moving_average (value: days).
                """,
            properties: [
                "symbol": Schema.symbol, "side": Schema.side, "qty": Schema.amount("Shares."),
                "notional": Schema.amount("An amount of money instead of qty."),
                "condition": Schema.string("The condition's type."),
                "value": Schema.amount("The condition's value (a price, a percent, or days for a moving average)."),
                "order_type": Schema.string(
                    "market, limit (with limit_price) or limit_up (A-shares: at the limit-up price).",
                    values: ["market", "limit", "limit_up"]),
                "limit_price": Schema.amount("The limit price of a limit order."),
                "until": Schema.date,
            ], required: ["symbol", "condition"], effect: .adds, idempotent: false
        ) { a, client in
            let type = try a.required("condition")
            var condition: [String: Any] = ["type": type]
            if let value = try a.decimal("value") {
                // A moving average's value is a number of days; every other value an amount.
                if type.contains("moving_average"), let days = Int(value) {
                    condition["value"] = days
                } else {
                    condition["value"] = value
                }
            }
            return try await client.call(
                "POST", "/api/v1/accounts/\(try await client.keyAccountID())/queue",
                body: [
                    "symbol": try a.required("symbol").uppercased(), "side": try a.string("side") ?? "buy",
                    "qty": try a.decimal("qty"), "notional": try a.decimal("notional"), "condition": condition,
                    "order_type": try a.string("order_type") ?? "market", "limit_price": try a.decimal("limit_price"),
                    "lifetime": try a.string("until").map { ["type": "until", "date": $0] },
                ])
        },
        ToolDefinition(
            name: "run_backtest", title: "Run a backtest",
            description: """
                Replay a strategy over history through papertrade's engine and report the return, Sharpe, drawdown \
                and trades (the daily equity curve is left out). strategy: buy-and-hold, sma-cross (params fast, \
                slow) or queue-rules (the account's queued rules).
                """,
            properties: [
                "symbols": Schema.symbols("Symbols to trade."), "from": Schema.date, "to": Schema.date,
                "strategy": Schema.string(
                    "buy-and-hold, sma-cross or queue-rules.", values: ["buy-and-hold", "sma-cross", "queue-rules"]),
                "fast": Schema.integer("sma-cross: the fast average's days.", maximum: 400),
                "slow": Schema.integer("sma-cross: the slow average's days.", maximum: 400),
                "qty": Schema.amount("Shares per trade."), "cash": Schema.amount("Starting cash."),
                "timeframe": Schema.string("1Day (default) or an intraday bar (5Min, 1Hour…)."),
            ], required: ["symbols"], effect: .adds, idempotent: false
        ) { a, client in
            var params: [String: Int] = [:]
            if let fast = try a.int("fast") { params["fast"] = fast }
            if let slow = try a.int("slow") { params["slow"] = slow }
            let strategy = try a.string("strategy")
            let body: [String: Any?] = [
                "symbols": try a.list("symbols")?.map { $0.uppercased() }, "from": try a.string("from"),
                "to": try a.string("to"), "strategy": strategy, "params": params.isEmpty ? nil : params,
                "qty": try a.decimal("qty"), "cash": try a.decimal("cash"), "timeframe": try a.string("timeframe"),
                "account_id": strategy == "queue-rules" ? try await client.keyAccountID() : nil,
            ]
            let started = try JSONSerialization.jsonObject(
                with: try await client.call("POST", "/api/v1/backtests", body: body))
            guard let id = (started as? [String: Any])?["id"] as? String else {
                throw ToolFailure("the backtest did not start")
            }
            for _ in 0..<1200 {
                let job = try await client.get("/api/v1/backtests/\(id)")
                guard var o = try JSONSerialization.jsonObject(with: job) as? [String: Any] else { break }
                if o["status"] as? String == "running" {
                    try await Task.sleep(for: .milliseconds(250))
                    continue
                }
                if var result = o["result"] as? [String: Any] {
                    result.removeValue(forKey: "equity")
                    o["result"] = result
                }
                if o["status"] as? String == "failed" {
                    throw ToolFailure((o["error"] as? String) ?? "the backtest failed")
                }
                return try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])
            }
            throw ToolFailure("the backtest is still running after five minutes: its id is \(id)")
        },
    ]
}
