import MarketData
import TradingCore

/// The periods a performance request can name.
public enum PerformancePeriod: String, Sendable, CaseIterable {
    case day = "1D"
    case week = "1W"
    case month = "1M"
    case threeMonths = "3M"
    case sixMonths = "6M"
    case yearToDate = "YTD"
    case year = "1Y"
    case all = "ALL"

    /// The last close before the period, counted back from `end` (nil for ALL: from the account's opening).
    func anchor(before end: CivilDate, calendar: TradingCalendar) -> CivilDate? {
        switch self {
        case .day: return calendar.previousTradingDay(before: end)
        case .week: return end.adding(days: -7)
        case .month: return end.addingMonths(-1)
        case .threeMonths: return end.addingMonths(-3)
        case .sixMonths: return end.addingMonths(-6)
        case .yearToDate: return CivilDate(end.year - 1, 12, 31)
        case .year: return end.addingMonths(-12)
        case .all: return nil
        }
    }

    /// Points through the trading day instead of one per close: 5-minute for a day, 30-minute for a week.
    var intradayStep: Int64? {
        switch self {
        case .day: return 5 * Duration64.minute
        case .week: return 30 * Duration64.minute
        default: return nil
        }
    }
}

/// How densely the chart is drawn.
public enum ChartResolution: Sendable, Hashable {
    /// 5-minute points for 1D, 30-minute for 1W, one per close otherwise.
    case periodDefault
    /// One point per close.
    case daily
    /// A point every so many nanoseconds through the sessions (1D and 1W only; longer periods are daily).
    case every(Int64)
}

/// One point of the performance chart: the value at a time and the money that came in since the last point.
public struct PerformancePoint: Sendable, Hashable {
    public var time: Timestamp
    public var value: FixedDecimal
    public var flow: FixedDecimal
}

/// A holding in the performance report.
public struct HoldingPerformance: Sendable {
    public var summary: PositionSummary
    /// Realized P&L of the position to date, net of its fees.
    public var realizedPnL: FixedDecimal
    public var dividends: FixedDecimal
    /// Market value as a fraction of the account's equity (6 places).
    public var share: FixedDecimal
}

/// The benchmark index over the report's dates.
public struct BenchmarkPerformance: Sendable {
    public var index: MarketIndex
    /// Price return from the close at the report's start to the last value (nil when the feed has no bars).
    public var periodReturn: FixedDecimal?
    public var series: [(time: Timestamp, value: FixedDecimal)]
}

/// An account's performance over a period: the figures (`PerformanceMetrics`), the chart, the benchmark and the
/// holdings.
public struct PerformanceReport: Sendable {
    public var accountID: AccountID
    public var currency: Currency
    public var period: PerformancePeriod?
    public var figures: PerformanceFigures
    /// Realized P&L of the period's sales, before fees.
    public var realizedPnL: FixedDecimal
    /// Unrealized P&L of what is held now.
    public var unrealizedPnL: FixedDecimal
    public var series: [PerformancePoint]
    public var benchmark: BenchmarkPerformance?
    public var holdings: [HoldingPerformance]
}

