import Synchronization
import TradingCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where "now" comes from for the market and the engine.
///
/// - realtime: the wall clock; sessions follow the exchange calendars.
/// - alwaysOpen: the wall clock, with a market that trades every minute (demos, tests).
/// - replay: time starts at a past instant and runs `speed` times faster than the wall clock.
/// - manual: time moves only when a test calls `advance` or `set`.
public final class MarketClock: Sendable {
    public enum Mode: Sendable, Hashable {
        case realtime
        case alwaysOpen
        case replay(start: Timestamp, speed: Int)
        case manual(start: Timestamp)
    }

    public let mode: Mode
    private let wallStart: Timestamp
    private let manual: Mutex<ManualState>

    struct ManualState: Sendable {
        var now: Timestamp
        var waiters: [(id: Int, until: Timestamp, continuation: CheckedContinuation<Void, Never>)] = []
        var nextID = 0
    }

    public init(_ mode: Mode) {
        self.mode = mode
        wallStart = Self.wallClock()
        if case .manual(let start) = mode {
            manual = Mutex(ManualState(now: start))
        } else {
            manual = Mutex(ManualState(now: .distantPast))
        }
    }

    /// Whether the clock moves only when told (`advance`, `set`).
    public var isManual: Bool {
        if case .manual = mode { return true }
        return false
    }

    /// The session policy the market and engine should use with this clock.
    public var sessions: EngineConfiguration.SessionPolicy { mode == .alwaysOpen ? .alwaysOpen : .exchangeCalendars }

    public func now() -> Timestamp {
        switch mode {
        case .realtime, .alwaysOpen:
            return Self.wallClock()
        case .replay(let start, let speed):
            let elapsed = Self.wallClock().nanoseconds - wallStart.nanoseconds
            return start.adding(nanoseconds: elapsed.multipliedReportingOverflow(by: Int64(max(speed, 1))).partialValue)
        case .manual:
            return manual.withLock { $0.now }
        }
    }

    /// How many sleepers a manual clock holds (tests wait for theirs to be registered).
    public var waiting: Int { manual.withLock { $0.waiters.count } }

    /// Moves a manual clock forward (no effect on other modes) and wakes sleepers whose time has come.
    public func advance(by nanoseconds: Int64) {
        guard case .manual = mode else { return }
        set(manual.withLock { $0.now }.adding(nanoseconds: max(0, nanoseconds)))
    }

    /// Sets a manual clock (never backwards).
    public func set(_ time: Timestamp) {
        guard case .manual = mode else { return }
        let ready = manual.withLock { state -> [CheckedContinuation<Void, Never>] in
            if time > state.now { state.now = time }
            let now = state.now
            let due = state.waiters.filter { $0.until <= now }
            state.waiters.removeAll { $0.until <= now }
            return due.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Suspends until the clock reads `time` (a manual clock waits for `advance`). Returns early if the task
    /// is cancelled.
    public func sleep(until time: Timestamp) async {
        switch mode {
        case .realtime, .alwaysOpen:
            let delta = time.nanoseconds - now().nanoseconds
            if delta > 0 { try? await Task.sleep(for: .nanoseconds(delta)) }
        case .replay(_, let speed):
            let delta = (time.nanoseconds - now().nanoseconds) / Int64(max(speed, 1))
            if delta > 0 { try? await Task.sleep(for: .nanoseconds(delta)) }
        case .manual:
            // The waiter's id is taken first, so a cancellation wakes this sleeper alone. (Cancellation is flagged
            // before its handler runs: if the handler finds nothing yet, the registration below sees the flag.)
            let id = manual.withLock { state -> Int in
                defer { state.nextID += 1 }
                return state.nextID
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = manual.withLock { state -> Bool in
                        if state.now >= time || Task.isCancelled { return true }
                        state.waiters.append((id, time, continuation))
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let mine = manual.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard let k = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: k).continuation
                }
                mine?.resume()
            }
        }
    }

    /// Nanoseconds since the epoch from the system's real-time clock.
    static func wallClock() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}
