import JSON

/// The Alpaca-compatible surface (/v2, /v3, /v1beta1, /v1) in /openapi.json: every route papertrade serves, with
/// its parameters (types, enums, ranges), its request bodies and the statuses it answers. Statuses every route
/// shares (401, 404, 422, 429) are added by `OpenAPIDocument.normalized`.
enum AlpacaOpenAPI {
    typealias S = OpenAPISchema

    static func query(_ name: String, _ description: String, _ schema: JSONValue = S.string, required: Bool = false)
        -> JSONValue
    {
        OpenAPIDocument.parameter(name, in: "query", required: required, description, schema: schema)
    }

    static func path(_ name: String, _ description: String, _ schema: JSONValue = S.string) -> JSONValue {
        OpenAPIDocument.parameter(name, in: "path", required: true, description, schema: schema)
    }

    static func op(
        _ summary: String, _ parameters: [JSONValue], body: JSONValue? = nil, _ responses: [String: String]
    ) -> JSONValue {
        OpenAPIDocument.operation(summary, security: "alpaca", parameters: parameters, body: body, responses: responses)
    }

    static func op(_ summary: String, body: JSONValue? = nil, _ responses: [String: String]) -> JSONValue {
        op(summary, [], body: body, responses)
    }

    // MARK: Shared parameters

    static let symbol = path("symbol", "ticker or A-share code", S.example(S.string, "AAPL"))
    static let symbols = query("symbols", "comma-separated symbols", S.example(S.string, "AAPL,600519"), required: true)
    static let start = query("start", "RFC 3339 time or YYYY-MM-DD (inclusive)", S.time)
    static let end = query("end", "RFC 3339 time or YYYY-MM-DD (exclusive)", S.time)
    static let limit = query("limit", "1–10000, default 1000", S.integer(1...10_000))
    static let pageToken = query("page_token", "next_page_token of the previous page")
    static let sort = query("sort", "asc (default) or desc", S.caseless(["asc", "desc"]))
    static let feed = query(
        "feed", "iex, sip, otc, delayed_sip, boats or overnight (all served from the same feed)",
        S.caseless(["iex", "sip", "otc", "boats", "delayed_sip", "overnight"]))
    static let currency = query("currency", "USD only", S.caseless(["USD"]))
    static let asof = query("asof", "YYYY-MM-DD (symbols are not renamed here)", S.date)
    static let timeframe = query(
        "timeframe", "1Min … 59Min, 1Hour … 23Hour, 1Day, 1Week, 1Month … 12Month", S.timeframe, required: true)
    static let adjustment = query(
        "adjustment", "raw (default), split, dividend or all", S.enumeration(["raw", "split", "dividend", "all"]))
    static func history(_ extra: [JSONValue] = []) -> [JSONValue] {
        [start, end, limit, feed, currency, pageToken, sort, asof] + extra
    }

    // MARK: Bodies

