import BrokerageModel
import MarketData
import TradingCore

/// Price alerts: notifications when a price condition holds, placing nothing.
///
/// Evaluation takes the queue rules' path: each market-pump tick fetches the quotes of instruments with alerts and
/// evaluates that instrument's alerts only (`AlertBook`), while the market trades continuously. A once-only alert
/// leaves the book in the actor step it triggers in, and its new state (triggered) is journaled in the same
/// transaction as its notification and trigger record; a repeating alert journals the time of its last trigger
/// the same way, so neither triggers twice for one event across a restart.
extension Shard {
    /// Adds an alert for a user. It is evaluated at once against the current price (and may trigger in this call:
    /// the returned record says so).
    func addAlert(
        user: UserID, symbol: String, condition: AlertCondition, frequency: AlertFrequency,
        timeframe: AlertTimeframe, expiresAt: Timestamp?, message: String?
    ) async throws(BrokerageError) -> AlertRecord {
        guard let entry = directory.entry(symbol) else { throw .notFound("asset not found for \(symbol)") }
        if let problem = condition.problem { throw .invalid(problem) }
        let now = clock.now()
        if let expiresAt, expiresAt <= now { throw .invalid("expires_at \(expiresAt) has already passed") }
        if let message, message.count > 500 { throw .invalid("message must be at most 500 characters") }
        var generator = SystemRandomNumberGenerator()
        var seeded = SeededGenerator(seed: generator.next())
        let alert = PriceAlert(
            id: AlertID(.timeOrdered(at: now, using: &seeded)), symbol: entry.symbol, condition: condition,
            frequency: frequency, timeframe: timeframe, expiresAt: expiresAt,
            message: message.flatMap { $0.isEmpty ? nil : $0 }, createdAt: now)
        let id = engine.register(entry.instrument)
        let record = try alerts.add(alert, user: user, instrument: id, at: now, into: &pending)
        try await commit()
        if condition.barsNeeded > 0 { await seedAlertCloses(id, symbol: entry.symbol) }
        if let (_, quote) = try? await currentQuote(entry.symbol, reuse: false), let quote {
            evaluateAlerts(id, quote: quote, at: clock.now(), only: alert.id)
        }
        try await commit()
        return alerts.latest(alert.id) ?? record
    }

    /// Cancels an active alert of the user's.
    func cancelAlert(_ id: AlertID, user: UserID) async throws(BrokerageError) -> AlertRecord {
        let record = try alerts.cancel(id, user: user, at: clock.now(), into: &pending)
        try await commit()
        return record
    }

    /// A user's active alerts, newest first.
    func alerts(user: UserID) -> [AlertRecord] { alerts.records(of: user) }

    /// A user's alert, active or not.
    func alert(_ id: AlertID, user: UserID) async throws(BrokerageError) -> AlertRecord {
        if let record = alerts.active[id], record.userID == user.text { return record }
        let stored: AlertRecord?
        do { stored = try await storage.rules.alert(id, user: user) } catch { throw .storage(error) }
        guard let stored else { throw .notFound("alert not found") }
        return stored
    }

    /// The level an alert's operand stands for now (its value, or the moving average's current value).
    func alertLevel(_ alert: PriceAlert) -> Price? {
        alerts.level(alert, instrument: engine.instrumentID(for: alert.symbol))
    }

    // MARK: Evaluation

    /// Loads the active alerts of the users this shard keeps alerts for into the desk (at start and after a
    /// reload).
    func reloadAlerts(of users: @escaping @Sendable (UserID) -> Bool) async throws {
        var loaded: [(record: AlertRecord, instrument: InstrumentID, lastTriggered: CivilDate?)] = []
        for record in try await storage.rules.activeAlerts() where users(UserID(record.userID)) {
            guard let entry = directory.entry(record.alert.symbol) else { continue }
            let date = record.lastTriggeredAt.map { entry.instrument.calendar.tradingDate(at: $0) }
            loaded.append((record, engine.register(entry.instrument), date))
        }
        alerts = AlertDesk(loaded, keepsAlerts: users)
    }

    /// Evaluates the instrument's alerts (or only `only`) at a fresh quote and notifies their owners.
    func evaluateAlerts(_ id: InstrumentID, quote: MarketQuote, at now: Timestamp, only: AlertID? = nil) {
        guard alerts.book.hasAlerts(id), quote.phase == .continuous else { return }
        let tradingDate = engine.instrument(id).calendar.tradingDate(at: now)
        let (triggered, evaluated) = alerts.evaluate(
            id, price: quote.last, at: now, tradingDate: tradingDate, only: only, into: &pending)
        metrics.alertsEvaluated.increment(by: evaluated)
        metrics.alertsTriggered.increment(by: triggered.count)
        for (trigger, record) in triggered { announce(trigger, of: record, instrument: id, at: now) }
    }

    /// Tells the owner of a triggered alert (with the next commit: its notification and the trigger record).
    func announce(_ trigger: AlertTrigger, of record: AlertRecord, instrument: InstrumentID, at now: Timestamp) {
        let traded = engine.instrument(instrument)
        let wording = AlertWording(
            text: Catalogue(languages.language(of: record.owner)), currency: traded.market.currency,
            coin: traded.coinPair?.quote)
        pending.notify(
            record.owner, account: nil, kind: "alert", title: wording.title(trigger.alert),
            body: wording.body(trigger.alert, price: trigger.price, level: trigger.level), at: now)
        let notification = pending.notifications[pending.notifications.count - 1]
        pending.alertTriggers.append(
            AlertTriggerRecord(
                id: PendingCommit.notificationID(), alertID: trigger.alert.id, userID: record.owner,
                symbol: trigger.alert.symbol,
                time: now, price: trigger.price, level: trigger.level, notificationID: notification.id))
    }

    /// Ends alerts whose expiry has passed (checked each market-pump tick).
    func expireAlerts(at now: Timestamp) { alerts.expire(at: now, into: &pending) }

    /// Daily closes for moving-average operands, once per instrument per run.
    func seedAlertCloses(_ id: InstrumentID, symbol: String) async {
        guard alerts.needsCloses(id) else { return }
        for close in await settledDailyCloses(symbol) { alerts.recordClose(id, close: close) }
    }
}
