import BrokerageModel
import Foundation
import Logging
import SQLKit
import SQLiteKit

/// Backups of a SQLite database: `VACUUM INTO` writes a consistent, compacted copy in one read transaction, so
/// it is safe while a server writes to the database (the copy holds everything committed when it started).
/// PostgreSQL databases are backed up with PostgreSQL's own tools (pg_dump).
extension Storage {
    /// What a backup or restore did.
    public struct BackupSummary: Sendable {
        public var path: String
        public var bytes: Int
        public var accounts: Int
        public var orders: Int
    }

    /// Writes a consistent copy of the SQLite database at `path` to `destination` (which must not exist yet).
    public static func backup(sqlite path: String, to destination: String) async throws -> BackupSummary {
        guard FileManager.default.fileExists(atPath: path) else { throw StorageError.notFound("database \(path)") }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StorageError.duplicate("backup file \(destination)")
        }
        let directory = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try await withConnection(path) { db in
            try await db.raw("VACUUM INTO \(bind: destination)").run()
        }
        return try await summary(of: destination)
    }

    /// Puts a backup in place of the SQLite database at `path`. The server must be stopped: the file is replaced
    /// underneath any open connection. The backup is checked first (SQLite's integrity check and papertrade's
    /// tables); a damaged or foreign file leaves the database untouched. An existing database is replaced only with
    /// `replacing`.
    public static func restore(sqlite backup: String, to path: String, replacing: Bool) async throws -> BackupSummary {
        guard FileManager.default.fileExists(atPath: backup) else {
            throw StorageError.notFound("backup file \(backup)")
        }
        if FileManager.default.fileExists(atPath: path), !replacing {
            throw StorageError.duplicate("database \(path)")
        }
        let checked: String?
        do {
            checked = try await withConnection(backup) { db in
                try await db.raw("PRAGMA integrity_check").all().first.map {
                    try $0.decode(column: "integrity_check", as: String.self)
                }
            }
        } catch {
            throw StorageError.corrupt("\(backup) is not a SQLite database (\(error))")
        }
        guard checked == "ok" else {
            throw StorageError.corrupt("\(backup) fails SQLite's integrity check: \(checked ?? "no answer")")
        }
        let summary = try await summary(of: backup) // throws if papertrade's tables are missing
        let staging = path + ".restoring"
        let manager = FileManager.default
        try? manager.removeItem(atPath: staging)
        try manager.createDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
            withIntermediateDirectories: true)
        try manager.copyItem(atPath: backup, toPath: staging)
        // The old database's WAL belongs to the old file: left behind, SQLite would replay it into the new one.
        for suffix in ["-wal", "-shm"] { try? manager.removeItem(atPath: path + suffix) }
        guard rename(staging, path) == 0 else {
            throw StorageError.unavailable("could not move the restored database into place (errno \(errno))")
        }
        return BackupSummary(path: path, bytes: summary.bytes, accounts: summary.accounts, orders: summary.orders)
    }

    /// Size and contents of a papertrade SQLite file.
    static func summary(of path: String) async throws -> BackupSummary {
        let (accounts, orders) = try await withConnection(path) { db -> (Int, Int) in
            do {
                let accounts = try await db.raw("SELECT count(*) AS n FROM accounts").first(
                    decodingColumn: "n", as: Int.self)
                let orders = try await db.raw("SELECT count(*) AS n FROM orders").first(
                    decodingColumn: "n", as: Int.self)
                return (accounts ?? 0, orders ?? 0)
            } catch {
                throw StorageError.corrupt("\(path) is not a papertrade database (\(error))")
            }
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return BackupSummary(path: path, bytes: bytes, accounts: accounts, orders: orders)
    }

    /// One plain connection to a SQLite file for the duration of `body` (no migrations, no background work).
    static func withConnection<T: Sendable>(_ path: String, _ body: @Sendable (any SQLDatabase) async throws -> T)
        async throws -> T
    {
        let connection = try await SQLiteConnection.open(
            storage: .file(path: path), logger: Logger(label: "papertrade.backup"))
        do {
            let db = connection.sql(queryLogLevel: nil)
            try await db.raw("PRAGMA busy_timeout=5000").run()
            let value = try await body(db)
            try await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
