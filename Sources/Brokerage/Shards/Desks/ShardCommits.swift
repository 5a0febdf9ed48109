import TradingCore

/// A shard's side of writing its journal: whether it may (its lease), and the steps queued for storage and not yet
/// seen durable, with the orders each closed, so closed orders leave the engine only once their step is on disk.
struct ShardCommits {
    /// Whether this shard may write its journal: always in a single process; on a cluster only while this node
    /// holds its lease, and then every commit carries the lease's epoch (the fence the database checks).
    enum Lease: Sendable, Equatable {
        case local
        case held(epoch: Int64)
        case released
    }

    var lease = Lease.local
    /// Steps queued for storage and not yet seen durable, with the orders each closed (dropped once durable).
    private(set) var inFlight: [(step: StagedStep, closed: [OrderID])] = []
    /// Closed orders whose steps are durable but whose bracket/OCO group still has an open member.
    private var closedAwaitingGroups: [OrderID] = []
    /// The client order ids of the orders pruned lately (a placement's lookup of an id in storage may have missed them).
    private(set) var pruned = ClosedClientOrderIDs()

    init(lease: Lease) { self.lease = lease }

    /// Whether steps are refused (the lease is gone).
    var isReleased: Bool { lease == .released }

    /// The epoch a journal must carry (nil outside a cluster).
    var epoch: Int64? {
        if case .held(let epoch) = lease { epoch } else { nil }
    }

    mutating func queued(_ step: StagedStep, closing closed: [OrderID]) { inFlight.append((step, closed)) }

    /// Forgets every queued step (a reload from storage: what was not durable is not in memory either).
    mutating func forget() {
        inFlight = []
        closedAwaitingGroups = []
        pruned.reloaded()
    }

    /// Hands the orders closed by steps that have become durable (with those still waiting for their group) to
    /// `prune`, which drops them from the engine and returns those a bracket or OCO group still needs, and the client
    /// order ids of those it dropped.
    mutating func pruneDurable(_ prune: ([OrderID]) -> (kept: [OrderID], forgotten: [ClosedClientOrderIDs.Key])) {
        var durable = 0
        while durable < inFlight.count, inFlight[durable].step.isDurable { durable += 1 }
        guard durable > 0 else { return }
        var closed = closedAwaitingGroups
        for i in 0..<durable { closed += inFlight[i].closed }
        inFlight.removeFirst(durable)
        guard !closed.isEmpty else {
            closedAwaitingGroups = []
            return
        }
        let (kept, forgotten) = prune(closed)
        closedAwaitingGroups = kept
        pruned.pruned(forgotten)
    }

    /// Whether `id` was pruned in `account` within `ClosedClientOrderIDs.window`.
    mutating func prunedLately(_ id: ClientOrderID, account: AccountID) -> Bool {
        pruned.contains(id, account: account)
    }

    /// The steps still waiting (a flush waits for each).
    var waiting: [StagedStep] { inFlight.map(\.step) }

    /// The last state of each order the updates touch, in the order they were first touched (one order placed
    /// is the common step: no dictionary for it).
    static func lastStates(_ updates: [OrderUpdate]) -> [Order] {
        if updates.count == 1 { return [updates[0].order] }
        var latest: [OrderID: Order] = [:]
        var sequence: [OrderID] = []
        for update in updates {
            if latest.updateValue(update.order, forKey: update.order.id) == nil { sequence.append(update.order.id) }
        }
        return sequence.compactMap { latest[$0] }
    }
}
