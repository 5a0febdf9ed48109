import Foundation

/// Classes (a session: classes belong to users): a teacher's class, roster, assignments and grade book; a student's
/// class and progress.
extension PapertradeClient {
    /// Replaces the user's password (a student's first log-in with a handed-out one); the answer is the user, no
    /// longer asked to change it.
    public func changePassword(current: String, new: String) async throws(PapertradeError) -> User {
        struct Body: Encodable {
            var current_password: String
            var new_password: String
        }
        return try await send("PUT", "me/password", body: encode(Body(current_password: current, new_password: new)))
    }

    /// The classes the user teaches or studies in.
    public func classes() async throws(PapertradeError) -> [Classroom] {
        try await send("GET", "classes")
    }

    public func classroom(_ id: String) async throws(PapertradeError) -> Classroom {
        try await send("GET", "classes/\(Self.segment(id))")
    }

    /// Makes a class (the caller teaches it) on a private game of its own.
    public func createClass(_ settings: ClassSettings) async throws(PapertradeError) -> Classroom {
        try await send("POST", "classes", body: encode(settings))
    }

    /// Joins a class as a student with its code.
    public func joinClass(code: String) async throws(PapertradeError) -> Classroom {
        struct Body: Encodable { var code: String }
        return try await send("POST", "classes/join", body: encode(Body(code: code)))
    }

    /// Imports students from CSV text (`username,display_name[,email]` with a header line): each is created with a
    /// password shown in the answer this once. A bad line refuses the whole file (the error names every line).
    public func importRoster(_ classID: String, csv: String) async throws(PapertradeError) -> [EnrolledStudent] {
        struct Answer: Decodable { var students: [EnrolledStudent] }
        let (data, _) = try await exchange(
            "POST", "classes/\(Self.segment(classID))/roster", body: Data(csv.utf8), contentType: "text/csv")
        return try decode(Answer.self, from: data).students
    }

    public func roster(_ classID: String) async throws(PapertradeError) -> [ClassStudent] {
        try await send("GET", "classes/\(Self.segment(classID))/roster")
    }

    public func assignments(_ classID: String) async throws(PapertradeError) -> [Assignment] {
        try await send("GET", "classes/\(Self.segment(classID))/assignments")
    }

    public func createAssignment(_ classID: String, title: String, due: Date, checks: [Assignment.Check])
        async throws(PapertradeError) -> Assignment
    {
        struct Body: Encodable {
            var title: String
            var due: String
            var checks: [Assignment.Check]
        }
        return try await send(
            "POST", "classes/\(Self.segment(classID))/assignments",
            body: encode(Body(title: title, due: ServerTime.text(due), checks: checks)))
    }

    /// Changes an assignment (a teacher): what is nil stays. Its marks stay; progress is read again.
    public func editAssignment(
        _ classID: String, assignment id: String, title: String? = nil, due: Date? = nil,
        checks: [Assignment.Check]? = nil
    ) async throws(PapertradeError) -> Assignment {
        struct Body: Encodable {
            var title: String?
            var due: String?
            var checks: [Assignment.Check]?
        }
        return try await send(
            "PATCH", "classes/\(Self.segment(classID))/assignments/\(Self.segment(id))",
            body: encode(Body(title: title, due: due.map(ServerTime.text), checks: checks)))
    }

    /// Deletes an assignment and its marks (a teacher).
    public func deleteAssignment(_ classID: String, assignment id: String) async throws(PapertradeError) {
        try await sendIgnoringBody("DELETE", "classes/\(Self.segment(classID))/assignments/\(Self.segment(id))")
    }

    /// A teacher's mark of a student's assignment: the grade book's cell; it completes a `task` check.
    public func markAssignment(_ classID: String, assignment id: String, student username: String, mark: String)
        async throws(PapertradeError)
    {
        struct Body: Encodable { var mark: String }
        try await sendIgnoringBody(
            "PUT",
            "classes/\(Self.segment(classID))/assignments/\(Self.segment(id))/marks/\(Self.segment(username))",
            body: encode(Body(mark: mark)))
    }

    /// Every student's progress on every assignment (a teacher), or the caller's own (a student).
    public func progress(_ classID: String) async throws(PapertradeError) -> [StudentProgress] {
        try await send("GET", "classes/\(Self.segment(classID))/progress")
    }

    /// The trade journal, newest first: the class's (a teacher) or the caller's own (a student).
    public func classJournal(_ classID: String) async throws(PapertradeError) -> [ClassJournalLine] {
        try await send("GET", "classes/\(Self.segment(classID))/journal")
    }

    /// Return, Sharpe, Sortino, maximum drawdown, volatility, alpha and beta of every student, best return first.
    public func rankings(_ classID: String) async throws(PapertradeError) -> ClassRankings {
        try await send("GET", "classes/\(Self.segment(classID))/rankings")
    }

    /// The class's teams (a teacher), or the caller's own (a student).
    public func teams(_ classID: String) async throws(PapertradeError) -> [ClassTeam] {
        try await send("GET", "classes/\(Self.segment(classID))/teams")
    }

    /// Forms a team of 2 to 5 students in no team (a teacher): they share a new account in the class's game, and
    /// their own accounts leave the game while they are in it.
    public func formTeam(_ classID: String, name: String, members: [String]) async throws(PapertradeError)
        -> ClassTeam
    {
        struct Body: Encodable {
            var name: String
            var members: [String]
        }
        return try await send(
            "POST", "classes/\(Self.segment(classID))/teams", body: encode(Body(name: name, members: members)))
    }

    /// Disbands a team (a teacher): its members trade their own accounts again, as they left them.
    public func disbandTeam(_ classID: String, name: String) async throws(PapertradeError) {
        try await sendIgnoringBody("DELETE", "classes/\(Self.segment(classID))/teams/\(Self.segment(name))")
    }

    /// A student's report (the class's teachers, or the student).
    public func studentReport(_ classID: String, student username: String) async throws(PapertradeError)
        -> StudentReport
    {
        try await send("GET", "classes/\(Self.segment(classID))/students/\(Self.segment(username))")
    }

    /// The grade book as CSV: a row per student, `username` first, a column per assignment titled with its title,
    /// cells `done`, `not done` or the teacher's mark.
    public func gradebookCSV(_ classID: String) async throws(PapertradeError) -> String {
        let (data, _) = try await exchange(
            "GET", "classes/\(Self.segment(classID))/gradebook", query: [URLQueryItem(name: "format", value: "csv")])
        return String(decoding: data, as: UTF8.self)
    }
}
