import BrokerageModel
import Storage

/// `papertrade backup` and `papertrade restore`: consistent copies of a SQLite database, taken while the server
/// runs, and put back while it is stopped (see `Storage.backup`). PostgreSQL has its own tools.
public enum DatabaseBackup {
    public typealias Summary = Storage.BackupSummary

    /// Writes a consistent copy of the database to `destination` (a new file).
    public static func backup(_ database: DatabaseLocation, to destination: String) async throws -> Summary {
        guard case .sqlite(let path) = database else { throw Self.postgres }
        return try await Storage.backup(sqlite: path, to: destination)
    }

    /// Checks a backup and makes it the database (replacing an existing one only with `replacing`).
    public static func restore(_ backup: String, to database: DatabaseLocation, replacing: Bool) async throws -> Summary
    {
        guard case .sqlite(let path) = database else { throw Self.postgres }
        return try await Storage.restore(sqlite: backup, to: path, replacing: replacing)
    }

    static let postgres = StorageError.unavailable(
        "backups of a PostgreSQL database are taken with pg_dump and restored with pg_restore or psql")
}
