import BrokerageModel
import TradingCore

/// What games decide, with no storage, shard or clock of its own: whether settings are valid, who may create, see
/// and join a game, a game's status and registration window, what its owner may change and when a player may
/// reset. Every answer is a function of the book it is given (games and players) and of `now`, so each rule is
/// tested as a plain value (`GameRefereeTests`); `GameRegistry` asks it, then does what it decided (storage, the
/// players' shards, notifications).
struct GameReferee {
    let games: [GameID: GameRecord]
    let players: [AccountID: GamePlayerRecord]
    let now: Timestamp

    /// How many games one user may own that have not ended.
    static let openGamesPerOwner = 20

    // MARK: Creating

    /// Refuses a game `owner` may not create: the first problem of its settings, or past `openGamesPerOwner`.
    func mayCreate(owner: UserID, name: String, market: Market, settings: GameSettings) throws(BrokerageError) {
        if let problem = Self.problem(name: name, market: market, settings: settings, now: now) {
            throw .invalid(problem)
        }
        guard games.values.count(where: { $0.ownerID == owner && $0.endedAt == nil }) < Self.openGamesPerOwner else {
            throw .invalid("a user may run at most \(Self.openGamesPerOwner) games at a time; end one first")
        }
    }

    /// Eight characters without look-alikes (no 0/O, 1/I/L): read aloud in a classroom, typed on a phone.
    static func joinCode(using generator: inout some RandomNumberGenerator) -> String {
        let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
        return String((0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The first thing wrong with a game's settings, in words a teacher understands.
    static func problem(name: String, market: Market, settings s: GameSettings, now: Timestamp) -> String? {
        let trimmed = name.trimmed
        if trimmed.isEmpty { return "name is required" }
        if trimmed.count > 100 { return "name must be at most 100 characters" }
        if s.description.count > 2000 { return "description must be at most 2000 characters" }
        let cash = s.startingCash
        if !cash.isPositive || !cash.isMultiple(of: market.currency.minorUnit) || cash > FixedDecimal(1_000_000_000) {
            return "starting_cash must be a positive amount in \(market.currency.rawValue) cents, at most 1000000000"
        }
        let r = s.rules
        if let start = r.startsAt, let end = r.endsAt, end <= start { return "ends_at must be after starts_at" }
        if let end = r.endsAt, end <= now { return "ends_at must be in the future" }
        if let close = s.registrationEndsAt, let end = r.endsAt, close > end {
            return "registration_ends_at must not be after ends_at"
        }
        if market == .cn, s.margin || r.shortSelling {
            return "A-share games cannot allow margin or short selling: A-share accounts are cash accounts"
        }
        if r.shortSelling, !s.margin {
            return
                "short_selling needs margin: a short sale borrows shares, which only a margin account may do; allow margin too, or turn short selling off"
        }
        if s.margin, s.marginMultiplier != 2, s.marginMultiplier != 4 {
            return "margin_multiplier must be 2 (Reg T) or 4 (intraday, for $25,000 and more)"
        }
        for (field, value) in [
            ("commission_per_trade", s.commissionPerTrade), ("commission_percent", s.commissionPercent),
        ]
        where value?.isNegative ?? false {
            return "\(field) must not be negative"
        }
        if let percent = s.commissionPercent, percent > FixedDecimal(10) {
            return "commission_percent must be at most 10"
        }
        for (field, value) in [("min_price_buy", r.minimumBuyPrice), ("min_price_short", r.minimumShortPrice)]
        where value?.isNegative ?? false {
            return "\(field) must not be negative"
        }
        for (field, value) in [
            ("max_position_percent", r.maximumPositionPercent), ("max_volume_percent", r.maximumVolumePercent),
        ] {
            if let value, !value.isPositive || value > FixedDecimal(100) {
                return "\(field) must be above 0 and at most 100"
            }
        }
        if let minutes = r.quickSellMinutes, minutes < 0 || minutes > 7 * 24 * 60 {
            return "quick_sell_minutes must be between 0 and 10080 (a week)"
        }
        if let most = r.maximumOrdersPerDay, most < 1 || most > 100_000 {
            return "max_trades_per_day must be between 1 and 100000"
        }
        if let resets = s.resetsAllowed, resets < 0 { return "resets_allowed must not be negative" }
        if let most = s.maxPlayers, most < 1 || most > 1_000_000 { return "max_players must be between 1 and 1000000" }
        return nil
    }

    // MARK: Seeing

    /// Whether `user` may see the game: public games everyone; private ones their owner, their players, and whoever
    /// has the join code.
    func mayView(_ game: GameRecord, user: UserID, code: String?) -> Bool {
        game.settings.visibility == .public || game.ownerID == user || code.map(game.matches) == true
            || players.values.contains { $0.gameID == game.id && $0.userID == user }
    }

    /// The game, if `user` may see it; "not found" otherwise (a private game's existence is not revealed).
    func visibleGame(_ id: GameID, user: UserID, code: String?) throws(BrokerageError) -> GameRecord {
        guard let game = games[id], mayView(game, user: user, code: code) else { throw .notFound("game not found") }
        return game
    }

    /// The game as `user` sees it.
    func view(_ game: GameRecord, user: UserID) -> GameView {
        let players = activePlayers(game.id)
        return GameView(
            game: game, status: status(game), players: players.count, isOwner: game.ownerID == user,
            account: players.first { $0.userID == user }?.accountID, registrationEndsAt: Self.registrationEnd(game))
    }

    /// Games the user owns or plays in (`mine`), or every public game; newest first.
    func views(user: UserID, mine: Bool) -> [GameView] {
        let playing = Set(players.values.filter { $0.userID == user && $0.removedAt == nil }.map(\.gameID))
        return games.values
            .filter { mine ? $0.ownerID == user || playing.contains($0.id) : $0.settings.visibility == .public }
            .sorted { $0.createdAt > $1.createdAt }
            .map { view($0, user: user) }
    }

    func status(_ game: GameRecord) -> GameStatus {
        if game.endedAt != nil || game.endsAt.map({ $0 <= now }) == true { return .ended }
        return game.startsAt > now ? .upcoming : .running
    }

    /// When joining closes: the set time, else the end (late entry) or the start.
    static func registrationEnd(_ game: GameRecord) -> Timestamp? {
        if let close = game.settings.registrationEndsAt { return close }
        return game.settings.lateEntry ? game.endsAt : game.startsAt
    }

    /// The game's players who were not removed, in the order they joined.
    func activePlayers(_ id: GameID) -> [GamePlayerRecord] {
        players.values.filter { $0.gameID == id && $0.removedAt == nil }.sorted { $0.joinedAt < $1.joinedAt }
    }

    // MARK: Joining

    /// The game `user` may join now, or why not: not found (or private without its code), already playing, removed,
    /// ended, registration closed, full.
    func admission(to id: GameID, user: UserID, code: String?) throws(BrokerageError) -> GameRecord {
        let game = try visibleGame(id, user: user, code: code)
        if game.settings.visibility == .private, game.ownerID != user, code.map(game.matches) != true {
            throw .forbidden("this game is private: joining needs its join code or invite link")
        }
        if let existing = players.values.first(where: { $0.gameID == id && $0.userID == user }) {
            if existing.removedAt != nil { throw .forbidden("the owner removed you from this game") }
            throw .conflict("you already play in this game (account \(existing.accountID))")
        }
        guard status(game) != .ended else { throw .forbidden("this game has ended") }
        if let close = Self.registrationEnd(game), now >= close {
            throw .forbidden(
                game.settings.lateEntry || game.settings.registrationEndsAt != nil
                    ? "registration for this game closed at \(close.minuteText) UTC"
                    : "this game started at \(game.startsAt.minuteText) UTC and does not allow late entry")
        }
        if let most = game.settings.maxPlayers, activePlayers(id).count >= most {
            throw .forbidden("this game is full: at most \(most) players")
        }
        return game
    }

    // MARK: Owner tools

    /// The game, if `user` owns it.
    func ownedGame(_ id: GameID, by user: UserID) throws(BrokerageError) -> GameRecord {
        let game = try visibleGame(id, user: user, code: nil)
        guard game.ownerID == user else { throw .forbidden("only the game's owner may do this") }
        return game
    }

    /// The game as `change` leaves it, or why the owner may not make it: the game ended, a start that has passed or
    /// would be in the past, a ranking changed after the start, settings that stop being valid.
    func applying(_ change: GameChange, to id: GameID, by user: UserID) throws(BrokerageError) -> GameRecord {
        var game = try ownedGame(id, by: user)
        guard status(game) != .ended else { throw .forbidden("this game has ended: its settings are final") }
        let started = status(game) == .running
        if let name = change.name { game.name = name.trimmed }
        if let description = change.description { game.settings.description = description }
        if let visibility = change.visibility { game.settings.visibility = visibility }
        if let start = change.startsAt {
            guard !started else { throw .invalid("starts_at cannot change: the game has started") }
            guard start > now else { throw .invalid("starts_at must be in the future") }
            game.settings.rules.startsAt = start
        }
        if let end = change.endsAt { game.settings.rules.endsAt = end }
        if let close = change.registrationEndsAt { game.settings.registrationEndsAt = close }
        if let late = change.lateEntry { game.settings.lateEntry = late }
        if let most = change.maxPlayers { game.settings.maxPlayers = most }
        if let resets = change.resetsAllowed { game.settings.resetsAllowed = resets }
        if let visible = change.portfoliosVisible { game.settings.portfoliosVisible = visible }
        if let ranking = change.ranking {
            guard !started || ranking == game.settings.ranking else {
                throw .invalid("ranking cannot change once the game has started")
            }
            game.settings.ranking = ranking
        }
        if let problem = Self.problem(name: game.name, market: game.market, settings: game.settings, now: now) {
            throw .invalid(problem)
        }
        return game
    }

    // MARK: Resets

    /// The player whose game account may be reset now (nil: not a game account, no limit applies), or why not:
    /// removed, the game ended, no resets allowed or all used.
    func mayReset(_ account: AccountID) throws(BrokerageError) -> GamePlayerRecord? {
        guard let player = players[account], let game = games[player.gameID] else { return nil }
        guard player.removedAt == nil else { throw .forbidden("the owner removed you from this game") }
        guard status(game) != .ended else { throw .forbidden("this game has ended: its accounts are final") }
        if let allowed = game.settings.resetsAllowed {
            guard allowed > 0 else { throw .forbidden("this game does not allow resets") }
            guard player.resetsUsed < allowed else {
                throw .forbidden(
                    "this game allows \(allowed) \(allowed == 1 ? "reset" : "resets"); you have used \(player.resetsUsed)"
                )
            }
        }
        return player
    }
}
