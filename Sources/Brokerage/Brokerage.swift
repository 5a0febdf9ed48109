import MarketData
import Storage
import TradingCore

/// Accounts, order routing and market-data pumping around one `TradingEngine`.
///
/// The brokerage is the single writer (an actor): engine steps never interleave, so two requests can never
/// overdraw an account. Every step's changes are written to storage in one transaction *before* the caller is
/// answered; a failed write reloads the engine from storage, so memory never runs ahead of disk.
public actor Brokerage {
    var engine: TradingEngine
    public let storage: Storage
    public let feed: any MarketDataFeed
    public let directory: SymbolDirectory
    public let clock: MarketClock
    let configuration: EngineConfiguration
    var owners: [AccountID: AccountRecord] = [:]
    /// The trading date each instrument's reference (previous close, price band) was last set for.
    var referenceDates: [InstrumentID: CivilDate] = [:]
    /// When each instrument's quote was last fetched (see `refresh`).
    var lastRefresh: [InstrumentID: Timestamp] = [:]
    /// How long a fetched quote serves further orders: 5 ms.
    static let refreshReuse: Int64 = 5_000_000
    /// The dates whose opening and closing auctions were applied, per instrument.
    var auctionsApplied: [InstrumentID: (open: CivilDate?, close: CivilDate?)] = [:]
    var subscribers: [Int: (account: AccountID?, continuation: AsyncStream<OrderUpdate>.Continuation)] = [:]
    var notificationSubscribers: [Int: (user: String, continuation: AsyncStream<NotificationRecord>.Continuation)] = [:]
    var nextSubscriber = 0

    // Queue purchase (Brokerage+Queue.swift).
    var ruleBook = RuleBook()
    /// Rules still queued, by id.
    var queuedRules: [Identifier: QueueRuleRecord] = [:]
    /// Rule changes and notifications waiting for the next commit (journaled with the engine's events).
    var pendingRules: [QueueRuleRecord] = []
    var pendingNotifications: [NotificationRecord] = []
    /// The last state of rules that left the queue in this run (what `addRule` returns if its rule fired at once).
    var lastRuleOutcome: [Identifier: QueueRuleRecord] = [:]
    var seededCloses: Set<InstrumentID> = []

    init(storage: Storage, feed: any MarketDataFeed, directory: SymbolDirectory, clock: MarketClock,
         configuration: EngineConfiguration) {
        self.storage = storage
        self.feed = feed
        self.directory = directory
        self.clock = clock
        self.configuration = configuration
        engine = TradingEngine(configuration: configuration)
    }

    /// Loads every account and open order from storage into a fresh engine.
    public static func start(storage: Storage, feed: any MarketDataFeed, directory: SymbolDirectory,
                             clock: MarketClock, seed: UInt64 = 1) async throws -> Brokerage {
        let configuration = EngineConfiguration(seed: seed, sessions: clock.sessions)
        let brokerage = Brokerage(storage: storage, feed: feed, directory: directory, clock: clock,
                                  configuration: configuration)
        try await brokerage.reload()
        return brokerage
    }

    /// Rebuilds the engine from storage (at start, and after a failed write).
    func reload() async throws {
        var fresh = TradingEngine(configuration: configuration)
        var owners: [AccountID: AccountRecord] = [:]
        for record in try await storage.accounts() {
            let snapshot = try await storage.restorable(record)
            for symbol in Set(snapshot.account.positions.values.map(\.symbol) + snapshot.openOrders.map(\.symbol)) {
                if let entry = directory.entry(symbol) { fresh.register(entry.instrument) }
            }
            do { try fresh.restore(snapshot) } catch {
                throw StorageError.corrupt("account \(record.id): \(error.message)")
            }
            owners[record.id] = record
        }
        if let random = try await storage.randomState() { fresh.randomState = random }
        engine = fresh
        self.owners = owners
        referenceDates = [:]
        auctionsApplied = [:]
        lastRefresh = [:]
        pendingRules = []
        pendingNotifications = []
        try await reloadRules()
    }

    // MARK: Journal

    /// Writes what the engine produced since the last step, then publishes it. Throws (after reloading the
    /// engine from storage) if the write fails.
    func commit() async throws(BrokerageError) {
        let events = engine.outbox
        engine.outbox.removeAll(keepingCapacity: true)
        guard !events.isEmpty || !pendingRules.isEmpty || !pendingNotifications.isEmpty else { return }
        var journal = Journal(randomState: engine.randomState)
        journal.rules = pendingRules
        pendingRules.removeAll()
        for rule in journal.rules where rule.status != .queued { lastRuleOutcome[rule.rule.id] = rule }
        var touched = Set<AccountID>()
        var updates: [OrderUpdate] = []
        updates.reserveCapacity(events.count)
        for event in events {
            switch event {
            case .order(let update):
                touched.insert(update.order.accountID)
                updates.append(update)
            case .ledger(let entry):
                journal.entries.append(entry)
                touched.insert(entry.accountID)
            }
        }
        journal.orders = Self.lastStates(updates)
        journal.notifications = updates.compactMap(notification) + pendingNotifications
        pendingNotifications.removeAll()
        // Without the client-order-id index: a journal waiting in the group-commit queue must not share that
        // dictionary with the engine, or the next order would copy it whole.
        journal.accounts = touched.sorted().compactMap { id in
            guard var account = engine.account(id) else { return nil }
            account.clientOrderIDs = [:]
            return account
        }
        do {
            try await storage.journal(journal)
        } catch {
            try? await reload()
            throw .storage(error)
        }
        engine.pruneClosedOrders()
        for update in updates { publish(update) }
        for n in journal.notifications { publishNotification(n) }
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
        guard let owner = owners[update.order.accountID] else { return nil }
        let o = update.order
        let currency = engine.account(o.accountID)?.currency.symbol ?? ""
        let shares = (o.filledQty == .one ? "share" : "shares")
        let title: String
        let body: String
        let kind: String
        switch update.event {
        case .fill where o.status == .filled:
            kind = "fill"
            title = o.side == .buy ? "Bought \(o.symbol)" : "Sold \(o.symbol)"
            body = "You have successfully \(o.side == .buy ? "bought" : "sold") \(o.filledQty) \(shares) of \(o.symbol)"
                + (o.filledAvgPrice.map { " at \(currency)\($0.formatted(minimumPlaces: 2))" } ?? "")
        case .canceled where o.reason != nil && o.reason != "account reset":
            kind = "order_canceled"
            title = "Order for \(o.symbol) canceled"
            body = o.reason ?? ""
        default:
            return nil
        }
        return NotificationRecord(id: Self.notificationID(), userID: owner.userID, accountID: o.accountID, kind: kind,
                                  title: title, body: body, createdAt: update.time)
    }

    /// A fresh random (version-4) id for a notification.
    static func notificationID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Identifier(high: (generator.next() & ~0xF000) | 0x4000,
                          low: (generator.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000).description
    }

    /// Notifications as they are committed, for one user.
    public func notifications(for userID: String) -> AsyncStream<NotificationRecord> {
        let id = nextSubscriber
        nextSubscriber += 1
        let (stream, continuation) = AsyncStream<NotificationRecord>.makeStream(bufferingPolicy: .bufferingNewest(256))
        notificationSubscribers[id] = (userID, continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribeNotifications(id) }
        }
        return stream
    }

    func unsubscribeNotifications(_ id: Int) { notificationSubscribers[id] = nil }

    func publishNotification(_ n: NotificationRecord) {
        for (_, s) in notificationSubscribers where s.user == n.userID { s.continuation.yield(n) }
    }

    // MARK: Order update streams

    /// Order updates as they are committed; for one account, or all accounts when nil.
    public func orderUpdates(account: AccountID?) -> AsyncStream<OrderUpdate> {
        let id = nextSubscriber
        nextSubscriber += 1
        let (stream, continuation) = AsyncStream<OrderUpdate>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        subscribers[id] = (account, continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    func unsubscribe(_ id: Int) { subscribers[id] = nil }

    func publish(_ update: OrderUpdate) {
        for (_, s) in subscribers where s.account == nil || s.account == update.order.accountID {
            s.continuation.yield(update)
        }
    }
}