    /// A simple, bracket, oco or oto order needs `symbol` and `side`; a multi-leg (`mleg`) order names its contracts in
    /// `legs` instead, with `qty` its strategy units and `limit_price` its net price (negative: a credit).
    static let order = S.object(
        required: ["type", "time_in_force"],
        [
            "symbol": S.string, "qty": S.decimal, "notional": S.decimal,
            "side": S.enumeration(["buy", "sell"]),
            "type": S.enumeration(["market", "limit", "stop", "stop_limit", "trailing_stop"]),
            "time_in_force": S.enumeration(["day", "gtc", "opg", "cls", "ioc", "fok"]),
            "limit_price": S.decimal, "stop_price": S.decimal, "trail_price": S.decimal, "trail_percent": S.decimal,
            "extended_hours": S.boolean, "client_order_id": S.string,
            // papertrade's: the trader's reason (a class's trade journal; required where the class asks for it).
            "note": .object([
                "type": .string("string"), "maxLength": .number("2000"),
                "description": .string("why the order is placed: kept on the order, unchangeable (papertrade)"),
            ]),
            "order_class": S.enumeration(["", "simple", "bracket", "oco", "oto", "mleg"]),
            "legs": .object([
                "type": .string("array"), "minItems": .number("2"), "maxItems": .number("4"),
                "items": S.object(
                    required: ["symbol", "ratio_qty"],
                    [
                        "symbol": S.string, "ratio_qty": S.decimal, "side": S.enumeration(["buy", "sell"]),
                        "position_intent": S.enumeration([
                            "buy_to_open", "buy_to_close", "sell_to_open", "sell_to_close",
                        ]),
                    ]),
            ]),
            "take_profit": S.object(required: ["limit_price"], ["limit_price": S.decimal]),
            "stop_loss": S.object(required: ["stop_price"], ["stop_price": S.decimal, "limit_price": S.decimal]),
            "position_intent": S.enumeration(["buy_to_open", "buy_to_close", "sell_to_open", "sell_to_close"]),
        ])
    static let replacement = S.object(
        required: [],
        [
            "qty": S.decimal, "time_in_force": S.enumeration(["day", "gtc", "opg", "cls", "ioc", "fok"]),
            "limit_price": S.decimal, "stop_price": S.decimal, "trail": S.decimal, "client_order_id": S.string,
        ])
    static let watchlist = S.object(
        required: ["name"], ["name": S.string, "symbols": .object(["type": .string("array"), "items": S.string])])
    static let watchlistUpdate = S.object(
        required: [], ["name": S.string, "symbols": .object(["type": .string("array"), "items": S.string])])
    static let watchlistSymbol = S.object(required: ["symbol"], ["symbol": S.string])
    /// alpaca-py PATCHes the whole model, nulls for what it leaves alone: every property may be null.
    static let configurations = S.object(
        required: [],
        [
            "dtbp_check": S.enumeration(["both", "entry", "exit"]),
            "trade_confirm_email": S.enumeration(["all", "none"]), "suspend_trade": S.boolean,
            "no_shorting": S.boolean, "fractional_trading": S.boolean,
            "max_margin_multiplier": S.enumeration(["1", "2", "4"]),
            "pdt_check": S.enumeration(["both", "entry", "exit"]), "pdt_protection": S.boolean,
            "max_options_trading_level": S.integer(0...3), "ptp_no_exception_entry": S.boolean,
        ].mapValues(S.nullable))

    // MARK: Paths

