import TradingCore

/// One bar of history: its time (the bar's end; a daily bar is stamped at its market's close) and OHLCV.
public struct HistoricalBar: Sendable, Hashable {
    public var time: Timestamp
    public var open: Price
    public var high: Price
    public var low: Price
    public var close: Price
    public var volume: Quantity

    public init(time: Timestamp, open: Price, high: Price, low: Price, close: Price, volume: Quantity) {
        self.time = time
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }

    var engineBar: Bar { Bar(open: open, high: high, low: low, close: close, volume: volume) }
}

/// A symbol's bars in time order.
public struct BarSeries: Sendable, Hashable {
    public var symbol: String
    public var bars: [HistoricalBar]

    public init(symbol: String, bars: [HistoricalBar]) {
        self.symbol = symbol
        self.bars = bars
    }

    /// The bars' spacing: the smallest gap between two consecutive bars (a day for daily data, with weekends).
    public var frequency: BarFrequency {
        var smallest = Int64.max
        for i in bars.indices.dropFirst() {
            smallest = min(smallest, bars[i].time.nanoseconds - bars[i - 1].time.nanoseconds)
        }
        return BarFrequency(smallestGap: smallest)
    }
}

public enum BarFrequency: Sendable, Hashable, CustomStringConvertible {
    case daily
    case intraday(seconds: Int64)

    /// From the smallest gap between consecutive bars in nanoseconds (`Int64.max`: fewer than two bars).
    init(smallestGap: Int64) {
        self =
            smallestGap == .max || smallestGap >= 20 * Duration64.hour
            ? .daily : .intraday(seconds: smallestGap / 1_000_000_000)
    }

    public var description: String {
        switch self {
        case .daily: return "1Day"
        case .intraday(let seconds):
            return seconds % 3600 == 0
                ? "\(seconds / 3600)Hour" : seconds % 60 == 0 ? "\(seconds / 60)Min" : "\(seconds)s"
        }
    }
}

