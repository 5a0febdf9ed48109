import JSON
import MarketData
import TradingCore

/// The Client Portal surface as its own OpenAPI 3.1 document, served at `/v1/api/openapi.json` on the IB port: every
/// route the gateway answers, with its parameters and bodies as IB's clients send them and the statuses papertrade
/// answers. IB refuses bad input with a 400 (not Alpaca's 422) in `{"error", "statusCode"}`; every route under
/// `/v1/api` but the session ones is a 401 while the gateway is logged out. schemathesis runs on this document in the
/// suite as on /openapi.json (tests/e2e/test_ib_openapi.py).
enum IBOpenAPI {
    typealias S = OpenAPISchema

    static func query(_ name: String, _ description: String, _ schema: JSONValue = S.string, required: Bool = false)
        -> JSONValue
    {
        OpenAPIDocument.parameter(name, in: "query", required: required, description, schema: schema)
    }

    static func path(_ name: String, _ description: String, _ schema: JSONValue = S.string) -> JSONValue {
        OpenAPIDocument.parameter(name, in: "path", required: true, description, schema: schema)
    }

    /// An operation; `open` ones answer without a logged-in gateway, `marketData` ones may be 503 when the feed is.
    static func op(
        _ summary: String, _ parameters: [JSONValue] = [], body: JSONValue? = nil, bodyRequired: Bool = true,
        open: Bool = false, marketData: Bool = false, _ responses: [String: String] = ["200": "OK"]
    ) -> JSONValue {
        var responses = responses
        if !open { responses["401"] = responses["401"] ?? "the gateway is not logged in (log in at /)" }
        if marketData { responses["503"] = "the market data feed is unavailable" }
        if parameters.contains(where: { ["acct", "accountId"].contains($0["name"]?.string) }) {
            responses["400"] = responses["400"] ?? "not an account of this session"
        }
        if body != nil {
            responses["413"] = "the body is larger than the server accepts"
            responses["400"] = responses["400"] ?? "the body is not the JSON the operation takes"
        }
        let operation = OpenAPIDocument.operation(summary, parameters: parameters, body: body, responses: responses)
        guard !bodyRequired, case .object(var o) = operation, case .object(var requestBody) = o["requestBody"] ?? .null
        else { return operation }
        requestBody["required"] = .bool(false)
        o["requestBody"] = .object(requestBody)
        return .object(o)
    }

    // MARK: Shared parameters

    static let aapl = String(IBConid.conid(symbol: "AAPL", market: .us) ?? 0)
    static let conidText = S.example(S.pattern("^[0-9]{1,15}$"), aapl)
    static let conid = query("conid", "contract id (from secdef/search)", conidText, required: true)
    static let conidPath = path("conid", "contract id", conidText)
    static let account = path("acct", "account id (DU…, from /iserver/accounts)", S.pattern("^DU[0-9]{7}$"))
    static let orderID = path("id", "order id (an integer)", S.pattern("^[0-9]{1,19}$"))
    static let flag = S.caseless(["true", "false", "1", "0"])

    // MARK: Bodies

    static let ticket = S.object(
        required: ["side", "orderType"],
        [
            "conid": S.integerOrString, "conidex": S.example(S.string, "\(aapl)@SMART"),
            "side": S.caseless(["BUY", "SELL"]),
            "orderType": S.caseless(["MKT", "LMT", "STP", "STOP_LIMIT", "STP LMT", "TRAIL"]),
            "quantity": S.number, "cashQty": S.number, "price": S.number, "auxPrice": S.number,
            "trailingAmt": S.number, "trailingType": S.enumeration(["amt", "%"]),
            "tif": S.caseless(["DAY", "GTC", "IOC", "FOK", "OPG"]), "outsideRTH": S.boolean, "cOID": S.string,
            "acctId": S.string,
        ])
    static let orders = S.object(
        required: ["orders"], ["orders": .object(["type": .string("array"), "items": ticket])])

    // MARK: The document

