import BrokerageModel
import MarketData
import TradingCore

/// A class as one of its members sees it.
public struct ClassView: Sendable {
    public enum Role: String, Sendable { case teacher, student }

    public var record: ClassRecord
    public var game: GameRecord
    public var role: Role
    /// Students on the roster (not removed).
    public var students: Int
    /// The account the student trades in the class: their team's, else their own (students only).
    public var account: AccountID?
    /// The student's team (students only; nil: they trade alone).
    public var team: String?
    /// Who sees it.
    public var viewer: UserID
}

/// A student's line in the class's rankings — or a team's, one line for all its members: return, risk-adjusted
/// figures over the daily closes since the class started, and trades.
public struct StudentFigures: Sendable {
    /// The student (a team's first member).
    public var student: ClassStudentRecord
    /// The team's name and members, on a team's line.
    public var team: String?
    public var members: [ClassStudentRecord] = []
    public var equity: FixedDecimal?
    public var totalReturn: FixedDecimal?
    public var figures: PerformanceFigures?
    public var relative: PerformanceMetrics.Relative?
    public var trades: Int
}

/// One student's report for their teacher (or themselves): the portfolio now, every assignment's progress, the
/// orders with their notes, and the closes since the class started (the performance chart).
public struct StudentReport: Sendable {
    public var student: ClassStudentRecord
    public var summary: AccountSummary?
    public var assignments: [AssignmentProgress]
    public var orders: [Order]
    public var closes: [EquityDay]
}

/// One journal line: an order and the note its student wrote — or, on a team's account, one of its members (the
/// line names the team and its first member: a shared account does not record which member placed an order).
public struct JournalLine: Sendable {
    public var student: ClassStudentRecord
    public var order: Order
    public var team: String?

    public init(student: ClassStudentRecord, order: Order, team: String? = nil) {
        self.student = student
        self.order = order
        self.team = team
    }
}

/// Classes (`brokerage.classes`): a teacher makes a class on a game of its own, imports a roster (students get
/// accounts in the game and passwords to change), sets assignments that are checked from each student's ledger,
/// marks what only a teacher can judge, and reads the journal, the rankings and the grade book. Students see their
/// class, their own work and the class's leaderboard; anyone else is told the class does not exist.
///
/// Records are read from storage on each call (a class is tens of rows), so every node of a cluster answers alike.
public struct Classrooms: Sendable {
    let storage: any ClassRepository
    let accountStorage: any AccountRepository
    let equityHistory: any EquityHistoryRepository
    let games: GameRegistry
    let users: UserDirectory
    let router: ShardRouter
    let market: SharedMarket
    let clock: MarketClock

    // MARK: Classes

    /// Makes a class and its game (private; the journal rule set as asked). `settings` are the game's.
    public func create(teacher: UserID, name: String, market: Market, settings: GameSettings)
        async throws(BrokerageError) -> ClassView
    {
        var settings = settings
        settings.visibility = .private
        let game = try await games.create(owner: teacher, name: name, market: market, settings: settings)
        var generator = SystemRandomNumberGenerator()
        let record = ClassRecord(
            id: ClassID(.random(using: &generator)), gameID: game.id, name: game.name, teachers: [teacher],
            createdAt: clock.now())
        try await stored { try await storage.createClass(record) }
        return ClassView(
            record: record, game: game, role: .teacher, students: 0, account: nil, team: nil, viewer: teacher)
    }

    /// The classes a user teaches or studies in, oldest first.
    public func classes(of user: UserID) async throws(BrokerageError) -> [ClassView] {
        var views: [ClassView] = []
        for record in try await stored({ try await storage.classes(of: user) }) {
            views.append(try await view(record, user: user))
        }
        return views
    }

    /// A class as `user` sees it; "not found" for anyone who neither teaches nor studies in it.
    public func view(_ id: ClassID, user: UserID) async throws(BrokerageError) -> ClassView {
        try await view(try await member(id, user: user), user: user)
    }

