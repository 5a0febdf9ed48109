import BrokerageModel
import Foundation
import Logging
import Metrics
import NIOPosix
import PostgresKit
import SQLKit
import SQLiteKit
import Synchronization
import TradingCore

/// papertrade's durable records, through SQLKit, identical on SQLite and PostgreSQL.
///
/// Writes go through one connection under a lock, inside transactions: what `journal` returns from is on disk
/// (SQLite: WAL with synchronous=FULL; PostgreSQL: committed). Reads outside transactions go to a few read-only
/// connections of their own, so a page load never waits behind a group commit or a checkpoint; each read sees
/// everything committed before it started.
public final class Storage: Sendable {
    let db: any SQLDatabase
    /// The same writer connection as `db` on SQLite, for the journal's inbox statement (Storage.write(_:)).
    let sqliteWriter: SQLiteConnection?
    /// The same writer connection as `db` on PostgreSQL: a transaction holds on to one of its connections.
    let postgres: PostgresLink?
    let lock = AsyncLock()
    /// Read-only connections, used in turn.
    let readers: [any SQLDatabase]
    private let nextReader = Mutex(0)
    /// Journals waiting for the group-commit writer.
    let journalQueue = Mutex<(pending: [(EncodedStep, JournalCompletion)], writing: Bool)>(([], false))
    /// When the last write committed (the SQLite checkpointer waits for a quiet moment).
    let lastWrite = WriteClock()
    /// What the SQLite checkpointer has done (tests wait on it).
    let checkpointerProgress = CheckpointerProgress()
    /// Group-commit latency and size (exported at /metrics when the process installs a metrics backend).
    let metrics = (
        commit: Timer(label: "papertrade_journal_commit_seconds"),
        groupSize: Recorder(label: "papertrade_journal_group_size", aggregate: true)
    )
    let shutdownAction: @Sendable () async throws -> Void
    /// The SQLite file's process lock while this process serves it (`open(exclusive:)`).
    let processLock = Mutex<ProcessLock?>(nil)
    public let location: DatabaseLocation
    public var isPostgres: Bool { postgres != nil }
    /// On a cluster, the node this process is: its commits write live events (`Storage+LiveEvents.swift`).
    let liveEventNode = Mutex<String?>(nil)
    /// The clock of leases and heartbeats (`SQLClusterLeases`): the database's, moved only by tests.
    let leaseClock: LeaseClock

    init(
        db: any SQLDatabase, sqliteWriter: SQLiteConnection? = nil, postgres: PostgresLink? = nil,
        readers: [any SQLDatabase],
        location: DatabaseLocation, leaseClock: LeaseClock = LeaseClock(),
        shutdown: @escaping @Sendable () async throws -> Void
    ) {
        self.leaseClock = leaseClock
        self.db = db
        self.sqliteWriter = sqliteWriter
        self.postgres = postgres
        self.readers = readers
        self.location = location
        shutdownAction = shutdown
    }

    /// Opens (creating the SQLite file and its directory if needed) and migrates.
    /// `exclusive`: on SQLite, hold the database's process lock (`ProcessLock`) for as long as it is open — a
    /// second serving process on the same file is refused with a message naming the first.
    public static func open(
        _ location: DatabaseLocation, checkpoints: CheckpointPolicy = CheckpointPolicy(),
        logger: Logger = Logger(label: "papertrade.storage"), exclusive: Bool = false,
        leaseClock: LeaseClock = LeaseClock(), clusterNode: String? = nil
    ) async throws -> Storage {
        var processLock: ProcessLock?
        if exclusive, case .sqlite(let path) = location {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            processLock = try ProcessLock.acquire(path + ".lock")
        }
        let storage: Storage
        do {
            storage = try await connect(
                location, checkpoints: checkpoints, logger: logger, leaseClock: leaseClock, clusterNode: clusterNode)
        } catch {
            processLock?.release()
            throw error
        }
        storage.processLock.withLock { $0 = processLock }
        do { try await storage.migrate() } catch {
            await storage.shutdown()
            throw error
        }
        return storage
    }

