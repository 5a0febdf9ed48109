import Synchronization

/// Whether a shard's memory may be trusted. After a write failed the shard reloads from storage (memory must not
/// run ahead of disk); when storage cannot be read either — the database is down or failing over — memory may hold
/// a step the database does not, so the shard answers nothing (503, Retry-After) until a reload succeeds. Read off
/// the actor, by every request's routing (`ShardRouter.served`).
final class ShardHealth: Sendable {
    private let stale = Atomic<Bool>(false)

    var isStale: Bool { stale.load(ordering: .acquiring) }

    /// Marks the shard stale; true when it was not already (the caller then starts the recovery).
    func markStale() -> Bool { !stale.exchange(true, ordering: .acquiringAndReleasing) }

    func markHealthy() { stale.store(false, ordering: .releasing) }

    /// What a request to a stale shard is told.
    static let refusal = "the database is not answering (failing over?); nothing was changed — try again in a moment"
}
