import Dispatch
import Foundation
import Synchronization

/// Where the simulated market's models run: dispatch threads of their own, not the threads that answer requests.
///
/// On Linux, Swift's tasks run on dispatch's default-priority root queue, one thread per core (two here), and every
/// request, socket and shard shares them. A model call that computes for a second — four years of an index's daily
/// bars (half a million member-days), a chain of 11,000 options, the movers of 5,000 symbols, a backtest — held
/// one of those threads for that second, and two such calls held the server: `/healthz` took 7 s beside eight
/// first option-chain requests (benchmarks/load/stall.py). `DispatchQueue.concurrentPerform` was worse: it spread
/// its work over that same default-priority pool. The lane is dispatch's user-initiated root queue, a pool of its
/// own (one running thread per core), whose threads the kernel shares with the request threads, so a cheap request
/// is answered between the model's slices.
public enum ComputeLane {
    /// Concurrent, at user-initiated priority: the priority picks the root queue, hence the threads. A lane at the
    /// default priority would run on the request threads again (the test "model work runs on threads of its own"
    /// fails then); tasks of high priority would share its threads, and the server makes none. It targets the root
    /// queue that keeps one running thread per core, not the overcommitting one a bare concurrent queue gets (which
    /// would start a thread per waiting job).
    private static let queue = DispatchQueue(
        label: "papertrade.compute", qos: .userInitiated, attributes: .concurrent,
        target: .global(qos: .userInitiated))

    /// `work`'s result, computed on the lane; the calling task is suspended (its thread free) meanwhile.
    public static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }

    /// Calls `body` once for each of `0..<iterations`, spread over the lane's threads, and returns when all are done
    /// — `concurrentPerform` on the lane. The caller works too, and waits only for iterations a running thread has
    /// taken, so a lane whose threads are all busy (each perhaps inside its own `parallel`) still finishes: its
    /// queued helpers find nothing left when they start.
    public static func parallel(_ iterations: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard iterations > 1 else {
            if iterations == 1 { body(0) }
            return
        }
        let run = Run(iterations: iterations, body: body)
        let helpers = min(iterations, ProcessInfo.processInfo.activeProcessorCount) - 1
        for _ in 0..<max(helpers, 0) { queue.async { run.work() } }
        run.work()
        run.finished.wait()
    }

    private final class Run: Sendable {
        let iterations: Int
        let body: @Sendable (Int) -> Void
        /// The next iteration to take and how many are done.
        let progress = Mutex((next: 0, done: 0))
        /// Signalled once, by whoever finishes the last iteration.
        let finished = DispatchSemaphore(value: 0)

        init(iterations: Int, body: @escaping @Sendable (Int) -> Void) {
            self.iterations = iterations
            self.body = body
        }

        func work() {
            while true {
                let taken: Int? = progress.withLock { state in
                    guard state.next < iterations else { return nil }
                    state.next += 1
                    return state.next - 1
                }
                guard let taken else { return }
                body(taken)
                if progress.withLock({ state in
                    state.done += 1
                    return state.done == iterations
                }) {
                    finished.signal()
                }
            }
        }
    }
}
