import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Alpaca's market clock and calendar: `/v2/clock` and `/v2/calendar` (the US market), and the multi-market
/// `/v3/clock` and `/v3/calendar/{market}`, which also answer for the A-share exchanges (XSHG, XSHE).
struct CalendarController {
    let clock: MarketClock

    func addRoutes(v2: RouterGroup<AppContext>, v3: RouterGroup<AppContext>) {
        v2.get("clock", use: clock)
        v2.get("calendar", use: calendar)
        v3.get("clock", use: clockV3)
        v3.get("calendar/{market}", use: calendarV3)
    }

    /// A market as the v3 endpoints name it. The US names share the NYSE calendar (every US venue keeps its hours).
    struct Venue {
        let acronym: String
        let name: String
        let mic: String
        let calendar: TradingCalendar

        static let all: [Venue] = [
            Venue(acronym: "NYSE", name: "New York Stock Exchange", mic: "XNYS", calendar: .xnys),
            Venue(acronym: "XNYS", name: "New York Stock Exchange", mic: "XNYS", calendar: .xnys),
            Venue(acronym: "NASDAQ", name: "Nasdaq Stock Market", mic: "XNAS", calendar: .xnys),
            Venue(acronym: "XNAS", name: "Nasdaq Stock Market", mic: "XNAS", calendar: .xnys),
            Venue(acronym: "IEX", name: "Investors Exchange", mic: "IEXG", calendar: .xnys),
            Venue(acronym: "IEXG", name: "Investors Exchange", mic: "IEXG", calendar: .xnys),
            Venue(acronym: "XSHG", name: "Shanghai Stock Exchange", mic: "XSHG", calendar: .xshg),
            Venue(acronym: "SSE", name: "Shanghai Stock Exchange", mic: "XSHG", calendar: .xshg),
            Venue(acronym: "XSHE", name: "Shenzhen Stock Exchange", mic: "XSHE", calendar: .xshg),
            Venue(acronym: "SZSE", name: "Shenzhen Stock Exchange", mic: "XSHE", calendar: .xshg),
        ]

        static func named(_ text: String) throws -> Venue {
            let key = text.trimmingCharacters(in: .whitespaces).uppercased()
            guard let venue = all.first(where: { $0.acronym == key }) else {
                throw APIError.unprocessable(
                    "unsupported market \(text); expected one of \(all.map(\.acronym).joined(separator: ", "))")
            }
            return venue
        }

        var json: JSONValue {
            .object([
                "acronym": .string(acronym), "name": .string(name), "mic": .string(mic),
                "timezone": .string(calendar.zone.identifier),
            ])
        }
    }

    /// The named parts of a trading day: `pre` (US pre-market, A-share call auction), `core` (regular trading),
    /// `lunch` (A-share midday break) and `post` (US after-hours).
    struct Sessions {
        var core: (Timestamp, Timestamp)
        var pre: (Timestamp, Timestamp)?
        var lunch: (Timestamp, Timestamp)?
        var post: (Timestamp, Timestamp)?

        init(_ day: DaySchedule) {
            core = (day.open, day.close)
            let before = day.periods.filter { $0.end <= day.open }
            pre = before.first.map { ($0.start, day.open) }
            lunch = day.periods.first { $0.phase == .lunchBreak }.map { ($0.start, $0.end) }
            post = day.periods.first { $0.phase == .postMarket }.map { ($0.start, $0.end) }
        }

        /// The v3 phase at `time` and when it ends (nil: the day has ended).
        func phase(at time: Timestamp) -> (String, Timestamp)? {
            if let pre, time < pre.0 { return ("closed", pre.0) }
            if let pre, time < pre.1 { return ("pre", pre.1) }
            if time < core.0 { return ("closed", core.0) }
            if let lunch, time >= lunch.0, time < lunch.1 { return ("lunch", lunch.1) }
            if time < core.1 { return ("open", lunch.map { time < $0.0 ? $0.0 : core.1 } ?? core.1) }
            if let post, time < post.1 { return ("post", post.1) }
            return nil
        }
    }

