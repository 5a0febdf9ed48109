import BrokerageModel
import Testing
import TradingCore

@testable import Brokerage

/// What games decide, as plain values: a book of games and players and a moment, no storage or shard.
@Suite("Game referee")
struct GameRefereeTests {
    let owner = UserID("teacher")
    let student = UserID("student")
    let stranger = UserID("stranger")
    let created = Timestamp(CivilDate(2026, 11, 2), hour: 9, in: .newYork)
    let start = Timestamp(CivilDate(2026, 11, 9), hour: 9, in: .newYork)
    let end = Timestamp(CivilDate(2026, 12, 18), hour: 16, in: .newYork)

    func game(
        _ n: UInt64, visibility: GameVisibility = .public, lateEntry: Bool = true, maxPlayers: Int? = nil,
        resets: Int? = 0, endedAt: Timestamp? = nil
    ) -> GameRecord {
        GameRecord(
            id: GameID(high: 7, low: n), ownerID: owner, name: "Period 3", market: .us, joinCode: "ABCD2345",
            settings: GameSettings(
                visibility: visibility, startingCash: FixedDecimal(100_000), lateEntry: lateEntry,
                maxPlayers: maxPlayers, rules: GameRules(startsAt: start, endsAt: end, shortSelling: false),
                resetsAllowed: resets),
            createdAt: created, endedAt: endedAt)
    }

    func player(_ game: GameRecord, _ user: UserID, account n: UInt64, removed: Bool = false, resetsUsed: Int = 0)
        -> GamePlayerRecord
    {
        GamePlayerRecord(
            gameID: game.id, accountID: AccountID(high: 8, low: n), userID: user, name: user.text, joinedAt: created,
            removedAt: removed ? created : nil, resetsUsed: resetsUsed)
    }

    func referee(_ games: [GameRecord], _ players: [GamePlayerRecord] = [], at now: Timestamp) -> GameReferee {
        GameReferee(
            games: Dictionary(uniqueKeysWithValues: games.map { ($0.id, $0) }),
            players: Dictionary(uniqueKeysWithValues: players.map { ($0.accountID, $0) }), now: now)
    }

    func refusal(_ body: () throws(BrokerageError) -> Void) -> BrokerageError? {
        do {
            try body()
            return nil
        } catch { return error }
    }

    @Test("a game is upcoming before its start, running until its end, ended after it or once ended early")
    func status() {
        let g = game(1)
        #expect(referee([g], at: created).status(g) == .upcoming)
        #expect(referee([g], at: start).status(g) == .running)
        #expect(referee([g], at: end).status(g) == .ended)
        let early = game(2, endedAt: start)
        #expect(referee([early], at: start.adding(seconds: 60)).status(early) == .ended)
    }

    @Test("a private game is seen only by its owner, its players and whoever has the code; others are told not found")
    func privateGames() {
        let g = game(1, visibility: .private)
        let r = referee([g], [player(g, student, account: 1)], at: start)
        #expect(r.mayView(g, user: owner, code: nil))
        #expect(r.mayView(g, user: student, code: nil))
        #expect(!r.mayView(g, user: stranger, code: nil))
        #expect(r.mayView(g, user: stranger, code: "abcd2345"))
        guard
            case .notFound? = refusal({ () throws(BrokerageError) in
                _ = try r.visibleGame(g.id, user: stranger, code: nil)
            })
        else {
            Issue.record("a stranger should not learn the game exists")
            return
        }
        #expect(r.views(user: stranger, mine: false).isEmpty)
        #expect(r.views(user: student, mine: true).map(\.game.id) == [g.id])
    }

