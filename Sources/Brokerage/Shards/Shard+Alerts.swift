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
        guard activeAlerts.values.filter({ $0.userID == user.text }).count < Self.alertLimit else {
            throw .invalid("a user may have at most \(Self.alertLimit) active alerts")
        }
        var generator = SystemRandomNumberGenerator()
        var seeded = SeededGenerator(seed: generator.next())
        let alert = PriceAlert(
            id: AlertID(.timeOrdered(at: now, using: &seeded)), symbol: entry.symbol, condition: condition,
            frequency: frequency, timeframe: timeframe, expiresAt: expiresAt,
            message: message.flatMap { $0.isEmpty ? nil : $0 }, createdAt: now)
        let id = engine.register(entry.instrument)
        let record = AlertRecord(alert: alert, userID: user, updatedAt: now)
        alertBook.add(alert, instrument: id)
        activeAlerts[alert.id] = record
        pendingAlerts.append(record)
        try await commit()
        if condition.barsNeeded > 0 { await seedAlertCloses(id, symbol: entry.symbol) }
        if let (_, quote) = try? await currentQuote(entry.symbol, reuse: false), let quote {
            evaluateAlerts(id, quote: quote, at: clock.now(), only: alert.id)
        }
        try await commit()
        return activeAlerts[alert.id] ?? lastAlertOutcome[alert.id] ?? record
    }

    /// Active alerts a user may have at once.
    static let alertLimit = 200

    /// Cancels an active alert of the user's.
    func cancelAlert(_ id: AlertID, user: UserID) async throws(BrokerageError) -> AlertRecord {
        guard var record = activeAlerts[id], record.userID == user.text else {
            throw .notFound("alert not found (it may have triggered, expired or been canceled already)")
        }
        alertBook.remove(id)
        activeAlerts[id] = nil
        record.status = .canceled
        record.updatedAt = clock.now()
        pendingAlerts.append(record)
        try await commit()
        return record
    }

    /// A user's active alerts, newest first.
    func alerts(user: UserID) -> [AlertRecord] {
        activeAlerts.values.filter { $0.userID == user.text }.sorted {
            ($0.alert.createdAt, $0.alert.id) > ($1.alert.createdAt, $1.alert.id)
        }
    }

    /// A user's alert, active or not.
    func alert(_ id: AlertID, user: UserID) async throws(BrokerageError) -> AlertRecord {
        if let record = activeAlerts[id], record.userID == user.text { return record }
        let stored: AlertRecord?
        do { stored = try await storage.alert(id, user: user) } catch { throw .storage(error) }
        guard let stored else { throw .notFound("alert not found") }
        return stored
    }

    /// The level an alert's operand stands for now (its value, or the moving average's current value).
    func alertLevel(_ alert: PriceAlert) -> Price? {
        guard let operand = alert.condition.operand else { return nil }
        if case .value(let v) = operand { return v }
        return engine.instrumentID(for: alert.symbol).flatMap { alertBook.level(operand, instrument: $0) }
    }

    // MARK: Evaluation

    /// Loads the active alerts of the users this shard keeps alerts for into the book (at start and after a
    /// reload).
    func reloadAlerts(of users: @Sendable (UserID) -> Bool) async throws {
        var book = AlertBook()
        var records: [AlertID: AlertRecord] = [:]
        for record in try await storage.activeAlerts() where users(UserID(record.userID)) {
            guard let entry = directory.entry(record.alert.symbol) else { continue }
            let last = record.lastTriggeredAt.map { ($0, entry.instrument.calendar.tradingDate(at: $0)) }
            book.add(record.alert, instrument: engine.register(entry.instrument), lastTriggered: last)
            records[record.alert.id] = record
        }
        alertBook = book
        activeAlerts = records
        seededAlertCloses = []
    }

    /// Evaluates the instrument's alerts (or only `only`) at a fresh quote and notifies their owners.
    func evaluateAlerts(_ id: InstrumentID, quote: MarketQuote, at now: Timestamp, only: AlertID? = nil) {
        guard alertBook.hasAlerts(id), quote.phase == .continuous else { return }
        var triggered: [AlertBook.Trigger] = []
        let tradingDate = engine.instrument(id).calendar.tradingDate(at: now)
        let evaluated = alertBook.evaluations
        alertBook.evaluate(id, price: quote.last, at: now, tradingDate: tradingDate, only: only, into: &triggered)
        metrics.alertsEvaluated.increment(by: alertBook.evaluations - evaluated)
        metrics.alertsTriggered.increment(by: triggered.count)
        for trigger in triggered { record(trigger, instrument: id, at: now) }
    }

    /// Journals a trigger (with the next commit): the alert's new state, its notification and the trigger record.
    func record(_ trigger: AlertBook.Trigger, instrument: InstrumentID, at now: Timestamp) {
        guard var record = activeAlerts[trigger.alert.id] else { return }
        record.updatedAt = now
        record.lastTriggeredAt = now
        record.lastTriggeredPrice = trigger.price
        record.triggerCount += 1
        if trigger.isFinal {
            record.status = .triggered
            activeAlerts[trigger.alert.id] = nil
        } else {
            activeAlerts[trigger.alert.id] = record
        }
        pendingAlerts.append(record)
        let wording = AlertWording(
            text: Catalogue(languages.language(of: record.owner)),
            currency: engine.instrument(instrument).market.currency)
        let notification = NotificationRecord(
            id: Self.notificationID(), userID: record.owner, accountID: nil, kind: "alert",
            title: wording.title(trigger.alert),
            body: wording.body(trigger.alert, price: trigger.price, level: trigger.level), createdAt: now)
        pendingNotifications.append(notification)
        pendingAlertTriggers.append(
            AlertTriggerRecord(
                id: Self.notificationID(), alertID: trigger.alert.id, userID: record.owner,
                symbol: trigger.alert.symbol,
                time: now, price: trigger.price, level: trigger.level, notificationID: notification.id))
    }

    /// Ends alerts whose expiry has passed (checked each market-pump tick).
    func expireAlerts(at now: Timestamp) {
        for alert in alertBook.expire(at: now) {
            guard var record = activeAlerts.removeValue(forKey: alert.id) else { continue }
            record.status = .expired
            record.updatedAt = now
            pendingAlerts.append(record)
        }
    }

    /// Daily closes for moving-average operands, once per instrument per run.
    func seedAlertCloses(_ id: InstrumentID, symbol: String) async {
        guard !seededAlertCloses.contains(id) else { return }
        for close in await settledDailyCloses(symbol) { alertBook.recordClose(id, close: close) }
        seededAlertCloses.insert(id)
    }
}
