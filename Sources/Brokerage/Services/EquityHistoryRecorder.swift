import ServiceLifecycle
import TradingCore

/// Keeps every account's performance history current: a few minutes after each market's close it brings the
/// daily closes of that market's accounts up to date (`Brokerage.catchUpEquityDays`), so the history moves with
/// the ledger instead of being rebuilt when someone asks. A performance request catches up by itself too (after
/// a restart, or on a manual clock), so the recorder is what keeps requests cheap, not what makes them right.
public struct EquityHistoryRecorder: Service {
    let brokerage: Brokerage
    /// How long after the close to record, so the day's closing bars are final.
    let delay: Int64

    public init(brokerage: Brokerage, delay: Int64 = 5 * Duration64.minute) {
        self.brokerage = brokerage
        self.delay = delay
    }

    public func run() async throws {
        let clock = brokerage.clock
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let now = clock.now()
                let next = Market.allCases.map { Self.nextRecording(after: now, market: $0, delay: delay) }
                guard let due = next.min(by: { $0.time < $1.time }) else { return }
                await clock.sleep(until: due.time)
                guard !Task.isCancelled else { return }
                await record(due.market)
            }
        }
    }

    /// Catches up every account of `market` (one failing does not stop the others).
    func record(_ market: Market) async {
        guard let accounts = try? await brokerage.allAccounts() else { return }
        for account in accounts where account.market == market {
            guard !Task.isCancelled else { return }
            _ = try? await brokerage.catchUpEquityDays(account.id)
        }
    }

    /// The first close + delay of `market` after `now`.
    static func nextRecording(after now: Timestamp, market: Market, delay: Int64) -> (time: Timestamp, market: Market) {
        let calendar = market.calendar
        var day = calendar.zone.localTime(of: now).date
        for _ in 0..<30 {
            if let close = calendar.schedule(on: day)?.close.adding(nanoseconds: delay), close > now {
                return (close, market)
            }
            day = calendar.nextTradingDay(after: day)
        }
        return (now.adding(nanoseconds: Duration64.day), market)
    }
}
