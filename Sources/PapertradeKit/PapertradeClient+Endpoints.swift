import Foundation

// The native API, one method per call. Account-scoped calls take the account's id; with an API key, pass nil
// (or omit it) to mean the key's own account.

extension PapertradeClient {
    // MARK: - User and accounts

    /// The logged-in user with its accounts (a session only).
    public func me() async throws(PapertradeError) -> User {
        try await send("GET", "me")
    }

    /// The accounts this client reaches: the user's, or the API key's one account.
    public func accounts() async throws(PapertradeError) -> [Account] {
        try await send("GET", "accounts")
    }

    /// An account with its positions. With an API key, nil is the key's account.
    public func account(_ id: String? = nil) async throws(PapertradeError) -> Account {
        try await send("GET", accountPath(try await resolve(id)))
    }

    /// Opens another paper account for the user (a session only).
    public func openAccount(market: Market, cash: Decimal? = nil, name: String? = nil, type: String? = nil)
        async throws(PapertradeError) -> Account
    {
        var body: [String: String] = ["market": market.rawValue]
        if let cash { body["cash"] = ExactDecimal.text(cash) }
        if let name { body["name"] = name }
        if let type { body["type"] = type }
        return try await send("POST", "accounts", body: encode(body))
    }

    public func positions(account: String? = nil) async throws(PapertradeError) -> [Position] {
        try await self.account(account).positions ?? []
    }

    public func deposit(_ amount: Decimal, method: TransferMethod = .bank, note: String? = nil, account: String? = nil)
        async throws(PapertradeError) -> TransferResult
    {
        try await transfer("deposit", amount, method: method, note: note, account: account)
    }

    public func withdraw(_ amount: Decimal, method: TransferMethod = .bank, note: String? = nil, account: String? = nil)
        async throws(PapertradeError) -> TransferResult
    {
        try await transfer("withdraw", amount, method: method, note: note, account: account)
    }

    private func transfer(_ kind: String, _ amount: Decimal, method: TransferMethod, note: String?, account: String?)
        async throws(PapertradeError) -> TransferResult
    {
        var body = ["amount": ExactDecimal.text(amount), "method": method.rawValue]
        if let note { body["note"] = note }
        return try await send("POST", accountPath(try await resolve(account), kind), body: encode(body))
    }

    /// What moving `amount` (of `currency`, either account's; default the source's) from one of the user's accounts to
    /// another would debit and credit now, at what rate, spread and fee — nothing moves. A login only.
    public func transferQuote(from: String, to: String, amount: Decimal, currency: String? = nil)
        async throws(PapertradeError) -> AccountTransferQuote
    {
        try await send("POST", "transfers/quote", body: encode(Self.transferBody(from, to, amount, currency)))
    }

    /// Moves money between two of the user's accounts, converted at the live rate when their currencies differ.
    /// With a `clientTransferID` a retry is safe: the transfer made under it before is answered again, never made
    /// twice.
    public func transfer(
        from: String, to: String, amount: Decimal, currency: String? = nil, clientTransferID: String? = nil
    ) async throws(PapertradeError) -> AccountTransfer {
        var body = Self.transferBody(from, to, amount, currency)
        if let clientTransferID { body["client_transfer_id"] = clientTransferID }
        return try await send("POST", "transfers", body: encode(body))
    }

    /// The user's transfers, newest first.
    public func transfers(limit: Int? = nil) async throws(PapertradeError) -> [AccountTransfer] {
        struct List: Decodable { var transfers: [AccountTransfer] }
        let list: List = try await send("GET", "transfers", query: Self.items(["limit": limit]))
        return list.transfers
    }

    /// One of the user's transfers (its status: `pending` until credited).
    public func transfer(id: String) async throws(PapertradeError) -> AccountTransfer {
        try await send("GET", "transfers/" + Self.segment(id))
    }

    static func transferBody(_ from: String, _ to: String, _ amount: Decimal, _ currency: String?) -> [String: String] {
        var body = ["from_account": from, "to_account": to, "amount": ExactDecimal.text(amount)]
        if let currency { body["currency"] = currency }
        return body
    }

    /// Starts the account over with its starting cash.
    public func reset(account: String? = nil) async throws(PapertradeError) -> Account {
        try await send("POST", accountPath(try await resolve(account), "reset"))
    }

    /// A new API key for one of the user's accounts (a session only); the secret is shown this once.
    public func createAPIKey(account: String) async throws(PapertradeError) -> APIKey {
        try await send("POST", accountPath(account, "keys"))
    }

