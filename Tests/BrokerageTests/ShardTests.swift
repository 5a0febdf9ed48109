import BrokerageModel
import Foundation
import MarketData
import Storage
import Testing
import TradingCore

@testable import Brokerage

/// The brokerage partitioned by account: the same scripted day gives the same ledger, orders, notifications and
/// game standings however many shard owners (threads) run the 64 virtual shards.
@Suite("Shards", .serialized)
struct ShardTests {
    static let symbols = ["AAPL", "MSFT", "KO", "JPM", "IBM", "PEP"]
    static let open = Timestamp(CivilDate(2026, 11, 20), hour: 9, minute: 40, in: .newYork)

    /// What a user would compare between two runs: per account (by its place in the script), its ledger and its
    /// orders; per user, the notifications; the game's final standings. Ids are left out (account ids are random).
    struct Outcome: Equatable {
        var ledgers: [[String]] = []
        var orders: [[String]] = []
        var notifications: [[String]] = []
        var standings: [String] = []
        var shardsUsed = 0
    }

    /// A trading morning on a fresh database with `owners` shard owners: 20 users, 200 accounts, a game of 20
    /// players; every minute each account acts (market and limit orders, sells, cancels; rules that fire, alerts
    /// that trigger), accounts of different shards at once; then the game ends.
    static func scriptedDay(owners: Int, minutes: Int = 12) async throws -> Outcome {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-shards-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = MarketClock(.manual(start: open))
        let directory = try SymbolDirectory.bundled()
        let market = SimulatedMarket(
            directory: directory, configuration: SimulatorConfiguration(seed: 7, sessions: clock.sessions))
        let brokerage = try await Brokerage.open(
            .sqlite(path: path + "/papertrade.sqlite"), feed: SimulatedFeed(market: market, clock: clock),
            directory: directory, clock: clock, shardOwners: owners)
        do {
            let outcome = try await play(brokerage, clock: clock, minutes: minutes)
            await brokerage.shutdown()
            return outcome
        } catch {
            await brokerage.shutdown()
            throw error
        }
    }

    static func play(_ brokerage: Brokerage, clock: MarketClock, minutes: Int) async throws -> Outcome {
        var users: [UserID] = []
        for u in 0..<20 {
            users.append(
                try await brokerage.users.createUser(
                    id: UserID(UUID().uuidString), username: "u\(u)", passwordHash: "-"
                ).id)
        }
        var accounts: [AccountID] = []
        for a in 0..<200 {
            accounts.append(
                try await brokerage.openAccount(userID: users[a % 20], market: .us, cash: 100_000, name: "a\(a)").id)
        }
        let game = try await brokerage.games.create(
            owner: users[0], name: "Friday", market: .us,
            settings: GameSettings(
                startingCash: 50_000,
                rules: GameRules(
                    startsAt: open, endsAt: open.adding(seconds: Int64(minutes + 5) * 60), shortSelling: false)))
        for u in 0..<20 {
            accounts.append(try await brokerage.games.join(game.id, user: users[u], name: "p\(u)", code: nil).accountID)
        }
        // Rules that fire at the first pump, rules that never do, and alerts a few cents above the price.
        for (a, account) in accounts.enumerated() where a % 5 == 0 {
            _ = try await brokerage.addRule(
                account: account, symbol: symbols[a % symbols.count],
                condition: a % 10 == 0 ? .priceAtLeast(FixedDecimal("0.01")!) : .priceAtMost(FixedDecimal("0.01")!),
                action: RuleAction(side: .buy, qty: Quantity(1 + a % 3)), lifetime: nil)
        }
        for (u, user) in users.enumerated() {
            let symbol = symbols[u % symbols.count]
            let last = try await brokerage.feed.quote(symbol).last
            _ = try await brokerage.addAlert(
                user: user, symbol: symbol, condition: .crossingUp(.value(last + FixedDecimal("0.05")!)),
                frequency: .once, timeframe: .day, expiresAt: nil, message: nil)
        }
        // Accounts grouped by shard: one shard's accounts act one after another (their order within a shard is
        // part of the script), different shards' at once.
        var byShard: [Int: [(Int, AccountID)]] = [:]
        for (a, account) in accounts.enumerated() {
            let shard = try #require(await brokerage.router.shard(of: account))
            byShard[shard.id.index, default: []].append((a, account))
        }
        for minute in 0..<minutes {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (_, members) in byShard {
                    group.addTask {
                        for (a, account) in members { try await act(brokerage, account: account, a: a, minute: minute) }
                    }
                }
                try await group.waitForAll()
            }
            clock.advance(by: Duration64.minute)
            try await brokerage.pumpMarket()
        }
        clock.advance(by: 6 * Duration64.minute)
        try await brokerage.pumpMarket()
        await brokerage.games.endDue()

