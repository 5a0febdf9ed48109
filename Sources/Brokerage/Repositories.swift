import BrokerageModel
import Storage

/// The database by aggregate, as the brokerage holds it: the front reads listings through these, and each service
/// and shard is given only the repositories it needs (BrokerageModel/Repositories.swift declares them; the Storage
/// module implements each in SQL on SQLite and PostgreSQL — `SQLUsers`, `SQLWatchlists`, `SQLNotifications`,
/// `SQLRules`, `SQLGames`, `SQLClasses`, `SQLEquityHistory`, `SQLAccounts`, `SQLClusterLeases`; the database itself writes the
/// journal, live events included). Everything past this initializer sees protocols only.
struct Repositories: Sendable {
    let users: any UserRepository
    let accounts: any AccountRepository
    let watchlists: any WatchlistRepository
    let notifications: any NotificationRepository
    let rules: any RuleRepository
    let games: any GameRepository
    let equityHistory: any EquityHistoryRepository
    let cluster: any ClusterRepository
    let liveEvents: any LiveEventRepository
    let transfers: any TransferRepository
    let classes: any ClassRepository

    init(_ storage: Storage) {
        users = SQLUsers(storage)
        accounts = SQLAccounts(storage)
        watchlists = SQLWatchlists(storage)
        notifications = SQLNotifications(storage)
        rules = SQLRules(storage)
        games = SQLGames(storage)
        equityHistory = SQLEquityHistory(storage)
        cluster = SQLClusterLeases(storage)
        liveEvents = storage
        transfers = SQLTransfers(storage)
        classes = SQLClasses(storage)
    }

    /// What a shard reads and writes.
    var shard: ShardStores {
        ShardStores(
            accounts: accounts, rules: rules, equityHistory: equityHistory, games: games, transfers: transfers,
            classes: classes)
    }
}

/// What a shard reads and writes: its accounts and their journal, their rules and alerts, their equity history,
/// the game accounts it opens, the transfers it credits, and who shares a class team's account.
struct ShardStores: Sendable {
    let accounts: any AccountRepository
    let rules: any RuleRepository
    let equityHistory: any EquityHistoryRepository
    let games: any GameRepository
    let transfers: any TransferRepository
    let classes: any ClassRepository
}