    func view(_ record: ClassRecord, user: UserID) async throws(BrokerageError) -> ClassView {
        await games.refresh(unlessKnown: record.gameID)
        guard let game = games.game(record.gameID) else { throw .notFound("class not found") }
        let roster = try await stored { try await storage.students(of: record.id) }
        let mine = roster.first { $0.userID == user && $0.removedAt == nil }
        return ClassView(
            record: record, game: game, role: record.isTeacher(user) ? .teacher : .student,
            students: roster.count { $0.removedAt == nil }, account: mine?.tradingAccount, team: mine?.team,
            viewer: user)
    }

    /// The class, if `user` teaches it or is on its roster; else "not found" (a class's existence is not revealed).
    func member(_ id: ClassID, user: UserID) async throws(BrokerageError) -> ClassRecord {
        guard let record = try await stored({ try await storage.classRecord(id) }) else {
            throw .notFound("class not found")
        }
        if record.isTeacher(user) { return record }
        let roster = try await stored { try await storage.students(of: id) }
        guard roster.contains(where: { $0.userID == user }) else { throw .notFound("class not found") }
        return record
    }

    /// The class, if `user` teaches it: a student is refused, anyone else told it does not exist.
    func taught(_ id: ClassID, by user: UserID) async throws(BrokerageError) -> ClassRecord {
        let record = try await member(id, user: user)
        guard record.isTeacher(user) else { throw .forbidden("only the class's teachers may do this") }
        return record
    }

    /// Adds a co-teacher by username.
    public func addTeacher(_ id: ClassID, by user: UserID, username: String) async throws(BrokerageError)
        -> ClassRecord
    {
        var record = try await taught(id, by: user)
        guard let teacher = try await users.user(username: username.lowercased()) else {
            throw .notFound("no user is called \(username)")
        }
        let roster = try await stored { try await storage.students(of: id) }
        guard !roster.contains(where: { $0.userID == teacher.id }) else {
            throw .conflict("\(username) is a student of this class")
        }
        guard !record.isTeacher(teacher.id) else { return record }
        record.teachers.append(teacher.id)
        try await stored { try await storage.saveClass(record) }
        return record
    }

    // MARK: Roster

    /// The class's roster (teachers only), each student's game account opened if an earlier import was cut short.
    public func roster(_ id: ClassID, by user: UserID) async throws(BrokerageError) -> [ClassStudentRecord] {
        let record = try await taught(id, by: user)
        let roster = try await stored { try await storage.students(of: id) }
        try await openAccounts(record, roster)
        try await arrangeGame(record, roster)
        return roster
    }

    /// Refuses a roster some of whose usernames are taken, naming their lines; nothing is created.
    public func checkNewStudents(_ id: ClassID, by user: UserID, _ roster: RosterImport)
        async throws(BrokerageError)
    {
        _ = try await taught(id, by: user)
        var problems: [RosterImport.Problem] = []
        for row in roster.rows where try await users.user(username: row.username) != nil {
            problems.append(.init(line: row.line, message: "the username \(row.username) is taken"))
        }
        try RosterImport.refuse(problems)
    }

    /// Creates the roster's students (their passwords hashed by the caller, in the roster's order; each to be
    /// changed at the first log-in) and opens their class accounts. The users and roster rows are one transaction;
    /// each account is then opened in the game under the id its row planned, and `roster` opens any that an
    /// interruption left unopened.
    public func enroll(_ id: ClassID, by user: UserID, _ roster: RosterImport, passwordHashes: [String])
        async throws(BrokerageError) -> [ClassStudentRecord]
    {
        let record = try await taught(id, by: user)
        guard passwordHashes.count == roster.rows.count else { throw .invalid("one password per student") }
        let now = clock.now()
        // Students read papertrade in their teacher's language until they choose one (their class account is named
        // in it, and so are their notifications).
        let language = try await users.user(id: user)?.language
        var generator = SystemRandomNumberGenerator()
        var newUsers: [UserRecord] = []
        var students: [ClassStudentRecord] = []
        for (row, hash) in zip(roster.rows, passwordHashes) {
            let student = UserRecord(
                id: UserID(Identifier.random(using: &generator).description), username: row.username,
                passwordHash: hash, createdAt: now, language: language, mustChangePassword: true)
            newUsers.append(student)
            students.append(
                ClassStudentRecord(
                    classID: id, userID: student.id, username: row.username, displayName: row.displayName,
                    email: row.email, accountID: Brokerage.newAccountID(), addedAt: now))
        }
        do {
            try await storage.enroll(students, creating: newUsers)
        } catch let error as StorageError {
            if case .duplicate(let what) = error {
                throw .conflict("\(what): the roster was not imported, nothing was created")
            }
            throw .storage(error)
        } catch {
            throw .storage(error)
        }
        for student in newUsers {
            users.languages.set(student.language.flatMap(Language.init(rawValue:)), for: student.id)
        }
        try await openAccounts(record, students)
        return students
    }

