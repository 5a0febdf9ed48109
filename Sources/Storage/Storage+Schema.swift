import SQLKit

extension Storage {
    /// Versioned migrations; each runs once, in order, in its own transaction.
    static let migrations: [(version: Int, statements: [String])] = [
        (
            1,
            [
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
            ]
        ),
        (
            2,
            [
                "CREATE TABLE account_configurations (account_id TEXT PRIMARY KEY REFERENCES accounts(id), body TEXT NOT NULL)"
            ]
        ),
        (
            3,
            [
                """
                CREATE TABLE notifications (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), account_id TEXT, kind TEXT NOT NULL,
                    title TEXT NOT NULL, body TEXT NOT NULL, created_at BIGINT NOT NULL, read_at BIGINT
                )
                """,
                "CREATE INDEX notifications_by_user ON notifications (user_id, created_at)",
            ]
        ),
        // SQLite only (recorded but empty on PostgreSQL): the journal inbox, a view whose INSTEAD OF triggers
        // route each inserted row to its table, so a whole group commit is one statement (Storage.write(_:)).
        (
            4,
            sqliteOnly([
                "CREATE VIEW journal_inbox AS SELECT NULL AS kind, NULL AS c1, NULL AS c2, NULL AS c3, NULL AS c4, NULL AS c5, NULL AS c6, NULL AS c7, NULL AS c8, NULL AS c9",
                """
                CREATE TRIGGER journal_inbox_order INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'order' BEGIN
                    INSERT INTO orders (id, account_id, client_order_id, symbol, status, is_open, submitted_at, updated_at, body)
                    VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6, NEW.c7, NEW.c8, NEW.c9)
                    ON CONFLICT (id) DO UPDATE SET status = excluded.status, is_open = excluded.is_open,
                        updated_at = excluded.updated_at, body = excluded.body;
                END
                """,
                """
                CREATE TRIGGER journal_inbox_activity INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'activity' BEGIN
                    INSERT INTO activities (account_id, sequence, time, kind, cash_change, body)
                    VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6);
                END
                """,
                """
                CREATE TRIGGER journal_inbox_account INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'account' BEGIN
                    UPDATE accounts SET state = NEW.c2 WHERE id = NEW.c1;
                END
                """,
                """
                CREATE TRIGGER journal_inbox_notification INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'notification' BEGIN
                    INSERT INTO notifications (id, user_id, account_id, kind, title, body, created_at, read_at)
                    VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6, NEW.c7, NEW.c8);
                END
                """,
                """
                CREATE TRIGGER journal_inbox_random INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'random' BEGIN
                    INSERT INTO engine_state (id, random_state) VALUES (1, NEW.c1)
                    ON CONFLICT (id) DO UPDATE SET random_state = excluded.random_state;
                END
                """,
                "CREATE TRIGGER journal_inbox_unknown INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind NOT IN ('order', 'activity', 'account', 'notification', 'random', 'rule') BEGIN SELECT RAISE(ABORT, 'journal_inbox: unknown row kind'); END",
            ])
        ),
        // Queued rules (queue purchase), journaled with the orders they place.
        (
            5,
            [
                """
                CREATE TABLE queue_rules (
                    id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), status TEXT NOT NULL,
                    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, body TEXT NOT NULL
                )
                """,
                "CREATE INDEX queue_rules_by_account ON queue_rules (account_id, status, updated_at)",
                "CREATE INDEX queue_rules_by_status ON queue_rules (status)",
            ]
                + sqliteOnly([
                    """
                    CREATE TRIGGER journal_inbox_rule INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'rule' BEGIN
                        INSERT INTO queue_rules (id, account_id, status, created_at, updated_at, body)
                        VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6)
                        ON CONFLICT (id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at, body = excluded.body;
                    END
                    """
                ])
        ),
        // Per-user webhooks. A notification of a user with an enabled webhook gets its delivery row from a trigger, in
        // the same transaction as the notification itself: no notification is acknowledged without its delivery.
        (
            6,
            [
                """
                CREATE TABLE webhooks (
                    user_id TEXT PRIMARY KEY REFERENCES users(id), url TEXT NOT NULL, secret TEXT NOT NULL,
                    enabled INTEGER NOT NULL DEFAULT 1, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE webhook_deliveries (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), notification_id TEXT NOT NULL,
                    status TEXT NOT NULL, attempts INTEGER NOT NULL, next_attempt_at BIGINT NOT NULL,
                    last_status INTEGER, last_error TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)",
                "CREATE INDEX webhook_deliveries_by_user ON webhook_deliveries (user_id, created_at)",
            ]
                + sqliteOnly([
                    """
                    CREATE TRIGGER notifications_webhook AFTER INSERT ON notifications
                    WHEN EXISTS (SELECT 1 FROM webhooks WHERE user_id = NEW.user_id AND enabled = 1) BEGIN
                        INSERT INTO webhook_deliveries (id, user_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                        VALUES (NEW.id, NEW.user_id, NEW.id, 'pending', 0, NEW.created_at, NEW.created_at, NEW.created_at)
                        ON CONFLICT (id) DO NOTHING;
                    END
                    """
                ])
                + postgresOnly([
                    """
                    CREATE FUNCTION papertrade_webhook_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF EXISTS (SELECT 1 FROM webhooks WHERE user_id = NEW.user_id AND enabled = 1) THEN
                            INSERT INTO webhook_deliveries (id, user_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                            VALUES (NEW.id, NEW.user_id, NEW.id, 'pending', 0, NEW.created_at, NEW.created_at, NEW.created_at)
                            ON CONFLICT (id) DO NOTHING;
                        END IF;
                        RETURN NEW;
                    END
                    $$
                    """,
                    "CREATE TRIGGER notifications_webhook AFTER INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION papertrade_webhook_delivery()",
                ])
        ),
        // The journal inbox, generated from the table descriptions (`JournalTables`) instead of written by hand, as it
        // was then (`JournalInboxHistory`: frozen). (The random-state row now carries its key: c1 = 1, c2 = the state.)
        // A change to a journal table needs a new migration like this one, so existing databases get the new triggers.
        (7, sqliteOnly(JournalInboxHistory.migration7)),
        // Performance history: one row per account per trading day's close (Repositories/SQLEquityHistory.swift).
        (
            8,
            [
                """
                CREATE TABLE equity_days (
                    account_id TEXT NOT NULL REFERENCES accounts(id), day TEXT NOT NULL, equity TEXT NOT NULL,
                    cash TEXT NOT NULL, positions_value TEXT NOT NULL, flow TEXT NOT NULL, dividends TEXT NOT NULL,
                    fees TEXT NOT NULL, realized_pnl TEXT NOT NULL, last_sequence BIGINT NOT NULL, holdings TEXT NOT NULL,
                    PRIMARY KEY (account_id, day)
                )
                """
            ]
        ),
        // Price alerts and their triggers, journaled with the notifications they send (Repositories/SQLRules.swift); the
        // SQLite inbox gains their row kinds.
        (
            9,
            [
                """
                CREATE TABLE alerts (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), symbol TEXT NOT NULL,
                    status TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, body TEXT NOT NULL
                )
                """,
                "CREATE INDEX alerts_by_user ON alerts (user_id, status, updated_at)",
                "CREATE INDEX alerts_by_status ON alerts (status)",
                """
                CREATE TABLE alert_triggers (
                    id TEXT PRIMARY KEY, alert_id TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id),
                    time BIGINT NOT NULL, body TEXT NOT NULL
                )
                """,
                "CREATE INDEX alert_triggers_by_user ON alert_triggers (user_id, time)",
                "CREATE INDEX alert_triggers_by_alert ON alert_triggers (alert_id, time)",
            ] + sqliteOnly(JournalInboxHistory.migration9)
        ),
        // Web Push: each notification gets a delivery row per subscription of its user, from a trigger, in the same
        // transaction as the notification (as webhooks do, migration 6).
        (
            10,
            [
                """
                CREATE TABLE push_subscriptions (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), endpoint TEXT NOT NULL UNIQUE,
                    p256dh TEXT NOT NULL, auth TEXT NOT NULL, user_agent TEXT, created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX push_subscriptions_by_user ON push_subscriptions (user_id)",
                """
                CREATE TABLE push_deliveries (
                    id TEXT PRIMARY KEY, subscription_id TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id),
                    notification_id TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
                    next_attempt_at BIGINT NOT NULL, last_status INTEGER, last_error TEXT, created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX push_deliveries_due ON push_deliveries (status, next_attempt_at)",
                "CREATE INDEX push_deliveries_by_user ON push_deliveries (user_id, created_at)",
            ]
                + sqliteOnly([
                    """
                    CREATE TRIGGER notifications_push AFTER INSERT ON notifications BEGIN
                        INSERT INTO push_deliveries (id, subscription_id, user_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                        SELECT NEW.id || ':' || s.id, s.id, NEW.user_id, NEW.id, 'pending', 0, NEW.created_at, NEW.created_at, NEW.created_at
                        FROM push_subscriptions s WHERE s.user_id = NEW.user_id
                        ON CONFLICT (id) DO NOTHING;
                    END
                    """
                ])
                + postgresOnly([
                    """
                    CREATE FUNCTION papertrade_push_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        INSERT INTO push_deliveries (id, subscription_id, user_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                        SELECT NEW.id || ':' || s.id, s.id, NEW.user_id, NEW.id, 'pending', 0, NEW.created_at, NEW.created_at, NEW.created_at
                        FROM push_subscriptions s WHERE s.user_id = NEW.user_id
                        ON CONFLICT (id) DO NOTHING;
                        RETURN NEW;
                    END
                    $$
                    """,
                    "CREATE TRIGGER notifications_push AFTER INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION papertrade_push_deliveries()",
                ])
        ),
        // Each user's language (nil: follow the browser): notifications and pushes are written in it.
        (11, ["ALTER TABLE users ADD COLUMN language TEXT"]),
        // Games and their players (Repositories/SQLGames.swift): a player's game account is an ordinary account row.
        (
            12,
            [
                """
                CREATE TABLE games (
                    id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES users(id), name TEXT NOT NULL,
                    market TEXT NOT NULL, join_code TEXT NOT NULL UNIQUE, visibility TEXT NOT NULL, settings TEXT NOT NULL,
                    created_at BIGINT NOT NULL, ended_at BIGINT, final_standings TEXT
                )
                """,
                """
                CREATE TABLE game_players (
                    account_id TEXT PRIMARY KEY REFERENCES accounts(id), game_id TEXT NOT NULL REFERENCES games(id),
                    user_id TEXT NOT NULL REFERENCES users(id), name TEXT NOT NULL, joined_at BIGINT NOT NULL,
                    removed_at BIGINT, resets_used INTEGER NOT NULL, UNIQUE (game_id, user_id)
                )
                """,
            ]
        ),
        // Shards (Storage+Shards.swift): each account's virtual shard, and the one row that fixes how many shards
        // the database has (written by `ensureShardMap` when the database is created or first opened after this).
        // `engine_state` rows are now keyed by shard.
        (
            13,
            [
                "ALTER TABLE accounts ADD COLUMN shard INTEGER NOT NULL DEFAULT 0",
                "CREATE INDEX accounts_by_shard ON accounts (shard)",
                "CREATE TABLE shard_map (id INTEGER PRIMARY KEY, shard_count INTEGER NOT NULL)",
            ]
        ),
        // One delivery outbox for every channel (Repositories/SQLNotifications.swift): webhook and Web Push deliveries move into
        // `deliveries`, and one trigger on `notifications` queues a notification for the user's enabled webhook and
        // each of their push subscriptions, in the notification's own transaction.
        (
            14,
            [
                """
                CREATE TABLE deliveries (
                    id TEXT PRIMARY KEY, channel TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id),
                    subscription_id TEXT, notification_id TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
                    next_attempt_at BIGINT NOT NULL, last_status INTEGER, last_error TEXT, created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX deliveries_due ON deliveries (channel, status, next_attempt_at)",
                "CREATE INDEX deliveries_by_user ON deliveries (user_id, channel, created_at)",
                """
                INSERT INTO deliveries (id, channel, user_id, subscription_id, notification_id, status, attempts, next_attempt_at, last_status, last_error, created_at, updated_at)
                SELECT id, 'webhook', user_id, NULL, notification_id, status, attempts, next_attempt_at, last_status, last_error, created_at, updated_at
                FROM webhook_deliveries
                """,
                """
                INSERT INTO deliveries (id, channel, user_id, subscription_id, notification_id, status, attempts, next_attempt_at, last_status, last_error, created_at, updated_at)
                SELECT id, 'push', user_id, subscription_id, notification_id, status, attempts, next_attempt_at, last_status, last_error, created_at, updated_at
                FROM push_deliveries
                """,
            ]
                + sqliteOnly([
                    "DROP TRIGGER notifications_webhook",
                    "DROP TRIGGER notifications_push",
                    """
                    CREATE TRIGGER notifications_deliveries AFTER INSERT ON notifications BEGIN
                        INSERT INTO deliveries (id, channel, user_id, subscription_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                        SELECT NEW.id, 'webhook', NEW.user_id, NULL, NEW.id, 'pending', 0, NEW.created_at, NEW.created_at, NEW.created_at
                        FROM webhooks w WHERE w.user_id = NEW.user_id AND w.enabled = 1
                        ON CONFLICT (id) DO NOTHING;
                        INSERT INTO deliveries (id, channel, user_id, subscription_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                        SELECT NEW.id || ':' || s.id, 'push', NEW.user_id, s.id, NEW.id, 'pending', 0, NEW.created_at, NEW.created_at, NEW.created_at
                        FROM push_subscriptions s WHERE s.user_id = NEW.user_id
                        ON CONFLICT (id) DO NOTHING;
                    END
                    """,
                ])
                + postgresOnly([
                    "DROP TRIGGER notifications_webhook ON notifications",
                    "DROP TRIGGER notifications_push ON notifications",
                    "DROP FUNCTION papertrade_webhook_delivery()",
                    "DROP FUNCTION papertrade_push_deliveries()",
                    """
                    CREATE FUNCTION papertrade_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        INSERT INTO deliveries (id, channel, user_id, subscription_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                        SELECT NEW.id, 'webhook', NEW.user_id, NULL, NEW.id, 'pending', 0, NEW.created_at, NEW.created_at, NEW.created_at
                        FROM webhooks w WHERE w.user_id = NEW.user_id AND w.enabled = 1
                        ON CONFLICT (id) DO NOTHING;
                        INSERT INTO deliveries (id, channel, user_id, subscription_id, notification_id, status, attempts, next_attempt_at, created_at, updated_at)
                        SELECT NEW.id || ':' || s.id, 'push', NEW.user_id, s.id, NEW.id, 'pending', 0, NEW.created_at, NEW.created_at, NEW.created_at
                        FROM push_subscriptions s WHERE s.user_id = NEW.user_id
                        ON CONFLICT (id) DO NOTHING;
                        RETURN NEW;
                    END
                    $$
                    """,
                    "CREATE TRIGGER notifications_deliveries AFTER INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION papertrade_deliveries()",
                ])
                + ["DROP TABLE webhook_deliveries", "DROP TABLE push_deliveries"]
        ),
        // A cluster of nodes on one PostgreSQL (Storage+Cluster.swift): who is up, and each virtual shard's lease —
        // its owner, until when, and the epoch every journal commit of the shard is checked against. Created on
        // SQLite too (one process, never used there), so both schemas stay the same.
        (
            15,
            [
                """
                CREATE TABLE cluster_nodes (
                    name TEXT PRIMARY KEY, url TEXT NOT NULL, state TEXT NOT NULL, started_at BIGINT NOT NULL,
                    heartbeat_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE shard_leases (
                    shard INTEGER PRIMARY KEY, owner TEXT, epoch BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                    acquired_at BIGINT NOT NULL
                )
                """,
            ]
        ),
        // The cluster's live events (Storage+LiveEvents.swift): each commit's order updates and notifications, for
        // the streams of clients connected to other nodes; kept minutes, read by id per shard.
        (
            16,
            sqliteOnly([
                """
                CREATE TABLE live_events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, shard INTEGER NOT NULL, node TEXT NOT NULL, kind TEXT NOT NULL,
                    created_at BIGINT NOT NULL, body TEXT NOT NULL
                )
                """
            ])
                + postgresOnly([
                    """
                    CREATE TABLE live_events (
                        id BIGSERIAL PRIMARY KEY, shard INTEGER NOT NULL, node TEXT NOT NULL, kind TEXT NOT NULL,
                        created_at BIGINT NOT NULL, body TEXT NOT NULL
                    )
                    """
                ]) + ["CREATE INDEX live_events_by_shard ON live_events (shard, id)"]
        ),
        // Transfers between a user's accounts (Repositories/SQLTransfers.swift): the record commits with the debit in
        // the source's shard and is marked completed with the credit in the destination's; a credit row per transfer
        // (its key) makes a second credit fail to commit, and a client's id for a transfer names one transfer out of
        // an account. The SQLite inbox gains both row kinds.
        (
            17,
            [
                """
                CREATE TABLE transfers (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, from_account TEXT NOT NULL, to_account TEXT NOT NULL,
                    to_shard INTEGER NOT NULL, status TEXT NOT NULL, created_at BIGINT NOT NULL,
                    client_transfer_id TEXT, body TEXT NOT NULL
                )
                """,
                "CREATE INDEX transfers_by_user ON transfers (user_id, created_at)",
                // A client's id names one transfer out of an account (NULLs are distinct: most transfers have none).
                "CREATE UNIQUE INDEX transfers_by_client_id ON transfers (from_account, client_transfer_id)",
                "CREATE INDEX transfers_by_status ON transfers (status, to_shard)",
                """
                CREATE TABLE transfer_credits (
                    transfer_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, time BIGINT NOT NULL
                )
                """,
            ] + sqliteOnly(JournalInboxHistory.migration17)
        ),
        // Classes (Repositories/SQLClasses.swift): a class runs on a game and adds teachers, a roster, assignments
        // and marks; a student's class account is their game account. A password someone else chose (a roster's,
        // a reset's) is to be changed at the next log-in; the last log-in tells a teacher who never came.
        (
            18,
            [
                "ALTER TABLE users ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE users ADD COLUMN last_login_at BIGINT",
                """
                CREATE TABLE classes (
                    id TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games(id), name TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE class_teachers (
                    class_id TEXT NOT NULL REFERENCES classes(id), user_id TEXT NOT NULL REFERENCES users(id),
                    position INTEGER NOT NULL, PRIMARY KEY (class_id, user_id)
                )
                """,
                "CREATE INDEX class_teachers_by_user ON class_teachers (user_id)",
                """
                CREATE TABLE class_students (
                    class_id TEXT NOT NULL REFERENCES classes(id), user_id TEXT NOT NULL REFERENCES users(id),
                    username TEXT NOT NULL, display_name TEXT NOT NULL, email TEXT, account_id TEXT NOT NULL,
                    added_at BIGINT NOT NULL, removed_at BIGINT, PRIMARY KEY (class_id, user_id)
                )
                """,
                "CREATE INDEX class_students_by_user ON class_students (user_id)",
                """
                CREATE TABLE assignments (
                    id TEXT PRIMARY KEY, class_id TEXT NOT NULL REFERENCES classes(id), title TEXT NOT NULL,
                    due BIGINT NOT NULL, checks TEXT NOT NULL, created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX assignments_by_class ON assignments (class_id, due)",
                """
                CREATE TABLE assignment_marks (
                    assignment_id TEXT NOT NULL REFERENCES assignments(id), student_id TEXT NOT NULL,
                    class_id TEXT NOT NULL, mark TEXT NOT NULL, marked_by TEXT NOT NULL, marked_at BIGINT NOT NULL,
                    PRIMARY KEY (assignment_id, student_id)
                )
                """,
            ]
        ),
        // PostgreSQL: each journal commit writes its key, so a commit whose answer was lost (the connection cut by a
        // failover) is looked up after reconnecting instead of guessed (`Storage.writeTagged`). Keys older than an
        // hour are pruned.
        (
            19,
            postgresOnly([
                "CREATE TABLE journal_commits (key TEXT PRIMARY KEY, committed_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            ])
        ),
        // PostgreSQL: the commit's fence as a function, so a journal commit is one statement
        // (`PostgresJournalStatement`): each shard's lease, locked FOR SHARE in shard order, must still have the epoch the
        // commit was made under, or the statement fails with SQLSTATE PTF01 and "shard held current" as its detail
        // (`StorageError.fence(from:)`). And journal_commits indexed by age, for its pruning.
        (
            20,
            postgresOnly([
                """
                CREATE FUNCTION journal_fence(shards BIGINT[], epochs BIGINT[]) RETURNS INTEGER LANGUAGE plpgsql AS $$
                DECLARE
                    current BIGINT;
                BEGIN
                    FOR i IN 1 .. coalesce(array_length(shards, 1), 0) LOOP
                        SELECT epoch INTO current FROM shard_leases WHERE shard = shards[i] FOR SHARE;
                        IF current IS DISTINCT FROM epochs[i] THEN
                            RAISE EXCEPTION 'journal fence: shard % is at epoch %; the commit was made under %',
                                shards[i], current, epochs[i]
                                USING ERRCODE = 'PTF01', DETAIL = concat_ws(' ', shards[i], epochs[i], current);
                        END IF;
                    END LOOP;
                    RETURN 0;
                END
                $$
                """,
                // The hourly prune deletes by age: without the index it read every key of the last hour (~1.4M at
                // 400 commits/s), under the writer's lock.
                "CREATE INDEX journal_commits_by_age ON journal_commits (committed_at)",
            ])
        ),
        // Teams: students of a class sharing one portfolio (`team_account_id`), under a name unique in the class. A
        // team's account is a player of the class's game owned by a member who already plays in it: one player per
        // user and game now holds for players that are not a team's (`game_players.team`). SQLite cannot drop a
        // table's constraint: the table is built again.
        (
            21,
            [
                "ALTER TABLE class_students ADD COLUMN team TEXT",
                "ALTER TABLE class_students ADD COLUMN team_account_id TEXT",
            ]
                + sqliteOnly([
                    """
                    CREATE TABLE game_players_21 (
                        account_id TEXT PRIMARY KEY REFERENCES accounts(id), game_id TEXT NOT NULL REFERENCES games(id),
                        user_id TEXT NOT NULL REFERENCES users(id), name TEXT NOT NULL, joined_at BIGINT NOT NULL,
                        removed_at BIGINT, resets_used INTEGER NOT NULL, team INTEGER NOT NULL DEFAULT 0
                    )
                    """,
                    """
                    INSERT INTO game_players_21 (account_id, game_id, user_id, name, joined_at, removed_at, resets_used)
                    SELECT account_id, game_id, user_id, name, joined_at, removed_at, resets_used FROM game_players
                    """,
                    "DROP TABLE game_players",
                    "ALTER TABLE game_players_21 RENAME TO game_players",
                ])
                + postgresOnly([
                    "ALTER TABLE game_players ADD COLUMN team INTEGER NOT NULL DEFAULT 0",
                    "ALTER TABLE game_players DROP CONSTRAINT game_players_game_id_user_id_key",
                ])
                + ["CREATE UNIQUE INDEX game_players_one_per_user ON game_players (game_id, user_id) WHERE team = 0"]
        ),
        // A team's members by its account: a shard reads them when it loads the account, to tell every member of
        // what happens to it (fills, cancellations, dividends), not only its owner.
        // An account's API keys, listed and revoked by account.
        (
            22,
            [
                "CREATE INDEX class_students_by_team_account ON class_students (team_account_id)",
                "CREATE INDEX api_keys_by_account ON api_keys (account_id)",
            ]
        ),
    ]

    /// Marks a migration's statements as PostgreSQL's own.
    static func postgresOnly(_ statements: [String]) -> [String] { statements.map { postgresOnlyMarker + $0 } }
    static let postgresOnlyMarker = "-- postgres only\n"

    /// Marks a migration's statements as SQLite's own.
    static func sqliteOnly(_ statements: [String]) -> [String] { statements.map { sqliteOnlyMarker + $0 } }
    static let sqliteOnlyMarker = "-- sqlite only\n"

    func migrate(through lastVersion: Int = .max) async throws {
        try await db.raw("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)").run()
        let applied = Set(
            try await db.raw("SELECT version FROM schema_migrations").all().map {
                try $0.decode(column: "version", as: Int.self)
            })
        for migration in Self.migrations where !applied.contains(migration.version) && migration.version <= lastVersion
        {
            try await transaction { db in
                for statement in migration.statements
                where !(isPostgres && statement.hasPrefix(Self.sqliteOnlyMarker))
                    && !(!isPostgres && statement.hasPrefix(Self.postgresOnlyMarker))
                {
                    try await db.raw(SQLQueryString(statement)).run()
                }
                try await db.raw("INSERT INTO schema_migrations (version) VALUES (\(bind: migration.version))").run()
            }
        }
    }
}
