import Foundation
import JSON
import MarketData
import TradingCore

/// IB's history grammar (`bar` 1min…1m, `period` {n}min/h/d/w/m/y) over the feed's bars, and IB's answer shape.
enum IBHistory {
    static func bar(_ text: String) -> BarTimeframe? {
        switch text.lowercased() {
        case "1min": return .minutes(1)
        case "2min": return .minutes(2)
        case "3min": return .minutes(3)
        case "5min", "5mins": return .minutes(5)
        case "10min": return .minutes(10)
        case "15min": return .minutes(15)
        case "30min": return .minutes(30)
        case "1h", "1hour": return .hours(1)
        case "2h": return .hours(2)
        case "3h": return .hours(3)
        case "4h": return .hours(4)
        case "8h": return .hours(8)
        case "1d", "1day": return .day
        case "1w", "1week": return .week
        case "1m", "1month": return .month
        default: return nil
        }
    }

    enum Period: Equatable {
        case minutes(Int), hours(Int), days(Int), weeks(Int), months(Int), years(Int)
    }

    static func period(_ text: String) -> Period? {
        let lower = text.lowercased()
        let digits = lower.prefix { $0.isNumber }
        guard let n = Int(digits), n >= 1 else { return nil }
        switch lower.dropFirst(digits.count) {
        case "min", "mins": return n <= 30 ? .minutes(n) : nil
        case "h": return n <= 8 ? .hours(n) : nil
        case "d": return n <= 1000 ? .days(n) : nil
        case "w": return n <= 792 ? .weeks(n) : nil
        case "m": return n <= 182 ? .months(n) : nil
        case "y": return n <= 15 ? .years(n) : nil
        default: return nil
        }
    }

    /// "20230818-13:30:00" (UTC).
    static func time(_ text: String) -> Timestamp? {
        let digits = text.filter(\.isNumber)
        guard digits.count == 14 || digits.count == 8 else { return nil }
        func part(_ from: Int, _ length: Int) -> Int? {
            let start = digits.index(digits.startIndex, offsetBy: from)
            return Int(digits[start..<digits.index(start, offsetBy: length)])
        }
        guard let y = part(0, 4), let mo = part(4, 2), let d = part(6, 2),
            let date = CivilDate(String(format: "%04d-%02d-%02d", y, mo, d))
        else {
            return nil
        }
        let h = digits.count == 14 ? part(8, 2) ?? 0 : 0
        let mi = digits.count == 14 ? part(10, 2) ?? 0 : 0
        let s = digits.count == 14 ? part(12, 2) ?? 0 : 0
        guard h < 24, mi < 60, s < 60 else { return nil }
        return Timestamp(date, in: .utc).adding(seconds: Int64(h * 3600 + mi * 60 + s))
    }

    static func start(of period: Period, before end: Timestamp, calendar: TradingCalendar) -> Timestamp {
        switch period {
        case .minutes(let n): return end.adding(seconds: -Int64(n) * 60)
        case .hours(let n): return end.adding(seconds: -Int64(n) * 3600)
        case .days(let n):
            // n trading days: back from the end's trading day through the calendar.
            var date = calendar.zone.localTime(of: end).date
            if calendar.schedule(on: date) == nil { date = calendar.previousTradingDay(before: date) }
            for _ in 1..<n { date = calendar.previousTradingDay(before: date) }
            return Timestamp(date, in: calendar.zone)
        case .weeks(let n): return end.adding(seconds: -Int64(n) * 7 * 86_400)
        case .months(let n):
            let date = calendar.zone.localTime(of: end).date.addingMonths(-n)
            return Timestamp(date, in: calendar.zone)
        case .years(let n):
            let date = calendar.zone.localTime(of: end).date.addingMonths(-12 * n)
            return Timestamp(date, in: calendar.zone)
        }
    }

    static func seconds(_ bar: BarTimeframe) -> Int {
        switch bar {
        case .minutes(let n): return n * 60
        case .hours(let n): return n * 3600
        case .day: return 86_400
        case .week: return 604_800
        case .month: return 2_592_000
        }
    }

