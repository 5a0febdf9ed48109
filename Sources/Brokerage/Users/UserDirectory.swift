import BrokerageModel
import MarketData
import Synchronization
import TradingCore

/// Users, their web sessions and their accounts' API keys: everything a surface needs to know who is calling.
///
/// Secrets never reach this type in the clear: callers hash session tokens and key secrets (SHA-256, they are
/// random) and passwords (bcrypt) before handing them over, so the brokerage stays free of credential formats.
public struct UserDirectory: Sendable {
    let storage: any UserRepository
    let clock: MarketClock
    /// Users' chosen languages (`setLanguage` keeps them with the stored choice).
    let languages: LanguagePreferences
    /// How many API keys this process revoked and sessions it closed: a cache of verified keys checks its keys again
    /// when it moves, and open streams their credentials.
    public let revocations = CredentialRevocations()

    /// Creates a user after checking the username (the password is checked and hashed by the caller, which alone
    /// sees it).
    public func createUser(username: String, passwordHash: String) async throws(BrokerageError) -> UserRecord {
        if let problem = AccountRules.usernameProblem(username) { throw .invalid(problem) }
        var generator = SystemRandomNumberGenerator()
        return try await createUser(
            id: UserID(Identifier.random(using: &generator).description), username: username,
            passwordHash: passwordHash)
    }

    /// Creates a user with a given id (the password must already be hashed by the caller).
    public func createUser(id: UserID, username: String, passwordHash: String) async throws(BrokerageError)
        -> UserRecord
    {
        let record = UserRecord(id: id, username: username, passwordHash: passwordHash, createdAt: clock.now())
        try await stored { try await storage.createUser(record) }
        return record
    }

    /// Sets (or, with nil, clears: follow the browser) the language a user reads papertrade in; notifications made
    /// from now on are written in it.
    public func setLanguage(_ language: Language?, user: UserID) async throws(BrokerageError) {
        try await stored { try await storage.setLanguage(language?.rawValue, user: user) }
        languages.set(language, for: user)
    }

    /// Replaces a user's password (already hashed by the caller); `mustChange` asks for a new one at the next
    /// log-in (a teacher's reset), and a user's own change clears it.
    public func setPassword(user: UserID, hash: String, mustChange: Bool) async throws(BrokerageError) {
        try await stored { try await storage.setPassword(user: user, hash: hash, mustChange: mustChange) }
    }

    /// Notes a log-in (a teacher's roster shows who never logged in).
    public func recordLogin(user: UserID) async throws(BrokerageError) {
        let now = clock.now()
        try await stored { try await storage.recordLogin(user: user, at: now) }
    }

    public func user(username: String) async throws(BrokerageError) -> UserRecord? {
        try await stored { try await storage.user(username: username) }
    }

    public func user(id: UserID) async throws(BrokerageError) -> UserRecord? {
        try await stored { try await storage.user(id: id) }
    }

    /// How many users exist (zero on a fresh database, when `serve` creates the demo user).
    public func count() async throws(BrokerageError) -> Int {
        try await stored { try await storage.userCount() }
    }

    // MARK: Sessions

    /// Starts a web session for a user; it expires after `seconds`.
    public func openSession(tokenHash: String, userID: UserID, lifetime seconds: Int64) async throws(BrokerageError) {
        let now = clock.now()
        try await stored {
            try await storage.createSession(
                tokenHash: tokenHash, userID: userID, createdAt: now,
                expiresAt: now.adding(seconds: seconds))
        }
    }

    /// The user of a live session, or nil when the token is unknown or expired.
    public func sessionUser(tokenHash: String) async throws(BrokerageError) -> UserID? {
        let now = clock.now()
        return try await stored { try await storage.sessionUser(tokenHash: tokenHash, at: now) }
    }

    public func closeSession(tokenHash: String) async throws(BrokerageError) {
        try await stored { try await storage.deleteSession(tokenHash: tokenHash) }
        revocations.noteSession()
    }

    // MARK: API keys

    /// Stores a new API key of an account (its secret already hashed).
    public func addKey(_ key: APIKeyRecord) async throws(BrokerageError) {
        let now = clock.now()
        try await stored { try await storage.createAPIKey(key, at: now) }
    }

    public func key(_ keyID: String) async throws(BrokerageError) -> APIKeyRecord? {
        try await stored { try await storage.apiKey(keyID) }
    }

    /// The account's API keys, oldest first (their secrets are not kept: only hashes).
    public func keys(of account: AccountID) async throws(BrokerageError) -> [APIKeyRecord] {
        try await stored { try await storage.apiKeys(of: account) }
    }

    /// Revokes one of the account's keys: requests with it are refused from now on.
    public func revokeKey(_ keyID: String, of account: AccountID) async throws(BrokerageError) {
        guard try await stored({ try await storage.deleteAPIKey(keyID, of: account) }) else {
            throw .notFound("this account has no API key \(keyID)")
        }
        revocations.noteKey()
    }

    /// Revokes every key of an account (a disbanded team's); returns how many there were.
    @discardableResult
    public func revokeKeys(of account: AccountID) async throws(BrokerageError) -> Int {
        let revoked = try await stored { try await storage.deleteAPIKeys(of: account) }
        if revoked > 0 { revocations.noteKey() }
        return revoked
    }
}

/// Counts of the credentials this process ended — API keys revoked (`UserDirectory.revokeKey`, `revokeKeys`),
/// sessions closed (`closeSession`): a cache of verified keys remembers the key count it verified a key at and checks
/// the key again once that count has moved; the server's open streams check their credentials when either moves.
public final class CredentialRevocations: Sendable {
    private let counts = Mutex<(keys: UInt64, sessions: UInt64)>((0, 0))

    /// Moves with every key revoked.
    public var keys: UInt64 { counts.withLock { $0.keys } }
    /// Moves with every key revoked and every session closed.
    public var generation: UInt64 { counts.withLock { $0.keys &+ $0.sessions } }

    func noteKey() { counts.withLock { $0.keys &+= 1 } }
    func noteSession() { counts.withLock { $0.sessions &+= 1 } }
}

/// Runs a storage call, turning its failure into the brokerage's error (a duplicate is a conflict; anything else
/// means storage is unavailable and nothing changed).
func stored<T>(_ body: () async throws -> T) async throws(BrokerageError) -> T {
    do { return try await body() } catch { throw .storage(error) }
}
