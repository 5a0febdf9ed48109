import BrokerageModel
import TradingCore

/// The price alerts a shard keeps (those of the users the router maps to it): the active ones, indexed by instrument
/// in an `AlertBook`, and the last state of the alerts that stopped being active in this run. It decides what
/// happens to alerts — added, canceled, triggered, expired — and writes each change to the step's `PendingCommit`;
/// the wording of a trigger's notification is the shard's (`Shard+Alerts`).
struct AlertDesk {
    private(set) var book = AlertBook()
    /// Active alerts, by id.
    private(set) var active: [AlertID: AlertRecord] = [:]
    /// The last state of alerts that stopped being active in this run (what adding one answers if it triggered at
    /// once).
    private var ended: [AlertID: AlertRecord] = [:]
    /// Instruments whose daily closes have been fed to the book (moving-average operands), once per run.
    private var seeded: Set<InstrumentID> = []
    /// Which users' alerts this shard keeps (the router's map, set at load).
    let keepsAlerts: @Sendable (UserID) -> Bool

    /// Active alerts a user may have at once.
    static let limit = 200

    init(keepsAlerts: @escaping @Sendable (UserID) -> Bool = { _ in false }) { self.keepsAlerts = keepsAlerts }

    /// The alerts as loaded from storage: each active alert with its instrument in this shard's engine and its last
    /// trigger's trading date.
    init(
        _ loaded: [(record: AlertRecord, instrument: InstrumentID, lastTriggered: CivilDate?)],
        keepsAlerts: @escaping @Sendable (UserID) -> Bool
    ) {
        self.keepsAlerts = keepsAlerts
        for (record, instrument, date) in loaded {
            let last = record.lastTriggeredAt.flatMap { time in date.map { (time: time, tradingDate: $0) } }
            book.add(record.alert, instrument: instrument, lastTriggered: last)
            active[record.alert.id] = record
        }
    }

    /// A user's active alerts, newest first.
    func records(of user: UserID) -> [AlertRecord] {
        active.values.filter { $0.userID == user.text }.sorted {
            ($0.alert.createdAt, $0.alert.id) > ($1.alert.createdAt, $1.alert.id)
        }
    }

    /// The alert as it stands now: active, or how it stopped in this run.
    func latest(_ id: AlertID) -> AlertRecord? { active[id] ?? ended[id] }

    /// Adds a new alert; refused past the user's limit.
    mutating func add(
        _ alert: PriceAlert, user: UserID, instrument: InstrumentID, at now: Timestamp,
        into pending: inout PendingCommit
    ) throws(BrokerageError) -> AlertRecord {
        guard active.values.count(where: { $0.userID == user.text }) < Self.limit else {
            throw .invalid("a user may have at most \(Self.limit) active alerts")
        }
        let record = AlertRecord(alert: alert, userID: user, updatedAt: now)
        book.add(alert, instrument: instrument)
        active[alert.id] = record
        pending.alerts.append(record)
        return record
    }

    /// Cancels a user's active alert.
    mutating func cancel(
        _ id: AlertID, user: UserID, at now: Timestamp, into pending: inout PendingCommit
    ) throws(BrokerageError) -> AlertRecord {
        guard let record = active[id], record.userID == user.text else {
            throw .notFound("alert not found (it may have triggered, expired or been canceled already)")
        }
        return end(id, as: .canceled, at: now, into: &pending) ?? record
    }

    /// Evaluates the instrument's alerts (or only `only`) at a price; each trigger's new state is pending (the
    /// alert stays active if it repeats). Returns the triggers with their alerts' records.
    mutating func evaluate(
        _ instrument: InstrumentID, price: Price, at now: Timestamp, tradingDate: CivilDate, only: AlertID?,
        into pending: inout PendingCommit
    ) -> (triggered: [(trigger: AlertTrigger, record: AlertRecord)], evaluated: Int) {
        var triggers: [AlertTrigger] = []
        let before = book.evaluations
        book.evaluate(instrument, price: price, at: now, tradingDate: tradingDate, only: only, into: &triggers)
        var triggered: [(AlertTrigger, AlertRecord)] = []
        for trigger in triggers {
            guard var record = active[trigger.alert.id] else { continue }
            record.updatedAt = now
            record.lastTriggeredAt = now
            record.lastTriggeredPrice = trigger.price
            record.triggerCount += 1
            if trigger.isFinal {
                record.status = .triggered
                active[trigger.alert.id] = nil
                ended[trigger.alert.id] = record
            } else {
                active[trigger.alert.id] = record
            }
            pending.alerts.append(record)
            triggered.append((trigger, record))
        }
        return (triggered, book.evaluations - before)
    }

    /// Ends the alerts whose expiry has passed at `now`.
    mutating func expire(at now: Timestamp, into pending: inout PendingCommit) {
        for alert in book.expire(at: now) {
            guard var record = active.removeValue(forKey: alert.id) else { continue }
            record.status = .expired
            record.updatedAt = now
            ended[alert.id] = record
            pending.alerts.append(record)
        }
    }

    /// The level an alert's operand stands for now (its value, or the moving average's current value).
    func level(_ alert: PriceAlert, instrument: InstrumentID?) -> Price? {
        guard let operand = alert.condition.operand else { return nil }
        if case .value(let v) = operand { return v }
        return instrument.flatMap { book.level(operand, instrument: $0) }
    }

    /// Whether the instrument's daily closes still need feeding to the book (and marks them fed).
    mutating func needsCloses(_ instrument: InstrumentID) -> Bool { seeded.insert(instrument).inserted }

    mutating func recordClose(_ instrument: InstrumentID, close: Price) {
        book.recordClose(instrument, close: close)
    }

    private mutating func end(
        _ id: AlertID, as status: AlertRecord.Status, at now: Timestamp, into pending: inout PendingCommit
    ) -> AlertRecord? {
        guard var record = active.removeValue(forKey: id) else { return nil }
        book.remove(id)
        record.status = status
        record.updatedAt = now
        ended[id] = record
        pending.alerts.append(record)
        return record
    }
}
