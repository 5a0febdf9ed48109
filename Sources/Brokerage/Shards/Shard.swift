import BrokerageModel
import MarketData
import TradingCore

/// One virtual shard's trading state: its accounts (balances, positions, open orders, margin state, game rules),
/// their queued rules, the price alerts of the users mapped to it, and its journal stream — one `TradingEngine`
/// with its own random state.
///
/// A shard is the single writer of its accounts (an actor): its engine steps never interleave, so two requests can
/// never overdraw an account. Every step's changes are written to storage in one transaction *before* the caller is
/// answered; a failed write reloads the shard from storage, so memory never runs ahead of disk. Shards share
/// nothing mutable: a step touches one shard, and results do not depend on how shards are spread over threads.
/// Shards run on the executors of their `ShardOwners` (several virtual shards to one owner, one owner per core by
/// default); the `Brokerage` front reaches them only through its `ShardRouter`.
///
/// The actor is thin: identity, the shared services (`ShardContext`), the engine, and desks — value types that each
/// keep one concern's state and decide its changes (`RuleDesk`, `AlertDesk`, `SessionMarks`, `DayProfitBook`,
/// `MarginPolicy`, `ShardCommits`). What a step decides beside the engine's events collects in one `PendingCommit`,
/// which `stage` journals with them. A new concern is a new desk and an extension that calls it.
actor Shard {
    nonisolated let id: ShardID
    /// The owner whose executor this shard shares with the owner's other shards (`ShardOwners`).
    private nonisolated let owner: ShardOwners.Owner
    nonisolated var unownedExecutor: UnownedSerialExecutor { owner.unownedExecutor }
    nonisolated let context: ShardContext
    var engine: TradingEngine
    /// The shard's accounts (who owns each).
    var records: [AccountID: AccountRecord] = [:]
    /// The members of its class teams' accounts (a team shares one account, owned by its first member): what happens
    /// to such an account is told to each of them (`recipients(of:)`).
    var teams: [AccountID: [UserID]] = [:]
    /// Its lease and the steps queued for storage.
    var commits: ShardCommits
    /// What the current step writes beside the engine's events (the desks add to it; `stage` journals it).
    var pending = PendingCommit()
    /// The queued rules of its accounts (queue purchase, Shard+Queue.swift).
    var rules = RuleDesk()
    /// The price alerts of the users mapped to it (Shard+Alerts.swift).
    var alerts = AlertDesk()
    /// What the engine has been told of each instrument's day: reference, auctions, halts.
    var sessionMarks = SessionMarks()
    /// Margin interest and margin calls (`closeMarginDay`, `checkMarginThreshold`).
    var marginPolicy = MarginPolicy()
    /// Each account's profit since the last close, kept current as ledger entries are staged.
    var dayProfits = DayProfitBook()
    /// The transfers being credited now (Shard+Transfers.swift).
    var transfers = TransferDesk()
    /// Whether memory may be trusted (stale after a failed write whose reload failed too, until one succeeds).
    nonisolated let health = ShardHealth()

    init(id: ShardID, owner: ShardOwners.Owner, context: ShardContext, lease: Lease = .local) {
        self.id = id
        self.owner = owner
        self.context = context
        commits = ShardCommits(lease: lease)
        engine = TradingEngine(configuration: context.configuration(for: id))
    }

    typealias Lease = ShardCommits.Lease

    // The shared services, by name (`ShardContext` says what each is).
    var storage: ShardStores { context.storage }
    nonisolated var feed: any MarketDataFeed { context.feed }
    nonisolated var directory: SymbolDirectory { context.directory }
    nonisolated var clock: MarketClock { context.clock }
    var market: SharedMarket { context.market }
    var languages: LanguagePreferences { context.languages }
    var streams: UpdateStreams { context.streams }
    nonisolated var metrics: BrokerageMetrics { context.metrics }
    nonisolated var fences: ShardFences { context.fences }

    /// Rebuilds the shard from storage (at start, and after a failed write): its accounts and open orders, their
    /// queued rules, its users' active alerts. `alertUsers` says which users' alerts it keeps.
    func reload(alertsOf alertUsers: @escaping @Sendable (UserID) -> Bool) async throws {
        var fresh = TradingEngine(configuration: engine.configuration)
        var records: [AccountID: AccountRecord] = [:]
        for record in try await storage.accounts.accounts(shard: id) {
            let snapshot = try await storage.accounts.restorable(record)
            for symbol in snapshot.symbols {
                if let instrument = await market.resolvedInstrument(symbol) { fresh.register(instrument) }
            }
            do { try fresh.restore(snapshot) } catch {
                throw StorageError.corrupt("account \(record.id): \(error.message)")
            }
            records[record.id] = record
        }
        if let random = try await storage.accounts.randomState(shard: id) { fresh.randomState = random }
        let teams = try await storage.classes.teamMembers(inShard: id)
        engine = fresh
        self.records = records
        self.teams = teams
        sessionMarks = SessionMarks()
        pending = PendingCommit()
        commits.forget()
        dayProfits = DayProfitBook()
        try await reloadRules()
        try await reloadAlerts(of: alertUsers)
        health.markHealthy()
    }

    /// Reloads after a failed write, with the same alert users.
    func reload() async throws { try await reload(alertsOf: alerts.keepsAlerts) }
}
