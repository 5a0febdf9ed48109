/// The time zones exchanges keep, as rules rather than a tz database lookup: results are identical on every
/// machine (no tzdata needed) and cheap enough to evaluate per market event.
public enum ExchangeTimeZone: String, Sendable, Codable, Hashable {
    case utc = "UTC"
    /// America/New_York: UTC−5, UTC−4 in daylight saving time.
    case newYork = "America/New_York"
    /// Asia/Shanghai: UTC+8, no daylight saving time.
    case shanghai = "Asia/Shanghai"

    public var identifier: String { rawValue }

    /// Offset from UTC in seconds at a UTC instant.
    public func utcOffsetSeconds(forUTCSeconds utc: Int64) -> Int {
        switch self {
        case .utc: return 0
        case .shanghai: return 8 * 3600
        case .newYork:
            let year = CivilDate(daysSinceEpoch: Int(utc.floorDivided(by: 86_400))).year
            let (start, end) = Self.usDaylightSaving(year)
            // DST starts at 02:00 EST (07:00 UTC) and ends at 02:00 EDT (06:00 UTC).
            let startUTC = Int64(start.daysSinceEpoch) * 86_400 + 7 * 3600
            let endUTC = Int64(end.daysSinceEpoch) * 86_400 + 6 * 3600
            return utc >= startUTC && utc < endUTC ? -4 * 3600 : -5 * 3600
        }
    }

    /// Offset for a local wall-clock time (seconds since the epoch as if the wall clock were UTC). In the
    /// skipped spring hour the later (daylight) offset applies; in the repeated autumn hour the later (standard) one,
    /// which makes it the second of its two instants.
    public func utcOffsetSeconds(forLocalSeconds local: Int64) -> Int {
        switch self {
        case .utc, .shanghai: return utcOffsetSeconds(forUTCSeconds: local)
        case .newYork:
            let year = CivilDate(daysSinceEpoch: Int(local.floorDivided(by: 86_400))).year
            let (start, end) = Self.usDaylightSaving(year)
            let startLocal = Int64(start.daysSinceEpoch) * 86_400 + 2 * 3600
            let endLocal = Int64(end.daysSinceEpoch) * 86_400 + 1 * 3600
            return local >= startLocal && local < endLocal ? -4 * 3600 : -5 * 3600
        }
    }

    /// The local wall-clock times (seconds since the epoch as if the wall clock were UTC) that are not one instant
    /// in `year`: the hour skipped when clocks go forward (no instant has it) and the hour repeated when they go back
    /// (two instants have it, an hour apart). Nil for zones without daylight saving time.
    public func transitions(_ year: Int) -> (skipped: Range<Int64>, repeated: Range<Int64>)? {
        guard self == .newYork else { return nil }
        let (start, end) = Self.usDaylightSaving(year)
        let startLocal = Int64(start.daysSinceEpoch) * 86_400 + 2 * 3600 // 02:00 EST becomes 03:00 EDT
        let endLocal = Int64(end.daysSinceEpoch) * 86_400 + 1 * 3600 // 02:00 EDT becomes 01:00 EST
        return (startLocal..<(startLocal + 3600), endLocal..<(endLocal + 3600))
    }

    /// The local date and seconds since local midnight of an instant.
    public func localTime(of time: Timestamp) -> (date: CivilDate, secondOfDay: Int) {
        let utc = time.seconds
        let local = utc + Int64(utcOffsetSeconds(forUTCSeconds: utc))
        let days = Int(local.floorDivided(by: 86_400))
        return (CivilDate(daysSinceEpoch: days), Int(local - Int64(days) * 86_400))
    }

    /// US daylight saving dates: since 2007 the second Sunday of March to the first Sunday of November;
    /// 1987–2006 the first Sunday of April to the last Sunday of October.
    static func usDaylightSaving(_ year: Int) -> (start: CivilDate, end: CivilDate) {
        if year >= 2007 {
            return (CivilDate.nth(2, .sunday, of: 3, year), CivilDate.nth(1, .sunday, of: 11, year))
        }
        return (CivilDate.nth(1, .sunday, of: 4, year), CivilDate.nth(-1, .sunday, of: 10, year))
    }
}
