import BrokerageModel
import MarketData
import Synchronization
import TradingCore

/// Games: an owner sets one up with rules; players join it with a game account — an ordinary paper account bound
/// to the rules (`GameRules`, its fee schedule and margin terms), which every surface trades like any other, so the
/// engine's validator enforces the rules for the web app, Alpaca bots and IB clients alike; a leaderboard ranks the
/// players at current prices, and freezes when the game ends (`GameService`).
///
/// Games and players are few next to orders: they live in memory (`GameBook`), written through to storage. A game's
/// players' accounts may live in any shard: what the game does to them (rules, cancels, notifications) goes to each
/// account's shard, and a leaderboard gathers the accounts from theirs.
/// Where a game stands at `now`.
public enum GameStatus: String, Sendable {
    case upcoming, running, ended
}

/// A game as a user sees it: the record, how many play, and the user's own part in it.
public struct GameView: Sendable {
    public var game: GameRecord
    public var status: GameStatus
    public var players: Int
    public var isOwner: Bool
    /// The user's game account, when they play.
    public var account: AccountID?
    /// When registration closes (nil: open until the game ends, or never if it does not).
    public var registrationEndsAt: Timestamp?
}

/// A leaderboard: standings best first, as of a time; `final` once the game ended.
public struct GameBoard: Sendable {
    public var game: GameRecord
    public var standings: [Standing]
    public var asOf: Timestamp
    public var isFinal: Bool
    /// The index's return since the start (excess return is measured against it).
    public var benchmark: MarketIndex
    public var benchmarkReturn: FixedDecimal?
}

/// What an owner may change after creation: names, dates that have not passed, registration, visibility of
/// the game and of portfolios, resets. Trading rules are fixed (changing them mid-game would be unfair).
public struct GameChange: Sendable {
    public var name: String?
    public var description: String?
    public var visibility: GameVisibility?
    public var startsAt: Timestamp?
    public var endsAt: Timestamp?
    public var registrationEndsAt: Timestamp?
    public var lateEntry: Bool?
    public var maxPlayers: Int??
    public var resetsAllowed: Int??
    public var portfoliosVisible: PortfolioVisibility?
    public var ranking: GameRanking?

    public init() {}
}

/// The games registry (`brokerage.games`): creating, joining, changing and ending games, leaderboards and rank
/// histories. It holds the games and their players; what a game does to a player's account goes through the router
/// to that account's shard.
public final class GameRegistry: Sendable {
    let router: ShardRouter
    let market: SharedMarket
    let feed: any MarketDataFeed
    let directory: SymbolDirectory
    let clock: MarketClock
    let languages: LanguagePreferences
    let storage: any GameRepository
    let equityHistory: any EquityHistoryRepository
    /// Accounts as committed: on a cluster, a player whose account another node serves is valued from storage.
    let accounts: any AccountRepository
    /// Games and players in memory, written through to `storage`.
    let book = GameBook()
    /// The players' accounts this node has brought in line with their games, and against what (`reconcile`).
    let reconciled = Mutex<[AccountID: ReconcileStamp]>([:])

    init(
        router: ShardRouter, market: SharedMarket, feed: any MarketDataFeed, directory: SymbolDirectory,
        clock: MarketClock, languages: LanguagePreferences, storage: any GameRepository,
        equityHistory: any EquityHistoryRepository, accounts: any AccountRepository
    ) {
        self.accounts = accounts
        self.router = router
        self.market = market
        self.feed = feed
        self.directory = directory
        self.clock = clock
        self.languages = languages
        self.storage = storage
        self.equityHistory = equityHistory
    }

    /// The shard holding a player's account.
    func shard(_ account: AccountID) async throws(BrokerageError) -> Shard {
        try await router.route(account)
    }

    // MARK: Loading

    func reload() async throws {
        book.replace(games: try await storage.games(), players: try await storage.gamePlayers())
    }

    /// On a cluster another node may have created or changed the game (each node's book is refreshed every cluster
    /// pass, `ClusterNode`): a game this node does not know yet is looked for in storage before "not found".
    func refresh(unlessKnown id: GameID) async {
        guard games[id] == nil else { return }
        try? await reload()
    }