    /// Adds `user` to the class as a student, by the class's join code (the game's): for students who have an
    /// account already.
    public func join(code: String, user: UserID) async throws(BrokerageError) -> ClassView {
        guard let gameID = games.id(code: code) else { throw .notFound("no class has this code") }
        guard let me = try await users.user(id: user) else { throw .notFound("user not found") }
        // (The class of a game: one lookup through the user's — still empty — classes would not find it.)
        guard let record = try await classOfGame(gameID, owner: games.game(gameID)?.ownerID) else {
            throw .notFound("no class has this code")
        }
        if record.isTeacher(user) { throw .conflict("you teach this class") }
        let student = ClassStudentRecord(
            classID: record.id, userID: user, username: me.username, displayName: me.username, email: nil,
            accountID: Brokerage.newAccountID(), addedAt: clock.now())
        do {
            try await storage.enroll([student], creating: [])
        } catch let error as StorageError {
            if case .duplicate = error { throw .conflict("you are already in this class") }
            throw .storage(error)
        } catch {
            throw .storage(error)
        }
        try await openAccounts(record, [student])
        return try await view(record, user: user)
    }

    func classOfGame(_ gameID: GameID, owner: UserID?) async throws(BrokerageError) -> ClassRecord? {
        guard let owner else { return nil }
        return try await stored { try await storage.classes(of: owner) }.first { $0.gameID == gameID }
    }

    /// Opens, in the class's game, the accounts of students who have none yet.
    func openAccounts(_ record: ClassRecord, _ students: [ClassStudentRecord]) async throws(BrokerageError) {
        await games.refresh(unlessKnown: record.gameID)
        guard let game = games.game(record.gameID) else { throw .notFound("class not found") }
        for student in students where student.removedAt == nil && games.players[student.accountID] == nil {
            do {
                _ = try await games.join(
                    record.gameID, user: student.userID, name: student.displayName, code: game.joinCode,
                    account: student.accountID)
            } catch .conflict {
                continue // opened by another node meanwhile
            }
        }
    }

    /// A student on the roster, by username.
    func student(_ id: ClassID, username: String) async throws(BrokerageError) -> ClassStudentRecord {
        let roster = try await stored { try await storage.students(of: id) }
        guard let student = roster.first(where: { $0.username == username.lowercased() }) else {
            throw .notFound("\(username) is not on this class's roster")
        }
        return student
    }

    /// Takes a student off the roster: their open orders are canceled and their account stops trading; their
    /// work and marks stay.
    public func remove(_ id: ClassID, by user: UserID, username: String) async throws(BrokerageError) {
        let record = try await taught(id, by: user)
        var student = try await student(id, username: username)
        guard student.removedAt == nil else { return }
        if let team = student.team {
            throw .conflict("\(student.username) is in the team \(team): disband it first")
        }
        if let game = games.game(record.gameID), games.players[student.accountID]?.removedAt == nil {
            try await games.removePlayer(student.accountID, from: record.gameID, by: game.ownerID)
        }
        student.removedAt = clock.now()
        try await stored { try await storage.saveStudent(student) }
    }

    /// Gives a student a new password (hashed by the caller) to change at their next log-in.
    public func resetPassword(_ id: ClassID, by user: UserID, username: String, hash: String)
        async throws(BrokerageError)
    {
        _ = try await taught(id, by: user)
        let student = try await student(id, username: username)
        try await users.setPassword(user: student.userID, hash: hash, mustChange: true)
    }

    /// Starts a student's class account over with the starting cash (a teacher's reset counts against no allowance);
    /// a team member's is their team's.
    public func resetPortfolio(_ id: ClassID, by user: UserID, username: String) async throws(BrokerageError) {
        _ = try await taught(id, by: user)
        let student = try await student(id, username: username)
        try await router.route(student.tradingAccount).reset(student.tradingAccount)
    }

