import BrokerageModel
import Foundation
import SQLKit
import Testing
import TradingCore

@testable import Storage

@Suite("Migrations 21 and 22: class teams")
struct TeamPlayersMigrationTests {
    static let t0 = StorageTests.t0
    static let game = GameRecord(
        id: GameID(high: 3, low: 1), ownerID: "teacher", name: "Period 3", market: .us, joinCode: "ABCD2345",
        settings: GameSettings(startingCash: 100_000), createdAt: t0)

    /// A game account's row for `n`, owned by "student".
    static func account(_ n: UInt64) throws -> AccountRecord {
        var engine = TradingEngine()
        let id = AccountID(high: 9, low: n)
        try engine.openAccount(id, market: .us, startingCash: 100_000)
        return AccountRecord(
            id: id, userID: "student", name: "Period 3", market: .us, accountNumber: "PA\(n)", createdAt: t0,
            snapshot: engine.snapshot(of: id)!)
    }

    @Test(
        "a database's game players are kept through migration 21; a user still plays once in a game on their own, and a team's account may join beside them",
        arguments: Backend.available)
    func teamPlayers(_ backend: Backend) async throws {
        let location: DatabaseLocation
        switch backend {
        case .sqlite:
            location = .sqlite(
                path: FileManager.default.temporaryDirectory.appendingPathComponent(
                    "papertrade-teams-\(UUID())/db.sqlite"
                )
                .path)
        case .postgres:
            let admin = ProcessInfo.processInfo.environment["PAPERTRADE_TEST_POSTGRES_URL"] ?? ""
            let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try await Storage.createPostgresDatabase(name, adminURL: admin)
            location = .postgres(url: admin.replacingOccurrences(of: "/postgres?", with: "/\(name)?"))
        }
        // As the schema stood at migration 20: a player written with its columns then.
        var storage = try await Storage.connect(location)
        do {
            try await storage.migrate(through: 20)
            for name in ["teacher", "student"] {
                try await SQLUsers(storage).createUser(
                    UserRecord(id: UserID(name), username: name, passwordHash: "h", createdAt: Self.t0))
            }
            try await SQLGames(storage).createGame(Self.game)
            try await SQLAccounts(storage).createAccount(try Self.account(1))
            try await storage.transaction { db in
                try await db.raw(
                    """
                    INSERT INTO game_players (account_id, game_id, user_id, name, joined_at, removed_at, resets_used)
                    VALUES (\(bind: AccountID(high: 9, low: 1).description), \(bind: Self.game.id.description),
                            'student', 'S', \(bind: Self.t0.nanoseconds), NULL, 1)
                    """
                ).run()
            }
        } catch {
            await storage.shutdown()
            throw error
        }
        await storage.shutdown()

        storage = try await Storage.open(location)
        do {
            let games = SQLGames(storage)
            let kept = try await games.gamePlayers()
            #expect(kept.map(\.accountID) == [AccountID(high: 9, low: 1)])
            #expect(kept.first?.resetsUsed == 1 && kept.first?.team == false)
            func join(_ n: UInt64, team: Bool) async throws {
                try await games.joinGame(
                    GamePlayerRecord(
                        gameID: Self.game.id, accountID: AccountID(high: 9, low: n), userID: "student", name: "Bulls",
                        joinedAt: Self.t0, team: team),
                    account: try Self.account(n))
            }
            await #expect(throws: StorageError.self) { try await join(2, team: false) }
            try await join(3, team: true)
            try await join(4, team: true)
            #expect(try await games.gamePlayers().map(\.team) == [false, true, true])

            // Migration 22: a team's members by its account, one account or a shard's at once (what a shard loads to
            // tell every member what happens to it).
            let classes = SQLClasses(storage)
            let classID = ClassID(high: 4, low: 1)
            try await classes.createClass(
                ClassRecord(
                    id: classID, gameID: Self.game.id, name: "Period 3", teachers: ["teacher"], createdAt: Self.t0))
            let pupils = ["ann", "ben", "cyd"]
            try await classes.enroll(
                pupils.enumerated().map { n, name in
                    ClassStudentRecord(
                        classID: classID, userID: UserID(name), username: name, displayName: name, email: nil,
                        accountID: AccountID(high: 9, low: 1), addedAt: Self.t0.adding(seconds: Int64(n)))
                },
                creating: pupils.map { UserRecord(id: UserID($0), username: $0, passwordHash: "h", createdAt: Self.t0) }
            )
            try await classes.formTeam(
                "Bulls", account: AccountID(high: 9, low: 3), members: ["ann", "cyd"], in: classID)
            #expect(try await classes.teamMembers(of: AccountID(high: 9, low: 3)) == ["ann", "cyd"])
            #expect(try await classes.teamMembers(of: AccountID(high: 9, low: 4)).isEmpty)
            #expect(try await classes.teamMembers(inShard: ShardID(0)) == [AccountID(high: 9, low: 3): ["ann", "cyd"]])
            #expect(try await classes.teamMembers(inShard: ShardID(1)).isEmpty)
            #expect(try await classes.disbandTeam("Bulls", in: classID))
            #expect(try await classes.teamMembers(inShard: ShardID(0)).isEmpty)
            // The database holds one own player per user and game even past the check in code.
            try await SQLAccounts(storage).createAccount(try Self.account(5))
            await #expect(throws: (any Error).self) {
                try await storage.transaction { db in
                    try await db.raw(
                        """
                        INSERT INTO game_players (account_id, game_id, user_id, name, joined_at, resets_used)
                        VALUES (\(bind: AccountID(high: 9, low: 5).description), \(bind: Self.game.id.description),
                                'student', 'again', 0, 0)
                        """
                    ).run()
                }
            }
        } catch {
            await storage.shutdown()
            throw error
        }
        await storage.shutdown()
    }
}