/// Reads bars from CSV text in the layout pandas, yfinance and backtrader write: a header naming a time column
/// (`date`, `datetime`, `timestamp` or `time`), `open`, `high`, `low`, `close` and optionally `volume` (any letter
/// case, any column order, other columns ignored), and optionally a symbol column (`symbol`, `ticker`, `code`) when
/// one file holds several symbols.
///
/// Times: dates ("2020-01-02", "2020/01/02") are stamped at the market's close in `zone`; date-times without an
/// offset ("2020-01-02 09:35:00") are local to `zone`; RFC 3339 with an offset or "Z" is taken as written; a bare
/// number is Unix seconds (or milliseconds when it has 13 digits). Rows must be in time order per symbol.
/// Local times that do not exist in `zone` (the hour skipped when daylight saving time begins) are refused by name;
/// a local time that happens twice (the hour repeated when it ends) is the first of its two instants unless the
/// symbol's previous bar is already past it, so bars written in order through the night stay in order.
public enum CSVBars {
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses `text`; `symbol` names the series of a file without a symbol column. `closeHour`/`closeMinute` is when
    /// a date-only bar is stamped (the market's close in `zone`). Reads the bytes once, in place, without a string per
    /// field (a million rows in ~0.2 s).
    public static func parse(
        _ text: String, symbol defaultSymbol: String, zone: ExchangeTimeZone, closeHour: Int = 16, closeMinute: Int = 0
    ) throws(Problem) -> [BarSeries] {
        var text = text
        do {
            return try text.withUTF8 { bytes in
                try parse(
                    bytes: bytes, symbol: defaultSymbol, zone: zone, closeHour: closeHour, closeMinute: closeMinute)
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(description: "\(error)")
        }
    }

    /// `parse` over a file's bytes as read (the CLI's: a million-row file is not copied into a String and validated
    /// first). Bytes that are not UTF-8 only matter in a field read as text (a symbol, an error's quote), and are
    /// replaced there.
    public static func parse(
        bytes: UnsafeBufferPointer<UInt8>, symbol defaultSymbol: String, zone: ExchangeTimeZone, closeHour: Int = 16,
        closeMinute: Int = 0
    ) throws(Problem) -> [BarSeries] {
        // A byte order mark (Excel's "CSV UTF-8") is not part of the first column's name.
        var lineStart = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        /// The next line's fields as byte ranges (quotes and spaces trimmed), or nil at the end.
        func nextLine(_ fields: inout [Range<Int>]) -> Bool {
            fields.removeAll(keepingCapacity: true)
            while lineStart < bytes.count, bytes[lineStart] == 10 || bytes[lineStart] == 13 { lineStart += 1 }
            guard lineStart < bytes.count else { return false }
            var i = lineStart
            var fieldStart = i
            while true {
                let atEnd = i == bytes.count || bytes[i] == 10 || bytes[i] == 13
                if atEnd || bytes[i] == 44 {
                    var a = fieldStart, b = i
                    while a < b, bytes[a] == 32 || bytes[a] == 34 { a += 1 }
                    while b > a, bytes[b - 1] == 32 || bytes[b - 1] == 34 { b -= 1 }
                    fields.append(a..<b)
                    fieldStart = i + 1
                }
                if atEnd { break }
                i += 1
            }
            lineStart = i
            return true
        }
        func string(_ r: Range<Int>) -> String { String(decoding: bytes[r], as: UTF8.self) }

        var fields: [Range<Int>] = []
        guard nextLine(&fields) else { throw Problem(description: "the CSV file is empty") }
        let names = fields.map { string($0).lowercased() }
        func column(_ candidates: [String]) -> Int? { candidates.lazy.compactMap { names.firstIndex(of: $0) }.first }
        guard let timeColumn = column(["datetime", "date", "timestamp", "time"]) else {
            throw Problem(
                description:
                    "the header needs a date, datetime, timestamp or time column: \(names.joined(separator: ","))")
        }
        var indices: [Int] = []
        for name in ["open", "high", "low", "close"] {
            guard let i = column([name]) else { throw Problem(description: "the header needs a \(name) column") }
            indices.append(i)
        }
        let volumeColumn = column(["volume", "vol"])
        let symbolColumn = column(["symbol", "ticker", "code"])
        var series: [String: [HistoricalBar]] = [:]
        var order: [String] = []
        var lineNumber = 1
        var lastSymbolRange: Range<Int>? = nil
        var lastSymbol = defaultSymbol
        var current: [HistoricalBar] = []
        var dayCache = DayCache()
        var wallClock = WallClock(zone: zone)
        // Daily data written with a time of day ("2005-01-04 00:00:00", as pandas writes a daily index) is stamped at
        // the close like plain dates, once every row turns out to be at midnight.
        var midnightOnly = true
        let midnight = Array("00:00:00".utf8)
        let midnightShort = Array("00:00".utf8)
        while nextLine(&fields) {
            lineNumber += 1
            guard fields.count == names.count else {
                throw Problem(
                    description: "line \(lineNumber) has \(fields.count) fields; the header has \(names.count)")
            }
            let timeRange = fields[timeColumn]
            if midnightOnly {
                let clock = timeRange.count == 19 ? midnight : timeRange.count == 16 ? midnightShort : []
                if clock.isEmpty
                    || !bytes[(timeRange.upperBound - clock.count)..<timeRange.upperBound].elementsEqual(clock)
                {
                    midnightOnly = false
                }
            }
            guard
                let read = dayCache.time(bytes[timeRange], zone: zone, closeHour: closeHour, closeMinute: closeMinute)
                    ?? parseTime(string(timeRange), zone: zone, closeHour: closeHour, closeMinute: closeMinute)
            else {
                throw Problem(description: "line \(lineNumber): cannot read the time \"\(string(timeRange))\"")
            }
            let time = read.time
            var repeatedHour = false
            if let wall = read.wall {
                switch wallClock.kind(wall) {
                case .unique: break
                case .repeated: repeatedHour = true
                case .skipped:
                    throw Problem(
                        description:
                            "line \(lineNumber): \(string(timeRange)) does not exist in \(zone.identifier): clocks went "
                            + "from 02:00 straight to 03:00 that night (daylight saving time began). The times are "
                            + "not local to \(zone.identifier): give --timezone UTC if they are UTC, or write each with "
                            + "its offset (e.g. 2015-03-08T07:30:00Z or 2015-03-08T02:30:00-05:00)")
                }
            }
            var values: (Price, Price, Price, Price) = (.zero, .zero, .zero, .zero)
            for (k, i) in indices.enumerated() {
                guard let v = decimal(bytes[fields[i]]) ?? (try? FixedDecimal(parsing: string(fields[i]))), v.isPositive
                else {
                    throw Problem(
                        description:
                            "line \(lineNumber): \"\(string(fields[i]))\" is not a positive price (\(names[i]))")
                }
                switch k {
                case 0: values.0 = v
                case 1: values.1 = v
                case 2: values.2 = v
                default: values.3 = v
                }
            }
            var volume = Quantity.zero
            if let volumeColumn, !fields[volumeColumn].isEmpty {
                let r = fields[volumeColumn]
                guard let v = decimal(bytes[r]) ?? (try? FixedDecimal(parsing: string(r))), !v.isNegative else {
                    throw Problem(description: "line \(lineNumber): \"\(string(r))\" is not a volume")
                }
                volume = v
            }
            let (open, high, low, close) = values
            var bar = HistoricalBar(
                time: time, open: open, high: max(high, open, close), low: min(low, open, close), close: close,
                volume: volume)
            // Rows of one symbol usually come together: keep appending to the current series until it changes.
            if let symbolColumn {
                let r = fields[symbolColumn]
                if lastSymbolRange.map({ bytes[$0].elementsEqual(bytes[r]) }) != true {
                    flush(&current, into: &series, symbol: lastSymbol)
                    lastSymbol = string(r).uppercased()
                    lastSymbolRange = r
                    if series[lastSymbol] == nil {
                        order.append(lastSymbol)
                        series[lastSymbol] = []
                    }
                }
            } else if order.isEmpty {
                order.append(defaultSymbol)
                series[defaultSymbol] = []
                // One series for the whole file: room for a bar per line left (growing by doubling copied the bars
                // and faulted in every page of each new block: most of a million-row file's reading time).
                var lines = 1
                for k in lineStart..<bytes.count where bytes[k] == 10 { lines += 1 }
                current.reserveCapacity(lines)
            }
            let previous = current.last ?? series[lastSymbol]?.last
            if repeatedHour {
                // The hour clocks go back over happens twice (first in daylight time, an hour earlier in UTC): the
                // first time, unless this symbol's bars are already past it.
                let earlier = time.adding(seconds: -3600)
                if previous.map({ $0.time < earlier }) ?? true { bar.time = earlier }
            }
            if let previous, previous.time >= bar.time {
                if repeatedHour {
                    throw Problem(
                        description:
                            "line \(lineNumber): \(string(timeRange)) happened twice in \(zone.identifier) (clocks "
                            + "went back from 02:00 to 01:00 that night) and neither comes after \(lastSymbol)'s "
                            + "previous bar at \(previous.time.rfc3339(in: zone, fractionalDigits: 0)): give --timezone UTC if the times are "
                            + "UTC, or write each with its offset (-04:00 for the first 01:00–01:59, -05:00 for the second)"
                    )
                }
                throw Problem(
                    description:
                        "line \(lineNumber): \(lastSymbol)'s bars are not in time order: \(string(timeRange)) "
                        + "(\(bar.time.rfc3339(in: zone, fractionalDigits: 0))) is not after the bar before it "
                        + "(\(previous.time.rfc3339(in: zone, fractionalDigits: 0)))")
            }
            current.append(bar)
        }
        flush(&current, into: &series, symbol: lastSymbol)
        guard !order.isEmpty else { throw Problem(description: "the CSV file has a header and no bars") }
        let shift = midnightOnly ? Int64(closeHour * 3600 + closeMinute * 60) : 0
        return order.map { symbol in
            var bars = series.removeValue(forKey: symbol) ?? [] // (taken out: changed in place, not copied)
            if shift != 0 { for i in bars.indices { bars[i].time = bars[i].time.adding(seconds: shift) } }
            return BarSeries(symbol: symbol, bars: bars)
        }
    }

    /// Adds a symbol's run of rows to its series: handed over whole when the series is empty (the usual case: one
    /// run per symbol), so its bars are not copied.
    static func flush(_ run: inout [HistoricalBar], into series: inout [String: [HistoricalBar]], symbol: String) {
        guard !run.isEmpty else { return }
        if series[symbol]?.isEmpty ?? true {
            series[symbol] = run
        } else {
            series[symbol]?.append(contentsOf: run)
        }
        run = []
    }

    /// A file mixing US symbols and A-shares (six-digit codes), each read in its market's zone and stamped at its
    /// close (16:00 New York, 15:00 Shanghai); only the `wanted` symbols, in that order.
    public static func parseByMarket(_ text: String, wanted: [String]) throws(Problem) -> [BarSeries] {
        var out: [BarSeries] = []
        for (zone, close) in [(ExchangeTimeZone.newYork, 16), (.shanghai, 15)] {
            let isAShare = zone == .shanghai
            out += try parse(text, symbol: "", zone: zone, closeHour: close).filter {
                wanted.contains($0.symbol) && ($0.symbol.count == 6 && $0.symbol.allSatisfy(\.isNumber)) == isAShare
            }
        }
        return wanted.compactMap { symbol in out.first { $0.symbol == symbol } }
    }

    /// A plain decimal ("123", "-4.5", "7674030.0") read from bytes; nil for anything else (exponents, more than nine
    /// fractional digits, more than 18 digits, junk), which the careful parser then reads or refuses. The digits are
    /// gathered in 64 bits and scaled once (per digit in 128 bits, the prices were half of a file's reading time).
    static func decimal(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> FixedDecimal? {
        var value: UInt64 = 0
        var fractional = -1
        var digits = 0
        var k = bytes.startIndex
        let negative = k < bytes.endIndex && bytes[k] == 45
        if negative { k += 1 }
        while k < bytes.endIndex {
            let c = bytes[k]
            k += 1
            if c == 46, fractional < 0 {
                fractional = 0
                continue
            }
            let digit = c &- 48
            guard digit < 10, digits < 18 else { return nil }
            value = value &* 10 &+ UInt64(digit)
            digits += 1
            if fractional >= 0 {
                fractional += 1
                guard fractional <= FixedDecimal.scale else { return nil }
            }
        }
        guard digits > 0 else { return nil }
        let raw = Int128(value) * Int128(powersOfTen[FixedDecimal.scale - max(fractional, 0)])
        return FixedDecimal(raw: negative ? -raw : raw)
    }

    static let powersOfTen: [Int64] = (0...FixedDecimal.scale).map { n in (0..<n).reduce(1) { r, _ in r * 10 } }

    /// Reads "YYYY-MM-DD", "YYYY-MM-DD HH:MM" and "YYYY-MM-DD HH:MM:SS" (or with "T", or "/" in the date) from bytes,
    /// remembering the last day's date; nil for every other form (the careful path reads those).
    struct DayCache {
        var lastDate: (bytes: (UInt64, UInt16), date: CivilDate)?

        mutating func time(
            _ b: Slice<UnsafeBufferPointer<UInt8>>, zone: ExchangeTimeZone, closeHour: Int, closeMinute: Int
        )
            -> ReadTime?
        {
            guard b.count == 10 || b.count == 16 || b.count == 19 else { return nil }
            let s = b.startIndex
            func digit(_ i: Int) -> Int? {
                let c = b[s + i]
                return c >= 48 && c <= 57 ? Int(c - 48) : nil
            }
            func number(_ range: Range<Int>) -> Int? {
                var n = 0
                for i in range {
                    guard let d = digit(i) else { return nil }
                    n = n * 10 + d
                }
                return n
            }
            guard b[s + 4] == 45 || b[s + 4] == 47, b[s + 7] == b[s + 4] else { return nil }
            var key: UInt64 = 0
            for i in 0..<8 { key = key << 8 | UInt64(b[s + i]) }
            let tail = UInt16(b[s + 8]) << 8 | UInt16(b[s + 9])
            let date: CivilDate
            if let last = lastDate, last.bytes == (key, tail) {
                date = last.date
            } else {
                guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), y >= 1900, y <= 2200,
                    CivilDate.isValid(y, m, d)
                else { return nil }
                date = CivilDate(y, m, d)
                lastDate = ((key, tail), date)
            }
            if b.count == 10 { return ReadTime(Timestamp(date, hour: closeHour, minute: closeMinute, in: zone)) }
            guard b[s + 10] == 32 || b[s + 10] == 84, b[s + 13] == 58, b.count == 16 || b[s + 16] == 58,
                let h = number(11..<13), let mi = number(14..<16), let se = b.count == 16 ? 0 : number(17..<19),
                h < 24, mi < 60, se < 61
            else { return nil }
            return ReadTime(date: date, hour: h, minute: mi, second: se, in: zone)
        }
    }

    static func parseTime(_ text: String, zone: ExchangeTimeZone, closeHour: Int, closeMinute: Int) -> ReadTime? {
        if !text.isEmpty, text.allSatisfy(\.isNumber), let n = Int64(text) {
            // Milliseconds past what a Timestamp holds (year 2262) are not a bar's time: nil, the row is refused.
            guard text.count >= 13 else { return ReadTime(Timestamp(seconds: n)) }
            let (nanoseconds, overflow) = n.multipliedReportingOverflow(by: 1_000_000)
            return overflow ? nil : ReadTime(Timestamp(nanoseconds: nanoseconds))
        }
        let normalized = text.replacingSlashes
        guard normalized.count >= 10, let date = CivilDate(String(normalized.prefix(10))) else { return nil }
        let rest = normalized.dropFirst(10)
        if rest.isEmpty { return ReadTime(Timestamp(date, hour: closeHour, minute: closeMinute, in: zone)) }
        let clock = rest.dropFirst() // "T" or " "
        let parts = clock.prefix(8).split(separator: ":")
        guard parts.count >= 2, let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m)
        else { return nil }
        let s = parts.count > 2 ? Int(parts[2].prefix(2)) ?? 0 : 0
        // With an offset (or Z) the text says its own zone.
        if let last = clock.last, last == "Z" || clock.contains("+") || clock.dropFirst(6).contains("-") {
            _ = last
            return RFC3339Time.parse(date: date, hour: h, minute: m, second: s, clock: String(clock)).map(ReadTime.init)
        }
        return ReadTime(date: date, hour: h, minute: m, second: s, in: zone)
    }

