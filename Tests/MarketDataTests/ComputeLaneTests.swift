import Foundation
import Synchronization
import Testing

@testable import MarketData

@Suite("The compute lane keeps model work off the request threads")
struct ComputeLaneTests {
    /// Waits for `body` at most `seconds`; false when it did not finish by then. Only a hang gets there: the work
    /// takes milliseconds, but in the whole suite it queues behind every other test's model work on the lane (seen:
    /// minutes, beside two busy processes).
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
        let done = await finishes(within: 900) {
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
    }

    @Test("run hands back the work's value or its error")
    func runReturnsAndThrows() async throws {
        #expect(await ComputeLane.run { (1...100).reduce(0, +) } == 5050)
        await #expect(throws: Refused.self) {
            try await ComputeLane.run { () throws(Refused) -> Int in throw Refused() }
        }
    }

    #if os(Linux)
        /// The kernel's name of the calling thread (dispatch names a worker after its root queue, e.g.
        /// "com.apple.root.default-qos", of which the kernel keeps the last 15 characters).
        static func threadName() -> String {
            ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        @Test("model work runs on threads of its own, never on those tasks (and so requests) run on")
        func laneThreadsAreNotTaskThreads() async {
            var lane: Set<String> = []
            var tasks: Set<String> = []
            for _ in 0..<4 {
                lane.insert(await ComputeLane.run { Self.threadName() })
                let shared = Shared()
                let helpers = Mutex<Set<String>>([])
                let names = await ComputeLane.run {
                    ComputeLane.parallel(64) { _ in
                        let name = Self.threadName()
                        helpers.withLock { _ = $0.insert(name) }
                        shared.total.withLock { $0 += 1 }
                    }
                    return helpers.withLock { $0 }
                }
                lane.formUnion(names)
                tasks.insert(await Task.detached { Self.threadName() }.value)
                // And the priorities the server's own tasks use (the checkpointer's, the warm-up's). High-priority
                // tasks would share the lane's threads: the server makes none.
                tasks.insert(await Task.detached(priority: .utility) { Self.threadName() }.value)
                tasks.insert(await Task.detached(priority: .background) { Self.threadName() }.value)
            }
            #expect(!lane.isEmpty && !tasks.isEmpty)
            #expect(lane.isDisjoint(with: tasks), "lane threads \(lane), task threads \(tasks)")
        }
    #endif
}