extension Shard {
    /// An account's performance over `period`, or from `start` through `end` (dates in the market's time zone).
    ///
    /// Reads the daily closes (`EquityDay`, brought up to the last completed session first) instead of replaying
    /// the ledger, adds a live point for the session in progress, and computes every figure with
    /// `PerformanceMetrics`.
    func performance(
        _ id: AccountID, period: PerformancePeriod?, start: CivilDate? = nil, end: CivilDate? = nil,
        resolution: ChartResolution = .periodDefault
    ) async throws(BrokerageError) -> PerformanceReport {
        guard let record = records[id], let account = engine.account(id) else { throw .notFound("account not found") }
        let calendar = record.market.calendar
        let now = clock.now()
        let today = calendar.zone.localTime(of: now).date
        let latest = try await catchUpEquityDays(id)
        let endDate = Swift.min(end ?? today, today)
        // A day's chart starts at the close before the latest session that has opened (Friday's on a weekend).
        var periodEnd = endDate
        if period == .day, end == nil, !(calendar.schedule(on: today).map { $0.open <= now } ?? false) {
            periodEnd = calendar.previousTradingDay(before: today)
        }
        let anchorDate = start.map { $0.adding(days: -1) } ?? period?.anchor(before: periodEnd, calendar: calendar)
        if let start, start > endDate { throw .invalid("start \(start) is after end \(endDate)") }

        var rows: [EquityDay]
        let anchor: EquityDay?
        do {
            if let anchorDate {
                anchor = try await storage.lastEquityDay(account: id, onOrBefore: anchorDate)
            } else {
                anchor = nil
            }
            rows = try await storage.equityDays(
                account: id, from: (anchor?.date ?? anchorDate)?.adding(days: 1), through: endDate, withHoldings: false)
        } catch { throw .storage(error) }

        // The starting point: the close before the period, or nothing the day before the account opened — or, when
        // the account was reset since that close, its new starting cash at the reset: a reset starts the figures
        // afresh, as if the account had opened with it then (what came before, that day's moves too, is gone).
        let restart = try await resetSince(id, anchor: anchor)
        // The entries since the reset, read once: what moved in after it is summed from them for each first point.
        var sinceReset: [LedgerEntry] = []
        if let restart { sinceReset = try await ledgerEntries(id, after: restart.entry.sequence) }
        var points: [ValuationPoint] = []
        var series: [PerformancePoint] = []
        if let restart {
            rows.removeAll { $0.lastSequence < restart.entry.sequence }
            let resetDate = calendar.zone.localTime(of: restart.entry.time).date
            points.append(ValuationPoint(date: resetDate.adding(days: -1), value: restart.start))
        } else if let anchor {
            points.append(ValuationPoint(date: anchor.date, value: anchor.equity))
        } else {
            let opened = calendar.zone.localTime(of: record.createdAt).date
            points.append(ValuationPoint(date: (rows.first?.date ?? opened).adding(days: -1), value: .zero))
        }
        for row in rows { points.append(row.valuation) }
        // The first close after a reset counts the money moved since the reset, not the reset itself.
        if let restart, let first = rows.first {
            points[1].flow = Self.movedIn(sinceReset, through: first.lastSequence)
        }

        // The session in progress, money moved since the last close, or an account without a close yet: a live
        // point at the current value.
        let summary = try await self.summary(id, dayProfit: true)
        var realized = rows.reduce(FixedDecimal.zero) { $0 + $1.realizedPnL }
        if end.map({ $0 >= today }) ?? true {
            var builder: EquityDayBuilder
            let since: [LedgerEntry]
            if let latest {
                builder = EquityDayBuilder(continuing: latest, currency: account.currency)
                since = try await ledgerEntries(id, after: latest.lastSequence)
            } else {
                since = try await ledgerEntries(id, after: 0)
                let opening = EquityDayBuilder.openingCash(ledger: since, startingCash: account.startingCash)
                builder = EquityDayBuilder(accountID: id, currency: account.currency, openingCash: opening)
            }
            for entry in since { builder.apply(entry) }
            if latest == nil || !since.isEmpty || latest.map({ $0.date < today }) == true {
                let live = builder.close(date: Swift.max(today, latest?.date ?? today), closes: [:])
                var flow = live.flow
                if let restart, rows.isEmpty {
                    // The reset is since the last close: the live point counts what moved in after it.
                    flow = Self.movedIn(sinceReset, through: Int64.max)
                }
                points.append(
                    ValuationPoint(
                        date: live.date, value: summary.equity, flow: flow, dividends: live.dividends,
                        fees: live.fees))
                realized += live.realizedPnL
            }
        }
        guard let figures = PerformanceMetrics.figures(points) else { throw .notFound("account has no history yet") }

        var step: Int64?
        if period == .day || period == .week {
            switch resolution {
            case .periodDefault: step = period?.intradayStep
            case .daily: step = nil
            case .every(let n): step = Swift.max(n, Duration64.minute)
            }
        }
        if let step, let anchor {
            series = try await intradaySeries(
                id, from: anchor, through: now, step: step, calendar: calendar, currency: account.currency)
            series.append(PerformancePoint(time: now, value: summary.equity, flow: points.last?.flow ?? .zero))
            if let restart {
                // The chart starts at the reset, from the new starting cash.
                series.removeAll { $0.time <= restart.entry.time }
                if !series.isEmpty {
                    series[0].flow = Self.movedIn(sinceReset, through: Int64.max, until: series[0].time)
                }
                series.insert(PerformancePoint(time: restart.entry.time, value: restart.start, flow: .zero), at: 0)
            }
        } else {
            // The chart starts at the first point with money in it (the figures keep the empty start).
            let drawn = points.first.map { $0.value.isZero } == true ? Array(points.dropFirst()) : points
            series = drawn.enumerated().map { i, point in
                let close =
                    calendar.schedule(on: point.date)?.close ?? Timestamp(point.date, hour: 16, in: calendar.zone)
                return PerformancePoint(
                    time: i == drawn.count - 1 && point.date >= today ? Swift.min(now, close) : close,
                    value: point.value, flow: i == 0 ? .zero : point.flow)
            }
        }

        let index: MarketIndex = record.market == .us ? .sp500 : .sseComposite
        let benchmark = await benchmark(
            index, from: series.first?.time ?? now, to: now, intradayStep: anchor == nil ? nil : step)

        let holdings = summary.positions.map { position in
            HoldingPerformance(
                summary: position, realizedPnL: position.position.realizedPnL, dividends: .zero,
                share: summary.equity.isPositive
                    ? position.valuation.marketValue.divided(by: summary.equity, places: 6) ?? .zero : .zero)
        }
        return PerformanceReport(
            accountID: id, currency: account.currency, period: period, figures: figures, realizedPnL: realized,
            unrealizedPnL: summary.positions.reduce(FixedDecimal.zero) { $0 + $1.valuation.unrealizedPnL },
            series: series, benchmark: benchmark, holdings: holdings)
    }

