import JSON

/// The classes' part of /openapi.json (`ClassesController`): paths and the two bodies they take.
extension NativeOpenAPI {
    static let classSchemas: [String: JSONValue] = [
        "ClassCreate": .object([
            "type": .string("object"), "required": .array([.string("name"), .string("starting_cash")]),
            "description": .string(
                "A game's creation body (GameCreate: market, dates, rules) plus require_journal; the class's game is private"
            ),
            "properties": .object([
                "name": .object(["type": .string("string"), "maxLength": .int(100)]),
                "market": .object(["type": .string("string"), "enum": .array([.string("us"), .string("cn")])]),
                "starting_cash": OpenAPISchema.decimal,
                "require_journal": .object([
                    "type": .string("boolean"),
                    "description": .string("every order of a student needs a note (refused without one)"),
                ]),
                "starts_at": OpenAPISchema.dateTime, "ends_at": OpenAPISchema.dateTime,
                "rules": .object(["$ref": .string("#/components/schemas/GameCreate/properties/rules")]),
            ]),
        ]),
        "TeamCreate": .object([
            "type": .string("object"), "required": .array([.string("name"), .string("members")]),
            "properties": .object([
                "name": .object(["type": .string("string"), "maxLength": .int(40)]),
                "members": .object([
                    "type": .string("array"), "minItems": .int(2), "maxItems": .int(5),
                    "items": .object(["type": .string("string"), "description": .string("a student's username")]),
                ]),
            ]),
        ]),
        "AssignmentCreate": .object([
            "type": .string("object"),
            "required": .array([.string("title"), .string("due"), .string("checks")]),
            "properties": .object([
                "title": .object(["type": .string("string"), "maxLength": .int(120)]),
                "due": OpenAPISchema.dateTime,
                "checks": .object([
                    "type": .string("array"), "minItems": .int(1), "maxItems": .int(20),
                    "items": .object([
                        "type": .string("object"), "required": .array([.string("kind")]),
                        "properties": .object([
                            "kind": OpenAPISchema.enumeration([
                                "trades", "order_type", "holdings", "max_position", "journal", "beat_benchmark", "task",
                            ]),
                            "count": .object([
                                "type": .string("integer"), "minimum": .int(1),
                                "description": .string(
                                    "trades: trades made; holdings: stocks (or sectors) held at once"),
                            ]),
                            "types": .object([
                                "type": .string("array"),
                                "items": OpenAPISchema.enumeration([
                                    "market", "limit", "stop", "stop_limit", "trailing_stop",
                                ]),
                            ]),
                            "by": OpenAPISchema.enumeration(["symbols", "sectors"]),
                            "percent": OpenAPISchema.decimal,
                            "text": .object(["type": .string("string"), "maxLength": .int(500)]),
                        ]),
                    ]),
                ]),
            ]),
        ]),
        "AssignmentChange": .object([
            "type": .string("object"),
            "description": .string("Any of an assignment's title, due and checks; what is left out stays"),
            "properties": .object([
                "title": .object(["$ref": .string("#/components/schemas/AssignmentCreate/properties/title")]),
                "due": OpenAPISchema.dateTime,
                "checks": .object(["$ref": .string("#/components/schemas/AssignmentCreate/properties/checks")]),
            ]),
        ]),
    ]

