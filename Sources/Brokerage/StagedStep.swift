import Synchronization
import TradingCore

/// One engine step queued for storage: told by the journal writer whether it committed; `durable()` waits for that.
/// Any number of tasks may wait on one step: the request that made it and a shutdown's flush often do at once.
final class StagedStep: Sendable {
    private enum State {
        case pending(waiters: [CheckedContinuation<Void, any Error>])
        case done(Result<Void, any Error>)
    }

    private let state = Mutex<State>(.pending(waiters: []))

    /// Whether the step has committed (false while pending, and after a failed write).
    var isDurable: Bool {
        state.withLock { if case .done(.success) = $0 { true } else { false } }
    }

    /// How many tasks wait on the step now.
    var waiting: Int {
        state.withLock { if case .pending(let waiters) = $0 { waiters.count } else { 0 } }
    }

    /// Records the write's outcome and wakes every waiter; a second outcome is ignored.
    func complete(_ result: Result<Void, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .pending(let waiters) = state else { return [] }
            state = .done(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Returns once the step has committed; throws what the write threw.
    func durable(isolation: isolated (any Actor)? = #isolation) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let result = state.withLock { state -> Result<Void, any Error>? in
                switch state {
                case .done(let result): return result
                case .pending(var waiters):
                    waiters.append(continuation)
                    state = .pending(waiters: waiters)
                    return nil
                }
            }
            if let result { continuation.resume(with: result) }
        }
    }
}

/// Who listens to order updates (per account, or all) and notifications (per user). Published from the journal
/// writer's task as steps become durable, so it is shared state behind a lock rather than the actor's.
final class UpdateStreams: Sendable {
    private struct Subscribers {
        var orders: [Int: (account: AccountID?, continuation: AsyncStream<OrderUpdate>.Continuation)] = [:]
        var notifications: [Int: (user: UserID, continuation: AsyncStream<NotificationRecord>.Continuation)] = [:]
        var next = 0
    }

    private let subscribers = Mutex(Subscribers())

    func orderUpdates(account: AccountID?) -> AsyncStream<OrderUpdate> {
        let (stream, continuation) = AsyncStream<OrderUpdate>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = subscribers.withLock { s in
            s.next += 1
            s.orders[s.next] = (account, continuation)
            return s.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.orders.removeValue(forKey: id) }
        }
        return stream
    }

    func notifications(for user: UserID) -> AsyncStream<NotificationRecord> {
        let (stream, continuation) = AsyncStream<NotificationRecord>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = subscribers.withLock { s in
            s.next += 1
            s.notifications[s.next] = (user, continuation)
            return s.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.notifications.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether anyone listens to order updates or notifications (a cluster node reads other nodes' events only then).
    var hasSubscribers: Bool {
        subscribers.withLock { !$0.orders.isEmpty || !$0.notifications.isEmpty }
    }

    func publish(_ update: OrderUpdate) {
        let targets = subscribers.withLock { s in
            s.orders.values.filter { $0.account == nil || $0.account == update.order.accountID }.map(\.continuation)
        }
        for continuation in targets { continuation.yield(update) }
    }

    func publish(_ notification: NotificationRecord) {
        let targets = subscribers.withLock { s in
            s.notifications.values.filter { $0.user == notification.userID }.map(\.continuation)
        }
        for continuation in targets { continuation.yield(notification) }
    }
}