    /// Opens the database without migrating it (tests of a migration stop at the version before it).
    static func connect(
        _ location: DatabaseLocation, checkpoints: CheckpointPolicy = CheckpointPolicy(),
        logger: Logger = Logger(label: "papertrade.storage"), leaseClock: LeaseClock = LeaseClock(),
        clusterNode: String? = nil
    ) async throws -> Storage {
        let storage: Storage
        switch location {
        case .sqlite(let path):
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            // Checkpoints (copying the WAL back into the database file) run on a second connection in the
            // background: done inline, every thousandth page a commit stalled for the copy and set p99. See
            // `WALCheckpointer` for when they run and how the WAL stays bounded under sustained writes.
            // secure_delete=FAST: sqlite-nio compiles SQLite with SECURE_DELETE, which zero-fills every page it frees
            // — dropping `FreePageReserve`'s scratch table wrote the whole reserve through the WAL a second time, and
            // those bursts after each idle spell set the load benchmark's p99 (20–30 ms in most runs; ≤ 9 ms
            // without). FAST still zeroes deleted content inside pages that are written anyway.
            for pragma in [
                "PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON",
                "PRAGMA busy_timeout=5000", "PRAGMA wal_autocheckpoint=0", "PRAGMA secure_delete=FAST",
                "PRAGMA journal_size_limit=\(checkpoints.walSizeLimit)",
            ] {
                try await connection.sql(queryLogLevel: nil).raw(SQLQueryString(pragma)).run()
            }
            if checkpoints.preallocateWAL {
                do {
                    try await preallocateWAL(
                        path + "-wal", bytes: checkpoints.walSizeLimit, writer: connection.sql(queryLogLevel: nil))
                } catch {
                    // Only an optimization: the database works the same without it.
                    logger.warning("could not preallocate the WAL: \(error)")
                }
            }

            let checkpointer = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            var readers: [SQLiteConnection] = []
            for _ in 0..<Self.readConnections {
                let reader = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
                for pragma in ["PRAGMA busy_timeout=5000", "PRAGMA query_only=1"] {
                    try await reader.sql(queryLogLevel: nil).raw(SQLQueryString(pragma)).run()
                }
                readers.append(reader)
            }
            let background = Mutex<Task<Void, Never>?>(nil)
            let readConnections = readers
            storage = Storage(
                db: connection.sql(queryLogLevel: nil), sqliteWriter: connection,
                readers: readers.map { $0.sql(queryLogLevel: nil) }, location: location
            ) {
                background.withLock { $0?.cancel() }
                for reader in readConnections { try await reader.close() }
                try await checkpointer.close()
                try await connection.close()
            }
            let task = try await WALCheckpointer(
                connection: checkpointer.sql(queryLogLevel: nil), writerLock: storage.lock,
                lastWrite: storage.lastWrite, policy: checkpoints, progress: storage.checkpointerProgress
            ).start()
            background.withLock { $0 = task }
        case .postgres(let url):
            var configuration = try SQLPostgresConfiguration(url: url).coreConfiguration
            // Names this node's sessions in pg_stat_activity: a node taking an expired lease ends the transactions
            // its old owner left open (`SQLClusterLeases.acquireShard`).
            configuration.options.additionalStartupParameters = [
                ("application_name", Self.applicationName(clusterNode: clusterNode))
            ]
            let connection = try await PostgresLink.connect(configuration: configuration, id: 1, logger: logger)
            var readers: [PostgresLink] = []
            for n in 0..<Self.readConnections {
                readers.append(try await PostgresLink.connect(configuration: configuration, id: 2 + n, logger: logger))
            }
            let readConnections = readers
            storage = Storage(
                db: connection, postgres: connection, readers: readers, location: location, leaseClock: leaseClock
            ) {
                for reader in readConnections { try? await reader.close() }
                try await connection.close()
            }
        }
        return storage
    }

