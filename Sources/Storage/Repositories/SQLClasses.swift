import BrokerageModel
import SQLKit
import TradingCore

/// Classes, their teachers, rosters, assignments and marks. The SQL of `ClassRepository`, on SQLite and PostgreSQL.
/// Classes are read from the database on each request (a class is tens of rows), so every node of a cluster sees
/// the same roster without a cache to refresh.
public struct SQLClasses: ClassRepository {
    let database: Storage

    public init(_ database: Storage) { self.database = database }
}

extension SQLClasses {
    // MARK: Classes and teachers

    public func createClass(_ record: ClassRecord) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                INSERT INTO classes (id, game_id, name, created_at)
                VALUES (\(bind: record.id.description), \(bind: record.gameID.description), \(bind: record.name),
                        \(bind: record.createdAt.nanoseconds))
                """
            ).run()
            try await Self.writeTeachers(record, into: db)
        }
    }

    public func saveClass(_ record: ClassRecord) async throws {
        try await database.transaction { db in
            try await db.raw("UPDATE classes SET name = \(bind: record.name) WHERE id = \(bind: record.id.description)")
                .run()
            try await db.raw("DELETE FROM class_teachers WHERE class_id = \(bind: record.id.description)").run()
            try await Self.writeTeachers(record, into: db)
        }
    }

    static func writeTeachers(_ record: ClassRecord, into db: any SQLDatabase) async throws {
        for (position, teacher) in record.teachers.enumerated() {
            try await db.raw(
                """
                INSERT INTO class_teachers (class_id, user_id, position)
                VALUES (\(bind: record.id.description), \(bind: teacher.text), \(bind: position))
                """
            ).run()
        }
    }

    public func classRecord(_ id: ClassID) async throws -> ClassRecord? {
        try await database.read { db in
            guard let row = try await db.raw("SELECT * FROM classes WHERE id = \(bind: id.description)").first()
            else { return nil }
            return try await Self.record(row, teachers: Self.teachers(of: id, in: db))
        }
    }

    public func classes(of user: UserID) async throws -> [ClassRecord] {
        try await database.read { db in
            let rows = try await db.raw(
                """
                SELECT * FROM classes WHERE id IN (SELECT class_id FROM class_teachers WHERE user_id = \(bind: user.text))
                    OR id IN (SELECT class_id FROM class_students WHERE user_id = \(bind: user.text))
                ORDER BY created_at
                """
            ).all()
            var records: [ClassRecord] = []
            for row in rows {
                guard let id = ClassID(try row.decode(column: "id", as: String.self)) else {
                    throw StorageError.corrupt("class row")
                }
                records.append(try Self.record(row, teachers: try await Self.teachers(of: id, in: db)))
            }
            return records
        }
    }

    static func teachers(of id: ClassID, in db: any SQLDatabase) async throws -> [UserID] {
        try await db.raw(
            "SELECT user_id FROM class_teachers WHERE class_id = \(bind: id.description) ORDER BY position"
        ).all().map { UserID(try $0.decode(column: "user_id", as: String.self)) }
    }

    static func record(_ row: any SQLRow, teachers: [UserID]) throws -> ClassRecord {
        guard let id = ClassID(try row.decode(column: "id", as: String.self)),
            let game = GameID(try row.decode(column: "game_id", as: String.self))
        else { throw StorageError.corrupt("class row") }
        return ClassRecord(
            id: id, gameID: game, name: try row.decode(column: "name", as: String.self), teachers: teachers,
            createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)))
    }

    // MARK: Roster

    public func enroll(_ students: [ClassStudentRecord], creating users: [UserRecord]) async throws {
        try await database.transaction { db in
            for user in users { try await SQLUsers.insert(user, into: db) }
            for student in students {
                let existing = try await db.raw(
                    """
                    SELECT user_id FROM class_students WHERE class_id = \(bind: student.classID.description)
                        AND user_id = \(bind: student.userID.text)
                    """
                ).first()
                guard existing == nil else { throw StorageError.duplicate("student \(student.username)") }
                try await db.raw(
                    """
                    INSERT INTO class_students (class_id, user_id, username, display_name, email, account_id, added_at)
                    VALUES (\(bind: student.classID.description), \(bind: student.userID.text),
                            \(bind: student.username), \(bind: student.displayName), \(bind: student.email),
                            \(bind: student.accountID.description), \(bind: student.addedAt.nanoseconds))
                    """
                ).run()
            }
        }
    }

    public func saveStudent(_ student: ClassStudentRecord) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                UPDATE class_students SET display_name = \(bind: student.displayName), email = \(bind: student.email),
                    removed_at = \(bind: student.removedAt?.nanoseconds)
                WHERE class_id = \(bind: student.classID.description) AND user_id = \(bind: student.userID.text)
                """
            ).run()
        }
    }

    public func students(of id: ClassID) async throws -> [ClassStudentRecord] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT s.*, u.last_login_at FROM class_students s JOIN users u ON u.id = s.user_id
                WHERE s.class_id = \(bind: id.description) ORDER BY s.added_at, s.username
                """
            ).all().map { row in
                guard let account = AccountID(try row.decode(column: "account_id", as: String.self)) else {
                    throw StorageError.corrupt("class student row")
                }
                return ClassStudentRecord(
                    classID: id, userID: UserID(try row.decode(column: "user_id", as: String.self)),
                    username: try row.decode(column: "username", as: String.self),
                    displayName: try row.decode(column: "display_name", as: String.self),
                    email: try row.decode(column: "email", as: String?.self), accountID: account,
                    addedAt: Timestamp(nanoseconds: try row.decode(column: "added_at", as: Int64.self)),
                    removedAt: try row.decode(column: "removed_at", as: Int64?.self).map(Timestamp.init(nanoseconds:)),
                    lastLoginAt: try row.decode(column: "last_login_at", as: Int64?.self).map(
                        Timestamp.init(nanoseconds:)),
                    team: try row.decode(column: "team", as: String?.self),
                    teamAccountID: try row.decode(column: "team_account_id", as: String?.self).flatMap(
                        AccountID.init))
            }
        }
    }

    // MARK: Teams

    public func formTeam(_ name: String, account: AccountID, members: [UserID], in classID: ClassID) async throws {
        try await database.transaction { db in
            let taken = try await db.raw(
                """
                SELECT user_id FROM class_students WHERE class_id = \(bind: classID.description) AND team = \(bind: name)
                """
            ).first()
            guard taken == nil else { throw StorageError.duplicate("team \(name)") }
            for member in members {
                let free = try await db.raw(
                    """
                    SELECT user_id FROM class_students WHERE class_id = \(bind: classID.description)
                        AND user_id = \(bind: member.text) AND team IS NULL AND removed_at IS NULL
                    """
                ).first()
                guard free != nil else { throw StorageError.duplicate("a team member of \(member.text)") }
                try await db.raw(
                    """
                    UPDATE class_students SET team = \(bind: name), team_account_id = \(bind: account.description)
                    WHERE class_id = \(bind: classID.description) AND user_id = \(bind: member.text)
                    """
                ).run()
            }
        }
    }

    public func disbandTeam(_ name: String, in classID: ClassID) async throws -> Bool {
        try await database.transaction { db in
            let found = try await db.raw(
                """
                SELECT user_id FROM class_students WHERE class_id = \(bind: classID.description) AND team = \(bind: name)
                """
            ).first()
            guard found != nil else { return false }
            try await db.raw(
                """
                UPDATE class_students SET team = NULL, team_account_id = NULL
                WHERE class_id = \(bind: classID.description) AND team = \(bind: name)
                """
            ).run()
            return true
        }
    }

    public func teamAccounts(of user: UserID) async throws -> [AccountID] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT team_account_id FROM class_students
                WHERE user_id = \(bind: user.text) AND team_account_id IS NOT NULL AND removed_at IS NULL
                """
            ).all().compactMap { AccountID(try $0.decode(column: "team_account_id", as: String.self)) }
        }
    }

    public func teamMembers(of account: AccountID) async throws -> [UserID] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT user_id FROM class_students
                WHERE team_account_id = \(bind: account.description) AND removed_at IS NULL ORDER BY added_at, user_id
                """
            ).all().map { UserID(try $0.decode(column: "user_id", as: String.self)) }
        }
    }

    public func teamMembers(inShard shard: ShardID) async throws -> [AccountID: [UserID]] {
        try await database.read { db in
            var members: [AccountID: [UserID]] = [:]
            for row in try await db.raw(
                """
                SELECT s.team_account_id, s.user_id FROM class_students s JOIN accounts a ON a.id = s.team_account_id
                WHERE a.shard = \(bind: shard.index) AND s.removed_at IS NULL ORDER BY s.added_at, s.user_id
                """
            ).all() {
                guard let account = AccountID(try row.decode(column: "team_account_id", as: String.self)) else {
                    continue
                }
                members[account, default: []].append(UserID(try row.decode(column: "user_id", as: String.self)))
            }
            return members
        }
    }

    public func teamMembersByShard() async throws -> [ShardID: [AccountID: [UserID]]] {
        try await database.read { db in
            var members: [ShardID: [AccountID: [UserID]]] = [:]
            for row in try await db.raw(
                """
                SELECT a.shard, s.team_account_id, s.user_id FROM class_students s
                JOIN accounts a ON a.id = s.team_account_id
                WHERE s.team_account_id IS NOT NULL AND s.removed_at IS NULL ORDER BY s.added_at, s.user_id
                """
            ).all() {
                guard let account = AccountID(try row.decode(column: "team_account_id", as: String.self)) else {
                    continue
                }
                let shard = ShardID(try row.decode(column: "shard", as: Int.self))
                members[shard, default: [:]][account, default: []].append(
                    UserID(try row.decode(column: "user_id", as: String.self)))
            }
            return members
        }
    }

    // MARK: Assignments and marks

    public func saveAssignment(_ a: AssignmentRecord) async throws {
        let checks = try Coding.encode(a.checks)
        // (Updated in place: its marks refer to it.)
        try await database.transaction { db in
            try await db.raw(
                """
                INSERT INTO assignments (id, class_id, title, due, checks, created_at)
                VALUES (\(bind: a.id.description), \(bind: a.classID.description), \(bind: a.title),
                        \(bind: a.due.nanoseconds), \(bind: checks), \(bind: a.createdAt.nanoseconds))
                ON CONFLICT (id) DO UPDATE SET title = excluded.title, due = excluded.due, checks = excluded.checks
                """
            ).run()
        }
    }

    public func deleteAssignment(_ id: AssignmentID, of classID: ClassID) async throws -> Bool {
        try await database.transaction { db in
            let found = try await db.raw(
                """
                SELECT id FROM assignments WHERE id = \(bind: id.description) AND class_id = \(bind: classID.description)
                """
            ).first()
            guard found != nil else { return false }
            try await db.raw("DELETE FROM assignment_marks WHERE assignment_id = \(bind: id.description)").run()
            try await db.raw("DELETE FROM assignments WHERE id = \(bind: id.description)").run()
            return true
        }
    }

    public func assignments(of id: ClassID) async throws -> [AssignmentRecord] {
        try await database.read { db in
            try await db.raw(
                "SELECT * FROM assignments WHERE class_id = \(bind: id.description) ORDER BY due, created_at"
            ).all().map { row in
                guard let assignment = AssignmentID(try row.decode(column: "id", as: String.self)) else {
                    throw StorageError.corrupt("assignment row")
                }
                return AssignmentRecord(
                    id: assignment, classID: id, title: try row.decode(column: "title", as: String.self),
                    due: Timestamp(nanoseconds: try row.decode(column: "due", as: Int64.self)),
                    checks: try Coding.decode(
                        [AssignmentCheck].self, try row.decode(column: "checks", as: String.self)),
                    createdAt: Timestamp(nanoseconds: try row.decode(column: "created_at", as: Int64.self)))
            }
        }
    }

    public func saveMark(_ m: AssignmentMark) async throws {
        try await database.transaction { db in
            let classID = try await db.raw(
                "SELECT class_id FROM assignments WHERE id = \(bind: m.assignmentID.description)"
            ).first()?.decode(column: "class_id", as: String.self)
            guard let classID else { throw StorageError.notFound("assignment \(m.assignmentID)") }
            try await db.raw(
                """
                INSERT INTO assignment_marks (assignment_id, student_id, class_id, mark, marked_by, marked_at)
                VALUES (\(bind: m.assignmentID.description), \(bind: m.studentID.text), \(bind: classID),
                        \(bind: m.mark), \(bind: m.markedBy.text), \(bind: m.markedAt.nanoseconds))
                ON CONFLICT (assignment_id, student_id) DO UPDATE SET mark = excluded.mark,
                    marked_by = excluded.marked_by, marked_at = excluded.marked_at
                """
            ).run()
        }
    }

    public func marks(of id: ClassID) async throws -> [AssignmentMark] {
        try await database.read { db in
            try await db.raw("SELECT * FROM assignment_marks WHERE class_id = \(bind: id.description)").all().map {
                row in
                guard let assignment = AssignmentID(try row.decode(column: "assignment_id", as: String.self)) else {
                    throw StorageError.corrupt("assignment mark row")
                }
                return AssignmentMark(
                    assignmentID: assignment, studentID: UserID(try row.decode(column: "student_id", as: String.self)),
                    mark: try row.decode(column: "mark", as: String.self),
                    markedBy: UserID(try row.decode(column: "marked_by", as: String.self)),
                    markedAt: Timestamp(nanoseconds: try row.decode(column: "marked_at", as: Int64.self)))
            }
        }
    }
}
