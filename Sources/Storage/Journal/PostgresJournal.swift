import NIOCore
import PostgresNIO

/// PostgreSQL: a journal commit as one prepared statement that commits on its own — the commit's key, a data-modifying
/// `WITH` per journal table, one for the live events, and the fence (`journal_fence`, migration 20) as what it
/// selects. Each table's rows are bound column by column as arrays and spread back into rows with `unnest`, so the
/// statement's text never changes: PostgreSQL parses and plans it once per connection, whatever the group's size.
///
/// Measured on the load benchmark (one node, 64 connections, 2 cores): BEGIN, the fence, a statement per table and
/// COMMIT — five round trips or more under the writer's lock — placed 5,166 orders/s (13% of /healthz); one statement
/// with the rows as VALUES, 8,105 (21%), with PostgreSQL then spending most of its time parsing and planning a new
/// text of ~300 parameters per group; this statement, see docs/PERFORMANCE.md.
///
/// All of it is one atomic commit: the sub-statements share a snapshot (no two touch the same row: the merge keeps
/// one state per order, account, rule, alert, transfer and shard), foreign keys are checked at the statement's end,
/// and the fence's FOR SHARE holds a takeover until the statement has committed, as it did in a transaction.
struct PostgresJournalStatement: PostgresPreparedStatement {
    typealias Row = Int

    static let name = "papertrade_journal"
    static let sql = layout.sql
    static let bindingDataTypes = layout.types

    let journal: EncodedJournal
    /// The commit's key, written to journal_commits (`Storage.writeTagged`).
    let key: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: Self.bindingDataTypes.count)
        bindings.append(key)
        for (table, rows) in journal.rows() {
            for (column, type) in table.types.enumerated() {
                bindings.append(JournalArray(type: type, values: rows.map { $0[column] }))
            }
        }
        bindings.append(journal.liveNode ?? "")
        bindings.append(JournalArray(type: .integer, values: journal.live.map { .integer(Int64($0.shard)) }))
        bindings.append(JournalArray(type: .text, values: journal.live.map { .text($0.kind) }))
        bindings.append(JournalArray(type: .text, values: journal.live.map { .text($0.body) }))
        // Shards in ascending order: every commit locks leases in one order.
        let fences = journal.fences.sorted { ($0.shard.index, $0.epoch) < ($1.shard.index, $1.epoch) }
        bindings.append(JournalArray(type: .integer, values: fences.map { .integer(Int64($0.shard.index)) }))
        bindings.append(JournalArray(type: .integer, values: fences.map { .integer($0.epoch) }))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int { try row.decode(Int.self) }

    /// The statement's text and its parameters' types, from the table descriptions (`JournalTables.all`), in the
    /// order `makeBindings` binds them.
    static let layout: (sql: String, types: [PostgresDataType]) = {
        var types: [PostgresDataType] = []
        func parameter(_ type: JournalType) -> String {
            types.append(type == .text ? .textArray : .int8Array)
            return "$\(types.count)::" + (type == .text ? "TEXT[]" : "BIGINT[]")
        }
        types.append(.text)
        var parts = ["journal_key AS (INSERT INTO journal_commits (key) VALUES ($1::TEXT))"]
        for table in JournalTables.all {
            let columns = table.columns.joined(separator: ", ")
            let arrays = table.types.map(parameter).joined(separator: ", ")
            let write: String
            switch table.write {
            case .insert, .upsert:
                write = "INSERT INTO \(table.table) (\(columns)) SELECT * FROM unnest(\(arrays))" + table.conflictClause
            case .update(let key):
                let sets = table.columns.filter { $0 != key }.map { "\($0) = v.\($0)" }.joined(separator: ", ")
                write =
                    "UPDATE \(table.table) SET \(sets) FROM unnest(\(arrays)) AS v(\(columns)) "
                    + "WHERE \(table.table).\(key) = v.\(key)"
            }
            parts.append("journal_\(table.kind) AS (\(write))")
        }
        types.append(.text)
        let node = "$\(types.count)::TEXT"
        let events = [JournalType.integer, .text, .text].map(parameter).joined(separator: ", ")
        parts.append(
            "journal_live AS (INSERT INTO live_events (shard, node, kind, created_at, body) "
                + "SELECT e.shard, \(node), e.kind, \(Storage.databaseNow), e.body "
                + "FROM unnest(\(events)) WITH ORDINALITY AS e(shard, kind, body, n) ORDER BY e.n)")
        let fence = [JournalType.integer, .integer].map(parameter).joined(separator: ", ")
        return ("WITH " + parts.joined(separator: ",\n") + "\nSELECT journal_fence(\(fence)) AS fenced", types)
    }()
}

/// One column of a journal's rows as a PostgreSQL array (text[] or bigint[]), NULLs included, in the binary form.
struct JournalArray: PostgresDynamicTypeEncodable {
    let type: JournalType
    let values: [JournalValue]

    var psqlType: PostgresDataType { type == .text ? .textArray : .int8Array }
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        let hasNull = values.contains { if case .null = $0 { true } else { false } }
        buffer.writeInteger(values.isEmpty ? 0 : 1, as: Int32.self) // dimensions
        buffer.writeInteger(hasNull ? 1 : 0, as: Int32.self)
        buffer.writeInteger((type == .text ? PostgresDataType.text : .int8).rawValue)
        guard !values.isEmpty else { return }
        buffer.writeInteger(Int32(values.count))
        buffer.writeInteger(1, as: Int32.self) // lower bound
        for value in values {
            switch value {
            case .null:
                buffer.writeInteger(-1, as: Int32.self)
            case .text(let text):
                buffer.writeInteger(Int32(text.utf8.count))
                buffer.writeString(text)
            case .integer(let number):
                buffer.writeInteger(8, as: Int32.self)
                buffer.writeInteger(number)
            }
        }
    }
}