        var outcome = Outcome()
        outcome.shardsUsed = Set(byShard.keys).count
        var everything = OrderQuery()
        everything.status = .all
        everything.limit = 500
        for account in accounts {
            outcome.ledgers.append(
                try await brokerage.activities(account, limit: 1000, ascending: true).map {
                    anonymous("\($0.sequence) \($0.time) \($0.kind) \($0.cashChange)")
                })
            outcome.orders.append(
                try await brokerage.orders(account: account, everything).map {
                    "\($0.symbol) \($0.side) \($0.type) \($0.qty?.description ?? "-") \($0.status) \($0.filledQty) "
                        + "\($0.filledAvgPrice?.description ?? "-") \($0.submittedAt)"
                }.sorted())
        }
        for user in users {
            outcome.notifications.append(
                try await brokerage.notifications.recent(user: user, limit: 1000).items.map {
                    "\($0.kind) \($0.createdAt) \($0.title) | \($0.body)"
                }.sorted())
        }
        let board = try await brokerage.games.leaderboard(game.id, user: users[0])
        #expect(board.isFinal)
        outcome.standings = board.standings.map { "\($0.rank) \($0.player) \($0.totalReturn) \($0.equity)" }
        return outcome
    }

    /// The text without ids (random per run, or drawn by the engine) and engine-local instrument numbers.
    static func anonymous(_ text: String) -> String {
        text.replacingOccurrences(
            of: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", with: "<id>",
            options: .regularExpression
        ).replacingOccurrences(of: #"InstrumentID\(index: [0-9]+\)"#, with: "<instrument>", options: .regularExpression)
    }

    /// The first difference between two runs' lists (a readable failure instead of two whole days).
    static func firstDifference(_ a: [[String]], _ b: [[String]]) -> String? {
        guard a.count == b.count else { return "\(a.count) accounts against \(b.count)" }
        for (i, (x, y)) in zip(a, b).enumerated() where x != y {
            for (j, (p, q)) in zip(x, y).enumerated() where p != q { return "#\(i) line \(j): \(p)\n  against \(q)" }
            return "#\(i): \(x.count) lines against \(y.count)"
        }
        return nil
    }

    /// One account's action in one minute, decided by the account's place and the minute alone.
    static func act(_ brokerage: Brokerage, account: AccountID, a: Int, minute: Int) async throws {
        let symbol = symbols[(a + minute) % symbols.count]
        do {
            switch (a * 7 + minute * 3) % 6 {
            case 0, 1:
                _ = try await brokerage.submit(
                    OrderRequest(symbol: symbol, side: .buy, qty: Quantity(1 + (a + minute) % 4)), account: account)
            case 2:
                let last = try await brokerage.feed.quote(symbol).last
                _ = try await brokerage.submit(
                    OrderRequest(
                        symbol: symbol, side: .buy, type: .limit, timeInForce: .day, qty: 2,
                        limitPrice: (last - FixedDecimal("0.03")!).rounded(places: 2, rule: .down)),
                    account: account)
            case 3:
                if let held = try await brokerage.heldSymbols(account).first {
                    _ = try await brokerage.closePosition(
                        held, account: account, qty: nil, percentage: FixedDecimal(50))
                }
            case 4:
                _ = try await brokerage.cancelAll(account: account)
            default:
                break
            }
        } catch BrokerageError.rejected, BrokerageError.invalid {
            // Refusals (not enough shares, less than one share) are part of the script, the same in every run.
        }
    }

    @Test("the same day gives the same ledgers, orders, notifications and game standings with 1, 2 and 8 owners")
    func resultsDoNotDependOnOwners() async throws {
        let one = try await Self.scriptedDay(owners: 1)
        #expect(one.shardsUsed == 64, "220 accounts spread over all 64 shards")
        #expect(one.ledgers.allSatisfy { !$0.isEmpty })
        #expect(one.orders.joined().count > 1_000, "the script trades")
        #expect(one.orders.joined().contains { $0.contains(" filled ") })
        #expect(one.notifications.joined().contains { $0.hasPrefix("order_placed_automatically") })
        #expect(one.notifications.joined().contains { $0.hasPrefix("alert") })
        #expect(one.notifications.joined().contains { $0.hasPrefix("game_ended") })
        #expect(one.standings.count == 20)
        for owners in [2, 8] {
            let other = try await Self.scriptedDay(owners: owners)
            #expect(Self.firstDifference(one.ledgers, other.ledgers) == nil, "ledgers with \(owners) owners")
            #expect(Self.firstDifference(one.orders, other.orders) == nil, "orders with \(owners) owners")
            #expect(
                Self.firstDifference(one.notifications, other.notifications) == nil,
                "notifications with \(owners) owners")
            #expect(other.standings == one.standings, "standings with \(owners) owners")
        }
    }

    @Test("new accounts spread evenly over the shards; the count is fixed when the database is created")
    func placement() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-shards-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = MarketClock(.manual(start: Self.open))
        let directory = try SymbolDirectory.bundled()
        let feed = SimulatedFeed(
            market: SimulatedMarket(
                directory: directory, configuration: SimulatorConfiguration(seed: 1, sessions: clock.sessions)),
            clock: clock)
        let database = DatabaseLocation.sqlite(path: path + "/papertrade.sqlite")
        let brokerage = try await Brokerage.open(database, feed: feed, directory: directory, clock: clock, shards: 8)
        let user = try await brokerage.users.createUser(id: UserID(UUID().uuidString), username: "t", passwordHash: "-")
        for n in 0..<20 {
            _ = try await brokerage.openAccount(userID: user.id, market: .us, cash: 1_000, name: "a\(n)")
        }
        let layout = await brokerage.shardLayout()
        #expect(layout.shards.count == 8)
        #expect(layout.shards.map(\.accounts).sorted() == [2, 2, 2, 2, 3, 3, 3, 3])
        await brokerage.shutdown()

        await #expect(throws: StorageError.self, "another count for an existing database is refused") {
            _ = try await Brokerage.open(database, feed: feed, directory: directory, clock: clock, shards: 16)
        }
        let reopened = try await Brokerage.open(database, feed: feed, directory: directory, clock: clock)
        #expect(await reopened.shardLayout().shards.count == 8, "the stored count is kept")
        #expect(await reopened.accounts(of: user.id).count == 20)
        await reopened.shutdown()
    }
}
