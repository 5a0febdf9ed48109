import BrokerageModel
import PostgresNIO
import SQLKit
import TradingCore

/// Membership and shard leases for a cluster of nodes on one PostgreSQL (`ClusterRepository`). Every time here is
/// PostgreSQL's clock, read in the statement that uses it: nodes whose own clocks disagree still agree on who is
/// live and which lease has expired. Lease calls run on the writer connection, in line with journal commits, so a
/// node whose writes are stuck stops renewing too.
///
/// Each lease call is one statement that commits by itself (`Storage.autocommit`): a node stopped between a lease
/// statement and its COMMIT (SIGSTOP, a frozen VM) would hold the lease rows' locks, and every other node's
/// takeover would wait on it forever — their writer connections too, so the whole cluster stopped. The one lock a
/// stopped node can still hold is a commit's fence (`FOR SHARE` on its leases: `journal_fence`, in
/// `PostgresJournalStatement`): `acquireShard` does not wait for it, and ends the expired owner's open transactions
/// instead.
public struct SQLClusterLeases: ClusterRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }

    /// The lease clock in nanoseconds since 1970 (microsecond resolution): the database's clock, plus the offset
    /// only tests move (`LeaseClock`).
    var clusterNow: String {
        let offset = database.leaseClock.offsetNanoseconds
        return offset == 0 ? Storage.databaseNow : "(\(Storage.databaseNow) + \(offset))"
    }
}

extension SQLClusterLeases {
    public func joinCluster(node name: String, url: String, shards: Int) async throws {
        try database.requirePostgres()
        let now = clusterNow
        try await database.autocommit { db in
            try await db.raw(
                """
                INSERT INTO shard_leases (shard, owner, epoch, expires_at, acquired_at)
                SELECT s, NULL, 0, 0, 0 FROM generate_series(0, \(bind: shards - 1)) AS s
                ON CONFLICT (shard) DO NOTHING
                """
            ).run()
            try await db.raw(
                """
                INSERT INTO cluster_nodes (name, url, state, started_at, heartbeat_at)
                VALUES (\(bind: name), \(bind: url), 'up', \(unsafeRaw: now), \(unsafeRaw: now))
                ON CONFLICT (name) DO UPDATE SET url = EXCLUDED.url, state = 'up', started_at = EXCLUDED.started_at,
                    heartbeat_at = EXCLUDED.heartbeat_at
                """
            ).run()
        }
        database.writeLiveEvents(as: name)
    }

    public func heartbeat(node name: String) async throws -> ClusterView {
        try database.requirePostgres()
        return try await database.autocommit { db in
            try await db.raw(
                "UPDATE cluster_nodes SET heartbeat_at = \(unsafeRaw: clusterNow), state = 'up' WHERE name = \(bind: name)"
            ).run()
            return try await Self.clusterView(db, now: clusterNow)
        }
    }

    public func clusterView() async throws -> ClusterView {
        try database.requirePostgres()
        return try await database.read { db in try await Self.clusterView(db, now: clusterNow) }
    }

    static func clusterView(_ db: any SQLDatabase, now: String) async throws -> ClusterView {
        let now = try await db.raw("SELECT \(unsafeRaw: now) AS now").first()?.decode(
            column: "now", as: Int64.self)
        let nodes = try await db.raw(
            "SELECT name, url, state, started_at, heartbeat_at FROM cluster_nodes ORDER BY name"
        )
        .all().map { row in
            ClusterNodeRecord(
                name: try row.decode(column: "name", as: String.self),
                url: try row.decode(column: "url", as: String.self),
                state: ClusterNodeRecord.State(rawValue: try row.decode(column: "state", as: String.self)) ?? .left,
                startedAt: Timestamp(nanoseconds: try row.decode(column: "started_at", as: Int64.self)),
                heartbeatAt: Timestamp(nanoseconds: try row.decode(column: "heartbeat_at", as: Int64.self)))
        }
        let leases = try await db.raw(
            "SELECT shard, owner, epoch, expires_at, acquired_at FROM shard_leases ORDER BY shard"
        ).all().map(lease)
        return ClusterView(now: Timestamp(nanoseconds: now ?? 0), nodes: nodes, leases: leases)
    }

    static func lease(_ row: any SQLRow) throws -> ShardLease {
        ShardLease(
            shard: ShardID(try row.decode(column: "shard", as: Int.self)),
            owner: try row.decode(column: "owner", as: String?.self),
            epoch: try row.decode(column: "epoch", as: Int64.self),
            expiresAt: Timestamp(nanoseconds: try row.decode(column: "expires_at", as: Int64.self)),
            acquiredAt: Timestamp(nanoseconds: try row.decode(column: "acquired_at", as: Int64.self)))
    }