    /// The account's API keys, oldest first (a session only).
    public func apiKeys(account: String) async throws(PapertradeError) -> [APIKeyInfo] {
        try await send("GET", accountPath(account, "keys"))
    }

    /// Revokes one of the account's API keys: a bot using it is refused from its next request.
    public func revokeAPIKey(account: String, keyID: String) async throws(PapertradeError) {
        try await sendIgnoringBody("DELETE", accountPath(account, "keys", Self.segment(keyID)))
    }

    /// The account's history, newest first.
    public func transactions(account: String? = nil, limit: Int? = nil) async throws(PapertradeError) -> [Transaction] {
        try await send(
            "GET", accountPath(try await resolve(account), "transactions"), query: Self.items(["limit": limit]))
    }

    // MARK: - Orders

    public func placeOrder(_ order: OrderRequest, account: String? = nil) async throws(PapertradeError) -> Order {
        try await send("POST", accountPath(try await resolve(account), "orders"), body: encode(order))
    }

    /// Orders by status (`open`, `closed` or `all`), newest first.
    public func orders(status: String = "all", limit: Int? = nil, account: String? = nil)
        async throws(PapertradeError) -> [Order]
    {
        try await send(
            "GET", accountPath(try await resolve(account), "orders"),
            query: Self.items(["status": status, "limit": limit]))
    }

    public func cancelOrder(_ id: String, account: String? = nil) async throws(PapertradeError) -> Order {
        try await send("DELETE", accountPath(try await resolve(account), "orders", Self.segment(id)))
    }

    /// Exercises every contract of a long option position now: a call buys, a put sells the deliverable's shares at
    /// the strike. Returns the account after it.
    public func exercise(_ symbol: String, account: String? = nil) async throws(PapertradeError) -> Account {
        try await send("POST", accountPath(try await resolve(account), "positions", Self.segment(symbol), "exercise"))
    }

    /// Lets a long option position expire unexercised even in the money (until 4:30 pm ET on its expiration day).
    /// Returns the account, the position marked `doNotExercise`.
    public func doNotExercise(_ symbol: String, account: String? = nil) async throws(PapertradeError) -> Account {
        try await send(
            "POST", accountPath(try await resolve(account), "positions", Self.segment(symbol), "do-not-exercise"))
    }

    /// Cancels every open order of the account; the orders as they ended.
    public func cancelAllOrders(account: String? = nil) async throws(PapertradeError) -> [Order] {
        let id = try await resolve(account)
        var canceled: [Order] = []
        for order in try await orders(status: "open", limit: 500, account: id) {
            do throws(PapertradeError) {
                canceled.append(try await cancelOrder(order.id, account: id))
            } catch .server(status: 422, _, _) {
                continue // filled or ended between the listing and the cancel
            }
        }
        return canceled
    }

    // MARK: - Market data

    public func quote(_ symbol: String) async throws(PapertradeError) -> Quote {
        try await send("GET", "quotes/\(Self.segment(symbol.uppercased()))")
    }

    /// Bars over [`from`, `to`) (defaults: today's session up to now).
    public func bars(_ symbol: String, timeframe: Timeframe = .day, from: Date? = nil, to: Date? = nil)
        async throws(PapertradeError) -> Bars
    {
        try await send(
            "GET", "bars/\(Self.segment(symbol.uppercased()))",
            query: Self.items([
                "timeframe": timeframe.rawValue, "from": from.map(ServerTime.text), "to": to.map(ServerTime.text),
            ]))
    }

    /// Bars between two exchange dates (YYYY-MM-DD, in the exchange's time zone).
    public func bars(_ symbol: String, timeframe: Timeframe = .day, fromDate: String, toDate: String? = nil)
        async throws(PapertradeError) -> Bars
    {
        try await send(
            "GET", "bars/\(Self.segment(symbol.uppercased()))",
            query: Self.items(["timeframe": timeframe.rawValue, "from": fromDate, "to": toDate]))
    }

    /// Symbols by ticker, A-share code or name (English or Chinese).
    public func search(_ text: String, market: Market? = nil, limit: Int? = nil) async throws(PapertradeError)
        -> [SymbolMatch]
    {
        try await send("GET", "search", query: Self.items(["q": text, "market": market?.rawValue, "limit": limit]))
    }

