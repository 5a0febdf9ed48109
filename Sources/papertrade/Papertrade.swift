import ArgumentParser
import Brokerage
import Foundation
import Hummingbird
import JSON
import Logging
import MarketData
import Server
import ServiceLifecycle
import TradingCore

@main
struct PapertradeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "papertrade",
        abstract: "A self-hosted paper-trading brokerage: Alpaca-compatible API, simulated market, web app.",
        subcommands: [
            Serve.self, Admin.self, QuoteCommand.self, BuyCommand.self, SellCommand.self, PositionsCommand.self,
            OrdersCommand.self, CancelCommand.self, AccountCommand.self, TransferCommand.self, HistoryCommand.self,
            WatchCommand.self,
            MCPCommand.self,
            Queue.self, Game.self, ClassCommand.self, BacktestCommand.self, OptionPriceCommand.self, Backup.self,
            Restore.self,
        ])
}

/// Options shared by commands that open the database.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: "Directory for the SQLite database (env PAPERTRADE_DATA_DIR; default ./data).")
    var dataDirectory: String?

    @Option(
        name: .customLong("database-url"),
        help: "postgres://user:pass@host:port/db to use PostgreSQL (env PAPERTRADE_DATABASE_URL).")
    var databaseURL: String?

    func apply(to configuration: inout ServerConfiguration) {
        let env = ProcessInfo.processInfo.environment
        configuration.dataDirectory = dataDirectory ?? env["PAPERTRADE_DATA_DIR"] ?? "data"
        configuration.databaseURL = databaseURL ?? env["PAPERTRADE_DATABASE_URL"]
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server (simulated market and SQLite unless configured otherwise).")

    @Option(help: "Address to listen on (env PAPERTRADE_HOST).") var host: String?
    @Option(help: "Port (env PAPERTRADE_PORT).") var port: Int?
    @OptionGroup var database: DatabaseOptions
    @Option(
        help:
            "realtime, always-open, replay or manual (env PAPERTRADE_CLOCK). A manual clock stands still until stepped with POST /api/v1/clock/advance and the key the server prints."
    )
    var clock: String?
    @Option(help: "Seed of the simulated market (env PAPERTRADE_SEED).") var seed: UInt64?
    @Option(
        name: .customLong("replay-from"),
        help:
            "With --clock replay or manual: the date (YYYY-MM-DD) whose New York open the market restarts from (env PAPERTRADE_REPLAY_FROM; default 30 days ago for replay, now for manual)."
    )
    var replayFrom: String?
    @Option(
        name: .customLong("replay-speed"),
        help: "With --clock replay: market seconds per real second (env PAPERTRADE_REPLAY_SPEED; default 60).")
    var replaySpeed: Int?
    @Option(
        name: .customLong("rate-limit"),
        help:
            "Alpaca API requests per minute per key, 0 = no limit (env PAPERTRADE_RATE_LIMIT; default 200, as Alpaca).")
    var rateLimit: Int?
    @Option(
        name: .customLong("connections-per-address"),
        help:
            "Connections one client address may hold open on each port, 0 = no limit (env PAPERTRADE_CONNECTIONS_PER_ADDRESS; default 1000). Behind a proxy every client has the proxy's address: limit there, and set 0 here."
    )
    var connectionsPerAddress: Int?
    @Option(
        name: .customLong("ib-port"),
        help:
            "Also serve the Interactive Brokers Client Portal API (HTTPS, /v1/api) on this port (env PAPERTRADE_IB_PORT; IB's gateway uses 5000)."
    )
    var ibPort: Int?
    @Option(
        name: .customLong("ib-host"),
        help:
            "Address of the IB listener (env PAPERTRADE_IB_HOST; default 127.0.0.1: whoever reaches it trades as the logged-in user)."
    )
    var ibHost: String?
    @Option(
        name: .customLong("ib-cert"),
        help: "PEM certificate of the IB listener (default: self-signed, made in the data directory on first start).")
    var ibCertificate: String?
    @Option(name: .customLong("ib-key"), help: "PEM private key for --ib-cert.") var ibKey: String?
    @Option(
        name: .customLong("ib-user"),
        help:
            "Log the IB listener in as this papertrade user at start, for headless bots (env PAPERTRADE_IB_USER); otherwise log in on its page at /."
    )
    var ibUser: String?
    @Flag(
        name: .customLong("allow-local-endpoints"),
        help:
            "Let webhooks and Web Push endpoints use plain http and loopback or private addresses (env PAPERTRADE_ALLOW_LOCAL_ENDPOINTS=1); by default only public https URLs."
    )
    var allowLocalEndpoints = false
    @Option(
        name: .customLong("push-contact"),
        help:
            "How push services can reach the operator: a mailto: or https: URL sent with every Web Push message (env PAPERTRADE_PUSH_CONTACT)."
    )
    var pushContact: String?
    @Option(
        name: .customLong("margin-rate"),
        help: "Annual interest on margin debt, charged nightly (env PAPERTRADE_MARGIN_RATE; default 0.07 = 7%).")
    var marginRate: String?
    @Option(
        name: .customLong("margin-call-days"),
        help:
            "Trading days to meet a margin call before positions are sold (env PAPERTRADE_MARGIN_CALL_DAYS; default 2)."
    )
    var marginCallDays: Int?
    @Option(
        name: .customLong("shard-actors"),
        help:
            "Shard actors: how many run the virtual shards, each owning several and running one step at a time (env PAPERTRADE_SHARD_ACTORS; default: one per core)."
    )
    var shardActors: Int?
    @Option(
        help:
            "Virtual shards of a database being created, fixed for its life (env PAPERTRADE_SHARDS; default 64; an existing database keeps its own)."
    )
    var shards: Int?
    @Option(
        name: .customLong("node-name"),
        help:
            "On PostgreSQL: this node's name in the database's cluster, unique among its nodes (env PAPERTRADE_NODE_NAME; default: HOSTNAME-PORT, so two servers on one machine differ)."
    )
    var nodeName: String?
    @Option(
        name: .customLong("advertise-url"),
        help:
            "On PostgreSQL: where the other nodes reach this one (env PAPERTRADE_ADVERTISE_URL; default http://HOST:PORT)."
    )
    var advertiseURL: String?

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        AllocatorThresholds.fix(environment: env)
        var configuration = ServerConfiguration()
        database.apply(to: &configuration)
        configuration.exclusive = true
        if let actors = shardActors ?? env["PAPERTRADE_SHARD_ACTORS"].flatMap(Int.init) {
            guard (1...256).contains(actors) else { throw ValidationError("--shard-actors must be 1 to 256") }
            configuration.shardActors = actors
        }
        if let count = shards ?? env["PAPERTRADE_SHARDS"].flatMap(Int.init) {
            guard (1...4096).contains(count) else { throw ValidationError("--shards must be 1 to 4096") }
            configuration.shards = count
        }
        configuration.host = host ?? env["PAPERTRADE_HOST"] ?? "127.0.0.1"
        configuration.port = port ?? env["PAPERTRADE_PORT"].flatMap(Int.init) ?? 8080
        let clockText = clock ?? env["PAPERTRADE_CLOCK"] ?? "realtime"
        guard let clockSetting = ServerConfiguration.ClockSetting(rawValue: clockText) else {
            throw ValidationError("--clock must be one of realtime, always-open, replay, manual")
        }
        configuration.clock = clockSetting
        if let text = replayFrom ?? env["PAPERTRADE_REPLAY_FROM"] {
            guard let date = CivilDate(text) else { throw ValidationError("--replay-from must be a date (YYYY-MM-DD)") }
            configuration.replayStart = date
        }
        if let speed = replaySpeed ?? env["PAPERTRADE_REPLAY_SPEED"].flatMap(Int.init) {
            guard (1...1_000_000).contains(speed) else { throw ValidationError("--replay-speed must be 1 to 1000000") }
            configuration.replaySpeed = speed
        }
        configuration.seed = seed ?? env["PAPERTRADE_SEED"].flatMap(UInt64.init) ?? 1
        configuration.rateLimitPerMinute = rateLimit ?? env["PAPERTRADE_RATE_LIMIT"].flatMap(Int.init) ?? 200
        guard configuration.rateLimitPerMinute >= 0 else {
            throw ValidationError("--rate-limit must be 0 (off) or a positive number")
        }
        configuration.connectionsPerAddress =
            connectionsPerAddress ?? env["PAPERTRADE_CONNECTIONS_PER_ADDRESS"].flatMap(Int.init) ?? 1_000
        guard configuration.connectionsPerAddress >= 0 else {
            throw ValidationError("--connections-per-address must be 0 (off) or a positive number")
        }
        if let port = ibPort ?? env["PAPERTRADE_IB_PORT"].flatMap(Int.init) {
            guard (1...65_535).contains(port), port != configuration.port else {
                throw ValidationError("--ib-port must be a port from 1 to 65535 other than --port")
            }
            configuration.ib.port = port
        }
        configuration.ib.host = ibHost ?? env["PAPERTRADE_IB_HOST"] ?? "127.0.0.1"
        guard (ibCertificate == nil) == (ibKey == nil) else {
            throw ValidationError("--ib-cert and --ib-key go together")
        }
        configuration.ib.certificatePath = ibCertificate
        configuration.ib.keyPath = ibKey
        configuration.ib.user = ibUser ?? env["PAPERTRADE_IB_USER"]
        configuration.webDirectory = env["PAPERTRADE_WEB_DIR"]
        if let contact = pushContact ?? env["PAPERTRADE_PUSH_CONTACT"] {
            guard contact.hasPrefix("mailto:") || contact.hasPrefix("https://") else {
                throw ValidationError("--push-contact must be a mailto: or https: URL")
            }
            configuration.pushContact = contact
        }
        configuration.outboundAddresses.allowsLocalEndpoints = allowLocalEndpoints
        if let allow = env["PAPERTRADE_ALLOW_LOCAL_ENDPOINTS"], !allowLocalEndpoints {
            guard ["0", "1", "true", "false"].contains(allow.lowercased()) else {
                throw ValidationError("PAPERTRADE_ALLOW_LOCAL_ENDPOINTS must be 1 or 0")
            }
            configuration.outboundAddresses.allowsLocalEndpoints = ["1", "true"].contains(allow.lowercased())
        }
        if let text = marginRate ?? env["PAPERTRADE_MARGIN_RATE"] {
            guard let rate = FixedDecimal(text), !rate.isNegative, rate < .one else {
                throw ValidationError("--margin-rate must be a yearly rate from 0 to 1 (0.07 = 7%)")
            }
            configuration.margin.interestRate = rate
        }
        if let days = marginCallDays ?? env["PAPERTRADE_MARGIN_CALL_DAYS"].flatMap(Int.init) {
            guard (0...30).contains(days) else { throw ValidationError("--margin-call-days must be 0 to 30") }
            configuration.margin.callDays = days
        }
        configuration.webVendorDirectory = env["PAPERTRADE_WEB_VENDOR_DIR"]
        if let megabytes = env["PAPERTRADE_WAL_LIMIT_MB"] {
            guard let value = Int(megabytes), (1...16_384).contains(value) else {
                throw ValidationError("PAPERTRADE_WAL_LIMIT_MB must be a whole number of megabytes from 1 to 16384")
            }
            configuration.checkpoints.walSizeLimit = value << 20
        }
        if configuration.databaseURL != nil {
            // On PostgreSQL every server is a node of the database's cluster (one node is a cluster of one).
            let name =
                nodeName ?? env["PAPERTRADE_NODE_NAME"] ?? "\(ProcessInfo.processInfo.hostName)-\(configuration.port)"
            guard !name.isEmpty, name.count <= 100, name.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw ValidationError("--node-name must be 1 to 100 characters without spaces")
            }
            let host =
                ["0.0.0.0", "::"].contains(configuration.host) ? ProcessInfo.processInfo.hostName : configuration.host
            let url = advertiseURL ?? env["PAPERTRADE_ADVERTISE_URL"] ?? "http://\(host):\(configuration.port)"
            guard let parsed = URL(string: url), parsed.scheme == "http", parsed.host != nil
            else {
                throw ValidationError(
                    "--advertise-url must be an http:// URL: the node's address on the cluster's own network (nodes forward to each other in plain HTTP; TLS ends at the proxy)"
                )
            }
            configuration.cluster = ClusterSettings(name: name, url: url)
        } else if nodeName != nil || advertiseURL != nil {
            throw ValidationError(
                "--node-name and --advertise-url are for a cluster on PostgreSQL (--database-url); SQLite serves one process"
            )
        }
        configuration.checkpoints.preallocateWAL = true
        configuration.checkpoints.freePageReserve = configuration.checkpoints.walSizeLimit / 2
        do {
            configuration.marketData = try MarketDataConfiguration.load(
                environment: env, configFile: configuration.dataDirectory + "/papertrade.conf")
        } catch {
            throw ValidationError(error.description)
        }
        var logger = Logger(label: "papertrade")
        let levelText = env["PAPERTRADE_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelText) else {
            throw ValidationError(
                "PAPERTRADE_LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical")
        }
        logger.logLevel = level
        PrometheusExport.bootstrap() // before the brokerage makes its counters
        let services = try await Papertrade.start(configuration)
        if let demo = try await services.access.bootstrapDemoIfEmpty() {
            print(
                """
                Created a demo user on the empty database.
                  Login (native API at http://\(configuration.host):\(configuration.port)/api/v1): log in as \(demo.username) / \(demo.password)
                  Alpaca API key (Demo USD account): APCA-API-KEY-ID=\(demo.keyID) APCA-API-SECRET-KEY=\(demo.secret)
                """)
        }
        print(
            "papertrade serving on http://\(configuration.host):\(configuration.port) — \(configuration.database), market data: \(services.brokerage.feed.name), clock: \(configuration.clock.rawValue)"
        )
        if let key = services.clockKey {
            print(
                "  manual clock at \(services.brokerage.clock.now()): step it with POST /api/v1/clock/advance {\"seconds\": N} and Authorization: Bearer \(key)"
            )
        }
        if let node = services.cluster {
            print(
                "  cluster node \(node.settings.name) at \(node.settings.url): serving \(node.servedShards) of its database's shards"
            )
        }
        if let ibPort = configuration.ib.port {
            print(
                "  Interactive Brokers Client Portal API on https://\(configuration.ib.host):\(ibPort)/v1/api/ — "
                    + (configuration.ib.user.map { "logged in as \($0)" }
                        ?? "log in at https://\(configuration.ib.host):\(ibPort)/"))
        }
        if services.web.chartLibrary == nil {
            print("  web app without charts: run scripts/fetch-web-vendor.sh (or set PAPERTRADE_WEB_VENDOR_DIR)")
        }
        fflush(nil) // the banner must reach a piped log before the server blocks
        do {
            let application = buildApplication(services, logger: logger)
            if let node = services.cluster {
                // The node drains first on SIGTERM (while the server still answers), then the application stops.
                try await ServiceGroup(
                    configuration: .init(
                        services: [application, ClusterDrain(node: node)],
                        gracefulShutdownSignals: [.sigterm, .sigint],
                        logger: logger)
                ).run()
            } else {
                try await application.runService()
            }
        } catch {
            await services.shutdown()
            throw error
        }
        await services.shutdown()
    }
}

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage users, accounts and API keys (works while a server runs on the same database).",
        subcommands: [
            CreateUser.self, CreateAccount.self, CreateKey.self, RevokeKey.self, Shards.self, Cluster.self,
        ])

    /// Runs `body` on the database and closes it afterwards, whether `body` succeeded or not (SQLite must be
    /// closed before the process exits, or the next open replays the WAL).
    static func with<T>(_ options: DatabaseOptions, _ body: (Papertrade) async throws -> T) async throws -> T {
        var configuration = ServerConfiguration()
        options.apply(to: &configuration)
        return try await with(configuration, body)
    }

    static func with<T>(_ configuration: ServerConfiguration, _ body: (Papertrade) async throws -> T) async throws -> T
    {
        let services = try await Papertrade.start(configuration)
        do {
            let result = try await body(services)
            await services.shutdown()
            return result
        } catch {
            await services.shutdown()
            throw error
        }
    }

    static func printJSON(_ value: JSONValue) { print(value.serialized) }
}