    static var paths: [String: JSONValue] {
        var p: [String: JSONValue] = [:]
        let orderID = path("id", "order id", S.uuid)
        p["/v2/account"] = .object([
            "get": op("The account: cash, equity, buying power and margin figures", ["200": "account"])
        ])
        p["/v2/account/configurations"] = .object([
            "get": op("Account configurations", ["200": "configurations"]),
            "patch": op(
                "Change configurations (nulls keep the current value)", body: configurations,
                ["200": "configurations", "403": "margin settings of a cash account"]),
        ])
        let activityType = S.enumeration(Self.activityTypes)
        let activityFilters = [
            query("date", "YYYY-MM-DD", S.date), query("until", "RFC 3339 time or YYYY-MM-DD", S.time),
            query("after", "RFC 3339 time or YYYY-MM-DD", S.time),
            query("direction", "desc (default) or asc", S.caseless(["asc", "desc"])),
            query("page_size", "1–1000, default 100", S.integer(1...1000)), pageToken,
            query(
                "category", "trade_activity or non_trade_activity",
                S.enumeration(["trade_activity", "non_trade_activity"])),
        ]
        p["/v2/account/activities"] = .object([
            "get": op(
                "Activities: fills, transfers, fees, interest, dividends, splits",
                [query("activity_types", "comma-separated activity types", S.string)] + activityFilters,
                ["200": "activities"])
        ])
        p["/v2/account/activities/{activity_type}"] = .object([
            "get": op(
                "Activities of one type", [path("activity_type", "activity type", activityType)] + activityFilters,
                ["200": "activities"])
        ])
        p["/v2/account/portfolio/history"] = .object([
            "get": op(
                "Equity and profit and loss over a period",
                [
                    query(
                        "period", "1D, 1W, 1M, 3M, 6M, 1A, all, or n days, weeks, months or years (2W)",
                        S.pattern("^([1-9][0-9]?[DWMA]|all|ALL)$")),
                    query(
                        "timeframe", "1Min, 5Min, 15Min, 1H or 1D",
                        S.enumeration(["1Min", "5Min", "15Min", "1H", "1D"])),
                    query("start", "YYYY-MM-DD or RFC 3339", S.time), query("end", "YYYY-MM-DD or RFC 3339", S.time),
                    query("date_end", "YYYY-MM-DD", S.date),
                    query("pnl_reset", "per_day or no_reset", S.enumeration(["per_day", "no_reset"])),
                    query("extended_hours", "ignored", S.boolean),
                ],
                ["200": "history"])
        ])
        p["/v2/orders"] = .object([
            "get": op(
                "Orders",
                [
                    query("status", "open (default), closed or all", S.caseless(["open", "closed", "all"])),
                    query("limit", "1–500, default 50", S.integer(1...500)),
                    query("after", "RFC 3339 time or YYYY-MM-DD", S.time),
                    query("until", "RFC 3339 time or YYYY-MM-DD", S.time),
                    query("direction", "desc (default) or asc", S.caseless(["asc", "desc"])),
                    query("nested", "legs inside their parent", S.boolean),
                    query("symbols", "comma-separated symbols"),
                ],
                ["200": "orders"]),
            "post": op(
                "Place an order", body: order,
                ["200": "the order", "403": "insufficient buying power or shares; short sale or day trade refused"]),
            "delete": op("Cancel every open order", ["207": "one result per order"]),
        ])
        p["/v2/orders:by_client_order_id"] = .object([
            "get": op(
                "An order by its client order id", [query("client_order_id", "client order id", required: true)],
                ["200": "the order"])
        ])
        p["/v2/orders/{id}"] = .object([
            "get": op("An order", [orderID, query("nested", "legs inside", S.boolean)], ["200": "the order"]),
            "patch": op(
                "Replace an open order", [orderID], body: replacement, ["200": "the new order", "403": "refused"]),
            "delete": op("Cancel an order", [orderID], ["204": "canceled"]),
        ])
        p["/v2/positions"] = .object([
            "get": op("Open positions, long and short", ["200": "positions"]),
            "delete": op(
                "Close every position", [query("cancel_orders", "cancel open orders first", S.boolean)],
                ["207": "one result per position"]),
        ])
        p["/v2/positions/{symbol}"] = .object([
            "get": op("One position", [symbol], ["200": "position"]),
            "delete": op(
                "Close (part of) a position at market",
                [symbol, query("qty", "shares", S.decimal), query("percentage", "0–100", S.decimal)],
                ["200": "the closing order", "403": "refused"]),
        ])
        p["/v2/positions/{symbol}/exercise"] = .object([
            "post": op(
                "Exercise every contract of a long option position now",
                [path("symbol", "OCC symbol or contract id", S.example(S.string, "AAPL261218C00250000"))],
                [
                    "200": "exercised (empty body)", "403": "no position, or it cannot be exercised",
                    "422": "invalid symbol",
                ])
        ])
        p["/v2/positions/{symbol}/do-not-exercise"] = .object([
            "post": op(
                "Do not exercise a long option position at expiry (it expires worthless even in the money)",
                [path("symbol", "OCC symbol or contract id", S.example(S.string, "AAPL261218C00250000"))],
                [
                    "200": "instruction taken (empty body)",
                    "403": "no position, a short one, or past 4:30 pm ET on its expiration day",
                    "422": "invalid symbol",
                ])
        ])
        p["/v2/assets"] = .object([
            "get": op(
                "Every asset",
                [
                    // Any letter case; empty is the same as absent (no filter), as the server reads them.
                    query("status", "active or inactive", S.caseless(["", "active", "inactive"])),
                    query(
                        "asset_class", "us_equity (the default), crypto or us_option",
                        S.caseless(["", "us_equity", "crypto", "us_option"])),
                    query(
                        "exchange", "AMEX, ARCA, BATS, NYSE, NASDAQ, NYSEARCA or OTC",
                        S.caseless(["", "AMEX", "ARCA", "BATS", "NYSE", "NASDAQ", "NYSEARCA", "OTC", "CRYPTO"])),
                    query("attributes", "comma-separated attributes"),
                ],
                ["200": "assets"])
        ])
        p["/v2/assets/{symbol}"] = .object(["get": op("One asset", [symbol], ["200": "asset"])])
        let pair = [
            path("symbol", "the pair's coin", S.example(S.string, "BTC")),
            path("quote", "the pair's quote currency", S.example(S.string, "USD")),
        ]
        p["/v2/assets/{symbol}/{quote}"] = .object([
            "get": op("A crypto pair (BTC/USD, as alpaca-py asks for it)", pair, ["200": "asset"])
        ])
        p["/v2/positions/{symbol}/{quote}"] = .object([
            "get": op("A crypto position (BTC/USD)", pair, ["200": "position", "404": "no position"]),
            "delete": op(
                "Close a crypto position, or part of it (in the pair's steps)",
                pair + [query("qty", "coins", S.decimal), query("percentage", "0–100", S.decimal)],
                ["200": "the closing order", "404": "no position"]),
        ])
        p["/v2/watchlists"] = .object([
            "get": op("Watchlists", ["200": "watchlists"]),
            "post": op("Create a watchlist", body: watchlist, ["200": "the watchlist"]),
        ])
        let watchlistID = path("id", "watchlist id", S.uuid)
        let name = query("name", "watchlist name", required: true)
        p["/v2/watchlists/{id}"] = .object([
            "get": op("A watchlist", [watchlistID], ["200": "the watchlist"]),
            "put": op("Rename or replace its symbols", [watchlistID], body: watchlistUpdate, ["200": "the watchlist"]),
            "post": op("Add a symbol", [watchlistID], body: watchlistSymbol, ["200": "the watchlist"]),
            "delete": op("Delete a watchlist", [watchlistID], ["204": "deleted"]),
        ])
        p["/v2/watchlists/{id}/{symbol}"] = .object([
            "delete": op("Remove a symbol", [watchlistID, symbol], ["200": "the watchlist"])
        ])
        p["/v2/watchlists:by_name"] = .object([
            "get": op("A watchlist by name", [name], ["200": "the watchlist"]),
            "put": op("Rename or replace its symbols", [name], body: watchlistUpdate, ["200": "the watchlist"]),
            "post": op("Add a symbol", [name], body: watchlistSymbol, ["200": "the watchlist"]),
            "delete": op("Delete a watchlist", [name], ["204": "deleted"]),
        ])
        p["/v2/clock"] = .object(["get": op("Market clock (US)", ["200": "clock"])])
        p["/v2/calendar"] = .object([
            "get": op(
                "US trading days (the whole table without dates)",
                [
                    query("start", "YYYY-MM-DD", S.date), query("end", "YYYY-MM-DD", S.date),
                    query("date_type", "TRADING or SETTLEMENT", S.caseless(["TRADING", "SETTLEMENT"])),
                ],
                ["200": "calendar"])
        ])
        p["/v3/clock"] = .object([
            "get": op(
                "Clocks of NYSE and the Shanghai and Shenzhen exchanges",
                [
                    query("markets", "comma-separated: NYSE, NASDAQ, XNYS, XSHG, XSHE, SSE, SZSE"),
                    query("time", "RFC 3339 time", S.time),
                ],
                ["200": "clocks"])
        ])
        p["/v3/calendar/{market}"] = .object([
            "get": op(
                "A market's trading days with core and extended sessions",
                [
                    path(
                        "market", "NYSE, NASDAQ, XNYS, XSHG, XSHE, SSE or SZSE",
                        S.enumeration(["NYSE", "NASDAQ", "XNYS", "XSHG", "XSHE", "SSE", "SZSE"])),
                    query("start", "YYYY-MM-DD", S.date), query("end", "YYYY-MM-DD", S.date),
                    query("timezone", "the exchange's (default) or UTC", S.caseless(["UTC"])),
                ],
                ["200": "calendar"])
        ])
        p["/v2/corporate_actions/announcements"] = .object([
            "get": op(
                "Dividends and splits announced, by a date window of at most 90 days",
                [
                    query("ca_types", "comma-separated: dividend, merger, spinoff, split", required: true),
                    query("since", "YYYY-MM-DD", S.date, required: true),
                    query("until", "YYYY-MM-DD", S.date, required: true),
                    query("symbol", "symbol"), query("cusip", "CUSIP (none are known here)"),
                    query(
                        "date_type", "which date the window applies to",
                        S.enumeration(["declaration_date", "ex_date", "record_date", "payable_date"])),
                ],
                ["200": "announcements"])
        ])
        p["/v2/corporate_actions/announcements/{id}"] = .object([
            "get": op("One announcement", [path("id", "announcement id", S.uuid)], ["200": "announcement"])
        ])
        p["/v1/corporate-actions"] = .object([
            "get": op(
                "Corporate actions by ex-date (Market Data API)",
                [
                    query("symbols", "comma-separated symbols"), query("types", "comma-separated types"),
                    query("start", "YYYY-MM-DD", S.date), query("end", "YYYY-MM-DD", S.date),
                    query("ids", "comma-separated ids"), query("limit", "1–1000", S.integer(1...1000)), sort, pageToken,
                ],
                ["200": "corporate actions by type"])
        ])
        p["/v1beta1/news"] = .object([
            "get": op(
                "News: a provider's, or the simulated market's announcements",
                [
                    query("symbols", "comma-separated symbols"), start, end,
                    query("limit", "1–50, default 10", S.integer(1...50)),
                    query("sort", "desc (default) or asc", S.caseless(["asc", "desc"])),
                    query("include_content", "content too", S.boolean),
                    query("exclude_contentless", "only items with content", S.boolean), pageToken,
                ],
                ["200": "news"])
        ])
        p["/v1beta1/screener/stocks/most-actives"] = .object([
            "get": op(
                "Most active US stocks",
                [
                    query("by", "volume (default) or trades", S.caseless(["volume", "trades"])),
                    query("top", "1–100, default 10", S.integer(1...100)),
                ],
                ["200": "most actives"])
        ])
        p["/v1beta1/screener/stocks/movers"] = .object([
            "get": op(
                "Top gainers and losers", [query("top", "1–50, default 10", S.integer(1...50))], ["200": "movers"])
        ])
        // Market data
        p["/v2/stocks/bars"] = .object([
            "get": op(
                "Historical bars, several symbols", [symbols, timeframe, adjustment] + history(),
                ["200": "bars by symbol"])
        ])
        p["/v2/stocks/{symbol}/bars"] = .object([
            "get": op("Historical bars", [symbol, timeframe, adjustment] + history(), ["200": "bars"])
        ])
        for (kind, what) in [("trades", "trades"), ("quotes", "quotes")] {
            p["/v2/stocks/\(kind)"] = .object([
                "get": op("Historical \(what), several symbols", [symbols] + history(), ["200": "\(what) by symbol"])
            ])
            p["/v2/stocks/{symbol}/\(kind)"] = .object([
                "get": op("Historical \(what)", [symbol] + history(), ["200": what])
            ])
        }
        p["/v2/stocks/auctions"] = .object([
            "get": op(
                "Opening and closing auctions, several symbols", [symbols] + history(), ["200": "auctions by symbol"])
        ])
        p["/v2/stocks/{symbol}/auctions"] = .object([
            "get": op("Opening and closing auctions", [symbol] + history(), ["200": "auctions"])
        ])
        for (kind, what) in [("bars", "bar"), ("quotes", "quote"), ("trades", "trade")] {
            p["/v2/stocks/\(kind)/latest"] = .object([
                "get": op(
                    "The latest \(what) of several symbols", [symbols, feed, currency], ["200": "\(what)s by symbol"])
            ])
            p["/v2/stocks/{symbol}/\(kind)/latest"] = .object([
                "get": op("The latest \(what)", [symbol, feed, currency], ["200": what])
            ])
        }
        p["/v2/stocks/snapshots"] = .object([
            "get": op("Snapshots of several symbols", [symbols, feed, currency], ["200": "snapshots by symbol"])
        ])
        p["/v2/stocks/{symbol}/snapshot"] = .object([
            "get": op(
                "A snapshot: latest trade, quote, minute, daily and previous daily bar", [symbol, feed, currency],
                ["200": "snapshot"])
        ])
        options(&p)
        crypto(&p)
        p["/v2/stocks/meta/exchanges"] = .object(["get": op("Exchange codes", ["200": "codes"])])
        p["/v2/stocks/meta/conditions/{ticktype}"] = .object([
            "get": op(
                "Trade or quote condition codes",
                [
                    path("ticktype", "trade or quote", S.enumeration(["trade", "quote"])),
                    query("tape", "A, B or C", S.caseless(["A", "B", "C"])),
                ],
                ["200": "codes"])
        ])
        return p
    }

