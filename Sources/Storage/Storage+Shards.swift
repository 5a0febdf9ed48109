import BrokerageModel
import SQLKit
import TradingCore

/// The shard map: how many virtual shards the database has (fixed when it is created), and which shard each
/// account lives in (the `shard` column of `accounts`, chosen when the account is opened).
extension Storage {
    /// The shards a database gets unless its creator asks for another number.
    public static let defaultShardCount = 64
    /// The most shards a database may have (each is an engine, a journal stream and, on a cluster, a lease).
    public static let maximumShardCount = 4096

    /// The database's shard count. The first open after creation (or after the upgrade that introduced shards)
    /// fixes it at `requested` (default 64) and spreads existing accounts over the shards round-robin by age; later
    /// opens return the stored count. Throws when `requested` is given and differs from a stored count: shards
    /// are decided once, because every account's shard is stored with it.
    public func ensureShardMap(requested: Int? = nil) async throws -> Int {
        if let requested, !(1...Self.maximumShardCount).contains(requested) {
            throw StorageError.corrupt(
                "a shard count must be between 1 and \(Self.maximumShardCount), not \(requested)")
        }
        return try await transaction { db in
            if let row = try await db.raw("SELECT shard_count FROM shard_map WHERE id = 1").first() {
                let stored = try row.decode(column: "shard_count", as: Int.self)
                if let requested, requested != stored {
                    throw StorageError.duplicate(
                        "a shard map of \(stored) shards (the count is fixed when the database is created; asked for \(requested))"
                    )
                }
                return stored
            }
            let count = requested ?? Self.defaultShardCount
            try await db.raw("INSERT INTO shard_map (id, shard_count) VALUES (1, \(bind: count))").run()
            // Accounts made before shards existed: round-robin by age, so they spread evenly.
            try await db.raw(
                """
                UPDATE accounts SET shard = (
                    SELECT (ranked.n - 1) % \(bind: count) FROM (
                        SELECT id, ROW_NUMBER() OVER (ORDER BY created_at, id) AS n FROM accounts
                    ) ranked WHERE ranked.id = accounts.id
                )
                """
            ).run()
            return count
        }
    }

    /// Every account's shard (what a router loads at start).
    public func accountShards() async throws -> [AccountID: ShardID] {
        try await read { db in
            var shards: [AccountID: ShardID] = [:]
            for row in try await db.raw("SELECT id, shard FROM accounts").all() {
                guard let id = AccountID(try row.decode(column: "id", as: String.self)) else {
                    throw StorageError.corrupt("account id")
                }
                shards[id] = ShardID(try row.decode(column: "shard", as: Int.self))
            }
            return shards
        }
    }
}
