import Brokerage
import Foundation
import Logging
import MarketData
import Synchronization
import TradingCore

/// How `papertrade serve` runs. Every option has an environment variable (see the CLI).
public struct ServerConfiguration: Sendable {
    public enum ClockSetting: String, Sendable, CaseIterable {
        case realtime, alwaysOpen = "always-open", replay, manual
    }

    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory = "data"
    /// postgres://… to use PostgreSQL instead of the SQLite file in the data directory.
    public var databaseURL: String?
    public var clock: ClockSetting = .realtime
    /// Replay start (default: 30 days ago) and speed factor.
    public var replayStart: CivilDate?
    public var replaySpeed = 60
    public var seed: UInt64 = 1
    /// Requests per minute per API key on the Alpaca surface (Alpaca's own limit is 200); 0 turns the limit off.
    public var rateLimitPerMinute = 200
    public var marketData = MarketDataConfiguration()
    /// Serve the web app from this directory instead of the bundled copy (working on the app without rebuilding).
    public var webDirectory: String?
    /// Where scripts/fetch-web-vendor.sh put the chart library (default: the nearest .build/web-vendor).
    public var webVendorDirectory: String?
    /// SQLite WAL checkpoints and preallocation (`serve` preallocates the WAL).
    public var checkpoints = CheckpointPolicy()
    /// Whether the application runs the market pump service (tests that step the market themselves turn it off).
    public var runsMarketPump = true
    /// Where webhooks and push endpoints may point (public https only unless the operator allows local endpoints).
    public var outboundAddresses = OutboundAddressPolicy()
    /// The contact a push service may reach the operator at (VAPID's `sub`: a mailto: or https: URL).
    public var pushContact = "mailto:papertrade@localhost"
    /// Margin interest and margin calls.
    public var margin = MarginPolicy()
    /// The Interactive Brokers Client Portal listener (off unless a port is set).
    public var ib = IBGatewayConfiguration()
    /// Virtual shards of a database being created (default 64; an existing database keeps its own).
    public var shards: Int?
    /// Serial executors the shards run on (default: one per core).
    public var shardActors: Int?

    public init() {}

    public var database: DatabaseLocation {
        databaseURL.map { .postgres(url: $0) } ?? .sqlite(path: dataDirectory + "/papertrade.sqlite")
    }

    func makeClock() -> MarketClock {
        switch clock {
        case .realtime: return MarketClock(.realtime)
        case .alwaysOpen: return MarketClock(.alwaysOpen)
        case .manual: return MarketClock(.manual(start: MarketClock(.realtime).now()))
        case .replay:
            let now = MarketClock(.realtime).now()
            let start =
                replayStart.map { Timestamp($0, hour: 9, minute: 30, in: .newYork) }
                ?? now.adding(seconds: -30 * 86_400)
            return MarketClock(.replay(start: start, speed: replaySpeed))
        }
    }
}

/// What the HTTP surfaces run on: the brokerage (the one way in), the market data it uses, the web app's files.
public final class Papertrade: Sendable {
    public let configuration: ServerConfiguration
    public let directory: SymbolDirectory
    public let market: SimulatedMarket
    public let feed: any MarketDataFeed
    public let clock: MarketClock
    public let brokerage: Brokerage
    /// The web app's files, served at `/`.
    public let web: WebApp
    /// The VAPID key pair Web Push messages are signed with (kept in the data directory).
    public let vapid: VAPIDKey
    let throttle = LoginThrottle()
    /// Verified API keys whose accounts are loaded (key id → secret hash and account): a request with a known key
    /// touches neither storage nor the brokerage to authenticate.
    let keys = Mutex<[String: APIKeyRecord]>([:])

    init(
        configuration: ServerConfiguration, directory: SymbolDirectory, market: SimulatedMarket,
        feed: any MarketDataFeed, clock: MarketClock, brokerage: Brokerage, web: WebApp, vapid: VAPIDKey
    ) {
        self.configuration = configuration
        self.directory = directory
        self.market = market
        self.feed = feed
        self.clock = clock
        self.brokerage = brokerage
        self.web = web
        self.vapid = vapid
    }

