/// Which expiration dates a US option class lists on a given day, as the exchanges list them: monthlies on the third
/// Friday, weeklies on the other Fridays, dailies (every trading day) for the classes that have them (SPY, QQQ), and
/// LEAPS in January up to about three years out. An expiration whose Friday is an exchange holiday moves to the
/// trading day before it (Good Friday → Thursday).
///
/// Each expiration has a listing date — the first day it trades — so the list on any past or future day is a pure
/// function of the date: the chain a learner saw last week is still the chain of last week, and a contract never
/// disappears before it expires.
public struct OptionExpirations: Sendable, Hashable {
    /// Whether the class lists an expiration on every trading day of the next two weeks (SPY, QQQ and IWM do).
    public var dailies: Bool
    public var calendar: TradingCalendar

    public init(dailies: Bool, calendar: TradingCalendar = .xnys) {
        self.dailies = dailies
        self.calendar = calendar
    }

    /// The kinds of expiration, from the longest-lived listing to the shortest.
    public enum Kind: String, Sendable, Hashable {
        /// January of a later year, listed about three years ahead.
        case leaps
        /// The third Friday of March, June, September or December, listed a year ahead.
        case quarterly
        /// The third Friday of any other month, listed about six months ahead.
        case monthly
        /// Any other Friday, listed five weeks ahead.
        case weekly
        /// Monday to Thursday, listed two weeks ahead (daily classes only).
        case daily
    }

    /// How long before it expires an expiration of each kind is first listed.
    static func listedDaysAhead(_ kind: Kind, expiration: CivilDate) -> Int {
        switch kind {
        case .leaps:
            // New LEAPS years appear each September: January of year Y is listed from September of Y − 3.
            return expiration.daysSinceEpoch - CivilDate(expiration.year - 3, 9, 1).daysSinceEpoch
        case .quarterly: return 366
        case .monthly: return 190
        case .weekly: return 35
        case .daily: return 14
        }
    }

    /// The kind of a nominal expiration date (before any holiday move).
    func kind(ofNominal date: CivilDate) -> Kind? {
        if date.weekday == .friday {
            if date == CivilDate.nth(3, .friday, of: date.month, date.year) {
                switch date.month {
                case 1: return .leaps
                case 3, 6, 9, 12: return .quarterly
                default: return .monthly
                }
            }
            return .weekly
        }
        return dailies && !date.isWeekend ? .daily : nil
    }

    /// The trading day an expiration nominally on `date` expires: the day itself, or the trading day before it when
    /// the exchange is closed.
    func expirationDay(nominal date: CivilDate) -> CivilDate {
        calendar.isTradingDay(date) ? date : calendar.previousTradingDay(before: date)
    }

    /// The nominal dates of every expiration that could be listed on `date`: dailies two weeks ahead, Fridays five
    /// weeks ahead, third Fridays about 40 months ahead.
    private func candidates(from date: CivilDate) -> [CivilDate] {
        var nominal: [CivilDate] = []
        let horizon = dailies ? 15 : 0
        for offset in 0..<horizon {
            let day = date.adding(days: offset)
            if !day.isWeekend, day.weekday != .friday { nominal.append(day) }
        }
        // Fridays of this week and the next five (a holiday Friday expires the Thursday before, so look from
        // yesterday's week).
        let toFriday = (Weekday.friday.rawValue - date.weekday.rawValue + 7) % 7
        for week in 0...5 { nominal.append(date.adding(days: toFriday + 7 * week)) }
        for month in 0..<44 {
            let m = (date.month - 1 + month) % 12 + 1
            let y = date.year + (date.month - 1 + month) / 12
            nominal.append(CivilDate.nth(3, .friday, of: m, y))
        }
        return nominal
    }

    /// The expirations listed on `date`, ascending, each once — including one expiring that day (it trades until
    /// the close).
    public func listed(on date: CivilDate) -> [CivilDate] {
        var days = Set<CivilDate>()
        for nominal in candidates(from: date) {
            guard let kind = kind(ofNominal: nominal) else { continue }
            let expiry = expirationDay(nominal: nominal)
            guard expiry >= date,
                date.daysSinceEpoch >= expiry.daysSinceEpoch - Self.listedDaysAhead(kind, expiration: nominal)
            else { continue }
            days.insert(expiry)
        }
        return days.sorted()
    }

    /// The first day an expiration traded, or nil when the class never lists one that day.
    public func listingDate(of expiration: CivilDate) -> CivilDate? {
        // The expiration may be a Friday's holiday move to Thursday: the Friday's listing comes first (it is the
        // longer one), then the day itself.
        for nominal in [expiration.adding(days: 1), expiration] {
            guard let kind = kind(ofNominal: nominal), expirationDay(nominal: nominal) == expiration else { continue }
            if nominal != expiration && kind == .daily { continue }
            return expiration.adding(days: -Self.listedDaysAhead(kind, expiration: nominal))
        }
        return nil
    }

    /// The kind of a listed expiration (nil when the class never lists that day).
    public func kind(of expiration: CivilDate) -> Kind? {
        for nominal in [expiration.adding(days: 1), expiration] {
            guard let kind = kind(ofNominal: nominal), expirationDay(nominal: nominal) == expiration else { continue }
            if nominal != expiration && kind == .daily { continue }
            return kind
        }
        return nil
    }
}