    /// Adds cash to (a positive amount) or takes it from (a negative one) a student's class account, with the
    /// teacher's reason kept on the ledger entry. It counts in the student's equity and return, as a prize or a
    /// penalty should (a team member's: in their team's).
    ///
    /// Untyped `throws` (it throws only `BrokerageError`): declared `throws(BrokerageError)`, Swift 6.3.1 built this
    /// async function — its decimal argument is 16-byte aligned — into one whose task jumped to a null address after
    /// it returned or threw (a server crash on every call, 2026-12-04).
    public func adjustCash(
        _ id: ClassID, by user: UserID, username: String, amount: FixedDecimal, reason: String
    ) async throws -> LedgerEntry {
        _ = try await taught(id, by: user)
        let student = try await student(id, username: username)
        let reason = reason.trimmed
        guard (1...200).contains(reason.count) else {
            throw BrokerageError.invalid("reason must be 1 to 200 characters")
        }
        guard !amount.isZero else { throw BrokerageError.invalid("amount must not be 0") }
        let account = student.tradingAccount
        let shard = try await router.route(account)
        let entry: LedgerEntry
        if amount.isPositive {
            entry = try await shard.deposit(amount, to: account, method: .adjustment, note: reason)
        } else {
            entry = try await shard.withdraw(-amount, from: account, method: .adjustment, note: reason)
        }
        return entry
    }

    // MARK: Assignments

    public func assignments(_ id: ClassID, user: UserID) async throws(BrokerageError) -> [AssignmentRecord] {
        _ = try await member(id, user: user)
        return try await stored { try await storage.assignments(of: id) }
    }

    /// Sets an assignment (teachers only). At most 20 checks; counts and percentages within sense.
    public func assign(_ id: ClassID, by user: UserID, title: String, due: Timestamp, checks: [AssignmentCheck])
        async throws(BrokerageError) -> AssignmentRecord
    {
        _ = try await taught(id, by: user)
        let title = try Self.checked(title: title, checks: checks)
        var generator = SystemRandomNumberGenerator()
        let assignment = AssignmentRecord(
            id: AssignmentID(.random(using: &generator)), classID: id, title: title, due: due, checks: checks,
            createdAt: clock.now())
        try await stored { try await storage.saveAssignment(assignment) }
        return assignment
    }

    /// Changes an assignment's title, due time or checks (teachers only; what is nil stays). Its marks stay: progress
    /// is read from the ledger again against what it now asks.
    public func editAssignment(
        _ id: ClassID, by user: UserID, assignment: AssignmentID, title: String?, due: Timestamp?,
        checks: [AssignmentCheck]?
    ) async throws(BrokerageError) -> AssignmentRecord {
        _ = try await taught(id, by: user)
        guard
            var record = try await stored({ try await storage.assignments(of: id) }).first(where: {
                $0.id == assignment
            })
        else { throw .notFound("assignment not found") }
        record.title = try Self.checked(title: title ?? record.title, checks: checks ?? record.checks)
        if let due { record.due = due }
        if let checks { record.checks = checks }
        let changed = record
        try await stored { try await storage.saveAssignment(changed) }
        return changed
    }

    /// Deletes an assignment and its marks (teachers only).
    public func deleteAssignment(_ id: ClassID, by user: UserID, assignment: AssignmentID)
        async throws(BrokerageError)
    {
        _ = try await taught(id, by: user)
        guard try await stored({ try await storage.deleteAssignment(assignment, of: id) }) else {
            throw .notFound("assignment not found")
        }
    }

