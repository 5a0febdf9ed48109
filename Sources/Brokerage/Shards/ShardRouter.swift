import MarketData
import NIOCore
import NIOPosix
import Storage
import Synchronization
import TradingCore

/// What every shard is made with: the services they share (nothing mutable but behind locks).
struct ShardContext: Sendable {
    let storage: Storage
    let feed: any MarketDataFeed
    let directory: SymbolDirectory
    let clock: MarketClock
    let market: SharedMarket
    let languages: LanguagePreferences
    let streams: UpdateStreams
    let metrics: BrokerageMetrics
    let seed: UInt64

    /// Shard `id`'s engine configuration: its own seed, so ids drawn by different shards never collide and each
    /// shard's ids are the same however many shard actors run.
    func configuration(for id: ShardID) -> EngineConfiguration {
        var mixed = SeededGenerator(seed: seed &+ 0x9E37_79B9_7F4A_7C15 &* UInt64(id.index + 1))
        return EngineConfiguration(seed: mixed.next(), sessions: clock.sessions)
    }
}

/// The threads shards run on: `count` serial executors (one per core by default), virtual shard i on executor
/// i mod count. An executor runs one step at a time, so each is one "shard actor" owning several virtual shards;
/// steps of shards on different executors run in parallel.
///
/// The threads live as long as the process (like NIO's singleton event loops) and are shared by every brokerage
/// opened with the same count: a shard's job enqueued on a stopped thread would never run, so they are never
/// stopped — a brokerage shut down twice, or a call that races its shutdown, cannot hang on them.
final class ShardOwners: Sendable {
    let count: Int
    private let loops: [any EventLoop]

    init(count: Int) {
        self.count = Swift.max(1, count)
        loops = Array(Self.group(threads: self.count).makeIterator())
    }

    /// The executor of the owner that runs virtual shard `shard`.
    func executor(for shard: ShardID) -> any SerialExecutor {
        loops[shard.index % loops.count].executor
    }

    /// Which owner (0 ..< count) runs `shard`.
    func owner(of shard: ShardID) -> Int { shard.index % count }

    /// One owner per core.
    static var defaultCount: Int { System.coreCount }

    private static let groups = Mutex<[Int: MultiThreadedEventLoopGroup]>([:])

    private static func group(threads: Int) -> MultiThreadedEventLoopGroup {
        groups.withLock { groups in
            if let group = groups[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            groups[threads] = group
            return group
        }
    }
}

/// The one way from the brokerage front to a shard: which shard an account (or a user's alerts) lives in, the
/// shard itself, and every shard for work that spans them (scatter/gather). On one machine every shard is local;
/// a cluster implements the same lookups with shards owned by other nodes.
final class ShardRouter: Sendable {
    let shards: [Shard]
    let owners: ShardOwners
    /// Each account's shard (loaded at start; accounts opened since are added; one made by another process is
    /// looked up in storage).
    private let accounts: Mutex<[AccountID: ShardID]>
    /// Accounts per shard (new accounts go to the emptiest).
    private let load: Mutex<[Int]>
    private let storage: Storage

    init(shards: [Shard], owners: ShardOwners, accounts: [AccountID: ShardID], storage: Storage) {
        self.shards = shards
        self.owners = owners
        self.storage = storage
        self.accounts = Mutex(accounts)
        var load = [Int](repeating: 0, count: shards.count)
        for shard in accounts.values where load.indices.contains(shard.index) { load[shard.index] += 1 }
        self.load = Mutex(load)
    }

    var count: Int { shards.count }

    /// The shard that holds `account`; nil when no such account exists.
    func shard(of account: AccountID) async -> Shard? {
        if let known = accounts.withLock({ $0[account] }) { return shards[known.index] }
        // Opened by another process (e.g. `papertrade admin create-account` while serving).
        guard let record = try? await storage.account(account), shards.indices.contains(record.shard.index) else {
            return nil
        }
        accounts.withLock { $0[account] = record.shard }
        return shards[record.shard.index]
    }

    /// The shard that keeps a user's price alerts: a stable hash of the user id, so every node agrees without
    /// asking.
    func shard(ofUser user: UserID) -> Shard { shards[Self.shardIndex(ofUser: user, count: shards.count)] }

    static func shardIndex(ofUser user: UserID, count: Int) -> Int {
        // FNV-1a over the id's bytes: stable across runs and processes (Swift's `hashValue` is seeded per process).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in user.text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Int(hash % UInt64(Swift.max(1, count)))
    }

    /// The shard a new account goes to: the one with the fewest accounts (the lowest on a tie), counted as taken.
    func placeNewAccount() -> ShardID {
        load.withLock { load in
            var best = 0
            for i in load.indices where load[i] < load[best] { best = i }
            load[best] += 1
            return ShardID(best)
        }
    }

    /// Records where an account opened (after it is durable), or gives back a placement that was not used.
    func opened(_ account: AccountID, in shard: ShardID) {
        accounts.withLock { $0[account] = shard }
    }

    func unplaced(_ shard: ShardID) {
        load.withLock { if $0.indices.contains(shard.index) { $0[shard.index] -= 1 } }
    }

    /// Runs `body` on every shard at once and gathers the results in shard order.
    func scatter<T: Sendable>(_ body: @escaping @Sendable (Shard) async -> T) async -> [T] {
        await withTaskGroup(of: (Int, T).self) { group in
            for (i, shard) in shards.enumerated() { group.addTask { (i, await body(shard)) } }
            var results = [T?](repeating: nil, count: shards.count)
            for await (i, result) in group { results[i] = result }
            return results.compactMap { $0 }
        }
    }

    /// Every account and the shard and owner it runs on (`papertrade admin shards`).
    func accountShards() -> [AccountID: ShardID] { accounts.withLock { $0 } }
}
