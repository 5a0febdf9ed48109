import BrokerageModel
import MarketData
import TradingCore

/// An account's history as storage and the market keep it: its ledger, its daily closes (`EquityDay`, brought up
/// to the last completed session), its intraday values and its benchmark. It holds no state of its own; the shard
/// reads it for the performance report and the day's profit.
struct AccountHistory: Sendable {
    let storage: ShardStores
    let market: SharedMarket
    let feed: any MarketDataFeed

    /// The account's latest reset, when it came after `anchor`'s close (or the account has no close before the
    /// period), with the starting cash it set.
    func resetSince(_ id: AccountID, anchor: EquityDay?) async throws(BrokerageError) -> (
        entry: LedgerEntry, start: FixedDecimal
    )? {
        var query = ActivityQuery()
        query.kinds = ["reset"]
        query.limit = 1
        let latest: LedgerEntry?
        do { latest = try await storage.accounts.activities(account: id, query: query).first } catch {
            throw .storage(error)
        }
        guard let latest, case .reset(let start) = latest.kind, latest.sequence > (anchor?.lastSequence ?? 0) else {
            return nil
        }
        return (latest, start)
    }

    /// The calendar an account's daily closes follow: its market's, or every UTC day while it holds crypto or has
    /// traded it in the last 30 days (a coin's value moves on weekends too, and its performance is counted over them).
    func calendar(_ record: AccountRecord, account: Account, at now: Timestamp) -> TradingCalendar {
        let today = TradingCalendar.crypto.zone.localTime(of: now).date
        let recent = account.cryptoVolume.days.last.map {
            today.daysSinceEpoch - $0.date.daysSinceEpoch <= CryptoVolume.window
        }
        let coins =
            recent == true
            || account.positions.values.contains { market.directory.entry($0.symbol)?.instrument.kind == .crypto }
        return coins ? .crypto : record.market.calendar
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
    func catchUp(_ record: AccountRecord, account: Account, at now: Timestamp) async throws(BrokerageError)
        -> EquityDay?
    {
        let id = record.id
        let calendar = self.calendar(record, account: account, at: now)
        var lastClosed = calendar.zone.localTime(of: now).date
        if !(calendar.schedule(on: lastClosed).map { $0.close <= now } ?? false) {
            lastClosed = calendar.previousTradingDay(before: lastClosed)
        }
        let stored: EquityDay?
        do { stored = try await storage.equityHistory.lastEquityDay(account: id, onOrBefore: nil) } catch {
            throw .storage(error)
        }
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
        do { try await storage.equityHistory.saveEquityDays(rows) } catch { throw .storage(error) }
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
            do { page = try await storage.accounts.activities(account: id, query: query) } catch {
                throw .storage(error)
            }
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