    /// A player's account as it stands: from its shard when this node serves it, else as last committed (every
    /// acknowledged step is in storage; a cluster node values other nodes' players that way).
    func playerAccount(_ id: AccountID) async -> Account? {
        if let shard = try? await shard(id) { return await shard.account(id) }
        return try? await accounts.account(id)?.snapshot.account
    }

    /// Every game, by id (a snapshot of the book).
    var games: [GameID: GameRecord] { book.games }
    /// Every player, by game account.
    var players: [AccountID: GamePlayerRecord] { book.players }

    // MARK: Creating and finding

    /// Creates a game owned by `owner`. Throws `.invalid` with the first problem of the settings, and past
    /// `GameReferee.openGamesPerOwner`.
    public func create(owner: UserID, name: String, market: Market, settings: GameSettings)
        async throws(BrokerageError) -> GameRecord
    {
        let referee = self.referee
        let now = referee.now
        try referee.mayCreate(owner: owner, name: name, market: market, settings: settings)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5 {
            let game = GameRecord(
                id: GameID(.random(using: &generator)), ownerID: owner, name: name.trimmed, market: market,
                joinCode: GameReferee.joinCode(using: &generator), settings: settings, createdAt: now)
            do {
                try await storage.createGame(game)
                book.set(game)
                return game
            } catch let error as StorageError {
                if case .duplicate = error { continue } // a join code taken: draw another
                throw .storage(error)
            } catch {
                if games.values.contains(where: { $0.joinCode == game.joinCode }) { continue }
                throw .storage(error)
            }
        }
        throw .unavailable("could not draw a free join code; try again")
    }

    public func game(_ id: GameID) -> GameRecord? { games[id] }

    /// The game a join code belongs to.
    public func id(code: String) -> GameID? {
        games.values.first { $0.matches(code) }?.id
    }

    /// A game as `user` may see it: public games to everyone; private ones to their owner, their players, and
    /// whoever has the join code. Anyone else gets "not found" (a private game's existence is not revealed).
    public func view(_ id: GameID, user: UserID, code: String? = nil) throws(BrokerageError) -> GameView {
        let game = try referee.visibleGame(id, user: user, code: code)
        return referee.view(game, user: user)
    }

    /// The book's decisions as of now (`GameReferee`).
    var referee: GameReferee { GameReferee(games: games, players: players, now: clock.now()) }

    /// Games the user owns or plays in (`mine`), or every public game (newest first).
    public func views(user: UserID, mine: Bool) -> [GameView] {
        referee.views(user: user, mine: mine)
    }

    // MARK: Joining

    /// Joins `user` to a game: opens their game account (starting cash, the game's fees, margin terms and rules)
    /// and records them as a player, in one transaction. A private game needs its join code (its owner does not).
    /// `account` names the game account to open (a class plans its students' accounts with their roster rows).
    public func join(_ id: GameID, user: UserID, name: String, code: String?, account: AccountID? = nil)
        async throws(BrokerageError) -> GamePlayerRecord
    {
        await refresh(unlessKnown: id)
        let game = try referee.admission(to: id, user: user, code: code)
        return try await open(game, user: user, name: name, account: account ?? Brokerage.newAccountID())
    }

    /// Opens a class team's shared account in the class's game, owned by `owner` (one of its members, who may
    /// already play: a class seats its students itself), on the board under the team's `name`; refused once the
    /// game has ended or is full.
    public func seatTeam(
        _ id: GameID, owner: UserID, members: [UserID], name: String, accountName: String, account: AccountID
    ) async throws(BrokerageError) -> GamePlayerRecord {
        await refresh(unlessKnown: id)
        let referee = self.referee
        guard let game = games[id] else { throw .notFound("game not found") }
        guard referee.status(game) != .ended else { throw .forbidden("this game has ended") }
        if let most = game.settings.maxPlayers, referee.activePlayers(id).count >= most {
            throw .forbidden("this game is full: at most \(most) players")
        }
        return try await open(
            game, user: owner, name: name, account: account, teamAccountName: accountName, teamMembers: members)
    }

