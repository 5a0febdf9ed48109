import ArgumentParser
import Foundation
import PapertradeKit

/// Reading a class's results in the terminal: progress on assignments, the trade journal, the rankings and one
/// student's report. A teacher sees the class; a student sees their own.
extension ClassCommand {
    struct Progress: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Each student's progress on each assignment: done, the mark, and what is still missing.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String

        func run() async throws {
            try await clientCommand {
                let progress = try await options.client(needsUser: true).progress(classID)
                if options.json { return try options.printJSON(progress) }
                var rows: [[String]] = []
                for student in progress {
                    for a in student.assignments {
                        rows.append([
                            student.student.username, a.title, ClassCommand.state(a), a.mark ?? "",
                            a.checks.filter { !$0.done }.map(\.detail).joined(separator: "; "),
                        ])
                    }
                }
                if rows.isEmpty { return print("No assignments yet.") }
                print(Terminal.table(["STUDENT", "ASSIGNMENT", "STATE", "MARK", "MISSING"], rows))
            }
        }
    }

    struct Journal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The trade journal, newest first: each order with its student and note.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String
        @Option(help: "Only this student's orders.") var student: String?

        func run() async throws {
            try await clientCommand {
                let lines = try await options.client(needsUser: true).classJournal(classID)
                    .filter { student == nil || $0.username == student }
                if options.json { return try options.printJSON(lines) }
                if lines.isEmpty { return print("No orders yet.") }
                print(
                    Terminal.table(
                        ["TIME (UTC)", "STUDENT", "ORDER", "STATUS", "NOTE"],
                        lines.map { line in
                            let o = line.order
                            let size = o.qty.map { Terminal.amount($0) } ?? "$" + Terminal.amount(o.notional)
                            return [
                                Terminal.time(o.submittedAt ?? o.createdAt),
                                line.team.map { "\($0) (team)" } ?? line.username,
                                "\(o.side.rawValue) \(size) \(o.symbol) \(o.type.rawValue)", o.status.rawValue,
                                o.note ?? "",
                            ]
                        }))
            }
        }
    }

    struct Rankings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Return, Sharpe, Sortino, drawdown, volatility, alpha, beta and Treynor of every student.",
            discussion: "--definitions prints what each figure means.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String
        @Flag(help: "Print each figure's definition after the table.") var definitions = false

        func run() async throws {
            try await clientCommand {
                let rankings = try await options.client(needsUser: true).rankings(classID)
                if options.json { return try options.printJSON(rankings) }
                if rankings.students.isEmpty { return print("No students yet.") }
                func ratio(_ value: Decimal?) -> String {
                    guard var value else { return "-" }
                    var rounded = Decimal()
                    NSDecimalRound(&rounded, &value, 2, .plain)
                    return ExactDecimal.text(rounded)
                }
                print(
                    Terminal.table(
                        [
                            "#", "STUDENT", "EQUITY", "RETURN", "SHARPE", "SORTINO", "MAX DD", "VOL", "ALPHA", "BETA",
                            "TREYNOR", "DAYS", "TRADES",
                        ],
                        rankings.students.map { s in
                            [
                                "\(s.rank)", s.team.map { "\($0): \(s.members.joined(separator: ", "))" } ?? s.username,
                                Terminal.amount(s.equity),
                                Terminal.percent(fraction: s.return),
                                ratio(s.sharpe), ratio(s.sortino), Terminal.percent(fraction: s.maxDrawdown),
                                Terminal.percent(fraction: s.volatility), Terminal.percent(fraction: s.alpha),
                                ratio(s.beta), Terminal.percent(fraction: s.treynor), "\(s.days)", "\(s.trades)",
                            ]
                        }, right: Set(2...12)))
                if definitions {
                    print("")
                    print(Terminal.pairs(rankings.definitions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
                }
            }
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One student's report: equity, holdings, assignments, recent orders with notes and closes.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String
        @Argument(help: "The student's username.") var student: String
        @Option(help: "How many of the latest orders and closes to show.") var last = 10

        func validate() throws {
            guard last > 0 else { throw ValidationError("--last must be at least 1") }
        }

        func run() async throws {
            try await clientCommand {
                let report = try await options.client(needsUser: true).studentReport(classID, student: student)
                if options.json { return try options.printJSON(report) }
                let currency = report.currency ?? ""
                print("\(report.student.displayName) (\(report.student.username))")
                print(
                    Terminal.pairs([
                        ("Equity", "\(Terminal.amount(report.equity)) \(currency)"),
                        ("Cash", "\(Terminal.amount(report.cash)) \(currency)"),
                        ("Last log-in", report.student.lastLoginAt.map { Terminal.time($0) + " UTC" } ?? "never"),
                    ]))
                if let positions = report.positions, !positions.isEmpty {
                    print("")
                    print(
                        Terminal.table(
                            ["SYMBOL", "QTY", "AVG COST", "PRICE", "VALUE", "P&L"],
                            positions.map {
                                [
                                    $0.symbol, Terminal.amount($0.qty), Terminal.amount($0.avgEntryPrice),
                                    Terminal.amount($0.currentPrice), Terminal.amount($0.marketValue),
                                    Terminal.signed($0.unrealizedPL),
                                ]
                            }, right: [1, 2, 3, 4, 5]))
                }
                if !report.assignments.isEmpty {
                    print("")
                    print(
                        Terminal.table(
                            ["ASSIGNMENT", "DUE (UTC)", "STATE", "MARK"],
                            report.assignments.map {
                                [$0.title, Terminal.time($0.due), ClassCommand.state($0), $0.mark ?? ""]
                            }))
                }
                if !report.orders.isEmpty {
                    print("")
                    print(
                        Terminal.table(
                            ["TIME (UTC)", "ORDER", "STATUS", "NOTE"],
                            report.orders.prefix(last).map { o in
                                let size = o.qty.map { Terminal.amount($0) } ?? "$" + Terminal.amount(o.notional)
                                return [
                                    Terminal.time(o.submittedAt ?? o.createdAt),
                                    "\(o.side.rawValue) \(size) \(o.symbol)", o.status.rawValue, o.note ?? "",
                                ]
                            }))
                }
                if !report.closes.isEmpty {
                    print("")
                    print(
                        Terminal.table(
                            ["CLOSE", "EQUITY"],
                            report.closes.suffix(last).map { [$0.date, Terminal.amount($0.equity)] },
                            right: [1]))
                }
            }
        }
    }

    /// An assignment's state in a word: done, or not done (overdue past its due time).
    static func state(_ progress: AssignmentProgress) -> String {
        if progress.done { return "done" }
        return progress.due < Date() ? "overdue" : "not done"
    }
}
