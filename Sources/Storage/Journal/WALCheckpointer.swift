import BrokerageModel
import Foundation
import SQLKit
import Synchronization

/// Copies SQLite's WAL back into the database file in the background, on a connection of its own, and keeps the
/// WAL bounded under sustained writes.
///
/// When the writer has been idle for a moment, and every 2 s under sustained load, a PASSIVE checkpoint copies what
/// it can without blocking anyone. That alone cannot bound the WAL under sustained writes: SQLite starts the WAL over
/// only when a writer finds every frame copied, and new commits keep arriving while a checkpoint runs — a minute of
/// load left a 1 GB WAL and 100 ms stalls when each 10-second checkpoint copied hundreds of MB. So once the WAL holds
/// more than `walSizeLimit`, passive rounds catch up to within a few MB, then one more runs under the writer's own
/// lock (journals queue up meanwhile): it copies the rest, and the next commit finds everything copied and starts the
/// WAL from its beginning (journal_size_limit trims the file). A RESTART checkpoint did the same but waited in
/// SQLite's busy handler (sleeps of 1, 2, 5, 10… ms) for ~55 ms.
///
/// Measured: at 11–14k orders/s (2025, this 2-core VM) the locked round held writers ~45–60 ms every ~8 s. In
/// November 2026 on the same kind of VM, at ~10–11k orders/s, the p99 of a 4-second window holding a restart is
/// 120–200 ms (10 ms otherwise): instrumenting showed that the passive round right after another takes 130–190 ms
/// even when it copies ~200 frames, locked or not, and that commits' own fsyncs stall behind it — the filesystem, not
/// the lock (checkpointing every 250 ms instead of 2 s was worse). Mostly it was the database file growing: see
/// `FreePageReserve`, which this checkpointer tops up while the writer is idle. The rest was the top-ups themselves:
/// with SQLite's SECURE_DELETE (as sqlite-nio builds it) dropping the reserve's scratch table zero-filled every freed
/// page, 128 MB written through the WAL just before the next burst of orders; with secure_delete=FAST the benchmark's
/// worst p99 went from 20–30 ms in most runs to ≤ 9 ms in 18 rounds of 6 runs (November 2026).
struct WALCheckpointer: Sendable {
    let connection: any SQLDatabase
    let writerLock: AsyncLock
    let lastWrite: WriteClock
    let policy: CheckpointPolicy
    let progress: CheckpointerProgress

    /// A WAL restart waits until no more than this is left to copy.
    static let restartBacklog = 4 << 20

    /// Starts checkpointing; cancel the task to stop (before closing the connection).
    func start() async throws -> Task<Void, Never> {
        try await connection.raw("PRAGMA busy_timeout=5000").run()
        // The reserve's top-ups run on this connection: freed pages are not zero-filled (see `Storage.open`).
        try await connection.raw("PRAGMA secure_delete=FAST").run()
        let pageSize =
            try await connection.raw("PRAGMA page_size").first()?.decode(column: "page_size", as: Int.self) ?? 4096
        return Task.detached(priority: .utility) { await run(pageSize: pageSize) }
    }

    private func run(pageSize: Int) async {
        var lastCheckpoint = ContinuousClock.now
        // The free-page reserve is filled once the writer is first idle, and looked at again after each checkpoint
        // (commits since then took pages from it).
        var reserveDue = policy.freePageReserve > 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            let now = ContinuousClock.now
            let written = lastWrite.withLock { $0 }
            let idle = now - written >= policy.whenIdleFor
            if reserveDue, idle, written <= lastCheckpoint {
                // A top-up that failed (SQLite busy past its timeout on a loaded machine, say) is tried again at the
                // next idle look, a second later: without a write to re-arm it, it once never came back, and a new
                // database kept no reserve at all. One a write stopped is re-armed by that write's checkpoint.
                let done = await topUpReserve()
                reserveDue = !done
                progress.reserveLooks.add(1, ordering: .relaxed)
                if !done {
                    progress.reserveFailures.add(1, ordering: .relaxed)
                    try? await Task.sleep(for: .seconds(1))
                }
                continue
            }
            guard written > lastCheckpoint, idle || now - lastCheckpoint >= policy.atLeastEvery else { continue }
            lastCheckpoint = now
            reserveDue = policy.freePageReserve > 0
            guard var (frames, behind) = await passive(), frames * pageSize > policy.walSizeLimit else { continue }
            // Catch up to within a few MB first (a round copies what arrived during the one before, a fraction of
            // it), so the restart holds writers only for the last few frames and one fsync.
            for _ in 0..<4 where behind * pageSize > Self.restartBacklog {
                guard let next = await passive() else { break }
                (frames, behind) = next
            }
            _ = try? await writerLock.withLock { await passive() }
        }
    }

    /// Tops the free-page reserve up while no writes arrive (each chunk under the writer lock; it stops at the
    /// first write and goes on at the next idle checkpoint), once it has fallen below three quarters. False when it
    /// failed (it is tried again).
    private func topUpReserve() async -> Bool {
        let target = policy.freePageReserve
        guard target > 0 else { return true }
        let lastWrite = self.lastWrite, idle = policy.whenIdleFor, lock = writerLock
        do {
            try await FreePageReserve.topUp(
                connection, target: target, slack: target / 4,
                exclusive: { body in try await lock.withLock { try await body() } },
                mayContinue: { lastWrite.withLock { ContinuousClock.now - $0 >= idle } })
            return true
        } catch {
            return false
        }
    }

    /// One PASSIVE checkpoint: (frames in the WAL, frames not yet copied), or nil if it failed.
    private func passive() async -> (Int, Int)? {
        guard let row = try? await connection.raw("PRAGMA wal_checkpoint(PASSIVE)").first(),
            let log = try? row.decode(column: "log", as: Int.self),
            let copied = try? row.decode(column: "checkpointed", as: Int.self)
        else { return nil }
        return (log, log - copied)
    }
}

/// What the checkpointer has done so far: tests wait for its first look at the free-page reserve rather than
/// sleeping and hoping it came.
final class CheckpointerProgress: Sendable {
    /// How many times the checkpointer looked at the free-page reserve (and topped it up if it had to).
    let reserveLooks = Atomic<Int>(0)
    /// How many of those looks failed (and were tried again a second later).
    let reserveFailures = Atomic<Int>(0)
}

/// The time of the last committed write, shared with the checkpointer.
final class WriteClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    func touch() { instant.withLock { $0 = ContinuousClock.now } }
    func withLock<T: Sendable>(_ body: (ContinuousClock.Instant) -> T) -> T { instant.withLock { body($0) } }
}
