import BrokerageModel
import MarketData
import TradingCore

/// One virtual shard's trading state: its accounts (balances, positions, open orders, margin state, game rules),
/// their queued rules, the price alerts of the users mapped to it, and its journal stream — one `TradingEngine`
/// with its own random state.
///
/// A shard is the single writer of its accounts (an actor): its engine steps never interleave, so two requests can
/// never overdraw an account. Every step's changes are written to storage in one transaction *before* the caller is
/// answered; a failed write reloads the shard from storage, so memory never runs ahead of disk. Shards share
/// nothing mutable: a step touches one shard, and results do not depend on how shards are spread over threads.
/// Shards run on the executors of their `ShardOwners` (several virtual shards to one owner, one owner per core by
/// default); the `Brokerage` front reaches them only through its `ShardRouter`.
actor Shard {
    nonisolated let id: ShardID
    /// The owner whose executor this shard shares with the owner's other shards (`ShardOwners`).
    private nonisolated let owner: ShardOwners.Owner
    nonisolated var unownedExecutor: UnownedSerialExecutor { owner.unownedExecutor }
    var engine: TradingEngine
    let storage: any ShardRepository
    let journalWriter: any JournalWriter
    nonisolated let feed: any MarketDataFeed
    nonisolated let directory: SymbolDirectory
    nonisolated let clock: MarketClock
    /// Per-instrument state every shard shares (quotes, references, auctions, index closes).
    let market: SharedMarket
    /// Users' chosen languages (notifications are written in them).
    let languages: LanguagePreferences
    var configuration: EngineConfiguration
    /// The shard's accounts (who owns each).
    var records: [AccountID: AccountRecord] = [:]
    /// The trading date each instrument's reference (previous close, price band) was last set for in this engine.
    var referenceDates: [InstrumentID: CivilDate] = [:]
    /// The dates whose opening and closing auctions were applied to this engine, per instrument.
    var auctionsApplied: [InstrumentID: (open: CivilDate?, close: CivilDate?)] = [:]
    /// Subscribers to order updates and notifications (published from the journal writer as steps become durable).
    let streams: UpdateStreams
    /// Steps queued for storage and not yet seen durable, with the orders each closed (pruned once it is).
    var inFlight: [(step: StagedStep, closed: [OrderID])] = []
    /// Closed orders whose steps are durable but whose bracket/OCO group still has an open member.
    var closedAwaitingGroups: [OrderID] = []

    // Queue purchase (Shard+Queue.swift).
    var ruleBook = RuleBook()
    /// Rules still queued, by id.
    var queuedRules: [QueueRuleID: QueueRuleRecord] = [:]
    /// Rule changes and notifications waiting for the next commit (journaled with the engine's events).
    var pendingRules: [QueueRuleRecord] = []
    var pendingNotifications: [NotificationRecord] = []
    /// The last state of rules that left the queue in this run (what `addRule` returns if its rule fired at once).
    var lastRuleOutcome: [QueueRuleID: QueueRuleRecord] = [:]
    var seededCloses: Set<InstrumentID> = []

    // Price alerts (Shard+Alerts.swift): the alerts of the users whose alerts this shard keeps.
    var alertBook = AlertBook()
    var activeAlerts: [AlertID: AlertRecord] = [:]
    /// Alert changes and triggers waiting for the next commit (journaled with their notifications).
    var pendingAlerts: [AlertRecord] = []
    /// Accounts whose state changed without a ledger entry or order event (margin terms), to be journaled.
    var pendingAccounts: Set<AccountID> = []
    /// Margin interest and margin calls (`closeMarginDay`, `checkMarginThreshold`).
    var marginPolicy = MarginPolicy()
    var pendingAlertTriggers: [AlertTriggerRecord] = []
    /// The last state of alerts that stopped being active in this run (what `addAlert` returns if its alert
    /// triggered at once).
    var lastAlertOutcome: [AlertID: AlertRecord] = [:]
    var seededAlertCloses: Set<InstrumentID> = []
    /// The halt last announced per instrument (`announceHalt`): owners hear of each halt once.
    var announcedHalts: [InstrumentID: TradingHalt] = [:]
    /// Each account's profit since the last close, kept current as ledger entries are staged.
    var dayProfits = DayProfitBook()
    let metrics: BrokerageMetrics
    /// Where a commit refused by the lease fence is recorded, so the router stops serving this shard at once.
    nonisolated let fences: ShardFences

    init(id: ShardID, owner: ShardOwners.Owner, context: ShardContext, lease: Lease = .local) {
        self.id = id
        self.lease = lease
        self.owner = owner
        storage = context.storage
        journalWriter = context.journal
        feed = context.feed
        directory = context.directory
        clock = context.clock
        market = context.market
        languages = context.languages
        streams = context.streams
        metrics = context.metrics
        fences = context.fences
        configuration = context.configuration(for: id)
        engine = TradingEngine(configuration: configuration)
    }

    /// Rebuilds the shard from storage (at start, and after a failed write): its accounts and open orders, their
    /// queued rules, its users' active alerts. `alertUsers` says which users' alerts it keeps.
    func reload(alertsOf alertUsers: @escaping @Sendable (UserID) -> Bool) async throws {
        var fresh = TradingEngine(configuration: configuration)
        var records: [AccountID: AccountRecord] = [:]
        for record in try await storage.accounts(shard: id) {
            let snapshot = try await storage.restorable(record)
            for symbol in Set(snapshot.account.positions.values.map(\.symbol) + snapshot.openOrders.map(\.symbol)) {
                if let instrument = await market.resolvedInstrument(symbol) { fresh.register(instrument) }
            }
            do { try fresh.restore(snapshot) } catch {
                throw StorageError.corrupt("account \(record.id): \(error.message)")
            }
            records[record.id] = record
        }
        if let random = try await storage.randomState(shard: id) { fresh.randomState = random }
        engine = fresh
        self.records = records
        referenceDates = [:]
        auctionsApplied = [:]
        pendingRules = []
        pendingNotifications = []
        pendingAlerts = []
        pendingAlertTriggers = []
        inFlight = []
        closedAwaitingGroups = []
        dayProfits = DayProfitBook()
        try await reloadRules()
        try await reloadAlerts(of: alertUsers)
        self.alertUsers = alertUsers
    }

    /// Which users' alerts this shard keeps (set at load; the router's map).
    var alertUsers: @Sendable (UserID) -> Bool = { _ in false }

    /// Reloads after a failed write, with the same alert users.
    func reload() async throws { try await reload(alertsOf: alertUsers) }

    // MARK: Lease (cluster)

    /// Whether this shard may write its journal: always in a single process; on a cluster only while this node
    /// holds its lease, and then every commit carries the lease's epoch (the fence the database checks).
    enum Lease: Sendable, Equatable {
        case local
        case held(epoch: Int64)
        case released
    }

    /// The shard's lease (`.local` unless a `ClusterNode` runs it).
    var lease = Lease.local

    /// Starts serving under a lease just taken: the state is loaded from storage first (the last owner may have
    /// written since this node last held the shard).
    func take(epoch: Int64, alertsOf alertUsers: @escaping @Sendable (UserID) -> Bool) async throws {
        lease = .released
        try await reload(alertsOf: alertUsers)
        lease = .held(epoch: epoch)
    }

    /// Refuses every step from now on (`.elsewhere`), without waiting for those staged (a refused commit: theirs are
    /// refused too).
    func stopWriting() { lease = .released }

    /// Stops writing: every step after this is refused (`.elsewhere`); those already staged are waited for.
    func release() async {
        lease = .released
        await flush()
    }

    // MARK: Journal

    /// Writes what the engine produced since the last step and returns once it is durable; subscribers see it then.
    /// Throws (after reloading the engine from storage) if the write fails.
    func commit() async throws(BrokerageError) {
        guard let step = try stage() else { return }
        try await Self.settle(step, of: self)
    }

    /// Queues what the engine produced since the last step for the group-commit writer, without waiting for it
    /// (`settle` waits). Steps are queued here, on the actor, so they reach storage in the order the engine made
    /// them; their order updates and notifications are published from the writer as each becomes durable, in that
    /// same order. Nil when the engine produced nothing.
    func stage() throws(BrokerageError) -> StagedStep? {
        if case .released = lease { throw .elsewhere(shard: id, owner: nil, url: nil) }
        pruneDurableClosedOrders()
        let events = engine.outbox
        engine.outbox.removeAll(keepingCapacity: true)
        guard
            !events.isEmpty || !pendingRules.isEmpty || !pendingNotifications.isEmpty || !pendingAlerts.isEmpty
                || !pendingAlertTriggers.isEmpty || !pendingAccounts.isEmpty
        else { return nil }
        var journal = Journal(randomState: engine.randomState)
        journal.shard = id
        if case .held(let epoch) = lease { journal.epoch = epoch }
        journal.rules = pendingRules
        pendingRules.removeAll()
        for rule in journal.rules where rule.status != .queued { lastRuleOutcome[rule.rule.id] = rule }
        journal.alerts = pendingAlerts
        journal.alertTriggers = pendingAlertTriggers
        pendingAlerts.removeAll()
        pendingAlertTriggers.removeAll()
        for alert in journal.alerts where alert.status != .active { lastAlertOutcome[alert.alert.id] = alert }
        var touched = pendingAccounts
        pendingAccounts.removeAll()
        var updates: [OrderUpdate] = []
        updates.reserveCapacity(events.count)
        for event in events {
            switch event {
            case .order(let update):
                touched.insert(update.order.accountID)
                updates.append(update)
                if update.event == .fill { metrics.filled.increment() }
            case .ledger(let entry):
                journal.entries.append(entry)
                dayProfits.record(entry)
                touched.insert(entry.accountID)
            }
        }
        journal.orders = Self.lastStates(updates)
        journal.updates = updates
        journal.notifications = updates.compactMap(notification) + pendingNotifications
        pendingNotifications.removeAll()
        // (The client-order-id index lives in the engine, not in `Account`: a journal waiting in the group-commit
        // queue shares no growing dictionary with it.)
        journal.accounts = touched.sorted().compactMap { engine.account($0) }
        let step = StagedStep()
        let streams = streams
        let published = updates
        let notifications = journal.notifications
        do {
            try journalWriter.enqueue(journal) { result in
                if case .success = result {
                    for update in published { streams.publish(update) }
                    for n in notifications { streams.publish(n) }
                }
                step.complete(result)
            }
        } catch {
            step.complete(.failure(error))
        }
        inFlight.append((step, engine.takeClosedOrders()))
        return step
    }

    /// Waits until a staged step is durable. After a failed write the engine is rebuilt from storage (memory must
    /// not run ahead of disk) and the failure is thrown. Runs on the caller's executor: an order placement waits
    /// here off the actor, so its answer does not queue behind other requests' work on the actor.
    static func settle(_ step: StagedStep, of shard: Shard, isolation: isolated (any Actor)? = #isolation)
        async throws(BrokerageError)
    {
        do {
            try await step.durable()
        } catch StorageError.fenced(let id, let held, let current) {
            // Another node owns the shard now: nothing to reload. It is served no more from this moment (reads
            // too: the engine holds the refused step) and writes nothing further; the cluster's next pass records
            // its new owner.
            shard.fences.fence(id, epoch: held)
            await shard.stopWriting()
            shard.metrics.fencedCommits.increment()
            throw .storage(StorageError.fenced(shard: id, held: held, current: current))
        } catch {
            try? await shard.reload()
            throw .storage(error)
        }
    }

    /// Drops closed orders from the engine once the steps that closed them are durable (reads of them then go to
    /// storage); orders a bracket or OCO group still needs stay until the group is done.
    func pruneDurableClosedOrders() {
        var durable = 0
        while durable < inFlight.count, inFlight[durable].step.isDurable { durable += 1 }
        guard durable > 0 else { return }
        var closed = closedAwaitingGroups
        for i in 0..<durable { closed += inFlight[i].closed }
        inFlight.removeFirst(durable)
        closedAwaitingGroups = closed.isEmpty ? [] : engine.prune(closed)
    }

    /// The last state of each order the updates touch, in the order they were first touched (one order placed
    /// is the common step: no dictionary for it).
    static func lastStates(_ updates: [OrderUpdate]) -> [Order] {
        if updates.count == 1 { return [updates[0].order] }
        var latest: [OrderID: Order] = [:]
        var sequence: [OrderID] = []
        for update in updates {
            if latest.updateValue(update.order, forKey: update.order.id) == nil { sequence.append(update.order.id) }
        }
        return sequence.compactMap { latest[$0] }
    }

    /// The notification an order event deserves: a complete fill, or an order the system (not the user) ended.
    func notification(_ update: OrderUpdate) -> NotificationRecord? {
        // Most updates (new, accepted, partial fills) deserve none: decide that before touching the owner record.
        switch update.event {
        case .fill where update.order.status == .filled: break
        case .canceled where update.order.reason != nil && update.order.reason != "account reset": break
        default: return nil
        }
        guard let owner = records[update.order.accountID] else { return nil }
        let o = update.order
        // A multi-leg order is told once: each leg's fill says what it traded (the package's parent trades nothing
        // itself), and a cancellation is the package's (its legs end with it).
        if o.orderClass == .mleg, (o.parentID == nil) == (update.event == .fill) { return nil }
        let text = Catalogue(languages.language(of: owner.userID))
        let currency = engine.account(o.accountID)?.currency.symbol ?? ""
        let title: String
        let body: String
        let kind: String
        switch update.event {
        case .fill where o.status == .filled:
            kind = "fill"
            let side = o.side == .buy ? "buy" : "sell"
            title = text("fill.title." + side, ["symbol": text.instrumentName(o.symbol)])
            body = text(
                "fill.body." + side,
                [
                    "symbol": text.instrumentName(o.symbol), "qty": o.filledQty.description,
                    // (An option's quantity is contracts.)
                    "unit": text(
                        (OptionContract(occSymbol: o.symbol) == nil ? "shares" : "contracts")
                            + (o.filledQty == .one ? ".one" : ".other")),
                    "at": o.filledAvgPrice.map { text("fill.at", ["price": MoneyText.text($0, symbol: currency)]) }
                        ?? "",
                ])
        case .canceled where o.reason != nil && o.reason != "account reset":
            kind = "order_canceled"
            title = text("canceled.title", ["symbol": text.instrumentName(o.symbol)])
            body = o.reason ?? ""
        default:
            return nil
        }
        return NotificationRecord(
            id: Self.notificationID(), userID: owner.userID, accountID: o.accountID, kind: kind,
            title: title, body: body, createdAt: update.time)
    }

    /// A fresh random (version-4) id for a notification.
    static func notificationID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Identifier.random(using: &generator).description
    }
}
