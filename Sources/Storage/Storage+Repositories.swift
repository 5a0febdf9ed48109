import BrokerageModel

/// The database writes the journal (it is the group-commit writer every shard's steps go through) and is closed by
/// its owner; each aggregate's records are read and written through its own repository type over it
/// (`Repositories/SQL<Aggregate>.swift`).
extension Storage: JournalWriter, DatabaseConnection {}
