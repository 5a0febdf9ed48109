/// NYSE holidays and early closes, by the exchange's rules (as exchange_calendars' XNYS implements them)
/// plus the ad-hoc closures that no rule predicts.
enum USHolidays {
    /// Closures for national events (days of mourning, weather, 9/11).
    static let adHocClosures: Set<CivilDate> = [
        CivilDate(2001, 9, 11), CivilDate(2001, 9, 12), CivilDate(2001, 9, 13), CivilDate(2001, 9, 14),
        CivilDate(2004, 6, 11), // President Reagan's funeral
        CivilDate(2007, 1, 2), // President Ford's funeral
        CivilDate(2012, 10, 29), CivilDate(2012, 10, 30), // Hurricane Sandy
        CivilDate(2018, 12, 5), // President G. H. W. Bush's funeral
        CivilDate(2025, 1, 9), // President Carter's funeral
    ]

    static func isHoliday(_ date: CivilDate) -> Bool {
        if adHocClosures.contains(date) { return true }
        let y = date.year
        // New Year's Day: Sunday moves to Monday; a Saturday January 1 is not observed.
        let newYear = CivilDate(y, 1, 1)
        if date == newYear || (newYear.weekday == .sunday && date == CivilDate(y, 1, 2)) { return true }
        if y >= 1998 && date == CivilDate.nth(3, .monday, of: 1, y) { return true } // Martin Luther King Jr. Day
        if date == CivilDate.nth(3, .monday, of: 2, y) { return true } // Presidents' Day
        if date == CivilDate.easter(y).adding(days: -2) { return true } // Good Friday
        if date == CivilDate.nth(-1, .monday, of: 5, y) { return true } // Memorial Day
        if y >= 2022 && date == observed(CivilDate(y, 6, 19)) { return true } // Juneteenth
        if date == observed(CivilDate(y, 7, 4)) { return true } // Independence Day
        if date == CivilDate.nth(1, .monday, of: 9, y) { return true } // Labor Day
        if date == CivilDate.nth(4, .thursday, of: 11, y) { return true } // Thanksgiving
        if date == observed(CivilDate(y, 12, 25)) { return true } // Christmas
        return false
    }

    /// 13:00 ET closes: July 3 (when Independence Day falls Tuesday–Friday), the day after Thanksgiving,
    /// and Christmas Eve (when Christmas falls Tuesday–Friday).
    static func isEarlyClose(_ date: CivilDate) -> Bool {
        let y = date.year
        if date == CivilDate(y, 7, 3), (.monday ... .thursday).contains(date.weekday) { return true }
        if date == CivilDate.nth(4, .thursday, of: 11, y).adding(days: 1) { return true }
        if date == CivilDate(y, 12, 24), (.monday ... .thursday).contains(date.weekday) { return true }
        return false
    }

    /// Saturday holidays are observed on Friday, Sunday holidays on Monday.
    static func observed(_ date: CivilDate) -> CivilDate {
        switch date.weekday {
        case .saturday: return date.adding(days: -1)
        case .sunday: return date.adding(days: 1)
        default: return date
        }
    }
}

extension Weekday: Comparable {
    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// SSE/SZSE weekday closures, from the exchanges' annual notices (weekend make-up workdays do not trade).
enum ChinaHolidays {
    static let closures: Set<CivilDate> = {
        var days = Set<CivilDate>()
        func add(_ y: Int, _ m: Int, _ d: Int...) { for day in d { days.insert(CivilDate(y, m, day)) } }
        // 2024 (SSE notice, December 2023)
        add(2024, 1, 1)
        add(2024, 2, 9, 12, 13, 14, 15, 16)
        add(2024, 4, 4, 5)
        add(2024, 5, 1, 2, 3)
        add(2024, 6, 10)
        add(2024, 9, 16, 17)
        add(2024, 10, 1, 2, 3, 4, 7)
        // 2025
        add(2025, 1, 1, 28, 29, 30, 31)
        add(2025, 2, 3, 4)
        add(2025, 4, 4)
        add(2025, 5, 1, 2, 5)
        add(2025, 6, 2)
        add(2025, 10, 1, 2, 3, 6, 7, 8)
        // 2026 (pandas_market_calendars and exchange_calendars agree)
        add(2026, 1, 1, 2)
        add(2026, 2, 16, 17, 18, 19, 20, 23)
        add(2026, 4, 6)
        add(2026, 5, 1, 4, 5)
        add(2026, 6, 19)
        add(2026, 9, 25)
        add(2026, 10, 1, 2, 5, 6, 7)
        // 2027 — PROVISIONAL: the State Council publishes the 2027 schedule around December 2026. These days
        // follow the recent pattern around the lunar dates (Spring Festival 2027-02-06, Qingming 04-05,
        // Dragon Boat 06-09, Mid-Autumn 09-15). Replace with the SSE notice when it appears.
        add(2027, 1, 1)
        add(2027, 2, 5, 8, 9, 10, 11, 12)
        add(2027, 4, 5)
        add(2027, 5, 3, 4, 5)
        add(2027, 6, 9)
        add(2027, 9, 15)
        add(2027, 10, 1, 4, 5, 6, 7)
        return days
    }()
}
