import BrokerageModel
import MarketData
import Storage
import TradingCore

/// The one way in for every surface (Alpaca, native, IB, web socket, CLI): a front that routes each call by
/// account to the shard that holds it, and does the work that spans shards — listings, the market pump, margin
/// days, corporate actions, games — by scatter/gather through its `ShardRouter`.
///
/// Trading state is partitioned: a database has a fixed number of virtual shards (64 by default, set when it is
/// created), every account lives in one, and each shard (`Shard`) is an actor with its own engine, rules, alerts and
/// journal stream. Shards run on `ShardOwners` (one owner actor per core by default), so orders on accounts of
/// different shards are placed in parallel, and the same requests give the same ledger however many owners run.
/// What is per instrument and shared by every shard lives in `SharedMarket`. The aggregates that need no engine
/// step — users and keys, watchlists, notifications, webhooks, push, account configurations — are the small
/// services below, which read and write their own records. Nothing above the brokerage touches storage.
public final class Brokerage: Sendable {
    /// The database the brokerage opened and closes.
    let database: any DatabaseConnection
    /// The same database by aggregate: what the front reads for listings and hands to its services.
    let repositories: Repositories
    let router: ShardRouter
    /// What every shard shares: the market, users' languages, the update streams, the metrics.
    let context: ShardContext
    var market: SharedMarket { context.market }
    public var feed: any MarketDataFeed { market.feed }
    public var directory: SymbolDirectory { market.directory }
    public var clock: MarketClock { market.clock }
    /// Users, web sessions, API keys.
    public let users: UserDirectory
    public let watchlists: Watchlists
    public let notifications: Notifications
    public let webhooks: Webhooks
    public let push: PushSubscriptions
    /// Notifications on their way to webhooks and devices (one outbox for every channel).
    public let deliveries: DeliveryOutbox
    public let configurations: AccountConfigurations
    /// Backtests the native API runs as jobs.
    public let backtests: BacktestJobs
    /// Users' chosen languages (notifications are written in them).
    public var languages: LanguagePreferences { context.languages }
    /// Subscribers to order updates and notifications (published as each shard's steps become durable).
    var streams: UpdateStreams { context.streams }
    var metrics: BrokerageMetrics { context.metrics }
    /// Games and their players (Games/GameRegistry.swift); their accounts' rules live in the accounts' shards.
    public let games: GameRegistry
    /// Listed options of the US underlyings, priced off the feed (MarketData/Options).
    public var options: OptionMarket { market.options }
    /// One market pump at a time (see `pumpMarket`).
    let pumpGate = AsyncLock()

    init(database: any DatabaseConnection, repositories: Repositories, router: ShardRouter, context: ShardContext) {
        self.database = database
        self.repositories = repositories
        self.router = router
        self.context = context
        users = UserDirectory(storage: repositories.users, clock: context.clock, languages: context.languages)
        watchlists = Watchlists(storage: repositories.watchlists)
        notifications = Notifications(
            storage: repositories.notifications, clock: context.clock, streams: context.streams)
        webhooks = Webhooks(storage: repositories.notifications, clock: context.clock)
        push = PushSubscriptions(storage: repositories.notifications, clock: context.clock)
        deliveries = DeliveryOutbox(storage: repositories.notifications, clock: context.clock)
        configurations = AccountConfigurations(storage: repositories.accounts)
        backtests = BacktestJobs(feed: context.feed, directory: context.directory, clock: context.clock)
        games = GameRegistry(
            router: router, market: context.market, feed: context.feed, directory: context.directory,
            clock: context.clock, languages: context.languages,
            storage: repositories.games, equityHistory: repositories.equityHistory, accounts: repositories.accounts)
    }

    /// Opens the database (creating or migrating it) and starts a brokerage on it. `shards` fixes the number of
    /// virtual shards of a database being created (default 64; an existing database keeps its own, and asking
    /// for another number is an error); `shardOwners` is how many owner actors run them (default: one per core).
    /// `journal` replaces the database as the shards' journal writer — only to measure the engine alone
    /// (benchmarks/ShardBench): nothing is durable then. `clusterNode` is this process's node name in a cluster
    /// (nil: not clustered); `leaseClock` is the clock of a cluster's leases (tests share one among their nodes and
    /// move it; see `LeaseClock`).
    public static func open(
        _ database: DatabaseLocation, checkpoints: CheckpointPolicy = CheckpointPolicy(),
        feed: any MarketDataFeed, directory: SymbolDirectory, clock: MarketClock,
        seed: UInt64 = 1, shards: Int? = nil, shardOwners: Int? = nil, journal: (any JournalWriter)? = nil,
        clusterNode: String? = nil, exclusive: Bool = false, leaseClock: LeaseClock = LeaseClock()
    ) async throws -> Brokerage {
        let storage = try await Storage.open(
            database, checkpoints: checkpoints, exclusive: exclusive, leaseClock: leaseClock,
            clusterNode: clusterNode)
        do {
            return try await start(
                storage: storage, journal: journal ?? storage, feed: feed, directory: directory, clock: clock,
                seed: seed, shards: shards, shardOwners: shardOwners, clustered: clusterNode != nil)
        } catch {
            await storage.shutdown()
            throw error
        }
    }

