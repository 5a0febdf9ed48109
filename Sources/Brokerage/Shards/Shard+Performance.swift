import BrokerageModel
import MarketData
import TradingCore

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
        let now = clock.now()
        let calendar = history.calendar(record, account: account, at: now)
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
                anchor = try await storage.equityHistory.lastEquityDay(account: id, onOrBefore: anchorDate)
            } else {
                anchor = nil
            }
            rows = try await storage.equityHistory.equityDays(
                account: id, from: (anchor?.date ?? anchorDate)?.adding(days: 1), through: endDate, withHoldings: false)
        } catch { throw .storage(error) }

        // The starting point: the close before the period, or nothing the day before the account opened — or, when
        // the account was reset since that close, its new starting cash at the reset: a reset starts the figures
        // afresh, as if the account had opened with it then (what came before, that day's moves too, is gone).
        let restart = try await history.resetSince(id, anchor: anchor)
        // The entries since the reset, read once: what moved in after it is summed from them for each first point.
        var sinceReset: [LedgerEntry] = []
        if let restart { sinceReset = try await history.ledgerEntries(id, after: restart.entry.sequence) }
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
        if restart != nil, let first = rows.first {
            points[1].flow = AccountHistory.movedIn(sinceReset, through: first.lastSequence)
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
                since = try await history.ledgerEntries(id, after: latest.lastSequence)
            } else {
                since = try await history.ledgerEntries(id, after: 0)
                let opening = EquityDayBuilder.openingCash(ledger: since, startingCash: account.startingCash)
                builder = EquityDayBuilder(accountID: id, currency: account.currency, openingCash: opening)
            }
            for entry in since { builder.apply(entry) }
            if latest == nil || !since.isEmpty || latest.map({ $0.date < today }) == true {
                let live = builder.close(date: Swift.max(today, latest?.date ?? today), closes: [:])
                var flow = live.flow
                if restart != nil, rows.isEmpty {
                    // The reset is since the last close: the live point counts what moved in after it.
                    flow = AccountHistory.movedIn(sinceReset, through: Int64.max)
                }
                points.append(
                    ValuationPoint(
                        date: live.date, value: summary.equity, flow: flow, dividends: live.dividends,
                        fees: live.fees))
                realized += live.realizedPnL
            }
        }
        let perYear =
            calendar == .crypto ? PerformanceMetrics.calendarDaysPerYear : PerformanceMetrics.periodsPerYear
        guard let figures = PerformanceMetrics.figures(points, periodsPerYear: perYear) else {
            throw .notFound("account has no history yet")
        }

        var step: Int64?
        if period == .day || period == .week {
            switch resolution {
            case .periodDefault: step = period?.intradayStep
            case .daily: step = nil
            case .every(let n): step = Swift.max(n, Duration64.minute)
            }
        }
        if let step, let anchor {
            series = try await history.intradaySeries(
                id, from: anchor, through: now, step: step, calendar: calendar, currency: account.currency)
            series.append(PerformancePoint(time: now, value: summary.equity, flow: points.last?.flow ?? .zero))
            if let restart {
                // The chart starts at the reset, from the new starting cash.
                series.removeAll { $0.time <= restart.entry.time }
                if !series.isEmpty {
                    series[0].flow = AccountHistory.movedIn(sinceReset, through: Int64.max, until: series[0].time)
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
        let benchmark = await history.benchmark(
            index, from: series.first?.time ?? now, to: now, intradayStep: anchor == nil ? nil : step)

        let holdings = summary.positions.map { position in
            HoldingPerformance(
                summary: position, realizedPnL: position.position.realizedPnL, dividends: .zero,
                share: summary.equity.isPositive
                    ? position.valuation.marketValue.divided(by: summary.equity, places: 6) ?? .zero : .zero)
        }
        return PerformanceReport(
            accountID: id, currency: account.currency, period: period, figures: figures, realizedPnL: realized,
            // (Other currencies held gain or lose at their rates as positions do at their prices.)
            unrealizedPnL: summary.positions.reduce(FixedDecimal.zero) { $0 + $1.valuation.unrealizedPnL }
                + summary.currencies.reduce(FixedDecimal.zero) { $0 + $1.unrealizedPnL },
            series: series, benchmark: benchmark, holdings: holdings)
    }

    /// What storage and the market keep of this shard's accounts' pasts.
    var history: AccountHistory { AccountHistory(storage: storage, market: market, feed: feed) }

    /// Brings an account's daily closes up to the last completed session (`AccountHistory.catchUp`); returns the
    /// latest close (nil before the account's first session has closed).
    @discardableResult
    func catchUpEquityDays(_ id: AccountID) async throws(BrokerageError) -> EquityDay? {
        guard let record = records[id], let account = engine.account(id) else { throw .notFound("account not found") }
        return try await history.catchUp(record, account: account, at: clock.now())
    }

    /// Every ledger entry of an account after `sequence`, oldest first.
    func ledgerEntries(_ id: AccountID, after sequence: Int64) async throws(BrokerageError) -> [LedgerEntry] {
        try await history.ledgerEntries(id, after: sequence)
    }
}
