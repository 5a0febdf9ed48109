import BrokerageModel
import Logging
import ServiceLifecycle
import Synchronization
import TradingCore

/// How a node takes part in the cluster of its database.
public struct ClusterSettings: Sendable {
    /// The node's name, unique in the cluster (`--node-name`).
    public var name: String
    /// Where other nodes and HAProxy reach it (`--advertise-url`).
    public var url: String
    /// How long a lease holds without renewal: a node that stops renewing (killed, paused, cut off) loses its
    /// shards this long after its last renewal, and a node silent this long is no longer counted as live.
    public var leaseTTL: Int64 = 3 * Duration64.second
    /// How often the node renews its leases and looks at the cluster.
    public var interval: Int64 = Duration64.second / 2
    /// How long a node that is leaving (SIGTERM) keeps answering after it handed its shards over: HAProxy's health
    /// checks see /readyz fail and stop sending it requests (deploy/haproxy.cfg: 2 × 500 ms), and what still
    /// arrives is forwarded to the shards' new owners.
    public var drain: Int64 = 2 * Duration64.second

    public init(name: String, url: String) {
        self.name = name
        self.url = url
    }
}

/// A node of a cluster of `papertrade serve` processes on one PostgreSQL: it heartbeats, keeps the leases of the
/// shards it serves, takes the shards the assignment gives it (`ShardAssignment` over the live nodes) once their
/// lease is free, and hands back the ones it should no longer hold. Safety does not rest on timing: every journal
/// commit carries the lease's epoch and the database refuses a commit whose epoch is not the lease's (the fence);
/// the lease only decides who should own a shard.
///
/// Each pass, in order: heartbeat and read the cluster; renew the leases held (a lease not renewed is dropped at
/// once); hand back shards assigned to another live node; take shards assigned here. If no renewal succeeded for
/// a whole lease (the database unreachable), every shard is dropped: another node may own them by now.
public final class ClusterNode: Service, Sendable {
    public let settings: ClusterSettings
    let brokerage: Brokerage
    let logger: Logger
    private let state = Mutex(State())

    struct State {
        /// Set after the first pass that served every shard assigned here; kept while the node later takes shards
        /// over (it answers meanwhile: a request for a shard on its way waits for it, see the server's
        /// `ClusterForwarding`), lost when its leases lapse. A node that leaves is not ready either (`isReady`).
        var ready = false
        var lastRenewal: ContinuousClock.Instant?
        var view: ClusterView?
        var leaving = false
        /// Set once the node handed every shard back and left (`drain`).
        var left = false
    }

    public init(settings: ClusterSettings, brokerage: Brokerage, logger: Logger = Logger(label: "papertrade.cluster")) {
        self.settings = settings
        self.brokerage = brokerage
        self.logger = logger
    }

    var router: ShardRouter { brokerage.router }
    var cluster: any ClusterRepository { brokerage.repositories.cluster }

    /// True once the node has served every shard the assignment gives it (`GET /readyz`, HAProxy's health check);
    /// false again after it began leaving or when its leases lapsed. Taking more shards over later (a node left or
    /// died) does not make it unready: were it to, every surviving node would fail its check at once while they
    /// shared a leaving node's shards, and HAProxy would have no node to send requests to.
    public var isReady: Bool { state.withLock { $0.ready && !$0.leaving } }