    /// Loads every shard from storage — or, `clustered`, none: a `ClusterNode` loads each shard it takes a lease on.
    static func start(
        storage: Storage, journal: any JournalWriter, feed: any MarketDataFeed, directory: SymbolDirectory,
        clock: MarketClock, seed: UInt64 = 1, shards requested: Int? = nil, shardOwners: Int? = nil,
        clustered: Bool = false
    ) async throws -> Brokerage {
        let repositories = Repositories(storage)
        let count = try await repositories.accounts.ensureShardMap(requested: requested)
        let context = ShardContext(
            storage: repositories.shard, journal: journal, feed: feed, directory: directory, clock: clock,
            market: SharedMarket(feed: feed, directory: directory, clock: clock), languages: LanguagePreferences(),
            streams: UpdateStreams(), metrics: BrokerageMetrics(), seed: seed)
        let owners = ShardOwners(count: shardOwners ?? ShardOwners.defaultCount)
        let router = ShardRouter(
            count: count, owners: owners, context: context, accounts: try await repositories.accounts.accountShards(),
            storage: repositories.accounts, clustered: clustered)
        let brokerage = Brokerage(database: storage, repositories: repositories, router: router, context: context)
        try await brokerage.reload()
        return brokerage
    }

    /// Reloads every shard this process serves, the games and the users' languages from storage.
    func reload() async throws {
        let count = router.count
        let served = router.servedShards()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for shard in router.shards where served[shard.id] != nil {
                let index = shard.id.index
                group.addTask {
                    try await shard.reload(alertsOf: { ShardRouter.shardIndex(ofUser: $0, count: count) == index })
                }
            }
            try await group.waitForAll()
        }
        try await games.reload()
        languages.replaceAll(try await repositories.users.userLanguages().compactMapValues { Language(rawValue: $0) })
    }

    /// Whether this process does the work done once per cluster, not per shard — delivering webhooks and Web Push,
    /// ending games on time: the node serving shard 0 does (a single process always). When shard 0 moves, so
    /// does this work, with no moment where two nodes both do it (the old owner stops before the new one starts;
    /// a node paused past its lease may repeat one delivery when it wakes — deliveries are at least once).
    public var leadsCluster: Bool { (try? router.served(ShardID(0))) != nil }

    /// The cluster as the database records it: nodes, leases, epochs (`papertrade admin cluster`).
    public func clusterView() async throws(BrokerageError) -> ClusterView {
        try await stored { try await repositories.cluster.clusterView() }
    }

    /// Waits until every step staged so far is durable (or failed): graceful shutdown calls it before the
    /// database is closed.
    public func flush() async {
        _ = await router.scatter { await $0.flush() }
    }

    /// Closes the database once everything queued for it is written. Call once, after the last request.
    public func shutdown() async {
        await flush()
        await database.shutdown()
    }

    // MARK: Routing

    /// The shard that holds `account`, or "account not found".
    func shard(_ account: AccountID) async throws(BrokerageError) -> Shard {
        try await router.route(account)
    }

    /// The shards' layout: how many virtual shards, how many owners run them, and each shard's accounts
    /// (`papertrade admin shards`).
    public func shardLayout() async -> ShardLayout {
        let accounts = await router.scatter { shard in await (shard.id, shard.accountCount(), shard.openOrderCount()) }
        return ShardLayout(
            owners: router.owners.count,
            shards: accounts.map { id, accounts, orders in
                ShardLayout.Shard(
                    id: id.index, owner: router.owners.owner(of: id), accounts: accounts, openOrders: orders)
            })
    }

    // MARK: Order update streams

    /// Order updates as they are committed; for one account, or all accounts when nil.
    public func orderUpdates(account: AccountID?) -> AsyncStream<OrderUpdate> {
        streams.orderUpdates(account: account)
    }
}

/// How the brokerage's shards are laid out (`Brokerage.shardLayout`).
public struct ShardLayout: Sendable {
    public struct Shard: Sendable {
        public var id: Int
        /// The owner (serial executor) that runs it.
        public var owner: Int
        public var accounts: Int
        public var openOrders: Int
    }

    public var owners: Int
    public var shards: [Shard]
}
