import BrokerageModel
import SQLKit
import SQLiteNIO
import TradingCore

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

/// One table the journal writes: the inbox row kind routed to it, its columns in the order a row carries them, and
/// what happens to a row that exists already. From this come the SQLite inbox triggers (`sqliteTrigger`) and the
/// PostgreSQL statements (`statement(rows:)`). It is made from a `JournalRows` description, where each column's name
/// sits next to the value it takes from the journal.
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
    let types: [JournalType]
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
    /// journals too large for one inbox statement. A multi-row INSERT, or one UPDATE joined to the rows' VALUES
    /// (whose columns both databases name column1, column2, …).
    func statement(rows: ArraySlice<[JournalValue]>) -> SQLQueryString {
        var sql: SQLQueryString
        switch write {
        case .update(let key):
            let sets = columns.enumerated().filter { $0.element != key }.map {
                "\($0.element) = v.column\($0.offset + 1)"
            }
            // swift-format-ignore: NeverForceUnwrap
            // (The key is one of the kind's own columns: the tables are fixed at compile time and every kind is tested.)
            let keyColumn = columns.firstIndex(of: key)! + 1
            sql = SQLQueryString("UPDATE " + table + " SET " + sets.joined(separator: ", ") + " FROM (")
            appendValues(rows, to: &sql)
            sql.appendInterpolation(unsafeRaw: ") AS v WHERE \(table).\(key) = v.column\(keyColumn)")
        case .insert, .upsert:
            sql = SQLQueryString("INSERT INTO " + table + " (" + columns.joined(separator: ", ") + ") ")
            appendValues(rows, to: &sql)
            sql.appendInterpolation(unsafeRaw: conflictClause)
        }
        return sql
    }

    /// `VALUES (…), (…)` with each row's values bound.
    private func appendValues(_ rows: ArraySlice<[JournalValue]>, to sql: inout SQLQueryString) {
        for (i, row) in rows.enumerated() {
            sql.appendInterpolation(unsafeRaw: i == 0 ? "VALUES (" : ", (")
            for (j, value) in row.enumerated() {
                if j > 0 { sql.appendInterpolation(unsafeRaw: ", ") }
                value.bind(into: &sql)
            }
            sql.appendInterpolation(unsafeRaw: ")")
        }
    }
}

/// What a journal column holds (PostgreSQL binds a column of a journal as an array of its type).
enum JournalType: Sendable {
    case text, integer
}

/// One column of a journal table: its name, its type and how a journal row gives its value, described together so
/// a column cannot be named in one place and filled in another.
struct JournalColumn<Row>: Sendable {
    let name: String
    let type: JournalType
    let value: @Sendable (Row) -> JournalValue

    static func text(_ name: String, _ value: @escaping @Sendable (Row) -> String?) -> Self {
        Self(name: name, type: .text) { .text(value($0)) }
    }

    static func integer(_ name: String, _ value: @escaping @Sendable (Row) -> Int64?) -> Self {
        Self(name: name, type: .integer) { .integer(value($0)) }
    }
}

/// A journal table and how each of its rows is written from a value of the journal (`Row`): the one description
/// of the table's names and values. `table` feeds the SQL; `rows(_:)` the values.
struct JournalRows<Row>: Sendable {
    let table: JournalTable
    let columns: [JournalColumn<Row>]

    init(kind: String, table: String, write: JournalTable.Write, columns: [JournalColumn<Row>]) {
        self.table = JournalTable(
            kind: kind, table: table, columns: columns.map(\.name), types: columns.map(\.type), write: write)
        self.columns = columns
    }

    /// Each item's values, in the table's column order.
    func rows(_ items: [Row]) -> (table: JournalTable, rows: [[JournalValue]]) {
        (table, items.map { item in columns.map { $0.value(item) } })
    }
}