    /// A disbanded team's account: its members are told nothing more of it (its owner still is), where it is served.
    public func forgetTeam(_ account: AccountID) async {
        if let shard = await servedShard(account) { await shard.forgetTeam(account) }
    }

    /// Opens a player's game account in the game's terms, on a shard the router places it in.
    func open(
        _ game: GameRecord, user: UserID, name: String, account: AccountID, teamAccountName: String? = nil,
        teamMembers: [UserID] = []
    ) async throws(BrokerageError) -> GamePlayerRecord {
        let now = referee.now
        let s = game.settings
        let terms =
            s.margin
            ? MarginTerms(type: .margin, maxMultiplier: s.marginMultiplier, noShorting: !s.rules.shortSelling) : .cash
        let placement = try router.placeNewAccount()
        let player: GamePlayerRecord
        do {
            player = try await router.shard(placement).openGameAccount(
                account, game: game, user: user, playerName: name, terms: terms, teamAccountName: teamAccountName,
                teamMembers: teamMembers, at: now)
        } catch {
            router.unplaced(placement)
            throw error
        }
        router.opened(player.accountID, in: placement)
        book.set(player)
        return player
    }

    // MARK: Owner tools

    /// Changes what may change. Dates that moved are written into every player's account rules.
    public func update(_ id: GameID, by user: UserID, _ change: GameChange) async throws(BrokerageError)
        -> GameRecord
    {
        await refresh(unlessKnown: id)
        let game = try referee.applying(change, to: id, by: user)
        do { try await storage.saveGame(game) } catch { throw .storage(error) }
        book.set(game)
        if change.startsAt != nil || change.endsAt != nil {
            // The dates are durable with the game: players served here move now, others on their node's next
            // pass (`reconcile`).
            for player in referee.activePlayers(id) {
                guard let shard = await servedShard(player.accountID) else { continue }
                try await shard.setGameDates(
                    player.accountID, startsAt: game.settings.rules.startsAt, endsAt: game.settings.rules.endsAt)
            }
        }
        return game
    }

    /// Removes a player: their open orders are canceled, their account stops trading, they leave the board.
    public func removePlayer(_ account: AccountID, from id: GameID, by user: UserID) async throws(BrokerageError) {
        await refresh(unlessKnown: id)
        let game = try referee.ownedGame(id, by: user)
        guard var player = players[account], player.gameID == id, player.removedAt == nil else {
            throw .notFound("player not found in this game")
        }
        guard game.endedAt == nil else { throw .forbidden("this game has ended: its standings are final") }
        player.removedAt = clock.now()
        do { try await storage.savePlayer(player) } catch { throw .storage(error) }
        book.set(player)
        // Durable with the player record: the account stops now if served here, else on its node's next pass.
        if let shard = await servedShard(account) { try await shard.removeFromGame(account) }
    }

    /// Brings a removed player back (its owner; before the game ends): the account trades again and rejoins the
    /// board. A class does this when a team is disbanded.
    public func restorePlayer(_ account: AccountID, to id: GameID, by user: UserID) async throws(BrokerageError) {
        await refresh(unlessKnown: id)
        let game = try referee.ownedGame(id, by: user)
        guard var player = players[account], player.gameID == id else {
            throw .notFound("player not found in this game")
        }
        guard player.removedAt != nil else { return }
        guard game.endedAt == nil else { throw .forbidden("this game has ended: its standings are final") }
        player.removedAt = nil
        do { try await storage.savePlayer(player) } catch { throw .storage(error) }
        book.set(player)
        // Durable with the player record: the account trades again now if served here, else on its node's next pass.
        if let shard = await servedShard(account) { try await shard.restoreToGame(account) }
    }

    /// Ends a game now (its owner, early) — see `finish`.
    public func end(_ id: GameID, by user: UserID) async throws(BrokerageError) -> GameRecord {
        await refresh(unlessKnown: id)
        let game = try referee.ownedGame(id, by: user)
        guard game.endedAt == nil else { throw .forbidden("this game has already ended") }
        return try await finish(id)
    }