    // MARK: v2

    @Sendable func clock(_ request: Request, context: AppContext) async throws -> Response {
        let now = clock.now()
        let calendar = TradingCalendar.xnys
        let alwaysOpen = clock.sessions == .alwaysOpen
        let phase = alwaysOpen ? MarketPhase.continuous : calendar.phase(at: now)
        let session = calendar.currentOrNextSession(at: now)
        let nextOpen =
            now < session.open
            ? session.open
            : (calendar.schedule(on: calendar.nextTradingDay(after: session.date))?.open ?? session.open)
        return JSONValue.object([
            "timestamp": .string(now.rfc3339(in: .newYork)), "is_open": .bool(phase.isRegularTrading),
            "next_open": .string(nextOpen.rfc3339(in: .newYork, fractionalDigits: 0)),
            "next_close": .string(session.close.rfc3339(in: .newYork, fractionalDigits: 0)),
        ]).response()
    }

    /// `start`/`end` as dates, clamped to 1970 … the end of next year (Alpaca's table) when absent.
    func dateRange(_ request: Request, calendar: TradingCalendar) throws -> (CivilDate, CivilDate) {
        let today = calendar.zone.localTime(of: clock.now()).date
        func date(_ name: String, _ fallback: CivilDate) throws -> CivilDate {
            try request.dateQuery(name, timeAllowed: true) ?? fallback
        }
        let first = CivilDate(1970, 1, 1), last = CivilDate(today.year + 1, 12, 31)
        let start = max(try date("start", first), first)
        let end = min(try date("end", last), last)
        guard start <= end else { throw APIError.unprocessable("start must not be after end") }
        return (start, end)
    }

    /// Trading days with their hours (Alpaca formats: "09:30", "0400"). Without `start` and `end`, the whole table,
    /// as Alpaca answers it: 1970 to the end of next year.
    @Sendable func calendar(_ request: Request, context: AppContext) async throws -> Response {
        let calendar = TradingCalendar.xnys
        let (start, end) = try dateRange(request, calendar: calendar)
        if let type = request.query("date_type"), !["TRADING", "SETTLEMENT"].contains(type.uppercased()) {
            throw APIError.unprocessable("invalid date_type \(type); expected TRADING or SETTLEMENT")
        }
        func hhmm(_ t: Timestamp, colon: Bool) -> String {
            let s = calendar.zone.localTime(of: t).secondOfDay
            let h = s / 3600, m = s / 60 % 60
            let hh = h < 10 ? "0\(h)" : "\(h)", mm = m < 10 ? "0\(m)" : "\(m)"
            return colon ? hh + ":" + mm : hh + mm
        }
        let days: [JSONValue] = calendar.tradingDays(from: start, through: end).compactMap { day in
            guard let s = calendar.schedule(on: day), let first = s.periods.first, let last = s.periods.last else {
                return nil
            }
            return .object([
                "date": .string(day.description), "open": .string(hhmm(s.open, colon: true)),
                "close": .string(hhmm(s.close, colon: true)), "session_open": .string(hhmm(first.start, colon: false)),
                "session_close": .string(hhmm(last.end, colon: false)),
                "settlement_date": .string(calendar.nextTradingDay(after: day).description),
            ])
        }
        return JSONValue.array(days).response()
    }

    // MARK: v3

