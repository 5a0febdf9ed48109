import BrokerageModel
import MarketData
import TradingCore

/// An account's life as the surfaces see it: opening it, its balances, positions and terms, cash in and out,
/// resets, its ledger and its performance. The brokerage front implements it, routing each call to the account's
/// shard; a controller that serves accounts names this, not the front.
public protocol AccountService: Sendable {
    /// Opens an account with the market's defaults for what is not given (cash, a name in the owner's language,
    /// the account type); refuses margin where the market does not allow it.
    func openAccount(userID: UserID, market: Market, cash: FixedDecimal?, name: String?, type: AccountType?)
        async throws(BrokerageError) -> AccountRecord
    /// An account's record (who owns it, its name and market, its balances as last committed).
    func accountRecord(_ id: AccountID) async -> AccountRecord?
    /// An account's live balances and terms.
    func account(_ id: AccountID) async throws(BrokerageError) -> Account
    /// A user's accounts, oldest first.
    func accounts(of userID: UserID) async -> [AccountRecord]
    /// Loads an account created by another process.
    func loadAccountIfNeeded(_ id: AccountID) async throws(BrokerageError)
    /// Whether this process serves the account's shard now (always, outside a cluster): what a cluster node tells
    /// the proxy, so an account's next requests come straight here (`Papertrade-Shard-Owner`).
    func servesHere(_ id: AccountID) async -> Bool
    /// The accounts of a user, including any created by another process, and the class team accounts they trade
    /// (a teammate owns those).
    func loadAccounts(of userID: UserID) async throws(BrokerageError) -> [AccountRecord]
    /// Whether `user` trades the account as a member of a class's team (its owner is a teammate).
    func tradesAsTeammate(_ id: AccountID, user: UserID) async -> Bool
    func deposit(_ amount: FixedDecimal, to id: AccountID, method: TransferMethod, note: String?)
        async throws(BrokerageError) -> LedgerEntry
    func withdraw(_ amount: FixedDecimal, from id: AccountID, method: TransferMethod, note: String?)
        async throws(BrokerageError) -> LedgerEntry
    /// Makes an account a cash or margin account, or changes its largest multiplier.
    func setMarginTerms(_ terms: MarginTerms, for id: AccountID) async throws(BrokerageError)
    /// Resets an account to its starting cash (a game account only as often as its game allows).
    func reset(_ id: AccountID) async throws(BrokerageError)
    /// The account's ledger entries, newest first (or oldest first with `ascending`), at most `limit`.
    func activities(_ id: AccountID, limit: Int, ascending: Bool) async throws(BrokerageError) -> [LedgerEntry]
    /// The account's ledger entries matching `query`.
    func activities(_ id: AccountID, query: ActivityQuery) async throws(BrokerageError) -> [LedgerEntry]
    /// An account's balances and positions valued at current quotes.
    func summary(_ id: AccountID) async throws(BrokerageError) -> AccountSummary
    /// An account's performance over a period, or between two dates.
    func performance(
        _ id: AccountID, period: PerformancePeriod?, start: CivilDate?, end: CivilDate?, resolution: ChartResolution
    ) async throws(BrokerageError) -> PerformanceReport
    /// The name an account is shown by (a default name reads in its owner's language).
    func displayName(of record: AccountRecord) -> String
    /// Per-account settings the Alpaca configurations endpoint reads and writes.
    var configurations: AccountConfigurations { get }
}

extension AccountService {
    public func openAccount(userID: UserID, market: Market, cash: FixedDecimal?, name: String?)
        async throws(BrokerageError) -> AccountRecord
    {
        try await openAccount(userID: userID, market: market, cash: cash, name: name, type: nil)
    }

    public func performance(
        _ id: AccountID, period: PerformancePeriod?, start: CivilDate? = nil, end: CivilDate? = nil
    ) async throws(BrokerageError) -> PerformanceReport {
        try await performance(id, period: period, start: start, end: end, resolution: .periodDefault)
    }

    public func activities(_ id: AccountID, limit: Int) async throws(BrokerageError) -> [LedgerEntry] {
        try await activities(id, limit: limit, ascending: false)
    }
}