    /// Ends a game: players' open orders are canceled, their accounts stop taking orders, and the standings at
    /// this moment (after the close: at the closing prices) are stored as final; then each player hears where they
    /// finished.
    ///
    /// On a cluster the players' accounts live on several nodes. The end is made durable with the game first; the
    /// players served here are closed at once, the others by their nodes' next pass (`reconcile`), and the
    /// standings are made final only once every player's account is closed as committed — so they are the same as
    /// one process would make. If some node has not closed its players within `closeWait` (it died and its shards
    /// are moving), nothing is final yet and the refusal says to try again; the game service does.
    @discardableResult
    func finish(_ id: GameID) async throws(BrokerageError) -> GameRecord {
        guard var game = games[id], game.endedAt == nil else { throw .notFound("game not found") }
        let now = clock.now()
        let end = min(now, game.endsAt ?? now)
        if game.settings.rules.endsAt != end {
            game.settings.rules.endsAt = end
            do { try await storage.saveGame(game) } catch { throw .storage(error) }
            book.set(game)
        }
        var elsewhere: [AccountID] = []
        for player in referee.activePlayers(id) {
            if let shard = await servedShard(player.accountID) {
                try await shard.endGame(for: player.accountID, at: end)
            } else {
                elsewhere.append(player.accountID)
            }
        }
        try await waitUntilClosed(elsewhere)
        let board = try await liveStandings(game, final: true)
        game.endedAt = now
        game.final = board.standings
        do { try await storage.saveGame(game) } catch { throw .storage(error) }
        book.set(game)
        // Each player hears where they finished (in the app, by Web Push, to their webhook), journaled by the shard
        // of their game account: here for those served here, by the other nodes' next pass for the rest.
        await reconcile(games: [game])
        return game
    }

    /// How long `finish` waits for other nodes to close their players.
    static let closeWait = Duration.seconds(10)