    @Test("joining is refused with the reason a player can act on: the code, already in, removed, ended, closed, full")
    func admission() {
        let open = game(1)
        let closed = game(2, lateEntry: false)
        let full = game(3, maxPlayers: 1)
        let secret = game(4, visibility: .private)
        let players = [
            player(open, student, account: 1), player(full, owner, account: 2),
            player(game(5), stranger, account: 3, removed: true),
        ]
        let r = referee([open, closed, full, secret, game(5)], players, at: start.adding(seconds: 3600))
        func reason(_ g: GameRecord, _ user: UserID, code: String? = nil) -> String? {
            refusal { () throws(BrokerageError) in _ = try r.admission(to: g.id, user: user, code: code) }?.message
        }
        #expect(reason(open, stranger) == nil)
        #expect(reason(open, student)?.contains("already play") == true)
        #expect(reason(game(5), stranger)?.contains("removed you") == true)
        #expect(reason(closed, stranger)?.contains("does not allow late entry") == true)
        #expect(reason(full, stranger)?.contains("full") == true)
        #expect(reason(secret, stranger) == "game not found")
        #expect(reason(secret, stranger, code: "ABCD2345") == nil)
        let ended = referee([open], at: end.adding(seconds: 1))
        #expect(
            refusal { () throws(BrokerageError) in _ = try ended.admission(to: open.id, user: stranger, code: nil) }?
                .message == "this game has ended")
    }

    @Test("the owner alone changes a game; a start cannot move once it passed, nor the ranking once it runs")
    func ownerChanges() throws {
        let g = game(1)
        var change = GameChange()
        change.name = "  Period 4 "
        let before = referee([g], at: created)
        #expect(try before.applying(change, to: g.id, by: owner).name == "Period 4")
        #expect(refusal { () throws(BrokerageError) in _ = try before.applying(change, to: g.id, by: student) } != nil)

        let running = referee([g], at: start.adding(seconds: 60))
        var move = GameChange()
        move.startsAt = end.adding(seconds: -86_400)
        #expect(
            refusal { () throws(BrokerageError) in _ = try running.applying(move, to: g.id, by: owner) }?.message
                == "starts_at cannot change: the game has started")
        var rank = GameChange()
        rank.ranking = .sharpe
        #expect(refusal { () throws(BrokerageError) in _ = try running.applying(rank, to: g.id, by: owner) } != nil)
        #expect(try before.applying(rank, to: g.id, by: owner).settings.ranking == .sharpe)
        var late = GameChange()
        late.endsAt = created
        #expect(refusal { () throws(BrokerageError) in _ = try before.applying(late, to: g.id, by: owner) } != nil)
    }

    @Test("a reset is allowed as often as the game says, never after it ends or to a removed player")
    func resets() throws {
        let none = game(1, resets: 0)
        let two = game(2, resets: 2)
        let unlimited = game(3, resets: nil)
        let players = [
            player(none, student, account: 1), player(two, student, account: 2, resetsUsed: 1),
            player(two, stranger, account: 3, resetsUsed: 2), player(unlimited, student, account: 4, resetsUsed: 50),
            player(two, owner, account: 5, removed: true),
        ]
        let r = referee([none, two, unlimited], players, at: start)
        func reason(_ n: UInt64) -> String? {
            refusal { () throws(BrokerageError) in _ = try r.mayReset(AccountID(high: 8, low: n)) }?.message
        }
        #expect(reason(1) == "this game does not allow resets")
        #expect(reason(2) == nil)
        #expect(reason(3) == "this game allows 2 resets; you have used 2")
        #expect(reason(4) == nil)
        #expect(reason(5) == "the owner removed you from this game")
        // An ordinary account is not the referee's to limit.
        #expect(try r.mayReset(AccountID(high: 1, low: 1)) == nil)
        let after = referee([two], players, at: end)
        #expect(
            refusal { () throws(BrokerageError) in _ = try after.mayReset(AccountID(high: 8, low: 2)) }?.message
                == "this game has ended: its accounts are final")
    }

    @Test("settings are checked in words a teacher understands; an owner runs at most 20 open games")
    func creating() {
        let r = referee((1...UInt64(GameReferee.openGamesPerOwner)).map { game($0) }, at: created)
        let settings = GameSettings(
            startingCash: FixedDecimal(100_000), rules: GameRules(endsAt: end, shortSelling: false))
        #expect(
            refusal { () throws(BrokerageError) in
                try r.mayCreate(owner: owner, name: "One more", market: .us, settings: settings)
            }?.message.contains("at most 20 games") == true)
        let fresh = referee([], at: created)
        #expect(
            refusal { () throws(BrokerageError) in
                try fresh.mayCreate(owner: owner, name: " ", market: .us, settings: settings)
            }?.message == "name is required")
        var margin = settings
        margin.margin = true
        #expect(
            refusal { () throws(BrokerageError) in
                try fresh.mayCreate(owner: owner, name: "A股", market: .cn, settings: margin)
            }?.message.contains("A-share games cannot allow margin") == true)
        #expect(
            refusal { () throws(BrokerageError) in
                try fresh.mayCreate(owner: owner, name: "Fine", market: .us, settings: settings)
            } == nil)
    }
}
