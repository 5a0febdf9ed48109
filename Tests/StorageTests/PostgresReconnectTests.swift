import BrokerageModel
import Foundation
import SQLKit
import Testing
import TradingCore

@testable import Storage

/// PostgreSQL going away under a running papertrade — a restart, a failover, an administrator ending sessions — as
/// `pg_terminate_backend` does it to every connection but one.
@Suite(
    "PostgreSQL connections that close are opened again",
    .enabled(if: ProcessInfo.processInfo.environment["PAPERTRADE_TEST_POSTGRES_URL"] != nil),
    // A regression waits forever on the dead connection: fail instead.
    .timeLimit(.minutes(1)))
struct PostgresReconnectTests {
    let t0 = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)

    /// Ends every session of the database but the one asking (one of the readers).
    func terminateOthers(_ storage: Storage) async throws {
        try await storage.readers[0].raw(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """
        ).run()
        // The server's goodbye reaches the connections' event loops: the writer and every reader but the asking one
        // see their connection closed (the suite's time limit ends a wait that never does).
        let links = ([storage.postgres] + storage.readers.dropFirst().map { $0 as? PostgresLink }).compactMap { $0 }
        #expect(links.count == Storage.readConnections)
        while links.contains(where: \.isOpen) { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test("after the server ended its sessions, writes (a transaction too) and reads go on, and closing returns")
    func reconnects() async throws {
        try await withStorage(.postgres) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: t0))
            try await terminateOthers(storage)
            // Before, PostgresNIO never answered a statement sent on the closed connection: this waited forever.
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u2", username: "bob", passwordHash: "h", createdAt: t0))
            for _ in 0..<4 {
                #expect(try await SQLUsers(storage).user(username: "bob")?.id == "u2")
                #expect(try await SQLUsers(storage).user(username: "alice")?.id == "u1")
            }
            try await terminateOthers(storage)
            try await storage.transaction { db in
                try await db.raw("UPDATE users SET password_hash = 'h2' WHERE id = 'u1'").run()
            }
            #expect(try await SQLUsers(storage).userCount() == 2)
        }
    }

    @Test("a transaction whose session is ended while a statement runs fails, and the storage goes on")
    func sessionEndedDuringStatement() async throws {
        try await withStorage(.postgres) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: t0))
            let ender = Task {
                try await Task.sleep(for: .milliseconds(300))
                try await storage.readers[0].raw(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep%'
                    """
                ).run()
            }
            var failed = false
            do {
                try await storage.transaction { db in
                    try await db.raw("UPDATE users SET password_hash = 'h2' WHERE id = 'u1'").run()
                    try await db.raw("SELECT pg_sleep(3)").run()
                }
            } catch {
                failed = true
            }
            try await ender.value
            #expect(failed)
            #expect(try await SQLUsers(storage).user(username: "alice")?.passwordHash == "h")
        }
    }

    @Test(
        "a transaction whose session is ended while it waits between statements fails at its next statement, at once or a moment later, and the storage goes on",
        arguments: [0, 1, 5, 50])
    func sessionEndedMidTransaction(pauseMilliseconds: Int) async throws {
        try await withStorage(.postgres) { storage in
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u1", username: "alice", passwordHash: "h", createdAt: t0))
            // As a takeover ends the open transactions of an owner whose lease expired (`endTransactions`): the
            // session is idle in its transaction when the server ends it, and its next statement is sent at once.
            var failed = false
            do {
                try await storage.transaction { db in
                    try await db.raw("UPDATE users SET password_hash = 'h2' WHERE id = 'u1'").run()
                    try await storage.readers[0].raw(
                        """
                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE datname = current_database() AND state LIKE 'idle in transaction%'
                        """
                    ).run()
                    if pauseMilliseconds > 0 { try await Task.sleep(for: .milliseconds(pauseMilliseconds)) }
                    try await db.raw("UPDATE users SET password_hash = 'h3' WHERE id = 'u1'").run()
                }
            } catch {
                failed = true
            }
            #expect(failed, "the transaction's session was ended: it cannot have committed")
            // Nothing of it committed, and the storage writes and reads on.
            #expect(try await SQLUsers(storage).user(username: "alice")?.passwordHash == "h")
            try await SQLUsers(storage).createUser(
                UserRecord(id: "u2", username: "bob", passwordHash: "h", createdAt: t0))
            #expect(try await SQLUsers(storage).userCount() == 2)
        }
    }
}