struct Cluster: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List the cluster of a PostgreSQL database: its nodes (live or not), and each shard's owner and epoch.")

    @OptionGroup var database: DatabaseOptions
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() async throws {
        var configuration = ServerConfiguration()
        database.apply(to: &configuration)
        guard configuration.databaseURL != nil else {
            throw ValidationError("a cluster runs on PostgreSQL: give --database-url (or PAPERTRADE_DATABASE_URL)")
        }
        let view = try await Admin.with(configuration) { try await $0.brokerage.clusterView() }
        let ttl = ClusterSettings(name: "", url: "").leaseTTL
        let live = Set(view.liveNodes(ttl: ttl).map(\.name))
        func seconds(_ from: Timestamp, _ to: Timestamp) -> String {
            let tenths = (to.nanoseconds - from.nanoseconds) / 100_000_000
            return "\(tenths / 10).\(abs(tenths % 10)) s"
        }
        if json {
            Admin.printJSON(
                .object([
                    "nodes": .array(
                        view.nodes.map { node in
                            .object([
                                "name": .string(node.name), "url": .string(node.url),
                                "live": .bool(live.contains(node.name)),
                                "state": .string(node.state.rawValue),
                                "shards": .int(
                                    view.leases.filter { $0.owner == node.name && $0.expiresAt > view.now }.count),
                            ])
                        }),
                    "shards": .array(
                        view.leases.map { lease in
                            .object([
                                "shard": .int(lease.shard.index), "owner": lease.owner.map(JSONValue.string) ?? .null,
                                "epoch": .int(Int(lease.epoch)), "expired": .bool(lease.expiresAt <= view.now),
                            ])
                        }),
                ]))
            return
        }
        print("NODE                 STATE  LIVE  SHARDS  LAST HEARTBEAT  URL")
        for node in view.nodes {
            let owned = view.leases.filter { $0.owner == node.name && $0.expiresAt > view.now }.count
            print(
                node.name.padding(toLength: 20, withPad: " ", startingAt: 0) + " "
                    + node.state.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0) + " "
                    + (live.contains(node.name) ? "yes " : "no  ") + "  "
                    + String(owned).padding(toLength: 6, withPad: " ", startingAt: 0)
                    + "  "
                    + (seconds(node.heartbeatAt, view.now) + " ago").padding(toLength: 14, withPad: " ", startingAt: 0)
                    + "  " + node.url)
        }
        print("")
        print("SHARD  OWNER                EPOCH  LEASE")
        for lease in view.leases {
            let state =
                lease.owner == nil
                ? "free" : lease.expiresAt > view.now ? "held for \(seconds(view.now, lease.expiresAt))" : "expired"
            print(
                String(lease.shard.index).padding(toLength: 5, withPad: " ", startingAt: 0) + "  "
                    + (lease.owner ?? "-").padding(toLength: 20, withPad: " ", startingAt: 0) + " "
                    + String(lease.epoch).padding(toLength: 6, withPad: " ", startingAt: 0) + " " + state)
        }
    }
}

