import ArgumentParser
import Foundation
import PapertradeKit

/// Changing assignments after they are set: a new title, due time or checks; deleting one; a teacher's mark.
extension ClassCommand {
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an assignment: what you name changes, the rest stays; its marks stay.",
            discussion: """
                --check replaces all the checks (see papertrade class assign --help). Example:
                papertrade class edit CLASS ASSIGNMENT --due 2027-01-22T21:00:00Z --check trades=5
                """)

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String
        @Argument(help: "The assignment's id.") var assignmentID: String
        @Option(help: "A new title.") var title: String?
        @Option(help: "A new due time (RFC 3339).") var due: String?
        @Option(help: "A check (repeatable); replaces the assignment's checks.") var check: [String] = []

        func validate() throws {
            _ = try ClassCommand.checks(check)
            if let due, ServerTime.parse(due) == nil { throw ValidationError("--due must be an RFC 3339 time") }
            if title == nil && due == nil && check.isEmpty {
                throw ValidationError("name what changes: --title, --due or --check")
            }
        }

        func run() async throws {
            try await clientCommand {
                let made = try await options.client(needsUser: true).editAssignment(
                    classID, assignment: assignmentID, title: title, due: due.flatMap(ServerTime.parse),
                    checks: check.isEmpty ? nil : try ClassCommand.checks(check))
                if options.json { return try options.printJSON(made) }
                print("Changed \(made.title) (id \(made.id)), due \(Terminal.time(made.due)) UTC")
            }
        }
    }

    struct Unassign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an assignment and its marks (the grade book loses its column).")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String
        @Argument(help: "The assignment's id.") var assignmentID: String

        func run() async throws {
            try await clientCommand {
                try await options.client(needsUser: true).deleteAssignment(classID, assignment: assignmentID)
                print("Deleted assignment \(assignmentID).")
            }
        }
    }

    struct Mark: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a student's assignment (the grade book's cell); a mark completes a task check.",
            discussion: "Example: papertrade class mark CLASS ASSIGNMENT alice \"A-, good stops\"")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The class's id.") var classID: String
        @Argument(help: "The assignment's id.") var assignmentID: String
        @Argument(help: "The student's username.") var student: String
        @Argument(help: "The mark (1 to 40 characters).") var mark: String

        func run() async throws {
            try await clientCommand {
                try await options.client(needsUser: true).markAssignment(
                    classID, assignment: assignmentID, student: student, mark: mark)
                print("Marked \(student): \(mark)")
            }
        }
    }
}