    /// Today's top gainers, losers or most active stocks of a market, or (`crypto: true`) crypto pairs.
    public func movers(_ kind: MoverKind = .gainers, market: Market = .us, crypto: Bool = false, limit: Int? = nil)
        async throws(PapertradeError) -> [Mover]
    {
        try await send(
            "GET", "market/movers",
            query: Self.items([
                "kind": kind.rawValue, "market": market.rawValue, "asset_class": crypto ? "crypto" : "stocks",
                "limit": limit,
            ]))
    }

    public func marketStatus(_ market: Market = .us) async throws(PapertradeError) -> MarketStatus {
        try await send("GET", "market/status", query: Self.items(["market": market.rawValue]))
    }

    /// The earnings calendar from `from` through `to` (YYYY-MM-DD; by default today and the week after it, at most a
    /// year), of `symbols` or of every company (of one `market`).
    public func earnings(from: String? = nil, to: String? = nil, symbols: [String]? = nil, market: Market? = nil)
        async throws(PapertradeError) -> EarningsCalendar
    {
        try await send(
            "GET", "earnings",
            query: Self.items([
                "from": from, "to": to, "symbols": symbols?.joined(separator: ","), "market": market?.rawValue,
            ]))
    }

    // MARK: - Watchlists

    public func watchlists(account: String? = nil) async throws(PapertradeError) -> [Watchlist] {
        try await send("GET", accountPath(try await resolve(account), "watchlists"))
    }

    public func createWatchlist(_ name: String, symbols: [String] = [], account: String? = nil)
        async throws(PapertradeError) -> Watchlist
    {
        struct Body: Encodable {
            var name: String
            var symbols: [String]
        }
        return try await send(
            "POST", accountPath(try await resolve(account), "watchlists"),
            body: encode(Body(name: name, symbols: symbols)))
    }

    /// Renames a watchlist and replaces its symbols.
    public func replaceWatchlist(_ id: String, name: String, symbols: [String], account: String? = nil)
        async throws(PapertradeError) -> Watchlist
    {
        struct Body: Encodable {
            var name: String
            var symbols: [String]
        }
        return try await send(
            "PUT", accountPath(try await resolve(account), "watchlists", Self.segment(id)),
            body: encode(Body(name: name, symbols: symbols)))
    }

    public func addToWatchlist(_ id: String, symbol: String, account: String? = nil) async throws(PapertradeError)
        -> Watchlist
    {
        try await send(
            "POST", accountPath(try await resolve(account), "watchlists", Self.segment(id), "symbols"),
            body: encode(["symbol": symbol]))
    }

    public func removeFromWatchlist(_ id: String, symbol: String, account: String? = nil)
        async throws(PapertradeError) -> Watchlist
    {
        try await send(
            "DELETE",
            accountPath(try await resolve(account), "watchlists", Self.segment(id), "symbols", Self.segment(symbol)))
    }

    public func deleteWatchlist(_ id: String, account: String? = nil) async throws(PapertradeError) {
        try await sendIgnoringBody("DELETE", accountPath(try await resolve(account), "watchlists", Self.segment(id)))
    }

    // MARK: - Performance

    public func performance(period: PerformancePeriod = .month, account: String? = nil)
        async throws(PapertradeError) -> Performance
    {
        try await send(
            "GET", accountPath(try await resolve(account), "performance"),
            query: Self.items(["period": period.rawValue]))
    }

    /// Performance between two dates (YYYY-MM-DD).
    public func performance(start: String, end: String? = nil, account: String? = nil)
        async throws(PapertradeError) -> Performance
    {
        try await send(
            "GET", accountPath(try await resolve(account), "performance"),
            query: Self.items(["start": start, "end": end]))
    }

    // MARK: - Queue rules

    public func queueRules(history: Bool = false, account: String? = nil) async throws(PapertradeError) -> [QueueRule] {
        try await send("GET", accountPath(try await resolve(account), "queue") + (history ? "/history" : ""))
    }

    public func addQueueRule(_ rule: QueueRuleRequest, account: String? = nil) async throws(PapertradeError)
        -> QueueRule
    {
        try await send("POST", accountPath(try await resolve(account), "queue"), body: encode(rule))
    }

    public func cancelQueueRule(_ id: String, account: String? = nil) async throws(PapertradeError) -> QueueRule {
        try await send("DELETE", accountPath(try await resolve(account), "queue", Self.segment(id)))
    }

    // MARK: - Games (a session, or an API key on behalf of its account's owner)

    /// Public games, or (`mine`) those the user owns or plays.
    public func games(mine: Bool = false) async throws(PapertradeError) -> [Game] {
        try await send("GET", "games", query: Self.items(["scope": mine ? "mine" : "public"]))
    }

