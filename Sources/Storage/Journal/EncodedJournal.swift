import BrokerageModel
import Foundation
import SQLKit
import SQLiteNIO
import TradingCore

/// One step's rows as JSON, encoded by the caller (in parallel with other callers, outside the writer's
/// critical path). Account snapshots and the random state are left as values: a group commit keeps only the
/// last of each, so they are encoded once per batch.
struct EncodedStep: Sendable {
    var orders: [(Order, String)]
    var entries: [(LedgerEntry, String)]
    var accounts: [Account]
    var notifications: [NotificationRecord]
    var rules: [(QueueRuleRecord, String)]
    var alerts: [(AlertRecord, String)]
    var alertTriggers: [(AlertTriggerRecord, String)]
    var transfers: [(TransferRecord, String)]
    var transferCredits: [TransferCredit]
    var shard: ShardID
    var randomState: SeededGenerator?
    /// The lease epoch the step's writer holds (cluster only).
    var epoch: Int64?
    /// The step's live events, kind and JSON body (cluster only: `Storage+LiveEvents.swift`).
    var live: [(kind: String, body: String)] = []
    /// The node whose live events they are (nil: not on a cluster).
    var liveNode: String?

    init(_ journal: Journal, liveNode: String? = nil) throws {
        shard = journal.shard
        epoch = journal.epoch
        self.liveNode = liveNode
        if liveNode != nil {
            live.reserveCapacity(journal.updates.count + journal.notifications.count)
            for update in journal.updates { live.append(("order", try update.storedJSON())) }
            for n in journal.notifications { live.append(("notification", try Coding.encode(LiveNotification(n)))) }
        }
        orders = journal.orders.map { ($0, $0.storedJSON()) }
        entries = try journal.entries.map { ($0, try Coding.encode($0)) }
        accounts = journal.accounts
        notifications = journal.notifications
        rules = try journal.rules.map { ($0, try Coding.encode($0)) }
        alerts = try journal.alerts.map { ($0, try Coding.encode($0)) }
        alertTriggers = try journal.alertTriggers.map { ($0, try Coding.encode($0)) }
        transfers = try journal.transfers.map { ($0, try Coding.encode($0)) }
        transferCredits = journal.transferCredits
        randomState = journal.randomState
    }
}

/// Steps merged into what one transaction writes (a group commit): the last state of each order and account
/// wins — in a batch of 30 orders on one account the account is encoded once, not 30 times — every activity
/// and notification is kept, and the newest random state of each shard is written.
struct EncodedJournal: Sendable {
    var orders: [(Order, String)] = []
    var entries: [(LedgerEntry, String)] = []
    var snapshots: [(AccountID, String)] = []
    var notifications: [NotificationRecord] = []
    var rules: [(QueueRuleRecord, String)] = []
    var alerts: [(AlertRecord, String)] = []
    var alertTriggers: [(AlertTriggerRecord, String)] = []
    /// Each transfer's last state in the group, and every credit.
    var transfers: [(TransferRecord, String)] = []
    var transferCredits: [TransferCredit] = []
    /// Each shard's newest random state (shard, encoded state).
    var randoms: [(Int, String)] = []
    /// The lease epochs the steps were made under, per shard (a shard appears twice only if it changed hands
    /// between two steps of the group — then one of them is refused).
    var fences: [(shard: ShardID, epoch: Int64)] = []
    /// The steps' live events, in step order, with their shards; and the node that wrote them.
    var live: [(shard: Int, kind: String, body: String)] = []
    var liveNode: String?

