import SQLKit

/// Free pages kept inside the SQLite database file, so that what commits add lands in blocks the file already has.
///
/// Why: a checkpoint that copies new pages to the end of the database file makes the filesystem allocate blocks,
/// and on ext4 (data=ordered) the next commit's WAL fsync then waits for those data blocks to reach the disk too.
/// Measured on this project's 2-core VM at ~12k durable orders/s (`benchmarks/load/run.sh`): with the file growing,
/// the rounds that held the WAL restart had a p99 of 74–128 ms (10 ms otherwise); with 400 MB of free pages in the
/// file, eight rounds in a row stayed at 8.4–9.1 ms. SQLite reuses free pages before it grows the file, so writing
/// zeros into a scratch table and dropping it (auto_vacuum off, SQLite's default) leaves exactly such space.
/// About 1 KB of it goes per order placed (orders, ledger rows, indexes).
///
/// The `WALCheckpointer` fills the reserve in the background once the database is open (256 MB took ~5 s here, too
/// long to hold a server's start) and tops it up whenever the writer is idle, a chunk at a time, stopping at the
/// first write. Under writes that never pause, the reserve runs out and the file grows as before.
enum FreePageReserve {
    /// A top-up writes zeros in chunks of this size, each its own transaction followed by a checkpoint, so the WAL
    /// stays small and writers never wait long for one chunk.
    static let chunk = 8 << 20

    /// The scratch table the zeros are written into (dropped at once; one left by a crash is dropped next time).
    static let table = "papertrade_free_page_reserve"

    /// Bytes of free pages the file holds now.
    static func freeBytes(_ db: any SQLDatabase) async throws -> Int {
        let free = try await pragma("freelist_count", db)
        return free * (try await pragma("page_size", db))
    }

    /// Adds free pages until the file holds `target` bytes of them, if it holds less than `target - slack`;
    /// `mayContinue` is asked before each chunk (the checkpointer stops when writes arrive). Every chunk runs
    /// inside `exclusive` (the writer lock, so journals wait instead of spinning in SQLite's busy handler). Returns
    /// the bytes added. Nothing happens with auto_vacuum on (freed pages would be given back to the filesystem).
    @discardableResult
    static func topUp(
        _ db: any SQLDatabase, target: Int, slack: Int = 0,
        exclusive: @Sendable (@Sendable () async throws -> Void) async throws -> Void = { try await $0() },
        mayContinue: @Sendable () -> Bool = { true }
    ) async throws -> Int {
        guard target > 0, try await pragma("auto_vacuum", db) == 0 else { return 0 }
        let have = try await freeBytes(db)
        guard have < target - slack else { return 0 }
        try await exclusive {
            try await db.raw("DROP TABLE IF EXISTS \(unsafeRaw: table)").run()
            try await db.raw("CREATE TABLE \(unsafeRaw: table) (zeros BLOB)").run()
        }
        // The zeros take the free pages there are first, then grow the file: `target` bytes of them leave `target`
        // bytes free once dropped.
        var written = 0
        while written < target, mayContinue() {
            let bytes = min(chunk, target - written)
            try await exclusive {
                try await db.raw("INSERT INTO \(unsafeRaw: table) VALUES (zeroblob(\(literal: bytes)))").run()
                try await db.raw("PRAGMA wal_checkpoint(PASSIVE)").run()
            }
            written += bytes
        }
        try await exclusive {
            try await db.raw("DROP TABLE \(unsafeRaw: table)").run()
            try await db.raw("PRAGMA wal_checkpoint(PASSIVE)").run()
        }
        return max(0, try await freeBytes(db) - have)
    }

    private static func pragma(_ name: String, _ db: any SQLDatabase) async throws -> Int {
        try await db.raw("PRAGMA \(unsafeRaw: name)").first()?.decode(column: name, as: Int.self) ?? 0
    }
}
