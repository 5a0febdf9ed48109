import BrokerageModel
import Foundation
import SQLKit
import Testing
import TradingCore

@testable import Storage

@Suite("The journal's tables: described once, migrated frozen")
struct JournalTablesTests {
    @Test("the newest migration's inbox is what the table descriptions generate: a changed table needs a migration")
    func newestInboxMatchesDescriptions() {
        #expect(JournalInboxHistory.latest == JournalTables.dropSQLiteInbox + JournalTables.sqliteInbox)
        let migrated = Storage.migrations.flatMap(\.statements)
            .filter { $0.contains("CREATE TRIGGER journal_inbox_") }
            .map { $0.replacingOccurrences(of: Storage.sqliteOnlyMarker, with: "") }
        #expect(
            Array(migrated.suffix(JournalTables.all.count + 1)) == Array(JournalTables.sqliteInbox.dropFirst()),
            "the last inbox the migrations create is today's")
    }

    @Test(
        "every column a journal table names exists in the migrated database, on SQLite and PostgreSQL",
        arguments: Backend.available)
    func columnsExist(_ backend: Backend) async throws {
        try await withStorage(backend) { storage in
            for table in JournalTables.all {
                let row = try await storage.read { db in
                    try await db.raw(
                        SQLQueryString("SELECT \(table.columns.joined(separator: ", ")) FROM \(table.table) LIMIT 1")
                    ).all()
                }
                #expect(row.isEmpty, "\(table.table) answers a query of every column the journal writes")
            }
        }
    }
}
