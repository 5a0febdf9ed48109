import BrokerageModel
import Foundation
import SQLKit
import SQLiteKit
import TradingCore

/// Users, their web sessions and their accounts' API keys (secrets only as hashes). The SQL of `UserRepository`, on
/// SQLite and PostgreSQL.
public struct SQLUsers: UserRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }
}

extension SQLUsers {
    // MARK: Users and sessions

    public func createUser(_ user: UserRecord) async throws {
        try await database.transaction { db in try await Self.insert(user, into: db) }
    }

    /// Inserts a new user inside a transaction another repository runs (a class's roster); a taken username is a
    /// duplicate.
    static func insert(_ user: UserRecord, into db: any SQLDatabase) async throws {
        let existing = try await db.raw("SELECT id FROM users WHERE username = \(bind: user.username)").first()
        guard existing == nil else { throw StorageError.duplicate("user \(user.username)") }
        try await db.raw(
            """
            INSERT INTO users (id, username, password_hash, created_at, must_change_password, language)
            VALUES (\(bind: user.id.text), \(bind: user.username), \(bind: user.passwordHash), \(bind: user.createdAt.nanoseconds),
                    \(bind: user.mustChangePassword ? 1 : 0), \(bind: user.language))
            """
        ).run()
    }

    public func recordLogin(user: UserID, at time: Timestamp) async throws {
        try await database.transaction { db in
            try await db.raw("UPDATE users SET last_login_at = \(bind: time.nanoseconds) WHERE id = \(bind: user.text)")
                .run()
        }
    }

    public func setPassword(user: UserID, hash: String, mustChange: Bool) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                UPDATE users SET password_hash = \(bind: hash), must_change_password = \(bind: mustChange ? 1 : 0)
                WHERE id = \(bind: user.text)
                """
            ).run()
        }
    }

    public func user(username: String) async throws -> UserRecord? {
        try await database.read { db in
            try await db.raw("SELECT * FROM users WHERE username = \(bind: username)").first().map(Self.user)
        }
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await database.read { db in
            try await db.raw("SELECT * FROM users WHERE id = \(bind: id.text)").first().map(Self.user)
        }
    }

    public func userCount() async throws -> Int {
        try await database.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    static func user(_ row: any SQLRow) throws -> UserRecord {
        UserRecord(
            id: UserID(try row.decode(column: "id", as: String.self)),
            username: try row.decode(column: "username", as: String.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)),
            language: try row.decode(column: "language", as: String?.self),
            mustChangePassword: try row.decode(column: "must_change_password", as: Int.self) != 0,
            lastLoginAt: try row.decode(column: "last_login_at", as: Int64?.self).map(Timestamp.init(nanoseconds:)))
    }

    /// Sets (or, with nil, clears) a user's language.
    public func setLanguage(_ language: String?, user: UserID) async throws {
        try await database.transaction { db in
            try await db.raw("UPDATE users SET language = \(bind: language) WHERE id = \(bind: user.text)").run()
        }
    }

    /// Every user who chose a language (what the brokerage writes their notifications in).
    public func userLanguages() async throws -> [UserID: String] {
        try await database.read { db in
            var languages: [UserID: String] = [:]
            for row in try await db.raw("SELECT id, language FROM users WHERE language IS NOT NULL").all() {
                languages[UserID(try row.decode(column: "id", as: String.self))] = try row.decode(
                    column: "language", as: String.self)
            }
            return languages
        }
    }

    public func createSession(tokenHash: String, userID: UserID, createdAt: Timestamp, expiresAt: Timestamp)
        async throws
    {
        try await database.transaction { db in
            try await db.raw(
                """
                INSERT INTO web_sessions (token_hash, user_id, created_at, expires_at)
                VALUES (\(bind: tokenHash), \(bind: userID.text), \(bind: createdAt.nanoseconds), \(bind: expiresAt.nanoseconds))
                """
            ).run()
        }
    }

    /// The user of a live session, or nil if unknown or expired.
    public func sessionUser(tokenHash: String, at now: Timestamp) async throws -> UserID? {
        try await database.read { db in
            try await db.raw(
                "SELECT user_id FROM web_sessions WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: now.nanoseconds)"
            )
            .first()?.decode(column: "user_id", as: String.self)
        }.map { UserID($0) }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await database.transaction { db in
            try await db.raw("DELETE FROM web_sessions WHERE token_hash = \(bind: tokenHash)").run()
        }
    }

    public func createAPIKey(_ key: APIKeyRecord, at time: Timestamp) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                INSERT INTO api_keys (key_id, secret_hash, account_id, created_at)
                VALUES (\(bind: key.keyID), \(bind: key.secretHash), \(bind: key.accountID.description), \(bind: time.nanoseconds))
                """
            ).run()
        }
    }

    public func apiKey(_ keyID: String) async throws -> APIKeyRecord? {
        try await database.read { db in
            try await db.raw("SELECT * FROM api_keys WHERE key_id = \(bind: keyID)").first().flatMap(Self.apiKey)
        }
    }

    public func apiKeys(of account: AccountID) async throws -> [APIKeyRecord] {
        try await database.read { db in
            try await db.raw(
                "SELECT * FROM api_keys WHERE account_id = \(bind: account.description) ORDER BY created_at, key_id"
            ).all().compactMap(Self.apiKey)
        }
    }

    public func deleteAPIKey(_ keyID: String, of account: AccountID) async throws -> Bool {
        try await database.transaction { db in
            let found = try await db.raw(
                """
                SELECT key_id FROM api_keys WHERE key_id = \(bind: keyID) AND account_id = \(bind: account.description)
                """
            ).first()
            guard found != nil else { return false }
            try await db.raw("DELETE FROM api_keys WHERE key_id = \(bind: keyID)").run()
            return true
        }
    }

    public func deleteAPIKeys(of account: AccountID) async throws -> Int {
        try await database.transaction { db in
            let keys = try await db.raw(
                "SELECT key_id FROM api_keys WHERE account_id = \(bind: account.description)"
            ).all()
            guard !keys.isEmpty else { return 0 }
            try await db.raw("DELETE FROM api_keys WHERE account_id = \(bind: account.description)").run()
            return keys.count
        }
    }

    static func apiKey(_ row: any SQLRow) throws -> APIKeyRecord? {
        guard let account = AccountID(try row.decode(column: "account_id", as: String.self)) else { return nil }
        return APIKeyRecord(
            keyID: try row.decode(column: "key_id", as: String.self),
            secretHash: try row.decode(column: "secret_hash", as: String.self), accountID: account,
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)))
    }
}
