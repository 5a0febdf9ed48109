/// An exchange calendar: which days trade, and the sessions of each day (as a table of timestamps).
///
/// Four calendars cover the markets papertrade trades: XNYS (NYSE, Nasdaq, NYSE Arca, Cboe and NYSE American share
/// it), XSHG (SSE, SZSE and BSE share it), CRYPTO (every second of every day; its days are UTC dates) and FOREX (the
/// currency week: each weekday's session runs from 17:00 New York the evening before to 17:00 that day, so the week
/// opens on Sunday at 17:00 and closes on Friday at 17:00).
public struct TradingCalendar: Sendable, Hashable {
    public enum Identifier: String, Sendable, Codable, Hashable {
        case xnys = "XNYS"
        case xshg = "XSHG"
        /// Crypto pairs: no sessions, holidays or daylight-saving gaps.
        case crypto = "CRYPTO"
        /// Currency pairs: 24 hours a weekday, the day rolling at 17:00 New York.
        case forex = "FOREX"
    }

    public let identifier: Identifier
    public let zone: ExchangeTimeZone

    public static let xnys = TradingCalendar(identifier: .xnys, zone: .newYork)
    public static let xshg = TradingCalendar(identifier: .xshg, zone: .shanghai)
    public static let crypto = TradingCalendar(identifier: .crypto, zone: .utc)
    public static let forex = TradingCalendar(identifier: .forex, zone: .newYork)

    /// The forex day's roll: 17:00 New York, when one value date's session ends and the next one's begins.
    public static let forexRollHour = 17

    /// Years whose holidays come from published exchange notices. Outside them XNYS applies its holiday rules
    /// (still right) and XSHG treats every weekday as a trading day (wrong on its holidays: add the table).
    public var authoritativeYears: ClosedRange<Int> {
        switch identifier {
        case .xnys: return 1990...2100
        case .xshg: return 2024...2026
        case .crypto, .forex: return Int.min...Int.max
        }
    }

    public func isTradingDay(_ date: CivilDate) -> Bool {
        switch identifier {
        case .xnys: return !date.isWeekend && !USHolidays.isHoliday(date)
        case .xshg: return !date.isWeekend && !ChinaHolidays.closures.contains(date)
        case .crypto: return true
        case .forex: return !date.isWeekend
        }
    }

    /// The sessions of a day, or nil if the exchange does not trade that day.
    public func schedule(on date: CivilDate) -> DaySchedule? {
        guard isTradingDay(date) else { return nil }
        func at(_ h: Int, _ m: Int) -> Timestamp { Timestamp(date, hour: h, minute: m, in: zone) }
        switch identifier {
        case .xnys:
            let early = USHolidays.isEarlyClose(date)
            let close = early ? at(13, 0) : at(16, 0)
            let postEnd = early ? at(17, 0) : at(20, 0)
            return DaySchedule(
                date: date, early: early,
                periods: [
                    .init(phase: .preMarket, start: at(4, 0), end: at(9, 30)),
                    .init(phase: .continuous, start: at(9, 30), end: close),
                    .init(phase: .postMarket, start: close, end: postEnd),
                ], open: at(9, 30), close: close)
        case .xshg:
            return DaySchedule(
                date: date, early: false,
                periods: [
                    .init(phase: .openingAuction, start: at(9, 15), end: at(9, 25)),
                    .init(phase: .preOpen, start: at(9, 25), end: at(9, 30)),
                    .init(phase: .continuous, start: at(9, 30), end: at(11, 30)),
                    .init(phase: .lunchBreak, start: at(11, 30), end: at(13, 0)),
                    .init(phase: .continuous, start: at(13, 0), end: at(14, 57)),
                    .init(phase: .closingAuction, start: at(14, 57), end: at(15, 0)),
                ], open: at(9, 30), close: at(15, 0))
        case .crypto:
            let (start, end) = (at(0, 0), Timestamp(date.adding(days: 1), in: zone))
            return DaySchedule(
                date: date, early: false, periods: [.init(phase: .continuous, start: start, end: end)], open: start,
                close: end)
        case .forex:
            let (start, end) = (
                Timestamp(date.adding(days: -1), hour: Self.forexRollHour, minute: 0, in: zone),
                at(Self.forexRollHour, 0)
            )
            return DaySchedule(
                date: date, early: false, periods: [.init(phase: .continuous, start: start, end: end)], open: start,
                close: end)
        }
    }

