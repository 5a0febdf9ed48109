/// A calendar date (proleptic Gregorian) with no time zone: a trading day, a holiday, a listing date.
public struct CivilDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, LosslessStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Requires a valid date; use `init?(_ description:)` for text from users.
    public init(_ year: Int, _ month: Int, _ day: Int) {
        precondition(CivilDate.isValid(year, month, day), "invalid date \(year)-\(month)-\(day)")
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 to a date (Howard Hinnant's civil_from_days).
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        month = m
        day = d
    }

    /// Parses "YYYY-MM-DD".
    /// Parses "YYYY-MM-DD" for a year in `textYears`: a date any `Timestamp` can hold every instant of (they span
    /// 1677–2262), so a date from a user can never overflow the time arithmetic built on it.
    public init?(_ description: String) {
        let parts = description.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            CivilDate.textYears.contains(y), CivilDate.isValid(y, m, d)
        else { return nil }
        self.init(y, m, d)
    }

    /// The years a date written as text may have.
    public static let textYears = 1900...2200

    public static func isValid(_ y: Int, _ m: Int, _ d: Int) -> Bool {
        guard (1...12).contains(m), d >= 1 else { return false }
        return d <= daysIn(month: m, year: y)
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (days_from_civil).
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        let index = ((daysSinceEpoch % 7) + 7 + 4) % 7
        return Weekday.allCases[index]
    }

    public var isWeekend: Bool { weekday == .saturday || weekday == .sunday }

    public func adding(days: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// Calendar order: by year, then month, then day (the same as by `daysSinceEpoch`, without its arithmetic — a
    /// chain compares thousands of expirations).
    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    public var description: String {
        let m = month < 10 ? "0\(month)" : "\(month)"
        let d = day < 10 ? "0\(day)" : "\(day)"
        return "\(year)-\(m)-\(d)"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = CivilDate(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected YYYY-MM-DD, got \(text)")
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// The n-th (1-based) given weekday of a month, or the last one when n is -1.
    static func nth(_ n: Int, _ weekday: Weekday, of month: Int, _ year: Int) -> CivilDate {
        if n > 0 {
            let first = CivilDate(year, month, 1)
            let offset = (weekday.rawValue - first.weekday.rawValue + 7) % 7
            return first.adding(days: offset + 7 * (n - 1))
        }
        let last = CivilDate(year, month, daysIn(month: month, year: year))
        let offset = (last.weekday.rawValue - weekday.rawValue + 7) % 7
        return last.adding(days: -offset)
    }

    /// Easter Sunday (anonymous Gregorian algorithm).
    static func easter(_ year: Int) -> CivilDate {
        let a = year % 19, b = year / 100, c = year % 100
        let d = b / 4, e = b % 4, f = (b + 8) / 25, g = (b - f + 1) / 3
        let h = (19 * a + b - d - g + 15) % 30
        let i = c / 4, k = c % 4
        let l = (32 + 2 * e + 2 * i - h - k) % 7
        let m = (a + 11 * h + 22 * l) / 451
        let month = (h + l - 7 * m + 114) / 31
        let day = (h + l - 7 * m + 114) % 31 + 1
        return CivilDate(year, month, day)
    }
}

public enum Weekday: Int, Sendable, Codable, CaseIterable {
    case sunday = 0, monday, tuesday, wednesday, thursday, friday, saturday
}