struct Shards: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List the database's virtual shards: the shard actor (owner) that runs each, its accounts and open orders."
    )

    @OptionGroup var database: DatabaseOptions
    @Flag(help: "Print JSON instead of a table.") var json = false
    @Flag(help: "Also list every shard without accounts.") var all = false
    @Option(
        name: .customLong("shard-actors"),
        help: "The owner column as `serve --shard-actors N` runs the shards (default: one per core, as serve's).")
    var shardActors: Int?

    func run() async throws {
        if let shardActors, !(1...256).contains(shardActors) {
            throw ValidationError("--shard-actors must be 1 to 256")
        }
        var configuration = ServerConfiguration()
        database.apply(to: &configuration)
        configuration.shardActors = shardActors
        let layout = try await Admin.with(configuration) { await $0.brokerage.shardLayout() }
        let listed = layout.shards.filter { all || $0.accounts > 0 }
        if json {
            Admin.printJSON(
                .object([
                    "shards": .int(layout.shards.count), "owners": .int(layout.owners),
                    "accounts": .int(layout.shards.reduce(0) { $0 + $1.accounts }),
                    "layout": .array(
                        listed.map {
                            .object([
                                "shard": .int($0.id), "owner": .int($0.owner), "accounts": .int($0.accounts),
                                "open_orders": .int($0.openOrders),
                            ])
                        }),
                ]))
            return
        }
        let accounts = layout.shards.reduce(0) { $0 + $1.accounts }
        print("\(layout.shards.count) shards on \(layout.owners) owners, \(accounts) accounts")
        print("shard  owner  accounts  open orders")
        for shard in listed {
            print(
                String(shard.id).leftPadded(5) + "  " + String(shard.owner).leftPadded(5) + "  "
                    + String(shard.accounts).leftPadded(8) + "  " + String(shard.openOrders).leftPadded(11))
        }
    }
}

