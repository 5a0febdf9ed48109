import BrokerageModel
import MarketData
import TradingCore

// The front's account-scoped calls: each finds the account's shard and runs there. (Work that spans shards is in
// Brokerage+Scatter.swift; games in Games/GameRegistry.swift.)

/// A queue entry as the apps show it: the rule, its status, the current price and the trigger level.
public struct QueueEntry: Sendable {
    public var record: QueueRuleRecord
    public var price: Price?
    public var triggerLevel: Price?
    public var instrument: Instrument?
    /// The average price the rule's order filled at, once it has (the price the rule fired at is the record's
    /// `firedPrice`: a market order fills at the book, not at the trigger).
    public var fillPrice: Price? = nil
}

extension Brokerage {
    // MARK: Accounts

    /// Opens a paper account for a user, durably, in the shard with the fewest accounts.
    public func openAccount(
        userID: UserID, market: Market, cash: FixedDecimal, name: String, terms: MarginTerms = .cash
    ) async throws(BrokerageError) -> AccountRecord {
        let placement = try router.placeNewAccount()
        let shard = router.shard(placement)
        do {
            let record = try await shard.openAccount(
                Self.newAccountID(), userID: userID, market: market, cash: cash, name: name, terms: terms)
            router.opened(record.id, in: placement)
            return record
        } catch {
            router.unplaced(placement)
            throw error
        }
    }

    /// A fresh random account id (version 4: 122 random bits, so two shards never draw the same one).
    static func newAccountID() -> AccountID {
        var generator = SystemRandomNumberGenerator()
        return AccountID(.random(using: &generator))
    }

    /// An account's record (who owns it, its name and market, its balances as last committed). From its shard
    /// when this process serves it, else from storage (every acknowledged step is there).
    public func accountRecord(_ id: AccountID) async -> AccountRecord? {
        guard let shard = await router.shard(of: id) else { return nil }
        if (try? router.served(shard.id)) != nil { return await shard.accountRecord(id) }
        return try? await repositories.accounts.account(id)
    }

    /// An account's live balances and terms.
    public func account(_ id: AccountID) async throws(BrokerageError) -> Account {
        guard let account = try await shard(id).account(id) else { throw .notFound("account not found") }
        return account
    }