    static let classPaths: [String: JSONValue] = [
        "/api/v1/classes": .object([
            "get": op(
                "The classes the user teaches or studies in, with role (teacher or student), students, the student's account_id, and the join_code (teachers)",
                auth: true, responses: ["200": "classes"]),
            "post": op(
                "Make a class (the caller teaches it) on a private game of its own: its market, cash, dates and rules; require_journal makes every order need a note",
                auth: true, body: "ClassCreate",
                responses: ["201": "the class: {id, join_code, game_id, …}", "422": "a setting is invalid"]),
        ]),
        "/api/v1/classes/join": .object([
            "post": op(
                "Join a class as a student with its code {code}: opens the student's class account", auth: true,
                responses: ["201": "the class", "404": "no class has this code", "409": "already in it"])
        ]),
        "/api/v1/classes/{id}": .object([
            "get": op(
                "One class (its teachers and students; anyone else gets 404)", auth: true,
                parameters: [param("id", in: "path", "class id")], responses: ["200": "the class"])
        ]),
        "/api/v1/classes/{id}/teachers": .object([
            "post": op(
                "Add a co-teacher {username}: same powers over the class", auth: true,
                parameters: [param("id", in: "path", "class id")],
                responses: ["200": "the class", "403": "not a teacher", "409": "a student of the class"])
        ]),
        "/api/v1/classes/{id}/roster": .object([
            "get": op(
                "The roster (teachers): [{username, display_name, email, account_id, added_at, removed_at, last_login_at}]",
                auth: true,
                parameters: [param("id", in: "path", "class id")], responses: ["200": "students"]),
            "post": op(
                "Import students from a text/csv body with columns username,display_name and optional email: {students: [{username, display_name, initial_password, account_id}]}; each password is shown once and changed at the first log-in. Duplicate, invalid or taken usernames refuse the whole file, naming its lines; nothing is created",
                auth: true, parameters: [param("id", in: "path", "class id")],
                responses: ["201": "the students and their passwords", "422": "the roster's problems, by line"]),
        ]),
        "/api/v1/classes/{id}/students/{username}": .object([
            "get": op(
                "A student's report (the class's teachers, and the student): {student, equity, cash, currency, positions, assignments (progress), orders (with notes), closes [{date, equity}]}",
                auth: true,
                parameters: [param("id", in: "path", "class id"), param("username", in: "path", "the student")],
                responses: ["200": "the report"]),
            "delete": op(
                "Take a student off the roster: their orders are canceled and their account stops trading; their work stays",
                auth: true,
                parameters: [param("id", in: "path", "class id"), param("username", in: "path", "the student")],
                responses: ["204": "removed"]),
        ]),
        "/api/v1/classes/{id}/students/{username}/password": .object([
            "post": op(
                "A new password for a student, shown once: {username, initial_password}; changed at their next log-in",
                auth: true,
                parameters: [param("id", in: "path", "class id"), param("username", in: "path", "the student")],
                responses: ["200": "the new password"])
        ]),
        "/api/v1/classes/{id}/students/{username}/reset": .object([
            "post": op(
                "Start a student's class account over with the starting cash (no reset allowance is used)", auth: true,
                parameters: [param("id", in: "path", "class id"), param("username", in: "path", "the student")],
                responses: ["204": "reset"])
        ]),
        "/api/v1/classes/{id}/students/{username}/cash": .object([
            "post": op(
                "Adjust a student's cash {amount (negative takes), reason}: kept on the ledger entry (a deposit or withdrawal by adjustment); counts in the return",
                auth: true,
                parameters: [param("id", in: "path", "class id"), param("username", in: "path", "the student")],
                responses: ["201": "{amount, reason, time, account_id}", "403": "not a teacher; or more than the cash"])
        ]),
        "/api/v1/classes/{id}/assignments": .object([
            "get": op(
                "The class's assignments, by due date", auth: true, parameters: [param("id", in: "path", "class id")],
                responses: ["200": "[{id, title, due, checks}]"]),
            "post": op(
                "Set an assignment (teachers): checks read from each student's ledger up to the due time", auth: true,
                parameters: [param("id", in: "path", "class id")], body: "AssignmentCreate",
                responses: ["201": "the assignment"]),
        ]),
        "/api/v1/classes/{id}/assignments/{assignment}": .object([
            "patch": op(
                "Change an assignment (teachers): any of title, due, checks; its marks stay and progress is read again",
                auth: true,
                parameters: [param("id", in: "path", "class id"), param("assignment", in: "path", "assignment id")],
                body: "AssignmentChange", responses: ["200": "the assignment", "404": "no such assignment"]),
            "delete": op(
                "Delete an assignment and its marks (teachers)", auth: true,
                parameters: [param("id", in: "path", "class id"), param("assignment", in: "path", "assignment id")],
                responses: ["204": "deleted", "404": "no such assignment"]),
        ]),
        "/api/v1/classes/{id}/assignments/{assignment}/marks/{username}": .object([
            "put": op(
                "A teacher's mark {mark} of a student's assignment: the grade book's cell; completes a task check",
                auth: true,
                parameters: [
                    param("id", in: "path", "class id"), param("assignment", in: "path", "assignment id"),
                    param("username", in: "path", "the student"),
                ], responses: ["200": "{assignment_id, mark, marked_at}"])
        ]),
        "/api/v1/classes/{id}/progress": .object([
            "get": op(
                "Each student's progress (teachers; a student gets their own): per assignment done, mark, and per check done, count/needed, the orders that counted, symbols, value/limit and a detail",
                auth: true, parameters: [param("id", in: "path", "class id")],
                responses: ["200": "[{student, assignments: [{assignment_id, title, due, done, mark, checks}]}]"])
        ]),
        "/api/v1/classes/{id}/gradebook": .object([
            "get": op(
                "The grade book (teachers): JSON, or CSV with Accept: text/csv or format=csv — a row per student, username first, a column per assignment titled with its title, cells done, not done or the teacher's mark",
                auth: true,
                parameters: [
                    param("id", in: "path", "class id"), param("format", in: "query", required: false, "csv"),
                ], responses: ["200": "the grade book"])
        ]),
        "/api/v1/classes/{id}/journal": .object([
            "get": op(
                "The trade journal: every order with its note, newest first (teachers: the class's; a student: their own); CSV with Accept: text/csv",
                auth: true,
                parameters: [
                    param("id", in: "path", "class id"), param("format", in: "query", required: false, "csv"),
                ], responses: ["200": "[{username, display_name, order}]"])
        ]),
        "/api/v1/classes/{id}/rankings": .object([
            "get": op(
                "Each student's return, Sharpe, Sortino, maximum drawdown, volatility, alpha, beta and Treynor against the class benchmark (daily closes since the start) and trades; best return first, with the figures' definitions",
                auth: true, parameters: [param("id", in: "path", "class id")],
                responses: [
                    "200":
                        "{students: [{rank, username, return, sharpe, sortino, max_drawdown, alpha, beta, treynor, trades}], definitions}"
                ])
        ]),
        "/api/v1/classes/{id}/teams": .object([
            "get": op(
                "The class's teams (teachers), or the caller's own (a student): students sharing one portfolio",
                auth: true, parameters: [param("id", in: "path", "class id")],
                responses: ["200": "[{name, account_id, members: [{username, display_name}]}]"]),
            "post": op(
                "Form a team {name, members: [usernames]} (teachers): 2 to 5 students in no team share a new account in the class's game, on the board under the team's name; their own accounts leave the game while they are in it. Grading, the journal, reports and rankings follow the team's account",
                auth: true, parameters: [param("id", in: "path", "class id")], body: "TeamCreate",
                responses: [
                    "201": "{name, account_id, members}", "404": "a username not on the roster",
                    "409": "the name is taken or a student is in a team",
                ]),
        ]),
        "/api/v1/classes/{id}/teams/{team}": .object([
            "delete": op(
                "Disband a team (teachers): its members trade their own accounts again, as they left them; the team's account leaves the board",
                auth: true,
                parameters: [param("id", in: "path", "class id"), param("team", in: "path", "the team's name")],
                responses: ["204": "disbanded", "404": "no such team"])
        ]),
        "/api/v1/me/password": .object([
            "put": op(
                "Change the user's password {current_password, new_password}; clears must_change_password", auth: true,
                responses: ["200": "the profile", "403": "the current password is wrong", "422": "a weak password"])
        ]),
    ]
}
