import BrokerageModel

/// The SQL implementation of every repository (BrokerageModel/Repositories.swift), on SQLite and PostgreSQL.
extension Storage: JournalWriter, UserRepository, AccountRepository, WatchlistRepository, NotificationRepository,
    RuleRepository, GameRepository, EquityHistoryRepository
{}
