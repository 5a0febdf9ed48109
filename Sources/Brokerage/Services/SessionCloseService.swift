import ServiceLifecycle
import TradingCore

/// Runs the end of each US session: a minute after the close it settles the option positions that expired
/// (`Brokerage.settleExpiredOptions`), assigns the written contracts holders would exercise early
/// (`Brokerage.assignEarly`), then charges margin accounts the night's interest and checks maintenance margin
/// (`Brokerage.closeMarginDay`); during the session it looks once a minute for accounts so far below maintenance that
/// they are liquidated at once (`checkMarginThreshold`) and, in an expiration day's last 45 minutes, for expiring
/// options in the money that their accounts could not exercise (`sellOutUncarriedOptions`). At start it settles the last close, so a server that was
/// down at a close still settles and charges it (once: expired positions are gone, and an account remembers the last
/// close charged).
public struct SessionCloseService: Service {
    let brokerage: Brokerage
    /// How long after the close to settle, so the closing prices are final.
    let delay: Int64
    let interval: Int64

    public init(brokerage: Brokerage, delay: Int64 = Duration64.minute, interval: Int64 = Duration64.minute) {
        self.brokerage = brokerage
        self.delay = delay
        self.interval = interval
    }

    public func run() async throws {
        let clock = brokerage.clock
        let calendar = TradingCalendar.xnys
        await cancelWhenGracefulShutdown {
            if let last = Self.lastClose(before: clock.now(), delay: delay) {
                try? await brokerage.settleExpiredOptions(through: last)
                try? await brokerage.closeMarginDay(last)
            }
            while !Task.isCancelled {
                let now = clock.now()
                let close = EquityHistoryRecorder.nextRecording(after: now, market: .us, delay: delay).time
                let inSession = calendar.phase(at: now) == .continuous
                await clock.sleep(until: inSession ? min(close, now.adding(nanoseconds: interval)) : close)
                guard !Task.isCancelled else { return }
                let woke = clock.now()
                if woke >= close {
                    let date = calendar.zone.localTime(of: close).date
                    try? await brokerage.settleExpiredOptions(through: date)
                    try? await brokerage.assignEarly(on: date)
                    try? await brokerage.closeMarginDay(date)
                } else if calendar.phase(at: woke) == .continuous {
                    try? await brokerage.checkMarginThreshold()
                    try? await brokerage.sellOutUncarriedOptions()
                }
            }
        }
    }

    /// The last US trading day whose close (plus `delay`) is before `now`.
    static func lastClose(before now: Timestamp, delay: Int64) -> CivilDate? {
        let calendar = TradingCalendar.xnys
        var day = calendar.zone.localTime(of: now).date
        for _ in 0..<10 {
            if let close = calendar.schedule(on: day)?.close, close.adding(nanoseconds: delay) <= now { return day }
            day = calendar.previousTradingDay(before: day)
        }
        return nil
    }
}