    init(merging steps: [EncodedStep]) throws {
        var ruleIndex: [QueueRuleID: Int] = [:]
        var alertIndex: [AlertID: Int] = [:]
        var transferIndex: [TransferID: Int] = [:]
        var orderIndex: [OrderID: Int] = [:]
        var latestAccounts: [Account] = []
        var accountIndex: [AccountID: Int] = [:]
        var randomStates: [ShardID: SeededGenerator] = [:]
        for step in steps {
            for order in step.orders {
                if let i = orderIndex[order.0.id] {
                    orders[i] = order
                } else {
                    orderIndex[order.0.id] = orders.count
                    orders.append(order)
                }
            }
            for account in step.accounts {
                if let i = accountIndex[account.id] {
                    latestAccounts[i] = account
                } else {
                    accountIndex[account.id] = latestAccounts.count
                    latestAccounts.append(account)
                }
            }
            for rule in step.rules {
                if let i = ruleIndex[rule.0.rule.id] {
                    rules[i] = rule
                } else {
                    ruleIndex[rule.0.rule.id] = rules.count
                    rules.append(rule)
                }
            }
            for alert in step.alerts {
                if let i = alertIndex[alert.0.alert.id] {
                    alerts[i] = alert
                } else {
                    alertIndex[alert.0.alert.id] = alerts.count
                    alerts.append(alert)
                }
            }
            for transfer in step.transfers {
                if let i = transferIndex[transfer.0.id] {
                    transfers[i] = transfer
                } else {
                    transferIndex[transfer.0.id] = transfers.count
                    transfers.append(transfer)
                }
            }
            transferCredits += step.transferCredits
            alertTriggers += step.alertTriggers
            entries += step.entries
            notifications += step.notifications
            if let node = step.liveNode {
                liveNode = node
                live += step.live.map { (step.shard.index, $0.kind, $0.body) }
            }
            if let state = step.randomState { randomStates[step.shard] = state }
            if let epoch = step.epoch, !fences.contains(where: { $0.shard == step.shard && $0.epoch == epoch }) {
                fences.append((step.shard, epoch))
            }
        }
        snapshots = try latestAccounts.map { ($0.id, try Coding.encode($0)) }
        randoms = try randomStates.sorted { $0.key < $1.key }.map { ($0.key.index, try Coding.encode($0.value)) }
    }

    /// The journal's rows, table by table (`JournalTables`): each row a value per column of its table.
    func rows() -> [(table: JournalTable, rows: [[JournalValue]])] {
        [
            JournalTables.order.rows(orders), JournalTables.activity.rows(entries),
            JournalTables.account.rows(snapshots), JournalTables.notification.rows(notifications),
            JournalTables.rule.rows(rules), JournalTables.alert.rows(alerts),
            JournalTables.alertTrigger.rows(alertTriggers), JournalTables.transfer.rows(transfers),
            JournalTables.transferCredit.rows(transferCredits), JournalTables.random.rows(randoms),
        ]
    }

    /// Rows one inbox statement may carry (`inboxWidth` + 1 parameters each, under SQLite's limit of 32,766).
    static let inboxRowLimit = 3_000

    /// The whole journal as one `INSERT INTO journal_inbox` (see `Storage.write(_:)`) with its parameters, or nil
    /// when it has more rows than one statement may bind. Each row is its kind, then its table's columns, padded
    /// with NULL to the inbox's width. Parameters are SQLite values already: the statement goes straight to
    /// SQLiteNIO, without SQLKit's per-parameter `Encodable` conversion.
    func inboxStatement() -> (sql: String, binds: [SQLiteData])? {
        let tables = rows()
        let count = tables.reduce(0) { $0 + $1.rows.count }
        guard count > 0, count <= Self.inboxRowLimit else { return nil }
        let width = JournalTables.inboxWidth
        let rowText = "(?" + String(repeating: ", ?", count: width) + ")"
        var sql =
            "INSERT INTO journal_inbox (kind, " + (1...width).map { "c\($0)" }.joined(separator: ", ") + ") VALUES "
        sql.reserveCapacity(sql.utf8.count + count * (rowText.utf8.count + 2))
        var binds: [SQLiteData] = []
        binds.reserveCapacity(count * (width + 1))
        for (table, rows) in tables {
            for row in rows {
                if !binds.isEmpty { sql += ", " }
                sql += rowText
                binds.append(.text(table.kind))
                for value in row { binds.append(value.sqlite) }
                for _ in row.count..<width { binds.append(.null) }
            }
        }
        return (sql, binds)
    }

    /// Rows per statement of a journal written table by table (9 parameters an order row: well under SQLite's
    /// parameter limit).
    static let rowsPerStatement = 100

    /// Parameters one PostgreSQL statement may bind (the protocol counts them in 16 bits: at most 65,535).
    static let postgresBindLimit = 60_000