    static func answer(
        _ entry: DirectoryEntry, bar: BarTimeframe, barText: String, period: Period, periodText: String,
        end: Timestamp, outsideRTH: Bool, feed: any MarketDataFeed
    ) async throws -> JSONValue {
        let calendar = entry.instrument.calendar
        let from = start(of: period, before: end, calendar: calendar)
        let bars: [PriceBar]
        do { bars = try await feed.bars(entry.symbol, timeframe: bar, from: from, to: end) } catch {
            throw IBError(.serviceUnavailable, "market data unavailable: \(error)")
        }
        guard let lastBar = bars.last,
            let high = bars.max(by: { $0.high < $1.high }), let low = bars.min(by: { $0.low < $1.low })
        else { throw IBError(.badRequest, "No data.") }
        let places = max(2, entry.instrument.tick.places(at: lastBar.close))
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let factor = FixedDecimal(scale)
        func scaled(_ p: Price) -> String { p.multiplied(by: factor, places: 0, rule: .halfEven).description }
        func minutesSince(_ b: PriceBar) -> Int { Int((end.nanoseconds - b.time.nanoseconds) / 60_000_000_000) }
        let data: [JSONValue] = bars.map { b in
            .object([
                "o": .number(b.open.description), "c": .number(b.close.description), "h": .number(b.high.description),
                "l": .number(b.low.description), "v": .number(b.volume.description),
                "t": .int(Int(b.time.nanoseconds / 1_000_000)),
            ])
        }
        return .object([
            "serverId": .string(String(IBConid.conid(entry.instrument) % 100_000)), "symbol": .string(entry.symbol),
            "text": .string(entry.name), "priceFactor": .int(factor.integerPart ?? 100),
            "startTime": .string(IBEncoding.tradeTime(bars[0].time)),
            "high": .string(
                "\(scaled(high.high))/\(high.volume.rounded(places: 0, rule: .down))/\(minutesSince(high))"),
            "low": .string("\(scaled(low.low))/\(low.volume.rounded(places: 0, rule: .down))/\(minutesSince(low))"),
            "timePeriod": .string(periodText), "barLength": .int(seconds(bar)), "mdAvailability": .string("S"),
            "mktDataDelay": .int(0), "outsideRth": .bool(outsideRTH), "volumeFactor": .int(1),
            "priceDisplayRule": .int(1), "priceDisplayValue": .string(String(places)), "negativeCapable": .bool(false),
            "messageVersion": .int(2), "data": .array(data), "points": .int(data.count), "travelTime": .int(0),
            "barText": .string(barText),
        ])
    }
}

extension IBGateway {
    /// At most five history requests at once, as IB's gateway (429 past it).
    func beginHistory() -> Bool {
        state.withLock { s in
            guard s.historyRequests < 5 else { return false }
            s.historyRequests += 1
            return true
        }
    }

    func endHistory() { state.withLock { $0.historyRequests -= 1 } }

    /// One snapshot entry for a contract: the quote's fields, the selected account's position in it, and the
    /// 52-week range when asked for (fields 7293/7294).
    func snapshot(_ entry: DirectoryEntry, fields: [String]) async throws -> JSONValue {
        let quote: MarketQuote
        do { quote = try await market.feed.quote(entry.symbol) } catch {
            throw IBError(.serviceUnavailable, "market data unavailable for \(entry.symbol)")
        }
        var context = IBMarketFields.Context(entry: entry)
        let wantsPosition =
            fields.isEmpty
            || fields.contains {
                ["73", "74", "75", "76", "77", "78", "79", "80", "7292", "7920", "7921"].contains($0)
            }
        if wantsPosition, let account = try? await selectedAccount(), account.market == entry.instrument.market {
            context.position = try await accountService.summary(account.id).positions.first {
                $0.instrument.symbol == entry.symbol
            }
        }
        if fields.isEmpty || fields.contains("7293") || fields.contains("7294") {
            context.yearRange = await yearRange(entry)
        }
        return IBMarketFields.snapshot(quote, context, requested: fields, updated: market.clock.now())
    }

    /// The 52-week high and low (`MarketDataFeed.yearRange`: the year's daily bars and today so far).
    func yearRange(_ entry: DirectoryEntry) async -> (high: Price, low: Price)? {
        await market.feed.yearRange(entry.symbol, now: market.clock.now())
    }
}