    /// The trimmed title, once it and the checks are within sense.
    static func checked(title: String, checks: [AssignmentCheck]) throws(BrokerageError) -> String {
        let title = title.trimmed
        guard (1...120).contains(title.count) else { throw .invalid("title must be 1 to 120 characters") }
        guard (1...20).contains(checks.count) else { throw .invalid("an assignment has 1 to 20 checks") }
        for check in checks {
            switch check {
            case .trades(let count), .holdings(let count, _):
                guard (1...1_000).contains(count) else { throw .invalid("\(check.kind): count must be 1 to 1000") }
            case .orderType(let types):
                guard !types.isEmpty else { throw .invalid("order_type: name at least one type") }
            case .maxPosition(let percent):
                guard percent.isPositive, percent <= FixedDecimal(100) else {
                    throw .invalid("max_position: percent must be above 0 and at most 100")
                }
            case .task(let text):
                guard (1...500).contains(text.trimmed.count) else {
                    throw .invalid("task: text must be 1 to 500 characters")
                }
            case .journal, .beatBenchmark: break
            }
        }
        return title
    }

    /// A teacher's mark of a student's assignment (what the grade book shows; completes a `task` check).
    public func mark(
        _ id: ClassID, by user: UserID, assignment: AssignmentID, username: String, mark: String
    ) async throws(BrokerageError) -> AssignmentMark {
        _ = try await taught(id, by: user)
        guard try await stored({ try await storage.assignments(of: id) }).contains(where: { $0.id == assignment })
        else { throw .notFound("assignment not found") }
        let student = try await student(id, username: username)
        let text = mark.trimmed
        guard (1...40).contains(text.count) else { throw .invalid("mark must be 1 to 40 characters") }
        let record = AssignmentMark(
            assignmentID: assignment, studentID: student.userID, mark: text, markedBy: user, markedAt: clock.now())
        try await stored { try await storage.saveMark(record) }
        return record
    }

    /// Every student's progress on every assignment (a teacher), or the student's own.
    public func progress(_ id: ClassID, user: UserID) async throws(BrokerageError)
        -> [(student: ClassStudentRecord, assignments: [AssignmentProgress])]
    {
        let record = try await member(id, user: user)
        let roster = try await stored { try await storage.students(of: id) }.filter {
            record.isTeacher(user) ? $0.removedAt == nil : $0.userID == user
        }
        return try await grade(roster, of: record)
    }

    /// Each student's progress on every assignment of the class. A student's ledger is read once for all the
    /// assignments (each counts what came before its own due time); the portfolio now and the benchmark's return
    /// now are read once, and only when an assignment is still open.
    func grade(_ students: [ClassStudentRecord], of record: ClassRecord) async throws(BrokerageError)
        -> [(student: ClassStudentRecord, assignments: [AssignmentProgress])]
    {
        guard let game = games.game(record.gameID) else { throw .notFound("class not found") }
        let assignments = try await stored { try await storage.assignments(of: record.id) }
        let marks = try await stored { try await storage.marks(of: record.id) }
        let grader = AssignmentGrader(sector: { [market] in market.directory.entry($0)?.sector })
        let now = clock.now()
        let open = assignments.contains { now < $0.due }
        let benchmarkNow = open ? await games.indexReturn(GameRegistry.benchmark(game), since: game.startsAt) : nil
        var result: [(student: ClassStudentRecord, assignments: [AssignmentProgress])] = []
        // (A team's members share its ledger: read once.)
        var ledgers: [AccountID: (orders: [Order], fills: [(time: Timestamp, fill: Fill)])] = [:]
        for student in students {
            let ledger: (orders: [Order], fills: [(time: Timestamp, fill: Fill)])
            if let read = ledgers[student.tradingAccount] {
                ledger = read
            } else {
                ledger = try await self.ledger(of: student)
                ledgers[student.tradingAccount] = ledger
            }
            let live = open ? await summary(student.tradingAccount) : nil
            var lines: [AssignmentProgress] = []
            for assignment in assignments {
                var work = StudentWork(
                    orders: ledger.orders.filter { $0.submittedAt < assignment.due },
                    fills: ledger.fills.filter { $0.time < assignment.due }.map(\.fill))
                if now < assignment.due {
                    work.value(live, startingCash: game.settings.startingCash, benchmark: benchmarkNow)
                } else {
                    try await value(&work, of: student, in: game, at: assignment.due)
                }
                let mark = marks.first { $0.assignmentID == assignment.id && $0.studentID == student.userID }
                lines.append(grader.progress(assignment, work: work, mark: mark))
            }
            result.append((student, lines))
        }
        return result
    }