/// Orders and positions: placing, checking, replacing and canceling orders, reading them, closing and exercising
/// positions, and the stream of order updates. The brokerage front implements it, routing each call to the
/// account's shard.
public protocol OrderService: Sendable {
    /// Places an order and returns it (a marketable order may already be filled) once the step is durable.
    func submit(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> Order
    /// The refusal placing `request` would meet now, or nil when it would be accepted; nothing is placed.
    func check(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> OrderRejection?
    func cancel(_ id: OrderID, account: AccountID) async throws(BrokerageError) -> Order
    func cancelAll(account: AccountID) async throws(BrokerageError) -> [(OrderID, Result<Order, BrokerageError>)]
    func replace(_ id: OrderID, account: AccountID, with change: ReplaceRequest) async throws(BrokerageError)
        -> Order
    func order(_ id: OrderID, account: AccountID) async throws(BrokerageError) -> Order
    func order(clientOrderID: ClientOrderID, account: AccountID) async throws(BrokerageError) -> Order
    func orders(account: AccountID, _ query: OrderQuery) async throws(BrokerageError) -> [Order]
    /// Sells all or part of a position at market: `qty` shares, or `percentage` of it; everything when both are nil.
    func closePosition(
        _ symbol: String, account: AccountID, qty: Quantity?, percentage: FixedDecimal?, liquidation: Bool
    ) async throws(BrokerageError) -> Order
    /// Exercises the account's long position in an option contract now.
    func exercise(_ symbol: String, account: AccountID) async throws(BrokerageError)
    /// Asks that the account's long position in an option not be exercised at expiry.
    func doNotExercise(_ symbol: String, account: AccountID) async throws(BrokerageError)
    /// Symbols the account holds, long or short.
    func heldSymbols(_ account: AccountID) async throws(BrokerageError) -> [String]
    /// Order updates of one account (or every account), as their steps become durable.
    func orderUpdates(account: AccountID?) -> AsyncStream<OrderUpdate>
}

extension OrderService {
    public func closePosition(_ symbol: String, account: AccountID, qty: Quantity?, percentage: FixedDecimal?)
        async throws(BrokerageError) -> Order
    {
        try await closePosition(symbol, account: account, qty: qty, percentage: percentage, liquidation: false)
    }
}

/// Queue purchase: an account's rules that place an order when their condition holds.
public protocol QueueService: Sendable {
    /// Queues a rule; it is evaluated at once and may fire in this call (the returned record says so).
    func addRule(
        account: AccountID, symbol: String, condition: RuleCondition, action: RuleAction, lifetime: RuleLifetime?
    ) async throws(BrokerageError) -> QueueRuleRecord
    func cancelRule(_ id: QueueRuleID, account: AccountID) async throws(BrokerageError) -> QueueRuleRecord
    /// The account's queued rules with current prices.
    func queue(account: AccountID) async throws(BrokerageError) -> [QueueEntry]
    /// The account's rules that left the queue, newest first.
    func queueHistory(account: AccountID, limit: Int) async throws(BrokerageError) -> [QueueEntry]
    /// A rule with its current price and trigger level.
    func entry(_ record: QueueRuleRecord) async -> QueueEntry
}

/// Price alerts: a user's notifications when a price condition holds.
public protocol AlertService: Sendable {
    func addAlert(
        user: UserID, symbol: String, condition: AlertCondition, frequency: AlertFrequency,
        timeframe: AlertTimeframe, expiresAt: Timestamp?, message: String?
    ) async throws(BrokerageError) -> AlertRecord
    func cancelAlert(_ id: AlertID, user: UserID) async throws(BrokerageError) -> AlertRecord
    /// A user's active alerts, newest first.
    func alerts(user: UserID) async throws(BrokerageError) -> [AlertRecord]
    /// A user's alert, active or not.
    func alert(_ id: AlertID, user: UserID) async throws(BrokerageError) -> AlertRecord
    /// A user's triggered, canceled and expired alerts, newest first.
    func alertHistory(user: UserID, limit: Int) async throws(BrokerageError) -> [AlertRecord]
    /// When a user's alerts triggered (one alert's, with `alert`), newest first.
    func alertTriggers(user: UserID, alert: AlertID?, limit: Int) async throws(BrokerageError)
        -> [AlertTriggerRecord]
    /// The level an alert's operand stands for now.
    func alertLevel(_ record: AlertRecord) async -> Price?
}

/// Backtests as jobs: starting one (with an account's queued rules when asked) and the jobs themselves.
public protocol BacktestService: Sendable {
    var backtests: BacktestJobs { get }
    func startBacktest(_ request: BacktestJobs.Request, user: UserID, rulesOf account: AccountID?)
        async throws(BrokerageError) -> BacktestJobs.Job
}

extension Brokerage: AccountService, OrderService, QueueService, AlertService, BacktestService {
    /// The market every surface reads.
    public var marketView: MarketView { MarketView(market) }
}
