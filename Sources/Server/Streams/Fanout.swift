import MarketData
import Synchronization

/// What a fan-out listener follows. The hub compares it round to round to find what a listener has just started to
/// follow (sent whole, as a stream sends a new subscription's first quote), and groups listeners that follow the
/// same: their frames are made once.
protocol FanoutInterest: Hashable, Sendable {
    /// Nothing followed.
    static var nothing: Self { get }
    /// What `self` follows that `before` did not.
    func added(since before: Self) -> Self
}

/// One stream's second, done once for all its listeners: `prepare` asks the market once for everything any listener
/// follows and encodes each message once; `frames` then assembles one group's frames from those messages.
protocol FanoutRound: Sendable {
    associatedtype Interest: FanoutInterest
    associatedtype Frame: Sendable

    /// Reads the market for the listeners' `interests`; `fresh` is what some of them started following since the
    /// last round (their whole current state goes out, changed or not). A round run at once for new subscriptions
    /// (`freshOnly`) reads and encodes only `fresh`, and leaves what the others are told of changes to the next full
    /// round — it only records where a symbol nobody followed stands, so the next round can tell what changed.
    mutating func prepare(_ interests: Set<Interest>, fresh: Set<Interest>, freshOnly: Bool) async
    /// The frames of this round for the listeners following `interest`, `fresh` of it new to them (nothing to send:
    /// none).
    func frames(_ interest: Interest, fresh: Interest) -> [Frame]
}

/// The listeners of one live stream, served by one task a second — not a task, a market read and an encoding per
/// listener. A classroom of 10,000 phones on twenty watchlists costs twenty frames a second to make, and one write
/// each to send (issue 62: before, each connection read its own quotes and encoded its own messages every second).
///
/// A subscription is served at once (`subscribed()` wakes the task for a round of what is new, and nothing else):
/// a new follower sees the quote without waiting for the second, and a symbol nobody followed has a first quote to
/// compare the next with (with a manual clock the next round may be far off).
///
/// Each listener has a mailbox of `mailboxFrames`; a listener that lets it fill (its client reads slower than the
/// market moves) is dropped — its `frames` end — rather than held in memory without bound: its connection says so
/// and closes (Alpaca's stream: 407 "slow client"). The task runs while anyone listens and stops with the last.
final class Fanout<Round: FanoutRound>: Sendable {
    typealias Interest = Round.Interest
    typealias Frame = Round.Frame

    /// A listener's frames, until it leaves or falls behind.
    struct Listener: Sendable {
        let id: Int
        let frames: AsyncStream<Frame>
    }

    private struct Member {
        let interest: @Sendable () -> Interest
        /// What the listener followed at the last round it was served (so the next knows what is new to it).
        var served: Interest
        let mailbox: AsyncStream<Frame>.Continuation
    }

    private struct State {
        var members: [Int: Member] = [:]
        var nextID = 0
        var running = false
    }

    private let state = Mutex(State())
    /// A subscription came while the task slept: `pending`, or the task waiting for one.
    private let alarm = Mutex<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    private let clock: MarketClock
    private let makeRound: @Sendable () -> Round
    let mailboxFrames: Int

    /// `makeRound` starts a round's memory (the last quotes sent) when the first listener arrives.
    init(clock: MarketClock, mailboxFrames: Int, round makeRound: @escaping @Sendable () -> Round) {
        self.clock = clock
        self.mailboxFrames = mailboxFrames
        self.makeRound = makeRound
    }

    /// Listens from the next round on; `interest` is read each round (the connection changes it as it goes, and
    /// calls `subscribed()` when it grows).
    func join(_ interest: @escaping @Sendable () -> Interest) -> Listener {
        let (frames, mailbox) = AsyncStream<Frame>.makeStream(bufferingPolicy: .bufferingOldest(mailboxFrames))
        let (id, start) = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.members[id] = Member(interest: interest, served: .nothing, mailbox: mailbox)
            defer { s.running = true }
            return (id, !s.running)
        }
        if start { Task { await run() } }
        return Listener(id: id, frames: frames)
    }

    /// A listener's interest grew: the task serves what is new at once.
    func subscribed() {
        alarm.withLock { a -> CheckedContinuation<Void, Never>? in
            a.pending = true
            defer { a.waiter = nil }
            return a.waiter
        }?.resume()
    }

    /// Returns once `subscribed()` has been called since the task last took the alarm, or on cancellation.
    private func nextSubscription() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = alarm.withLock { a -> Bool in
                    if a.pending || Task.isCancelled { return true }
                    a.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            alarm.withLock { a -> CheckedContinuation<Void, Never>? in
                defer { a.waiter = nil }
                return a.waiter
            }?.resume()
        }
    }

    func leave(_ listener: Listener) {
        state.withLock { $0.members.removeValue(forKey: listener.id) }?.mailbox.finish()
    }

    /// How many listen now.
    var count: Int { state.withLock { $0.members.count } }

    private struct Group: Hashable {
        var interest: Interest
        var fresh: Interest
    }

    private func run() async {
        var round = makeRound()
        var next = clock.now()
        var freshOnly = false
        while true {
            // (The interests are read outside the hub's lock: each takes its connection's.)
            guard
                let members = state.withLock({ s -> [(Int, Member)]? in
                    guard !s.members.isEmpty else {
                        s.running = false
                        return nil
                    }
                    return Array(s.members)
                })
            else { return }
            var groups: [Group: [AsyncStream<Frame>.Continuation]] = [:]
            var served: [(Int, Interest)] = []
            served.reserveCapacity(members.count)
            for (id, member) in members {
                let interest = member.interest()
                let fresh = interest.added(since: member.served)
                if freshOnly && fresh == .nothing { continue }
                groups[Group(interest: interest, fresh: fresh), default: []].append(member.mailbox)
                served.append((id, interest))
            }
            if !groups.isEmpty {
                await round.prepare(
                    Set(groups.keys.map(\.interest)), fresh: Set(groups.keys.map(\.fresh)), freshOnly: freshOnly)
                deliver(groups, round)
                state.withLock { s in
                    for (id, interest) in served { s.members[id]?.served = interest }
                }
            }
            if !freshOnly {
                // A round that ran past its second (a busy machine) is not made up for with rounds back to back.
                next = max(next.adding(seconds: 1), clock.now())
            }
            // Until the next second, or a subscription before it.
            await withTaskGroup(of: Void.self) { sleep in
                sleep.addTask { [clock, next] in await clock.sleep(until: next) }
                sleep.addTask { await self.nextSubscription() }
                await sleep.next()
                sleep.cancelAll()
            }
            freshOnly = alarm.withLock { a in
                defer { a.pending = false }
                return a.pending
            }
        }
    }

    /// Puts each group's frames in its listeners' mailboxes; a listener whose mailbox is full is dropped.
    private func deliver(_ groups: [Group: [AsyncStream<Frame>.Continuation]], _ round: Round) {
        var slow: [AsyncStream<Frame>.Continuation] = []
        for (group, mailboxes) in groups {
            let frames = round.frames(group.interest, fresh: group.fresh)
            for mailbox in mailboxes {
                for frame in frames {
                    if case .dropped = mailbox.yield(frame) {
                        slow.append(mailbox)
                        break
                    }
                }
            }
        }
        for mailbox in slow { mailbox.finish() }
    }
}