    /// Alpaca's WebSocket streams, each opened with `{"action": "auth", "key", "secret"}` (trade_updates: `listen`),
    /// then `subscribe`/`unsubscribe` with lists of symbols by channel.
    static let streams: JSONValue = {
        func stream(_ path: String, _ description: String, format: String, channels: [String]) -> JSONValue {
            .object([
                "path": .string(path), "description": .string(description), "format": .string(format),
                "channels": .array(channels.map(JSONValue.string)),
            ])
        }
        return .array([
            stream(
                "/stream", "Order updates of the key's account (alpaca-py's TradingStream)", format: "JSON",
                channels: ["trade_updates"]),
            stream(
                "/v2/{feed}", "Stocks (feed iex or sip; alpaca-py's StockDataStream)", format: "MessagePack",
                channels: ["trades", "quotes", "bars", "statuses"]),
            stream(
                "/v1beta1/{feed}",
                "Option contracts by OCC symbol (feed indicative or opra; alpaca-py's OptionDataStream)",
                format: "MessagePack", channels: ["trades", "quotes"]),
            stream(
                "/v1beta3/crypto/{feed}",
                "Crypto pairs, BTC/USD or * (feed us, us-1 or eu-1; alpaca-py's CryptoDataStream): order books whole first (r: true), then their changed levels",
                format: "MessagePack", channels: ["trades", "quotes", "orderbooks", "bars", "updatedBars", "dailyBars"]),
        ])
    }()