extension String {
    /// Right-aligned in `width` columns.
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: Swift.max(0, width - count)) + self }
}

struct CreateUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-user", abstract: "Create a user; the password is read from standard input.")

    @Argument var username: String
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (required).")
    var passwordStdin = false
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        guard passwordStdin else { throw ValidationError("pass --password-stdin and the password on standard input") }
        guard let password = readLine(strippingNewline: true), !password.isEmpty else {
            throw ValidationError("no password on standard input")
        }
        let user = try await Admin.with(database) { services in
            try await services.access.createUser(username: username.lowercased(), password: password)
        }
        Admin.printJSON(.object(["user_id": .string(user.id.text), "username": .string(user.username)]))
    }
}

struct CreateAccount: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-account", abstract: "Open a paper account for a user.")

    @Argument var username: String
    @Option(help: "us or cn") var market: String
    @Option(help: "Starting cash (default 100000 USD / 1000000 CNY).") var cash: String?
    @Option(help: "Account name.") var name: String?
    @Option(help: "cash or margin (default: margin for us, cash for cn).") var type: String?
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        guard let market = Market(rawValue: market) else { throw ValidationError("--market must be us or cn") }
        let accountType = try type.map { text -> AccountType in
            guard let value = AccountType(rawValue: text) else {
                throw ValidationError("--type must be cash or margin")
            }
            guard market == .us || value == .cash else {
                throw ValidationError("A-share accounts are cash accounts: --type margin is for us accounts")
            }
            return value
        }
        let amount = try cash.map { text -> FixedDecimal in
            guard let value = FixedDecimal(text), value.isPositive else {
                throw ValidationError("--cash must be a positive amount")
            }
            return value
        }
        let account = try await Admin.with(database) { services in
            guard let user = try await services.brokerage.users.user(username: username.lowercased()) else {
                throw ValidationError("no user \(username)")
            }
            return try await services.brokerage.openAccount(
                userID: user.id, market: market, cash: amount, name: name, type: accountType)
        }
        Admin.printJSON(.object(["account_id": .string(account.id.description)]))
    }
}

