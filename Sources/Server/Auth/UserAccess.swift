import Brokerage
import Synchronization
import TradingCore

/// Who may come in: creates users (the password is checked and hashed here, the one place that sees it), issues
/// API keys (the secret is shown once and stored only as a hash), checks key pairs with a cache of verified keys,
/// and throttles failed logins. Every surface that signs someone in (the native API, the Alpaca key headers, the
/// IB gateway's login, the streams) shares this one instance, so a throttled username is throttled everywhere.
public final class UserAccess: Sendable {
    let users: UserDirectory
    let accountService: any AccountService
    /// Failed logins per username (the native API and the IB gateway's login page).
    let throttle = LoginThrottle()
    /// Verified API keys whose accounts are loaded (key id → secret hash and account, and when storage last said the
    /// key exists): a request with a known key touches neither storage nor a shard to authenticate. After any
    /// revocation in this process (`UserDirectory.revocations`: one key, or a disbanded team's) every key is checked
    /// again; one revoked on another node of a cluster is refused once its entry is older than `keyRecheck`.
    private let keys = Mutex<[String: CachedKey]>([:])
    struct CachedKey {
        var record: APIKeyRecord
        var verified: ContinuousClock.Instant
        var generation: UInt64
    }
    static let keyRecheck = Duration.seconds(5)

    /// Ends the streams of credentials that no longer open anything (a revoked key, a closed or expired session).
    let watch: CredentialWatch

    public init(users: UserDirectory, accountService: any AccountService) {
        self.users = users
        self.accountService = accountService
        watch = CredentialWatch(users: users)
    }

    /// Codes of the sign-up and log-in refusals, each one thing a person can fix (the app words them in the user's
    /// language; the message stays English for API clients).
    public enum Refusal {
        public static let username = 42210101
        public static let password = 42210102
        public static let usernameTaken = 40910101
        public static let wrongPassword = 40110000
        public static let tooManyLogins = 42910000
    }

    /// Creates a user: the brokerage checks the username; the password is checked and hashed here.
    public func createUser(username: String, password: String) async throws -> UserRecord {
        if let problem = AccountRules.usernameProblem(username) {
            throw APIError(.unprocessableContent, code: Refusal.username, problem)
        }
        if let problem = AccountRules.passwordProblem(password) {
            throw APIError(.unprocessableContent, code: Refusal.password, problem)
        }
        let hash = try await Credentials.hashPassword(password)
        do {
            return try await users.createUser(username: username, passwordHash: hash)
        } catch .conflict {
            throw APIError(.conflict, code: Refusal.usernameTaken, "the username \(username) is taken")
        }
    }

    /// A new API key for an account: the secret is shown once and stored only as a hash.
    public func createKey(account: AccountID) async throws -> (keyID: String, secret: String) {
        let keyID = Credentials.keyID()
        let secret = Credentials.token(bytes: 30)
        try await users.addKey(
            APIKeyRecord(keyID: keyID, secretHash: Credentials.sha256(secret), accountID: account))
        return (keyID, secret)
    }

    /// The account an API key pair opens, or nil. `loading`: load the account into its shard (a request is about to
    /// use it); a stream only listens, and on a cluster its account may live in a shard another node serves.
    func authenticate(keyID: String, secret: String, loading: Bool = true) async throws -> AccountID? {
        let hash = Credentials.sha256(secret)
        // A cached key's account is already in the brokerage (accounts are never unloaded): no trip to its shard.
        let now = ContinuousClock.now
        let generation = users.revocations.keys
        if let cached = keys.withLock({ $0[keyID] }), now - cached.verified < Self.keyRecheck,
            cached.generation == generation
        {
            return Credentials.equal(cached.record.secretHash, hash) ? cached.record.accountID : nil
        }
        guard let record = try await users.key(keyID), Credentials.equal(record.secretHash, hash) else {
            keys.withLock { _ = $0.removeValue(forKey: keyID) }
            return nil
        }
        guard loading else { return record.accountID }
        try await accountService.loadAccountIfNeeded(record.accountID)
        keys.withLock { $0[keyID] = CachedKey(record: record, verified: now, generation: generation) }
        return record.accountID
    }

    /// The account's API keys, oldest first (ids and when each was made; secrets are never kept).
    public func keys(of account: AccountID) async throws -> [APIKeyRecord] { try await users.keys(of: account) }

    /// Revokes one of the account's keys: refused from the next request on, here at once.
    public func revokeKey(_ keyID: String, of account: AccountID) async throws {
        try await users.revokeKey(keyID, of: account)
    }

    /// On an empty database: a demo user with a USD and a CNY account and an API key for the USD one.
    public func bootstrapDemoIfEmpty() async throws -> (
        username: String, password: String, keyID: String, secret: String
    )? {
        guard try await users.count() == 0 else { return nil }
        let password = "demo-" + Credentials.token(bytes: 6)
        let user = try await createUser(username: "demo", password: password)
        let us = try await accountService.openAccount(userID: user.id, market: .us, cash: nil, name: "Demo USD")
        _ = try await accountService.openAccount(userID: user.id, market: .cn, cash: nil, name: "Demo A-shares")
        let key = try await createKey(account: us.id)
        return ("demo", password, key.keyID, key.secret)
    }
}
