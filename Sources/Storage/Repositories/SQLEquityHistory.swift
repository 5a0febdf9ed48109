import BrokerageModel
import SQLKit
import TradingCore

/// Each account's daily closes (`EquityDay`): what performance and leaderboards read. The SQL of `EquityHistoryRepository`, on SQLite and PostgreSQL.
public struct SQLEquityHistory: EquityHistoryRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }
}

/// Accounts' daily closes (`EquityDay`), the performance history. Amounts are stored as decimal text like every
/// amount in the database; the shares held at each close are kept as JSON so the next day continues from them.
extension SQLEquityHistory {
    /// Inserts or replaces days (one transaction): recomputing a day gives the same row, so two writers agree.
    public func saveEquityDays(_ days: [EquityDay]) async throws {
        guard !days.isEmpty else { return }
        let rows = try days.map { day in
            let symbols = Set(day.holdings.keys).union(day.marks.keys)
            let lines = Dictionary(
                uniqueKeysWithValues: symbols.map {
                    ($0, HeldAtClose(qty: day.holdings[$0] ?? .zero, mark: day.marks[$0]))
                })
            return (day, try Coding.encode(lines))
        }
        try await database.transaction { db in
            for (day, holdings) in rows {
                try await db.raw(
                    """
                    INSERT INTO equity_days (account_id, day, equity, cash, positions_value, flow, dividends, fees,
                        realized_pnl, last_sequence, holdings)
                    VALUES (\(bind: day.accountID.description), \(bind: day.date.description),
                        \(bind: day.equity.description), \(bind: day.cash.description),
                        \(bind: day.positionsValue.description), \(bind: day.flow.description),
                        \(bind: day.dividends.description), \(bind: day.fees.description),
                        \(bind: day.realizedPnL.description), \(bind: day.lastSequence), \(bind: holdings))
                    ON CONFLICT (account_id, day) DO UPDATE SET equity = excluded.equity, cash = excluded.cash,
                        positions_value = excluded.positions_value, flow = excluded.flow, dividends = excluded.dividends,
                        fees = excluded.fees, realized_pnl = excluded.realized_pnl,
                        last_sequence = excluded.last_sequence, holdings = excluded.holdings
                    """
                ).run()
            }
        }
    }

    /// An account's closes from `start` through `end` (inclusive, either open), oldest first. Series reads skip
    /// the shares held (`holdings` and `marks` come back empty) unless `withHoldings`.
    public func equityDays(
        account: AccountID, from start: CivilDate? = nil, through end: CivilDate? = nil, withHoldings: Bool = false
    ) async throws -> [EquityDay] {
        try await database.read { db in
            // A series read leaves the holdings' JSON in the database (the widest column, and unused).
            let columns =
                withHoldings
                ? "*" : "day, equity, cash, positions_value, flow, dividends, fees, realized_pnl, last_sequence"
            var sql = SQLQueryString(
                "SELECT \(unsafeRaw: columns) FROM equity_days WHERE account_id = \(bind: account.description)")
            if let start {
                sql.appendInterpolation(unsafeRaw: " AND day >= ")
                sql.appendInterpolation(bind: start.description)
            }
            if let end {
                sql.appendInterpolation(unsafeRaw: " AND day <= ")
                sql.appendInterpolation(bind: end.description)
            }
            sql.appendInterpolation(unsafeRaw: " ORDER BY day ASC")
            return try await db.raw(sql).all().map {
                try Self.equityDay($0, account: account, withHoldings: withHoldings)
            }
        }
    }

    /// The latest close on or before `date` (the latest of all without one), with its holdings.
    public func lastEquityDay(account: AccountID, onOrBefore date: CivilDate? = nil) async throws -> EquityDay? {
        try await database.read { db in
            var sql = SQLQueryString("SELECT * FROM equity_days WHERE account_id = \(bind: account.description)")
            if let date {
                sql.appendInterpolation(unsafeRaw: " AND day <= ")
                sql.appendInterpolation(bind: date.description)
            }
            sql.appendInterpolation(unsafeRaw: " ORDER BY day DESC LIMIT 1")
            return try await db.raw(sql).first().map { try Self.equityDay($0, account: account, withHoldings: true) }
        }
    }

    /// One share line of a close: the quantity held and the price it was valued at.
    struct HeldAtClose: Codable {
        var qty: Quantity
        var mark: Price?
    }

    static func equityDay(_ row: any SQLRow, account: AccountID, withHoldings: Bool) throws -> EquityDay {
        func amount(_ column: String) throws -> FixedDecimal {
            let text = try row.decode(column: column, as: String.self)
            guard let value = FixedDecimal(text) else { throw StorageError.corrupt("equity_days.\(column): \(text)") }
            return value
        }
        let dayText = try row.decode(column: "day", as: String.self)
        guard let date = CivilDate(dayText) else { throw StorageError.corrupt("equity_days.day: \(dayText)") }
        var holdings: [String: Quantity] = [:]
        var marks: [String: Price] = [:]
        if withHoldings {
            let held = try Coding.decode(
                [String: HeldAtClose].self, try row.decode(column: "holdings", as: String.self))
            for (symbol, line) in held {
                if !line.qty.isZero { holdings[symbol] = line.qty }
                if let mark = line.mark { marks[symbol] = mark }
            }
        }
        return EquityDay(
            accountID: account, date: date, equity: try amount("equity"), cash: try amount("cash"),
            positionsValue: try amount("positions_value"), flow: try amount("flow"),
            dividends: try amount("dividends"), fees: try amount("fees"), realizedPnL: try amount("realized_pnl"),
            lastSequence: try row.decode(column: "last_sequence", as: Int64.self), holdings: holdings, marks: marks)
    }
}
