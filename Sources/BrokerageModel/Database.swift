import Foundation

/// Where papertrade keeps its data.
public enum DatabaseLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file (the embedded default, in the data directory).
    case sqlite(path: String)
    /// A PostgreSQL server, e.g. postgres://user:pass@host:5432/papertrade.
    case postgres(url: String)

    public var description: String {
        switch self {
        case .sqlite(let path): return "SQLite at \(path)"
        case .postgres(let url):
            return
                "PostgreSQL at \(url.replacingOccurrences(of: #"://[^@]*@"#, with: "://…@", options: .regularExpression))"
        }
    }
}

/// When SQLite's WAL is copied back into the database file (see `WALCheckpointer`).
public struct CheckpointPolicy: Sendable {
    /// A checkpoint runs once the writer has been idle this long…
    public var whenIdleFor = Duration.milliseconds(200)
    /// …and under sustained writes at least this often (each round copies about that much time's writes).
    public var atLeastEvery = Duration.seconds(2)
    /// Past this size (bytes) the WAL is started over, briefly holding writers off.
    public var walSizeLimit = 256 << 20
    /// Write the WAL file out to `walSizeLimit` (zeros) when the database opens, if it is shorter, as PostgreSQL
    /// zero-fills its WAL segments: a commit then overwrites blocks the file already has, and its fsync flushes data
    /// only — appending made every fsync also allocate blocks and update the inode. Measured on this project's 2-core
    /// VM: commit fsyncs ~400 µs instead of ~600 µs under load, ~7% more orders/s; writing 256 MB takes ~0.2 s. The
    /// server turns it on; tools and tests that open a database briefly leave it off.
    public var preallocateWAL = false
    /// Bytes of free pages kept in the database file (see `FreePageReserve`): filled in the background once the
    /// database is open and topped up whenever the writer is idle, so that commits under load reuse blocks the file
    /// has instead of growing it. 0 (the default, for tools and tests) keeps none; the server keeps half
    /// `walSizeLimit`.
    public var freePageReserve = 0

    public init() {}
}

/// The database as the brokerage holds it once open: something to close after every step is durable. (Everything it
/// reads and writes goes through the repositories; only the factory that opens it names its type.)
public protocol DatabaseConnection: Sendable {
    func shutdown() async
}
