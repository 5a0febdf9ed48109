import Foundation

/// A class: a teacher's roster, assignments and grade book on a private game of its own (the game's market, cash,
/// dates and rules; each student's class account is that game's account).
public struct Classroom: Codable, Hashable, Sendable, Identifiable {
    public var id: String
    public var name: String
    /// `teacher` or `student`: what the caller is in it.
    public var role: String
    public var market: Market
    @ExactDecimal public var startingCash: Decimal
    /// Every order of a student needs a journal note.
    public var requireJournal: Bool
    /// What students type to join (teachers only).
    public var joinCode: String?
    public var gameID: String
    public var students: Int
    /// The account the student trades in the class: their team's, else their own (students only).
    public var accountID: String?
    /// The student's team (students only; nil: they trade alone).
    public var team: String?
    /// The teachers' usernames, the one who made it first.
    public var teachers: [String]
    public var rules: Game.Rules?

    public var isTeacher: Bool { role == "teacher" }

    enum CodingKeys: String, CodingKey {
        case id, name, role, market, students, teachers, rules, team
        case startingCash = "starting_cash", requireJournal = "require_journal", joinCode = "join_code"
        case gameID = "game_id", accountID = "account_id"
    }
}

/// What a class is made with: a game's settings (market, cash, dates, rules) and whether orders need a note.
public struct ClassSettings: Encodable, Hashable, Sendable {
    public var game: GameSettings
    public var requireJournal: Bool

    public init(game: GameSettings, requireJournal: Bool = false) {
        self.game = game
        self.requireJournal = requireJournal
    }

    enum CodingKeys: String, CodingKey { case requireJournal = "require_journal" }

    public func encode(to encoder: any Encoder) throws {
        try game.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(requireJournal, forKey: .requireJournal)
    }
}

/// A student on a class's roster.
public struct ClassStudent: Codable, Hashable, Sendable {
    public var username: String
    public var displayName: String
    public var email: String?
    public var accountID: String
    /// When the student joined the roster.
    @OptionalServerTime public var addedAt: Date?
    /// Set on a student a teacher took off the roster.
    @OptionalServerTime public var removedAt: Date?
    /// The student's last log-in (nil: never).
    @OptionalServerTime public var lastLoginAt: Date?
    /// The student's team and the account its members share (nil: they trade their own, `accountID`).
    public var team: String?
    public var teamAccountID: String?

    enum CodingKeys: String, CodingKey {
        case username, email, team
        case displayName = "display_name", accountID = "account_id", removedAt = "removed_at"
        case lastLoginAt = "last_login_at", addedAt = "added_at", teamAccountID = "team_account_id"
    }
}

/// A class's team: students sharing one portfolio (an account in the class's game, on its board under the team's
/// name). Grading, the journal, reports and rankings follow it.
public struct ClassTeam: Codable, Hashable, Sendable {
    public struct Member: Codable, Hashable, Sendable {
        public var username: String
        public var displayName: String

        enum CodingKeys: String, CodingKey {
            case username
            case displayName = "display_name"
        }
    }

    public var name: String
    public var accountID: String
    /// In roster order; the first owns the account (every member trades it alike).
    public var members: [Member]

    enum CodingKeys: String, CodingKey {
        case name, members
        case accountID = "account_id"
    }
}

/// A student a roster import created, with the password shown this once (changed at their first log-in).
public struct EnrolledStudent: Codable, Hashable, Sendable {
    public var username: String
    public var displayName: String
    public var initialPassword: String
    public var accountID: String

    enum CodingKeys: String, CodingKey {
        case username
        case displayName = "display_name", initialPassword = "initial_password", accountID = "account_id"
    }
}

/// An assignment: checks read from each student's ledger up to the due time (and tasks a teacher marks).
public struct Assignment: Codable, Hashable, Sendable, Identifiable {
    /// One check: `kind` is trades, order_type, holdings, max_position, journal, beat_benchmark or task.
    public struct Check: Codable, Hashable, Sendable {
        public var kind: String
        public var count: Int?
        public var types: [String]?
        /// holdings: `symbols` or `sectors`.
        public var by: String?
        @OptionalExactDecimal public var percent: Decimal?
        public var text: String?

        public init(
            kind: String, count: Int? = nil, types: [String]? = nil, by: String? = nil, percent: Decimal? = nil,
            text: String? = nil
        ) {
            self.kind = kind
            self.count = count
            self.types = types
            self.by = by
            self.percent = percent
            self.text = text
        }

