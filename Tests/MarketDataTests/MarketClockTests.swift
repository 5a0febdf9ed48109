import MarketData
import Synchronization
import Testing
import TradingCore

@Suite("Clock modes and live quotes")
struct MarketClockTests {
    @Test("manual clock moves only when advanced; replay runs faster than the wall clock")
    func modes() async {
        let start = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)
        let manual = MarketClock(.manual(start: start))
        #expect(manual.now() == start)
        manual.advance(by: 5 * Duration64.second)
        #expect(manual.now() == start.adding(seconds: 5))
        manual.set(start) // never backwards
        #expect(manual.now() == start.adding(seconds: 5))

        let replay = MarketClock(.replay(start: start, speed: 600))
        try? await Task.sleep(for: .milliseconds(50))
        let elapsed = replay.now().nanoseconds - start.nanoseconds
        #expect(elapsed >= 25 * Duration64.second) // 50 ms × 600 = 30 s
        #expect(MarketClock(.alwaysOpen).sessions == .alwaysOpen)
        #expect(MarketClock(.realtime).now() > Timestamp(CivilDate(2026, 1, 1), in: .utc))
    }

    @Test("on a manual clock, a cancelled sleeper wakes alone: the others sleep on until the clock reaches them")
    func cancellationWakesOneSleeper() async throws {
        let start = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)
        let clock = MarketClock(.manual(start: start))
        let woke = Woken()
        let later = start.adding(seconds: 60)
        let cancelled = Task {
            await clock.sleep(until: later)
            woke.names.withLock { $0.append("cancelled") }
        }
        let sleeping = Task {
            await clock.sleep(until: later)
            woke.names.withLock { $0.append("sleeping") }
        }
        // Both registered as waiters before one is cancelled (a sleeper not yet waiting would return at once).
        while clock.waiting < 2 { await Task.yield() }
        cancelled.cancel()
        await cancelled.value
        try await Task.sleep(for: .milliseconds(100))
        #expect(woke.names.withLock { $0 } == ["cancelled"], "the other sleeper's time has not come")
        #expect(clock.waiting == 1)
        clock.advance(by: 60 * Duration64.second)
        await sleeping.value
        #expect(woke.names.withLock { $0 } == ["cancelled", "sleeping"])
    }

    @Test("live quotes arrive as the manual clock advances, one per changed symbol")
    func liveQuotes() async throws {
        let market = SimulatedMarket(directory: try SymbolDirectory.bundled())
        let start = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)
        let clock = MarketClock(.manual(start: start))
        let stream = market.liveQuotes(["AAPL", "MSFT"], clock: clock, interval: 60 * Duration64.second)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(Set([first?.symbol, second?.symbol]) == ["AAPL", "MSFT"])
        #expect(first?.time == start)
        clock.advance(by: 60 * Duration64.second)
        let third = await iterator.next()
        #expect(third?.time == start.adding(seconds: 60))
        #expect(third == market.quote(third!.symbol, at: start.adding(seconds: 60)))
    }
}

/// Which sleepers have woken, in order.
final class Woken: Sendable {
    let names = Mutex<[String]>([])
}
