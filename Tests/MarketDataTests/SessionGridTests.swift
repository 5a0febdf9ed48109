import Testing
import TradingCore

@testable import MarketData

@Suite("Session grid: where a time falls among the trading minutes")
struct SessionGridTests {
    /// The position by the minutes themselves: the last minute start at or before `time`.
    func reference(_ grid: SessionGrid, _ time: Timestamp, on date: CivilDate) -> (minutes: Int, fraction: Double)? {
        let starts = grid.minuteStarts(on: date)
        guard let k = starts.lastIndex(where: { $0 <= time }) else { return nil }
        let into = time.nanoseconds - starts[k].nanoseconds
        return into >= 60_000_000_000 ? (k + 1, 0) : (k, Double(into) / 60e9)
    }

    @Test(
        "elapsed agrees with the minutes at every 37th second of whole days: New York, Shanghai (lunch and closing auction), a half day, a holiday, always open",
        arguments: [
            (Market.us, CivilDate(2026, 11, 20)), (Market.us, CivilDate(2026, 11, 27)),
            (Market.us, CivilDate(2026, 11, 26)), (Market.cn, CivilDate(2026, 11, 20)),
            (Market.cn, CivilDate(2026, 10, 1)),
        ])
    func elapsedMatchesTheMinutes(market: Market, date: CivilDate) {
        for policy in [EngineConfiguration.SessionPolicy.exchangeCalendars, .alwaysOpen] {
            let grid = SessionGrid(market: market, policy: policy)
            #expect(grid.minuteCount(on: date) == grid.minuteStarts(on: date).count)
            let midnight = Timestamp(date, in: market.calendar.zone)
            var mismatches = 0
            for second in stride(from: 0, to: 86_400, by: 37) {
                let time = midnight.adding(seconds: Int64(second))
                let got = grid.elapsed(at: time, on: date), want = reference(grid, time, on: date)
                if got?.minutes != want?.minutes || abs((got?.fraction ?? 0) - (want?.fraction ?? 0)) > 1e-12 {
                    mismatches += 1
                }
            }
            #expect(mismatches == 0, "\(market) \(date) \(policy)")
        }
    }
}
