import ArgumentParser
import Foundation
import PapertradeKit

/// `papertrade class team list|form|disband`: students sharing one portfolio.
extension ClassCommand {
    struct Team: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Teams: 2 to 5 students sharing one portfolio (list, form, disband).",
            discussion: """
                A team trades one account in the class's game, on its board under the team's name; grading, the \
                journal, reports and rankings follow it. Its members' own accounts leave the game while they are in \
                it, and come back as they were when the team is disbanded.
                """,
            subcommands: [List.self, Form.self, Disband.self], defaultSubcommand: List.self)

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "The class's teams and their members.")

            @OptionGroup var options: ClientOptions
            @Argument(help: "The class's id.") var classID: String

            func run() async throws {
                try await clientCommand {
                    let teams = try await options.client(needsUser: true).teams(classID)
                    if options.json { return try options.printJSON(teams) }
                    if teams.isEmpty { return print("No teams.") }
                    print(
                        Terminal.table(
                            ["TEAM", "MEMBERS", "ACCOUNT"],
                            teams.map { [$0.name, $0.members.map(\.username).joined(separator: ", "), $0.accountID] }))
                }
            }
        }

        struct Form: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Form a team of 2 to 5 students of the roster who are in no team.",
                discussion: "Example: papertrade class team form CLASS Bulls alice bob carol")

            @OptionGroup var options: ClientOptions
            @Argument(help: "The class's id.") var classID: String
            @Argument(help: "The team's name (1 to 40 characters).") var name: String
            @Argument(help: "The members' usernames.") var members: [String]

            func run() async throws {
                try await clientCommand {
                    let team = try await options.client(needsUser: true).formTeam(
                        classID, name: name, members: members)
                    if options.json { return try options.printJSON(team) }
                    print(
                        "Formed \(team.name): \(team.members.map(\.username).joined(separator: ", ")) "
                            + "share account \(team.accountID)")
                }
            }
        }

        struct Disband: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Disband a team: its members trade their own accounts again, as they left them.")

            @OptionGroup var options: ClientOptions
            @Argument(help: "The class's id.") var classID: String
            @Argument(help: "The team's name.") var name: String

            func run() async throws {
                try await clientCommand {
                    try await options.client(needsUser: true).disbandTeam(classID, name: name)
                    print("Disbanded \(name).")
                }
            }
        }
    }
}
