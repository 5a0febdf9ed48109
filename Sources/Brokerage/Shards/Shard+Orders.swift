import BrokerageModel
import MarketData
import TradingCore

extension Shard {
    /// Places an order and returns it (as it stands after the step: a marketable order may already be filled)
    /// once the step is durable. The wait for the disk happens off the actor (`Brokerage.settle`): the actor is free for the
    /// next request meanwhile, and the answer does not queue behind other requests' work on the actor.
    nonisolated func submit(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> Order {
        let (order, step) = try await place(request, account: account)
        if let step { try await Self.settle(step, of: self) }
        return order
    }

    func place(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> (Order, StagedStep?) {
        guard records.index(forKey: account) != nil else { throw .notFound("account not found") }
        try await prepareMarkets(for: request)
        try await ensureUnused(request.clientOrderID, account: account)
        let order: Order
        do { order = try engine.submit(request, account: account, at: clock.now()) } catch {
            metrics.rejected(error.reason)
            throw .rejected(error)
        }
        metrics.placed.increment()
        let step = try stage()
        return (engine.order(order.id) ?? order, step)
    }

    /// The refusal placing `request` would meet now, or nil: nothing is placed or written.
    func check(_ request: OrderRequest, account: AccountID) async throws(BrokerageError) -> OrderRejection? {
        guard records.index(forKey: account) != nil else { throw .notFound("account not found") }
        try await prepareMarkets(for: request)
        do { try await ensureUnused(request.clientOrderID, account: account) } catch {
            if case .rejected(let rejection) = error { return rejection }
            throw error
        }
        do { try engine.check(request, account: account, at: clock.now()) } catch { return error }
        return nil
    }

    func cancel(_ id: OrderID, account: AccountID) async throws(BrokerageError) -> Order {
        let order: Order
        do { order = try engine.cancel(id, account: account, at: clock.now()) } catch {
            if error.reason == .orderNotFound, let stored = try? await storage.accounts.order(id),
                stored.accountID == account
            {
                throw .rejected(
                    OrderRejection(.notCancelable, "order is \(stored.status.rawValue) and can no longer be canceled"))
            }
            throw .rejected(error)
        }
        try await commit()
        return order
    }

    func cancelAll(account: AccountID) async throws(BrokerageError) -> [(OrderID, Result<Order, BrokerageError>)] {
        let results: [(OrderID, Result<Order, OrderRejection>)]
        do { results = try engine.cancelAll(account: account, at: clock.now()) } catch { throw .rejected(error) }
        try await commit()
        return results.map { ($0.0, $0.1.mapError(BrokerageError.rejected)) }
    }

    func replace(_ id: OrderID, account: AccountID, with change: ReplaceRequest) async throws(BrokerageError)
        -> Order
    {
        if let order = engine.order(id) {
            _ = try await prepareMarket(for: order.symbol)
            // A package fills on its legs' quotes.
            for leg in order.legs {
                if let symbol = engine.order(leg)?.symbol { _ = try await prepareMarket(for: symbol) }
            }
        }
        try await ensureUnused(change.clientOrderID, account: account)
        let replacement: Order
        do { replacement = try engine.replace(id, account: account, with: change, at: clock.now()) } catch {
            throw .rejected(error)
        }
        try await commit()
        return engine.order(replacement.id) ?? replacement
    }

    /// Refuses a client order id the account used before, as Alpaca does (ids are unique for good), and one that
    /// reads as a queued rule's (`queue-…`: the app shows those orders as placed automatically, and the rule's own
    /// order must be free to take its id). The engine refuses the ids of the orders it holds; it prunes closed orders
    /// once durable, so the others are in storage — or, pruned while the lookup ran, in `commits.pruned` (a lookup
    /// slower than its window, or one a reload overtook, reads again).
    func ensureUnused(_ id: ClientOrderID?, account: AccountID) async throws(BrokerageError) {
        guard let id else { return }
        guard !id.text.hasPrefix(Self.queueClientOrderIDPrefix) else {
            throw .rejected(
                OrderRejection(
                    .invalidInput,
                    "client_order_id may not begin with \"\(Self.queueClientOrderIDPrefix)\": those name the orders queued rules place"
                ))
        }
        while engine.order(clientOrderID: id, account: account) == nil {
            let started = ContinuousClock.now
            let reloads = commits.pruned.reloads
            let stored: Order?
            do { stored = try await storage.accounts.order(clientOrderID: id, account: account) } catch {
                throw .storage(error)
            }
            if stored != nil || commits.prunedLately(id, account: account) {
                throw .rejected(OrderRejection(.duplicateClientOrderID, "client_order_id must be unique"))
            }
            if ContinuousClock.now - started < ClosedClientOrderIDs.window, commits.pruned.reloads == reloads { return }
        }
        // The engine holds an order with this id: its own check refuses the placement.
    }

    /// An order by id: from the engine while it is open (or recently closed), else from storage.
    func order(_ id: OrderID, account: AccountID) async throws(BrokerageError) -> Order {
        if let order = engine.order(id), order.accountID == account { return order }
        let stored: Order?
        do { stored = try await storage.accounts.order(id) } catch { throw .storage(error) }
        guard let stored, stored.accountID == account else { throw .notFound("order not found") }
        return stored
    }

    func order(clientOrderID: ClientOrderID, account: AccountID) async throws(BrokerageError) -> Order {
        if let order = engine.order(clientOrderID: clientOrderID, account: account) { return order }
        let stored: Order?
        do { stored = try await storage.accounts.order(clientOrderID: clientOrderID, account: account) } catch {
            throw .storage(error)
        }
        guard let stored else { throw .notFound("order not found") }
        return stored
    }

    /// How many accounts this shard holds.
    func accountCount() -> Int { records.count }

    /// How many orders are open in this shard (`papertrade admin shards`).
    func openOrderCount() -> Int {
        records.keys.reduce(0) { $0 + engine.openOrders(of: $1).count }
    }

    /// Waits until every step staged so far is durable (or failed): graceful shutdown calls it before the
    /// database is closed.
    func flush() async {
        for step in commits.waiting { try? await step.durable() }
    }
}

extension Shard {
    /// Sells all or part of a position at market (Alpaca's DELETE /v2/positions/{symbol}).
    /// `qty` shares, or `percentage` (0–100) of the position; everything when both are nil.
    func closePosition(
        _ symbol: String, account: AccountID, qty: Quantity?, percentage: FixedDecimal?, liquidation: Bool = false
    ) async throws(BrokerageError) -> Order {
        guard let instrumentID = engine.instrumentID(for: symbol),
            let position = engine.account(account)?.positions[instrumentID], !position.qty.isZero
        else {
            throw .notFound("position does not exist")
        }
        let instrument = engine.instrument(instrumentID)
        // A long is sold, a short bought back.
        let held = position.qty.magnitude
        var amount = held
        if let qty {
            guard qty.isPositive, qty <= held else {
                throw .invalid("qty must be between 0 and the position's \(held)")
            }
            amount = qty
        } else if let percentage {
            guard percentage.isPositive, percentage <= FixedDecimal(100) else {
                throw .invalid("percentage must be between 0 and 100")
            }
            amount = held.multiplied(by: percentage).divided(by: FixedDecimal(100), rule: .down) ?? .zero
            if case .fractional(_, let step) = instrument.lot, amount < held {
                // A part of a coin position is sold in the pair's steps.
                amount = amount.rounded(toMultipleOf: step, rule: .down)
            } else if !instrument.fractionable || position.isShort {
                amount = amount.rounded(places: 0, rule: .down)
            }
            guard amount.isPositive else {
                throw .invalid("\(percentage)% of \(held) shares is less than one share")
            }
        }
        // Crypto orders are good until canceled (a day order is refused for them, as by Alpaca).
        let timeInForce: TimeInForce = instrument.kind == .crypto ? .gtc : .day
        var request = OrderRequest(
            symbol: symbol, side: position.isShort ? .buy : .sell, type: .market, timeInForce: timeInForce,
            qty: amount)
        request.isLiquidation = liquidation
        return try await submit(request, account: account)
    }

    /// Symbols the account holds, long or short.
    func heldSymbols(_ account: AccountID) -> [String] {
        (engine.account(account)?.positions.values.filter { !$0.qty.isZero }.map(\.symbol) ?? []).sorted()
    }
}
