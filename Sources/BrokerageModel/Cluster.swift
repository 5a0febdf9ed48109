import TradingCore

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