    /// Crypto market data (/v1beta3/crypto/{feed}): every feed is the same market.
    static func crypto(_ p: inout [String: JSONValue]) {
        let feed = path("feed", "us, us-1 or eu-1", S.enumeration(["us", "us-1", "eu-1"]))
        let pairs = query(
            "symbols", "comma-separated crypto pairs", S.example(S.string, "BTC/USD,ETH/USD"), required: true)
        let history = [start, end, limit, pageToken, sort]
        p["/v1beta3/crypto/{feed}/bars"] = .object([
            "get": op("Historical crypto bars", [feed, pairs, timeframe] + history, ["200": "bars by pair"])
        ])
        for (kind, what) in [("quotes", "quotes"), ("trades", "trades")] {
            p["/v1beta3/crypto/{feed}/\(kind)"] = .object([
                "get": op("Historical crypto \(what)", [feed, pairs] + history, ["200": "\(what) by pair"])
            ])
        }
        for (kind, what) in [("bars", "minute bar"), ("quotes", "quote"), ("trades", "trade"), ("orderbooks", "book")] {
            p["/v1beta3/crypto/{feed}/latest/\(kind)"] = .object([
                "get": op("The latest \(what) of crypto pairs", [feed, pairs], ["200": "\(what)s by pair"])
            ])
        }
        p["/v1beta3/crypto/{feed}/snapshots"] = .object([
            "get": op(
                "Snapshots of crypto pairs: latest trade, quote, minute, daily and previous daily bar", [feed, pairs],
                ["200": "snapshots by pair"])
        ])
    }

