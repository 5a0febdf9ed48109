import BrokerageModel
import Foundation
import MarketData
import Synchronization
import TradingCore

/// What every shard is made with: the services they share (nothing mutable but behind locks).
struct ShardContext: Sendable {
    let storage: ShardStores
    /// Where the shards' steps are committed.
    let journal: any JournalWriter
    let feed: any MarketDataFeed
    let directory: SymbolDirectory
    let clock: MarketClock
    /// Per-instrument state every shard shares (quotes, references, auctions, index closes).
    let market: SharedMarket
    /// Users' chosen languages (notifications are written in them).
    let languages: LanguagePreferences
    /// Subscribers to order updates and notifications (published from the journal writer as steps become durable).
    let streams: UpdateStreams
    let metrics: BrokerageMetrics
    let seed: UInt64
    /// Shards whose commit the lease fence refused (cluster); shared by the shards and their router.
    let fences = ShardFences()

    /// Shard `id`'s engine configuration: its own seed, so ids drawn by different shards never collide and each
    /// shard's ids are the same however many shard actors run.
    func configuration(for id: ShardID) -> EngineConfiguration {
        var mixed = SeededGenerator(seed: seed &+ 0x9E37_79B9_7F4A_7C15 &* UInt64(id.index + 1))
        return EngineConfiguration(seed: mixed.next(), sessions: clock.sessions)
    }
}

/// Who runs the shards: `count` owners (one per core by default), virtual shard i run by owner i mod count. An owner
/// is an actor with no state of its own whose executor its shards share (`Shard.unownedExecutor`): an owner runs one
/// step of one of its shards at a time, so each owner is one "shard actor" owning several virtual shards, and the
/// steps of shards with different owners run in parallel.
///
/// Owners are ordinary actors on Swift's cooperative pool (one thread per core), not threads of their own: a request
/// handler on the pool calls into an idle shard on the thread it already runs on, where a dedicated thread per owner
/// cost every order two thread handoffs (measured on 2 cores: 5.0–5.5k against 5.9–6.1k durable commands/s on
/// ShardBench, 4.2–4.4k against 4.7k orders/s on the load benchmark).
final class ShardOwners: Sendable {
    /// An owner: the serial executor its shards share.
    actor Owner {}

    let count: Int
    private let owners: [Owner]

    init(count: Int) {
        self.count = Swift.max(1, count)
        owners = (0..<self.count).map { _ in Owner() }
    }

    /// The owner that runs virtual shard `shard`.
    func owner(for shard: ShardID) -> Owner { owners[shard.index % owners.count] }

    /// Which owner (0 ..< count) runs `shard`.
    func owner(of shard: ShardID) -> Int { shard.index % count }

    /// One owner per core.
    static var defaultCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}

/// The shards whose commit the lease fence refused, with the epoch they were served at: another node owns them now,
/// and this node's memory of them may hold the refused step (an order placed in the engine, never durable). The
/// router stops serving such a shard at once — reads too, which would show that order, and a retry of it, which
/// would be told its client_order_id is taken — instead of at the cluster's next pass. A later lease (a new epoch,
/// loaded afresh from storage) is served again.
final class ShardFences: Sendable {
    private let refused = Mutex<[ShardID: Int64]>([:])

    func fence(_ shard: ShardID, epoch: Int64) { refused.withLock { $0[shard] = epoch } }

    /// Whether `shard`, served at `epoch`, had a commit refused.
    func isFenced(_ shard: ShardID, epoch: Int64) -> Bool { refused.withLock { $0[shard] == epoch } }
}

/// Whether this process serves a virtual shard. A single process serves them all; a node of a cluster serves
/// the shards whose lease it holds (`ClusterNode`), and knows which node it last saw owning each of the others.
enum ShardService: Sendable, Equatable {
    /// Served here; `epoch` is the lease's (nil in a single process: nothing to fence).
    case serving(epoch: Int64?)
    /// Not served here: another node owns it (its name and URL when known), or it is changing hands.
    case elsewhere(owner: String?, url: String?)
}

/// The one way from the brokerage front to a shard: which shard an account (or a user's alerts) lives in, the
/// shard itself, and every shard for work that spans them (scatter/gather). On one machine every shard is local;
/// on a cluster a shard is reached only while this node serves it (`route` throws `.elsewhere` otherwise, before
/// anything is done), and scatter/gather covers the shards served here.
final class ShardRouter: Sendable {
    let shards: [Shard]
    let owners: ShardOwners
    /// Which shards this process serves (`ShardService`), by index.
    private let service: Mutex<[ShardService]>
    /// Each account's shard (loaded at start; accounts opened since are added; one made by another process is
    /// looked up in storage).
    private let accounts: Mutex<[AccountID: ShardID]>
    /// Accounts per shard (new accounts go to the emptiest).
    private let load: Mutex<[Int]>
    private let storage: any AccountRepository
    private let fences: ShardFences

    /// Makes the `count` shards over `context`, run by `owners`, and routes `accounts` (each account's stored shard).
    init(
        count: Int, owners: ShardOwners, context: ShardContext, accounts: [AccountID: ShardID],
        storage: any AccountRepository, clustered: Bool = false
    ) {
        service = Mutex(
            [ShardService](repeating: clustered ? .elsewhere(owner: nil, url: nil) : .serving(epoch: nil), count: count)
        )
        shards = (0..<count).map {
            Shard(
                id: ShardID($0), owner: owners.owner(for: ShardID($0)), context: context,
                lease: clustered ? .released : .local)
        }
        self.owners = owners
        self.storage = storage
        fences = context.fences
        self.accounts = Mutex(accounts)
        var load = [Int](repeating: 0, count: count)
        for shard in accounts.values where load.indices.contains(shard.index) { load[shard.index] += 1 }
        self.load = Mutex(load)
    }

