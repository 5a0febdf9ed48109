import JSON
import MarketData

/// The native API (/api/v1, the web app's and the CLI's) in /openapi.json: its paths, bodies and components.
/// `OpenAPIDocument` merges it with the Alpaca surface and adds the statuses every operation of a kind answers.
enum NativeOpenAPI {
    static func op(
        _ summary: String, auth: Bool = false, parameters: [JSONValue] = [], body: String? = nil,
        responses: [String: String]
    ) -> JSONValue {
        OpenAPIDocument.operation(
            summary, security: auth ? "session" : nil, parameters: parameters,
            body: body.map { .object(["$ref": .string("#/components/schemas/\($0)")]) }, responses: responses)
    }

    static func param(_ name: String, in location: String, required: Bool = true, _ description: String) -> JSONValue {
        OpenAPIDocument.parameter(name, in: location, required: required, description)
    }

    /// The games' enumerated settings, shared by their creation and change bodies.
    static let gameEnums = (
        portfolios: OpenAPISchema.enumeration(["never", "after_end", "always"]),
        ranking: OpenAPISchema.enumeration(["return", "sharpe", "excess_return"]),
        visibility: OpenAPISchema.enumeration(["public", "private"])
    )

    static let document: JSONValue = .object([
        "openapi": .string("3.1.0"),
        "info": .object([
            "title": .string("papertrade native API"), "version": .string("1"),
            "description": .string(
                "What the web app needs beyond the Alpaca-compatible /v2 surface. Decimals are JSON strings."),
        ]),
        "components": .object([
            "securitySchemes": .object([
                "session": .object([
                    "type": .string("apiKey"), "in": .string("cookie"), "name": .string("papertrade_session"),
                ])
            ]),
            "schemas": .object([
                "Credentials": .object([
                    "type": .string("object"), "required": .array([.string("username"), .string("password")]),
                    "properties": .object([
                        "username": .object(["type": .string("string")]),
                        "password": .object(["type": .string("string"), "minLength": .int(8)]),
                        "language": .object([
                            "type": .string("string"),
                            "description": .string(
                                "signup only: the user's language (a BCP 47 tag, e.g. zh-CN); names the new accounts and is kept as with PUT /api/v1/me"
                            ),
                        ]),
                    ]),
                ]),
                "BacktestRequest": .object([
                    "type": .string("object"),
                    "properties": .object([
                        "symbols": .object(["type": .string("array"), "items": .object(["type": .string("string")])]),
                        "from": OpenAPISchema.date, "to": OpenAPISchema.date,
                        "strategy": .object([
                            "type": .string("string"),
                            "enum": .array([.string("buy-and-hold"), .string("sma-cross"), .string("queue-rules")]),
                        ]),
                        "params": .object(["type": .string("object")]),
                        "qty": OpenAPISchema.decimal, "cash": OpenAPISchema.decimal,
                        "fill": .object([
                            "type": .string("string"), "enum": .array([.string("next-open"), .string("close")]),
                        ]),
                        "commission": .object(["type": .string("string")]),
                        "rules": .object(["type": .string("array"), "items": .object(["type": .string("object")])]),
                        "account_id": OpenAPISchema.uuid,
                        "source": OpenAPISchema.enumeration(["feed", "real"]),
                        "timeframe": .object([
                            "type": .string("string"),
                            "pattern": .string("^([1-9]|[1-5][0-9])Min$|^([1-9]|1[0-9]|2[0-3])Hour$|^1Day$"),
                        ]),
                    ]),
                ]),
                "GameCreate": .object([
                    "type": .string("object"), "required": .array([.string("name"), .string("starting_cash")]),
                    "properties": .object([
                        "name": .object(["type": .string("string"), "maxLength": .int(100)]),
                        "description": .object(["type": .string("string")]),
                        "market": .object(["type": .string("string"), "enum": .array([.string("us"), .string("cn")])]),
                        "starting_cash": OpenAPISchema.decimal,
                        "visibility": gameEnums.visibility,
                        "starts_at": OpenAPISchema.dateTime, "ends_at": OpenAPISchema.dateTime,
                        "registration_ends_at": OpenAPISchema.dateTime,
                        "late_entry": .object(["type": .string("boolean")]),
                        "max_players": .object(["type": .string("integer"), "minimum": .int(1)]),
                        "rules": .object([
                            "type": .string("object"),
                            "properties": .object([
                                "commission_per_trade": OpenAPISchema.decimal,
                                "commission_percent": OpenAPISchema.decimal,
                                "margin": .object(["type": .string("boolean")]),
                                "margin_multiplier": .object([
                                    "type": .string("integer"), "enum": .array([.int(2), .int(4)]),
                                ]),
                                "short_selling": .object([
                                    "type": .string("boolean"), "description": .string("needs margin"),
                                ]),
                                "options": .object([
                                    "type": .string("boolean"),
                                    "description": .string("whether players may trade options (default true)"),
                                ]),
                                "crypto": .object([
                                    "type": .string("boolean"),
                                    "description": .string("whether players may trade crypto pairs (default false)"),
                                ]),
                                "forex": .object([
                                    "type": .string("boolean"),
                                    "description": .string(
                                        "whether players may trade currency pairs such as EUR.USD (default false)"),
                                ]),
                                "min_price_buy": OpenAPISchema.decimal,
                                "min_price_short": OpenAPISchema.decimal,
                                "max_position_percent": OpenAPISchema.decimal,
                                "max_volume_percent": OpenAPISchema.decimal,
                                "quick_sell_minutes": .object(["type": .string("integer"), "minimum": .int(0)]),
                                "max_trades_per_day": .object(["type": .string("integer"), "minimum": .int(1)]),
                                "day_trading": .object(["type": .string("boolean")]),
                                "resets_allowed": .object(["type": .string("integer"), "minimum": .int(0)]),
                                "portfolios_visible": gameEnums.portfolios,
                                "ranking": gameEnums.ranking,
                            ]),
                        ]),
                    ]),
                ]),
                "GameChange": .object([
                    "type": .string("object"),
                    "properties": .object([
                        "name": .object(["type": .string("string")]),
                        "description": .object(["type": .string("string")]),
                        "visibility": gameEnums.visibility,
                        "starts_at": OpenAPISchema.dateTime, "ends_at": OpenAPISchema.dateTime,
                        "registration_ends_at": OpenAPISchema.dateTime,
                        "late_entry": .object(["type": .string("boolean")]),
                        "max_players": .object(["type": .array([.string("integer"), .string("null")])]),
                        "resets_allowed": .object(["type": .array([.string("integer"), .string("null")])]),
                        "portfolios_visible": gameEnums.portfolios,
                        "ranking": gameEnums.ranking,
                    ]),
                ]),
                "GameJoin": .object([
                    "type": .string("object"),
                    "properties": .object([
                        "code": .object(["type": .string("string")]),
                        "api_key": .object(["type": .string("boolean")]),
                    ]),
                ]),
            ]),
        ]),
        "paths": .object([
            "/api/v1/auth/signup": .object([
                "post": op(
                    "Create a user with a USD and a CNY paper account (named in `language` if given); starts a session",
                    body: "Credentials",
                    responses: [
                        "201": "the user and accounts", "409": "username taken", "422": "invalid username or password",
                    ])
            ]),
            "/api/v1/auth/login": .object([
                "post": op(
                    "Log in; sets the session cookie", body: "Credentials",
                    responses: [
                        "200": "the user and accounts", "401": "wrong username or password",
                        "429": "too many failed logins",
                    ])
            ]),
            "/api/v1/clock/advance": .object([
                "post": op(
                    "Step a manual clock (a server started with --clock manual) forward by {seconds: 0…31622400}; authorized by the key the server printed at start (Authorization: Bearer …), not a session",
                    responses: [
                        "200": "{time}: the clock now", "401": "not the server's clock key",
                        "409": "the server's clock is not manual", "422": "seconds out of range",
                    ])
            ]),
            "/api/v1/auth/logout": .object([
                "post": op("End the session (answers 200 without one too)", responses: ["200": "logged out"])
            ]),
            "/api/v1/auth/session": .object([
                "get": op(
                    "Whether this browser is logged in: {user: null} without a valid session cookie, {user: …} as /me gives it otherwise (the app's first request)",
                    responses: ["200": "{user: null | user}"])
            ]),
            "/api/v1/me": .object([
                "get": op(
                    "The logged-in user (id, username, language: null | en | zh-Hans) and their accounts", auth: true,
                    responses: ["200": "user", "401": "not logged in"]),
                "put": op(
                    "Set {language: en | zh-Hans | null}: the app's language and the one notifications, alerts and pushes are written in (null follows the browser)",
                    auth: true, responses: ["200": "user", "422": "unknown language"]),
            ]),
            "/api/v1/search": .object([
                "get": op(
                    "Symbol search and autocomplete by ticker or company name",
                    parameters: [
                        param("q", in: "query", required: false, "ticker or name fragment (none: no results)"),
                        param("market", in: "query", required: false, "us or cn"),
                        param("limit", in: "query", required: false, "1–50, default 10"),
                    ],
                    responses: ["200": "[{symbol, name, exchange, market, kind}]"])
            ]),
            "/api/v1/quotes/{symbol}": .object([
                "get": op(
                    "Quote with 5-level depth, A-share limits and US trading halts (halted; halt: {reason: news_pending|volatility_pause, code: T1|LUDP, start, end} while one is under way: no bids or offers, orders rest until the reopening)",
                    parameters: [param("symbol", in: "path", "ticker or A-share code")],
                    responses: ["200": "quote", "404": "unknown symbol", "503": "provider unavailable"])
            ]),
            "/api/v1/stocks/{symbol}/profile": .object([
                "get": op(
                    "Company profile for the stock page: exchange, sector, industry, listing date, website, logo, board lot, time zone, peers, 52-week high/low, and news, recommendation trends and earnings surprises (null when the feed has none)",
                    parameters: [param("symbol", in: "path", "ticker or A-share code")],
                    responses: ["200": "profile", "404": "unknown symbol"])
            ]),
            "/api/v1/options/{underlying}": .object([
                "get": op(
                    "An underlying's listed expirations (date, kind: daily, weekly, monthly, quarterly or leaps; days away); none for a stock without options",
                    parameters: [param("underlying", in: "path", "a US stock or ETF")],
                    responses: ["200": "expirations", "404": "unknown symbol"])
            ]),
            "/api/v1/options/{underlying}/chain": .object([
                "get": op(
                    "One expiration's chain: calls and puts side by side by strike (bid, ask, mid, last, volume, open interest, implied volatility, greeks, in the money) and the strike nearest the money",
                    parameters: [
                        param("underlying", in: "path", "a US stock or ETF with listed options"),
                        param(
                            "expiration", in: "query", required: false,
                            "YYYY-MM-DD (default: the first expiration a week or more away)"),
                    ],
                    responses: ["200": "chain", "404": "unknown symbol, no options, or no such expiration"])
            ]),
            "/api/v1/options/contracts/{symbol}": .object([
                "get": op(
                    "One option contract by OCC symbol: its terms, quote, volume, open interest, implied volatility and greeks",
                    parameters: [param("symbol", in: "path", "OCC symbol, e.g. AAPL261218C00250000")],
                    responses: ["200": "contract", "404": "not a listed contract"])
            ]),
            "/api/v1/accounts/{id}/estimate": .object([
                "get": op(
                    "Trade-sheet estimate: value, fees (the account's schedule), total, buying power, sellable shares, the most that can be bought or sold, and the refusal placing the order would meet now (null when it would be accepted)",
                    auth: true,
                    parameters: [
                        param("id", in: "path", "account id"), param("symbol", in: "query", "symbol"),
                        param("side", in: "query", "buy or sell"), param("qty", in: "query", "shares"),
                        param(
                            "price", in: "query", required: false,
                            "limit or stop price (default: best ask for a buy, best bid for a sell)"),
                        param(
                            "type", in: "query", required: false,
                            "market, limit, stop, stop_limit or trailing_stop: the order checked for `refusal` (default: limit with a price, market without)"
                        ),
                    ],
                    responses: [
                        "200": "estimate", "404": "unknown symbol or account", "422": "invalid quantity, side or price",
                    ])
            ]),
            "/api/v1/market/overview": .object([
                "get": op(
                    "Index overview: SSE Composite, SZSE Component, NASDAQ, Dow Jones, S&P 500; the data source's name, link and whether it is the built-in simulated market",
                    responses: ["200": "indices"])
            ]),
            "/api/v1/accounts": .object([
                "get": op(
                    "The user's paper accounts with balances (with an API key: its one account)", auth: true,
                    responses: ["200": "accounts"]),
                "post": op(
                    "Open a paper account {market: us|cn, cash?, name?}", auth: true,
                    responses: ["201": "the account", "422": "invalid market or cash"]),
            ]),
            "/api/v1/accounts/{id}": .object([
                "get": op(
                    "Account with positions valued at current prices. day_change is the profit since the last close (equity − the close's equity − money moved in since: today's purchases count from their price; sales, fees and dividends are in it); each position's day_pl is its part of it. An option position also has greeks (delta, gamma, theta, vega per share, implied_volatility), position_delta (the shares of the underlying it moves like) and position_theta (its time decay a day). Cash in other currencies (bought on currency pairs such as EUR.USD) is in balances [{currency, amount, available, pair, pair_price, rate, value, cost, unrealized_pl, realized_pl}] (value, cost and profits in the account's currency) and, summed, in foreign_cash; equity counts it",
                    auth: true,
                    parameters: [param("id", in: "path", "account id")],
                    responses: ["200": "account", "404": "not yours or unknown"])
            ]),
            "/api/v1/accounts/{id}/deposit": .object([
                "post": op(
                    "Deposit {amount, method: bank|card|transfer, note?}", auth: true,
                    parameters: [param("id", in: "path", "account id")],
                    responses: ["200": "account and transaction", "422": "invalid amount"])
            ]),
            "/api/v1/accounts/{id}/withdraw": .object([
                "post": op(
                    "Withdraw {amount, method?, note?}; never more than buying power", auth: true,
                    parameters: [param("id", in: "path", "account id")],
                    responses: ["200": "account and transaction", "403": "not enough cash"])
            ]),
            "/api/v1/transfers/quote": .object([
                "post": op(
                    "What a transfer {from_account, to_account, amount, currency?} would move now, without moving it: from_amount and from_currency (debited), to_amount and to_currency (credited), rate (units credited per unit debited), mid_rate, pair and pair_price (USD.CNH's bid or ask when the currencies differ), spread_cost (in the debited currency), fee, odd_lot (under USD 25,000: IB's odd-lot venue, a spread five times IDEALPRO's). currency is the amount's, either account's (default the debited one's). A user's login only",
                    auth: true,
                    responses: [
                        "200": "the quote", "404": "an account not yours or unknown",
                        "422": "same account, bad amount or currency, a game account, or the forex market closed",
                    ])
            ]),
            "/api/v1/transfers": .object([
                "post": op(
                    "Moves {amount} of {currency?} from one of the user's accounts to another, converted at the live rate when their currencies differ (as /api/v1/transfers/quote prices it). The debit is durable when this answers; status completed once the credit is too, pending while the destination's node credits it (exactly once, also across a node's crash). Never more than the source's buying power. An optional client_transfer_id (1–64 characters, unique per source account) makes a retry safe: the transfer made under it before is answered again (200), a different transfer under it is a 409. A user's login only",
                    auth: true,
                    responses: [
                        "201": "the transfer", "403": "more than the buying power",
                        "404": "an account not yours or unknown",
                        "422": "same account, bad amount or currency, a game account, or the forex market closed",
                    ]),
                "get": op(
                    "The user's transfers, newest first (limit 1–500, default 50)", auth: true,
                    parameters: [param("limit", in: "query", required: false, "how many")],
                    responses: ["200": "{transfers: [transfer]}"]),
            ]),
            "/api/v1/transfers/{id}": .object([
                "get": op(
                    "One of the user's transfers, with its status", auth: true,
                    parameters: [param("id", in: "path", "transfer id")],
                    responses: ["200": "the transfer", "404": "not yours or unknown"])
            ]),
            "/api/v1/accounts/{id}/reset": .object([
                "post": op(
                    "Cancel orders, clear positions, restore the starting cash", auth: true,
                    parameters: [param("id", in: "path", "account id")], responses: ["200": "account"])
            ]),
            "/api/v1/accounts/{id}/transactions": .object([
                "get": op(
                    "Deposits, withdrawals, buys, sells, fees and resets, newest first", auth: true,
                    parameters: [param("id", in: "path", "account id")], responses: ["200": "transactions"])
            ]),
            "/api/v1/accounts/{id}/performance": .object([
                "get": op(
                    "Performance over period=1D|1W|1M|3M|6M|YTD|1Y|ALL (default 1M) or start/end dates (YYYY-MM-DD, the market's time zone): the equity series [{t, value, flow}] (5-minute points for 1D, 30-minute for 1W, one per close otherwise, ending at the live value); twr, mwr, mwr_annualized, total_return, price_return, realized_pnl, unrealized_pnl, dividends, fees, volatility, sharpe, sortino (null under 20 daily returns), max_drawdown with max_drawdown_start/_end/_recovery, the drawdown curve, monthly returns, benchmark {symbol, name, return, series} (S&P 500 for US accounts, SSE Composite for A-shares), holdings [{symbol, qty, avg_cost, market_value, unrealized_pnl, unrealized_pnl_pct, realized_pnl, dividends, share, day_change}] and definitions {field: one sentence}. Decimals are strings",
                    auth: true,
                    parameters: [
                        param("id", in: "path", "account id"),
                        param("period", in: "query", required: false, "1D, 1W, 1M, 3M, 6M, YTD, 1Y or ALL"),
                        param("start", in: "query", required: false, "first date (instead of period)"),
                        param("end", in: "query", required: false, "last date"),
                    ],
                    responses: ["200": "the report", "404": "not yours or unknown", "422": "invalid period or dates"])
            ]),
            "/api/v1/accounts/{id}/queue": .object([
                "get": op(
                    "Queue purchase: the account's queued rules with current price and trigger level", auth: true,
                    parameters: [param("id", in: "path", "account id")],
                    responses: ["200": "queued rules", "404": "not yours or unknown"]),
                "post": op(
                    "Queue a rule {symbol, side, qty | notional, condition: {type, value?}, order_type: market|limit|limit_up, limit_price?, lifetime?: {type: until_triggered|until|session, date?}}. Condition types: price_at_least, price_at_most, change_percent_at_least, change_percent_at_most, within_of_limit_up, within_of_limit_down, within_percent_of_limit_up, within_percent_of_limit_down, touches_limit_up, crosses_above_moving_average, crosses_below_moving_average. A rule fires once, while its market trades; a rejected order marks it failed (not retried) and notifies the user",
                    auth: true, parameters: [param("id", in: "path", "account id")],
                    responses: [
                        "201": "the rule (status queued, or fired if the condition already held)",
                        "404": "unknown symbol or account", "422": "invalid rule",
                    ]),
            ]),
            "/api/v1/accounts/{id}/queue/history": .object([
                "get": op(
                    "Fired, failed, canceled and expired rules, newest first", auth: true,
                    parameters: [
                        param("id", in: "path", "account id"),
                        param("limit", in: "query", required: false, "1–500, default 100"),
                    ],
                    responses: ["200": "rules"])
            ]),
            "/api/v1/accounts/{id}/queue/{rule}": .object([
                "delete": op(
                    "Cancel a queued rule", auth: true,
                    parameters: [param("id", in: "path", "account id"), param("rule", in: "path", "rule id")],
                    responses: ["200": "the canceled rule", "404": "not queued (fired, failed, canceled) or unknown"])
            ]),
            "/api/v1/accounts/{id}/orders": .object([
                "get": op(
                    "Orders (status open|closed|all)", auth: true, parameters: [param("id", in: "path", "account id")],
                    responses: ["200": "orders"]),
                "post": op(
                    "Place an order (Alpaca's order body)", auth: true,
                    parameters: [param("id", in: "path", "account id")],
                    responses: [
                        "201": "the order", "403": "insufficient buying power or shares",
                        "422": "rejected, with the reason",
                    ]),
            ]),
            "/api/v1/accounts/{id}/orders/{order}": .object([
                "delete": op(
                    "Cancel an open order", auth: true,
                    parameters: [param("id", in: "path", "account id"), param("order", in: "path", "order id")],
                    responses: ["200": "the canceled order", "422": "no longer cancelable"])
            ]),
            "/api/v1/accounts/{id}/positions/{symbol}/exercise": .object([
                "post": op(
                    "Exercise every contract of a long option position now (shares bought or sold at the strike)",
                    auth: true,
                    parameters: [param("id", in: "path", "account id"), param("symbol", in: "path", "OCC symbol")],
                    responses: [
                        "200": "the account after the exercise",
                        "403": "no such long position, or not enough cash or shares to carry it",
                        "422": "after the close, or the contract has expired",
                    ])
            ]),
            "/api/v1/accounts/{id}/positions/{symbol}/do-not-exercise": .object([
                "post": op(
                    "Let a long option position expire unexercised even in the money (until 4:30 pm ET on its expiry day)",
                    auth: true,
                    parameters: [param("id", in: "path", "account id"), param("symbol", in: "path", "OCC symbol")],
                    responses: [
                        "200": "the account, the position marked do_not_exercise",
                        "403": "no such long position", "422": "too late on the expiration day",
                    ])
            ]),
            "/api/v1/bars/{symbol}": .object([
                "get": op(
                    "Chart bars (timeframe 1Min…1Month, from, to)",
                    parameters: [
                        param("symbol", in: "path", "symbol"),
                        param("timeframe", in: "query", required: false, "default 5Min"),
                    ],
                    responses: ["200": "bars"])
            ]),
            "/api/v1/accounts/{id}/watchlists": .object([
                "get": op(
                    "Watchlists with each symbol's price and change, in the user's order", auth: true,
                    parameters: [param("id", in: "path", "account id")], responses: ["200": "watchlists"]),
                "post": op(
                    "Create a watchlist {name, symbols?}", auth: true,
                    parameters: [param("id", in: "path", "account id")],
                    responses: ["201": "the watchlist", "409": "name taken", "422": "unknown symbol"]),
            ]),
            "/api/v1/accounts/{id}/watchlists/{wid}": .object([
                "put": op(
                    "Rename and/or reorder: {name?, symbols: [in order]}", auth: true,
                    parameters: [param("id", in: "path", "account id"), param("wid", in: "path", "watchlist id")],
                    responses: ["200": "the watchlist"]),
                "delete": op(
                    "Delete a watchlist", auth: true,
                    parameters: [param("id", in: "path", "account id"), param("wid", in: "path", "watchlist id")],
                    responses: ["204": "deleted"]),
            ]),
            "/api/v1/accounts/{id}/watchlists/{wid}/symbols": .object([
                "post": op(
                    "Add {symbol}", auth: true,
                    parameters: [param("id", in: "path", "account id"), param("wid", in: "path", "watchlist id")],
                    responses: ["200": "the watchlist"])
            ]),
            "/api/v1/accounts/{id}/watchlists/{wid}/symbols/{symbol}": .object([
                "delete": op(
                    "Remove a symbol", auth: true,
                    parameters: [
                        param("id", in: "path", "account id"), param("wid", in: "path", "watchlist id"),
                        param("symbol", in: "path", "symbol"),
                    ],
                    responses: ["200": "the watchlist"])
            ]),
            "/api/v1/accounts/{id}/watchlists/{wid}/move": .object([
                "post": op(
                    "Move {symbol} to position {to} (0 = first)", auth: true,
                    parameters: [param("id", in: "path", "account id"), param("wid", in: "path", "watchlist id")],
                    responses: ["200": "the watchlist"])
            ]),
            "/api/v1/webhook": .object([
                "get": op("The user's webhook ({webhook: null} when none)", auth: true, responses: ["200": "webhook"]),
                "put": op(
                    "Set the webhook {url, enabled?, rotate_secret?}. Creating it (201) or rotating returns the signing secret, once. Every notification is POSTed as {id, type, created_at, data} with Papertrade-Event, Papertrade-Delivery and Papertrade-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>; non-2xx answers are retried after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, then marked failed",
                    auth: true,
                    responses: ["200": "updated", "201": "created, with secret", "422": "not an http(s) URL"]),
                "delete": op(
                    "Remove the webhook; pending deliveries are marked failed", auth: true,
                    responses: ["200": "removed", "404": "none set"]),
            ]),
            "/api/v1/webhook/ping": .object([
                "post": op(
                    "Queue a test delivery (type ping)", auth: true, responses: ["202": "queued", "404": "no webhook"])
            ]),
            "/api/v1/webhook/deliveries": .object([
                "get": op(
                    "Recent deliveries, newest first: type, status (pending|delivered|failed), attempts, next_attempt_at, last_status, last_error",
                    auth: true, parameters: [param("limit", in: "query", required: false, "1–500, default 50")],
                    responses: ["200": "deliveries"])
            ]),
            "/api/v1/alerts": .object([
                "get": op(
                    "The user's active price alerts, newest first, each with its current price and level", auth: true,
                    responses: ["200": "alerts"]),
                "post": op(
                    "Add a price alert {symbol, condition, value? | moving_average?, lower?, upper?, within?, frequency?: once|once_per_bar|once_per_minute, timeframe?: 1Min|5Min|15Min|30Min|1Hour|1Day, expires_at?, message?}. Conditions: crossing, crossing_up, crossing_down, greater_than, less_than (value or moving_average = N daily closes); entering_channel, exiting_channel, inside_channel, outside_channel (lower < upper); moving_up, moving_down (value in price), moving_up_percent, moving_down_percent (value in percent), with within = a number of bars or a duration (\"90s\", \"15m\", \"2h\", \"1d\"). An alert notifies (in the app, by Web Push, to the webhook) and never places an order",
                    auth: true,
                    responses: [
                        "201": "the alert (status active, or triggered when a once-only condition already held)",
                        "404": "unknown symbol", "422": "unknown condition, missing or contradictory operands",
                    ]),
            ]),
            "/api/v1/alerts/history": .object([
                "get": op(
                    "Triggered, canceled and expired alerts, newest first", auth: true,
                    parameters: [param("limit", in: "query", required: false, "1–500, default 100")],
                    responses: ["200": "alerts"])
            ]),
            "/api/v1/alerts/triggers": .object([
                "get": op(
                    "When the user's alerts triggered, newest first: alert_id, symbol, time, price, level, notification_id",
                    auth: true, parameters: [param("limit", in: "query", required: false, "1–500, default 100")],
                    responses: ["200": "triggers"])
            ]),
            "/api/v1/alerts/{id}": .object([
                "get": op(
                    "One alert", auth: true, parameters: [param("id", in: "path", "alert id")],
                    responses: ["200": "the alert", "404": "not yours or unknown"]),
                "delete": op(
                    "Cancel an active alert", auth: true, parameters: [param("id", in: "path", "alert id")],
                    responses: ["200": "the canceled alert", "404": "not active or unknown"]),
            ]),
            "/api/v1/alerts/{id}/triggers": .object([
                "get": op(
                    "When one alert triggered", auth: true, parameters: [param("id", in: "path", "alert id")],
                    responses: ["200": "triggers", "404": "not yours or unknown"])
            ]),
            "/api/v1/accounts/{id}/keys": .object([
                "post": op(
                    "A new Alpaca API key pair for the account (bots trade it; game accounts too): {account_id, key_id, secret}; the secret is shown once",
                    auth: true, parameters: [param("id", in: "path", "account id")],
                    responses: ["201": "the key pair"]),
                "get": op(
                    "The account's API keys, oldest first: [{key_id, account_id, created_at}] (secrets are never shown again)",
                    auth: true, parameters: [param("id", in: "path", "account id")],
                    responses: ["200": "the keys"]),
            ]),
            "/api/v1/accounts/{id}/keys/{key}": .object([
                "delete": op(
                    "Revoke one of the account's API keys: requests with it are refused (401) from the next one on",
                    auth: true,
                    parameters: [param("id", in: "path", "account id"), param("key", in: "path", "key id")],
                    responses: ["204": "revoked", "404": "the account has no such key"])
            ]),
            "/api/v1/backtests": .object([
                "get": op(
                    "The user's backtests, newest first (without their reports): id, status, progress, request",
                    auth: true, responses: ["200": "backtests"]),
                "post": op(
                    "Start a backtest of daily bars from the market-data feed, through the real engine: {symbols, from?, to?, strategy?: buy-and-hold|sma-cross|queue-rules, params?, qty?, cash?, fill?: next-open|close, commission?: real|none|4.95|0.1%, rules? (queue rule bodies), account_id? (replay its queued rules), source?: feed|real (the bundled real daily history), timeframe?: 1Day (default) or intraday 1Min…59Min, 1Hour…23Hour over at most a year}. Answers at once; GET /api/v1/backtests/{id} follows it",
                    auth: true, body: "BacktestRequest",
                    responses: [
                        "202": "the job (status running, progress in percent)",
                        "409": "two of the user's backtests are still running",
                    ]),
            ]),
            "/api/v1/backtests/{id}": .object([
                "get": op(
                    "A backtest: status (running, done, failed), progress in percent, error, and when done the report (the CLI's JSON: bars, trades, final_equity, return, max_drawdown, sharpe, trade_list, monthly_returns, equity)",
                    auth: true, parameters: [param("id", in: "path", "backtest id")],
                    responses: ["200": "the backtest"])
            ]),
            "/api/v1/backtests/{id}/report.html": .object([
                "get": op(
                    "The finished backtest's report as one self-contained HTML page with its charts (as `papertrade backtest --report html` writes)",
                    auth: true, parameters: [param("id", in: "path", "backtest id")],
                    responses: ["200": "the report page (text/html)", "409": "the backtest is still running or failed"])
            ]),
            "/api/v1/games": .object([
                "get": op(
                    "Games: scope=public lists every public game, scope=mine those the user owns or plays in; newest first",
                    auth: true,
                    parameters: [
                        param("scope", in: "query", required: false, "public (default) or mine"),
                        param("code", in: "query", required: false, "a join code: the one game it belongs to, if any"),
                    ],
                    responses: ["200": "games"]),
                "post": op(
                    "Create a game (the caller owns it). Omitted rules mean no limit; omitted dates: starts now, never ends. Answers with id, join_code and invite_url",
                    auth: true, body: "GameCreate",
                    responses: ["201": "the game", "422": "a setting is invalid (the message names it)"]),
            ]),
            "/api/v1/games/join": .object([
                "post": op(
                    "Join the game a join code belongs to (invite links carry it): {code, api_key?}", auth: true,
                    body: "GameJoin",
                    responses: [
                        "201": "{account_id, game_id, player, joined_at} (+ key_id, secret with api_key)",
                        "403": "registration closed, game full or ended, or removed", "409": "already a player",
                    ])
            ]),
            "/api/v1/games/{id}": .object([
                "get": op(
                    "One game: settings, rules, status (upcoming, running, ended), players, the user's game account; a private game needs to be yours, yours to play, or its code",
                    auth: true,
                    parameters: [
                        param("id", in: "path", "game id"), param("code", in: "query", required: false, "join code"),
                    ], responses: ["200": "the game"]),
                "patch": op(
                    "Change a game (its owner): name, description, visibility, starts_at (before the start), ends_at, registration_ends_at, late_entry, max_players, resets_allowed, portfolios_visible, ranking (before the start). Trading rules are fixed",
                    auth: true, parameters: [param("id", in: "path", "game id")], body: "GameChange",
                    responses: ["200": "the game", "403": "not the owner, or the game ended"]),
            ]),
            "/api/v1/games/{id}/join": .object([
                "post": op(
                    "Join a game: opens the player's game account (the game's cash, fees, margin and rules); a private game needs {code}; {api_key: true} adds an Alpaca key for it",
                    auth: true, parameters: [param("id", in: "path", "game id")], body: "GameJoin",
                    responses: [
                        "201": "{account_id, game_id, player, joined_at} (+ key_id, secret with api_key)",
                        "403": "private without the code, registration closed, full, ended, or removed",
                        "409": "already a player",
                    ])
            ]),
            "/api/v1/games/{id}/leaderboard": .object([
                "get": op(
                    "Standings, best first: {entries: [{rank, player, account_id, return, equity, day_change, trades, sharpe, excess_return}], as_of, final, ranking, benchmark}; live at current prices until the game ends, then final",
                    auth: true,
                    parameters: [
                        param("id", in: "path", "game id"), param("code", in: "query", required: false, "join code"),
                    ], responses: ["200": "the leaderboard"])
            ]),
            "/api/v1/games/{id}/history": .object([
                "get": op(
                    "Each close since the start: every player's return and rank (the rank history chart)", auth: true,
                    parameters: [
                        param("id", in: "path", "game id"), param("code", in: "query", required: false, "join code"),
                    ], responses: ["200": "{days: [{date, standings: [{account_id, player, rank, return}]}]}"])
            ]),
            "/api/v1/games/{id}/export": .object([
                "get": op(
                    "The standings as CSV (the owner's export)", auth: true,
                    parameters: [param("id", in: "path", "game id")],
                    responses: ["200": "text/csv", "403": "not the owner"])
            ]),
            "/api/v1/games/{id}/players/{player}/portfolio": .object([
                "get": op(
                    "A player's positions and equity: to the owner and the player always, to others as the game's portfolios_visible says",
                    auth: true,
                    parameters: [
                        param("id", in: "path", "game id"), param("player", in: "path", "the player's account id"),
                        param("code", in: "query", required: false, "join code"),
                    ], responses: ["200": "the portfolio", "403": "not shown (yet)"])
            ]),
            "/api/v1/games/{id}/players/{player}/remove": .object([
                "post": op(
                    "Remove a player (the owner): their orders are canceled, their account stops trading, they leave the board",
                    auth: true,
                    parameters: [
                        param("id", in: "path", "game id"), param("player", in: "path", "the player's account id"),
                    ], responses: ["200": "the game", "403": "not the owner, or the game ended"])
            ]),
            "/api/v1/games/{id}/end": .object([
                "post": op(
                    "End a game now (the owner): open orders are canceled and the standings frozen as final",
                    auth: true,
                    parameters: [param("id", in: "path", "game id")],
                    responses: ["200": "the game", "403": "not the owner, or already ended"])
            ]),
            "/api/v1/push/vapid-public-key": .object([
                "get": op(
                    "The server's VAPID public key (base64url, uncompressed P-256): PushManager.subscribe's applicationServerKey (public)",
                    responses: ["200": "{public_key}"])
            ]),
            "/api/v1/push/subscriptions": .object([
                "get": op(
                    "The user's subscribed devices: id, push_service (origin), user_agent, created_at", auth: true,
                    responses: ["200": "subscriptions"]),
                "post": op(
                    "Subscribe this device: the browser's PushSubscription JSON {endpoint, keys: {p256dh, auth}}. Every notification is then pushed to it (RFC 8030/8291/8292), retried on 429/5xx; a 404/410 from the push service removes it",
                    auth: true,
                    responses: ["201": "the subscription", "422": "an endpoint that is not public https, or bad keys"]),
                "delete": op(
                    "Unsubscribe the device with {endpoint}", auth: true,
                    responses: ["200": "removed", "404": "no such subscription"]),
            ]),
            "/api/v1/push/subscriptions/{id}": .object([
                "delete": op(
                    "Unsubscribe a device", auth: true, parameters: [param("id", in: "path", "subscription id")],
                    responses: ["200": "removed", "404": "no such subscription"])
            ]),
            "/api/v1/push/test": .object([
                "post": op(
                    "Push a test notification to each subscribed device", auth: true,
                    responses: ["202": "{id, devices}", "404": "no device subscribed"])
            ]),
            "/api/v1/push/deliveries": .object([
                "get": op(
                    "Recent push deliveries, newest first: type, status (pending|delivered|failed), attempts, last_status, last_error",
                    auth: true, parameters: [param("limit", in: "query", required: false, "1–500, default 50")],
                    responses: ["200": "deliveries"])
            ]),
            "/api/v1/notifications": .object([
                "get": op(
                    "Notifications, newest first, with the unread count", auth: true,
                    responses: ["200": "{unread, notifications}"])
            ]),
            "/api/v1/notifications/{id}/read": .object([
                "post": op(
                    "Mark one notification read", auth: true,
                    parameters: [param("id", in: "path", "notification id")],
                    responses: ["200": "{unread, notifications}"])
            ]),
            "/api/v1/notifications/read-all": .object([
                "post": op("Mark all notifications read", auth: true, responses: ["200": "{unread, notifications}"])
            ]),
            "/api/v1/ws": .object([
                "get": op(
                    """
                    WebSocket for the web app (session cookie). Send {"type":"subscribe"|"unsubscribe","symbols":[…]}; receive                 {"type":"quote"|"order"|"notification"|"subscribed"|"hello"|"error","data":…} as JSON text frames.
                    """, auth: true, responses: ["101": "switching protocols"])
            ]),
            "/api/v1/events": .object([
                "get": op(
                    """
                    The live events of /api/v1/ws as server-sent events (text/event-stream), for clients without \
                    WebSockets (PapertradeKit, the CLI's watch): `event: quote|order|notification` with the JSON in \
                    `data:`; a comment every 15 s keeps it open. A session hears its user's accounts, an API key its \
                    own account.
                    """, auth: true,
                    parameters: [
                        OpenAPIDocument.parameter(
                            "symbols", in: "query", required: false, "comma-separated symbols whose quotes to send")
                    ],
                    responses: ["200": "the event stream", "401": "not logged in", "404": "unknown symbol"])
            ]),
            "/api/v1/market/status": .object([
                "get": op(
                    "Market phase in the exchange's time zone with the session's open and close",
                    parameters: [
                        OpenAPIDocument.parameter(
                            "market", in: "query", required: false, "us (default) or cn",
                            schema: OpenAPISchema.enumeration(["us", "cn"]))
                    ], responses: ["200": "status"])
            ]),
            "/api/v1/earnings": .object([
                "get": op(
                    """
                    The earnings calendar: {from, to, earnings: [{symbol, name, market, date, time: before_open | \
                    after_close | during_hours | null, fiscal_year, fiscal_quarter, market_cap_millions}]} by date \
                    then symbol. The \
                    simulated market's companies report four times a year (A-shares in their reporting seasons); a \
                    report moves the price at the next open.
                    """,
                    parameters: [
                        OpenAPIDocument.parameter(
                            "from", in: "query", required: false, "first date (YYYY-MM-DD; default today)",
                            schema: OpenAPISchema.date),
                        OpenAPIDocument.parameter(
                            "to", in: "query", required: false,
                            "last date (YYYY-MM-DD; default a week after from; at most a year after it)",
                            schema: OpenAPISchema.date),
                        OpenAPIDocument.parameter(
                            "symbols", in: "query", required: false, "comma-separated symbols (default: every company)"),
                        OpenAPIDocument.parameter(
                            "market", in: "query", required: false, "only us or only cn companies",
                            schema: OpenAPISchema.enumeration(["us", "cn"])),
                    ],
                    responses: [
                        "200": "the calendar", "404": "unknown symbol", "422": "bad dates or symbols",
                        "503": "the data provider has no earnings calendar",
                    ])
            ]),
            "/api/v1/halts": .object([
                "get": op(
                    """
                    Trading halts: {from, to, halts: [{symbol, reason: news_pending | volatility_pause, code: T1 | \
                    LUDP, start, end}]} by start, those that have started by now. The simulated market halts US \
                    stocks: Limit Up–Limit Down pauses (five minutes) on the days that move most, news-pending \
                    halts at the open of some smaller companies' report days; A-shares have their daily limits \
                    instead.
                    """,
                    parameters: [
                        OpenAPIDocument.parameter(
                            "symbols", in: "query", required: true, "comma-separated symbols (1 to 200)"),
                        OpenAPIDocument.parameter(
                            "from", in: "query", required: false, "first session (YYYY-MM-DD; default today)",
                            schema: OpenAPISchema.date),
                        OpenAPIDocument.parameter(
                            "to", in: "query", required: false,
                            "last session (YYYY-MM-DD; default from; at most 31 days after it)",
                            schema: OpenAPISchema.date),
                    ],
                    responses: [
                        "200": "the halts", "404": "unknown symbol", "422": "bad dates or symbols",
                        "503": "the data provider has no halt data",
                    ])
            ]),
            "/api/v1/market/movers": .object([
                "get": op(
                    "Top gainers, losers or most active",
                    parameters: [
                        OpenAPIDocument.parameter(
                            "market", in: "query", required: false, "us (default) or cn",
                            schema: OpenAPISchema.enumeration(["us", "cn"])),
                        OpenAPIDocument.parameter(
                            "kind", in: "query", required: false, "gainers (default), losers or active",
                            schema: OpenAPISchema.enumeration(["gainers", "losers", "active"])),
                        OpenAPIDocument.parameter(
                            "asset_class", in: "query", required: false,
                            "stocks (default: the market's) or crypto (the crypto pairs, by change since 00:00 UTC)",
                            schema: OpenAPISchema.enumeration(["stocks", "crypto"])),
                    ],
                    responses: ["200": "movers", "422": "bad market, kind or asset class"])
            ]),
        ]),
    ])
}