    /// Option contracts (/v2) and option market data (/v1beta1).
    static func options(_ p: inout [String: JSONValue]) {
        let date = { (name: String, what: String) in query(name, what, S.date) }
        let expirations = [
            date("expiration_date", "exactly this expiration"), date("expiration_date_gte", "expiring on or after"),
            date(
                "expiration_date_lte",
                "expiring on or before (contracts: the coming weekend when no expiration is given)"),
        ]
        let strikes = [
            query("strike_price_gte", "strike at least", S.decimal),
            query("strike_price_lte", "strike at most", S.decimal),
        ]
        let type = query("type", "call or put", S.caseless(["call", "put"]))
        let root = query("root_symbol", "OCC root, e.g. AAPL")
        let optionFeed = query(
            "feed", "opra or indicative (both served from the simulated chains)", S.caseless(["opra", "indicative"]))
        let optionSymbols = query(
            "symbols", "1–100 comma-separated OCC symbols", S.example(S.string, "AAPL261218C00250000"), required: true)
        p["/v2/options/contracts"] = .object([
            "get": op(
                "Option contracts, in chain order",
                [
                    query("underlying_symbols", "comma-separated underlyings (all optionable ones when absent)"),
                    query(
                        "status", "active (default) or inactive (expired in the last 62 days)",
                        S.caseless(["active", "inactive"])),
                    type, query("style", "american or european", S.caseless(["american", "european"])), root,
                    query("limit", "1–10000, default 100", S.integer(1...10_000)), pageToken,
                    query("ppind", "Penny Program classes only (every class here is one)", S.boolean),
                    query("show_deliverables", "include each contract's deliverables", S.boolean),
                ] + expirations + strikes,
                ["200": "option_contracts and next_page_token"])
        ])
        p["/v2/options/contracts/{symbol_or_id}"] = .object([
            "get": op(
                "One option contract by OCC symbol or id",
                [path("symbol_or_id", "OCC symbol or contract id", S.example(S.string, "AAPL261218C00250000"))],
                ["200": "the contract"])
        ])
        p["/v1beta1/options/snapshots"] = .object([
            "get": op(
                "Snapshots of option contracts: latest quote and trade, greeks, implied volatility",
                [optionSymbols, optionFeed, query("limit", "1–1000", S.integer(1...1000)), pageToken],
                ["200": "snapshots by symbol"])
        ])
        p["/v1beta1/options/snapshots/{underlying_symbol}"] = .object([
            "get": op(
                "The option chain of an underlying: snapshots of its active contracts",
                [
                    path("underlying_symbol", "an optionable underlying", S.example(S.string, "SPY")), optionFeed, type,
                    root, query("limit", "1–1000, default 100", S.integer(1...1000)), pageToken,
                    query("updated_since", "RFC 3339", S.dateTime),
                ] + expirations + strikes,
                ["200": "snapshots by symbol"])
        ])
        let optionHistory = [
            optionSymbols, start, end, limit, pageToken,
            query("sort", "asc (default) or desc", S.caseless(["asc", "desc"])),
        ]
        p["/v1beta1/options/bars"] = .object([
            "get": op("Historical bars of option contracts", optionHistory + [timeframe], ["200": "bars by symbol"])
        ])
        p["/v1beta1/options/trades"] = .object([
            "get": op("Historical trades of option contracts", optionHistory, ["200": "trades by symbol"])
        ])
        for (kind, what) in [("quotes", "quote"), ("trades", "trade")] {
            p["/v1beta1/options/\(kind)/latest"] = .object([
                "get": op(
                    "The latest \(what) of option contracts", [optionSymbols, optionFeed], ["200": "\(what)s by symbol"]
                )
            ])
        }
        p["/v1beta1/options/meta/exchanges"] = .object(["get": op("Option exchange codes", ["200": "codes"])])
        p["/v1beta1/options/meta/conditions/{ticktype}"] = .object([
            "get": op(
                "Option trade or quote condition codes",
                [path("ticktype", "trade or quote", S.enumeration(["trade", "quote"]))], ["200": "codes"])
        ])
    }

    static let activityTypes = [
        "FILL", "TRANS", "MISC", "ACATC", "ACATS", "CFEE", "CIL", "CSD", "CSW", "DIV", "DIVCGL", "DIVCGS", "DIVFEE",
        "DIVFT", "DIVNRA", "DIVROC", "DIVTW", "DIVTXEX", "FEE", "INT", "INTNRA", "INTTW", "JNL", "JNLC", "JNLS", "MA",
        "NC", "OPASN", "OPCA", "OPCSH", "OPEXC", "OPEXP", "OPTRD", "PTC", "PTR", "REORG", "SC", "SSO", "SSP", "SPLIT",
        "FORWARD_SPLIT", "REVERSE_SPLIT", "FXTRD", "VOF", "RESET",
    ]
}
