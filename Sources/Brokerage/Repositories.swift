import BrokerageModel
import Storage

/// The database by aggregate, as the brokerage holds it: the front reads listings through these, and each service
/// and shard is given only the repositories it needs (`Sources/Storage/Repositories.swift` declares them; `Storage`
/// is their SQL implementation on SQLite and PostgreSQL).
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

    init(_ storage: Storage) {
        users = storage
        accounts = storage
        watchlists = storage
        notifications = storage
        rules = storage
        games = storage
        equityHistory = storage
        cluster = storage
        liveEvents = storage
    }
}

/// What a shard reads and writes: its accounts and their journal, their rules and alerts, their equity history,
/// and the game accounts it opens.
typealias ShardRepository = AccountRepository & RuleRepository & EquityHistoryRepository & GameRepository
