import BrokerageModel

/// The database itself keeps the accounts and their journal (it is the group-commit writer every shard's steps go
/// through); each other aggregate has its own repository type over it (`Repositories/SQL<Aggregate>.swift`).
extension Storage: JournalWriter, AccountRepository {}
