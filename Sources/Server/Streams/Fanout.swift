import MarketData
import Synchronization
import TradingCore

/// What a fan-out listener follows. The hub compares it round to round to find what a listener has just started to
/// follow (sent whole, as a stream sends a new subscription's first quote), and groups listeners that follow the
/// same: their frames are made once.
protocol FanoutInterest: Hashable, Sendable {
    /// Nothing followed.
    static var nothing: Self { get }
    /// What `self` follows that `before` did not.
    func added(since before: Self) -> Self
    /// Whether it follows nothing.
    var isEmpty: Bool { get }
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

/// The listeners of one live stream, served by a few tasks a second — not a task, a market read and an encoding per
/// listener. A classroom of 10,000 phones on twenty watchlists costs a few hundred frames a second to make, and one
/// write each to send (issue 62: before, each connection read its own quotes and encoded its own messages every
/// second, and past a few thousand connections the server fell seconds behind).
///
/// Listeners are dealt round-robin to `lanes` lanes whose rounds fall at even steps through the second (ten: one
/// every 100 ms). A round's quotes are stamped when it reads them, and its listeners are written to at once, so a
/// quote's delay is the time to serve one lane — a tenth of the listeners — not all of them: at 10,000 listeners on
/// two cores one round for all took ~150 ms to reach the last (`benchmarks/fanout/run.sh`).
///
/// A subscription is served at once (`subscribed()` wakes the lane for a round of what is new, and nothing else):
/// a new follower sees the quote without waiting for the second, and a symbol nobody followed has a first quote to
/// compare the next with (with a manual clock the next round may be far off).
///
/// Each listener has a mailbox of `mailboxFrames`; a listener that lets it fill (its client reads slower than the
/// market moves) is dropped — its `frames` end — rather than held in memory without bound: its connection says so
/// and closes (Alpaca's stream: 407 "slow client"). A lane's task runs while anyone in it listens.
final class Fanout<Round: FanoutRound>: Sendable {
    typealias Interest = Round.Interest
    typealias Frame = Round.Frame

    /// A listener's frames, until it leaves or falls behind.
    struct Listener: Sendable {
        let id: Int
        let lane: Int
        let frames: AsyncStream<Frame>
    }

    private let lanes: [FanoutLane<Round>]
    private let dealt = Mutex(0)

    /// `makeRound` starts a lane's memory (the last quotes sent) when its first listener arrives.
    init(
        clock: MarketClock, lanes count: Int = 10, mailboxFrames: Int, round makeRound: @escaping @Sendable () -> Round
    ) {
        let step = 1_000_000_000 / Int64(max(count, 1))
        lanes = (0..<max(count, 1)).map {
            FanoutLane(
                index: $0, phase: Int64($0) * step, clock: clock, mailboxFrames: mailboxFrames, round: makeRound)
        }
    }

    /// Listens from its lane's next round on; `interest` is read each round (the connection changes it as it goes,
    /// and calls `subscribed(_:)` when it grows).
    func join(_ interest: @escaping @Sendable () -> Interest) -> Listener {
        let lane = dealt.withLock { n in
            defer { n += 1 }
            return n % lanes.count
        }
        return lanes[lane].join(interest)
    }

    func leave(_ listener: Listener) { lanes[listener.lane].leave(listener) }

    /// `listener`'s interest grew: its lane serves what is new at once.
    func subscribed(_ listener: Listener) { lanes[listener.lane].subscribed() }

    /// How many listen now.
    var count: Int { lanes.reduce(0) { $0 + $1.count } }
}

/// One lane of a `Fanout`: its listeners, and the task that serves them once a second at the lane's phase.
final class FanoutLane<Round: FanoutRound>: Sendable {
    typealias Interest = Round.Interest
    typealias Frame = Round.Frame

    typealias Listener = Fanout<Round>.Listener

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
    let index: Int
    /// Where in each second this lane's rounds fall.
    let phase: Int64

    init(
        index: Int, phase: Int64, clock: MarketClock, mailboxFrames: Int,
        round makeRound: @escaping @Sendable () -> Round
    ) {
        (self.index, self.phase) = (index, phase)
        self.clock = clock
        self.mailboxFrames = mailboxFrames
        self.makeRound = makeRound
    }

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
        return Listener(id: id, lane: index, frames: frames)
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

    var count: Int { state.withLock { $0.members.count } }

    private struct Group: Hashable {
        var interest: Interest
        var fresh: Interest
    }

    private func run() async {
        var round = makeRound()
        // The lane's first round at its phase of the second.
        let now = clock.now().nanoseconds
        var next = Timestamp(nanoseconds: now - now % 1_000_000_000 + phase)
        if next <= clock.now() { next = next.adding(seconds: 1) }
        var freshOnly = true
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
                if freshOnly && fresh.isEmpty { continue }
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
                while next <= clock.now() { next = next.adding(seconds: 1) }
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