    public func run() async throws {
        try await join()
        // Other nodes' order updates and notifications, for the streams of clients connected here.
        let relay = Task { [settings, brokerage, logger] in
            await LiveEventRelay(node: settings.name, brokerage: brokerage, logger: logger).run()
        }
        defer { relay.cancel() }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.pass()
                try? await Task.sleep(for: .nanoseconds(self.settings.interval))
            }
        }
        await leave()
    }

    /// Joins the cluster (creating the lease rows on first use).
    public func join() async throws {
        try await cluster.joinCluster(node: settings.name, url: settings.url, shards: router.count)
        logger.info("joined the cluster as \(settings.name) (\(settings.url)); \(router.count) shards")
    }

    /// One look at the cluster: renew, hand back, take (see the type's comment).
    public func pass() async {
        let held = heldLeases()
        let view: ClusterView
        let leaving = state.withLock { $0.leaving }
        do {
            // A leaving node only looks (a heartbeat would mark it up again and the others would wait for it).
            view = try await leaving ? cluster.clusterView() : cluster.heartbeat(node: settings.name)
            let kept = try await cluster.renewShards(held, node: settings.name, ttl: settings.leaseTTL)
            state.withLock { $0.lastRenewal = .now }
            for shard in held.keys where !kept.contains(shard) {
                logger.warning("lost the lease of shard \(shard)")
                await drop(shard, owner: nil, url: nil)
            }
        } catch {
            logger.error("cluster heartbeat failed: \(error)")
            let stale = state.withLock { s in
                s.lastRenewal.map { ContinuousClock.now - $0 > .nanoseconds(settings.leaseTTL) } ?? true
            }
            // One failed look is not a reason to leave HAProxy's rotation: the leases still hold until the TTL.
            if stale {
                for shard in heldLeases().keys { await drop(shard, owner: nil, url: nil) }
                state.withLock { $0.ready = false }
            }
            return
        }
        state.withLock { $0.view = view }
        let live = view.liveNodes(ttl: settings.leaseTTL)
        // Real providers' rate limits hold for the whole cluster: each node takes its share.
        brokerage.feed.shareRateLimits(among: max(1, live.count))
        let urls = Dictionary(live.map { ($0.name, $0.url) }) { a, _ in a }
        let names = live.map(\.name).filter { !(leaving && $0 == settings.name) }
        let assignment = ShardAssignment.assign(shards: router.count, nodes: names)
        for lease in view.leases where router.shards.indices.contains(lease.shard.index) {
            let shard = lease.shard
            let target = assignment[shard.index]
            let servedHere = heldLeases()[shard] != nil
            if servedHere {
                // Hand back a shard the assignment gives to another live node.
                if let target, target != settings.name {
                    await handBack(shard, epoch: lease.epoch, to: target, url: urls[target])
                }
                continue
            }
            // Not served here: remember who does, for the error that sends the client there.
            let owner = lease.owner.flatMap { lease.expiresAt > view.now ? $0 : nil }
            router.setService(.elsewhere(owner: owner, url: owner.flatMap { urls[$0] }), of: shard)
            guard target == settings.name else { continue }
            if owner == nil || owner == settings.name { await take(shard) }
        }
        let served = heldLeases()
        brokerage.metrics.shardsOwned.record(served.count)
        let complete = assignment.allSatisfy { $0.value != settings.name || served[ShardID($0.key)] != nil }
        state.withLock { $0.ready = $0.ready || complete }
        // Games and players change on any node; the book is small (see `GameRegistry.refresh`). What they mean for
        // the game accounts served here — a date moved, a player removed, the end, the final notice — is applied
        // here (`GameRegistry.reconcile`).
        try? await brokerage.games.reload()
        await brokerage.games.reconcile()
        // So do class teams: a team disbanded on another node stops its members hearing of its account here.
        if let teams = try? await brokerage.repositories.classes.teamMembersByShard() {
            for shard in served.keys { await router.shard(shard).replaceTeams(teams[shard] ?? [:]) }
        }
    }

    /// The shards served here and their epochs.
    func heldLeases() -> [ShardID: Int64] {
        router.servedShards().compactMapValues { $0 }
    }

    /// Takes a shard whose lease is free, expired or already this node's: bumps the epoch, loads the shard from
    /// storage, then serves it.
    func take(_ shard: ShardID) async {
        do {
            guard let epoch = try await cluster.acquireShard(shard, node: settings.name, ttl: settings.leaseTTL) else {
                return
            }
            try await router.serve(shard, epoch: epoch)
            brokerage.metrics.takeovers.increment()
            logger.info("serving shard \(shard) at epoch \(epoch)")
        } catch {
            logger.error("could not take shard \(shard): \(error)")
        }
    }

    /// Stops serving a shard whose lease this node no longer holds.
    func drop(_ shard: ShardID, owner: String?, url: String?) async {
        await router.stopServing(shard, owner: owner, url: url)
    }

    /// Hands a shard over: requests for it are refused from now on (503, retry), its steps in flight are waited
    /// for, and its lease is released so the new owner can take it at once.
    func handBack(_ shard: ShardID, epoch: Int64, to node: String?, url: String?) async {
        await drop(shard, owner: node, url: url)
        do {
            try await cluster.releaseShard(shard, node: settings.name, epoch: epoch)
            logger.info("handed shard \(shard) back (for \(node ?? "any node"))")
        } catch {
            logger.error("could not release shard \(shard): \(error) (its lease will expire)")
        }
    }

    /// Graceful shutdown: hands every shard back so the other nodes take them at once, then leaves.
    func leave() async {
        let first = state.withLock { s in
            defer { s.leaving = true }
            return !s.left
        }
        for (shard, epoch) in heldLeases() { await handBack(shard, epoch: epoch, to: nil, url: nil) }
        guard first else { return }
        try? await cluster.leaveCluster(node: settings.name)
        state.withLock { $0.left = true }
        logger.info("left the cluster")
    }

    /// Leaves while the HTTP server still answers (`ClusterDrain`, on SIGTERM): /readyz fails from now on, every
    /// shard is handed back and the node leaves; then, for `settings.drain`, its passes go on learning the shards'
    /// new owners, so the requests that still land here are forwarded to them rather than refused.
    public func drain() async {
        let served = servedShards
        let started = ContinuousClock.now
        await leave()
        logger.info("handed \(served) shards over in \(ContinuousClock.now - started); draining")
        try? await Task.sleep(for: .nanoseconds(settings.drain))
    }

    /// How many shards this node serves now.
    public var servedShards: Int { heldLeases().count }

    /// The cluster as this node last saw it.
    public var lastView: ClusterView? { state.withLock { $0.view } }
}

/// Runs beside the application in `papertrade serve` on a cluster, after it in the service group, so that on SIGTERM
/// it stops first: the node drains (`ClusterNode.drain`) while the HTTP server still answers, then the application
/// shuts down. A rolling restart of the cluster so fails no request.
public struct ClusterDrain: Service {
    let node: ClusterNode

    public init(node: ClusterNode) { self.node = node }

    public func run() async throws {
        try? await gracefulShutdown()
        await node.drain()
    }
}
