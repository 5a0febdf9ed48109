import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing
import TradingCore

@Suite("Classes API")
struct ClassesAPITests {
    let games = GamesAPITests()

    /// Logs a user in with a password and returns (status, session cookie, profile).
    func login(_ client: some TestClientProtocol, _ f: ServerFixture, _ username: String, _ password: String)
        async throws -> (HTTPResponse.Status, HTTPFields, JSONValue)
    {
        try await client.execute(
            uri: "/api/v1/auth/login", method: .post,
            body: body(#"{"username":"\#(username)","password":"\#(password)"}"#)
        ) { r in
            (
                r.status, [.cookie: r.headers[.setCookie]?.split(separator: ";").first.map(String.init) ?? ""],
                f.json(r)
            )
        }
    }

    /// Makes a class from `json` and returns its JSON.
    func makeClass(_ client: some TestClientProtocol, _ f: ServerFixture, _ auth: HTTPFields, _ json: String)
        async throws -> JSONValue
    {
        try await client.execute(uri: "/api/v1/classes", method: .post, headers: auth, body: body(json)) { r in
            #expect(r.status == .created, "\(String(buffer: r.body))")
            return f.json(r)
        }
    }

    /// Imports a roster; returns username → (password, account id).
    func importRoster(
        _ client: some TestClientProtocol, _ f: ServerFixture, _ auth: HTTPFields, _ id: String, _ csv: String
    )
        async throws -> [String: (password: String, account: String)]
    {
        var headers = auth
        headers[.contentType] = "text/csv"
        return try await client.execute(
            uri: "/api/v1/classes/\(id)/roster", method: .post, headers: headers, body: body(csv)
        ) { r in
            #expect(r.status == .created, "\(String(buffer: r.body))")
            var students: [String: (String, String)] = [:]
            for s in f.json(r)["students"]?.array ?? [] {
                students[s["username"]?.string ?? ""] = (
                    s["initial_password"]?.string ?? "", s["account_id"]?.string ?? ""
                )
            }
            return students
        }
    }

    static let econ = #"{"name": "Econ 101", "market": "us", "starting_cash": "50000", "require_journal": false}"#

    @Test(
        "a roster of 30 is imported from CSV: each student logs in with the password shown once, is asked to change it and trades in the class's account; a bad roster is refused whole, naming its lines"
    )
    func roster() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let teacher = try await games.session(client, "teacher")
                let made = try await makeClass(client, f, teacher, Self.econ)
                let id = try #require(made["id"]?.string)
                #expect(made["role"] == .string("teacher") && made["join_code"]?.string?.count == 8)
                #expect(made["require_journal"] == .bool(false) && made["starting_cash"] == .string("50000"))
                // A bad roster: a duplicate, an invalid username, a bad email — refused whole, every line named.
                var headers = teacher
                headers[.contentType] = "text/csv"
                let bad = "username,display_name,email\ns01,Ann,\nnot ok,Bo,\ns01,Cy,\ns04,Di,nope\n"
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/roster", method: .post, headers: headers, body: body(bad)
                ) { r in
                    #expect(r.status == .unprocessableContent)
                    let message = f.json(r)["message"]?.string ?? ""
                    #expect(message.contains("nothing was created"), "\(message)")
                    #expect(
                        message.contains("line 3:") && message.contains("line 4: username s01 is already on line 2"))
                    #expect(message.contains("line 5: \"nope\" is not an email address"), "\(message)")
                    #expect(!message.contains("line 2:"))
                }
                try await client.execute(uri: "/api/v1/classes/\(id)/roster", method: .get, headers: teacher) { r in
                    #expect(f.json(r).array?.isEmpty == true)
                }
                #expect(try await login(client, f, "s01", "whatever1").0 == .unauthorized)
                // Thirty students, one with a quoted name holding a comma.
                var csv = "username,display_name,email\r\n"
                for i in 1...30 { csv += String(format: "S%02d,Student %d,s%d@school.example\r\n", i, i, i) }
                csv = csv.replacingOccurrences(of: "Student 7,", with: "\"Seven, Lucky\",")
                let students = try await importRoster(client, f, teacher, id, csv)
                #expect(students.count == 30 && students["s01"] != nil)
                #expect(students.values.allSatisfy { $0.password.count == 12 })
                #expect(Set(students.values.map(\.password)).count == 30)
                try await client.execute(uri: "/api/v1/classes/\(id)/roster", method: .get, headers: teacher) { r in
                    let roster = f.json(r).array ?? []
                    #expect(roster.count == 30)
                    #expect(roster.contains { $0["display_name"] == .string("Seven, Lucky") })
                    #expect(roster.first?["email"] == .string("s1@school.example"))
                }
                // Importing one of them again is refused, naming the line; nothing else is created.
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/roster", method: .post, headers: headers,
                    body: body("username,display_name\nnew1,New\ns05,Again\n")
                ) { r in
                    #expect(r.status == .unprocessableContent)
                    #expect(f.json(r)["message"]?.string?.contains("line 3: the username s05 is taken") == true)
                }
                #expect(try await login(client, f, "new1", "whatever1").0 == .unauthorized)
                // A student logs in with the password shown, is asked to change it, and does.
                let s07 = try #require(students["s07"])
                let (status, cookie, profile) = try await login(client, f, "s07", s07.password)
                #expect(status == .ok && profile["must_change_password"] == .bool(true))
                #expect(
                    (profile["accounts"]?.array ?? []).contains { $0["id"]?.string == s07.account },
                    "the class account is one of the student's accounts")
                try await client.execute(
                    uri: "/api/v1/me/password", method: .put, headers: cookie,
                    body: body(#"{"current_password":"wrong-one","new_password":"mine-now-123"}"#)
                ) { r in #expect(r.status == .forbidden) }
                try await client.execute(
                    uri: "/api/v1/me/password", method: .put, headers: cookie,
                    body: body(#"{"current_password":"\#(s07.password)","new_password":"mine-now-123"}"#)
                ) { r in
                    #expect(r.status == .ok && f.json(r)["must_change_password"] == .bool(false))
                }
                #expect(try await login(client, f, "s07", s07.password).0 == .unauthorized)
                #expect(try await login(client, f, "s07", "mine-now-123").2["must_change_password"] == .bool(false))
                // The student sees the class (without its join code) and only their own progress.
                try await client.execute(uri: "/api/v1/classes", method: .get, headers: cookie) { r in
                    let list = f.json(r).array ?? []
                    #expect(list.count == 1 && list.first?["role"] == .string("student"))
                    #expect(list.first?["account_id"]?.string == s07.account && list.first?["join_code"] == .null)
                }
                // The roster tells who logged in: s07 did, s08 never.
                try await client.execute(uri: "/api/v1/classes/\(id)/roster", method: .get, headers: teacher) { r in
                    let roster = f.json(r).array ?? []
                    #expect(roster.first { $0["username"] == .string("s07") }?["last_login_at"]?.string != nil)
                    #expect(roster.first { $0["username"] == .string("s08") }?["last_login_at"] == .null)
                }
                // The teacher adjusts a student's cash with a reason: a prize, then a penalty; the student cannot,
                // nor can anyone deposit into a class account themselves.
                for (amount, cash) in [("500", "50500"), ("-125.50", "50374.5")] {
                    try await client.execute(
                        uri: "/api/v1/classes/\(id)/students/s07/cash", method: .post, headers: teacher,
                        body: body(#"{"amount":"\#(amount)","reason":"Essay prize"}"#)
                    ) { r in
                        #expect(r.status == .created, "\(String(buffer: r.body))")
                        #expect(f.json(r)["reason"] == .string("Essay prize"))
                    }
                    try await client.execute(uri: "/api/v1/accounts/\(s07.account)", method: .get, headers: cookie) {
                        r in #expect(f.json(r)["cash"] == .string(cash))
                    }
                }
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/students/s07/cash", method: .post, headers: cookie,
                    body: body(#"{"amount":"1000000","reason":"me"}"#)
                ) { r in #expect(r.status == .forbidden) }
                for method in ["adjustment", "bank"] {
                    try await client.execute(
                        uri: "/api/v1/accounts/\(s07.account)/deposit", method: .post, headers: cookie,
                        body: body(#"{"amount":"1000","method":"\#(method)"}"#)
                    ) { r in #expect(r.status == (method == "bank" ? .forbidden : .unprocessableContent), "\(method)") }
                }
                // A teacher's reset hands out a new password to change again.
                let reset = try await client.execute(
                    uri: "/api/v1/classes/\(id)/students/s07/password", method: .post, headers: teacher
                ) { r in f.json(r)["initial_password"]?.string ?? "" }
                #expect(try await login(client, f, "s07", reset).2["must_change_password"] == .bool(true))
            }
        }
    }

    @Test(
        "an assignment is done by one student's trades and not by another's; the grade book in CSV says so cell by cell, with the teacher's mark of a task"
    )
    func gradebook() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let teacher = try await games.session(client, "teacher")
                let id = try #require(try await makeClass(client, f, teacher, Self.econ)["id"]?.string)
                let students = try await importRoster(
                    client, f, teacher, id, "username,display_name\nalice,Alice A\nbob,\"Bob, B\"\n")
                let due = f.services.brokerage.clock.now().adding(nanoseconds: 3 * Duration64.day)
                let week1 = #"""
                    {"title": "Week 1", "due": "\#(due.description)",
                     "checks": [{"kind": "trades", "count": 2}, {"kind": "order_type", "types": ["limit", "stop"]},
                                {"kind": "journal"}, {"kind": "holdings", "count": 2}]}
                    """#
                let assignment = try await client.execute(
                    uri: "/api/v1/classes/\(id)/assignments", method: .post, headers: teacher, body: body(week1)
                ) { r in
                    #expect(r.status == .created, "\(String(buffer: r.body))")
                    return f.json(r)["id"]?.string ?? ""
                }
                let essay =
                    #"{"title": "Essay", "due": "\#(due.description)", "checks": [{"kind": "task", "text": "Why index funds?"}]}"#
                let task = try await client.execute(
                    uri: "/api/v1/classes/\(id)/assignments", method: .post, headers: teacher, body: body(essay)
                ) { r in f.json(r)["id"]?.string ?? "" }
                // Bad checks are refused.
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/assignments", method: .post, headers: teacher,
                    body: body(#"{"title":"x","due":"\#(due.description)","checks":[{"kind":"trades","count":0}]}"#)
                ) { r in #expect(r.status == .unprocessableContent) }
                let alice = try await login(client, f, "alice", students["alice"]?.password ?? "").1
                let bob = try await login(client, f, "bob", students["bob"]?.password ?? "").1
                let ask = try #require(await f.services.brokerage.feed.quote("MSFT").asks.best?.price)
                // Alice: a market buy and a marketable limit buy, both with notes, two stocks held.
                var placed: [String] = []
                for json in [
                    #"{"symbol":"AAPL","qty":"2","side":"buy","type":"market","time_in_force":"day","note":"Strong services growth"}"#,
                    #"{"symbol":"MSFT","qty":"1","side":"buy","type":"limit","limit_price":"\#(ask + FixedDecimal(5))","time_in_force":"day","note":"Cloud demand"}"#,
                ] {
                    let (status, order) = try await games.order(
                        client, f, alice, account: students["alice"]?.account ?? "", json)
                    #expect(status == .created, "\(order)")
                    #expect(order["status"] == .string("filled") && order["note"]?.string?.isEmpty == false)
                    placed.append(order["id"]?.string ?? "")
                }
                // Bob: one market buy without a note.
                let (status, _) = try await games.order(
                    client, f, bob, account: students["bob"]?.account ?? "",
                    #"{"symbol":"AAPL","qty":"1","side":"buy","type":"market","time_in_force":"day"}"#)
                #expect(status == .created)
                // The teacher sees both; each check says what counted.
                try await client.execute(uri: "/api/v1/classes/\(id)/progress", method: .get, headers: teacher) { r in
                    let lines = f.json(r).array ?? []
                    #expect(lines.count == 2)
                    let a = lines.first { $0["student"]?["username"] == .string("alice") }?["assignments"]?.array?.first
                    let b = lines.first { $0["student"]?["username"] == .string("bob") }?["assignments"]?.array?.first
                    #expect(a?["done"] == .bool(true) && b?["done"] == .bool(false))
                    let aChecks = a?["checks"]?.array ?? []
                    #expect(aChecks[0]["orders"]?.array?.compactMap(\.string) == placed)
                    #expect(aChecks[1]["orders"]?.array?.compactMap(\.string) == [placed[1]])
                    #expect(aChecks[3]["symbols"]?.array?.compactMap(\.string) == ["AAPL", "MSFT"])
                    let bChecks = b?["checks"]?.array ?? []
                    #expect(bChecks[0]["count"] == .int(1) && bChecks[0]["needed"] == .int(2))
                    #expect(bChecks[0]["detail"] == .string("1 of 2 trades made"))
                    #expect(bChecks[1]["done"] == .bool(false) && bChecks[2]["orders"]?.array?.count == 1)
                }
                // The teacher's report on Alice: her holdings, her orders with their notes, her progress; Bob may read
                // his own report and not hers.
                try await client.execute(uri: "/api/v1/classes/\(id)/students/alice", method: .get, headers: teacher) {
                    r in
                    let report = f.json(r)
                    #expect(
                        Set((report["positions"]?.array ?? []).compactMap { $0["symbol"]?.string }) == ["AAPL", "MSFT"])
                    #expect(report["orders"]?.array?.compactMap { $0["note"]?.string }.count == 2)
                    #expect(report["assignments"]?.array?.first?["done"] == .bool(true))
                }
                try await client.execute(uri: "/api/v1/classes/\(id)/students/alice", method: .get, headers: bob) { r in
                    #expect(r.status == .notFound)
                }
                try await client.execute(uri: "/api/v1/classes/\(id)/students/bob", method: .get, headers: bob) { r in
                    #expect(r.status == .ok && f.json(r)["orders"]?.array?.count == 1)
                }
                // A student sees their own progress only.
                try await client.execute(uri: "/api/v1/classes/\(id)/progress", method: .get, headers: bob) { r in
                    #expect(f.json(r).array?.count == 1)
                    #expect(f.json(r).array?.first?["student"]?["username"] == .string("bob"))
                }
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/assignments/\(task)/marks/bob", method: .put, headers: teacher,
                    body: body(#"{"mark":"B+"}"#)
                ) { r in #expect(r.status == .ok) }
                try await client.execute(
                    uri: "/api/v1/classes/\(id)/assignments/\(task)/marks/bob", method: .put, headers: bob,
                    body: body(#"{"mark":"A+"}"#)
                ) { r in #expect(r.status == .forbidden) }
                var csvHeaders = teacher
                csvHeaders[.accept] = "text/csv"
                try await client.execute(uri: "/api/v1/classes/\(id)/gradebook", method: .get, headers: csvHeaders) {
                    r in
                    #expect(r.headers[.contentType]?.hasPrefix("text/csv") == true)
                    let rows = String(buffer: r.body).components(separatedBy: "\r\n").filter { !$0.isEmpty }
                    #expect(
                        rows == [
                            "username,display_name,Week 1,Essay", "alice,Alice A,done,not done",
                            "bob,\"Bob, B\",not done,B+",
                        ])
                }
                try await client.execute(uri: "/api/v1/classes/\(id)/gradebook", method: .get, headers: bob) { r in
                    #expect(r.status == .forbidden)
                }
                // The teacher changes Week 1 to one trade (Bob's one now does it) and retitles the essay: its mark
                // stays. A student may not change either; bad checks change nothing.
                let oneTrade = #"{"title": "Week 1: one trade", "checks": [{"kind": "trades", "count": 1}]}"#
                let path = "/api/v1/classes/\(id)/assignments"
                try await client.execute(
                    uri: "\(path)/\(assignment)", method: .patch, headers: bob, body: body(oneTrade)
                ) { r in #expect(r.status == .forbidden) }
                try await client.execute(
                    uri: "\(path)/\(assignment)", method: .patch, headers: teacher,
                    body: body(#"{"checks": [{"kind": "trades", "count": 0}]}"#)
                ) { r in #expect(r.status == .unprocessableContent) }
                try await client.execute(
                    uri: "\(path)/\(assignment)", method: .patch, headers: teacher, body: body(oneTrade)
                ) { r in
                    #expect(r.status == .ok, "\(String(buffer: r.body))")
                    #expect(f.json(r)["title"] == .string("Week 1: one trade") && f.json(r)["due"] != nil)
                    #expect(f.json(r)["checks"]?.array?.count == 1)
                }
                try await client.execute(
                    uri: "\(path)/\(task)", method: .patch, headers: teacher,
                    body: body(#"{"title": "Essay (500 words)"}"#)
                ) { r in #expect(r.status == .ok) }
                func gradebookRows() async throws -> [String] {
                    try await client.execute(uri: "/api/v1/classes/\(id)/gradebook", method: .get, headers: csvHeaders)
                    {
                        r in String(buffer: r.body).components(separatedBy: "\r\n").filter { !$0.isEmpty }
                    }
                }
                #expect(
                    try await gradebookRows() == [
                        "username,display_name,Week 1: one trade,Essay (500 words)", "alice,Alice A,done,not done",
                        "bob,\"Bob, B\",done,B+",
                    ])
                // Deleted, the essay and its mark are gone; again, or an id the class does not have, is 404.
                try await client.execute(uri: "\(path)/\(task)", method: .delete, headers: bob) { r in
                    #expect(r.status == .forbidden)
                }
                try await client.execute(uri: "\(path)/\(task)", method: .delete, headers: teacher) { r in
                    #expect(r.status == .noContent)
                }
                #expect(
                    try await gradebookRows() == [
                        "username,display_name,Week 1: one trade", "alice,Alice A,done", "bob,\"Bob, B\",done",
                    ])
                for missing in [task, UUID().uuidString.lowercased(), "not-an-id"] {
                    try await client.execute(uri: "\(path)/\(missing)", method: .delete, headers: teacher) { r in
                        #expect(r.status == .notFound)
                    }
                    try await client.execute(
                        uri: "\(path)/\(missing)", method: .patch, headers: teacher, body: body(oneTrade)
                    ) { r in #expect(r.status == .notFound) }
                }
            }
        }
    }

    @Test(
        "a class that asks for a journal refuses an order without a note, in English and in Chinese; the note stays on the order and in the teacher's journal"
    )
    func journal() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let teacher = try await games.session(client, "teacher")
                let id = try #require(
                    try await makeClass(
                        client, f, teacher,
                        #"{"name": "Finance", "market": "us", "starting_cash": "50000", "require_journal": true, "rules": {"max_position_percent": "20"}}"#
                    )["id"]?.string)
                let students = try await importRoster(client, f, teacher, id, "username,display_name\nmei,Mei\n")
                let account = students["mei"]?.account ?? ""
                let mei = try await login(client, f, "mei", students["mei"]?.password ?? "").1
                let plain = #"{"symbol":"AAPL","qty":"1","side":"buy","type":"market","time_in_force":"day"}"#
                for (language, words) in [
                    ("en", "This class asks for a journal note on every order"), ("zh-Hans", "本班级要求每笔委托都写交易日志"),
                ] {
                    try await client.execute(
                        uri: "/api/v1/me", method: .put, headers: mei, body: body(#"{"language":"\#(language)"}"#)
                    ) { #expect($0.status == .ok) }
                    let (status, refusal) = try await games.order(client, f, mei, account: account, plain)
                    #expect(status == .forbidden)
                    #expect(refusal["message"]?.string?.contains(words) == true, "\(refusal)")
                    let (blank, _) = try await games.order(
                        client, f, mei, account: account, plain.replacingOccurrences(of: "}", with: #","note":"   "}"#))
                    #expect(blank == .forbidden)
                }
                let noted = plain.replacingOccurrences(of: "}", with: #","note":"Buying on the earnings beat"}"#)
                let (status, order) = try await games.order(client, f, mei, account: account, noted)
                #expect(status == .created && order["note"] == .string("Buying on the earnings beat"))
                // The class's position cap refuses the order that would take AAPL past 20% of equity.
                let big =
                    #"{"symbol":"AAPL","notional":"11000","side":"buy","type":"market","time_in_force":"day","note":"All in"}"#
                let (capped, capRefusal) = try await games.order(client, f, mei, account: account, big)
                #expect(capped == .forbidden)
                #expect(capRefusal["message"]?.string?.contains("20%") == true, "\(capRefusal)")
                try await client.execute(uri: "/api/v1/classes/\(id)/journal", method: .get, headers: teacher) { r in
                    let lines = f.json(r).array ?? []
                    #expect(lines.count == 1 && lines.first?["username"] == .string("mei"))
                    #expect(lines.first?["order"]?["note"] == .string("Buying on the earnings beat"))
                }
                var csv = teacher
                csv[.accept] = "text/csv"
                try await client.execute(uri: "/api/v1/classes/\(id)/journal", method: .get, headers: csv) { r in
                    let rows = String(buffer: r.body).components(separatedBy: "\r\n").filter { !$0.isEmpty }
                    #expect(
                        rows.count == 2 && rows[1].hasPrefix("mei,")
                            && rows[1].hasSuffix(",Buying on the earnings beat"))
                }
            }
        }
    }

    @Test("a student cannot read another class (404) nor their own class's roster (403); a stranger sees nothing")
    func access() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let first = try await games.session(client, "teacher1")
                let second = try await games.session(client, "teacher2")
                let stranger = try await games.session(client, "stranger")
                let a = try #require(try await makeClass(client, f, first, Self.econ)["id"]?.string)
                let b = try #require(try await makeClass(client, f, second, Self.econ)["id"]?.string)
                let students = try await importRoster(client, f, first, a, "username,display_name\nkim,Kim\n")
                let kim = try await login(client, f, "kim", students["kim"]?.password ?? "").1
                for path in ["", "/roster", "/assignments", "/progress", "/journal", "/rankings", "/gradebook"] {
                    try await client.execute(uri: "/api/v1/classes/\(b)\(path)", method: .get, headers: kim) { r in
                        #expect(r.status == .notFound, "\(path)")
                    }
                    try await client.execute(uri: "/api/v1/classes/\(a)\(path)", method: .get, headers: stranger) {
                        r in #expect(r.status == .notFound, "\(path)")
                    }
                }
                try await client.execute(uri: "/api/v1/classes/\(a)/roster", method: .get, headers: kim) { r in
                    #expect(r.status == .forbidden)
                }
                try await client.execute(uri: "/api/v1/classes/\(a)/rankings", method: .get, headers: kim) { r in
                    #expect(r.status == .ok)
                    #expect(f.json(r)["students"]?.array?.first?["username"] == .string("kim"))
                }
                // A co-teacher gets the teacher's powers.
                try await client.execute(
                    uri: "/api/v1/classes/\(a)/teachers", method: .post, headers: first,
                    body: body(#"{"username":"teacher2"}"#)
                ) { r in #expect(r.status == .ok) }
                try await client.execute(uri: "/api/v1/classes/\(a)/roster", method: .get, headers: second) { r in
                    #expect(r.status == .ok && f.json(r).array?.count == 1)
                }
            }
        }
    }
}
