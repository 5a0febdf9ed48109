import BrokerageModel
import TradingCore

/// A team of a class: students sharing one portfolio, as The Stock Market Game's and Stock-Trak's teams do.
public struct ClassTeam: Sendable {
    public var name: String
    /// The portfolio its members share: an account in the class's game, on the board under the team's name.
    public var account: AccountID
    /// Its members, in roster order; the first owns the account (every member trades it alike).
    public var members: [ClassStudentRecord]
}

/// Teams (teachers form and disband them). A team is a name and a shared account on its members' roster rows
/// (`ClassStudentRecord.team`, `teamAccountID`), so whatever reads a student's work — grading, the journal, the
/// report, the rankings — follows the account the student trades (`tradingAccount`). While in a team, a student's own
/// class account is out of the game (its open orders canceled, off the board); disbanding the team brings it back as
/// it was, and takes the team's account off the board.
///
/// The roster rows are the commit point of both changes; what the game must do after them (a member's own account
/// out or back, a disbanded team's account off the board) is done again by `arrangeGame` whenever the roster is read,
/// should a step have been cut short.
extension Classrooms {
    /// How many students a team has.
    public static let teamSizes = 2...5

    /// The class's teams (a teacher), or the student's own (a student), by name.
    public func teams(_ id: ClassID, user: UserID) async throws(BrokerageError) -> [ClassTeam] {
        let record = try await member(id, user: user)
        let roster = try await stored { try await storage.students(of: id) }
        let mine = roster.first { $0.userID == user }?.team
        return Self.teams(in: roster).filter { record.isTeacher(user) || $0.name == mine }
    }

    static func teams(in roster: [ClassStudentRecord]) -> [ClassTeam] {
        var teams: [String: ClassTeam] = [:]
        for student in roster {
            guard let name = student.team, let account = student.teamAccountID else { continue }
            teams[name, default: ClassTeam(name: name, account: account, members: [])].members.append(student)
        }
        return teams.values.sorted { $0.name < $1.name }
    }

    /// Forms a team of 2 to 5 students on the roster who are in no team. Its account opens in the class's game with
    /// the starting cash, owned by the first member; the members' own accounts leave the game while they are in it.
    public func formTeam(_ id: ClassID, by user: UserID, name: String, members usernames: [String])
        async throws(BrokerageError) -> ClassTeam
    {
        let record = try await taught(id, by: user)
        let name = name.trimmed
        guard (1...40).contains(name.count), !name.contains(where: \.isNewline) else {
            throw .invalid("a team's name must be 1 to 40 characters on one line")
        }
        let wanted = usernames.map { $0.trimmed.lowercased() }
        guard Self.teamSizes.contains(wanted.count) else {
            throw .invalid("a team has \(Self.teamSizes.lowerBound) to \(Self.teamSizes.upperBound) students")
        }
        guard Set(wanted).count == wanted.count else { throw .invalid("a student is named twice") }
        let roster = try await stored { try await storage.students(of: id) }
        guard !roster.contains(where: { $0.team?.lowercased() == name.lowercased() }) else {
            throw .conflict("this class already has a team called \(name)")
        }
        var members: [ClassStudentRecord] = []
        for username in wanted {
            guard let student = roster.first(where: { $0.username == username && $0.removedAt == nil }) else {
                throw .notFound("\(username) is not on this class's roster")
            }
            if let team = student.team { throw .conflict("\(username) is already in the team \(team)") }
            members.append(student)
        }
        let account = Brokerage.newAccountID()
        let player = try await games.seatTeam(
            record.gameID, owner: members[0].userID, members: members.map(\.userID), name: name,
            accountName: "\(name) · \(record.name)", account: account)
        do {
            try await storage.formTeam(name, account: player.accountID, members: members.map(\.userID), in: id)
        } catch {
            // Nobody's row names the account: off the board it goes (or at the next roster read, if this fails).
            if let owner = games.game(record.gameID)?.ownerID {
                try? await games.removePlayer(player.accountID, from: record.gameID, by: owner)
            }
            if let storageError = error as? StorageError, case .duplicate = storageError {
                throw .conflict("the team was not formed: its name or a member was taken meanwhile")
            }
            throw .storage(error)
        }
        let formed = try await stored { try await storage.students(of: id) }
        try await arrangeGame(record, formed)
        guard let team = Self.teams(in: formed).first(where: { $0.name == name }) else {
            throw .conflict("the team was disbanded meanwhile")
        }
        return team
    }

    /// Disbands a team: its members trade their own accounts again (as they left them), and the team's account
    /// leaves the board (its orders canceled; its work stays readable to the teacher through the game).
    public func disbandTeam(_ id: ClassID, by user: UserID, name: String) async throws(BrokerageError) {
        let record = try await taught(id, by: user)
        let roster = try await stored { try await storage.students(of: id) }
        guard let team = roster.first(where: { $0.team?.lowercased() == name.trimmed.lowercased() })?.team else {
            throw .notFound("this class has no team called \(name)")
        }
        let account = roster.first { $0.team == team }?.teamAccountID
        guard try await stored({ try await storage.disbandTeam(team, in: id) }) else {
            throw .notFound("this class has no team called \(name)")
        }
        // (Its members hear of the account's orders canceled as it leaves the board; nothing after that.)
        try await arrangeGame(record, try await stored { try await storage.students(of: id) })
        if let account {
            await games.forgetTeam(account)
            // Keys made for the team's account go with the team (the account trades no more).
            try await users.revokeKeys(of: account)
        }
    }

    /// Brings the class's game in line with its roster: a student in a team has their own account out of the game,
    /// one in none has it in (unless taken off the roster), a team's account is on the board, and a team account no
    /// roster row names any more (a student's account that is not theirs) is off it. Each step is idempotent; an ended game is left as it finished.
    func arrangeGame(_ record: ClassRecord, _ roster: [ClassStudentRecord]) async throws(BrokerageError) {
        guard let game = games.game(record.gameID), game.endedAt == nil else { return }
        let owner = game.ownerID
        let named = Set(roster.map(\.accountID) + roster.compactMap(\.teamAccountID))
        let students = Set(roster.map(\.userID))
        for student in roster {
            guard let player = games.players[student.accountID], student.removedAt == nil else { continue }
            if student.teamAccountID != nil, player.removedAt == nil {
                try await games.removePlayer(student.accountID, from: record.gameID, by: owner)
            } else if student.teamAccountID == nil, player.removedAt != nil {
                try await games.restorePlayer(student.accountID, to: record.gameID, by: owner)
            }
        }
        // (A team being formed is on the board before its rows name it: another reader may take it off meanwhile, and
        // the rows, once written, bring it back.)
        for team in Self.teams(in: roster.filter { $0.removedAt == nil })
        where games.players[team.account]?.removedAt != nil {
            try await games.restorePlayer(team.account, to: record.gameID, by: owner)
        }
        for player in games.players.values
        where player.gameID == record.gameID && player.removedAt == nil && students.contains(player.userID)
            && !named.contains(player.accountID)
        {
            try await games.removePlayer(player.accountID, from: record.gameID, by: owner)
        }
    }
}
