import MarketData
import NIOCore
import Synchronization
import Testing
import TradingCore

@testable import Server

/// The fan-out hub on a manual clock: each round's frames are made once per group of listeners that follow the same,
/// a new subscription is served without waiting for the second, and a listener that stops reading is dropped while
/// the others are still served.
@Suite("Quote fan-out")
struct FanoutTests {
    /// The symbols a test listener follows.
    struct Watch: FanoutInterest, ExpressibleByArrayLiteral {
        var symbols: Set<String>
        init(_ symbols: Set<String>) { self.symbols = symbols }
        init(arrayLiteral symbols: String...) { self.symbols = Set(symbols) }
        static var nothing: Watch { [] }
        var isEmpty: Bool { symbols.isEmpty }
        func added(since before: Watch) -> Watch { Watch(symbols.subtracting(before.symbols)) }
    }

    /// A round that says which round it is, what the group follows and what is new to it.
    struct EchoRound: FanoutRound {
        let calls: CallLog
        var number = 0
        var freshOnly = false

        mutating func prepare(_ interests: Set<Watch>, fresh: Set<Watch>, freshOnly: Bool) async {
            number += 1
            self.freshOnly = freshOnly
        }

        func frames(_ interest: Watch, fresh: Watch) -> [String] {
            calls.count()
            if freshOnly && fresh.isEmpty { return [] }
            let all = interest.symbols.sorted().joined(separator: ",")
            return ["\(number): \(all) new \(fresh.symbols.sorted().joined(separator: ","))"]
        }
    }

    final class CallLog: Sendable {
        let frames = Mutex(0)
        func count() { frames.withLock { $0 += 1 } }
    }

    /// The next frame within 10 s (nil: none came, or the frames ended).
    static func next(_ frames: AsyncStream<String>.AsyncIterator) async -> (String?, AsyncStream<String>.AsyncIterator)
    {
        nonisolated(unsafe) var iterator = frames
        let frame = await withTaskGroup(of: String?.self) { group in
            group.addTask { await iterator.next() }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        return (frame, iterator)
    }

    let start = Timestamp(nanoseconds: 1_764_900_000 * 1_000_000_000)

    @Test("listeners following the same share one frame a round; a new one is served at once, before the second")
    func sharedAndFresh() async {
        let clock = MarketClock(.manual(start: start))
        let calls = CallLog()
        let fanout = Fanout(clock: clock, lanes: 1, mailboxFrames: 8) { EchoRound(calls: calls) }
        let watchlist = Mutex<Watch>(["AAPL", "MSFT"])
        let a = fanout.join { watchlist.withLock { $0 } }
        fanout.subscribed(a)
        var (frame, aFrames) = await Self.next(a.frames.makeAsyncIterator())
        #expect(frame?.hasSuffix("AAPL,MSFT new AAPL,MSFT") == true, "served at once: \(frame ?? "nothing")")

        let b = fanout.join { watchlist.withLock { $0 } }
        fanout.subscribed(b)
        var (first, bFrames) = await Self.next(b.frames.makeAsyncIterator())
        #expect(first?.hasSuffix("AAPL,MSFT new AAPL,MSFT") == true, "\(first ?? "nothing")")

        // A full round: both get the same frame, made once for the two.
        let before = calls.frames.withLock { $0 }
        clock.advance(by: 1_000_000_000)
        (frame, aFrames) = await Self.next(aFrames)
        (first, bFrames) = await Self.next(bFrames)
        #expect(
            frame != nil && frame == first && frame?.hasSuffix("AAPL,MSFT new ") == true,
            "\(frame ?? "-") \(first ?? "-")")
        #expect(calls.frames.withLock { $0 } - before == 1)

        // The watchlist grows: what is new goes out at once, and only to its followers.
        watchlist.withLock { _ = $0.symbols.insert("NVDA") }
        fanout.subscribed(a)
        (frame, aFrames) = await Self.next(aFrames)
        #expect(frame?.hasSuffix("AAPL,MSFT,NVDA new NVDA") == true, "\(frame ?? "nothing")")
        fanout.leave(a)
        fanout.leave(b)
        #expect(fanout.count == 0)
    }

    @Test("a listener that stops reading is dropped once its mailbox is full; the others are still served")
    func slowListenerDropped() async {
        let clock = MarketClock(.manual(start: start))
        let fanout = Fanout(clock: clock, lanes: 1, mailboxFrames: 3) { EchoRound(calls: CallLog()) }
        let reader = fanout.join { ["AAPL"] }
        let sleeper = fanout.join { ["AAPL"] }
        fanout.subscribed(reader)
        var (frame, frames) = await Self.next(reader.frames.makeAsyncIterator())
        #expect(frame != nil)
        for _ in 0..<6 {
            clock.advance(by: 1_000_000_000)
            (frame, frames) = await Self.next(frames)
            #expect(frame != nil, "the reader is served every round")
        }
        // The sleeper's mailbox kept the first three frames; the fourth did not fit, and its frames ended.
        var kept: [String] = []
        for await frame in sleeper.frames { kept.append(frame) }
        #expect(kept.count == 3, "\(kept)")
        fanout.leave(reader)
        fanout.leave(sleeper)
    }

    @Test("lanes serve at their own phase of the second, and listeners are dealt to them in turn")
    func lanes() async {
        let clock = MarketClock(.manual(start: start))
        let fanout = Fanout(clock: clock, lanes: 2, mailboxFrames: 8) { EchoRound(calls: CallLog()) }
        let first = fanout.join { ["AAPL"] }
        let second = fanout.join { ["AAPL"] }
        #expect(first.lane == 0 && second.lane == 1)
        fanout.subscribed(first)
        fanout.subscribed(second)
        var (a, aFrames) = await Self.next(first.frames.makeAsyncIterator())
        var (b, bFrames) = await Self.next(second.frames.makeAsyncIterator())
        #expect(a != nil && b != nil)
        // Half a second on: the second lane's round (its phase), not the first's.
        clock.advance(by: 500_000_000)
        (b, bFrames) = await Self.next(bFrames)
        #expect(b?.hasSuffix("AAPL new ") == true, "\(b ?? "nothing")")
        clock.advance(by: 500_000_000)
        (a, aFrames) = await Self.next(aFrames)
        #expect(a?.hasSuffix("AAPL new ") == true, "\(a ?? "nothing")")
        _ = (aFrames, bFrames)
        fanout.leave(first)
        fanout.leave(second)
    }
}
