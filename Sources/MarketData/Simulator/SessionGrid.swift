import TradingCore

/// The minutes in which a simulated market trades, per exchange calendar or always open, and how a day's variance is
/// spread over them: an overnight gap (the opening gap of a market that closes) and an intraday intensity.
struct SessionGrid: Sendable {
    let calendar: TradingCalendar
    let policy: EngineConfiguration.SessionPolicy
    /// Share of a day's variance in its overnight gap (none for a market that never closes).
    let overnightShare: Double
    /// How a day's trading is spread over its minutes.
    enum Shape: Sendable {
        /// Busiest at the open and close (stock markets).
        case uShaped
        /// As busy at every minute (crypto).
        case flat
        /// The currency day from 17:00 New York: quiet in Asian hours, busier once London opens, busiest while London
        /// and New York overlap, quiet again in the New York afternoon.
        case forexDay
    }

    let shape: Shape

    var zone: ExchangeTimeZone { calendar.zone }

    /// A stock market's sessions (by its exchange calendar, or every minute when the clock says always open).
    init(market: Market, policy: EngineConfiguration.SessionPolicy, overnightShare: Double = 0.2) {
        calendar = market.calendar
        self.policy = policy
        self.overnightShare = overnightShare
        shape = .uShaped
    }

    /// Crypto's: every minute of every UTC day, without a gap at midnight, as busy at any minute.
    static let crypto = SessionGrid(calendar: .crypto, policy: .alwaysOpen, shape: .flat)

    /// Currency pairs': the forex week (each weekday's day from 17:00 New York the evening before), without a gap
    /// between days, busiest in London and New York hours; every minute when the clock says always open.
    static func forex(policy: EngineConfiguration.SessionPolicy) -> SessionGrid {
        SessionGrid(calendar: .forex, policy: policy, shape: .forexDay)
    }

    private init(calendar: TradingCalendar, policy: EngineConfiguration.SessionPolicy, shape: Shape) {
        self.calendar = calendar
        self.policy = policy
        overnightShare = 0
        self.shape = shape
    }

    /// The day's fraction of trading time (past its overnight gap) at `x` ∈ [0, 1] of its minutes.
    func fraction(_ x: Double) -> Double {
        overnightShare + (1 - overnightShare) * intensity(x)
    }

    /// Share of a session's intraday variance done after `x` ∈ [0, 1] of its minutes.
    func intensity(_ x: Double) -> Double {
        switch shape {
        case .uShaped: return Self.intensityShare(x)
        case .flat: return min(max(x, 0), 1)
        case .forexDay: return Self.forexShare(x)
        }
    }

    /// The forex day's weights by stretch of hours from 17:00 New York: Asia (to 02:00), London (to 08:00), London
    /// and New York together (to 12:00), the New York afternoon (to 17:00).
    static let forexStretches: [(hours: Double, weight: Double)] = [(9, 0.6), (6, 1.3), (4, 2.0), (5, 0.7)]
    static let forexTotal = forexStretches.reduce(0) { $0 + $1.hours * $1.weight }

    /// Share of a forex day's variance done after `x` ∈ [0, 1] of its 24 hours.
    static func forexShare(_ x: Double) -> Double {
        var hours = min(max(x, 0), 1) * 24
        var done = 0.0
        for stretch in forexStretches {
            let part = min(hours, stretch.hours)
            done += part * stretch.weight
            hours -= part
            if hours <= 0 { break }
        }
        return done / forexTotal
    }

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

    /// The date's trading minutes as runs of consecutive minutes (a run per period: one in New York, two in
    /// Shanghai, the whole day when always open): each run's first minute's start and its length in minutes.
    func minuteRuns(on date: CivilDate) -> [(start: Timestamp, count: Int)] {
        if policy == .alwaysOpen { return [(Timestamp(date, in: zone), 1440)] }
        guard let day = calendar.schedule(on: date) else { return [] }
        return day.periods.compactMap { period in
            guard period.phase == .continuous || period.phase == .closingAuction, period.end > period.start else {
                return nil
            }
            let nanoseconds = period.end.nanoseconds - period.start.nanoseconds
            return (period.start, Int((nanoseconds + 59_999_999_999) / 60_000_000_000))
        }
    }

    /// How many trading minutes a date has (`minuteStarts(on:).count`, without making them).
    func minuteCount(on date: CivilDate) -> Int {
        minuteRuns(on: date).reduce(0) { $0 + $1.count }
    }

    func phase(at time: Timestamp) -> MarketPhase {
        policy == .alwaysOpen ? .continuous : calendar.phase(at: time)
    }

    /// The date whose session `time` falls in by the calendar's day (the forex day rolls at 17:00 New York), or the
    /// local date when every minute trades.
    func sessionDate(at time: Timestamp) -> CivilDate {
        policy == .alwaysOpen ? zone.localTime(of: time).date : calendar.sessionDate(at: time)
    }

    /// The session a time belongs to (the latest trading day that has opened by then) and how far into it:
    /// whole minutes completed and the fraction of the current minute.
    func session(at time: Timestamp) -> (date: CivilDate, elapsed: (minutes: Int, fraction: Double)) {
        var date = sessionDate(at: time)
        for _ in 0..<15 {
            if isTradingDay(date), let elapsed = elapsed(at: time, on: date) { return (date, elapsed) }
            date = date.adding(days: -1)
        }
        return (date, (0, 0))
    }

    /// How far `time` is into the date's trading minutes: the minutes completed and the fraction of the current one
    /// (between periods, such as Shanghai's lunch, or after the close: the minutes so far and no fraction); nil
    /// before its first minute. Worked out from the runs, without making the minutes (a quote asks this: making
    /// 1,440 timestamps for it was a third of a quote's time).
    func elapsed(at time: Timestamp, on date: CivilDate) -> (minutes: Int, fraction: Double)? {
        var passed = 0
        var opened = false
        for run in minuteRuns(on: date) {
            guard time >= run.start else { break }
            opened = true
            let into = time.nanoseconds - run.start.nanoseconds
            let k = Int(into / 60_000_000_000)
            if k < run.count { return (passed + k, Double(into % 60_000_000_000) / 60e9) }
            passed += run.count
        }
        return opened ? (passed, 0) : nil
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