/// The tables one engine step writes, in the order a journal writes them, each column named beside its value.
enum JournalTables {
    static let order = JournalRows<(Order, String)>(
        kind: "order", table: "orders", write: .upsert(key: "id", update: ["status", "is_open", "updated_at", "body"]),
        columns: [
            .text("id") { $0.0.id.description }, .text("account_id") { $0.0.accountID.description },
            .text("client_order_id") { $0.0.clientOrderID.text }, .text("symbol") { $0.0.symbol },
            .text("status") { $0.0.status.rawValue }, .integer("is_open") { $0.0.status.isOpen ? 1 : 0 },
            .integer("submitted_at") { $0.0.submittedAt.nanoseconds },
            .integer("updated_at") { $0.0.updatedAt.nanoseconds }, .text("body") { $0.1 },
        ])
    static let activity = JournalRows<(LedgerEntry, String)>(
        kind: "activity", table: "activities", write: .insert,
        columns: [
            .text("account_id") { $0.0.accountID.description }, .integer("sequence") { $0.0.sequence },
            .integer("time") { $0.0.time.nanoseconds }, .text("kind") { $0.0.kind.name },
            .text("cash_change") { $0.0.cashChange.description }, .text("body") { $0.1 },
        ])
    static let account = JournalRows<(AccountID, String)>(
        kind: "account", table: "accounts", write: .update(key: "id"),
        columns: [.text("id") { $0.0.description }, .text("state") { $0.1 }])
    static let notification = JournalRows<NotificationRecord>(
        kind: "notification", table: "notifications", write: .insert,
        columns: [
            .text("id") { $0.id }, .text("user_id") { $0.userID.text },
            .text("account_id") { $0.accountID?.description }, .text("kind") { $0.kind },
            .text("title") { $0.title }, .text("body") { $0.body },
            .integer("created_at") { $0.createdAt.nanoseconds },
            .integer("read_at") { $0.readAt?.nanoseconds },
        ])
    static let rule = JournalRows<(QueueRuleRecord, String)>(
        kind: "rule", table: "queue_rules", write: .upsert(key: "id", update: ["status", "updated_at", "body"]),
        columns: [
            .text("id") { $0.0.rule.id.description },
            .text("account_id") { $0.0.rule.accountID.description },
            .text("status") { $0.0.status.rawValue },
            .integer("created_at") { $0.0.rule.createdAt.nanoseconds },
            .integer("updated_at") { $0.0.updatedAt.nanoseconds }, .text("body") { $0.1 },
        ])
    static let alert = JournalRows<(AlertRecord, String)>(
        kind: "alert", table: "alerts", write: .upsert(key: "id", update: ["status", "updated_at", "body"]),
        columns: [
            .text("id") { $0.0.alert.id.description }, .text("user_id") { $0.0.userID },
            .text("symbol") { $0.0.alert.symbol }, .text("status") { $0.0.status.rawValue },
            .integer("created_at") { $0.0.alert.createdAt.nanoseconds },
            .integer("updated_at") { $0.0.updatedAt.nanoseconds }, .text("body") { $0.1 },
        ])
    static let alertTrigger = JournalRows<(AlertTriggerRecord, String)>(
        kind: "alert_trigger", table: "alert_triggers", write: .insert,
        columns: [
            .text("id") { $0.0.id }, .text("alert_id") { $0.0.alertID.description },
            .text("user_id") { $0.0.userID }, .integer("time") { $0.0.time.nanoseconds },
            .text("body") { $0.1 },
        ])
    static let transfer = JournalRows<(TransferRecord, String)>(
        kind: "transfer", table: "transfers",
        write: .upsert(key: "id", update: ["status", "body"]),
        columns: [
            .text("id") { $0.0.id.description }, .text("user_id") { $0.0.userID.text },
            .text("from_account") { $0.0.from.account.description },
            .text("to_account") { $0.0.to.account.description },
            .integer("to_shard") { Int64($0.0.toShard) }, .text("status") { $0.0.status.rawValue },
            .integer("created_at") { $0.0.createdAt.nanoseconds },
            .text("client_transfer_id") { $0.0.clientTransferID }, .text("body") { $0.1 },
        ])
    /// A transfer's credit: the key is the transfer's id, so a second credit of one transfer cannot commit.
    static let transferCredit = JournalRows<TransferCredit>(
        kind: "transfer_credit", table: "transfer_credits", write: .insert,
        columns: [
            .text("transfer_id") { $0.transferID.description },
            .text("account_id") { $0.account.description }, .integer("time") { $0.time.nanoseconds },
        ])
    /// Each shard's random state (the row's id is the shard's index).
    static let random = JournalRows<(Int, String)>(
        kind: "random", table: "engine_state", write: .upsert(key: "id", update: ["random_state"]),
        columns: [.integer("id") { Int64($0.0) }, .text("random_state") { $0.1 }])

    static let all = [
        order.table, activity.table, account.table, notification.table, rule.table, alert.table, alertTrigger.table,
        transfer.table, transferCredit.table, random.table,
    ]
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