    var count: Int { shards.count }

    /// The shard that holds `account`; nil when no such account exists.
    func shard(of account: AccountID) async -> Shard? {
        if let known = accounts.withLock({ $0[account] }), shards.indices.contains(known.index) {
            return shards[known.index]
        }
        // Opened by another process (e.g. `papertrade admin create-account` while serving).
        guard let record = try? await storage.account(account), shards.indices.contains(record.shard.index) else {
            return nil
        }
        accounts.withLock { $0[account] = record.shard }
        return shards[record.shard.index]
    }

    /// The shard that holds `account`, if this process serves it: `.notFound` when there is no such account,
    /// `.elsewhere` when another node serves it (nothing has been done then: the request may go there).
    func route(_ account: AccountID) async throws(BrokerageError) -> Shard {
        guard let shard = await shard(of: account) else { throw .notFound("account not found") }
        try served(shard.id)
        return shard
    }

    /// The shard that keeps a user's price alerts, if this process serves it (see `route`).
    func route(user: UserID) throws(BrokerageError) -> Shard {
        let shard = shard(ofUser: user)
        try served(shard.id)
        return shard
    }

    /// Throws `.elsewhere` unless this process serves `shard`; `.unavailable` while its memory is stale
    /// (`ShardHealth`).
    func served(_ shard: ShardID) throws(BrokerageError) {
        if shards.indices.contains(shard.index), shards[shard.index].health.isStale {
            throw .unavailable(ShardHealth.refusal)
        }
        switch service(of: shard) {
        case .elsewhere(let owner, let url): throw .elsewhere(shard: shard, owner: owner, url: url)
        case .serving(let epoch?) where fences.isFenced(shard, epoch: epoch):
            throw .elsewhere(shard: shard, owner: nil, url: nil)
        case .serving: return
        }
    }

    func service(of shard: ShardID) -> ShardService {
        service.withLock { $0.indices.contains(shard.index) ? $0[shard.index] : .elsewhere(owner: nil, url: nil) }
    }

    func setService(_ new: ShardService, of shard: ShardID) {
        service.withLock { if $0.indices.contains(shard.index) { $0[shard.index] = new } }
    }

    /// Starts serving `shard` under a lease just taken (cluster): the shard loads from storage, then requests reach it.
    func serve(_ shard: ShardID, epoch: Int64) async throws {
        guard shards.indices.contains(shard.index) else { return }
        try await shards[shard.index].take(epoch: epoch, alertsOf: alertUsers(of: shard))
        setService(.serving(epoch: epoch), of: shard)
    }

    /// Stops serving `shard` (cluster): requests are refused with `.elsewhere` naming `owner` from now on, and the
    /// shard stops writing once its staged steps are durable.
    func stopServing(_ shard: ShardID, owner: String?, url: String?) async {
        guard shards.indices.contains(shard.index) else { return }
        setService(.elsewhere(owner: owner, url: url), of: shard)
        await shards[shard.index].release()
    }

    /// The shards this process serves, with their lease epochs.
    func servedShards() -> [ShardID: Int64?] {
        service.withLock { all in
            var served: [ShardID: Int64?] = [:]
            for (i, s) in all.enumerated() {
                guard case .serving(let epoch) = s else { continue }
                if let epoch, fences.isFenced(ShardID(i), epoch: epoch) { continue } // lost: see `ShardFences`
                served[ShardID(i)] = epoch
            }
            return served
        }
    }

    /// The shard that keeps a user's price alerts: a stable hash of the user id, so every node agrees without
    /// asking.
    func shard(ofUser user: UserID) -> Shard { shards[Self.shardIndex(ofUser: user, count: shards.count)] }

    /// Whose alerts `shard` keeps (the users whose ids hash to it).
    func alertUsers(of shard: ShardID) -> @Sendable (UserID) -> Bool {
        let count = shards.count
        return { ShardRouter.shardIndex(ofUser: $0, count: count) == shard.index }
    }

    static func shardIndex(ofUser user: UserID, count: Int) -> Int {
        // FNV-1a over the id's bytes: stable across runs and processes (Swift's `hashValue` is seeded per process).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in user.text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Int(hash % UInt64(Swift.max(1, count)))
    }

    /// A shard this router placed an account in (`placeNewAccount`).
    func shard(_ placement: ShardID) -> Shard { shards[placement.index] }

    /// The shard a new account goes to: of the shards served here, the one with the fewest accounts (the lowest
    /// on a tie), counted as taken. `.elsewhere` when this node serves no shard (a cluster node still joining).
    func placeNewAccount() throws(BrokerageError) -> ShardID {
        let served = service.withLock { all in all.map { if case .serving = $0 { true } else { false } } }
        guard let first = served.firstIndex(of: true) else {
            throw .elsewhere(shard: ShardID(0), owner: nil, url: nil)
        }
        return load.withLock { load in
            var best = first
            for i in load.indices where served[i] && load[i] < load[best] { best = i }
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

    /// Runs `body` on every shard this process serves at once and gathers the results in shard order.
    func scatter<T: Sendable>(_ body: @escaping @Sendable (Shard) async -> T) async -> [T] {
        let served = service.withLock { all in all.map { if case .serving = $0 { true } else { false } } }
        return await withTaskGroup(of: (Int, T).self) { group in
            for (i, shard) in shards.enumerated() where served[i] { group.addTask { (i, await body(shard)) } }
            var results = [T?](repeating: nil, count: shards.count)
            for await (i, result) in group { results[i] = result }
            return results.compactMap { $0 }
        }
    }

    /// Every account and the shard and owner it runs on (`papertrade admin shards`).
    func accountShards() -> [AccountID: ShardID] { accounts.withLock { $0 } }
}
