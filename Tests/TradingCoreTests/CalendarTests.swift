import Testing
import TradingCore

@Suite("Sessions and holiday calendars")
struct CalendarTests {
    func weekdayClosures(_ calendar: TradingCalendar, _ year: Int) -> [String] {
        (CivilDate(year, 1, 1).daysSinceEpoch...CivilDate(year, 12, 31).daysSinceEpoch)
            .map(CivilDate.init(daysSinceEpoch:))
            .filter { !$0.isWeekend && !calendar.isTradingDay($0) }
            .map { String($0.description.dropFirst(5)) }
    }

    @Test("NYSE holidays 2024–2027 match the exchange's published lists")
    func nyseHolidays() {
        #expect(
            weekdayClosures(.xnys, 2024) == [
                "01-01", "01-15", "02-19", "03-29", "05-27", "06-19", "07-04", "09-02", "11-28", "12-25",
            ])
        #expect(
            weekdayClosures(.xnys, 2025) == [
                "01-01", "01-09", "01-20", "02-17", "04-18", "05-26", "06-19", "07-04", "09-01", "11-27", "12-25",
            ])
        #expect(
            weekdayClosures(.xnys, 2026) == [
                "01-01", "01-19", "02-16", "04-03", "05-25", "06-19", "07-03", "09-07", "11-26", "12-25",
            ])
        #expect(
            weekdayClosures(.xnys, 2027) == [
                "01-01", "01-18", "02-15", "03-26", "05-31", "06-18", "07-05", "09-06", "11-25", "12-24",
            ])
    }

    @Test("NYSE early closes at 13:00 ET")
    func nyseEarlyCloses() {
        var early: [String] = []
        for year in 2025...2027 {
            for date in TradingCalendar.xnys.tradingDays(from: CivilDate(year, 1, 1), through: CivilDate(year, 12, 31))
            where TradingCalendar.xnys.schedule(on: date)!.early {
                early.append(date.description)
            }
        }
        #expect(early == ["2025-07-03", "2025-11-28", "2025-12-24", "2026-11-27", "2026-12-24", "2027-11-26"])
        let day = TradingCalendar.xnys.schedule(on: CivilDate(2026, 11, 27))!
        #expect(day.close == Timestamp(CivilDate(2026, 11, 27), hour: 13, in: .newYork))
        #expect(
            TradingCalendar.xnys.phase(at: Timestamp(CivilDate(2026, 11, 27), hour: 14, in: .newYork)) == .postMarket)
    }

    @Test("SSE/SZSE 2026 closures match the exchange notice; make-up weekend days do not trade")
    func shanghai2026() {
        #expect(
            weekdayClosures(.xshg, 2026) == [
                "01-01", "01-02", "02-16", "02-17", "02-18", "02-19", "02-20", "02-23",
                "04-06", "05-01", "05-04", "05-05", "06-19", "09-25", "10-01", "10-02",
                "10-05", "10-06", "10-07",
            ])
        #expect(!TradingCalendar.xshg.isTradingDay(CivilDate(2026, 2, 14))) // a Saturday make-up workday
        #expect(TradingCalendar.xshg.isTradingDay(CivilDate(2026, 2, 24)))
        // Spring Festival 2025 ran Jan 28 – Feb 4; National Day 2025 merged with Mid-Autumn (Oct 1–8).
        #expect(
            weekdayClosures(.xshg, 2025) == [
                "01-01", "01-28", "01-29", "01-30", "01-31", "02-03", "02-04", "04-04",
                "05-01", "05-02", "05-05", "06-02", "10-01", "10-02", "10-03", "10-06",
                "10-07", "10-08",
            ])
    }

    @Test("A-share day: call auction, continuous, lunch break, closing auction (CST)")
    func shanghaiSessions() {
        let day = CivilDate(2026, 11, 20)
        func phase(_ h: Int, _ m: Int) -> MarketPhase {
            TradingCalendar.xshg.phase(at: Timestamp(day, hour: h, minute: m, in: .shanghai))
        }
        #expect(phase(9, 10) == .closed)
        #expect(phase(9, 15) == .openingAuction)
        #expect(phase(9, 26) == .preOpen)
        #expect(phase(9, 30) == .continuous)
        #expect(phase(11, 30) == .lunchBreak)
        #expect(phase(12, 59) == .lunchBreak)
        #expect(phase(13, 0) == .continuous)
        #expect(phase(14, 57) == .closingAuction)
        #expect(phase(15, 0) == .closed)
    }

    @Test("US sessions follow daylight saving time")
    func usDaylightSaving() {
        // 9:30 ET is 13:30 UTC in summer, 14:30 UTC in winter.
        let summer = Timestamp(CivilDate(2026, 7, 1), hour: 9, minute: 30, in: .newYork)
        let winter = Timestamp(CivilDate(2026, 12, 1), hour: 9, minute: 30, in: .newYork)
        #expect(summer.description == "2026-07-01T13:30:00.000000000Z")
        #expect(winter.description == "2026-12-01T14:30:00.000000000Z")
        #expect(summer.rfc3339(in: .newYork, fractionalDigits: 0) == "2026-07-01T09:30:00-04:00")
        // DST 2026 starts 2026-03-08, ends 2026-11-01.
        #expect(
            Timestamp(CivilDate(2026, 3, 9), hour: 9, minute: 30, in: .newYork).description
                == "2026-03-09T13:30:00.000000000Z")
        #expect(
            Timestamp(CivilDate(2026, 11, 2), hour: 9, minute: 30, in: .newYork).description
                == "2026-11-02T14:30:00.000000000Z")
        #expect(TradingCalendar.xnys.phase(at: Timestamp(CivilDate(2026, 11, 20), hour: 5, in: .newYork)) == .preMarket)
    }

    @Test("RFC 3339 text: zone offsets, fraction digits, instants before 1970")
    func rfc3339Text() {
        let t = Timestamp(
            nanoseconds: Timestamp(CivilDate(2026, 7, 1), hour: 13, minute: 30, second: 5, in: .utc).nanoseconds
                + 123_456_789)
        #expect(t.description == "2026-07-01T13:30:05.123456789Z")
        #expect(t.rfc3339(in: .utc, fractionalDigits: 3) == "2026-07-01T13:30:05.123Z")
        #expect(t.rfc3339(in: .utc, fractionalDigits: 0) == "2026-07-01T13:30:05Z")
        #expect(t.rfc3339(in: .newYork, fractionalDigits: 6) == "2026-07-01T09:30:05.123456-04:00")
        #expect(t.rfc3339(in: .shanghai, fractionalDigits: 9) == "2026-07-01T21:30:05.123456789+08:00")
        // Crossing midnight into the next local day, and a digit count out of range is clamped.
        let late = Timestamp(CivilDate(2026, 12, 31), hour: 23, minute: 59, second: 59, in: .utc)
        #expect(late.rfc3339(in: .shanghai, fractionalDigits: 12) == "2027-01-01T07:59:59.000000000+08:00")
        #expect(Timestamp(nanoseconds: -1).description == "1969-12-31T23:59:59.999999999Z")
        #expect(Timestamp(nanoseconds: 0).rfc3339(in: .newYork, fractionalDigits: 0) == "1969-12-31T19:00:00-05:00")
    }

    @Test("orders placed on a weekend belong to the next trading day")
    func tradingDate() {
        let saturday = Timestamp(CivilDate(2026, 11, 21), hour: 12, in: .shanghai)
        #expect(TradingCalendar.xshg.tradingDate(at: saturday) == CivilDate(2026, 11, 23))
        #expect(TradingCalendar.xnys.nextTradingDay(after: CivilDate(2026, 11, 25)) == CivilDate(2026, 11, 27))
        #expect(TradingCalendar.xnys.previousTradingDay(before: CivilDate(2026, 11, 27)) == CivilDate(2026, 11, 25))
    }

    @Test("civil dates round-trip through day numbers and parse strictly")
    func civilDates() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            #expect(CivilDate(daysSinceEpoch: days).daysSinceEpoch == days)
        }
        #expect(CivilDate("2026-02-29") == nil)
        #expect(CivilDate("2024-02-29") == CivilDate(2024, 2, 29))
        #expect(CivilDate("2026-1-01") == nil)
        #expect(CivilDate(2026, 11, 21).weekday == .saturday)
    }

    @Test("time arithmetic past the years a timestamp holds saturates at its ends instead of trapping")
    func saturatingTime() {
        #expect(Timestamp(seconds: .max) == .distantFuture)
        #expect(Timestamp(seconds: .min) == .distantPast)
        #expect(Timestamp.distantFuture.adding(seconds: 1) == .distantFuture)
        #expect(Timestamp.distantPast.adding(nanoseconds: -1) == .distantPast)
        #expect(Timestamp(seconds: 0).adding(seconds: .max) == .distantFuture)
        #expect(Timestamp(seconds: 0).adding(seconds: -9_300_000_000) == .distantPast)
        let t = Timestamp(CivilDate(2026, 11, 25), hour: 20, minute: 28, in: .utc)
        #expect(t.adding(seconds: 60).adding(seconds: -60) == t)
        #expect(Timestamp(CivilDate(2200, 12, 31), hour: 23, in: .shanghai) < .distantFuture)
    }
}
