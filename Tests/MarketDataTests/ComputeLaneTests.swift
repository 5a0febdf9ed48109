import Foundation
import Synchronization
import Testing

@testable import MarketData

@Suite("The compute lane keeps model work off the request threads")
struct ComputeLaneTests {
    /// Waits for `body` at most `seconds`; false when it did not finish by then (a hang, not a slow machine: the
    /// work here takes milliseconds).
    func finishes(within seconds: Int, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await body()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    @Test("parallel calls the body once for each iteration, none for zero")
    func parallelCoversEveryIteration() {
        for count in [0, 1, 2, 3, 17, 1000] {
            let seen = Mutex([Int](repeating: 0, count: count))
            ComputeLane.parallel(count) { i in seen.withLock { $0[i] += 1 } }
            #expect(seen.withLock { $0 } == [Int](repeating: 1, count: count), "\(count) iterations")
        }
    }

    @Test("parallel inside every lane thread at once still finishes (the caller works; no thread waits on a queue)")
    func nestedParallelFinishes() async {
        let jobs = ProcessInfo.processInfo.activeProcessorCount * 4
        let shared = Shared()
        let done = await finishes(within: 120) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<jobs {
                    group.addTask {
                        await ComputeLane.run {
                            ComputeLane.parallel(64) { i in shared.total.withLock { $0 += i } }
                        }
                    }
                }
            }
        }
        #expect(done)
        #expect(shared.total.withLock { $0 } == jobs * (0..<64).reduce(0, +))
    }

    struct Refused: Error, Equatable {}

    /// Shared state the closures below capture (a `Mutex` or an `Atomic` cannot be captured itself).
    final class Shared: Sendable {
        let total = Mutex(0)
        let release = Atomic(false)
        let started = Atomic(0)
        let timedOut = Atomic(false)
    }

    @Test("run hands back the work's value or its error")
    func runReturnsAndThrows() async throws {
        #expect(await ComputeLane.run { (1...100).reduce(0, +) } == 5050)
        await #expect(throws: Refused.self) {
            try await ComputeLane.run { () throws(Refused) -> Int in throw Refused() }
        }
    }

    @Test("a task is served while the lane's every thread computes")
    func tasksRunBesideABusyLane() async throws {
        let shared = Shared()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // A thread outside every pool ends the spinning after 60 s whatever happens, so a failure fails rather than
        // hangs: on the pool tasks run on, the spinners would hold every thread and nothing below could run.
        Thread {
            let deadline = Date().addingTimeInterval(60)
            while !shared.release.load(ordering: .acquiring) && Date() < deadline { usleep(1000) }
            if !shared.release.load(ordering: .acquiring) { shared.timedOut.store(true, ordering: .releasing) }
            shared.release.store(true, ordering: .releasing)
        }.start()
        // Twice as many spinning jobs as the lane has threads.
        let lane = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<cores * 2 {
                    group.addTask {
                        await ComputeLane.run {
                            shared.started.add(1, ordering: .sequentiallyConsistent)
                            while !shared.release.load(ordering: .acquiring) {}
                        }
                    }
                }
            }
        }
        // Every lane thread spins; then a new task asks for a thread and ends the spinning.
        while shared.started.load(ordering: .acquiring) < cores && !shared.release.load(ordering: .acquiring) {
            try await Task.sleep(for: .milliseconds(1))
        }
        await Task.detached { shared.release.store(true, ordering: .releasing) }.value
        await lane.value
        let waited = shared.timedOut.load(ordering: .acquiring)
        #expect(!waited, "tasks waited for the lane's model work to finish")
    }
}
