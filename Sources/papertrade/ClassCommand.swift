import ArgumentParser
import Foundation
import PapertradeKit

/// `papertrade class create|list|roster|team|assign|edit|unassign|mark|progress|journal|rankings|report|gradebook`: what a
/// teacher scripts against a running server, as a user (each command logs in with the username and password first).
/// The commands that read a class's results are in ClassCommand+Results.swift.
struct ClassCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "class", abstract: "Make classes, import rosters, set assignments and export the grade book.",
        subcommands: [
            Create.self, List.self, Roster.self, Team.self, Assign.self, Edit.self, Unassign.self, Mark.self,
            Progress.self, Journal.self, Rankings.self, Report.self, Gradebook.self,
        ])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a class; prints its id and the code students join with.",
            discussion: """
                Rules are those of papertrade game create (--rule name=value). Example:
                papertrade class create "Econ 101" --cash 50000 --journal --rule max_position_percent=25
                """)

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's name.") var name: String
        @Option(help: "Starting cash of every student.") var cash = "100000"
        @Option(help: "us or cn.") var market = "us"
        @Flag(help: "Every order needs a journal note (why the student trades).") var journal = false
        @Option(help: "Start (RFC 3339); default now.") var starts: String?
        @Option(help: "End (RFC 3339); default never.") var ends: String?
        @Option(help: "A rule, name=value (repeatable).") var rule: [String] = []

        func settings() throws -> ClassSettings {
            guard let startingCash = ExactDecimal.parse(cash) else { throw ValidationError("--cash must be a number") }
            func time(_ text: String?, _ flag: String) throws -> Date? {
                guard let text else { return nil }
                guard let date = ServerTime.parse(text) else {
                    throw ValidationError("\(flag) must be an RFC 3339 time")
                }
                return date
            }
            return ClassSettings(
                game: GameSettings(
                    name: name, market: Market(rawValue: market), startingCash: startingCash, isPrivate: true,
                    startsAt: try time(starts, "--starts"), endsAt: try time(ends, "--ends"),
                    rules: try Game.rules(rule)),
                requireJournal: journal)
        }

        func validate() throws { _ = try settings() }

        func run() async throws {
            try await clientCommand {
                let made = try await options.client(needsUser: true).createClass(try settings())
                if options.json { return try options.printJSON(made) }
                print("Created \(made.name): id \(made.id)")
                print("Join code: \(made.joinCode ?? "?")\(made.requireJournal ? "   (journal notes required)" : "")")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The classes you teach or study in.")

        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await clientCommand {
                let classes = try await options.client(needsUser: true).classes()
                if options.json { return try options.printJSON(classes) }
                if classes.isEmpty { print("You are in no class.") }
                for c in classes {
                    print(
                        [c.id, c.name, c.role, "\(c.students) students", c.joinCode.map { "code \($0)" } ?? ""]
                            .filter { !$0.isEmpty }.joined(separator: "  "))
                }
            }
        }
    }

    struct Roster: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import students from a CSV file (username,display_name[,email]); prints each one's password.",
            discussion: """
                The passwords are shown this once; students change them at their first log-in. A duplicate, invalid \
                or taken username refuses the whole file, naming its lines: nothing is created. Without a file, lists \
                the roster.
                """)

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String
        @Argument(help: "The CSV file to import.") var file: String?

        func run() async throws {
            try await clientCommand {
                let client = try await options.client(needsUser: true)
                guard let file else {
                    let roster = try await client.roster(classID)
                    if options.json { return try options.printJSON(roster) }
                    print(
                        Terminal.table(
                            ["USERNAME", "NAME", "EMAIL", "TEAM", "ACCOUNT"],
                            roster.map {
                                [
                                    $0.username, $0.displayName, $0.email ?? "", $0.team ?? "",
                                    $0.teamAccountID ?? $0.accountID,
                                ]
                            }))
                    return
                }
                let text: String
                do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                    throw ValidationError("cannot read \(file): \(error.localizedDescription)")
                }
                let students = try await client.importRoster(classID, csv: text)
                if options.json { return try options.printJSON(students) }
                print("Imported \(students.count) students. Hand out these passwords (shown once):")
                print(
                    Terminal.table(
                        ["USERNAME", "NAME", "PASSWORD"],
                        students.map { [$0.username, $0.displayName, $0.initialPassword] }))
            }
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an assignment, checked from each student's trades.",
            discussion: """
                Checks (repeatable --check): trades=N, order_type=limit,stop,…, holdings=N, sectors=N, \
                max_position=PERCENT, journal, beat_benchmark, task=TEXT. Example:
                papertrade class assign CLASS "Week 1" --due 2027-01-15T21:00:00Z --check trades=3 \
                --check order_type=stop,stop_limit,trailing_stop --check journal
                """)

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String
        @Argument(help: "The assignment's title.") var title: String
        @Option(help: "Due time (RFC 3339).") var due: String
        @Option(help: "A check (repeatable).") var check: [String] = []

        func checks() throws -> [Assignment.Check] {
            guard !check.isEmpty else { throw ValidationError("name at least one --check") }
            return try ClassCommand.checks(check)
        }

        func validate() throws {
            _ = try checks()
            guard ServerTime.parse(due) != nil else { throw ValidationError("--due must be an RFC 3339 time") }
        }

        func run() async throws {
            try await clientCommand {
                let made = try await options.client(needsUser: true).createAssignment(
                    classID, title: title, due: ServerTime.parse(due) ?? Date(), checks: try checks())
                if options.json { return try options.printJSON(made) }
                print("Assigned \(made.title) (id \(made.id)), due \(Terminal.time(made.due)) UTC")
            }
        }
    }

    struct Gradebook: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The grade book as CSV: a row per student, a column per assignment (done, not done or a mark).")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String

        func run() async throws {
            try await clientCommand {
                print(try await options.client(needsUser: true).gradebookCSV(classID), terminator: "")
            }
        }
    }

    /// `--check` values as an assignment's checks.
    static func checks(_ check: [String]) throws -> [Assignment.Check] {
        try check.map { item in
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            let value = parts.count == 2 ? parts[1] : nil
            func count() throws -> Int {
                guard let n = value.flatMap(Int.init), n > 0 else {
                    throw ValidationError("--check \(parts[0]) takes a whole number: \(parts[0])=3")
                }
                return n
            }
            switch parts[0] {
            case "trades": return .trades(try count())
            case "holdings": return .holdings(try count())
            case "sectors": return .holdings(try count(), bySector: true)
            case "order_type":
                guard let value, !value.isEmpty else { throw ValidationError("--check order_type=limit,stop") }
                return .orderType(value.split(separator: ",").map(String.init))
            case "max_position":
                guard let percent = value.flatMap(ExactDecimal.parse) else {
                    throw ValidationError("--check max_position=25 (percent of equity)")
                }
                return .maxPosition(percent: percent)
            case "journal": return .journal
            case "beat_benchmark": return .beatBenchmark
            case "task":
                guard let value, !value.isEmpty else { throw ValidationError("--check task=\"what to do\"") }
                return .task(value)
            default: throw ValidationError("unknown check \(parts[0]); see papertrade class assign --help")
            }
        }
    }
}