    static let paths: [String: JSONValue] = [
        // Session (open).
        "/": .object(["get": op("The gateway's login page (HTML)", open: true, ["200": "the page"])]),
        "/sso/Login": .object([
            "post": op(
                "Log the gateway in as a papertrade user (form or JSON body); every client of the port then trades as that user",
                body: S.object(required: ["username", "password"], ["username": S.string, "password": S.string]),
                open: true,
                [
                    "200": "logged in (HTML)", "400": "malformed body", "401": "wrong username or password",
                    "429": "too many failed logins",
                ])
        ]),
        "/v1/api/openapi.json": .object(["get": op("This document", open: true)]),
        "/v1/api/iserver/auth/status": .object([
            "get": op("Whether the gateway is logged in", open: true),
            "post": op("Whether the gateway is logged in", open: true),
        ]),
        "/v1/api/iserver/auth/ssodh/init": .object([
            "get": op("The brokerage session (as auth/status)", open: true),
            "post": op("The brokerage session (as auth/status)", open: true),
        ]),
        "/v1/api/tickle": .object([
            "get": op(
                "Keep the session alive: its token for the WebSocket cookie", open: true,
                ["200": "OK", "401": "logged out"]),
            "post": op(
                "Keep the session alive: its token for the WebSocket cookie", open: true,
                ["200": "OK", "401": "logged out"]),
        ]),
        "/v1/api/logout": .object([
            "get": op("Log the gateway out", open: true), "post": op("Log the gateway out", open: true),
        ]),
        "/v1/api/sso/validate": .object([
            "get": op("The logged-in user", open: true, ["200": "OK", "401": "logged out"])
        ]),
        "/v1/api/iserver/reauthenticate": .object([
            "post": op("Reauthenticate (a no-op while logged in)", open: true, ["200": "OK", "401": "logged out"])
        ]),

        // Accounts and portfolio.
        "/v1/api/portfolio/accounts": .object(["get": op("The user's accounts")]),
        "/v1/api/portfolio/subaccounts": .object(["get": op("The user's accounts")]),
        "/v1/api/iserver/accounts": .object(["get": op("The user's accounts and the selected one")]),
        "/v1/api/iserver/account": .object([
            "post": op(
                "Select the account orders go to", body: S.object(required: ["acctId"], ["acctId": S.string]),
                ["200": "selected", "400": "acctId missing", "404": "no such account"])
        ]),
        "/v1/api/portfolio/{acct}/meta": .object([
            "get": op("An account's details", [account], ["200": "OK", "404": "no such account"])
        ]),
        "/v1/api/portfolio/{acct}/summary": .object([
            "get": op("An account's figures", [account], ["200": "OK", "404": "no such account"])
        ]),
        "/v1/api/portfolio/{acct}/ledger": .object([
            "get": op("Cash by currency", [account], ["200": "OK", "404": "no such account"])
        ]),
        "/v1/api/portfolio/{acct}/allocation": .object([
            "get": op("Holdings by asset class, sector and group", [account], ["200": "OK", "404": "no such account"])
        ]),
        "/v1/api/portfolio/{acct}/positions": .object([
            "get": op("Positions, first page", [account], ["200": "OK", "404": "no such account"])
        ]),
        "/v1/api/portfolio/{acct}/positions/{page}": .object([
            "get": op(
                "Positions, 100 a page", [account, path("page", "page number from 0", S.pattern("^[0-9]{1,19}$"))],
                ["200": "OK", "400": "bad page", "404": "no such account"])
        ]),
        "/v1/api/portfolio2/{acct}/positions": .object([
            "get": op("Positions", [account], ["200": "OK", "404": "no such account"])
        ]),
        "/v1/api/portfolio/{acct}/position/{conid}": .object([
            "get": op(
                "The position in one contract", [account, conidPath],
                ["200": "OK", "400": "bad conid", "404": "no such account"])
        ]),
        "/v1/api/portfolio/{acct}/positions/invalidate": .object([
            "post": op("Drop cached positions (always fresh here)", [account], ["200": "OK", "404": "no such account"])
        ]),
        "/v1/api/iserver/account/{acct}/summary": .object([
            "get": op("Balances, margin and buying power", [account], ["200": "OK", "404": "no such account"])
        ]),
        "/v1/api/iserver/account/pnl/partitioned": .object(["get": op("Today's profit and loss per account")]),
        "/v1/api/pa/performance": .object([
            "post": op(
                "Daily net asset values and cumulative time-weighted returns",
                body: S.object(
                    required: ["acctIds"],
                    [
                        "acctIds": .object(["type": .string("array"), "items": S.string]),
                        "period": S.caseless(["1D", "7D", "MTD", "1M", "3M", "6M", "YTD", "1Y", "ALL"]),
                    ]), ["200": "OK", "400": "acctIds missing or unknown period", "404": "no such account"])
        ]),

        // Contracts and market data.
        "/v1/api/trsrv/stocks": .object([
            "get": op(
                "Contracts by symbol",
                [query("symbols", "comma-separated symbols", S.example(S.string, "AAPL,600519"), required: true)],
                ["200": "OK", "400": "symbols missing"])
        ]),
        "/v1/api/trsrv/secdef": .object([
            "get": op(
                "Contract definitions",
                [query("conids", "comma-separated contract ids", S.example(S.string, aapl), required: true)],
                ["200": "OK", "400": "bad conid"])
        ]),
        "/v1/api/iserver/currency/pairs": .object([
            "get": op(
                "The currency pairs a currency trades in: {CUR: [{symbol, conid, ccyPair}]}",
                [query("currency", "a currency code such as USD", S.example(S.string, "USD"), required: true)],
                ["200": "OK", "400": "currency missing or unknown"])
        ]),
        "/v1/api/iserver/exchangerate": .object([
            "get": op(
                "Units of target one unit of source is worth at the pair's mid price: {rate}",
                [
                    query("source", "the currency converted from", S.example(S.string, "USD"), required: true),
                    query("target", "the currency converted to", S.example(S.string, "CNH"), required: true),
                ], ["200": "OK", "400": "no pair joins the two currencies"])
        ]),
        "/v1/api/iserver/secdef/search": .object([
            "get": op(
                "Search by symbol, or by company name with name=true",
                [
                    query("symbol", "ticker, A-share code or name", S.example(S.string, "AAPL"), required: true),
                    query("name", "search names (empty: false)", S.caseless(["true", "false", "1", "0", ""])),
                    query(
                        "secType",
                        "STK, OPT for underlyings with listed options, or CASH for currency pairs (others find nothing)"
                    ),
                ], ["200": "OK", "400": "symbol missing or nothing found"]),
            "post": op(
                "Search by symbol, or by company name with name=true",
                body: S.object(
                    required: ["symbol"],
                    [
                        "symbol": S.example(S.string, "AAPL"), "name": S.nullable(S.boolean),
                        "secType": S.nullable(S.string),
                    ]),
                ["200": "OK", "400": "symbol missing or nothing found"]),
        ]),
        "/v1/api/iserver/secdef/info": .object([
            "get": op(
                "A contract's details; with sectype=OPT, the option contracts of an underlying's month at a strike and right",
                [
                    conid, query("sectype", "OPT for options", S.caseless(["OPT", "STK"])),
                    query("month", "MMMYY, e.g. DEC26 (options)", S.example(S.string, "DEC26")),
                    query("strike", "strike (options)", S.decimal),
                    query("right", "C or P (options)", S.caseless(["C", "P"])),
                    query("exchange", "SMART (default)"),
                ], ["200": "OK", "400": "bad conid, month, strike or right"])
        ]),
        "/v1/api/iserver/secdef/strikes": .object([
            "get": op(
                "The strikes of an underlying's options in a month: {call: [...], put: [...]}",
                [
                    conid, query("sectype", "OPT", S.caseless(["OPT"]), required: true),
                    query("month", "MMMYY, e.g. DEC26", S.example(S.string, "DEC26"), required: true),
                    query("exchange", "SMART (default)"),
                ], ["200": "OK", "400": "not optionable, or no such month"])
        ]),
        "/v1/api/iserver/contract/{conid}/info": .object([
            "get": op("A contract's details", [conidPath], ["200": "OK", "400": "bad conid"])
        ]),
        "/v1/api/iserver/contract/{conid}/info-and-rules": .object([
            "get": op(
                "A contract's details and order rules",
                [conidPath, query("isBuy", "ignored: the rules are the same for either side")],
                ["200": "OK", "400": "bad conid"])
        ]),
        "/v1/api/iserver/contract/rules": .object([
            "post": op(
                "A contract's order rules",
                body: S.object(required: ["conid"], ["conid": S.integerOrString, "isBuy": S.boolean]),
                ["200": "OK", "400": "bad conid"])
        ]),
        "/v1/api/iserver/marketdata/snapshot": .object([
            "get": op(
                "Quote fields by number (31 last, 84 bid, 86 ask, …)",
                [
                    query("conids", "comma-separated contract ids", S.example(S.string, aapl), required: true),
                    query("fields", "comma-separated field numbers", S.example(S.string, "31,84,86")),
                ], marketData: true, ["200": "OK", "400": "bad conid"])
        ]),
        "/v1/api/md/snapshot": .object([
            "get": op(
                "Quote fields by number",
                [
                    query("conids", "comma-separated contract ids", S.example(S.string, aapl), required: true),
                    query("fields", "comma-separated field numbers", S.example(S.string, "31,84,86")),
                ], marketData: true, ["200": "OK", "400": "bad conid"])
        ]),
        "/v1/api/iserver/marketdata/history": .object(["get": history]),
        "/v1/api/hmds/history": .object(["get": history]),
        "/v1/api/iserver/marketdata/unsubscribeall": .object(["get": op("Stop every snapshot subscription")]),
        "/v1/api/iserver/marketdata/unsubscribe": .object([
            "post": op(
                "Stop one snapshot subscription", body: S.object(required: ["conid"], ["conid": S.integerOrString]),
                ["200": "OK", "400": "bad conid"])
        ]),
        "/v1/api/iserver/scanner/run": .object(["post": scanner]),
        "/v1/api/hmds/scanner/run": .object(["post": scanner]),
        "/v1/api/hmds/scanner": .object(["post": scanner]),
        "/v1/api/iserver/scanner/params": .object(["get": op("The scanner's types and locations")]),

        // Orders.
        "/v1/api/iserver/account/{acct}/orders": .object([
            "post": op(
                "Place orders (each may be answered with questions to confirm through /iserver/reply)", [account],
                body: orders,
                ["200": "placed or questions", "400": "refused, with the reason", "404": "no such account"])
        ]),
        "/v1/api/iserver/account/{acct}/orders/whatif": .object([
            "post": op(
                "What an order would cost and leave", [account], body: orders,
                ["200": "OK", "400": "refused, with the reason", "404": "no such account"])
        ]),
        "/v1/api/iserver/account/{acct}/order/{id}": .object([
            "post": op(
                "Modify an open order", [account, orderID], body: ticket,
                ["200": "modified or questions", "400": "refused, with the reason", "404": "no such order"]),
            "delete": op(
                "Cancel an order", [account, orderID],
                ["200": "canceled", "400": "not cancelable", "404": "no such order"]),
        ]),
        "/v1/api/iserver/reply/{id}": .object([
            "post": op(
                "Answer an order's questions", [path("id", "reply id from the order's answer", S.uuid)],
                body: S.object(required: ["confirmed"], ["confirmed": S.boolean]),
                ["200": "placed, or the next questions", "400": "confirmed missing or refused", "404": "no such reply"])
        ]),
        "/v1/api/iserver/questions/suppress": .object([
            "post": op(
                "Silence questions for the session",
                body: S.object(
                    required: ["messageIds"], ["messageIds": .object(["type": .string("array"), "items": S.string])]),
                ["200": "OK", "400": "unknown message id"])
        ]),
        "/v1/api/iserver/questions/suppress/reset": .object(["post": op("Ask every question again")]),
        "/v1/api/iserver/account/orders": .object([
            "get": op(
                "Today's orders and those still open",
                [
                    query("accountId", "one account (default: the selected one)"),
                    query("filters", "comma-separated statuses (submitted, filled, cancelled, …)"),
                    query("force", "ignored: always fresh"),
                ], ["200": "OK", "400": "no such account", "404": "no such account"])
        ]),
        "/v1/api/iserver/account/order/status/{id}": .object([
            "get": op("One order's status", [orderID], ["200": "OK", "400": "bad order id", "404": "no such order"])
        ]),
        "/v1/api/iserver/account/trades": .object([
            "get": op(
                "Executions of the last days",
                [
                    query("days", "1 to 7 (default 1)", S.pattern("^[1-7]$")),
                    query("accountId", "one account (default: the selected one)"),
                ], ["200": "OK", "400": "days out of range", "404": "no such account"])
        ]),
        "/v1/api/iserver/account/{acct}/precautions": .object([
            "get": op(
                "The account's order precautions (papertrade's own)", [account],
                ["200": "OK", "404": "no such account"]),
            "post": op(
                "Change the account's order precautions", [account],
                body: .object([
                    "type": .string("object"),
                    "properties": .object([
                        "price_percent": S.nullable(S.number), "size_limit": S.nullable(S.number),
                        "value_limit": S.nullable(S.number), "market_order_warning": S.boolean,
                        "immediate_fill_warning": S.boolean,
                    ]),
                ]), ["200": "OK", "400": "bad setting", "404": "no such account"]),
        ]),
    ]

