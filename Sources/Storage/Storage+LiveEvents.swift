import BrokerageModel
import Foundation
import SQLKit
import TradingCore

/// The cluster's live events (`LiveEventRepository`): once a node joins a cluster, each journal commit also writes
/// its order updates and notifications to `live_events`, in the same transaction. Other nodes read the rows by id; a
/// commit refused by the fence writes none, so no node ever streams an event that did not happen.
///
/// No NOTIFY: PostgreSQL serializes the commits of transactions that notify (one queue, locked at commit), and on
/// the cluster benchmark signalling every commit cost 20–30% of the orders/s (1 node 1,751 → 1,421, 3 nodes 1,014 →
/// 705); the readers poll instead (`LiveEventRelay`).
extension Storage: LiveEventRepository {
    /// The database's clock in nanoseconds since 1970 (microsecond resolution): live events' age, and the lease
    /// clock's base (`SQLClusterLeases`).
    static let databaseNow = "(CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT) * 1000)"

    /// Refuses what only a cluster does (leases, live events) on SQLite.
    func requirePostgres() throws {
        guard isPostgres else {
            throw StorageError.unavailable(
                "a cluster of nodes needs PostgreSQL (--database-url); SQLite serves one process")
        }
    }

    /// From now on commits write live events in the name of `node` (on joining a cluster).
    func writeLiveEvents(as node: String) {
        liveEventNode.withLock { $0 = node }
    }

    public func liveEventMarks() async throws -> [ShardID: Int64] {
        try requirePostgres()
        var marks: [ShardID: Int64] = [:]
        for row in try await read({ db in
            // One backward probe of (shard, id) per shard: a GROUP BY read the whole table (10 minutes of events).
            try await db.raw(
                """
                SELECT l.shard, m.id FROM shard_leases l
                CROSS JOIN LATERAL (
                    SELECT id FROM live_events e WHERE e.shard = l.shard ORDER BY e.id DESC LIMIT 1
                ) AS m
                """
            ).all()
        }) {
            marks[ShardID(try row.decode(column: "shard", as: Int.self))] = try row.decode(column: "id", as: Int64.self)
        }
        return marks
    }

    public func liveEvents(after marks: [ShardID: Int64], node: String, payloads: Bool, limit: Int) async throws
        -> [LiveEvent]
    {
        try requirePostgres()
        // Each shard from its own mark (ids follow commit order within a shard only): one index range of (shard, id)
        // per shard, at most `limit` rows each, merged by id. (A join of the marks with the whole table, ordered by
        // id, walked the id index from the oldest event kept: 55 ms a read under load, 60% of PostgreSQL's time on
        // the load benchmark.) A shard without a mark starts at 0; shards listed are every shard with a lease row.
        let marked = marks.map { "(\($0.key.index), \($0.value))" }.joined(separator: ", ")
        let after =
            marks.isEmpty
            ? "SELECT shard, CAST(0 AS BIGINT) AS after FROM shard_leases"
            : """
            SELECT l.shard, COALESCE(m.after, 0) AS after FROM shard_leases l
            LEFT JOIN (VALUES \(marked)) AS m(shard, after) ON m.shard = l.shard
            """
        let rows = try await read { db in
            try await db.raw(
                """
                SELECT e.id, e.shard, e.node, e.kind,
                    CASE WHEN \(bind: payloads) AND e.node <> \(bind: node) THEN e.body END AS body
                FROM (\(unsafeRaw: after)) AS a
                CROSS JOIN LATERAL (
                    SELECT id, shard, node, kind, body FROM live_events
                    WHERE shard = a.shard AND id > a.after ORDER BY id LIMIT \(bind: limit)
                ) AS e
                ORDER BY e.id LIMIT \(bind: limit)
                """
            ).all()
        }
        return try rows.map { row in
            let body = try row.decode(column: "body", as: String?.self)
            let payload: LiveEvent.Payload?
            switch (try row.decode(column: "kind", as: String.self), body) {
            case ("order", let body?): payload = .order(try Coding.decode(OrderUpdate.self, body))
            case ("notification", let body?):
                payload = .notification(try Coding.decode(LiveNotification.self, body).record)
            default: payload = nil
            }
            return LiveEvent(
                id: try row.decode(column: "id", as: Int64.self),
                shard: ShardID(try row.decode(column: "shard", as: Int.self)),
                node: try row.decode(column: "node", as: String.self), payload: payload)
        }
    }

    public func pruneLiveEvents(olderThan age: Int64) async throws {
        try await pruneLiveEvents(olderThan: age, batch: Self.liveEventPruneBatch)
    }

    func pruneLiveEvents(olderThan age: Int64, batch: Int64) async throws {
        try requirePostgres()
        // By id, a batch at a time, on a connection of its own: one DELETE by age read the whole table (10 minutes
        // of events) under the journal writer's lock — 440 ms during which no order committed, every minute, at
        // 10k orders/s. Ids grow with time, so every event below the first one young enough to keep is old.
        let bounds = try await outsideWriter { db in
            try await db.raw(
                """
                SELECT (SELECT min(id) FROM live_events) AS first,
                    (SELECT min(id) FROM live_events WHERE created_at >= \(unsafeRaw: Self.databaseNow) - \(bind: age))
                        AS kept,
                    (SELECT max(id) FROM live_events) AS last
                """
            ).first()
        }
        guard let bounds, let oldest: Int64 = try bounds.decode(column: "first", as: Int64?.self),
            let newest: Int64 = try bounds.decode(column: "last", as: Int64?.self)
        else { return }
        let end: Int64 = try bounds.decode(column: "kept", as: Int64?.self) ?? (newest + 1)
        var low = oldest
        while low < end {
            let (from, to) = (low, Swift.min(low + batch, end))
            try await outsideWriter { db in
                try await db.raw("DELETE FROM live_events WHERE id >= \(bind: from) AND id < \(bind: to)").run()
            }
            low = to
        }
    }

    /// Live events one pruning statement deletes at most.
    static let liveEventPruneBatch: Int64 = 10_000
}

/// A notification as a live event's body (`NotificationRecord` is not Codable: its user id is deliberately not).
struct LiveNotification: Codable {
    var id: String
    var user: String
    var account: AccountID?
    var kind: String
    var title: String
    var body: String
    var createdAt: Timestamp

    init(_ n: NotificationRecord) {
        (id, user, account, kind, title, body, createdAt) = (
            n.id, n.userID.text, n.accountID, n.kind, n.title, n.body, n.createdAt
        )
    }

    var record: NotificationRecord {
        NotificationRecord(
            id: id, userID: UserID(user), accountID: account, kind: kind, title: title, body: body,
            createdAt: createdAt)
    }
}
