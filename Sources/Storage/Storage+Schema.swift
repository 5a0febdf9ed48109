import SQLKit

extension Storage {
    /// Versioned migrations; each runs once, in order, in its own transaction.
    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE web_sessions (
                token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE accounts (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), name TEXT NOT NULL, market TEXT NOT NULL,
                account_number TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL, state TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE api_keys (
                key_id TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, account_id TEXT NOT NULL REFERENCES accounts(id),
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE orders (
                id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), client_order_id TEXT NOT NULL,
                symbol TEXT NOT NULL, status TEXT NOT NULL, is_open INTEGER NOT NULL, submitted_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL, body TEXT NOT NULL, UNIQUE (account_id, client_order_id)
            )
            """,
            "CREATE INDEX orders_by_account ON orders (account_id, submitted_at)",
            """
            CREATE TABLE activities (
                account_id TEXT NOT NULL REFERENCES accounts(id), sequence BIGINT NOT NULL, time BIGINT NOT NULL,
                kind TEXT NOT NULL, cash_change TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (account_id, sequence)
            )
            """,
            """
            CREATE TABLE watchlists (
                id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), name TEXT NOT NULL,
                symbols TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, UNIQUE (account_id, name)
            )
            """,
            "CREATE TABLE engine_state (id INTEGER PRIMARY KEY, random_state TEXT NOT NULL)",
        ]),
        (2, [
            "CREATE TABLE account_configurations (account_id TEXT PRIMARY KEY REFERENCES accounts(id), body TEXT NOT NULL)",
        ]),
        (3, [
            """
            CREATE TABLE notifications (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), account_id TEXT, kind TEXT NOT NULL,
                title TEXT NOT NULL, body TEXT NOT NULL, created_at BIGINT NOT NULL, read_at BIGINT
            )
            """,
            "CREATE INDEX notifications_by_user ON notifications (user_id, created_at)",
        ]),
    ]

    func migrate() async throws {
        try await db.raw("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)").run()
        let applied = Set(try await db.raw("SELECT version FROM schema_migrations").all().map { try $0.decode(column: "version", as: Int.self) })
        for migration in Self.migrations where !applied.contains(migration.version) {
            try await transaction { db in
                for statement in migration.statements { try await db.raw(SQLQueryString(statement)).run() }
                try await db.raw("INSERT INTO schema_migrations (version) VALUES (\(bind: migration.version))").run()
            }
        }
    }
}