    /// A student's orders (the packages of multi-leg orders, not their legs) and fills, oldest first: in the account
    /// they trade (their team's, if in one).
    func ledger(of student: ClassStudentRecord) async throws(BrokerageError)
        -> (orders: [Order], fills: [(time: Timestamp, fill: Fill)])
    {
        var orderQuery = OrderQuery()
        orderQuery.status = .all
        orderQuery.limit = 10_000
        orderQuery.ascending = true
        let orders = try await stored { try await accountStorage.orders(account: student.tradingAccount, orderQuery) }
        var fillQuery = ActivityQuery()
        fillQuery.kinds = ["fill"]
        fillQuery.ascending = true
        fillQuery.limit = 10_000
        let fills = try await stored {
            try await accountStorage.activities(account: student.tradingAccount, query: fillQuery)
        }
        .compactMap { entry -> (time: Timestamp, fill: Fill)? in
            if case .fill(let fill) = entry.kind { (entry.time, fill) } else { nil }
        }
        return (orders.filter { $0.parentID == nil || $0.orderClass != .mleg }, fills)
    }

    /// Values a past-due assignment's work at the due date's close (from the equity history).
    func value(_ work: inout StudentWork, of student: ClassStudentRecord, in game: GameRecord, at due: Timestamp)
        async throws(BrokerageError)
    {
        let zone = game.market.calendar.zone
        let date = zone.localTime(of: due).date
        let account = student.tradingAccount
        _ = try? await router.route(account).catchUpEquityDays(account)
        let days = try await stored {
            try await equityHistory.equityDays(
                account: account, from: date.adding(days: -10), through: date, withHoldings: true)
        }
        guard let close = days.last else { return }
        let start = game.settings.startingCash
        work.holdings = close.holdings.compactMap { symbol, qty in
            close.marks[symbol].map { (symbol, qty.multiplied(by: $0)) }
        }
        work.equity = close.equity
        work.totalReturn = (close.equity - start).divided(by: start, places: 6, rule: .halfEven)
        work.benchmarkReturn = await indexReturn(GameRegistry.benchmark(game), from: game.startsAt, through: close.date)
    }

    /// An account's summary from its shard, or as last committed when another node serves it.
    func summary(_ id: AccountID) async -> AccountSummary? {
        try? await router.route(id).summary(id, dayProfit: false)
    }

    /// The index's return from the last close before `start` to the close of `date`.
    func indexReturn(_ index: MarketIndex, from start: Timestamp, through date: CivilDate) async -> FixedDecimal? {
        let zone = index.market.calendar.zone
        let bars = await market.dailyIndexBars(
            index, from: start.adding(nanoseconds: -10 * Duration64.day),
            to: Timestamp(date.adding(days: 1), in: zone))
        let startDate = zone.localTime(of: start).date
        guard let base = bars.last(where: { zone.localTime(of: $0.time).date < startDate }) ?? bars.first,
            let end = bars.last(where: { zone.localTime(of: $0.time).date <= date }), base.close.isPositive
        else { return nil }
        return (end.close - base.close).divided(by: base.close, places: 6, rule: .halfEven)
    }

    // MARK: Grade book, journal, rankings

    /// The grade book: a row per student, a cell per assignment — the teacher's mark, else done or not done.
    public func gradebook(_ id: ClassID, by user: UserID) async throws(BrokerageError)
        -> (assignments: [AssignmentRecord], rows: [(student: ClassStudentRecord, cells: [AssignmentProgress])])
    {
        _ = try await taught(id, by: user)
        let assignments = try await stored { try await storage.assignments(of: id) }
        return (assignments, try await progress(id, user: user).map { ($0.student, $0.assignments) })
    }

    /// The journal: every order with its note, newest first — the class's (teachers) or the student's own; a team's
    /// orders once, under the team.
    public func journal(_ id: ClassID, user: UserID) async throws(BrokerageError) -> [JournalLine] {
        let record = try await member(id, user: user)
        let roster = try await stored { try await storage.students(of: id) }.filter {
            record.isTeacher(user) || $0.userID == user
        }
        var lines: [JournalLine] = []
        var query = OrderQuery()
        query.status = .all
        query.limit = 10_000
        for student in roster {
            let orders = try await stored { try await accountStorage.orders(account: student.accountID, query) }
            lines += orders.filter { $0.parentID == nil }.map { JournalLine(student: student, order: $0) }
        }
        for team in Self.teams(in: roster) {
            let orders = try await stored { try await accountStorage.orders(account: team.account, query) }
            lines += orders.filter { $0.parentID == nil }.map {
                JournalLine(student: team.members[0], order: $0, team: team.name)
            }
        }
        return lines.sorted { $0.order.createdAt > $1.order.createdAt }
    }

