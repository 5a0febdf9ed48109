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
        if smallest == .max || smallest >= 20 * Duration64.hour { return .daily }
        return .intraday(seconds: smallest / 1_000_000_000)
    }
}

public enum BarFrequency: Sendable, Hashable, CustomStringConvertible {
    case daily
    case intraday(seconds: Int64)

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
public enum CSVBars {
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses `text`; `symbol` names the series of a file without a symbol column. `closeHour`/`closeMinute` is when
    /// a date-only bar is stamped (the market's close in `zone`).
    public static func parse(
        _ text: String, symbol defaultSymbol: String, zone: ExchangeTimeZone, closeHour: Int = 16, closeMinute: Int = 0
    ) throws(Problem) -> [BarSeries] {
        var lines = text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }[...]
        guard let header = lines.popFirst() else { throw Problem(description: "the CSV file is empty") }
        let names = header.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingQuotesAndSpaces.lowercased()
        }
        func column(_ candidates: [String]) -> Int? { candidates.lazy.compactMap { names.firstIndex(of: $0) }.first }
        guard let timeColumn = column(["datetime", "date", "timestamp", "time"]) else {
            throw Problem(description: "the header needs a date, datetime, timestamp or time column: \(header)")
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
        for line in lines {
            lineNumber += 1
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingQuotesAndSpaces }
            guard fields.count == names.count else {
                throw Problem(
                    description: "line \(lineNumber) has \(fields.count) fields; the header has \(names.count)")
            }
            guard
                let time = parseTime(
                    fields[timeColumn], zone: zone, closeHour: closeHour, closeMinute: closeMinute)
            else {
                throw Problem(description: "line \(lineNumber): cannot read the time \"\(fields[timeColumn])\"")
            }
            var values: [Price] = []
            for i in indices {
                guard let v = try? FixedDecimal(parsing: fields[i]), v.isPositive else {
                    throw Problem(
                        description: "line \(lineNumber): \"\(fields[i])\" is not a positive price (\(names[i]))")
                }
                values.append(v)
            }
            var volume = Quantity.zero
            if let volumeColumn, !fields[volumeColumn].isEmpty {
                guard let v = try? FixedDecimal(parsing: fields[volumeColumn]), !v.isNegative else {
                    throw Problem(description: "line \(lineNumber): \"\(fields[volumeColumn])\" is not a volume")
                }
                volume = v
            }
            let bar = HistoricalBar(
                time: time, open: values[0], high: max(values[1], values[0], values[3]),
                low: min(values[2], values[0], values[3]), close: values[3], volume: volume)
            let symbol = symbolColumn.map { fields[$0].uppercased() } ?? defaultSymbol
            if series[symbol] == nil { order.append(symbol) }
            if let last = series[symbol]?.last, last.time >= time {
                throw Problem(description: "line \(lineNumber): \(symbol)'s bars are not in time order")
            }
            series[symbol, default: []].append(bar)
        }
        guard !order.isEmpty else { throw Problem(description: "the CSV file has a header and no bars") }
        return order.map { BarSeries(symbol: $0, bars: series[$0] ?? []) }
    }

    static func parseTime(_ text: String, zone: ExchangeTimeZone, closeHour: Int, closeMinute: Int) -> Timestamp? {
        if !text.isEmpty, text.allSatisfy(\.isNumber), let n = Int64(text) {
            return text.count >= 13 ? Timestamp(nanoseconds: n * 1_000_000) : Timestamp(seconds: n)
        }
        let normalized = text.replacingSlashes
        guard normalized.count >= 10, let date = CivilDate(String(normalized.prefix(10))) else { return nil }
        let rest = normalized.dropFirst(10)
        if rest.isEmpty { return Timestamp(date, hour: closeHour, minute: closeMinute, in: zone) }
        let clock = rest.dropFirst() // "T" or " "
        let parts = clock.prefix(8).split(separator: ":")
        guard parts.count >= 2, let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m)
        else { return nil }
        let s = parts.count > 2 ? Int(parts[2].prefix(2)) ?? 0 : 0
        // With an offset (or Z) the text says its own zone.
        if let last = clock.last, last == "Z" || clock.contains("+") || clock.dropFirst(6).contains("-") {
            _ = last
            return RFC3339Time.parse(date: date, hour: h, minute: m, second: s, clock: String(clock))
        }
        return Timestamp(date, hour: h, minute: m, second: s, in: zone)
    }
}

/// The offset part of an RFC 3339 time.
enum RFC3339Time {
    static func parse(date: CivilDate, hour: Int, minute: Int, second: Int, clock: String) -> Timestamp? {
        let utc = Timestamp(date, hour: hour, minute: minute, second: second, in: .utc)
        if clock.hasSuffix("Z") { return utc }
        guard let sign = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        let offset = clock[clock.index(after: sign)...].split(separator: ":")
        guard let oh = offset.first.flatMap({ Int($0) }) else { return nil }
        let om = offset.count > 1 ? Int(offset[1]) ?? 0 : 0
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