    /// Returns once every account in `accounts` is closed as committed (`GameRules.closedAt`), or throws after
    /// `closeWait`.
    func waitUntilClosed(_ ids: [AccountID]) async throws(BrokerageError) {
        var open = ids
        let deadline = ContinuousClock.now + Self.closeWait
        while !open.isEmpty {
            var still: [AccountID] = []
            for account in open {
                let stored = try? await accounts.account(account)
                if stored?.snapshot.account.gameRules?.closedAt == nil { still.append(account) }
            }
            open = still
            if open.isEmpty { break }
            guard ContinuousClock.now < deadline else {
                throw .unavailable(
                    "\(open.count) players' accounts are on nodes that have not closed them yet; try again in a few seconds"
                )
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The shard holding `account` when this node serves it; nil when another node does (or it is unknown).
    func servedShard(_ account: AccountID) async -> Shard? {
        try? await shard(account)
    }

    /// The final notice of a player who finished `standing` of `total`, in a reader's language (the player's owner,
    /// and each member of a team playing as one).
    static func finalNotice(_ game: GameRecord, standing: Standing, total: Int)
        -> @Sendable (Catalogue) -> (title: String, body: String)
    {
        // Two places, or as many as it takes (up to 4) for a small loss or gain not to read as 0.00%.
        let exact = standing.totalReturn.times(100)
        var places = 2
        while places < 4, exact.rounded(places: places, rule: .halfEven).isZero, !exact.isZero { places += 1 }
        let percent = exact.rounded(places: places, rule: .halfEven)
        let values = [
            "rank": String(standing.rank), "players": String(total),
            "return": (percent.isPositive ? "+" : "") + percent.formatted(minimumPlaces: places) + "%",
        ]
        let name = game.name
        return { text in (text("game.ended.title", ["game": name]), text("game.ended.body", values)) }
    }

    // MARK: Reconciling the accounts this node serves

    /// Brings the game accounts this node serves in line with their games as stored — what a game's owner
    /// changed on another node, or a game's end: dates moved, players removed, accounts closed at the end, final
    /// notices sent. Every step is idempotent and journaled by the account's shard, so a shard that changes
    /// owner is reconciled by its new owner and nothing is done twice. A cluster node runs it on every pass
    /// (`ClusterNode`); a single process changes its accounts as it changes the game, and calls it for notices.
    public func reconcile() async {
        await reconcile(games: Array(games.values))
    }

    func reconcile(games list: [GameRecord]) async {
        let now = clock.now()
        for game in list.sorted(by: { $0.id < $1.id }) {
            let settled = game.final != nil
            for player in players.values where player.gameID == game.id {
                let stamp = ReconcileStamp(game: game, player: player, now: now)
                if reconciled.withLock({ $0[player.accountID] }) == stamp { continue }
                guard let shard = await servedShard(player.accountID),
                    let rules = await shard.gameRules(of: player.accountID)
                else { continue }
                do {
                    if player.removedAt == nil, rules.removed { try await shard.restoreToGame(player.accountID) }
                    if player.removedAt != nil {
                        if !rules.removed { try await shard.removeFromGame(player.accountID) }
                    } else if let end = game.settings.rules.endsAt, end <= now || game.endedAt != nil {
                        if rules.closedAt == nil {
                            // Final already while the account was never closed: a game ended before accounts were
                            // marked closed (its players were told then) — closed now, and told nothing twice.
                            try await shard.endGame(for: player.accountID, at: end, noticeSent: settled)
                        } else if settled, rules.finalNoticeSent != true, let final = game.final,
                            let standing = final.first(where: { $0.accountID == player.accountID })
                        {
                            try await shard.sendFinalNotice(
                                Self.finalNotice(game, standing: standing, total: final.count), to: player.accountID,
                                at: now)
                        }
                    } else if rules.startsAt != game.settings.rules.startsAt
                        || rules.endsAt != game.settings.rules.endsAt
                    {
                        try await shard.setGameDates(
                            player.accountID, startsAt: game.settings.rules.startsAt,
                            endsAt: game.settings.rules.endsAt)
                    }
                    reconciled.withLock { $0[player.accountID] = stamp }
                } catch {
                    // Tried again on the next pass.
                }
            }
        }
    }

    /// What a player's account was last reconciled against; unchanged, there is nothing to do.
    struct ReconcileStamp: Hashable {
        var startsAt: Timestamp?
        var endsAt: Timestamp?
        /// The end has come (the account is to be closed).
        var due: Bool
        /// The standings are final (the player is to be told).
        var final: Bool
        var removed: Bool

        init(game: GameRecord, player: GamePlayerRecord, now: Timestamp) {
            startsAt = game.settings.rules.startsAt
            endsAt = game.settings.rules.endsAt
            due = game.endedAt != nil || endsAt.map { $0 <= now } == true
            final = game.final != nil
            removed = player.removedAt != nil
        }
    }

    /// Ends every game whose end time has passed (the game service calls it; so may a test).
    public func endDue() async {
        let now = clock.now()
        for game in games.values where game.endedAt == nil && game.endsAt.map({ $0 <= now }) == true {
            _ = try? await finish(game.id)
        }
    }

    /// The earliest end of a game still running (what the game service sleeps until).
    public func nextEnd() -> Timestamp? {
        games.values.compactMap { $0.endedAt == nil ? $0.endsAt : nil }.min()
    }

    // MARK: Resets

    /// Checks a game account's reset against its game's allowance and counts it (before the reset, so a failure
    /// afterwards never grants an extra one).
    func consumeReset(_ account: AccountID) async throws(BrokerageError) {
        guard var player = try referee.mayReset(account) else { return }
        player.resetsUsed += 1
        do { try await storage.savePlayer(player) } catch { throw .storage(error) }
        book.set(player)
    }

    // MARK: Leaderboard

    /// The game's standings: final once it ended, else live at current prices.
    public func leaderboard(_ id: GameID, user: UserID, code: String? = nil) async throws(BrokerageError) -> GameBoard {
        await refresh(unlessKnown: id)
        let game = try referee.visibleGame(id, user: user, code: code)
        if let final = game.final, let ended = game.endedAt {
            return GameBoard(
                game: game, standings: final, asOf: ended, isFinal: true, benchmark: Self.benchmark(game),
                benchmarkReturn: nil)
        }
        return try await liveStandings(game)
    }

    static func benchmark(_ game: GameRecord) -> MarketIndex { game.market == .us ? .sp500 : .sseComposite }

    /// The standings at current prices. `final`: outside regular trading a holding is valued at its market's
    /// close (the day's closing price, or the previous close before the open), not at an extended-hours print —
    /// a game's values freeze at the last close.
    func liveStandings(_ game: GameRecord, final: Bool = false) async throws(BrokerageError) -> GameBoard {
        let players = referee.activePlayers(game.id)
        var accounts: [AccountID: Account] = [:]
        for player in players {
            if let account = await playerAccount(player.accountID) {
                accounts[player.accountID] = account
            }
        }
        // Each held symbol, and one account holding it (whose shard knows a last trade if the feed fails).
        var held: [String: AccountID] = [:]
        for (id, account) in accounts {
            for position in account.positions.values where !position.qty.isZero { held[position.symbol] = id }
            for balance in account.balances.values where !balance.amount.isZero { held[balance.pairSymbol] = id }
        }
        var marks: [String: Leaderboard.Mark] = [:]
        for (symbol, holder) in held.sorted(by: { $0.key < $1.key }) {
            if let quote = try? await market.quote(symbol, reuse: true) {
                let last = final ? await closingPrice(quote) : quote.last
                marks[symbol] = Leaderboard.Mark(last: last, previousClose: quote.previousClose)
            } else if let mark = await (try? shard(holder))?.mark(symbol) {
                marks[symbol] = Leaderboard.Mark(last: mark, previousClose: nil)
            }
        }
        let index = Self.benchmark(game)
        let benchmarkReturn = await indexReturn(index, since: game.startsAt)
        var entries: [Leaderboard.Player] = []
        entries.reserveCapacity(players.count)
        for player in players {
            guard let account = accounts[player.accountID] else { continue }
            var sharpe: FixedDecimal?
            if game.settings.ranking == .sharpe {
                sharpe = try await gameSharpe(player.accountID, since: game.startsAt)
            }
            entries.append(
                Leaderboard.Player(accountID: player.accountID, name: player.name, account: account, sharpe: sharpe))
        }
        let standings = Leaderboard.standings(
            entries, marks: marks, ranking: game.settings.ranking, benchmarkReturn: benchmarkReturn)
        return GameBoard(
            game: game, standings: standings, asOf: clock.now(), isFinal: false, benchmark: index,
            benchmarkReturn: benchmarkReturn)
    }

    /// What a holding is worth once trading stopped: during the session its last price; before the open the
    /// previous close; after the close (or on a closed day) the day's official close.
    func closingPrice(_ quote: MarketQuote) async -> Price {
        switch quote.phase {
        case .preMarket: return quote.previousClose
        case .postMarket, .closed:
            guard let entry = directory.entry(quote.symbol) else { return quote.last }
            let zone = entry.instrument.calendar.zone
            let day = try? await feed.bars(
                quote.symbol, timeframe: .day, from: Timestamp(quote.tradingDate, in: zone),
                to: Timestamp(quote.tradingDate.adding(days: 1), in: zone))
            return day?.last?.close ?? quote.last
        default: return quote.last
        }
    }

    /// The index's return from the last close before `start` to now; nil when the feed has no bars for it.
    func indexReturn(_ index: MarketIndex, since start: Timestamp) async -> FixedDecimal? {
        let now = clock.now()
        let bars = await market.dailyIndexBars(index, from: start.adding(nanoseconds: -10 * Duration64.day), to: now)
        let startDate = index.market.calendar.zone.localTime(of: start).date
        let zone = index.market.calendar.zone
        guard let base = bars.last(where: { zone.localTime(of: $0.time).date < startDate }) ?? bars.first,
            base.close.isPositive
        else { return nil }
        let live = (try? await feed.indices())?.first { $0.index == index }?.value
        guard let current = live ?? bars.last?.close else { return nil }
        return (current - base.close).divided(by: base.close, places: 6, rule: .halfEven)
    }

    /// A player's Sharpe ratio over the closes since the game started (nil below 20 daily returns).
    func gameSharpe(_ account: AccountID, since start: Timestamp) async throws(BrokerageError) -> FixedDecimal? {
        _ = try? await shard(account).catchUpEquityDays(account)
        let zone = await playerAccount(account)?.market.calendar.zone ?? TradingCalendar.xnys.zone
        let days: [EquityDay]
        do {
            days = try await equityHistory.equityDays(
                account: account, from: zone.localTime(of: start).date, through: nil, withHoldings: false)
        } catch {
            throw .storage(error)
        }
        let points = days.map { ValuationPoint(date: $0.date, value: $0.equity, flow: $0.flow) }
        return PerformanceMetrics.figures(points)?.sharpe
    }

    /// Each close's ranks since the game started (for a rank history chart): per trading day, every player's
    /// return at that close and rank by it.
    public func history(_ id: GameID, user: UserID, code: String? = nil) async throws(BrokerageError)
        -> [(
            date: CivilDate, standings: [(accountID: AccountID, player: String, rank: Int, totalReturn: FixedDecimal)]
        )]
    {
        let game = try referee.visibleGame(id, user: user, code: code)
        let zone = game.market.calendar.zone
        let from = zone.localTime(of: game.startsAt).date
        let through = game.endedAt.map { zone.localTime(of: $0).date }
        var byDate: [CivilDate: [(AccountID, String, FixedDecimal)]] = [:]
        for player in referee.activePlayers(id) {
            _ = try? await shard(player.accountID).catchUpEquityDays(player.accountID)
            let days: [EquityDay]
            do {
                days = try await equityHistory.equityDays(
                    account: player.accountID, from: from, through: through, withHoldings: false)
            } catch {
                throw .storage(error)
            }
            let start = game.settings.startingCash
            for day in days {
                let r = (day.equity - start).divided(by: start, places: 6, rule: .halfEven) ?? .zero
                byDate[day.date, default: []].append((player.accountID, player.name, r))
            }
        }
        return byDate.sorted { $0.key < $1.key }.map { date, lines in
            let sorted = lines.sorted { $0.2 != $1.2 ? $0.2 > $1.2 : $0.1 < $1.1 }
            var ranked: [(accountID: AccountID, player: String, rank: Int, totalReturn: FixedDecimal)] = []
            for (i, line) in sorted.enumerated() {
                let rank = i > 0 && sorted[i - 1].2 == line.2 ? ranked[i - 1].rank : i + 1
                ranked.append((line.0, line.1, rank, line.2))
            }
            return (date, ranked)
        }
    }

    /// A player's portfolio, if `user` may see it: the owner and the player always; others as the game says
    /// (never, after the end, always).
    public func portfolio(_ id: GameID, account: AccountID, user: UserID, code: String? = nil)
        async throws(BrokerageError) -> AccountSummary
    {
        let game = try referee.visibleGame(id, user: user, code: code)
        guard let player = players[account], player.gameID == id else {
            throw .notFound("player not found in this game")
        }
        let allowed =
            switch game.settings.portfoliosVisible {
            case .always: true
            case .afterEnd: referee.status(game) == .ended
            case .never: false
            }
        guard allowed || game.ownerID == user || player.userID == user else {
            throw .forbidden(
                game.settings.portfoliosVisible == .never
                    ? "this game keeps portfolios private" : "portfolios are shown when the game ends")
        }
        return try await shard(account).summary(account, dayProfit: true)
    }
}

extension String {
    var trimmed: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

extension GameRecord {
    /// Whether a typed code is the game's join code (case and spaces do not matter).
    func matches(_ code: String) -> Bool {
        code.uppercased().filter { !$0.isWhitespace } == joinCode
    }
}
