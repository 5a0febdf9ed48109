import BrokerageModel
import MarketData
import TradingCore

/// How a shard's step becomes durable: staged for the group-commit writer in the order the engine made it, waited
/// for off the actor, published to subscribers once on disk; and the lease (cluster) that lets it write at all.
extension Shard {
    // MARK: Lease (cluster)

    /// Starts serving under a lease just taken: the state is loaded from storage first (the last owner may have
    /// written since this node last held the shard).
    func take(epoch: Int64, alertsOf alertUsers: @escaping @Sendable (UserID) -> Bool) async throws {
        commits.lease = .released
        try await reload(alertsOf: alertUsers)
        commits.lease = .held(epoch: epoch)
    }

    /// Refuses every step from now on (`.elsewhere`), without waiting for those staged (a refused commit: theirs are
    /// refused too).
    func stopWriting() { commits.lease = .released }

    /// Stops writing: every step after this is refused (`.elsewhere`); those already staged are waited for.
    func release() async {
        commits.lease = .released
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
        if commits.isReleased { throw .elsewhere(shard: id, owner: nil, url: nil) }
        if health.isStale {
            // Built on memory the database may not hold: nothing of it is written; the recovery's reload replaces it.
            engine.outbox.removeAll()
            throw .unavailable(ShardHealth.refusal)
        }
        pruneDurableClosedOrders()
        let events = engine.outbox
        engine.outbox.removeAll(keepingCapacity: true)
        guard !events.isEmpty || !pending.isEmpty else { return nil }
        var journal = Journal(randomState: engine.randomState)
        journal.shard = id
        journal.epoch = commits.epoch
        var touched = Set<AccountID>()
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
        journal.orders = ShardCommits.lastStates(updates)
        journal.updates = updates
        journal.notifications = updates.flatMap(notifications)
        touched.formUnion(pending.drain(into: &journal))
        // (The client-order-id index lives in the engine, not in `Account`: a journal waiting in the group-commit
        // queue shares no growing dictionary with it.)
        journal.accounts = touched.sorted().compactMap { engine.account($0) }
        let step = StagedStep()
        let streams = streams
        let published = updates
        let notifications = journal.notifications
        do {
            try context.journal.enqueue(journal) { result in
                if case .success = result {
                    for update in published { streams.publish(update) }
                    for n in notifications { streams.publish(n) }
                }
                step.complete(result)
            }
        } catch {
            step.complete(.failure(error))
        }
        commits.queued(step, closing: engine.takeClosedOrders())
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
            await shard.recoverAfterFailedWrite()
            throw .storage(error)
        }
    }

    /// After a failed write: memory must not run ahead of disk, so the shard reloads from storage. When storage
    /// cannot be read either (the database is down or failing over), the shard is stale — it serves nothing — and
    /// a reload is tried every half second until one succeeds (or the shard goes to another node, whose taking
    /// reloads it).
    func recoverAfterFailedWrite() async {
        if (try? await reload()) != nil { return }
        guard health.markStale() else { return }
        metrics.staleShards.increment()
        Task { await self.reloadUntilHealthy() }
    }

    private func reloadUntilHealthy() async {
        while health.isStale, !commits.isReleased {
            if (try? await reload()) != nil { return }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    /// Drops closed orders from the engine once the steps that closed them are durable (reads of them then go to
    /// storage); orders a bracket or OCO group still needs stay until the group is done.
    func pruneDurableClosedOrders() {
        commits.pruneDurable { closed in
            let orders = closed.compactMap { engine.order($0) }
            let kept = engine.prune(closed)
            let forgotten = orders.filter { engine.order($0.id) == nil }.map {
                ClosedClientOrderIDs.Key(account: $0.accountID, id: $0.clientOrderID)
            }
            return (kept, forgotten)
        }
    }

    /// The notifications an order event deserves (`OrderNotice`): one for its account's owner, and one for each
    /// other member of a team sharing the account, each in their language.
    func notifications(_ update: OrderUpdate) -> [NotificationRecord] {
        // Most updates (new, accepted, partial fills) deserve none: decide that before looking anyone up.
        guard OrderNotice.isWorthTelling(update) else { return [] }
        let account = update.order.accountID
        let currency = engine.account(account)?.currency.symbol ?? ""
        return recipients(of: account).compactMap { user in
            OrderNotice.record(update, owner: user, text: Catalogue(languages.language(of: user)), currency: currency)
        }
    }
}