    public func acquireShard(_ shard: ShardID, node: String, ttl: Int64) async throws -> Int64? {
        try database.requirePostgres()
        return try await database.autocommit { db in
            do {
                return try await take(shard, node: node, ttl: ttl, db)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.lockNotAvailable {
                // The lease row is locked by a commit of the expired owner still open: it is stopped or too slow to
                // have renewed. End its open transactions (none of them can be acknowledged: its lease is gone)
                // and try once more.
                try await endTransactions(ofExpiredOwnerOf: shard, node: node, db)
                do {
                    return try await take(shard, node: node, ttl: ttl, db)
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.lockNotAvailable {
                    return nil // the next pass tries again
                }
            }
        }
    }

    /// PostgreSQL's `lock_not_available`: `NOWAIT` found the row locked.
    static let lockNotAvailable = "55P03"

    /// Takes the lease if it is free, expired or already `node`'s — without waiting for a lock on its row. The
    /// row lock waits for nothing: the old owner's commits in flight hold it `FOR SHARE` (`journal_fence`, in
    /// `PostgresJournalStatement`), and once this commits none of theirs can.
    func take(_ shard: ShardID, node: String, ttl: Int64, _ db: any SQLDatabase) async throws -> Int64? {
        let now = clusterNow
        return try await db.raw(
            """
            WITH lease AS (
                SELECT shard FROM shard_leases
                WHERE shard = \(bind: shard.index)
                    AND (owner IS NULL OR owner = \(bind: node) OR expires_at < \(unsafeRaw: now))
                FOR UPDATE NOWAIT
            )
            UPDATE shard_leases SET owner = \(bind: node), epoch = shard_leases.epoch + 1,
                expires_at = \(unsafeRaw: now) + \(bind: ttl), acquired_at = \(unsafeRaw: now)
            FROM lease WHERE shard_leases.shard = lease.shard
            RETURNING shard_leases.epoch
            """
        ).first()?.decode(column: "epoch", as: Int64.self)
    }

    /// Ends the open transactions of the shard's owner when its lease has expired and it is another node: they
    /// hold locks its takeover would wait for. It waits up to 5 s for each to end.
    func endTransactions(ofExpiredOwnerOf shard: ShardID, node: String, _ db: any SQLDatabase) async throws {
        let prefix = Storage.applicationName(clusterNode: "")
        try await db.raw(
            """
            SELECT pg_terminate_backend(activity.pid, 5000) FROM pg_stat_activity AS activity
            JOIN shard_leases AS lease ON activity.application_name = \(bind: prefix) || lease.owner
            WHERE lease.shard = \(bind: shard.index) AND lease.owner <> \(bind: node)
                AND lease.expires_at < \(unsafeRaw: clusterNow)
                AND activity.datname = current_database() AND activity.state LIKE 'idle in transaction%'
            """
        ).run()
    }

    public func renewShards(_ held: [ShardID: Int64], node: String, ttl: Int64) async throws -> Set<ShardID> {
        try database.requirePostgres()
        guard !held.isEmpty else { return [] }
        let list = held.keys.map { String($0.index) }.joined(separator: ", ")
        let rows = try await database.autocommit { db in
            try await db.raw(
                """
                UPDATE shard_leases SET expires_at = \(unsafeRaw: clusterNow) + \(bind: ttl)
                WHERE owner = \(bind: node) AND shard IN (\(unsafeRaw: list)) RETURNING shard, epoch
                """
            ).all()
        }
        var kept: Set<ShardID> = []
        for row in rows {
            let shard = ShardID(try row.decode(column: "shard", as: Int.self))
            if held[shard] == (try row.decode(column: "epoch", as: Int64.self)) { kept.insert(shard) }
        }
        return kept
    }

    public func releaseShard(_ shard: ShardID, node: String, epoch: Int64) async throws {
        try database.requirePostgres()
        try await database.autocommit { db in
            try await db.raw(
                """
                UPDATE shard_leases SET owner = NULL, expires_at = 0
                WHERE shard = \(bind: shard.index) AND owner = \(bind: node) AND epoch = \(bind: epoch)
                """
            ).run()
        }
    }

    public func leaveCluster(node name: String) async throws {
        try database.requirePostgres()
        try await database.autocommit { db in
            try await db.raw("UPDATE cluster_nodes SET state = 'left' WHERE name = \(bind: name)").run()
        }
    }
}
