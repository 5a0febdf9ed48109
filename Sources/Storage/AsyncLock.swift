import Synchronization

/// A FIFO lock for async code: one holder at a time (a transaction on a connection, a market pump), later callers
/// wait their turn without blocking a thread.
public final class AsyncLock: Sendable {
    private let state = Mutex<(locked: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    public func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { s -> Bool in
                if !s.locked {
                    s.locked = true
                    return true
                }
                s.waiters.append(continuation)
                return false
            }
            if acquired { continuation.resume() }
        }
    }

    /// Hands the lock to the next waiter, or unlocks it.
    public func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty {
                s.locked = false
                return nil
            }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }
}