    /// One clock per market in `markets` (NYSE by default), now or at `time`.
    @Sendable func clockV3(_ request: Request, context: AppContext) async throws -> Response {
        let names = (request.query("markets") ?? "NYSE").split(separator: ",").map(String.init)
        guard !names.isEmpty else { throw APIError.unprocessable("markets must name at least one market") }
        let venues = try names.map(Venue.named)
        let now: Timestamp
        if let text = request.query("time") {
            guard let t = RFC3339.parse(text) else {
                throw APIError.unprocessable("invalid time \(text); expected RFC 3339")
            }
            now = t
        } else {
            now = clock.now()
        }
        let alwaysOpen = request.query("time") == nil && clock.sessions == .alwaysOpen
        return JSONValue.object(["clocks": .array(venues.map { clock($0, at: now, alwaysOpen: alwaysOpen) })])
            .response()
    }

    func clock(_ venue: Venue, at now: Timestamp, alwaysOpen: Bool) -> JSONValue {
        let calendar = venue.calendar
        let zone = calendar.zone
        func time(_ t: Timestamp) -> JSONValue { .string(t.rfc3339(in: zone, fractionalDigits: 0)) }
        let today = zone.localTime(of: now).date
        let todaySchedule = calendar.schedule(on: today)
        var day = todaySchedule ?? calendar.schedule(on: calendar.nextTradingDay(after: today))
        // After today's last session, the clock looks at the next trading day.
        if let d = day, Sessions(d).phase(at: now) == nil {
            day = calendar.schedule(on: calendar.nextTradingDay(after: d.date))
        }
        guard let day else { return .null }
        let sessions = Sessions(day)
        var (phase, until) = sessions.phase(at: now) ?? ("closed", day.open)
        if day.date != today { (phase, until) = ("closed", sessions.pre?.0 ?? day.open) }
        if alwaysOpen { phase = "open" }
        let next = calendar.schedule(on: calendar.nextTradingDay(after: day.date))
        let nextOpen = now < day.open ? day.open : next?.open ?? day.open
        let nextClose = now < day.close ? day.close : next?.close ?? day.close
        return .object([
            "market": venue.json, "timestamp": .string(now.rfc3339(in: zone)),
            "is_market_day": .bool(todaySchedule != nil), "next_market_open": time(nextOpen),
            "next_market_close": time(nextClose), "phase": .string(phase),
            "phase_until": time(until),
        ])
    }

    /// The market's trading days between `start` and `end` (a week from today by default), with each day's
    /// sessions; `timezone=UTC` gives the times in UTC instead of the market's own offset.
    @Sendable func calendarV3(_ request: Request, context: AppContext) async throws -> Response {
        let venue = try Venue.named(try context.parameters.require("market"))
        let calendar = venue.calendar
        let today = calendar.zone.localTime(of: clock.now()).date
        var (start, end) = try dateRange(request, calendar: calendar)
        if request.query("start") == nil && request.query("end") == nil {
            (start, end) = (today, today.adding(days: 7))
        }
        let zone: ExchangeTimeZone
        switch request.query("timezone")?.uppercased() {
        case nil: zone = calendar.zone
        case "UTC": zone = .utc
        case let other?: throw APIError.unprocessable("invalid timezone \(other); expected UTC")
        }
        func time(_ t: Timestamp) -> JSONValue { .string(t.rfc3339(in: zone, fractionalDigits: 0)) }
        let days: [JSONValue] = calendar.tradingDays(from: start, through: end).compactMap { date in
            guard let day = calendar.schedule(on: date) else { return nil }
            let s = Sessions(day)
            var fields: [String: JSONValue] = [
                "date": .string(date.description), "core_start": time(s.core.0), "core_end": time(s.core.1),
                "settlement_date": .string(calendar.nextTradingDay(after: date).description),
            ]
            if let pre = s.pre { (fields["pre_start"], fields["pre_end"]) = (time(pre.0), time(pre.1)) }
            if let lunch = s.lunch { (fields["lunch_start"], fields["lunch_end"]) = (time(lunch.0), time(lunch.1)) }
            if let post = s.post { (fields["post_start"], fields["post_end"]) = (time(post.0), time(post.1)) }
            return .object(fields)
        }
        return JSONValue.object(["market": venue.json, "calendar": .array(days)]).response()
    }
}
