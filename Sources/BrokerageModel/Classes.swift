import TradingCore

public enum ClassIdentifierKind: IdentifierKind {}
public enum AssignmentIdentifierKind: IdentifierKind {}
/// A class: a teacher's roster, assignments and grade book on top of a game.
public typealias ClassID = TypedIdentifier<ClassIdentifierKind>
/// An assignment of a class.
public typealias AssignmentID = TypedIdentifier<AssignmentIdentifierKind>

/// A class runs on a game — its market, starting cash, dates, trading rules (the journal requirement among them),
/// join code and leaderboard are the game's, and each student's class account is that game's account — and adds
/// the teachers, the roster, assignments and marks.
public struct ClassRecord: Sendable, Hashable {
    public var id: ClassID
    public var gameID: GameID
    public var name: String
    /// Who teaches it; the first made it and owns its game. Every teacher has the same powers over the class.
    public var teachers: [UserID]
    public var createdAt: Timestamp

    public init(id: ClassID, gameID: GameID, name: String, teachers: [UserID], createdAt: Timestamp) {
        self.id = id
        self.gameID = gameID
        self.name = name
        self.teachers = teachers
        self.createdAt = createdAt
    }

    public func isTeacher(_ user: UserID) -> Bool { teachers.contains(user) }
}

/// A student on a class's roster: the user, the name the teacher knows them by, and their class account.
public struct ClassStudentRecord: Sendable, Hashable {
    public var classID: ClassID
    public var userID: UserID
    public var username: String
    public var displayName: String
    /// Optional: students without email log in with the username and password their teacher hands them.
    public var email: String?
    /// The student's account in the class's game.
    public var accountID: AccountID
    public var addedAt: Timestamp
    /// Set when a teacher took the student off the roster (their account stops trading; their work stays).
    public var removedAt: Timestamp?
    /// The student's last log-in (read with the roster; nil: never logged in).
    public var lastLoginAt: Timestamp?
    /// The team the student trades in (its name, unique in the class) and the portfolio its members share: while
    /// set, the student's work is the team account's (`tradingAccount`) and their own account is out of the game.
    public var team: String?
    public var teamAccountID: AccountID?

    /// The account the student trades and is graded on: their team's, else their own.
    public var tradingAccount: AccountID { teamAccountID ?? accountID }

    public init(
        classID: ClassID, userID: UserID, username: String, displayName: String, email: String?,
        accountID: AccountID, addedAt: Timestamp, removedAt: Timestamp? = nil, lastLoginAt: Timestamp? = nil,
        team: String? = nil, teamAccountID: AccountID? = nil
    ) {
        self.team = team
        self.teamAccountID = teamAccountID
        self.classID = classID
        self.userID = userID
        self.username = username
        self.displayName = displayName
        self.email = email
        self.accountID = accountID
        self.addedAt = addedAt
        self.removedAt = removedAt
        self.lastLoginAt = lastLoginAt
    }
}

/// One thing an assignment asks, checked from the student's ledger (never by hand) — except `task`, which the
/// teacher marks.
public enum AssignmentCheck: Sendable, Hashable {
    /// Make at least `count` trades (orders that filled, at least in part).
    case trades(count: Int)
    /// Place at least one order of one of these types (it need not fill: placing a stop is using one).
    case orderType([OrderType])
    /// Hold at least `count` different stocks — or stocks of `count` different sectors — at the same time.
    case holdings(count: Int, bySector: Bool)
    /// No position worth more than `percent` of the account's equity (checked on the portfolio as it stands, and on
    /// the due date's closing holdings once the assignment is due).
    case maxPosition(percent: FixedDecimal)
    /// A journal note on every trade (and at least one trade).
    case journal
    /// A return above the class benchmark's (S&P 500 or SSE Composite) since the class started.
    case beatBenchmark
    /// A task in the teacher's words, marked by the teacher.
    case task(String)

    /// The name the API and the grade book use.
    public var kind: String {
        switch self {
        case .trades: "trades"
        case .orderType: "order_type"
        case .holdings: "holdings"
        case .maxPosition: "max_position"
        case .journal: "journal"
        case .beatBenchmark: "beat_benchmark"
        case .task: "task"
        }
    }
}

/// Stored as `{"kind": …, …}`, the shape the API takes.
extension AssignmentCheck: Codable {
    enum CodingKeys: String, CodingKey {
        case kind, count, types, by, percent, text
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .kind) {
        case "trades": self = .trades(count: try c.decode(Int.self, forKey: .count))
        case "order_type": self = .orderType(try c.decode([OrderType].self, forKey: .types))
        case "holdings":
            self = .holdings(
                count: try c.decode(Int.self, forKey: .count),
                bySector: try c.decodeIfPresent(String.self, forKey: .by) == "sectors")
        case "max_position": self = .maxPosition(percent: try c.decode(FixedDecimal.self, forKey: .percent))
        case "journal": self = .journal
        case "beat_benchmark": self = .beatBenchmark
        case "task": self = .task(try c.decode(String.self, forKey: .text))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: c, debugDescription: "unknown assignment check \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        switch self {
        case .trades(let count): try c.encode(count, forKey: .count)
        case .orderType(let types): try c.encode(types, forKey: .types)
        case .holdings(let count, let bySector):
            try c.encode(count, forKey: .count)
            try c.encode(bySector ? "sectors" : "symbols", forKey: .by)
        case .maxPosition(let percent): try c.encode(percent, forKey: .percent)
        case .journal, .beatBenchmark: break
        case .task(let text): try c.encode(text, forKey: .text)
        }
    }
}

/// Work a class's teacher set, due at a time; done when every check is.
public struct AssignmentRecord: Sendable, Hashable {
    public var id: AssignmentID
    public var classID: ClassID
    public var title: String
    public var due: Timestamp
    public var checks: [AssignmentCheck]
    public var createdAt: Timestamp

    public init(
        id: AssignmentID, classID: ClassID, title: String, due: Timestamp, checks: [AssignmentCheck],
        createdAt: Timestamp
    ) {
        self.id = id
        self.classID = classID
        self.title = title
        self.due = due
        self.checks = checks
        self.createdAt = createdAt
    }

    /// Whether a teacher has something to mark (a task in their words).
    public var needsMark: Bool { checks.contains { if case .task = $0 { true } else { false } } }
}

/// A teacher's mark of a student's assignment (what the grade book shows for it).
public struct AssignmentMark: Sendable, Hashable {
    public var assignmentID: AssignmentID
    public var studentID: UserID
    public var mark: String
    public var markedBy: UserID
    public var markedAt: Timestamp

    public init(assignmentID: AssignmentID, studentID: UserID, mark: String, markedBy: UserID, markedAt: Timestamp) {
        self.assignmentID = assignmentID
        self.studentID = studentID
        self.mark = mark
        self.markedBy = markedBy
        self.markedAt = markedAt
    }
}