    public static func start(_ configuration: ServerConfiguration, clock: MarketClock? = nil) async throws -> Papertrade
    {
        let clock = clock ?? configuration.makeClock()
        let directory = try SymbolDirectory.bundled()
        let market = SimulatedMarket(
            directory: directory,
            configuration: SimulatorConfiguration(seed: configuration.seed, sessions: clock.sessions))
        let feed =
            configuration.marketData.us == .simulated && configuration.marketData.cn == .simulated
            ? SimulatedFeed(market: market, clock: clock)
            : configuration.marketData.makeFeed(directory: directory, clock: clock)
        let vapid = try VAPIDKey.loadOrCreate(in: configuration.dataDirectory)
        let brokerage = try await Brokerage.open(
            configuration.database, checkpoints: configuration.checkpoints, feed: feed,
            directory: directory, clock: clock, seed: configuration.seed, shards: configuration.shards,
            shardOwners: configuration.shardActors)
        await brokerage.setMarginPolicy(configuration.margin)
        return Papertrade(
            configuration: configuration, directory: directory, market: market,
            feed: feed, clock: clock, brokerage: brokerage,
            web: WebApp.load(
                webDirectory: configuration.webDirectory, vendorDirectory: configuration.webVendorDirectory),
            vapid: vapid)
    }

    /// Closes the database once everything queued for it is written.
    public func shutdown() async { await brokerage.shutdown() }

    // MARK: Users, accounts, keys (shared by the API and the admin commands)

    /// Creates a user: the brokerage checks the username; the password is checked and hashed here, the one place
    /// that sees it.
    public func createUser(username: String, password: String) async throws -> UserRecord {
        if let problem = AccountRules.usernameProblem(username) { throw APIError.unprocessable(problem) }
        if let problem = AccountRules.passwordProblem(password) { throw APIError.unprocessable(problem) }
        let hash = try await Credentials.hashPassword(password)
        return try await brokerage.createUser(username: username, passwordHash: hash)
    }

    /// Opens an account with the market's defaults for what is not given (`AccountRules`).
    public func createAccount(
        userID: UserID, market: Market, cash: FixedDecimal?, name: String?, type: AccountType? = nil
    ) async throws -> AccountRecord {
        try await brokerage.openAccount(userID: userID, market: market, cash: cash, name: name, type: type)
    }

    /// A new API key for an account: the secret is shown once and stored only as a hash.
    public func createKey(account: AccountID) async throws -> (keyID: String, secret: String) {
        let keyID = Credentials.keyID()
        let secret = Credentials.token(bytes: 30)
        try await brokerage.users.addKey(
            APIKeyRecord(keyID: keyID, secretHash: Credentials.sha256(secret), accountID: account))
        return (keyID, secret)
    }

    /// The account an API key pair opens, or nil.
    func authenticate(keyID: String, secret: String) async throws -> AccountID? {
        let hash = Credentials.sha256(secret)
        // A cached key's account is already in the brokerage (accounts are never unloaded): no trip to its actor.
        if let record = keys.withLock({ $0[keyID] }) {
            return Credentials.equal(record.secretHash, hash) ? record.accountID : nil
        }
        guard let record = try await brokerage.users.key(keyID), Credentials.equal(record.secretHash, hash) else {
            return nil
        }
        try await brokerage.loadAccountIfNeeded(record.accountID)
        keys.withLock { $0[keyID] = record }
        return record.accountID
    }

    /// On an empty database: a demo user with a USD and a CNY account and an API key for the USD one.
    public func bootstrapDemoIfEmpty() async throws -> (
        username: String, password: String, keyID: String, secret: String
    )? {
        guard try await brokerage.users.count() == 0 else { return nil }
        let password = "demo-" + Credentials.token(bytes: 6)
        let user = try await createUser(username: "demo", password: password)
        let us = try await createAccount(userID: user.id, market: .us, cash: nil, name: "Demo USD")
        _ = try await createAccount(userID: user.id, market: .cn, cash: nil, name: "Demo A-shares")
        let key = try await createKey(account: us.id)
        return ("demo", password, key.keyID, key.secret)
    }
}
