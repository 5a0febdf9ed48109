import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing
import TradingCore

@Suite("Class teams API")
struct ClassTeamsAPITests {
    let classes = ClassesAPITests()
    var games: GamesAPITests { classes.games }

    static let buy = #"{"symbol":"AAPL","qty":"1","side":"buy","type":"market","time_in_force":"day"}"#

    @Test(
        "a team of three shares one portfolio: each member trades it and is told of every fill in their language, grading, the journal, the rankings and the game's board see one team; no one else reaches it; disbanded, each trades their own account again as they left it"
    )
    func teams() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let teacher = try await games.session(client, "teacher")
                let made = try await classes.makeClass(client, f, teacher, ClassesAPITests.econ)
                let id = try #require(made["id"]?.string)
                let game = try #require(made["game_id"]?.string)
                let roster = try await classes.importRoster(
                    client, f, teacher, id, "username,display_name\nann,Ann\nben,Ben\ncyd,Cyd\ndan,Dan\n")
                var session: [String: HTTPFields] = [:]
                for name in ["ann", "ben", "cyd", "dan"] {
                    session[name] = try await classes.login(client, f, name, roster[name]?.password ?? "").1
                }
                let annOwn = try #require(roster["ann"]?.account)
                // Ann trades alone first.
                #expect(try await games.order(client, f, session["ann"]!, account: annOwn, Self.buy).0 == .created)
                let due = f.services.brokerage.clock.now().adding(nanoseconds: 3 * Duration64.day)
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/assignments", method: .post, headers: teacher,
                    body: body(
                        #"{"title":"Trade twice","due":"\#(due.description)","checks":[{"kind":"trades","count":2}]}"#)
                ) { r in #expect(r.status == .created) }

                // Refusals: a student may not form a team; one member, a stranger, a name twice are refused.
                func form(_ auth: HTTPFields, _ json: String) async throws -> (HTTPResponse.Status, JSONValue) {
                    try await client.execute(
                        uri: "/api/v1/classes/\(id)/teams", method: .post, headers: auth, body: body(json)
                    ) { r in (r.status, f.json(r)) }
                }
                let bulls = #"{"name":"Bulls","members":["Ann","ben","cyd"]}"#
                #expect(try await form(session["ben"]!, bulls).0 == .forbidden)
                #expect(try await form(teacher, #"{"name":"Solo","members":["dan"]}"#).0 == .unprocessableContent)
                #expect(try await form(teacher, #"{"name":"X","members":["dan","nobody"]}"#).0 == .notFound)
                #expect(try await form(teacher, #"{"name":"X","members":["dan","dan"]}"#).0 == .unprocessableContent)
                let (status, team) = try await form(teacher, bulls)
                #expect(status == .created, "\(team)")
                #expect(team["members"]?.array?.compactMap { $0["username"]?.string } == ["ann", "ben", "cyd"])
                let shared = try #require(team["account_id"]?.string)
                #expect(shared != annOwn)
                #expect(try await form(teacher, #"{"name":"bulls","members":["dan","ann"]}"#).0 == .conflict)
                let (taken, why) = try await form(teacher, #"{"name":"Bears","members":["dan","ann"]}"#)
                #expect(
                    taken == .conflict && why["message"]?.string?.contains("ann is already in the team Bulls") == true)

                // Taken off the board between its two steps (the account opened, the rows not yet written: another
                // reader of the roster would find it named by no row), the team's account is back at the next read.
                let brokerage = f.services.brokerage
                let owner = try #require(try await brokerage.users.user(username: "teacher")).id
                try await brokerage.games.removePlayer(
                    try #require(AccountID(shared)), from: try #require(GameID(game)), by: owner)
                try await client.execute(uri: "/api/v1/classes/\(id)/roster", method: .get, headers: teacher) { r in
                    #expect(r.status == .ok)
                }
                try await client.execute(uri: "/api/v1/games/\(game)/leaderboard", method: .get, headers: teacher) {
                    r in
                    let players = (f.json(r)["entries"]?.array ?? []).compactMap { $0["player"]?.string }
                    #expect(players.contains("Bulls"), "\(players)")
                }

                // Ben sees the team's account among his and as his class account; he and Cy trade it.
                try await client.execute(uri: "/api/v1/accounts", method: .get, headers: session["ben"]!) { r in
                    #expect((f.json(r).array ?? []).contains { $0["id"]?.string == shared }, "\(f.json(r))")
                }
                try await client.execute(uri: "/api/v1/classes/\(id)", method: .get, headers: session["ben"]!) { r in
                    #expect(f.json(r)["account_id"]?.string == shared && f.json(r)["team"] == .string("Bulls"))
                }
                // Cyd reads papertrade in Chinese.
                try await client.execute(
                    uri: "/api/v1/me", method: .put, headers: session["cyd"]!, body: body(#"{"language":"zh-Hans"}"#)
                ) { r in #expect(r.status == .ok) }
                for name in ["ben", "cyd"] {
                    let (placed, order) = try await games.order(client, f, session[name]!, account: shared, Self.buy)
                    #expect(placed == .created && order["status"] == .string("filled"), "\(name): \(order)")
                }
                // Every member is told of both fills, in their own language; Dan of none.
                func fills(_ name: String) async throws -> [JSONValue] {
                    try await client.execute(uri: "/api/v1/notifications", method: .get, headers: session[name]!) {
                        r in
                        (f.json(r)["notifications"]?.array ?? []).filter {
                            $0["kind"] == .string("fill") && $0["account_id"] == .string(shared)
                        }
                    }
                }
                for name in ["ann", "ben", "cyd"] {
                    let told = try await fills(name)
                    #expect(told.count == 2, "\(name): \(told)")
                    let titles = told.compactMap { $0["title"]?.string }
                    let chinese = titles.allSatisfy {
                        $0.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) }
                    }
                    #expect(
                        name == "cyd" ? chinese : titles.allSatisfy { $0.hasPrefix("Bought") }, "\(name): \(titles)")
                }
                #expect(try await fills("dan").isEmpty)
                // Dan (no team) and a stranger cannot reach it; Ann's own account is out of the game meanwhile.
                let stranger = try await games.session(client, "stranger")
                for auth in [session["dan"]!, stranger] {
                    try await client.execute(uri: "/api/v1/accounts/\(shared)", method: .get, headers: auth) { r in
                        #expect(r.status == .notFound)
                    }
                    #expect(try await games.order(client, f, auth, account: shared, Self.buy).0 == .notFound)
                }
                #expect(try await games.order(client, f, session["ann"]!, account: annOwn, Self.buy).0 != .created)
                try await client.execute(uri: "/api/v1/accounts/\(shared)", method: .get, headers: session["ann"]!) {
                    r in #expect(r.status == .ok)
                }

                // One line for the team in the rankings and on the game's board; the team's two trades count for each
                // member; the journal lists them once, under the team.
                try await client.execute(uri: "/api/v1/classes/\(id)/rankings", method: .get, headers: session["dan"]!)
                { r in
                    let lines = f.json(r)["students"]?.array ?? []
                    #expect(lines.count == 2, "\(lines)")
                    let line = lines.first { $0["team"] == .string("Bulls") }
                    #expect(line?["members"]?.array?.compactMap(\.string) == ["ann", "ben", "cyd"])
                    #expect(line?["trades"] == .int(2))
                }
                try await client.execute(uri: "/api/v1/games/\(game)/leaderboard", method: .get, headers: teacher) {
                    r in
                    let players = (f.json(r)["entries"]?.array ?? []).compactMap { $0["player"]?.string }
                    #expect(players.sorted() == ["Bulls", "Dan"], "\(players)")
                }
                try await client.execute(uri: "/api/v1/classes/\(id)/progress", method: .get, headers: teacher) { r in
                    var done: [String: Bool] = [:]
                    for line in f.json(r).array ?? [] {
                        done[line["student"]?["username"]?.string ?? ""] =
                            line["assignments"]?.array?.first?["done"]?.bool
                    }
                    #expect(done == ["ann": true, "ben": true, "cyd": true, "dan": false])
                }
                try await client.execute(uri: "/api/v1/classes/\(id)/journal", method: .get, headers: teacher) { r in
                    let lines = f.json(r).array ?? []
                    #expect(lines.count(where: { $0["team"] == .string("Bulls") }) == 2)
                    #expect(lines.count(where: { $0["username"] == .string("ann") && $0["team"] == .null }) == 1)
                }
                try await client.execute(uri: "/api/v1/classes/\(id)/teams", method: .get, headers: session["dan"]!) {
                    r in #expect(f.json(r).array?.isEmpty == true, "Dan is in no team")
                }
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/students/ann", method: .delete, headers: teacher
                ) { r in #expect(r.status == .conflict, "a team member is taken out of the team first") }

                // A key Ben made for the team's account drives it until the team is disbanded.
                let key = try await client.execute(
                    uri: "/api/v1/accounts/\(shared)/keys", method: .post, headers: session["ben"]!
                ) { r in
                    [
                        HTTPField.Name("APCA-API-KEY-ID")!: f.json(r)["key_id"]?.string ?? "",
                        HTTPField.Name("APCA-API-SECRET-KEY")!: f.json(r)["secret"]?.string ?? "",
                    ] as HTTPFields
                }
                try await client.execute(uri: "/v2/account", method: .get, headers: key) { r in #expect(r.status == .ok)
                }

                // Disbanded: Ann trades her own account again, her position as she left it; Ben loses the team's,
                // and the key made for it is revoked.
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/teams/Nobody", method: .delete, headers: teacher
                ) { r in #expect(r.status == .notFound) }
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/teams/Bulls", method: .delete, headers: teacher
                ) { r in #expect(r.status == .noContent) }
                #expect(try await games.order(client, f, session["ann"]!, account: annOwn, Self.buy).0 == .created)
                try await client.execute(
                    uri: "/api/v1/accounts/\(annOwn)", method: .get, headers: session["ann"]!
                ) { r in
                    let aapl = (f.json(r)["positions"]?.array ?? []).first { $0["symbol"] == .string("AAPL") }
                    #expect(aapl?["qty"] == .string("2"), "\(f.json(r))")
                }
                try await client.execute(uri: "/api/v1/accounts/\(shared)", method: .get, headers: session["ben"]!) {
                    r in #expect(r.status == .notFound)
                }
                try await client.execute(uri: "/v2/account", method: .get, headers: key) { r in
                    #expect(r.status == .unauthorized)
                }
                try await client.execute(uri: "/api/v1/games/\(game)/leaderboard", method: .get, headers: teacher) {
                    r in
                    let players = (f.json(r)["entries"]?.array ?? []).compactMap { $0["player"]?.string }
                    #expect(players.sorted() == ["Ann", "Ben", "Cyd", "Dan"], "\(players)")
                }
            }
        }
    }
}
