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
        orders = journal.orders.map { ($0, $0.storedJSON()) }
        if liveNode != nil {
            live.reserveCapacity(journal.updates.count + journal.notifications.count)
            for update in journal.updates {
                // An update usually carries the state the step stores: its JSON is made once.
                let stored = orders.first { $0.0.id == update.order.id && $0.0 == update.order }?.1
                live.append(("order", try update.storedJSON(orderJSON: stored)))
            }
            for n in journal.notifications { live.append(("notification", try Coding.encode(LiveNotification(n)))) }
        }
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

    /// Writes the journal with one statement per table (and per `rowsPerStatement` rows), inside the caller's
    /// transaction: SQLite journals too large for one inbox statement. (PostgreSQL writes every journal with one
    /// statement: `PostgresJournalStatement`. SQLite serves no cluster, so there are no fences or live events here.)
    func write(to db: any SQLDatabase) async throws {
        for (table, rows) in rows() {
            for start in stride(from: 0, to: rows.count, by: Self.rowsPerStatement) {
                try await db.raw(table.statement(rows: rows[start..<min(start + Self.rowsPerStatement, rows.count)]))
                    .run()
            }
        }
    }
}
