import BrokerageModel
import SQLKit
import TradingCore

/// Games and their players; joining opens the player's game account in the same transaction. The SQL of `GameRepository`, on SQLite and PostgreSQL.
public struct SQLGames: GameRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }
}

extension SQLGames {
    public func createGame(_ game: GameRecord) async throws {
        let settings = try Coding.encode(game.settings)
        try await database.transaction { db in
            try await db.raw(
                """
                INSERT INTO games (id, owner_id, name, market, join_code, visibility, settings, created_at)
                VALUES (\(bind: game.id.description), \(bind: game.ownerID.text), \(bind: game.name),
                        \(bind: game.market.rawValue), \(bind: game.joinCode), \(bind: game.settings.visibility.rawValue),
                        \(bind: settings), \(bind: game.createdAt.nanoseconds))
                """
            ).run()
        }
    }

    /// Writes a game's name, settings, end and final standings.
    public func saveGame(_ game: GameRecord) async throws {
        let settings = try Coding.encode(game.settings)
        let final = try game.final.map { try Coding.encode($0) }
        try await database.transaction { db in
            try await db.raw(
                """
                UPDATE games SET name = \(bind: game.name), visibility = \(bind: game.settings.visibility.rawValue),
                    settings = \(bind: settings), ended_at = \(bind: game.endedAt?.nanoseconds),
                    final_standings = \(bind: final)
                WHERE id = \(bind: game.id.description)
                """
            ).run()
        }
    }

    public func games() async throws -> [GameRecord] {
        try await database.read { db in
            try await db.raw("SELECT * FROM games ORDER BY created_at").all().map(Self.game)
        }
    }

    static func game(_ row: any SQLRow) throws -> GameRecord {
        guard let id = GameID(try row.decode(column: "id", as: String.self)),
            let market = Market(rawValue: try row.decode(column: "market", as: String.self))
        else { throw StorageError.corrupt("game row") }
        return GameRecord(
            id: id, ownerID: UserID(try row.decode(column: "owner_id", as: String.self)),
            name: try row.decode(column: "name", as: String.self), market: market,
            joinCode: try row.decode(column: "join_code", as: String.self),
            settings: try Coding.decode(GameSettings.self, try row.decode(column: "settings", as: String.self)),
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)),
            endedAt: try row.decode(column: "ended_at", as: Int64?.self).map(Timestamp.init(nanoseconds:)),
            final: try row.decode(column: "final_standings", as: String?.self).map {
                try Coding.decode([Standing].self, $0)
            })
    }

    /// Opens a player's game account and records them as a player, in one transaction.
    public func joinGame(_ player: GamePlayerRecord, account: AccountRecord) async throws {
        let state = try Coding.encode(account.snapshot.account)
        try await database.transaction { db in
            let taken = try await db.raw(
                """
                SELECT account_id FROM game_players WHERE game_id = \(bind: player.gameID.description)
                    AND user_id = \(bind: player.userID.text) AND team = 0
                """
            ).first()
            guard taken == nil || player.team else { throw StorageError.duplicate("player of game \(player.gameID)") }
            try await db.raw(
                """
                INSERT INTO accounts (id, user_id, name, market, account_number, created_at, state, shard)
                VALUES (\(bind: account.id.description), \(bind: account.userID.text), \(bind: account.name),
                        \(bind: account.market.rawValue), \(bind: account.accountNumber),
                        \(bind: account.createdAt.nanoseconds), \(bind: state), \(bind: account.shard.index))
                """
            ).run()
            try await Self.insertPlayer(player, into: db)
        }
    }

    static func insertPlayer(_ p: GamePlayerRecord, into db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO game_players (account_id, game_id, user_id, name, joined_at, removed_at, resets_used, team)
            VALUES (\(bind: p.accountID.description), \(bind: p.gameID.description), \(bind: p.userID.text),
                    \(bind: p.name), \(bind: p.joinedAt.nanoseconds), \(bind: p.removedAt?.nanoseconds),
                    \(bind: p.resetsUsed), \(bind: p.team ? 1 : 0))
            """
        ).run()
    }

    /// Writes a player's removal and resets used.
    public func savePlayer(_ p: GamePlayerRecord) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                UPDATE game_players SET removed_at = \(bind: p.removedAt?.nanoseconds), resets_used = \(bind: p.resetsUsed)
                WHERE account_id = \(bind: p.accountID.description)
                """
            ).run()
        }
    }

    public func gamePlayers() async throws -> [GamePlayerRecord] {
        try await database.read { db in
            try await db.raw("SELECT * FROM game_players ORDER BY joined_at").all().map { row in
                guard let game = GameID(try row.decode(column: "game_id", as: String.self)),
                    let account = AccountID(try row.decode(column: "account_id", as: String.self))
                else { throw StorageError.corrupt("game player row") }
                return GamePlayerRecord(
                    gameID: game, accountID: account,
                    userID: UserID(try row.decode(column: "user_id", as: String.self)),
                    name: try row.decode(column: "name", as: String.self),
                    joinedAt: Timestamp(nanoseconds: try row.decode(column: "joined_at", as: Int64.self)),
                    removedAt: try row.decode(column: "removed_at", as: Int64?.self).map(Timestamp.init(nanoseconds:)),
                    resetsUsed: try row.decode(column: "resets_used", as: Int.self),
                    team: try row.decode(column: "team", as: Int.self) != 0)
            }
        }
    }
}
