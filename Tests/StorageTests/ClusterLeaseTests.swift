import BrokerageModel
import Foundation
import SQLKit
import Testing
import TradingCore

@testable import Storage

/// The shard leases of a cluster (`SQLClusterLeases`) as two nodes on one PostgreSQL see them. Leases run on a clock
/// the test moves (`LeaseClock`): a lease lapses when the test says so, never because the machine was slow.
@Suite(
    "Shard leases of a cluster on one PostgreSQL",
    .enabled(if: ProcessInfo.processInfo.environment["PAPERTRADE_TEST_POSTGRES_URL"] != nil),
    // A takeover that waits on a stopped node's lock waits forever: fail instead.
    .timeLimit(.minutes(1)))
struct ClusterLeaseTests {
    /// How long a lease holds on the lease clock: an hour, so only `advance` makes one lapse.
    static let ttl = 3_600 * Duration64.second

    /// Nodes a and b, each with its own connections (named for it), on a fresh database of four shards.
    static func withNodes(_ body: (Storage, Storage, LeaseClock) async throws -> Void) async throws {
        let admin = ProcessInfo.processInfo.environment["PAPERTRADE_TEST_POSTGRES_URL"] ?? ""
        let name = "l_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await Storage.createPostgresDatabase(name, adminURL: admin)
        let url = admin.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
        let clock = LeaseClock()
        let a = try await Storage.open(.postgres(url: url), leaseClock: clock, clusterNode: "a")
        let b = try await Storage.open(.postgres(url: url), leaseClock: clock, clusterNode: "b")
        do {
            try await SQLClusterLeases(a).joinCluster(node: "a", url: "http://a.invalid", shards: 4)
            try await SQLClusterLeases(b).joinCluster(node: "b", url: "http://b.invalid", shards: 4)
            try await body(a, b, clock)
        } catch {
            await a.shutdown()
            await b.shutdown()
            throw error
        }
        await a.shutdown()
        await b.shutdown()
    }

    static func lease(_ shard: Int, _ storage: Storage) async throws -> ShardLease? {
        try await SQLClusterLeases(storage).clusterView().leases.first { $0.shard == ShardID(shard) }
    }

    @Test(
        "a lease is held until it lapses; then another node takes it, and the old owner can neither renew nor release it"
    )
    func takeover() async throws {
        try await Self.withNodes { a, b, clock in
            let shard = ShardID(0)
            #expect(try await SQLClusterLeases(a).acquireShard(shard, node: "a", ttl: Self.ttl) == 1)
            #expect(try await SQLClusterLeases(b).acquireShard(shard, node: "b", ttl: Self.ttl) == nil)
            #expect(try await SQLClusterLeases(a).renewShards([shard: 1], node: "a", ttl: Self.ttl) == [shard])

            clock.advance(by: Self.ttl + 1)
            #expect(try await SQLClusterLeases(b).acquireShard(shard, node: "b", ttl: Self.ttl) == 2)
            #expect(try await SQLClusterLeases(a).renewShards([shard: 1], node: "a", ttl: Self.ttl) == [])
            try await SQLClusterLeases(a).releaseShard(shard, node: "a", epoch: 1)
            let taken = try #require(try await Self.lease(0, a))
            #expect(taken.owner == "b" && taken.epoch == 2)

            // Handed back, it is free at once (no waiting for the TTL).
            try await SQLClusterLeases(b).releaseShard(shard, node: "b", epoch: 2)
            #expect(try await SQLClusterLeases(a).acquireShard(shard, node: "a", ttl: Self.ttl) == 3)
        }
    }

    /// A node stopped in the middle of a commit (SIGSTOP, a frozen VM) keeps its transaction open and its fence's
    /// `FOR SHARE` lock on the lease row. Before, the next owner's takeover waited for that lock forever, on its
    /// writer connection — its commits and heartbeats behind it — and the cluster stopped.
    @Test("a stopped owner's open commit does not hold up the takeover once its lease lapsed, and it commits nothing")
    func stoppedOwner() async throws {
        try await Self.withNodes { a, b, clock in
            let shard = ShardID(1)
            #expect(try await SQLClusterLeases(a).acquireShard(shard, node: "a", ttl: Self.ttl) == 1)
            let (locked, lockedGate) = AsyncStream<Void>.makeStream()
            let (wake, wakeGate) = AsyncStream<Void>.makeStream()
            let stopped = Task {
                try await a.transaction { db in
                    _ = try await db.raw("SELECT epoch FROM shard_leases WHERE shard = 1 FOR SHARE").all()
                    try await db.raw("UPDATE cluster_nodes SET url = 'http://late.invalid' WHERE name = 'a'").run()
                    lockedGate.yield()
                    for await _ in wake { break }
                }
            }
            for await _ in locked { break }

            // While its lease holds, the owner's commit is left alone.
            #expect(try await SQLClusterLeases(b).acquireShard(shard, node: "b", ttl: Self.ttl) == nil)
            clock.advance(by: Self.ttl + 1)
            #expect(try await SQLClusterLeases(b).acquireShard(shard, node: "b", ttl: Self.ttl) == 2)

            // Woken, the old owner's commit fails: nothing of it was acknowledged, and nothing of it is written.
            let writer = try #require(a.postgres)
            while writer.isOpen { try await Task.sleep(for: .milliseconds(20)) }
            wakeGate.yield()
            await #expect(throws: (any Error).self) { try await stopped.value }
            let nodes = try await SQLClusterLeases(b).clusterView().nodes
            #expect(nodes.first { $0.name == "a" }?.url == "http://a.invalid")
            // Its connection is opened again: it renews nothing (the lease is b's) but goes on.
            #expect(try await SQLClusterLeases(a).renewShards([shard: 1], node: "a", ttl: Self.ttl) == [])
        }
    }
}