struct CreateKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-key", abstract: "Create an API key for an account.")

    @Argument var accountID: String
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        guard let id = AccountID(accountID) else { throw ValidationError("\(accountID) is not an account id") }
        let key = try await Admin.with(database) { services in
            guard try await services.brokerage.allAccounts().contains(where: { $0.id == id }) else {
                throw ValidationError("no account \(accountID)")
            }
            return try await services.access.createKey(account: id)
        }
        Admin.printJSON(.object(["key_id": .string(key.keyID), "secret_key": .string(key.secret)]))
    }
}

struct RevokeKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-key",
        abstract: "Revoke an API key: a running server refuses it within 5 seconds (at once if it revoked it itself).")

    @Argument var keyID: String
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let account = try await Admin.with(database) { services in
            guard let key = try await services.brokerage.users.key(keyID) else {
                throw ValidationError("no API key \(keyID)")
            }
            try await services.access.revokeKey(keyID, of: key.accountID)
            return key.accountID
        }
        Admin.printJSON(.object(["key_id": .string(keyID), "account_id": .string(account.description)]))
    }
}

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a consistent copy of the SQLite database to a new file (safe while the server runs).")

    @Argument(help: "The backup file to write (must not exist).") var file: String
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        var configuration = ServerConfiguration()
        database.apply(to: &configuration)
        let summary = try await DatabaseBackup.backup(configuration.database, to: file)
        print(
            "backed up \(configuration.database) to \(summary.path): \(summary.bytes) bytes, \(summary.accounts) accounts, \(summary.orders) orders"
        )
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a backup the SQLite database (stop the server first).")

    @Argument(help: "A file written by `papertrade backup`.") var file: String
    @Flag(help: "Replace the existing database.") var force = false
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        var configuration = ServerConfiguration()
        database.apply(to: &configuration)
        if case .sqlite(let path) = configuration.database, !force, FileManager.default.fileExists(atPath: path) {
            throw ValidationError("\(path) exists: stop the server, then pass --force to replace it with the backup")
        }
        let summary = try await DatabaseBackup.restore(file, to: configuration.database, replacing: force)
        print("restored \(file) to \(summary.path): \(summary.accounts) accounts, \(summary.orders) orders")
    }
}