    /// A user's accounts, oldest first: every shard asked when this process serves them all, else storage (on a
    /// cluster the user's accounts may live in shards other nodes serve).
    public func accounts(of userID: UserID) async -> [AccountRecord] {
        let records: [AccountRecord]
        if router.servedShards().count == router.count {
            records = await router.scatter { await $0.accounts(of: userID) }.flatMap { $0 }
        } else {
            records = (try? await repositories.accounts.accounts(userID: userID)) ?? []
        }
        return records.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Loads an account created by another process (e.g. `papertrade admin create-account` while serving).
    public func loadAccountIfNeeded(_ id: AccountID) async throws(BrokerageError) {
        try await shard(id).loadAccountIfNeeded(id)
    }

    public func servesHere(_ id: AccountID) async -> Bool {
        (try? await router.route(id)) != nil
    }

    /// Every account in the database, including any created by another process (the admin commands list them).
    public func allAccounts() async throws(BrokerageError) -> [AccountRecord] {
        try await stored { try await repositories.accounts.accounts(userID: nil) }
    }

    /// The accounts of a user, including any created by another process, then the class team accounts they trade.
    /// On a cluster, those another node serves are as their last commit left them (a user's accounts may live on
    /// several nodes).
    public func loadAccounts(of userID: UserID) async throws(BrokerageError) -> [AccountRecord] {
        var records = try await stored { try await repositories.accounts.accounts(userID: userID) }
        for team in try await stored({ try await repositories.classes.teamAccounts(of: userID) })
        where !records.contains(where: { $0.id == team }) {
            if let record = try await stored({ try await repositories.accounts.account(team) }) {
                records.append(record)
            }
        }
        var loaded: [AccountRecord] = []
        for record in records {
            let shard: Shard
            do { shard = try await self.shard(record.id) } catch .elsewhere {
                loaded.append(record)
                continue
            }
            try await shard.loadAccountIfNeeded(record.id)
            if let live = await shard.accountRecord(record.id) { loaded.append(live) }
        }
        return loaded
    }

    public func tradesAsTeammate(_ id: AccountID, user: UserID) async -> Bool {
        (try? await repositories.classes.teamAccounts(of: user).contains(id)) ?? false
    }

    public func deposit(_ amount: FixedDecimal, to id: AccountID, method: TransferMethod, note: String?)
        async throws(BrokerageError) -> LedgerEntry
    {
        try await shard(id).deposit(amount, to: id, method: method, note: note)
    }

    public func withdraw(_ amount: FixedDecimal, from id: AccountID, method: TransferMethod, note: String?)
        async throws(BrokerageError) -> LedgerEntry
    {
        try await shard(id).withdraw(amount, from: id, method: method, note: note)
    }

    /// Makes an account a cash or margin account, or changes its largest multiplier (Alpaca's
    /// max_margin_multiplier), durably.
    public func setMarginTerms(_ terms: MarginTerms, for id: AccountID) async throws(BrokerageError) {
        try await shard(id).setMarginTerms(terms, for: id)
    }

    /// Resets an account to its starting cash (a game account only as often as its game allows).
    public func reset(_ id: AccountID) async throws(BrokerageError) {
        let shard = try await shard(id)
        guard await shard.account(id) != nil else { throw .notFound("account not found") }
        try await games.consumeReset(id)
        try await shard.reset(id)
    }

    /// The account's ledger entries, newest first (or oldest first with `ascending`), at most `limit`.
    public func activities(_ id: AccountID, limit: Int = 100, ascending: Bool = false) async throws(BrokerageError)
        -> [LedgerEntry]
    {
        try await stored { try await repositories.accounts.activities(account: id, limit: limit, ascending: ascending) }
    }

    /// The account's ledger entries matching `query` (kinds, times, order, paging).
    public func activities(_ id: AccountID, query: ActivityQuery) async throws(BrokerageError) -> [LedgerEntry] {
        try await stored { try await repositories.accounts.activities(account: id, query: query) }
    }

    /// An account's balances and positions valued at current quotes.
    public func summary(_ id: AccountID) async throws(BrokerageError) -> AccountSummary {
        do {
            return try await shard(id).summary(id, dayProfit: true)
        } catch .elsewhere(let shard, let owner, let url) {
            // (A user's listing on a cluster names accounts other nodes serve: those are valued as last committed.)
            guard let summary = try await storedSummary(id) else {
                throw .elsewhere(shard: shard, owner: owner, url: url)
            }
            return summary
        }
    }

    /// An account another node serves, valued at current quotes as its last commit left it (its day change is the
    /// price change of what it holds): for listings of a user whose accounts live on several nodes. Nil when the
    /// account cannot be read back.
    func storedSummary(_ id: AccountID) async throws(BrokerageError) -> AccountSummary? {
        guard let record = try await stored({ try await repositories.accounts.account(id) }) else { return nil }
        let snapshot = try await stored { try await repositories.accounts.restorable(record) }
        var engine = TradingEngine(configuration: context.configuration(for: record.shard))
        for symbol in snapshot.symbols {
            if let instrument = await market.resolvedInstrument(symbol) { engine.register(instrument) }
        }
        guard (try? engine.restore(snapshot)) != nil, let account = engine.account(id) else { return nil }
        return await AccountValuation.summary(
            account, record: record, instrument: engine.instrument, margin: engine.configuration.margin,
            market: market, clock: clock)
    }

    /// An account's performance over a period (see `PerformanceReport`).
    public func performance(
        _ id: AccountID, period: PerformancePeriod?, start: CivilDate? = nil, end: CivilDate? = nil,
        resolution: ChartResolution = .periodDefault
    ) async throws(BrokerageError) -> PerformanceReport {
        try await shard(id).performance(id, period: period, start: start, end: end, resolution: resolution)
    }

    /// Records the account's closes not yet recorded (see `EquityHistoryRecorder`); the latest, if any.
    @discardableResult
    public func catchUpEquityDays(_ id: AccountID) async throws(BrokerageError) -> EquityDay? {
        try await shard(id).catchUpEquityDays(id)
    }

    // MARK: Orders

    /// Places an order and returns it (as it stands after the step: a marketable order may already be filled)
    /// once the step is durable. The wait for the disk happens off the shard: the shard is free for the next
    /// request meanwhile.
    public func submit(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> Order {
        try await shard(account).submit(canonical(request), account: account)
    }

    /// The refusal placing `request` would meet now (lots, ticks, price limits, buying power, T+1…), or nil when
    /// it would be accepted; nothing is placed.
    public func check(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> OrderRejection? {
        try await shard(account).check(canonical(request), account: account)
    }

    /// The request with its symbol as the directory spells it: a crypto pair's legacy symbol (`BTCUSD`, as Alpaca
    /// still accepts) becomes the pair's (`BTC/USD`). Other symbols are left as they are.
    func canonical(_ request: OrderRequest) -> OrderRequest {
        let symbol = canonicalSymbol(request.symbol)
        guard symbol != request.symbol else { return request }
        var request = request
        request.symbol = symbol
        return request
    }

    /// A crypto pair's symbol for its legacy spelling (`BTCUSD` → `BTC/USD`); any other symbol as it is.
    func canonicalSymbol(_ symbol: String) -> String {
        guard let entry = directory.entry(symbol), entry.instrument.kind == .crypto else { return symbol }
        return entry.symbol
    }

    public func cancel(_ id: OrderID, account: AccountID) async throws(BrokerageError) -> Order {
        try await shard(account).cancel(id, account: account)
    }

    public func cancelAll(account: AccountID) async throws(BrokerageError) -> [(OrderID, Result<Order, BrokerageError>)]
    {
        try await shard(account).cancelAll(account: account)
    }

    public func replace(_ id: OrderID, account: AccountID, with change: ReplaceRequest) async throws(BrokerageError)
        -> Order
    {
        try await shard(account).replace(id, account: account, with: change)
    }

    /// An order by id: from the shard's engine while it is open (or recently closed), else from storage.
    public func order(_ id: OrderID, account: AccountID) async throws(BrokerageError) -> Order {
        try await shard(account).order(id, account: account)
    }

    public func order(clientOrderID: ClientOrderID, account: AccountID) async throws(BrokerageError) -> Order {
        try await shard(account).order(clientOrderID: clientOrderID, account: account)
    }

    public func orders(account: AccountID, _ query: OrderQuery) async throws(BrokerageError) -> [Order] {
        try await stored { try await repositories.accounts.orders(account: account, query) }
    }

    /// Sells all or part of a position at market (Alpaca's DELETE /v2/positions/{symbol}).
    /// `qty` shares, or `percentage` (0–100) of the position; everything when both are nil.
    public func closePosition(
        _ symbol: String, account: AccountID, qty: Quantity?, percentage: FixedDecimal?, liquidation: Bool = false
    ) async throws(BrokerageError) -> Order {
        try await shard(account).closePosition(
            canonicalSymbol(symbol), account: account, qty: qty, percentage: percentage, liquidation: liquidation)
    }

    /// The quote orders on `symbol` trade against: a stock's from the feed, an option contract's from its chain.
    public func quote(_ symbol: String) async throws(FeedError) -> MarketQuote {
        try await market.quote(symbol, reuse: true)
    }

    /// The instrument a symbol names: a directory entry, or an option contract of an optionable underlying.
    public func instrument(_ symbol: String) -> Instrument? { market.instrument(symbol) }

    /// Exercises the account's long position in an option contract now (see `Shard.exercise`).
    public func exercise(_ symbol: String, account: AccountID) async throws(BrokerageError) {
        try await shard(account).exercise(symbol, account: account)
    }

    /// Asks that the account's long position in an option not be exercised at expiry (Alpaca's do-not-exercise).
    public func doNotExercise(_ symbol: String, account: AccountID) async throws(BrokerageError) {
        try await shard(account).doNotExercise(symbol, account: account)
    }

    /// Symbols the account holds, long or short.
    public func heldSymbols(_ account: AccountID) async throws(BrokerageError) -> [String] {
        try await shard(account).heldSymbols(account)
    }

    // MARK: Queue purchase

    /// Queues a rule for an account. The rule is evaluated at once against the current price (and may fire in
    /// this call: the returned record says so).
    public func addRule(
        account: AccountID, symbol: String, condition: RuleCondition, action: RuleAction, lifetime: RuleLifetime?
    ) async throws(BrokerageError) -> QueueRuleRecord {
        try await shard(account).addRule(
            account: account, symbol: symbol, condition: condition, action: action, lifetime: lifetime)
    }

    public func cancelRule(_ id: QueueRuleID, account: AccountID) async throws(BrokerageError) -> QueueRuleRecord {
        try await shard(account).cancelRule(id, account: account)
    }

    /// The account's queued rules with current prices.
    public func queue(account: AccountID) async throws(BrokerageError) -> [QueueEntry] {
        try await shard(account).queue(account: account)
    }

    /// The account's rules that left the queue (fired, failed, expired, canceled), newest first.
    public func queueHistory(account: AccountID, limit: Int = 100) async throws(BrokerageError) -> [QueueEntry] {
        try await shard(account).queueHistory(account: account, limit: limit)
    }

    /// A rule with its current price and trigger level.
    public func entry(_ record: QueueRuleRecord) async -> QueueEntry {
        guard let shard = try? await shard(record.rule.accountID) else {
            return QueueEntry(
                record: record, price: nil, triggerLevel: nil,
                instrument: directory.entry(record.rule.symbol)?.instrument)
        }
        return await shard.entry(record)
    }

    // MARK: Price alerts (kept by the shard a user's id hashes to)

    public func addAlert(
        user: UserID, symbol: String, condition: AlertCondition, frequency: AlertFrequency,
        timeframe: AlertTimeframe, expiresAt: Timestamp?, message: String?
    ) async throws(BrokerageError) -> AlertRecord {
        try await router.route(user: user).addAlert(
            user: user, symbol: symbol, condition: condition, frequency: frequency, timeframe: timeframe,
            expiresAt: expiresAt, message: message)
    }

    public func cancelAlert(_ id: AlertID, user: UserID) async throws(BrokerageError) -> AlertRecord {
        try await router.route(user: user).cancelAlert(id, user: user)
    }

    /// A user's active alerts, newest first.
    public func alerts(user: UserID) async throws(BrokerageError) -> [AlertRecord] {
        try await router.route(user: user).alerts(user: user)
    }

    /// A user's alert, active or not.
    public func alert(_ id: AlertID, user: UserID) async throws(BrokerageError) -> AlertRecord {
        try await router.route(user: user).alert(id, user: user)
    }

    /// A user's triggered, canceled and expired alerts, newest first.
    public func alertHistory(user: UserID, limit: Int = 100) async throws(BrokerageError) -> [AlertRecord] {
        try await stored { try await repositories.rules.alerts(user: user, active: false, limit: limit) }
    }

    /// When a user's alerts triggered (one alert's, with `alert`), newest first.
    public func alertTriggers(user: UserID, alert: AlertID? = nil, limit: Int = 100) async throws(BrokerageError)
        -> [AlertTriggerRecord]
    {
        try await stored { try await repositories.rules.alertTriggers(user: user, alert: alert, limit: limit) }
    }

    /// The level an alert's operand stands for now (its value, or the moving average's current value).
    public func alertLevel(_ record: AlertRecord) async -> Price? {
        guard let shard = try? router.route(user: UserID(record.userID)) else { return nil }
        return await shard.alertLevel(record.alert)
    }
}
