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

    private init(
        configuration: PostgresConnection.Configuration, id: Int, logger: Logger, eventLoop: any EventLoop,
        connection: PostgresConnection
    ) {
        self.configuration = configuration
        self.id = id
        self.logger = logger
        self.eventLoop = eventLoop
        current = Mutex((WatchedConnection(connection), false))
    }

    /// Connects at once (a database that cannot be reached at start-up is an error then, not at the first write).
    static func connect(
        configuration: PostgresConnection.Configuration, id: Int, logger: Logger,
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()
    ) async throws -> PostgresLink {
        let connection = try await PostgresConnection.connect(
            on: eventLoop, configuration: configuration, id: id, logger: logger)
        return PostgresLink(
            configuration: configuration, id: id, logger: logger, eventLoop: eventLoop, connection: connection)
    }

    /// The open connection, connecting again if the last one closed.
    func connection() async throws -> WatchedConnection {
        if let open = try usable() { return open }
        await connecting.acquire()
        defer { connecting.release() }
        if let open = try usable() { return open }
        let connection = WatchedConnection(
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
}

/// A connection and the statements waiting for its answers. PostgresNIO never answers a statement the connection closed
/// around (sent just before the server's goodbye arrived): a transaction's ROLLBACK sent after its session was ended
/// waited for good, inside the storage's write lock, and every commit of the node waited behind it (seen when a
/// takeover ended a loaded node's idle transaction: the node answered health checks and nothing else). Here a
/// statement returns with its answer or fails as soon as the connection closes — the close is watched once per
/// connection, each statement only enters and leaves the list of those waiting.
final class WatchedConnection: Sendable {
    let connection: PostgresConnection
    /// Whether the connection has closed, and how to fail each statement still waiting (by a number of its own).
    private let waiting = Mutex<(closed: Bool, next: Int, fail: [Int: @Sendable () -> Void])>((false, 0, [:]))

    init(_ connection: PostgresConnection) {
        self.connection = connection
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
        let answered: EventLoopFuture<Void> = connection.sql(queryLogLevel: nil).execute(sql: query, onRow)
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
