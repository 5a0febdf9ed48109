import Synchronization
import TradingCore

/// The clock shard leases, heartbeats and live events are stamped with: the database's own (`clock_timestamp()`,
/// so nodes whose clocks disagree still agree on who is live), plus an offset that only tests move. A test that
/// pauses a node advances this clock past the lease rather than sleeping a TTL of wall time and hoping the machine
/// keeps the other nodes' renewals on time meanwhile (on a busy machine it did not: issue 54). Nodes of one test
/// share one clock; a real node never moves it.
public final class LeaseClock: Sendable {
    private let offset = Atomic<Int64>(0)

    public init() {}

    /// How far this clock runs ahead of the database's, in nanoseconds.
    public var offsetNanoseconds: Int64 { offset.load(ordering: .relaxed) }

    /// Moves the clock forward: leases and heartbeats older than `nanoseconds` from now have lapsed at once.
    public func advance(by nanoseconds: Int64) {
        offset.add(nanoseconds, ordering: .relaxed)
    }
}

/// A `papertrade serve` process that joined the cluster of its PostgreSQL database, as the `cluster_nodes` table
/// keeps it. Times are the database's clock (nanoseconds since 1970), so nodes on machines whose clocks disagree
/// still agree on who is live.
public struct ClusterNodeRecord: Sendable, Hashable {
    public enum State: String, Sendable { case up, left }
    public var name: String
    /// Where other nodes and operators reach it (`--advertise-url`).
    public var url: String
    public var state: State
    public var startedAt: Timestamp
    public var heartbeatAt: Timestamp

    public init(name: String, url: String, state: State, startedAt: Timestamp, heartbeatAt: Timestamp) {
        self.name = name
        self.url = url
        self.state = state
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
    }
}

/// Who owns a virtual shard: its lease. `epoch` grows on every change of owner and every journal commit checks it
/// (the fence): a node that lost a shard — paused, partitioned, slow — can never write to it again.
public struct ShardLease: Sendable, Hashable {
    public var shard: ShardID
    /// The node holding the lease; nil when nobody does (never taken, or handed back).
    public var owner: String?
    public var epoch: Int64
    /// Until when the lease holds unless renewed (database clock). An expired lease may be taken by any node.
    public var expiresAt: Timestamp
    public var acquiredAt: Timestamp

    public init(shard: ShardID, owner: String?, epoch: Int64, expiresAt: Timestamp, acquiredAt: Timestamp) {
        self.shard = shard
        self.owner = owner
        self.epoch = epoch
        self.expiresAt = expiresAt
        self.acquiredAt = acquiredAt
    }
}

/// What the database says about the cluster at one instant: its nodes, its leases, and the database's clock.
public struct ClusterView: Sendable {
    public var now: Timestamp
    public var nodes: [ClusterNodeRecord]
    public var leases: [ShardLease]

    public init(now: Timestamp, nodes: [ClusterNodeRecord], leases: [ShardLease]) {
        self.now = now
        self.nodes = nodes
        self.leases = leases
    }

    /// Nodes up whose last heartbeat is younger than `ttl` nanoseconds, by name.
    public func liveNodes(ttl: Int64) -> [ClusterNodeRecord] {
        nodes.filter { $0.state == .up && $0.heartbeatAt.adding(nanoseconds: ttl) > now }.sorted { $0.name < $1.name }
    }
}

/// Membership and shard leases, kept in the database every node shares (PostgreSQL). Every call is one short
/// transaction on the database's clock.
public protocol ClusterRepository: Sendable {
    /// Joins (or rejoins) node `name`, reachable at `url`, creating the lease rows of `shards` shards if missing.
    func joinCluster(node name: String, url: String, shards: Int) async throws
    /// Records the node's heartbeat and returns the cluster as it stands.
    func heartbeat(node name: String) async throws -> ClusterView
    /// The cluster as it stands, without a heartbeat (`papertrade admin cluster`).
    func clusterView() async throws -> ClusterView
    /// Takes shard `shard` for `node` if its lease is free, expired or already the node's: the epoch grows by one
    /// and the new epoch is returned; nil when another node holds a live lease.
    func acquireShard(_ shard: ShardID, node: String, ttl: Int64) async throws -> Int64?
    /// Extends the node's leases that still have the epochs it holds; returns the shards whose lease it still holds.
    func renewShards(_ held: [ShardID: Int64], node: String, ttl: Int64) async throws -> Set<ShardID>
    /// Hands a shard back (its owner at that epoch only): any node may take it at once.
    func releaseShard(_ shard: ShardID, node: String, epoch: Int64) async throws
    /// Marks the node as gone (graceful shutdown): the others stop waiting for its heartbeat.
    func leaveCluster(node name: String) async throws
}

/// An order update or notification one node committed, read back by the others so a client's streams carry its
/// accounts' events whichever node it is connected to (`LiveEventRepository`).
public struct LiveEvent: Sendable {
    public enum Payload: Sendable {
        case order(OrderUpdate)
        case notification(NotificationRecord)
    }

    /// Grows with every event; within one shard, in commit order.
    public var id: Int64
    public var shard: ShardID
    /// The node that committed it (and published it to its own streams at once).
    public var node: String
    /// Nil when it was not asked for (`LiveEventRepository.liveEvents(after:node:payloads:limit:)`).
    public var payload: Payload?

    public init(id: Int64, shard: ShardID, node: String, payload: Payload?) {
        self.id = id
        self.shard = shard
        self.node = node
        self.payload = payload
    }
}

/// The cluster's live events: on a cluster, every journal commit also writes its order updates and notifications
/// to a table in the same transaction, and the other nodes read them back by id. Within a shard ids follow commit
/// order — one node writes a shard at a time, one commit after another, and a takeover
/// waits for the old owner's commits (the fence) — so a reader that keeps the last id it read per shard never
/// skips one.
public protocol LiveEventRepository: Sendable {
    /// The newest event id of each shard that has any.
    func liveEventMarks() async throws -> [ShardID: Int64]
    /// Events after `marks` (a shard absent from it: from its first), oldest first, at most `limit`; payloads only
    /// of other nodes' events, and only when `payloads` is true (otherwise the ids alone move the marks on).
    func liveEvents(after marks: [ShardID: Int64], node: String, payloads: Bool, limit: Int) async throws
        -> [LiveEvent]
    /// Deletes events older than `age` nanoseconds (a reader that far behind has restarted anyway).
    func pruneLiveEvents(olderThan age: Int64) async throws
}