    static let history = op(
        "Bars of a contract",
        [
            conid,
            query(
                "bar", "1min, 2min, 3min, 5min, 10min, 15min, 30min, 1h, 2h, 3h, 4h, 8h, 1d, 1w or 1m (default 1min)"),
            query("period", "{1-30}min, {1-8}h, {1-1000}d, {1-792}w, {1-182}m or {1-15}y (default 1w)"),
            query("startTime", "yyyyMMdd-HH:mm:ss in UTC: the window's end"),
            query("outsideRth", "include extended hours", flag),
        ], marketData: true, ["200": "OK", "400": "bad conid, bar, period or start"])

    static let scanner = op(
        "Top gainers, losers or most active (without a body: the top US gainers)",
        body: .object([
            "type": .string("object"),
            "properties": .object([
                "type": S.nullable(S.string), "scanCode": S.nullable(S.string), "location": S.nullable(S.string),
                "instrument": S.nullable(S.string),
            ]),
        ]), bodyRequired: false, marketData: true, ["200": "OK", "400": "unknown scan type or location"])

    static let document: JSONValue = .object([
        "openapi": .string("3.1.0"),
        "info": .object([
            "title": .string("papertrade Client Portal gateway"), "version": .string("1"),
            "description": .string(
                "Interactive Brokers' Client Portal Web API as papertrade serves it: log the gateway in at /, then every client of this port trades as that user. Errors are {error, statusCode}; numbers are JSON numbers as IB sends them."
            ),
        ]),
        "paths": .object(paths),
    ])

    static let methods = OpenAPIMethodTable(document)
}