    /// Extends the WAL file with zeros up to `bytes` (see `CheckpointPolicy.preallocateWAL`). Only past its end, and
    /// inside a write transaction: SQLite's write lock keeps every process from appending frames meanwhile, and
    /// recovery after a crash stops at the first frame that is not valid, so a zeroed tail is never read as data.
    static func preallocateWAL(_ walPath: String, bytes: Int, writer: any SQLDatabase) async throws {
        try await writer.raw("BEGIN IMMEDIATE").run()
        do {
            if let file = FileHandle(forWritingAtPath: walPath) {
                defer { try? file.close() }
                var size = Int(try file.seekToEnd())
                if size < bytes {
                    let zeros = Data(count: 1 << 20)
                    while size < bytes {
                        let count = min(zeros.count, bytes - size)
                        try file.write(contentsOf: zeros.prefix(count))
                        size += count
                    }
                    try file.synchronize()
                }
            }
        } catch {
            try await writer.raw("ROLLBACK").run()
            throw error
        }
        try await writer.raw("ROLLBACK").run()
    }

    public func shutdown() async {
        try? await shutdownAction()
        processLock.withLock { lock in
            lock?.release()
            lock = nil
        }
    }

    /// The `application_name` of a node's PostgreSQL sessions (at most 63 bytes are kept; node names are short).
    static func applicationName(clusterNode: String?) -> String {
        clusterNode.map { "papertrade node " + $0 } ?? "papertrade"
    }

    /// Runs single statements on the writer connection, each committing by itself: no transaction is left open
    /// between them, so a process stopped here (SIGSTOP, a stalled VM) holds no row lock another node waits for.
    func autocommit<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await lock.withLock {
            let value = try await body(self.db)
            lastWrite.touch()
            return value
        }
    }

    /// Runs `body` in one transaction; nothing of it is visible or durable unless it returns.
    public func transaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await lock.withLock {
            // On PostgreSQL the whole transaction runs on one connection (`PostgresLink.session`).
            try await inTransaction(on: try await postgres?.session() ?? self.db, body)
        }
    }

    /// Runs `body` in one transaction on `db`, the write lock already held.
    func inTransaction<T: Sendable>(on db: any SQLDatabase, _ body: @Sendable (any SQLDatabase) async throws -> T)
        async throws -> T
    {
        try await db.raw(SQLQueryString(isPostgres ? "BEGIN" : "BEGIN IMMEDIATE")).run()
        do {
            let value = try await body(db)
            try await db.raw("COMMIT").run()
            lastWrite.touch()
            return value
        } catch {
            try? await db.raw("ROLLBACK").run()
            throw error
        }
    }

    /// How many read-only connections each database gets.
    static let readConnections = 2

    /// Statements that must neither wait behind the journal writer nor hold it up — the prunings of live events and
    /// commit keys — each committing by itself: on PostgreSQL on a read connection, on SQLite on the writer.
    func outsideWriter<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        guard postgres != nil else { return try await autocommit(body) }
        return try await read(body)
    }

    /// A read outside any transaction, on one of the read connections (it does not wait for writes).
    func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        guard !readers.isEmpty else { return try await lock.withLock { try await body(db) } }
        let reader = readers[
            nextReader.withLock { n in
                n = (n + 1) % readers.count
                return n
            }]
        return try await body(reader)
    }
}

extension Storage {
    /// Creates a PostgreSQL database through an administrative URL (used by tests to isolate each run; also handy
    /// for setting up a fresh server). The name must be letters, digits and underscores.
    public static func createPostgresDatabase(
        _ name: String, adminURL: String, logger: Logger = Logger(label: "papertrade.storage")
    ) async throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw StorageError.unavailable("invalid database name \(name)")
        }
        let configuration = try SQLPostgresConfiguration(url: adminURL)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration.coreConfiguration, id: 0,
            logger: logger)
        do {
            try await connection.sql().raw("CREATE DATABASE \(unsafeRaw: name)").run()
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}

/// Told once whether a queued journal step committed.
typealias JournalCompletion = @Sendable (Result<Void, any Error>) -> Void
