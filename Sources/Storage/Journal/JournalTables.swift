import SQLKit
import SQLiteNIO

/// A value in a journal row, bound the same way on SQLite and PostgreSQL.
enum JournalValue: Sendable {
    case text(String)
    case integer(Int64)
    case null

    static func text(_ value: String?) -> JournalValue { value.map { .text($0) } ?? .null }
    static func integer(_ value: Int64?) -> JournalValue { value.map { .integer($0) } ?? .null }

    var sqlite: SQLiteData {
        switch self {
        case .text(let text): return .text(text)
        case .integer(let value): return .integer(Int(value))
        case .null: return .null
        }
    }

    func bind(into sql: inout SQLQueryString) {
        switch self {
        case .text(let text): sql.appendInterpolation(bind: text)
        case .integer(let value): sql.appendInterpolation(bind: value)
        case .null: sql.appendInterpolation(unsafeRaw: "NULL")
        }
    }
}

/// One table the journal writes, described once: the inbox row kind routed to it, its columns in the order a row
/// carries them, and what happens to a row that exists already. From this come the SQLite inbox triggers
/// (`sqliteTrigger`) and the PostgreSQL statements (`statement(rows:)`); `EncodedJournal.rows()` fills the values.
struct JournalTable: Sendable {
    enum Write: Sendable {
        /// A new row.
        case insert
        /// A new row, or these columns of the row with the same key.
        case upsert(key: String, update: [String])
        /// The other columns of the row with this key (the row must exist).
        case update(key: String)
    }

    let kind: String
    let table: String
    let columns: [String]
    let write: Write

    /// The INSTEAD OF trigger on `journal_inbox` that writes a row of this kind: column i is `NEW.c<i+1>`.
    var sqliteTrigger: String {
        let values = columns.indices.map { "NEW.c\($0 + 1)" }
        let body: String
        switch write {
        case .update(let key):
            // swift-format-ignore: NeverForceUnwrap
            // (The key is one of the kind's own columns: the tables are fixed at compile time and every kind is tested.)
            let keyValue = values[columns.firstIndex(of: key)!]
            let sets = zip(columns, values).filter { $0.0 != key }.map { "\($0.0) = \($0.1)" }
            body = "UPDATE \(table) SET \(sets.joined(separator: ", ")) WHERE \(key) = \(keyValue);"
        case .insert, .upsert:
            body =
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
                + conflictClause + ";"
        }
        return """
            CREATE TRIGGER journal_inbox_\(kind) INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind = '\(kind)' BEGIN
                \(body)
            END
            """
    }

    var conflictClause: String {
        guard case .upsert(let key, let update) = write else { return "" }
        return " ON CONFLICT (\(key)) DO UPDATE SET "
            + update.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }

    /// The statement that writes `rows` (each with a value per column) without the inbox: PostgreSQL, and SQLite
    /// journals too large for one inbox statement. One multi-row INSERT, or one UPDATE per row.
    func statements(rows: ArraySlice<[JournalValue]>) -> [SQLQueryString] {
        switch write {
        case .update(let key):
            return rows.map { row in
                var sql = SQLQueryString("UPDATE " + table + " SET ")
                var first = true
                for (column, value) in zip(columns, row) where column != key {
                    sql.appendInterpolation(unsafeRaw: (first ? "" : ", ") + column + " = ")
                    value.bind(into: &sql)
                    first = false
                }
                sql.appendInterpolation(unsafeRaw: " WHERE \(key) = ")
                // swift-format-ignore: NeverForceUnwrap
                // (The key is one of the kind's own columns: the tables are fixed at compile time and every kind is tested.)
                row[columns.firstIndex(of: key)!].bind(into: &sql)
                return sql
            }
        case .insert, .upsert:
            var sql = SQLQueryString("INSERT INTO " + table + " (" + columns.joined(separator: ", ") + ") VALUES ")
            for (i, row) in rows.enumerated() {
                sql.appendInterpolation(unsafeRaw: i == 0 ? "(" : ", (")
                for (j, value) in row.enumerated() {
                    if j > 0 { sql.appendInterpolation(unsafeRaw: ", ") }
                    value.bind(into: &sql)
                }
                sql.appendInterpolation(unsafeRaw: ")")
            }
            sql.appendInterpolation(unsafeRaw: conflictClause)
            return [sql]
        }
    }
}

/// The tables one engine step writes, in the order a journal writes them.
enum JournalTables {
    static let order = JournalTable(
        kind: "order", table: "orders",
        columns: [
            "id", "account_id", "client_order_id", "symbol", "status", "is_open", "submitted_at", "updated_at", "body",
        ],
        write: .upsert(key: "id", update: ["status", "is_open", "updated_at", "body"]))
    static let activity = JournalTable(
        kind: "activity", table: "activities",
        columns: ["account_id", "sequence", "time", "kind", "cash_change", "body"], write: .insert)
    static let account = JournalTable(
        kind: "account", table: "accounts", columns: ["id", "state"], write: .update(key: "id"))
    static let notification = JournalTable(
        kind: "notification", table: "notifications",
        columns: ["id", "user_id", "account_id", "kind", "title", "body", "created_at", "read_at"], write: .insert)
    static let rule = JournalTable(
        kind: "rule", table: "queue_rules",
        columns: ["id", "account_id", "status", "created_at", "updated_at", "body"],
        write: .upsert(key: "id", update: ["status", "updated_at", "body"]))
    static let alert = JournalTable(
        kind: "alert", table: "alerts",
        columns: ["id", "user_id", "symbol", "status", "created_at", "updated_at", "body"],
        write: .upsert(key: "id", update: ["status", "updated_at", "body"]))
    static let alertTrigger = JournalTable(
        kind: "alert_trigger", table: "alert_triggers", columns: ["id", "alert_id", "user_id", "time", "body"],
        write: .insert)
    static let random = JournalTable(
        kind: "random", table: "engine_state", columns: ["id", "random_state"],
        write: .upsert(key: "id", update: ["random_state"]))

    static let all = [order, activity, account, notification, rule, alert, alertTrigger, random]

    /// Columns of the inbox (after `kind`): as many as the widest table.
    static let inboxWidth = all.map(\.columns.count).max() ?? 0

    /// The SQLite inbox: a view with `kind` and c1…cN, an INSTEAD OF trigger per table, and one that refuses an
    /// unknown kind.
    static var sqliteInbox: [String] {
        let columns = (1...inboxWidth).map { "NULL AS c\($0)" }.joined(separator: ", ")
        let kinds = all.map { "'\($0.kind)'" }.joined(separator: ", ")
        return ["CREATE VIEW journal_inbox AS SELECT NULL AS kind, \(columns)"] + all.map(\.sqliteTrigger) + [
            """
            CREATE TRIGGER journal_inbox_unknown INSTEAD OF INSERT ON journal_inbox WHEN NEW.kind NOT IN (\(kinds)) BEGIN
                SELECT RAISE(ABORT, 'journal_inbox: unknown row kind');
            END
            """
        ]
    }

    /// What replaces an inbox made by an earlier version (migrations 4 and 5 wrote its SQL by hand).
    static var dropSQLiteInbox: [String] {
        (all.map { "DROP TRIGGER IF EXISTS journal_inbox_\($0.kind)" } + [
            "DROP TRIGGER IF EXISTS journal_inbox_unknown"
        ])
            + ["DROP VIEW IF EXISTS journal_inbox"]
    }
}
