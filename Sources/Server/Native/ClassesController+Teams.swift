import Brokerage
import BrokerageModel
import Hummingbird
import JSON

/// A class's teams: students sharing one portfolio (`Classrooms.formTeam`). Teachers form and disband them; a
/// student sees their own.
extension ClassesController {
    /// The class's teams (teachers), or the caller's own team (a student): `[{name, account_id, members}]`.
    @Sendable func teams(_ request: Request, context: AppContext) async throws -> Response {
        let teams = try await classes.teams(try Self.id(context), user: try context.user())
        return JSONValue.array(teams.map(Self.team)).response()
    }

    /// `{"name": "Bulls", "members": ["ana", "ben"]}`: 2 to 5 students of the roster in no team; answers the team.
    @Sendable func formTeam(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let o = try BodyFields(try await request.jsonBody(context: context), allowed: ["name", "members"])
        let name = try o.required("name") { try o.string($0) }
        guard case .array(let items)? = o.values["members"] else {
            throw APIError.unprocessable("members must list the team's usernames")
        }
        let members = try items.map { item in
            guard let username = item.string else {
                throw APIError.unprocessable("members must list the team's usernames")
            }
            return username
        }
        let team = try await classes.formTeam(
            try Self.id(context), by: try context.user(), name: name, members: members)
        return Self.team(team).response(status: .created)
    }

    /// Disbands the team in the path: its members trade their own accounts again.
    @Sendable func disbandTeam(_ request: Request, context: AppContext) async throws -> Response {
        let raw = try context.parameters.require("team")
        try await classes.disbandTeam(
            try Self.id(context), by: try context.user(), name: raw.removingPercentEncoding ?? raw)
        return Response(status: .noContent)
    }

    static func team(_ team: ClassTeam) -> JSONValue {
        .object([
            "name": .string(team.name), "account_id": .string(team.account.description),
            "members": .array(
                team.members.map {
                    .object(["username": .string($0.username), "display_name": .string($0.displayName)])
                }),
        ])
    }
}
