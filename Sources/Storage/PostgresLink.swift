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
    private let current: Mutex<(connection: PostgresConnection, closed: Bool)>
    private let connecting = AsyncLock()

    private init(
        configuration: PostgresConnection.Configuration, id: Int, logger: Logger, eventLoop: any EventLoop,
        connection: PostgresConnection
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
            configuration: configuration, id: id, logger: logger, eventLoop: eventLoop, connection: connection)
    }

    /// The open connection, connecting again if the last one closed.
    func connection() async throws -> PostgresConnection {
        if let open = try usable() { return open }
        await connecting.acquire()
        defer { connecting.release() }
        if let open = try usable() { return open }
        let connection = try await PostgresConnection.connect(
            on: eventLoop, configuration: configuration, id: id, logger: logger)
        let installed = current.withLock { slot -> Bool in
            guard !slot.closed else { return false }
            slot.connection = connection
            return true
        }
        guard installed else {
            try? await connection.close()
            throw StorageError.unavailable("the database is closed")
        }
        logger.notice("PostgreSQL connection \(id) had closed; connected again")
        return connection
    }

    /// The current connection if it is open; nil when it has closed; throws once the link is closed.
    private func usable() throws -> PostgresConnection? {
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
        try await connection.close()
    }

    var dialect: any SQLDialect { PostgresDialect() }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await connection().sql(queryLogLevel: nil).execute(sql: query, onRow)
    }
}

/// A transaction's connection: its statements fail once it has closed instead of waiting forever for an answer.
struct PinnedSession: SQLDatabase {
    let connection: PostgresConnection
    static let closed = StorageError.unavailable("the PostgreSQL connection closed during a transaction")

    var logger: Logger { connection.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var dialect: any SQLDialect { PostgresDialect() }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        guard !connection.isClosed else { return eventLoop.makeFailedFuture(Self.closed) }
        return connection.sql(queryLogLevel: nil).execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        guard !connection.isClosed else { throw Self.closed }
        try await connection.sql(queryLogLevel: nil).execute(sql: query, onRow)
    }
}
