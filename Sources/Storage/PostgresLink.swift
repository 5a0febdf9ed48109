import BrokerageModel
import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit
import Synchronization

/// One of the storage's PostgreSQL connections, replaced when it has closed: the server restarted or failed over, a
/// network blip, an administrator's `pg_terminate_backend`. Without it one restart of PostgreSQL left papertrade
/// unable to write until it was restarted itself — and unable to stop, since PostgresNIO never answers a query sent
/// on a closed connection (it waited forever; SIGTERM hung in the cluster's drain).
///
/// Each statement first makes sure the connection is open, connecting again if it is not; a statement that fails
/// because the server went away fails (the caller's step gets the error, as for any failed write) and the next one
/// reconnects. A transaction runs on one connection (`session()`): if it closes midway, the rest of the transaction
/// fails rather than continuing, uncommitted, on a new one.
final class PostgresLink: SQLDatabase, Sendable {
    let configuration: PostgresConnection.Configuration
    let id: Int
    let logger: Logger
    let eventLoop: any EventLoop
    /// The connection, or nil once the link is closed (nothing connects again after that).
    private let current: Mutex<(connection: WatchedConnection, closed: Bool)>
    private let connecting = AsyncLock()
    /// Journal commits written through the link, for pruning journal_commits now and then (`pruneDue`).
    private let commits = Atomic<Int>(0)

    private init(
        configuration: PostgresConnection.Configuration, id: Int, logger: Logger, eventLoop: any EventLoop,
        connection: WatchedConnection
    ) {
        self.configuration = configuration
        self.id = id
        self.logger = logger
        self.eventLoop = eventLoop
        current = Mutex((connection, false))
    }

    /// Connects at once (a database that cannot be reached at start-up is an error then, not at the first write).
    static func connect(
        configuration: PostgresConnection.Configuration, id: Int, logger: Logger,
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()
    ) async throws -> PostgresLink {
        let connection = try await PostgresConnection.connect(
            on: eventLoop, configuration: configuration, id: id, logger: logger)
        return PostgresLink(
            configuration: configuration, id: id, logger: logger, eventLoop: eventLoop,
            connection: await WatchedConnection.identified(connection))
    }

    /// The open connection, connecting again if the last one closed.
    func connection() async throws -> WatchedConnection {
        if let open = try usable() { return open }
        await connecting.acquire()
        defer { connecting.release() }
        if let open = try usable() { return open }
        let connection = await WatchedConnection.identified(
            try await PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger))
        let installed = current.withLock { slot -> Bool in
            guard !slot.closed else { return false }
            slot.connection = connection
            return true
        }
        guard installed else {
            try? await connection.connection.close()
            throw StorageError.unavailable("the database is closed")
        }
        logger.notice("PostgreSQL connection \(id) had closed; connected again")
        return connection
    }

    /// The current connection if it is open; nil when it has closed; throws once the link is closed.
    private func usable() throws -> WatchedConnection? {
        let (connection, closed) = current.withLock { ($0.connection, $0.closed) }
        if closed { throw StorageError.unavailable("the database is closed") }
        return connection.isClosed ? nil : connection
    }

    /// Whether the current connection is open (false once the server's goodbye has arrived).
    var isOpen: Bool { current.withLock { !$0.closed && !$0.connection.isClosed } }

    /// One connection for a series of statements that must not move to another (a transaction).
    func session() async throws -> any SQLDatabase {
        PinnedSession(connection: try await connection())
    }

    func close() async throws {
        await connecting.acquire()
        defer { connecting.release() }
        let connection = current.withLock { slot in
            slot.closed = true
            return slot.connection
        }
        try await connection.connection.close()
    }

    var dialect: any SQLDialect { PostgresDialect() }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await connection().answer(query, onRow)
    }

    /// Counts a journal commit; true once every `every` commits (time to prune old keys from journal_commits).
    func pruneDue(every: Int) -> Bool {
        commits.add(1, ordering: .relaxed).newValue % every == 0
    }

    /// Whether the transaction that wrote `key` into journal_commits committed, asked after it failed on `sent`
    /// (its answer lost with the connection, or an error). Connects again as often as it takes within `patience`
    /// — through a failover, the proxy's next primary. If the transaction's server process may still be finishing
    /// it (the connection was cut between papertrade and a live server), the question waits until that process has
    /// ended, so the answer cannot change after it is given. Throws `outcomeUnknown` when the database could not be
    /// asked in time.
    func committed(key: String, sentOn sent: WatchedConnection, patience: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: patience)
        var lastError: any Error = StorageError.unavailable("not asked")
        repeat {
            do {
                let asking = try await connection()
                let db = PinnedSession(connection: asking)
                if asking !== sent, let backend = sent.backend {
                    for _ in 0..<100 {
                        let alive = try await db.raw(
                            "SELECT 1 AS alive FROM pg_stat_activity WHERE pid = \(bind: backend.pid) AND backend_start::text = \(bind: backend.start)"
                        ).all()
                        if alive.isEmpty { break }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
                let found = try await db.raw("SELECT 1 AS found FROM journal_commits WHERE key = \(bind: key)").all()
                return !found.isEmpty
            } catch {
                if current.withLock({ $0.closed }) { throw error } // papertrade is stopping
                lastError = error
                try? await Task.sleep(for: .milliseconds(250))
            }
        } while ContinuousClock.now < deadline
        throw StorageError.outcomeUnknown("journal commit \(key): \(lastError)")
    }
}