    /// A row's time, and its wall-clock reading when it was written as a local time of the zone (to find the hours
    /// daylight saving time skips or repeats); nil for epoch numbers, offsets, and dates stamped at the close.
    struct ReadTime {
        var time: Timestamp
        var wall: Int64?

        init(_ time: Timestamp) {
            self.time = time
            wall = nil
        }

        init(date: CivilDate, hour: Int, minute: Int, second: Int, in zone: ExchangeTimeZone) {
            time = Timestamp(date, hour: hour, minute: minute, second: second, in: zone)
            wall = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        }
    }

    /// Whether a wall-clock time is one instant in the zone, none or two, with the year's transitions kept (one
    /// calendar computation per year of rows, not per row).
    struct WallClock {
        enum Kind { case unique, skipped, repeated }
        let zone: ExchangeTimeZone
        var year: Range<Int64> = 0..<0
        var transitions: (skipped: Range<Int64>, repeated: Range<Int64>)?

        init(zone: ExchangeTimeZone) { self.zone = zone }

        mutating func kind(_ wall: Int64) -> Kind {
            guard zone != .utc, zone != .shanghai else { return .unique }
            if !year.contains(wall) {
                let days = wall / 86_400 - (wall % 86_400 < 0 ? 1 : 0) // floor: rows before 1970 have negative seconds
                let y = CivilDate(daysSinceEpoch: Int(days)).year
                year =
                    Int64(CivilDate(y, 1, 1).daysSinceEpoch) * 86_400..<Int64(CivilDate(y + 1, 1, 1).daysSinceEpoch)
                    * 86_400
                transitions = zone.transitions(y)
            }
            guard let transitions else { return .unique }
            if transitions.skipped.contains(wall) { return .skipped }
            if transitions.repeated.contains(wall) { return .repeated }
            return .unique
        }
    }
}

/// The offset part of an RFC 3339 time.
enum RFC3339Time {
    static func parse(date: CivilDate, hour: Int, minute: Int, second: Int, clock: String) -> Timestamp? {
        let utc = Timestamp(date, hour: hour, minute: minute, second: second, in: .utc)
        if clock.hasSuffix("Z") { return utc }
        guard let sign = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        let offset = clock[clock.index(after: sign)...].split(separator: ":")
        // Offsets are hours 0–23 and minutes 0–59 (an offset of a billion hours overflowed the arithmetic below).
        guard let oh = offset.first.flatMap({ Int($0) }), (0..<24).contains(oh) else { return nil }
        let om = offset.count > 1 ? Int(offset[1]) ?? 0 : 0
        guard (0..<60).contains(om) else { return nil }
        let seconds = Int64((oh * 3600 + om * 60) * (clock[sign] == "-" ? -1 : 1))
        return utc.adding(seconds: -seconds)
    }
}

extension Substring {
    var trimmingQuotesAndSpaces: String {
        String(drop { $0 == " " || $0 == "\"" }.reversed().drop { $0 == " " || $0 == "\"" }.reversed())
    }
}

extension String {
    var replacingSlashes: String { String(map { $0 == "/" ? "-" : $0 }) }
}