    /// A student's report: to the class's teachers, and to the student themselves (anyone else: not found).
    public func report(_ id: ClassID, username: String, user: UserID) async throws(BrokerageError) -> StudentReport {
        let record = try await member(id, user: user)
        let student = try await student(id, username: username)
        guard record.isTeacher(user) || student.userID == user else { throw .notFound("class not found") }
        guard let game = games.game(record.gameID) else { throw .notFound("class not found") }
        let progress = try await grade([student], of: record).first
        var query = OrderQuery()
        query.status = .all
        query.limit = 10_000
        let account = student.tradingAccount
        let orders = try await stored { try await accountStorage.orders(account: account, query) }
        _ = try? await router.route(account).catchUpEquityDays(account)
        let zone = game.market.calendar.zone
        let closes = try await stored {
            try await equityHistory.equityDays(
                account: account, from: zone.localTime(of: game.startsAt).date, through: nil,
                withHoldings: false)
        }
        return StudentReport(
            student: student, summary: await summary(account), assignments: progress?.assignments ?? [],
            orders: orders.filter { $0.parentID == nil }, closes: closes)
    }

    /// Each student's return and risk-adjusted figures since the class started (members only), best return first;
    /// a team's members on one line.
    public func rankings(_ id: ClassID, user: UserID) async throws(BrokerageError) -> [StudentFigures] {
        let record = try await member(id, user: user)
        guard let game = games.game(record.gameID) else { throw .notFound("class not found") }
        let roster = try await stored { try await storage.students(of: id) }.filter { $0.removedAt == nil }
        let zone = game.market.calendar.zone
        let from = zone.localTime(of: game.startsAt).date
        let index = GameRegistry.benchmark(game)
        let bars = await market.dailyIndexBars(
            index, from: game.startsAt.adding(nanoseconds: -10 * Duration64.day), to: clock.now())
        var closes: [CivilDate: Price] = [:]
        for bar in bars { closes[zone.localTime(of: bar.time).date] = bar.close }
        let start = game.settings.startingCash
        var lines: [StudentFigures] = []
        let teams = Self.teams(in: roster)
        for student in roster where student.team == nil || teams.contains(where: { $0.members[0] == student }) {
            let account = student.tradingAccount
            _ = try? await router.route(account).catchUpEquityDays(account)
            let days = try await stored {
                try await equityHistory.equityDays(account: account, from: from, through: nil, withHoldings: false)
            }
            let figures = PerformanceMetrics.figures(days.map(\.valuation))
            var relative: PerformanceMetrics.Relative?
            if let figures {
                relative = PerformanceMetrics.relative(
                    figures.dailyReturns, dates: figures.dates, benchmark: closes)
            }
            let summary = await summary(account)
            let equity = summary?.equity ?? days.last?.equity
            let team = teams.first { $0.account == student.teamAccountID }
            lines.append(
                StudentFigures(
                    student: student, team: team?.name, members: team?.members ?? [], equity: equity,
                    totalReturn: equity.flatMap { ($0 - start).divided(by: start, places: 6, rule: .halfEven) },
                    figures: figures, relative: relative,
                    trades: summary?.account.gameActivity?.trades ?? 0))
        }
        return lines.sorted {
            ($0.totalReturn ?? .zero, $1.team ?? $1.student.username)
                > ($1.totalReturn ?? .zero, $0.team ?? $0.student.username)
        }
    }
}

extension Brokerage {
    /// Classes: teachers, rosters, assignments, the journal and the grade book (`Classrooms`).
    public var classes: Classrooms {
        Classrooms(
            storage: repositories.classes, accountStorage: repositories.accounts,
            equityHistory: repositories.equityHistory, games: games, users: users, router: router, market: market,
            clock: clock)
    }
}