    /// The account's latest reset, when it came after `anchor`'s close (or the account has no close before the
    /// period), with the starting cash it set.
    func resetSince(_ id: AccountID, anchor: EquityDay?) async throws(BrokerageError) -> (
        entry: LedgerEntry, start: FixedDecimal
    )? {
        var query = ActivityQuery()
        query.kinds = ["reset"]
        query.limit = 1
        let latest: LedgerEntry?
        do { latest = try await storage.activities(account: id, query: query).first } catch { throw .storage(error) }
        guard let latest, case .reset(let start) = latest.kind, latest.sequence > (anchor?.lastSequence ?? 0) else {
            return nil
        }
        return (latest, start)
    }

    /// Deposits less withdrawals among `entries` through sequence `through` (and at or before `until`).
    static func movedIn(_ entries: [LedgerEntry], through: Int64, until: Timestamp? = nil) -> FixedDecimal {
        entries.reduce(.zero) { total, entry in
            guard entry.sequence <= through, until.map({ entry.time <= $0 }) ?? true else { return total }
            switch entry.kind {
            case .deposit, .withdrawal: return total + entry.cashChange
            default: return total
            }
        }
    }

    /// Brings an account's daily closes up to the last completed session: from its last stored close, or — the
    /// first time — from its opening, replaying the ledger (a backfill gives the rows the recorder would have).
    /// Returns the latest close (nil before the account's first session has closed).
    @discardableResult
    func catchUpEquityDays(_ id: AccountID) async throws(BrokerageError) -> EquityDay? {
        guard let record = records[id], let account = engine.account(id) else { throw .notFound("account not found") }
        let calendar = record.market.calendar
        let now = clock.now()
        var lastClosed = calendar.zone.localTime(of: now).date
        if !(calendar.schedule(on: lastClosed).map { $0.close <= now } ?? false) {
            lastClosed = calendar.previousTradingDay(before: lastClosed)
        }
        let stored: EquityDay?
        do { stored = try await storage.lastEquityDay(account: id, onOrBefore: nil) } catch { throw .storage(error) }
        if let stored, stored.date >= lastClosed { return stored }

        var builder: EquityDayBuilder
        var firstDay: CivilDate
        let entries: [LedgerEntry]
        if let stored {
            builder = EquityDayBuilder(continuing: stored, currency: account.currency)
            firstDay = calendar.nextTradingDay(after: stored.date)
            entries = try await ledgerEntries(id, after: stored.lastSequence)
        } else {
            entries = try await ledgerEntries(id, after: 0)
            let opening = EquityDayBuilder.openingCash(ledger: entries, startingCash: account.startingCash)
            builder = EquityDayBuilder(accountID: id, currency: account.currency, openingCash: opening)
            // The first close the account saw: its opening day's, if it opened before that close.
            firstDay = calendar.zone.localTime(of: record.createdAt).date
            if !(calendar.schedule(on: firstDay).map { record.createdAt < $0.close } ?? false) {
                firstDay = calendar.nextTradingDay(after: firstDay)
            }
        }
        guard firstDay <= lastClosed else { return stored }
        let days = calendar.tradingDays(from: firstDay, through: lastClosed)

        // Each symbol held on any of these days gets its daily closes in one request.
        var symbols = Set(builder.holdings.keys)
        for entry in entries { symbols.formUnion(Self.symbolsTraded(by: entry)) }
        let from = Timestamp(firstDay.adding(days: -7), in: calendar.zone)
        let to = calendar.schedule(on: lastClosed)?.close ?? now
        var closes: [CivilDate: [String: Price]] = [:]
        for symbol in symbols {
            for bar in (try? await market.bars(symbol, timeframe: .day, from: from, to: to)) ?? [] {
                closes[calendar.zone.localTime(of: bar.time).date, default: [:]][symbol] = bar.close
            }
        }

        var rows: [EquityDay] = []
        rows.reserveCapacity(days.count)
        var next = 0
        for day in days {
            let close = calendar.schedule(on: day)?.close ?? to
            while next < entries.count, entries[next].time <= close {
                builder.apply(entries[next])
                next += 1
            }
            rows.append(builder.close(date: day, closes: closes[day] ?? [:]))
        }
        do { try await storage.saveEquityDays(rows) } catch { throw .storage(error) }
        return rows.last ?? stored
    }

