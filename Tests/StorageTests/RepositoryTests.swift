import BrokerageModel
import Foundation
import Storage
import Testing
import TradingCore

/// Each aggregate's repository on its own, on SQLite and PostgreSQL: what one writes, it reads back; what must be
/// unique is refused twice; what belongs to one user or account is not another's.
@Suite("One repository per aggregate, on SQLite and PostgreSQL")
struct RepositoryTests {
    static let t0 = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)

    /// A fresh database with the users the tests' records belong to (accounts, games and notifications name them).
    func withUsers(_ backend: Backend, _ body: (Storage) async throws -> Void) async throws {
        try await withStorage(backend) { storage in
            for name in ["u1", "u2", "teacher", "student"] {
                try await SQLUsers(storage).createUser(
                    UserRecord(id: UserID(name), username: name, passwordHash: "h", createdAt: Self.t0))
            }
            try await body(storage)
        }
    }

    func account(_ storage: Storage, user: String = "u1") async throws -> AccountRecord {
        var engine = TradingEngine()
        let id = AccountID(high: 7, low: UInt64.random(in: 1...UInt64.max))
        try engine.openAccount(id, market: .us, startingCash: 10_000)
        let record = AccountRecord(
            id: id, userID: UserID(user), name: "Paper", market: .us, accountNumber: "PA\(id.low)", createdAt: Self.t0,
            snapshot: engine.snapshot(of: id)!)
        try await SQLAccounts(storage).createAccount(record)
        return record
    }

    @Test(
        "users and keys: a username once, a language kept, a key found by id, a session until it expires",
        arguments: Backend.available)
    func users(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            let users = SQLUsers(storage)
            try await users.createUser(UserRecord(id: "u1", username: "ada", passwordHash: "h", createdAt: Self.t0))
            await #expect(throws: StorageError.self) {
                try await users.createUser(UserRecord(id: "u2", username: "ada", passwordHash: "h", createdAt: Self.t0))
            }
            #expect(try await users.user(username: "ada")?.id == "u1")
            #expect(try await users.userCount() == 1)
            try await users.setLanguage("zh-Hans", user: "u1")
            #expect(try await users.userLanguages() == ["u1": "zh-Hans"])
            let record = try await account(storage)
            try await users.createAPIKey(APIKeyRecord(keyID: "PK1", secretHash: "s", accountID: record.id), at: Self.t0)
            #expect(try await users.apiKey("PK1")?.accountID == record.id)
            #expect(try await users.apiKey("PK2") == nil)
            try await users.createSession(
                tokenHash: "t", userID: "u1", createdAt: Self.t0, expiresAt: Self.t0.adding(seconds: 60))
            #expect(try await users.sessionUser(tokenHash: "t", at: Self.t0.adding(seconds: 59)) == "u1")
            #expect(try await users.sessionUser(tokenHash: "t", at: Self.t0.adding(seconds: 61)) == nil)
        }
    }

    @Test("watchlists: a name once per account; another account's list is not deleted", arguments: Backend.available)
    func watchlists(_ backend: Backend) async throws {
        try await withUsers(backend) { storage in
            let lists = SQLWatchlists(storage)
            let a = try await account(storage)
            let b = try await account(storage, user: "u2")
            try await lists.saveWatchlist(
                WatchlistRecord(
                    id: "w1", accountID: a.id, name: "Tech", symbols: ["AAPL", "MSFT"], createdAt: Self.t0,
                    updatedAt: Self.t0))
            await #expect(throws: StorageError.self) {
                try await lists.saveWatchlist(
                    WatchlistRecord(
                        id: "w2", accountID: a.id, name: "Tech", symbols: [], createdAt: Self.t0, updatedAt: Self.t0))
            }
            try await lists.saveWatchlist(
                WatchlistRecord(
                    id: "w3", accountID: b.id, name: "Tech", symbols: ["KO"], createdAt: Self.t0, updatedAt: Self.t0))
            #expect(try await lists.watchlists(account: a.id).map(\.symbols) == [["AAPL", "MSFT"]])
            #expect(try await lists.deleteWatchlist(id: "w1", account: b.id) == false)
            #expect(try await lists.deleteWatchlist(id: "w1", account: a.id))
            #expect(try await lists.watchlists(account: a.id).isEmpty)
        }
    }

    @Test(
        "games: joining records the player and opens the account together, once per user", arguments: Backend.available)
    func games(_ backend: Backend) async throws {
        try await withUsers(backend) { storage in
            let games = SQLGames(storage)
            let game = GameRecord(
                id: GameID(high: 3, low: 1), ownerID: "teacher", name: "Period 3", market: .us, joinCode: "ABCD2345",
                settings: GameSettings(startingCash: 100_000), createdAt: Self.t0)
            try await games.createGame(game)
            func join(_ n: UInt64) async throws -> AccountRecord {
                var engine = TradingEngine()
                let id = AccountID(high: 9, low: n)
                try engine.openAccount(id, market: .us, startingCash: 100_000)
                let record = AccountRecord(
                    id: id, userID: "student", name: "Period 3", market: .us, accountNumber: "PA\(n)",
                    createdAt: Self.t0, snapshot: engine.snapshot(of: id)!)
                try await games.joinGame(
                    GamePlayerRecord(gameID: game.id, accountID: id, userID: "student", name: "S", joinedAt: Self.t0),
                    account: record)
                return record
            }
            let first = try await join(1)
            await #expect(throws: StorageError.self) { _ = try await join(2) }
            // The refused join left no account behind.
            #expect(try await SQLAccounts(storage).account(AccountID(high: 9, low: 2)) == nil)
            #expect(try await SQLAccounts(storage).account(first.id) != nil)
            var player = try #require(try await games.gamePlayers().first)
            player.removedAt = Self.t0.adding(seconds: 60)
            try await games.savePlayer(player)
            #expect(try await games.gamePlayers().map(\.removedAt) == [Self.t0.adding(seconds: 60)])
            var ended = game
            ended.endedAt = Self.t0.adding(seconds: 3600)
            try await games.saveGame(ended)
            #expect(try await games.games().map(\.endedAt) == [Self.t0.adding(seconds: 3600)])
        }
    }

    @Test(
        "equity history: closes read back by date range, the last one on or before a date", arguments: Backend.available
    )
    func equityHistory(_ backend: Backend) async throws {
        try await withUsers(backend) { storage in
            let history = SQLEquityHistory(storage)
            let a = try await account(storage)
            let days = (0..<3).map { i in
                EquityDay(
                    accountID: a.id, date: CivilDate(2026, 11, 18 + i), equity: FixedDecimal(10_000 + i * 100),
                    cash: 10_000, positionsValue: FixedDecimal(i * 100), flow: 0, dividends: 0, fees: 0,
                    realizedPnL: 0, lastSequence: Int64(i + 1), holdings: ["AAPL": FixedDecimal(i + 1)],
                    marks: ["AAPL": 100])
            }
            try await history.saveEquityDays(days)
            let all = try await history.equityDays(account: a.id, from: nil, through: nil, withHoldings: true)
            #expect(all == days)
            let middle = try await history.equityDays(
                account: a.id, from: CivilDate(2026, 11, 19), through: CivilDate(2026, 11, 19), withHoldings: false)
            #expect(middle.map(\.equity) == [10_100])
            #expect(
                try await history.lastEquityDay(account: a.id, onOrBefore: CivilDate(2026, 11, 19))?.date
                    == CivilDate(2026, 11, 19))
            #expect(try await history.lastEquityDay(account: a.id, onOrBefore: CivilDate(2026, 11, 1)) == nil)
        }
    }

    @Test(
        "rules and alerts: what the journal wrote, split into queued and ended; a user sees only their own alerts",
        arguments: Backend.available)
    func rules(_ backend: Backend) async throws {
        try await withUsers(backend) { storage in
            let rules = SQLRules(storage)
            let a = try await account(storage)
            func rule(_ n: UInt64) -> QueueRule {
                QueueRule(
                    id: QueueRuleID(high: 4, low: n), accountID: a.id, symbol: "AAPL",
                    condition: .priceAtLeast(200), action: RuleAction(side: .buy, qty: 1, pricing: .market),
                    lifetime: .untilTriggered, createdAt: Self.t0)
            }
            let alert = PriceAlert(
                id: AlertID(high: 5, low: 1), symbol: "AAPL", condition: .greaterThan(.value(200)), frequency: .once,
                timeframe: .day, expiresAt: nil, createdAt: Self.t0)
            var journal = Journal(
                rules: [
                    QueueRuleRecord(rule: rule(1), updatedAt: Self.t0),
                    QueueRuleRecord(rule: rule(2), status: .canceled, updatedAt: Self.t0),
                ])
            journal.alerts = [AlertRecord(alert: alert, userID: "u1", updatedAt: Self.t0)]
            try await storage.journal(journal)
            #expect(try await rules.queuedRules().map(\.rule.id.low) == [1])
            #expect(try await rules.queueRules(account: a.id, queued: false, limit: 10).map(\.rule.id.low) == [2])
            #expect(try await rules.activeAlerts().map(\.alert.id) == [alert.id])
            #expect(try await rules.alert(alert.id, user: "u1") != nil)
            #expect(try await rules.alert(alert.id, user: "u2") == nil)
            #expect(try await rules.alerts(user: "u2", active: true, limit: 10).isEmpty)
        }
    }

    @Test(
        "notifications: newest first with the unread count; marking read is the user's own",
        arguments: Backend.available)
    func notifications(_ backend: Backend) async throws {
        try await withUsers(backend) { storage in
            let notifications = SQLNotifications(storage)
            let records = (0..<3).map { i in
                NotificationRecord(
                    id: "n\(i)", userID: "u1", accountID: nil, kind: "alert", title: "T\(i)", body: "",
                    createdAt: Self.t0.adding(seconds: Int64(i)))
            }
            try await storage.journal(Journal(notifications: records))
            let (items, unread) = try await notifications.notifications(user: "u1", limit: 10)
            #expect(items.map(\.id) == ["n2", "n1", "n0"])
            #expect(unread == 3)
            try await notifications.markNotificationsRead(user: "u2", id: "n2", at: Self.t0)
            #expect(try await notifications.notifications(user: "u1", limit: 10).unread == 3)
            try await notifications.markNotificationsRead(user: "u1", id: "n2", at: Self.t0)
            #expect(try await notifications.notifications(user: "u1", limit: 10).unread == 2)
            try await notifications.markNotificationsRead(user: "u1", id: nil, at: Self.t0)
            #expect(try await notifications.notifications(user: "u1", limit: 10).unread == 0)
        }
    }
}