/// A connection and the statements waiting for its answers. PostgresNIO never answers a statement the connection closed
/// around (sent just before the server's goodbye arrived): a transaction's ROLLBACK sent after its session was ended
/// waited for good, inside the storage's write lock, and every commit of the node waited behind it (seen when a
/// takeover ended a loaded node's idle transaction: the node answered health checks and nothing else). Here a
/// statement returns with its answer or fails as soon as the connection closes — the close is watched once per
/// connection, each statement only enters and leaves the list of those waiting.
final class WatchedConnection: Sendable {
    let connection: PostgresConnection
    /// The server process at the other end (its pid and start time): a commit whose answer was lost is looked up
    /// only once that process has ended (`PostgresLink.committed`). Nil if it could not be read.
    let backend: (pid: Int, start: String)?
    /// Whether the connection has closed, and how to fail each statement still waiting (by a number of its own).
    private let waiting = Mutex<(closed: Bool, next: Int, fail: [Int: @Sendable () -> Void])>((false, 0, [:]))

    /// Watches `connection`, first reading which server process serves it.
    static func identified(_ connection: PostgresConnection) async -> WatchedConnection {
        let row = try? await connection.sql(queryLogLevel: nil).raw(
            "SELECT pid, backend_start::text AS start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        ).first()
        let pid = try? row?.decode(column: "pid", as: Int.self)
        let start = try? row?.decode(column: "start", as: String.self)
        return WatchedConnection(connection, backend: pid.flatMap { pid in start.map { (pid, $0) } })
    }

    init(_ connection: PostgresConnection, backend: (pid: Int, start: String)? = nil) {
        self.connection = connection
        self.backend = backend
        connection.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            let fail = self.waiting.withLock { state in
                state.closed = true
                defer { state.fail = [:] }
                return Array(state.fail.values)
            }
            for failing in fail { failing() }
        }
    }

    var isClosed: Bool { connection.isClosed }

    /// Runs a statement and returns with its answer, or fails once the connection closes without one.
    func answer(_ query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await watch(connection.sql(queryLogLevel: nil).execute(sql: query, onRow))
    }

    /// Runs a prepared statement (prepared on this connection the first time), reading its rows to the end; fails
    /// once the connection closes without an answer.
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws {
        let connection = connection
        try await watch(
            connection.eventLoop.makeFutureWithTask {
                for try await _ in try await connection.execute(statement, logger: connection.logger) {}
            })
    }

    /// The statement's answer, or a failure as soon as the connection closes without one.
    private func watch(_ answered: EventLoopFuture<Void>) async throws {
        let once = Once()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            @Sendable func finish(_ result: Result<Void, any Error>) {
                if once.first() { continuation.resume(with: result) }
            }
            let number = waiting.withLock { state -> Int? in
                guard !state.closed else { return nil }
                state.next += 1
                state.fail[state.next] = { finish(.failure(PinnedSession.closed)) }
                return state.next
            }
            guard let number else { return finish(.failure(PinnedSession.closed)) }
            // (A statement answered before the goodbye completes first: the channel reads its answer before it sees
            // the close.)
            answered.whenComplete { result in
                _ = self.waiting.withLock { $0.fail.removeValue(forKey: number) }
                finish(result)
            }
        }
    }
}

/// True the first time it is asked, false after: which of two racing events came first.
private final class Once: Sendable {
    private let taken = Mutex(false)

    func first() -> Bool {
        taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }
}

/// A transaction's connection: its statements fail once it has closed instead of waiting forever for an answer.
struct PinnedSession: SQLDatabase {
    let connection: WatchedConnection
    static let closed = StorageError.unavailable("the PostgreSQL connection closed during a transaction")

    var logger: Logger { connection.connection.logger }
    var eventLoop: any EventLoop { connection.connection.eventLoop }
    var dialect: any SQLDialect { PostgresDialect() }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        guard !connection.isClosed else { throw Self.closed }
        try await connection.answer(query, onRow)
    }
}

extension StorageError {
    /// The journal fence's refusal (`journal_fence`: SQLSTATE PTF01, detail "shard held current") as the error the
    /// brokerage knows (nil for any other error).
    static func fence(from error: any Error) -> StorageError? {
        if let storage = error as? StorageError, case .fenced = storage { return storage }
        guard let psql = error as? PSQLError, psql.serverInfo?[.sqlState] == "PTF01",
            let detail = psql.serverInfo?[.detail]
        else { return nil }
        let parts = detail.split(separator: " ")
        guard parts.count >= 2, let shard = Int(parts[0]), let held = Int64(parts[1]) else { return nil }
        return .fenced(shard: ShardID(shard), held: held, current: parts.count > 2 ? Int64(parts[2]) : nil)
    }
}
