import Brokerage
import BrokerageModel
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Classes for teachers: a class on a game of its own (`POST /api/v1/classes` takes the game's body — name, market,
/// starting cash, dates, rules — plus `require_journal`), a roster imported from CSV with generated passwords shown
/// once, co-teachers, assignments checked from each student's ledger, marks, the grade book (JSON or CSV), the trade
/// journal and risk-adjusted rankings. Students see their class, their own progress and journal, and the rankings;
/// anyone else gets 404.
struct ClassesController {
    let clock: MarketClock
    let accountService: any AccountService
    let classes: Classrooms
    let users: UserDirectory
    let games: GamesController

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("classes", use: list)
        group.post("classes", use: create)
        group.post("classes/join", use: join)
        group.get("classes/{id}", use: show)
        group.post("classes/{id}/teachers", use: addTeacher)
        group.get("classes/{id}/roster", use: roster)
        group.post("classes/{id}/roster", use: importRoster)
        group.delete("classes/{id}/students/{username}", use: removeStudent)
        group.post("classes/{id}/students/{username}/password", use: resetPassword)
        group.post("classes/{id}/students/{username}/reset", use: resetPortfolio)
        group.post("classes/{id}/students/{username}/cash", use: adjustCash)
        group.get("classes/{id}/students/{username}", use: report)
        group.get("classes/{id}/assignments", use: assignments)
        group.post("classes/{id}/assignments", use: assign)
        group.patch("classes/{id}/assignments/{assignment}", use: editAssignment)
        group.delete("classes/{id}/assignments/{assignment}", use: deleteAssignment)
        group.put("classes/{id}/assignments/{assignment}/marks/{username}", use: mark)
        group.get("classes/{id}/progress", use: progress)
        group.get("classes/{id}/gradebook", use: gradebook)
        group.get("classes/{id}/journal", use: journal)
        group.get("classes/{id}/rankings", use: rankings)
        group.get("classes/{id}/teams", use: teams)
        group.post("classes/{id}/teams", use: formTeam)
        group.delete("classes/{id}/teams/{team}", use: disbandTeam)
    }

    // MARK: Classes

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var list: [JSONValue] = []
        for view in try await classes.classes(of: user) { list.append(try await encode(view, request: request)) }
        return JSONValue.array(list).response()
    }

    @Sendable func create(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        guard case .object(var fields) = try await request.jsonBody(context: context) else {
            throw APIError.unprocessable("expected a JSON object")
        }
        let journal = fields.removeValue(forKey: "require_journal")
        guard journal == nil || journal?.bool != nil || journal == .null else {
            throw APIError.unprocessable("require_journal must be true or false")
        }
        fields["visibility"] = nil
        let (name, market, parsed) = try GamesController.parseCreation(.object(fields), now: clock.now())
        var settings = parsed
        settings.rules.journal = journal?.bool ?? false
        let view = try await classes.create(teacher: user, name: name, market: market, settings: settings)
        return try await encode(view, request: request).response(status: .created)
    }

    @Sendable func join(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        let o = try BodyFields(try await request.jsonBody(context: context), allowed: ["code"])
        let view = try await classes.join(code: try o.required("code") { try o.string($0) }, user: user)
        return try await encode(view, request: request).response(status: .created)
    }

    @Sendable func show(_ request: Request, context: AppContext) async throws -> Response {
        let view = try await classes.view(try Self.id(context), user: try context.user())
        return try await encode(view, request: request).response()
    }

    @Sendable func addTeacher(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        let o = try BodyFields(try await request.jsonBody(context: context), allowed: ["username"])
        let id = try Self.id(context)
        _ = try await classes.addTeacher(id, by: user, username: try o.required("username") { try o.string($0) })
        return try await encode(try await classes.view(id, user: user), request: request).response()
    }

    // MARK: Roster

    @Sendable func roster(_ request: Request, context: AppContext) async throws -> Response {
        let students = try await classes.roster(try Self.id(context), by: try context.user())
        return JSONValue.array(students.map(Self.student)).response()
    }

    /// `POST /api/v1/classes/{id}/roster` with a `text/csv` body (`username,display_name[,email]`): every student
    /// is created with a generated password, shown once in the answer and to be changed at their first log-in.
    @Sendable func importRoster(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let id = try Self.id(context)
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: context.maxUploadSize) } catch {
            throw APIError(
                .contentTooLarge, code: 41300000, "request body is larger than \(context.maxUploadSize) bytes")
        }
        guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
            throw APIError.unprocessable("the roster must be UTF-8 text")
        }
        let roster = try RosterImport.parse(text)
        try await classes.checkNewStudents(id, by: user, roster)
        let passwords = roster.rows.map { _ in Self.initialPassword() }
        let hashes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (i, password) in passwords.enumerated() {
                group.addTask { (i, try await Credentials.hashPassword(password)) }
            }
            var hashes = [String](repeating: "", count: passwords.count)
            for try await (i, hash) in group { hashes[i] = hash }
            return hashes
        }
        let students = try await classes.enroll(id, by: user, roster, passwordHashes: hashes)
        return JSONValue.object([
            "students": .array(
                zip(students, passwords).map { student, password in
                    .object([
                        "username": .string(student.username), "display_name": .string(student.displayName),
                        "initial_password": .string(password), "account_id": .string(student.accountID.description),
                    ])
                })
        ]).response(status: .created)
    }

    @Sendable func removeStudent(_ request: Request, context: AppContext) async throws -> Response {
        try await classes.remove(try Self.id(context), by: try context.user(), username: try Self.username(context))
        return Response(status: .noContent)
    }

    /// A new password for a student (shown once), to be changed at their next log-in.
    @Sendable func resetPassword(_ request: Request, context: AppContext) async throws -> Response {
        let username = try Self.username(context)
        let password = Self.initialPassword()
        try await classes.resetPassword(
            try Self.id(context), by: try context.user(), username: username,
            hash: try await Credentials.hashPassword(password))
        return JSONValue.object([
            "username": .string(username.lowercased()), "initial_password": .string(password),
        ]).response()
    }

    @Sendable func resetPortfolio(_ request: Request, context: AppContext) async throws -> Response {
        try await classes.resetPortfolio(
            try Self.id(context), by: try context.user(), username: try Self.username(context))
        return Response(status: .noContent)
    }

    /// `{"amount": "500" | "-250", "reason": "…"}`: cash added to or taken from a student's class account, the reason
    /// kept on the ledger entry; answers the entry.
    @Sendable func adjustCash(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let o = try BodyFields(try await request.jsonBody(context: context), allowed: ["amount", "reason"])
        let entry = try await classes.adjustCash(
            try Self.id(context), by: try context.user(), username: try Self.username(context),
            amount: try o.required("amount") { try o.decimal($0) },
            reason: try o.required("reason") { try o.string($0) })
        var reason: String?
        switch entry.kind {
        case .deposit(_, let note), .withdrawal(_, let note): reason = note
        default: break
        }
        return JSONValue.object([
            "amount": .decimal(entry.cashChange), "reason": .text(reason),
            "time": NativeEncoding.time(entry.time), "account_id": .string(entry.accountID.description),
        ]).response(status: .created)
    }

    /// A student's report: holdings and equity now, each assignment's progress, the orders with their notes, the
    /// closes since the class started (teachers, and the student themselves).
    @Sendable func report(_ request: Request, context: AppContext) async throws -> Response {
        let report = try await classes.report(
            try Self.id(context), username: try Self.username(context), user: try context.user())
        let date = clock.now()
        var fields: [String: JSONValue] = [
            "student": Self.student(report.student),
            "assignments": .array(report.assignments.map(Self.progress)),
            "orders": .array(report.orders.map { NativeEncoding.order($0) }),
            "closes": .array(
                report.closes.map { .object(["date": .string($0.date.description), "equity": .decimal($0.equity)]) }),
        ]
        if let summary = report.summary {
            let day = summary.account.market.calendar.zone.localTime(of: date).date
            fields["currency"] = .string(summary.account.currency.rawValue)
            fields["equity"] = .decimal(summary.equity)
            fields["cash"] = .decimal(summary.account.cash)
            fields["positions"] = .array(summary.positions.map { NativeEncoding.position($0, date: day) })
        }
        return JSONValue.object(fields).response()
    }

    // MARK: Assignments and grades

    @Sendable func assignments(_ request: Request, context: AppContext) async throws -> Response {
        let list = try await classes.assignments(try Self.id(context), user: try context.user())
        return JSONValue.array(list.map(Self.assignment)).response()
    }

    /// `{"title", "due", "checks": [{"kind": "trades", "count": 3}, {"kind": "order_type", "types": ["stop"]},
    /// {"kind": "holdings", "count": 5, "by": "symbols" | "sectors"}, {"kind": "max_position", "percent": "25"},
    /// {"kind": "journal"}, {"kind": "beat_benchmark"}, {"kind": "task", "text": "…"}]}`
    @Sendable func assign(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let o = try BodyFields(try await request.jsonBody(context: context), allowed: ["title", "due", "checks"])
        let title = try o.required("title") { try o.string($0) }
        let due = try o.required("due") { try o.time($0) }
        guard let checks = try Self.checks(o) else { throw APIError.unprocessable("checks is required") }
        let assignment = try await classes.assign(
            try Self.id(context), by: try context.user(), title: title, due: due, checks: checks)
        return Self.assignment(assignment).response(status: .created)
    }

    /// `{"title", "due", "checks"}`, any of them: what is left out stays.
    @Sendable func editAssignment(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let o = try BodyFields(try await request.jsonBody(context: context), allowed: ["title", "due", "checks"])
        let assignment = try await classes.editAssignment(
            try Self.id(context), by: try context.user(), assignment: try Self.assignmentID(context),
            title: try o.string("title"), due: try o.time("due"), checks: try Self.checks(o))
        return Self.assignment(assignment).response()
    }

    @Sendable func deleteAssignment(_ request: Request, context: AppContext) async throws -> Response {
        try await classes.deleteAssignment(
            try Self.id(context), by: try context.user(), assignment: try Self.assignmentID(context))
        return Response(status: .noContent)
    }

    static func assignmentID(_ context: AppContext) throws -> AssignmentID {
        guard let id = AssignmentID(try context.parameters.require("assignment")) else {
            throw APIError.notFound("assignment not found")
        }
        return id
    }

    /// An assignment body's `checks` (nil when absent).
    static func checks(_ o: BodyFields) throws -> [AssignmentCheck]? {
        guard let items = try o.objects("checks", allowed: ["kind", "count", "types", "by", "percent", "text"]) else {
            return nil
        }
        var checks: [AssignmentCheck] = []
        for (i, c) in items.enumerated() {
            let kind = try c.required("kind") { try c.string($0) }
            func count() throws -> Int { try c.required("count") { try c.int($0) } }
            switch kind {
            case "trades": checks.append(.trades(count: try count()))
            case "order_type":
                guard case .array(let names)? = c.values["types"] else {
                    throw APIError.unprocessable("checks[\(i)].types must list order types")
                }
                var types: [OrderType] = []
                for name in names {
                    guard let text = name.string, let type = OrderType(rawValue: text) else {
                        throw APIError.unprocessable(
                            "checks[\(i)].types: expected market, limit, stop, stop_limit or trailing_stop")
                    }
                    types.append(type)
                }
                checks.append(.orderType(types))
            case "holdings":
                let by = try c.string("by") ?? "symbols"
                guard by == "symbols" || by == "sectors" else {
                    throw APIError.unprocessable("checks[\(i)].by must be symbols or sectors")
                }
                checks.append(.holdings(count: try count(), bySector: by == "sectors"))
            case "max_position": checks.append(.maxPosition(percent: try c.required("percent") { try c.decimal($0) }))
            case "journal": checks.append(.journal)
            case "beat_benchmark": checks.append(.beatBenchmark)
            case "task": checks.append(.task(try c.required("text") { try c.string($0) }))
            default:
                throw APIError.unprocessable(
                    "checks[\(i)].kind \"\(kind)\": expected trades, order_type, holdings, max_position, journal, beat_benchmark or task"
                )
            }
        }
        return checks
    }

    @Sendable func mark(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let o = try BodyFields(try await request.jsonBody(context: context), allowed: ["mark"])
        let assignment = try Self.assignmentID(context)
        let mark = try await classes.mark(
            try Self.id(context), by: try context.user(), assignment: assignment,
            username: try Self.username(context), mark: try o.required("mark") { try o.string($0) })
        return JSONValue.object([
            "assignment_id": .string(mark.assignmentID.description), "mark": .string(mark.mark),
            "marked_at": NativeEncoding.time(mark.markedAt),
        ]).response()
    }

    /// Every student's progress (teachers), or the caller's own: each assignment's checks, what satisfied them.
    @Sendable func progress(_ request: Request, context: AppContext) async throws -> Response {
        let lines = try await classes.progress(try Self.id(context), user: try context.user())
        return JSONValue.array(
            lines.map { line in
                .object([
                    "student": Self.student(line.student),
                    "assignments": .array(line.assignments.map(Self.progress)),
                ])
            }
        ).response()
    }

    /// The grade book: JSON, or CSV with `Accept: text/csv` (or `?format=csv`): a row per student, `username` first,
    /// a column per assignment titled with its title, cells `done`, `not done` or the teacher's mark.
    @Sendable func gradebook(_ request: Request, context: AppContext) async throws -> Response {
        let id = try Self.id(context)
        let book = try await classes.gradebook(id, by: try context.user())
        if Self.wantsCSV(request) {
            var csv =
                (["username", "display_name"] + book.assignments.map(\.title)).map(CSVFile.field)
                .joined(separator: ",") + "\r\n"
            for row in book.rows {
                let cells = row.cells.map(Self.cell)
                csv +=
                    ([row.student.username, row.student.displayName] + cells).map(CSVFile.field)
                    .joined(separator: ",") + "\r\n"
            }
            return CSVFile.response(csv, file: "gradebook-\(id.description.prefix(8)).csv")
        }
        return JSONValue.object([
            "assignments": .array(book.assignments.map(Self.assignment)),
            "students": .array(
                book.rows.map { row in
                    .object([
                        "username": .string(row.student.username),
                        "display_name": .string(row.student.displayName),
                        "cells": .array(
                            row.cells.map { p in
                                .object([
                                    "assignment_id": .string(p.assignment.id.description),
                                    "done": .bool(p.done), "mark": .text(p.mark?.mark), "cell": .string(Self.cell(p)),
                                ])
                            }),
                    ])
                }),
        ]).response()
    }

    /// The trade journal (teachers: the class's; a student: their own), JSON or CSV.
    @Sendable func journal(_ request: Request, context: AppContext) async throws -> Response {
        let id = try Self.id(context)
        let lines = try await classes.journal(id, user: try context.user())
        if Self.wantsCSV(request) {
            var csv =
                "username,team,created_at,symbol,side,type,qty,notional,status,filled_qty,filled_avg_price,note\r\n"
            for line in lines {
                let o = line.order
                let fields = [
                    line.student.username, line.team ?? "", o.createdAt.description, o.symbol, o.side.rawValue,
                    o.type.rawValue,
                    o.qty?.description ?? "", o.notional?.description ?? "", o.status.rawValue,
                    o.filledQty.description, o.filledAvgPrice?.description ?? "", o.note ?? "",
                ]
                csv += fields.map(CSVFile.field).joined(separator: ",") + "\r\n"
            }
            return CSVFile.response(csv, file: "journal-\(id.description.prefix(8)).csv")
        }
        return JSONValue.array(
            lines.map { line in
                .object([
                    "username": .string(line.student.username), "display_name": .string(line.student.displayName),
                    "team": .text(line.team), "order": NativeEncoding.order(line.order),
                ])
            }
        ).response()
    }

    /// Each student's return, Sharpe, Sortino, maximum drawdown, alpha and beta against the class benchmark, and
    /// trades; best return first. A team is one line: `team` and its `members`' usernames (`username`: its first).
    @Sendable func rankings(_ request: Request, context: AppContext) async throws -> Response {
        let lines = try await classes.rankings(try Self.id(context), user: try context.user())
        return JSONValue.object([
            "students": .array(
                lines.enumerated().map { i, line in
                    .object([
                        "rank": .int(i + 1), "username": .string(line.student.username),
                        "display_name": .string(line.student.displayName), "equity": .decimal(line.equity),
                        "return": .decimal(line.totalReturn), "sharpe": .decimal(line.figures?.sharpe),
                        "sortino": .decimal(line.figures?.sortino),
                        "max_drawdown": .decimal(line.figures?.maxDrawdown?.depth),
                        "volatility": .decimal(line.figures?.volatility), "alpha": .decimal(line.relative?.alpha),
                        "beta": .decimal(line.relative?.beta), "treynor": .decimal(line.relative?.treynor),
                        "days": .int(line.figures?.dailyReturns.count ?? 0),
                        "trades": .int(line.trades), "team": .text(line.team),
                        "members": .array(line.members.map { .string($0.username) }),
                    ])
                }),
            "definitions": .object(
                ["sharpe", "sortino", "max_drawdown", "alpha", "beta", "treynor", "volatility"].reduce(into: [:]) {
                    $0[$1] = PerformanceMetrics.definitions[$1].map(JSONValue.string)
                }),
        ]).response()
    }

    // MARK: Encoding

    func encode(_ view: ClassView, request: Request) async throws -> JSONValue {
        var teachers: [JSONValue] = []
        for teacher in view.record.teachers {
            if let user = try await users.user(id: teacher) { teachers.append(.string(user.username)) }
        }
        let game = view.game
        let gameView = try games.games.view(game.id, user: view.viewer, code: game.joinCode)
        return .object([
            "id": .string(view.record.id.description), "name": .string(view.record.name),
            "role": .string(view.role.rawValue), "market": .string(game.market.rawValue),
            "starting_cash": .decimal(game.settings.startingCash),
            "require_journal": .bool(game.settings.rules.journalRequired),
            "join_code": view.role == .teacher ? .string(game.joinCode) : .null,
            "game_id": .string(game.id.description), "students": .int(view.students),
            "account_id": .text(view.account?.description), "team": .text(view.team), "teachers": .array(teachers),
            "starts_at": NativeEncoding.time(game.startsAt), "ends_at": NativeEncoding.time(game.endsAt),
            "created_at": NativeEncoding.time(view.record.createdAt),
            "rules": games.encode(gameView, request: request)["rules"] ?? .null,
        ])
    }

    static func student(_ s: ClassStudentRecord) -> JSONValue {
        .object([
            "username": .string(s.username), "display_name": .string(s.displayName), "email": .text(s.email),
            "account_id": .string(s.accountID.description), "added_at": NativeEncoding.time(s.addedAt),
            "removed_at": NativeEncoding.time(s.removedAt), "last_login_at": NativeEncoding.time(s.lastLoginAt),
            "team": .text(s.team), "team_account_id": .text(s.teamAccountID?.description),
        ])
    }

    static func assignment(_ a: AssignmentRecord) -> JSONValue {
        .object([
            "id": .string(a.id.description), "title": .string(a.title), "due": NativeEncoding.time(a.due),
            "checks": .array(a.checks.map(check)), "created_at": NativeEncoding.time(a.createdAt),
        ])
    }

    static func check(_ c: AssignmentCheck) -> JSONValue {
        var fields: [String: JSONValue] = ["kind": .string(c.kind)]
        switch c {
        case .trades(let count): fields["count"] = .int(count)
        case .orderType(let types): fields["types"] = .array(types.map { .string($0.rawValue) })
        case .holdings(let count, let bySector):
            fields["count"] = .int(count)
            fields["by"] = .string(bySector ? "sectors" : "symbols")
        case .maxPosition(let percent): fields["percent"] = .decimal(percent)
        case .task(let text): fields["text"] = .string(text)
        case .journal, .beatBenchmark: break
        }
        return .object(fields)
    }

    static func progress(_ p: AssignmentProgress) -> JSONValue {
        .object([
            "assignment_id": .string(p.assignment.id.description), "title": .string(p.assignment.title),
            "due": NativeEncoding.time(p.assignment.due), "done": .bool(p.done), "mark": .text(p.mark?.mark),
            "checks": .array(
                p.checks.map { c in
                    var fields: [String: JSONValue] = [
                        "check": check(c.check), "done": .bool(c.done), "detail": .string(c.detail),
                        "orders": .array(c.orders.map { .string($0.description) }),
                        "symbols": .array(c.symbols.map(JSONValue.string)),
                    ]
                    if let count = c.count { fields["count"] = .int(count) }
                    if let needed = c.needed { fields["needed"] = .int(needed) }
                    if let value = c.value { fields["value"] = .decimal(value) }
                    if let limit = c.limit { fields["limit"] = .decimal(limit) }
                    return .object(fields)
                }),
        ])
    }

    /// A grade book cell: the teacher's mark, else done or not done.
    static func cell(_ p: AssignmentProgress) -> String { p.mark?.mark ?? (p.done ? "done" : "not done") }

    // MARK: Helpers

    static func id(_ context: AppContext) throws -> ClassID {
        guard let id = ClassID(try context.parameters.require("id")) else { throw APIError.notFound("class not found") }
        return id
    }

    static func username(_ context: AppContext) throws -> String {
        try context.parameters.require("username").removingPercentEncoding ?? context.parameters.require("username")
    }

    static func wantsCSV(_ request: Request) -> Bool {
        request.query("format") == "csv" || (request.headers[.accept] ?? "").contains("text/csv")
    }

    /// A password a teacher can read out or print: 12 letters and digits, none that look alike (0/O, 1/l/I).
    static func initialPassword() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<12).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