    /// The symbols an entry brings into (or out of) the holdings: a fill's, and the shares an exercise delivers.
    static func symbolsTraded(by entry: LedgerEntry) -> [String] {
        switch entry.kind {
        case .fill(let fill): return [fill.symbol]
        case .optionDelivery(let delivery): return [delivery.symbol]
        default: return []
        }
    }

    /// Every ledger entry of an account after `sequence`, oldest first (paged through storage).
    func ledgerEntries(_ id: AccountID, after sequence: Int64) async throws(BrokerageError) -> [LedgerEntry] {
        var entries: [LedgerEntry] = []
        var query = ActivityQuery()
        query.ascending = true
        query.limit = 1000
        query.afterSequence = sequence
        while true {
            let page: [LedgerEntry]
            do { page = try await storage.activities(account: id, query: query) } catch { throw .storage(error) }
            entries += page
            guard page.count == query.limit, let last = page.last else { return entries }
            query.afterSequence = last.sequence
        }
    }

    /// Values through the sessions since `anchor`'s close every `step`, holdings at the last bar before each point.
    func intradaySeries(
        _ id: AccountID, from anchor: EquityDay, through now: Timestamp, step: Int64, calendar: TradingCalendar,
        currency: Currency
    ) async throws(BrokerageError) -> [PerformancePoint] {
        var builder = EquityDayBuilder(continuing: anchor, currency: currency)
        let entries = try await ledgerEntries(id, after: anchor.lastSequence)
        let start = calendar.schedule(on: anchor.date)?.close ?? Timestamp(anchor.date, hour: 16, in: calendar.zone)
        var symbols = Set(anchor.holdings.keys)
        for entry in entries { symbols.formUnion(Self.symbolsTraded(by: entry)) }
        let timeframe: BarTimeframe = .minutes(Int(step / Duration64.minute))
        var bars: [String: [PriceBar]] = [:]
        for symbol in symbols {
            bars[symbol] = (try? await market.bars(symbol, timeframe: timeframe, from: start, to: now)) ?? []
        }
        var points = [PerformancePoint(time: start, value: anchor.equity, flow: .zero)]
        var next = 0
        var barIndex: [String: Int] = [:]
        var marks: [String: Price] = [:]
        for day in calendar.tradingDays(
            from: calendar.nextTradingDay(after: anchor.date), through: calendar.zone.localTime(of: now).date)
        {
            guard let schedule = calendar.schedule(on: day) else { continue }
            for period in schedule.periods where period.phase == .continuous {
                var t = period.start.adding(nanoseconds: step)
                while t <= period.end && t <= now {
                    while next < entries.count, entries[next].time <= t {
                        builder.apply(entries[next])
                        next += 1
                    }
                    for (symbol, series) in bars {
                        var i = barIndex[symbol, default: 0]
                        while i < series.count, series[i].time.adding(nanoseconds: step) <= t {
                            marks[symbol] = series[i].close
                            i += 1
                        }
                        barIndex[symbol] = i
                    }
                    let point = builder.close(date: day, closes: marks)
                    points.append(PerformancePoint(time: t, value: point.equity, flow: point.flow))
                    t = t.adding(nanoseconds: step)
                }
            }
        }
        return points
    }

