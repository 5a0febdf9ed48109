// swift-format-ignore-file
// (SQL kept exactly as the migrations ran it.)

/// The SQLite journal inbox as migrations 7 and 9 created it, frozen. A migration says what it did when it was
/// written, never what today's table description (`JournalTables`) generates: a database created today and one
/// migrated over the years run the same statements. A change to a journal table needs a new migration with its own
/// inbox here; `JournalTablesTests` checks that the newest one is what `JournalTables` generates, so a change
/// without its migration fails the tests.
enum JournalInboxHistory {
    /// Migration 7: the generated inbox replaces the hand-written one of migrations 4 and 5.
    static let migration7: [String] =
        drop(["order", "activity", "account", "notification", "rule", "random"]) + [view]
        + [order, activity, account, notification, rule, random]
        + [unknown("'order', 'activity', 'account', 'notification', 'rule', 'random'")]

    /// Migration 9: price alerts and their triggers join the journal.
    static let migration9: [String] =
        drop(["order", "activity", "account", "notification", "rule", "alert", "alert_trigger", "random"]) + [view]
        + [order, activity, account, notification, rule, alert, alertTrigger, random]
        + [unknown("'order', 'activity', 'account', 'notification', 'rule', 'alert', 'alert_trigger', 'random'")]

    /// Migration 17: transfers between a user's accounts and their credits join the journal.
    static let migration17: [String] =
        drop(["order", "activity", "account", "notification", "rule", "alert", "alert_trigger", "transfer", "transfer_credit", "random"]) + [view]
        + [order, activity, account, notification, rule, alert, alertTrigger, transfer, transferCredit, random]
        + [unknown("'order', 'activity', 'account', 'notification', 'rule', 'alert', 'alert_trigger', 'transfer', 'transfer_credit', 'random'")]

    /// The inbox a database has after the newest migration that wrote one.
    static let latest = migration17

    static func drop(_ kinds: [String]) -> [String] {
        kinds.map { "DROP TRIGGER IF EXISTS journal_inbox_\($0)" } + [
            "DROP TRIGGER IF EXISTS journal_inbox_unknown", "DROP VIEW IF EXISTS journal_inbox",
        ]
    }

    static func unknown(_ kinds: String) -> String {
        """
        CREATE TRIGGER journal_inbox_unknown INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind NOT IN (\(kinds)) BEGIN
            SELECT RAISE(ABORT, 'journal_inbox: unknown row kind');
        END
        """
    }

    static let view = "CREATE VIEW journal_inbox AS SELECT NULL AS kind, NULL AS c1, NULL AS c2, NULL AS c3, NULL AS c4, NULL AS c5, NULL AS c6, NULL AS c7, NULL AS c8, NULL AS c9"

    static let order =
        """
        CREATE TRIGGER journal_inbox_order INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'order' BEGIN
            INSERT INTO orders (id, account_id, client_order_id, symbol, status, is_open, submitted_at, updated_at, body) VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6, NEW.c7, NEW.c8, NEW.c9) ON CONFLICT (id) DO UPDATE SET status = excluded.status, is_open = excluded.is_open, updated_at = excluded.updated_at, body = excluded.body;
        END
        """

    static let activity =
        """
        CREATE TRIGGER journal_inbox_activity INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'activity' BEGIN
            INSERT INTO activities (account_id, sequence, time, kind, cash_change, body) VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6);
        END
        """

    static let account =
        """
        CREATE TRIGGER journal_inbox_account INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'account' BEGIN
            UPDATE accounts SET state = NEW.c2 WHERE id = NEW.c1;
        END
        """

    static let notification =
        """
        CREATE TRIGGER journal_inbox_notification INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'notification' BEGIN
            INSERT INTO notifications (id, user_id, account_id, kind, title, body, created_at, read_at) VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6, NEW.c7, NEW.c8);
        END
        """

    static let rule =
        """
        CREATE TRIGGER journal_inbox_rule INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'rule' BEGIN
            INSERT INTO queue_rules (id, account_id, status, created_at, updated_at, body) VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6) ON CONFLICT (id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at, body = excluded.body;
        END
        """

    static let alert =
        """
        CREATE TRIGGER journal_inbox_alert INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'alert' BEGIN
            INSERT INTO alerts (id, user_id, symbol, status, created_at, updated_at, body) VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6, NEW.c7) ON CONFLICT (id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at, body = excluded.body;
        END
        """

    static let alertTrigger =
        """
        CREATE TRIGGER journal_inbox_alert_trigger INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'alert_trigger' BEGIN
            INSERT INTO alert_triggers (id, alert_id, user_id, time, body) VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5);
        END
        """

    static let transfer =
        """
        CREATE TRIGGER journal_inbox_transfer INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'transfer' BEGIN
            INSERT INTO transfers (id, user_id, from_account, to_account, to_shard, status, created_at, client_transfer_id, body) VALUES (NEW.c1, NEW.c2, NEW.c3, NEW.c4, NEW.c5, NEW.c6, NEW.c7, NEW.c8, NEW.c9) ON CONFLICT (id) DO UPDATE SET status = excluded.status, body = excluded.body;
        END
        """

    static let transferCredit =
        """
        CREATE TRIGGER journal_inbox_transfer_credit INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'transfer_credit' BEGIN
            INSERT INTO transfer_credits (transfer_id, account_id, time) VALUES (NEW.c1, NEW.c2, NEW.c3);
        END
        """

    static let random =
        """
        CREATE TRIGGER journal_inbox_random INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = 'random' BEGIN
            INSERT INTO engine_state (id, random_state) VALUES (NEW.c1, NEW.c2) ON CONFLICT (id) DO UPDATE SET random_state = excluded.random_state;
        END
        """
}
