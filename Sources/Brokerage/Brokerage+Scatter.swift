import Backtest
import MarketData
import TradingCore

// The front's work that spans shards: done on every shard at once (scatter) and gathered.

extension Brokerage {
    // MARK: Market pump

    /// One market tick: every shard says which symbols it holds something for (working orders, queued rules,
    /// alerts); each of those quotes is fetched once; each shard gets the quotes it asked for (and only shards
    /// that asked anything are woken), applies the day's auctions, expiries and fills, and commits. Pumps run one
    /// after another (the pump service and a test may both call it): a pump returns only when what it did is
    /// durable, never while an earlier pump is still committing.
    public func pumpMarket() async throws(BrokerageError) {
        await pumpGate.acquire()
        defer { pumpGate.release() }
        let now = clock.now()
        // By shard, not by position: on a cluster the shards served here may change between the two scatters.
        let interests = Dictionary(await router.scatter { ($0.id, await $0.interests()) }) { a, _ in a }
        let symbols = Set(interests.values.joined()).sorted()
        let quotes = await withTaskGroup(of: (String, MarketQuote?).self) { group in
            for symbol in symbols { group.addTask { (symbol, try? await self.market.quote(symbol, reuse: false)) } }
            var quotes: [String: MarketQuote] = [:]
            for await (symbol, quote) in group { quotes[symbol] = quote }
            return quotes
        }
        let failures = await router.scatter { shard -> BrokerageError? in
            guard let wanted = interests[shard.id], !wanted.isEmpty else { return nil }
            do throws(BrokerageError) {
                if let step = try await shard.pump(wanted, quotes: quotes, at: now) {
                    try await Shard.settle(step, of: shard)
                }
                return nil
            } catch {
                return error
            }
        }
        if let failure = failures.compactMap({ $0 }).first { throw failure }
    }

    // MARK: Margin and corporate actions

    public func setMarginPolicy(_ policy: MarginPolicy) async {
        _ = await router.scatter { await $0.setMarginPolicy(policy) }
    }

    /// The end of a US session for every margin account (see `Shard.closeMarginDay`), shard by shard in parallel.
    public func closeMarginDay(_ date: CivilDate) async throws(BrokerageError) {
        try await everyShard { shard throws(BrokerageError) in try await shard.closeMarginDay(date) }
    }

    /// Settles the option positions that expired by the close of `date`, on every shard (see
    /// `Shard.settleExpiredOptions`).
    public func settleExpiredOptions(through date: CivilDate) async throws(BrokerageError) {
        try await everyShard { shard throws(BrokerageError) in try await shard.settleExpiredOptions(through: date) }
    }

    /// After the close of `date`: assigns the written contracts their holders would exercise early, on every shard
    /// (see `Shard.assignEarly`).
    public func assignEarly(on date: CivilDate) async throws(BrokerageError) {
        try await everyShard { shard throws(BrokerageError) in try await shard.assignEarly(on: date) }
    }

    /// From 15:15 ET on an expiration day: sells the expiring in-the-money positions accounts could not exercise
    /// (see `Shard.sellOutUncarriedOptions`).
    public func sellOutUncarriedOptions() async throws(BrokerageError) {
        let now = clock.now()
        try await everyShard { shard throws(BrokerageError) in try await shard.sellOutUncarriedOptions(at: now) }
    }

    /// During the session: liquidates accounts far below maintenance margin (see `Shard.checkMarginThreshold`).
    public func checkMarginThreshold() async throws(BrokerageError) {
        try await everyShard { shard throws(BrokerageError) in try await shard.checkMarginThreshold() }
    }

    /// Applies corporate actions whose ex-dates have come to every account (see `Shard.applyCorporateActions`).
    public func applyCorporateActions() async throws(BrokerageError) {
        try await everyShard { shard throws(BrokerageError) in try await shard.applyCorporateActions() }
    }

    /// Runs `body` on every shard at once; throws the first shard's failure (the others still ran).
    func everyShard(_ body: @escaping @Sendable (Shard) async throws(BrokerageError) -> Void)
        async throws(BrokerageError)
    {
        let failures = await router.scatter { shard -> BrokerageError? in
            do throws(BrokerageError) {
                try await body(shard)
                return nil
            } catch {
                return error
            }
        }
        if let failure = failures.compactMap({ $0 }).first { throw failure }
    }

    // MARK: Backtests

    /// Starts a backtest for a user; with `rulesOf`, replays that account's queued rules (the user's own account).
    public func startBacktest(_ request: BacktestJobs.Request, user: UserID, rulesOf account: AccountID? = nil)
        async throws(BrokerageError) -> BacktestJobs.Job
    {
        var request = request
        if let account {
            let shard = try await shard(account)
            guard await shard.accountRecord(account)?.userID == user else { throw .notFound("account not found") }
            request.rules = await shard.queuedRules(of: account).map {
                QueueRuleStrategy.Rule(symbol: $0.symbol, condition: $0.condition, action: $0.action)
            }
            if request.symbols.isEmpty { request.symbols = Array(Set(request.rules.compactMap(\.symbol))).sorted() }
            guard !request.rules.isEmpty else { throw .invalid("the account has no queued rules to replay") }
        }
        return try await backtests.start(request, user: user)
    }
}
