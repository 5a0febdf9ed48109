import TradingCore

/// Who may find a game: anyone (it is listed), or only those given its join code or invite link.
public enum GameVisibility: String, Sendable, Codable, Hashable, CaseIterable {
    case `public`, `private`
}

/// Whom a game shows its players' portfolios to (the owner always sees them).
public enum PortfolioVisibility: String, Sendable, Codable, Hashable, CaseIterable {
    case never
    case afterEnd = "after_end"
    case always
}

/// A game's settings: everything but its name, owner and market. The trading rules every player's account is
/// bound to are `rules`; commission and margin become the accounts' fee schedule and margin terms at joining.
public struct GameSettings: Sendable, Codable, Hashable {
    public var description: String
    public var visibility: GameVisibility
    public var startingCash: FixedDecimal
    /// Joining closes at this time (nil: at the start without late entry, else at the end).
    public var registrationEndsAt: Timestamp?
    public var lateEntry: Bool
    public var maxPlayers: Int?
    /// A flat amount per order and/or a percentage of the traded value; neither: the market's real fees.
    public var commissionPerTrade: FixedDecimal?
    public var commissionPercent: FixedDecimal?
    public var margin: Bool
    public var marginMultiplier: Int
    public var rules: GameRules
    /// Resets each player may make (nil: any number).
    public var resetsAllowed: Int?
    public var portfoliosVisible: PortfolioVisibility
    public var ranking: GameRanking

    public init(
        description: String = "", visibility: GameVisibility = .public, startingCash: FixedDecimal,
        registrationEndsAt: Timestamp? = nil, lateEntry: Bool = true, maxPlayers: Int? = nil,
        commissionPerTrade: FixedDecimal? = nil, commissionPercent: FixedDecimal? = nil, margin: Bool = false,
        marginMultiplier: Int = 2, rules: GameRules = GameRules(), resetsAllowed: Int? = 0,
        portfoliosVisible: PortfolioVisibility = .afterEnd, ranking: GameRanking = .totalReturn
    ) {
        self.description = description
        self.visibility = visibility
        self.startingCash = startingCash
        self.registrationEndsAt = registrationEndsAt
        self.lateEntry = lateEntry
        self.maxPlayers = maxPlayers
        self.commissionPerTrade = commissionPerTrade
        self.commissionPercent = commissionPercent
        self.margin = margin
        self.marginMultiplier = marginMultiplier
        self.rules = rules
        self.resetsAllowed = resetsAllowed
        self.portfoliosVisible = portfoliosVisible
        self.ranking = ranking
    }
}

/// A game: a competition whose players each trade a game account under its rules.
public struct GameRecord: Sendable, Hashable {
    public var id: GameID
    public var ownerID: UserID
    public var name: String
    public var market: Market
    /// What a private game's players type (or carry in the invite link) to join.
    public var joinCode: String
    public var settings: GameSettings
    public var createdAt: Timestamp
    /// When the game ended (at its end time, or early by its owner); its standings are then `final`.
    public var endedAt: Timestamp?
    public var final: [Standing]?

    public init(
        id: GameID, ownerID: UserID, name: String, market: Market, joinCode: String, settings: GameSettings,
        createdAt: Timestamp, endedAt: Timestamp? = nil, final: [Standing]? = nil
    ) {
        self.id = id
        self.ownerID = ownerID
        self.name = name
        self.market = market
        self.joinCode = joinCode
        self.settings = settings
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.final = final
    }

    /// When trading starts: the start date, else when the game was created.
    public var startsAt: Timestamp { settings.rules.startsAt ?? createdAt }
    public var endsAt: Timestamp? { settings.rules.endsAt }
}

/// A player of a game: the game account they trade, and what the game counts for them.
public struct GamePlayerRecord: Sendable, Hashable {
    public var gameID: GameID
    public var accountID: AccountID
    public var userID: UserID
    /// The name shown on the leaderboard (the username at joining).
    public var name: String
    public var joinedAt: Timestamp
    /// Set when the owner removed the player: they leave the board and the account stops trading.
    public var removedAt: Timestamp?
    public var resetsUsed: Int
    /// A class team's shared account (`userID` is one of its members, who may play in the game on their own too).
    public var team: Bool

    public init(
        gameID: GameID, accountID: AccountID, userID: UserID, name: String, joinedAt: Timestamp,
        removedAt: Timestamp? = nil, resetsUsed: Int = 0, team: Bool = false
    ) {
        self.team = team
        self.gameID = gameID
        self.accountID = accountID
        self.userID = userID
        self.name = name
        self.joinedAt = joinedAt
        self.removedAt = removedAt
        self.resetsUsed = resetsUsed
    }
}
