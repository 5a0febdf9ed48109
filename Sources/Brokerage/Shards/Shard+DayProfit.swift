import TradingCore

extension Shard {
    /// The close "today" counts from: the one before the latest session that has opened (Thursday's all through
    /// Friday and the weekend), as the performance report's 1D period.
    static func dayProfitAnchor(calendar: TradingCalendar, at now: Timestamp) -> CivilDate {
        let today = calendar.zone.localTime(of: now).date
        let opened = calendar.schedule(on: today).map { $0.open <= now } ?? false
        let session = opened ? today : calendar.previousTradingDay(before: today)
        return calendar.previousTradingDay(before: session)
    }

    /// An account's profit since the close before the current session, for `equity` and holdings `values` now.
    ///
    /// The tracker is built from storage once per session (the stored close, then the ledger since it) and then
    /// kept current by `stage()`, which folds in every ledger entry as the engine makes it; entries the engine made
    /// since the last step are read from its outbox. Nil when storage cannot be read (the summary then keeps the
    /// price-based day change).
    func dayProfit(
        _ id: AccountID, account: Account, equity: FixedDecimal, values: [String: FixedDecimal]
    ) async -> DayProfit? {
        guard let record = records[id] else { return nil }
        let anchor = Self.dayProfitAnchor(calendar: record.market.calendar, at: clock.now())
        var tracker: DayProfitTracker
        if let cached = dayProfits.tracker(for: id, since: anchor) {
            tracker = cached
        } else {
            guard let built = await buildDayProfit(id, account: account, anchor: anchor) else { return nil }
            tracker = built
        }
        // Entries the engine has made since the last step.
        for case .ledger(let entry) in engine.outbox where entry.accountID == id { tracker.apply(entry) }
        return tracker.profit(equity: equity, values: values)
    }

    /// Reads the account's row at `anchor`'s close and the ledger since. Steps staged while it reads are buffered
    /// by `dayProfits` and folded in; steps staged before are waited for, so storage has them.
    private func buildDayProfit(_ id: AccountID, account: Account, anchor: CivilDate) async -> DayProfitTracker? {
        let owned = dayProfits.beginBuilding(id)
        await flush()
        do {
            _ = try await catchUpEquityDays(id)
            let close = try await storage.equityHistory.lastEquityDay(account: id, onOrBefore: anchor)
            let entries = try await ledgerEntries(id, after: close?.lastSequence ?? 0)
            // An account that opened after the close counts from its opening cash.
            var tracker = DayProfitTracker(
                close: close, currency: account.currency,
                openingCash: close == nil
                    ? EquityDayBuilder.openingCash(ledger: entries, startingCash: account.startingCash) : .zero,
                accountID: id)
            for entry in entries { tracker.apply(entry) }
            return owned ? dayProfits.finish(id, since: anchor, tracker: tracker) : tracker
        } catch {
            if owned { dayProfits.abandon(id) }
            return nil
        }
    }
}

/// Each account's `DayProfitTracker`, for the session it counts: built from storage once a session, then kept current
/// by every ledger entry the shard stages (`record`). Trackers are mutated in place in their dictionary (a ledger entry
/// costs a few dictionary updates, never a copy of a tracker's holdings).
struct DayProfitBook {
    /// Ready trackers, and the close each counts from.
    private var trackers: [AccountID: DayProfitTracker] = [:]
    private var anchors: [AccountID: CivilDate] = [:]
    /// Accounts whose tracker storage is being read for: entries staged meanwhile wait here.
    private var building: [AccountID: [LedgerEntry]] = [:]

    /// A staged ledger entry.
    mutating func record(_ entry: LedgerEntry) {
        building[entry.accountID]?.append(entry)
        trackers[entry.accountID]?.apply(entry)
    }

    func tracker(for id: AccountID, since anchor: CivilDate) -> DayProfitTracker? {
        anchors[id] == anchor ? trackers[id] : nil
    }

    /// Starts buffering `id`'s entries; false when another build is already doing so (that one keeps the result).
    mutating func beginBuilding(_ id: AccountID) -> Bool {
        guard building[id] == nil else { return false }
        building[id] = []
        trackers[id] = nil
        anchors[id] = nil
        return true
    }

    /// The built tracker with the entries staged while it was read folded in, kept for the session.
    mutating func finish(_ id: AccountID, since anchor: CivilDate, tracker built: DayProfitTracker) -> DayProfitTracker
    {
        var tracker = built
        for entry in building.removeValue(forKey: id) ?? [] { tracker.apply(entry) }
        trackers[id] = tracker
        anchors[id] = anchor
        return tracker
    }

    /// A build that could not read storage: the next request builds again.
    mutating func abandon(_ id: AccountID) { building[id] = nil }
}