    /// The date whose session `time` falls in, or would, by the calendar's day: the local date, except on the forex
    /// calendar, whose day rolls at 17:00 New York (18:00 on a Monday belongs to Tuesday's session).
    public func sessionDate(at time: Timestamp) -> CivilDate {
        let local = zone.localTime(of: time)
        guard identifier == .forex, local.secondOfDay >= Self.forexRollHour * 3600 else { return local.date }
        return local.date.adding(days: 1)
    }

    public func nextTradingDay(after date: CivilDate) -> CivilDate {
        var d = date.adding(days: 1)
        while !isTradingDay(d) { d = d.adding(days: 1) }
        return d
    }

    public func previousTradingDay(before date: CivilDate) -> CivilDate {
        var d = date.adding(days: -1)
        while !isTradingDay(d) { d = d.adding(days: -1) }
        return d
    }

    /// The trading days in a closed range of dates.
    public func tradingDays(from start: CivilDate, through end: CivilDate) -> [CivilDate] {
        guard start <= end else { return [] }
        return (start.daysSinceEpoch...end.daysSinceEpoch).map(CivilDate.init(daysSinceEpoch:)).filter(isTradingDay)
    }

    /// The phase of the market at an instant.
    public func phase(at time: Timestamp) -> MarketPhase {
        let date = sessionDate(at: time)
        guard let day = schedule(on: date) else { return .closed }
        return day.phase(at: time)
    }

    /// The trading day a timestamp belongs to for settlement purposes: the local date if it trades,
    /// else the next trading day (an order placed on Saturday belongs to Monday's session).
    public func tradingDate(at time: Timestamp) -> CivilDate {
        let date = zone.localTime(of: time).date
        if let day = schedule(on: date), time < day.periods[day.periods.count - 1].end { return date }
        return nextTradingDay(after: date)
    }

    /// The schedule of the session that is open at `time` or opens next.
    public func currentOrNextSession(at time: Timestamp) -> DaySchedule {
        let date = zone.localTime(of: time).date
        if let day = schedule(on: date), time < day.close { return day }
        let next = nextTradingDay(after: date)
        // nextTradingDay only returns trading days, so a schedule exists.
        return schedule(on: next) ?? DaySchedule(date: next, early: false, periods: [], open: time, close: time)
    }
}

/// What the market is doing at a moment.
public enum MarketPhase: String, Sendable, Codable, Hashable {
    case closed
    /// US pre-market (04:00–09:30 ET): extended-hours limit orders only.
    case preMarket = "pre_market"
    /// A-share opening call auction (09:15–09:25 CST): orders collect, nothing matches continuously.
    case openingAuction = "opening_auction"
    /// A-share 09:25–09:30: orders accepted, no matching.
    case preOpen = "pre_open"
    case continuous
    /// A-share 11:30–13:00.
    case lunchBreak = "lunch_break"
    /// A-share closing call auction (14:57–15:00 CST).
    case closingAuction = "closing_auction"
    /// US after-hours (16:00–20:00 ET).
    case postMarket = "post_market"

    /// Whether continuous matching happens in regular hours.
    public var isRegularTrading: Bool { self == .continuous }
    public var isExtendedHours: Bool { self == .preMarket || self == .postMarket }
}

/// The sessions of one trading day, as absolute times.
public struct DaySchedule: Sendable, Hashable {
    public struct Period: Sendable, Hashable {
        public let phase: MarketPhase
        public let start: Timestamp
        public let end: Timestamp
    }

    public let date: CivilDate
    /// True on a US early-close day (13:00 ET).
    public let early: Bool
    /// Contiguous periods of the day in order; outside them the market is closed.
    public let periods: [Period]
    /// Regular-session open and close.
    public let open: Timestamp
    public let close: Timestamp

    public func phase(at time: Timestamp) -> MarketPhase {
        for period in periods where time >= period.start && time < period.end { return period.phase }
        return .closed
    }

    /// The period containing `time`, or nil.
    public func period(at time: Timestamp) -> Period? {
        periods.first { time >= $0.start && time < $0.end }
    }

    /// When trading of any kind ends this day.
    public var end: Timestamp { periods.last?.end ?? close }
}
