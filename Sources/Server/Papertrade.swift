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
    /// Connections one client address may hold open on each listening port; 0 turns the limit off (behind a proxy,
    /// where every client has the proxy's address).
    public var connectionsPerAddress = 1_000
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
    /// Shard actors (owners) the virtual shards run on (default: one per core).
    public var shardActors: Int?
    /// On PostgreSQL: this process as a node of the database's cluster (`serve` always joins one; one node is a
    /// cluster of one). Nil: the process serves every shard itself (SQLite, tests, admin commands).
    public var cluster: ClusterSettings?
    /// Whether this process keeps other processes from serving the same SQLite file (`serve` does).
    public var exclusive = false

    public init() {}

    public var database: DatabaseLocation {
        databaseURL.map { .postgres(url: $0) } ?? .sqlite(path: dataDirectory + "/papertrade.sqlite")
    }

    func makeClock() -> MarketClock {
        switch clock {
        case .realtime: return MarketClock(.realtime)
        case .alwaysOpen: return MarketClock(.alwaysOpen)
        case .manual:
            // From the replay day's open when one is given (a test steps through a day it chose), else from now.
            let start = replayStart.map { Timestamp($0, hour: 9, minute: 30, in: .newYork) }
            return MarketClock(.manual(start: start ?? MarketClock(.realtime).now()))
        case .replay:
            let now = MarketClock(.realtime).now()
            let start =
                replayStart.map { Timestamp($0, hour: 9, minute: 30, in: .newYork) }
                ?? now.adding(seconds: -30 * 86_400)
            return MarketClock(.replay(start: start, speed: replaySpeed))
        }
    }
}

/// A running papertrade's parts, made once by `start` and wired by `buildApplication`: the brokerage (the one way
/// in), who may come in (`UserAccess`), the web app's files and the Web Push key. This is the composition root, not
/// a service locator: `buildApplication` hands each controller, stream and service the parts it needs, and nothing
/// below it sees this type. The simulated market is kept for the operator's commands and the tests that read the
/// model directly; the surfaces read market data only through the brokerage.
public final class Papertrade: Sendable {
    public let configuration: ServerConfiguration
    public let market: SimulatedMarket
    public let brokerage: Brokerage
    public let access: UserAccess
    /// The web app's files, served at `/`.
    public let web: WebApp
    /// The VAPID key pair Web Push messages are signed with (kept in the data directory).
    public let vapid: VAPIDKey
    /// This process's part in the cluster of its PostgreSQL database (nil when it serves every shard itself).
    public let cluster: ClusterNode?
    /// The simulated market's warm-up (movers and benchmarks computed ahead of the first screens), stopped at shutdown.
    let warming: Task<Void, Never>?
    /// On a manual clock, the key that steps it (`POST /api/v1/clock/advance`), made at start and printed in the
    /// banner for whoever started the server; nil on every other clock.
    public let clockKey: String?

    init(
        configuration: ServerConfiguration, market: SimulatedMarket, brokerage: Brokerage, web: WebApp, vapid: VAPIDKey,
        cluster: ClusterNode? = nil, warming: Task<Void, Never>? = nil
    ) {
        self.warming = warming
        var random = SystemRandomNumberGenerator()
        clockKey =
            brokerage.clock.isManual
            ? (0..<4).map { _ in String(random.next() as UInt64, radix: 16) }.joined(separator: "-") : nil
        self.cluster = cluster
        self.configuration = configuration
        self.market = market
        self.brokerage = brokerage
        access = UserAccess(users: brokerage.users, accountService: brokerage)
        self.web = web
        self.vapid = vapid
    }

    /// Opens the database (creating or migrating it) and starts the brokerage on the configured market data.
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
        var warming: Task<Void, Never>?
        if feed.isSimulated {
            // The movers' symbols and the benchmarks' last year, before the first screens ask for them.
            let now = clock.now()
            warming = Task.detached(priority: .background) { market.warm(through: now) }
        }
        let vapid = try VAPIDKey.loadOrCreate(in: configuration.dataDirectory)
        let brokerage = try await Brokerage.open(
            configuration.database, checkpoints: configuration.checkpoints, feed: feed,
            directory: directory, clock: clock, seed: configuration.seed, shards: configuration.shards,
            shardOwners: configuration.shardActors, clusterNode: configuration.cluster?.name,
            exclusive: configuration.exclusive)
        await brokerage.setMarginPolicy(configuration.margin)
        var node: ClusterNode?
        if let settings = configuration.cluster {
            // Join and take this node's shards before the first request: a cluster of one serves at once.
            let cluster = ClusterNode(settings: settings, brokerage: brokerage)
            do {
                try await cluster.join()
                await cluster.pass()
            } catch {
                warming?.cancel()
                await brokerage.shutdown()
                throw error
            }
            node = cluster
        }
        return Papertrade(
            configuration: configuration, market: market, brokerage: brokerage,
            web: WebApp.load(
                webDirectory: configuration.webDirectory, vendorDirectory: configuration.webVendorDirectory),
            vapid: vapid, cluster: node, warming: warming)
    }

    /// Stops the market's warm-up and closes the database once everything queued for it is written.
    public func shutdown() async {
        warming?.cancel()
        await brokerage.shutdown()
    }
}