    public func game(_ id: String) async throws(PapertradeError) -> Game {
        try await send("GET", "games/\(Self.segment(id))")
    }

    public func createGame(_ settings: GameSettings) async throws(PapertradeError) -> Game {
        try await send("POST", "games", body: encode(settings))
    }

    /// Joins a game with a new game account; `apiKey` also makes a key to trade it from a bot or an agent.
    public func joinGame(_ id: String, code: String? = nil, apiKey: Bool = false) async throws(PapertradeError)
        -> GameMembership
    {
        struct Body: Encodable {
            var code: String?
            var api_key: Bool
        }
        return try await send(
            "POST", "games/\(Self.segment(id))/join", body: encode(Body(code: code, api_key: apiKey)))
    }

    /// Joins the game a join code belongs to.
    public func joinGame(code: String, apiKey: Bool = false) async throws(PapertradeError) -> GameMembership {
        struct Body: Encodable {
            var code: String
            var api_key: Bool
        }
        return try await send("POST", "games/join", body: encode(Body(code: code, api_key: apiKey)))
    }

    public func leaderboard(_ game: String, code: String? = nil) async throws(PapertradeError) -> Leaderboard {
        try await send("GET", "games/\(Self.segment(game))/leaderboard", query: Self.items(["code": code]))
    }

    // MARK: - Alerts (a session, or an API key on behalf of its account's owner) and notifications (a session)

    public func alerts() async throws(PapertradeError) -> [Alert] {
        try await send("GET", "alerts")
    }

    public func createAlert(_ alert: AlertRequest) async throws(PapertradeError) -> Alert {
        try await send("POST", "alerts", body: encode(alert))
    }

    public func cancelAlert(_ id: String) async throws(PapertradeError) -> Alert {
        try await send("DELETE", "alerts/\(Self.segment(id))")
    }

    public func notifications(limit: Int? = nil) async throws(PapertradeError) -> NotificationList {
        try await send("GET", "notifications", query: Self.items(["limit": limit]))
    }

    public func markNotificationRead(_ id: String) async throws(PapertradeError) -> NotificationList {
        try await send("POST", "notifications/\(Self.segment(id))/read")
    }

    public func markAllNotificationsRead() async throws(PapertradeError) -> NotificationList {
        try await send("POST", "notifications/read-all")
    }

    // MARK: - Backtests (a session, or an API key on behalf of its account's owner)

    public func startBacktest(_ request: BacktestRequest) async throws(PapertradeError) -> Backtest {
        try await send("POST", "backtests", body: encode(request))
    }

    public func backtests() async throws(PapertradeError) -> [Backtest] {
        try await send("GET", "backtests")
    }

    public func backtest(_ id: String) async throws(PapertradeError) -> Backtest {
        try await send("GET", "backtests/\(Self.segment(id))")
    }

    /// Starts a backtest and waits for its report, checking every `interval` seconds.
    public func runBacktest(_ request: BacktestRequest, interval: Duration = .milliseconds(250))
        async throws(PapertradeError) -> Backtest
    {
        var job = try await startBacktest(request)
        while job.status == "running" {
            do { try await Task.sleep(for: interval) } catch { throw .transport("canceled") }
            job = try await backtest(job.id)
        }
        if job.status == "failed" { throw .server(status: 422, code: nil, message: job.error ?? "the backtest failed") }
        return job
    }

    // MARK: - Plumbing

    /// The account an API key trades (asked of the server once, then remembered).
    public func keyAccountID() async throws(PapertradeError) -> String {
        try await resolve(nil)
    }

    /// The account a call is about: the one given, or the API key's own.
    func resolve(_ id: String?) async throws(PapertradeError) -> String {
        if let id { return id }
        guard case .apiKey = credentials else {
            throw .notAuthorized("name the account: a logged-in user may have several")
        }
        if let known = keyAccount.withLock({ $0 }) { return known }
        guard let first = try await accounts().first else { throw .notAuthorized("the API key has no account") }
        keyAccount.withLock { $0 = first.id }
        return first.id
    }

    func accountPath(_ id: String, _ rest: String...) -> String {
        (["accounts", Self.segment(id)] + rest).joined(separator: "/")
    }

    static func items(_ pairs: KeyValuePairs<String, (any Sendable)?>) -> [URLQueryItem] {
        pairs.compactMap { name, value in
            switch value {
            case let text as String: URLQueryItem(name: name, value: text)
            case let number as Int: URLQueryItem(name: name, value: String(number))
            default: nil
            }
        }
    }
}