        public static func trades(_ count: Int) -> Check { Check(kind: "trades", count: count) }
        public static func orderType(_ types: [String]) -> Check { Check(kind: "order_type", types: types) }
        public static func holdings(_ count: Int, bySector: Bool = false) -> Check {
            Check(kind: "holdings", count: count, by: bySector ? "sectors" : "symbols")
        }
        public static func maxPosition(percent: Decimal) -> Check { Check(kind: "max_position", percent: percent) }
        public static let journal = Check(kind: "journal")
        public static let beatBenchmark = Check(kind: "beat_benchmark")
        public static func task(_ text: String) -> Check { Check(kind: "task", text: text) }
    }

    public var id: String
    public var title: String
    @ServerTime public var due: Date
    public var checks: [Check]
}

/// One student's progress on one assignment: done or not, the teacher's mark, and each check with what satisfied it.
public struct AssignmentProgress: Codable, Hashable, Sendable {
    /// A check's state: its count against what it needs, or its figure against its limit, and the orders and symbols
    /// that counted; `detail` says it in words.
    public struct CheckProgress: Codable, Hashable, Sendable {
        public var check: Assignment.Check
        public var done: Bool
        public var detail: String
        /// The ids of the orders that counted.
        public var orders: [String]
        public var symbols: [String]
        public var count: Int?
        public var needed: Int?
        @OptionalExactDecimal public var value: Decimal?
        @OptionalExactDecimal public var limit: Decimal?
    }

    public var assignmentID: String
    public var title: String
    @ServerTime public var due: Date
    public var done: Bool
    public var mark: String?
    public var checks: [CheckProgress]

    enum CodingKeys: String, CodingKey {
        case title, due, done, mark, checks
        case assignmentID = "assignment_id"
    }
}

/// A student and their progress on every assignment of the class.
public struct StudentProgress: Codable, Hashable, Sendable {
    public var student: ClassStudent
    public var assignments: [AssignmentProgress]
}

/// An order of a class's journal, with its student (the note is the order's `note`) — on a team's account, the team
/// and its first member (a shared account does not record which member placed it).
public struct ClassJournalLine: Codable, Hashable, Sendable {
    public var username: String
    public var displayName: String
    public var team: String?
    public var order: Order

    enum CodingKeys: String, CodingKey {
        case username, order, team
        case displayName = "display_name"
    }
}

/// The class's rankings, best return first, with the figures' definitions.
public struct ClassRankings: Codable, Hashable, Sendable {
    public struct Line: Codable, Hashable, Sendable {
        public var rank: Int
        public var username: String
        public var displayName: String
        @ExactDecimal public var equity: Decimal
        /// Fraction since the start (0.05 = +5%).
        @OptionalExactDecimal public var `return`: Decimal?
        @OptionalExactDecimal public var sharpe: Decimal?
        @OptionalExactDecimal public var sortino: Decimal?
        @OptionalExactDecimal public var maxDrawdown: Decimal?
        @OptionalExactDecimal public var volatility: Decimal?
        /// Against the class's benchmark index.
        @OptionalExactDecimal public var alpha: Decimal?
        @OptionalExactDecimal public var beta: Decimal?
        /// Yearly excess return per unit of beta (nil when beta is near 0).
        @OptionalExactDecimal public var treynor: Decimal?
        /// Daily returns the figures are made of.
        public var days: Int
        public var trades: Int
        /// A team's line: its name and its members' usernames (`username` is its first).
        public var team: String?
        public var members: [String]

        enum CodingKeys: String, CodingKey {
            case rank, username, equity, `return`, sharpe, sortino, volatility, alpha, beta, treynor, days, trades
            case team, members
            case displayName = "display_name", maxDrawdown = "max_drawdown"
        }
    }

    public var students: [Line]
    /// What each figure means, by its field name.
    public var definitions: [String: String]
}

/// A student's report: their progress, holdings, orders with their journal notes, and equity at recent closes.
public struct StudentReport: Codable, Hashable, Sendable {
    public struct Close: Codable, Hashable, Sendable {
        /// The trading day, `YYYY-MM-DD`.
        public var date: String
        @ExactDecimal public var equity: Decimal
    }

    public var student: ClassStudent
    public var assignments: [AssignmentProgress]
    public var orders: [Order]
    public var closes: [Close]
    public var currency: String?
    @OptionalExactDecimal public var equity: Decimal?
    @OptionalExactDecimal public var cash: Decimal?
    public var positions: [Position]?
}