    /// PostgreSQL: the whole journal as one statement, which commits on its own — its key, a data-modifying `WITH`
    /// per table and one for the live events, and the fence (`journal_fence`) as what it selects — or nil when it
    /// would bind more than `postgresBindLimit` parameters (then `write(to:key:)`, in a transaction).
    ///
    /// One statement is one round trip, where BEGIN, the fence, a statement per table and COMMIT were five or more,
    /// each waiting for the last under the writer's lock. All of it is one atomic commit: the sub-statements share
    /// a snapshot (no two touch the same row: the merge keeps one state per order, account, rule, alert, transfer
    /// and shard), foreign keys are checked at the statement's end, and the fence's FOR SHARE holds a takeover
    /// until the statement has committed, as in a transaction.
    func postgresStatement(key: String) -> SQLQueryString? {
        let tables = rows().filter { !$0.rows.isEmpty }
        let binds = 1 + live.count * 4 + tables.reduce(0) { $0 + $1.rows.count * $1.table.columns.count }
        guard binds <= Self.postgresBindLimit else { return nil }
        var sql = Self.tagging(key)
        for (table, rows) in tables {
            sql.appendInterpolation(unsafeRaw: ", journal_\(table.kind) AS (")
            sql += table.statement(rows: rows[...])
            sql.appendInterpolation(unsafeRaw: ")")
        }
        if let events = liveEventsStatement(live[...]) {
            sql.appendInterpolation(unsafeRaw: ", journal_live AS (")
            sql += events
            sql.appendInterpolation(unsafeRaw: ")")
        }
        sql.appendInterpolation(unsafeRaw: " " + fenceQuery)
        return sql
    }

    /// Writes the journal with one statement per table (and per `rowsPerStatement` rows), inside the caller's
    /// transaction: SQLite journals too large for one inbox statement, and PostgreSQL journals too large for
    /// `postgresStatement`. `key` (PostgreSQL): the commit's key, written to journal_commits by the first
    /// statement — see `Storage.writeTagged`.
    func write(to db: any SQLDatabase, key: String? = nil) async throws {
        if !fences.isEmpty { try await db.raw(SQLQueryString(fenceQuery)).run() }
        var untagged = key
        for (table, rows) in rows() {
            for start in stride(from: 0, to: rows.count, by: Self.rowsPerStatement) {
                let statement = table.statement(rows: rows[start..<min(start + Self.rowsPerStatement, rows.count)])
                if let key = untagged {
                    try await db.raw(Self.tagging(key) + statement).run()
                    untagged = nil
                } else {
                    try await db.raw(statement).run()
                }
            }
        }
        if let key = untagged {
            try await db.raw("INSERT INTO journal_commits (key) VALUES (\(bind: key))").run()
        }
        for start in stride(from: 0, to: live.count, by: Self.liveEventsPerStatement) {
            if let events = liveEventsStatement(live[start..<min(start + Self.liveEventsPerStatement, live.count)]) {
                try await db.raw(events).run()
            }
        }
    }

    /// The `WITH` that writes a commit's key in front of one of its statements.
    static func tagging(_ key: String) -> SQLQueryString {
        "WITH journal_key AS (INSERT INTO journal_commits (key) VALUES (\(bind: key))) "
    }

    /// The fence (cluster): in the commit, each shard's lease must still have the epoch its steps were made under
    /// (`journal_fence`, migration 20, refuses with SQLSTATE PTF01: `StorageError.fence(from:)`). It locks the
    /// leases `FOR SHARE`, which lets one owner's commits run together but makes a takeover (which updates the
    /// lease row) wait until they end, and a commit that waited behind a takeover reads the new epoch — so nothing
    /// from the old owner commits after another node took the shard (Temporal checks its range id the same way).
    /// Shards in ascending order: every commit locks leases in one order.
    var fenceQuery: String {
        guard !fences.isEmpty else { return "SELECT 0" }
        let sorted = fences.sorted { ($0.shard.index, $0.epoch) < ($1.shard.index, $1.epoch) }
        let shards = sorted.map { String($0.shard.index) }.joined(separator: ", ")
        let epochs = sorted.map { String($0.epoch) }.joined(separator: ", ")
        return "SELECT journal_fence(ARRAY[\(shards)]::INTEGER[], ARRAY[\(epochs)]::BIGINT[])"
    }
}
