import TradingCore

/// The minutes in which a simulated market trades, per exchange calendar or always open.
struct SessionGrid: Sendable {
    let market: Market
    let policy: EngineConfiguration.SessionPolicy

    var calendar: TradingCalendar { market.calendar }
    var zone: ExchangeTimeZone { calendar.zone }

    func isTradingDay(_ date: CivilDate) -> Bool {
        policy == .alwaysOpen || calendar.isTradingDay(date)
    }

    func previousTradingDay(before date: CivilDate) -> CivilDate {
        policy == .alwaysOpen ? date.adding(days: -1) : calendar.previousTradingDay(before: date)
    }

    /// The path's day index of a date. Always-open markets count calendar days, aligned with the weekday count
    /// on the anchor date so that prices there agree with the calendar market.
    func dayIndex(_ date: CivilDate) -> Int {
        guard policy == .alwaysOpen else { return PricePath.weekdayIndex(date) }
        let anchor = SimulatedProfile.anchorDate
        return PricePath.weekdayIndex(anchor) + date.daysSinceEpoch - anchor.daysSinceEpoch
    }

    /// The date of a path day index (the inverse of `dayIndex`: weekdays only, unless always open).
    func date(ofDay day: Int) -> CivilDate {
        if policy == .alwaysOpen {
            let anchor = SimulatedProfile.anchorDate
            return anchor.adding(days: day - PricePath.weekdayIndex(anchor))
        }
        let weeks = day >= 0 ? day / 5 : (day - 4) / 5
        return PricePath.epoch.adding(days: weeks * 7 + day - weeks * 5)
    }

    /// Start times of the trading minutes of a date (continuous trading and the A-share closing auction).
    func minuteStarts(on date: CivilDate) -> [Timestamp] {
        if policy == .alwaysOpen {
            let midnight = Timestamp(date, in: zone)
            return (0..<1440).map { midnight.adding(seconds: Int64($0) * 60) }
        }
        guard let day = calendar.schedule(on: date) else { return [] }
        var starts: [Timestamp] = []
        for period in day.periods where period.phase == .continuous || period.phase == .closingAuction {
            var t = period.start
            while t < period.end {
                starts.append(t)
                t = t.adding(seconds: 60)
            }
        }
        return starts
    }

    /// How many trading minutes a date has (`minuteStarts(on:).count`, without making them).
    func minuteCount(on date: CivilDate) -> Int {
        if policy == .alwaysOpen { return 1440 }
        guard let day = calendar.schedule(on: date) else { return 0 }
        var count = 0
        for period in day.periods where period.phase == .continuous || period.phase == .closingAuction {
            let nanoseconds = period.end.nanoseconds - period.start.nanoseconds
            count += Int((nanoseconds + 59_999_999_999) / 60_000_000_000)
        }
        return count
    }

    func phase(at time: Timestamp) -> MarketPhase {
        policy == .alwaysOpen ? .continuous : calendar.phase(at: time)
    }

    /// The session a time belongs to (the latest trading day that has opened by then) and how far into it:
    /// whole minutes completed and the fraction of the current minute.
    func session(at time: Timestamp) -> (date: CivilDate, elapsed: (minutes: Int, fraction: Double)) {
        var date = zone.localTime(of: time).date
        for _ in 0..<15 {
            if isTradingDay(date) {
                let starts = minuteStarts(on: date)
                if let first = starts.first, time >= first {
                    var minutes = 0
                    var fraction = 0.0
                    // Binary search for the last minute start at or before `time`.
                    var lo = 0, hi = starts.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if starts[mid] <= time { lo = mid + 1 } else { hi = mid }
                    }
                    let k = lo - 1
                    let intoMinute = time.nanoseconds - starts[k].nanoseconds
                    if intoMinute >= 60 * 1_000_000_000 {
                        minutes = k + 1 // between periods (lunch) or after the close
                    } else {
                        minutes = k
                        fraction = Double(intoMinute) / 60e9
                    }
                    return (date, (minutes, fraction))
                }
            }
            date = date.adding(days: -1)
        }
        return (date, (0, 0))
    }

    /// Share of a session's intraday variance done after `x` ∈ [0, 1] of its minutes: a U-shaped intensity
    /// 1 + 3(2x − 1)², busiest at the open and close, integrated and normalised.
    static func intensityShare(_ x: Double) -> Double {
        let t = min(max(x, 0), 1)
        // ∫0^t (1 + 3(2s − 1)^2) ds = t + ((2t − 1)^3 + 1) / 2; total over [0, 1] is 2.
        let integral = t + (pow(2 * t - 1, 3) + 1) / 2
        return integral / 2
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