    /// The index's return and closes (or intraday bars) over the chart's span.
    func benchmark(_ index: MarketIndex, from start: Timestamp, to end: Timestamp, intradayStep: Int64?) async
        -> BenchmarkPerformance
    {
        let timeframe: BarTimeframe = intradayStep.map { .minutes(Int($0 / Duration64.minute)) } ?? .day
        // From a week before, so the close at the start is known even after a holiday.
        let from = start.adding(seconds: -7 * 86_400)
        let bars: [PriceBar]
        if timeframe == .day {
            bars = await market.dailyIndexBars(index, from: from, to: end)
        } else {
            bars = (try? await feed.indexBars(index, timeframe: timeframe, from: from, to: end)) ?? []
        }
        let startBar = bars.last { $0.time <= start } ?? bars.first
        let inSpan = bars.filter { $0.time > start }
        var series = startBar.map { [(time: start, value: $0.close)] } ?? []
        series += inSpan.map { (time: $0.time, value: $0.close) }
        var periodReturn: FixedDecimal?
        if let first = startBar?.close, let last = inSpan.last?.close, first.isPositive {
            periodReturn = (last - first).divided(by: first)
        }
        return BenchmarkPerformance(index: index, periodReturn: periodReturn, series: series)
    }
}

extension CivilDate {
    /// The same day `months` months away, clamped to the month's last day.
    public func addingMonths(_ months: Int) -> CivilDate {
        let index = year * 12 + (month - 1) + months
        // Floor division, so a month before year 0 is still a month (1...12), never an invalid date.
        let y = index >= 0 ? index / 12 : (index - 11) / 12
        let m = index - y * 12 + 1
        return CivilDate(y, m, Swift.min(day, CivilDate.daysIn(month: m, year: y)))
    }
}
