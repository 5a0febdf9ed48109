import Foundation

/// A trading game: players start with the same cash under the same rules and are ranked on a leaderboard.
public struct Game: Codable, Hashable, Sendable, Identifiable {
    /// The game's rules; nil means no limit. The engine enforces them on every order of a game account.
    public struct Rules: Codable, Hashable, Sendable {
        @OptionalExactDecimal public var commissionPerTrade: Decimal?
        @OptionalExactDecimal public var commissionPercent: Decimal?
        public var margin: Bool?
        public var marginMultiplier: Int?
        public var shortSelling: Bool?
        @OptionalExactDecimal public var minPriceBuy: Decimal?
        @OptionalExactDecimal public var minPriceShort: Decimal?
        @OptionalExactDecimal public var maxPositionPercent: Decimal?
        @OptionalExactDecimal public var maxVolumePercent: Decimal?
        public var quickSellMinutes: Int?
        public var maxTradesPerDay: Int?
        public var dayTrading: Bool?
        public var resetsAllowed: Int?
        /// `never`, `after_end` or `always`.
        public var portfoliosVisible: String?
        /// `return`, `sharpe` or `excess_return`.
        public var ranking: String?
        /// Whether players may trade options (the server's default: true).
        public var options: Bool?
        /// Whether crypto pairs count (the server's default: false).
        public var crypto: Bool?
        /// Whether currency pairs may be traded (the server's default: false).
        public var forex: Bool?

        public init(
            commissionPerTrade: Decimal? = nil, commissionPercent: Decimal? = nil, margin: Bool? = nil,
            marginMultiplier: Int? = nil, shortSelling: Bool? = nil, minPriceBuy: Decimal? = nil,
            minPriceShort: Decimal? = nil, maxPositionPercent: Decimal? = nil, maxVolumePercent: Decimal? = nil,
            quickSellMinutes: Int? = nil, maxTradesPerDay: Int? = nil, dayTrading: Bool? = nil,
            resetsAllowed: Int? = nil, portfoliosVisible: String? = nil, ranking: String? = nil, options: Bool? = nil,
            crypto: Bool? = nil, forex: Bool? = nil
        ) {
            self.commissionPerTrade = commissionPerTrade
            self.commissionPercent = commissionPercent
            self.margin = margin
            self.marginMultiplier = marginMultiplier
            self.shortSelling = shortSelling
            self.minPriceBuy = minPriceBuy
            self.minPriceShort = minPriceShort
            self.maxPositionPercent = maxPositionPercent
            self.maxVolumePercent = maxVolumePercent
            self.quickSellMinutes = quickSellMinutes
            self.maxTradesPerDay = maxTradesPerDay
            self.dayTrading = dayTrading
            self.resetsAllowed = resetsAllowed
            self.portfoliosVisible = portfoliosVisible
            self.ranking = ranking
            self.options = options
            self.crypto = crypto
            self.forex = forex
        }

        enum CodingKeys: String, CodingKey {
            case margin, ranking, options, crypto, forex
            case commissionPerTrade = "commission_per_trade", commissionPercent = "commission_percent"
            case marginMultiplier = "margin_multiplier", shortSelling = "short_selling"
            case minPriceBuy = "min_price_buy", minPriceShort = "min_price_short"
            case maxPositionPercent = "max_position_percent", maxVolumePercent = "max_volume_percent"
            case quickSellMinutes = "quick_sell_minutes", maxTradesPerDay = "max_trades_per_day"
            case dayTrading = "day_trading", resetsAllowed = "resets_allowed"
            case portfoliosVisible = "portfolios_visible"
        }
    }

    public var id: String
    public var name: String
    public var description: String
    public var market: Market
    public var currency: String
    /// `public` or `private`.
    public var visibility: String
    /// `upcoming`, `running` or `ended`.
    public var status: String
    public var isOwner: Bool
    /// The caller's game account, once joined.
    public var myAccountID: String?
    public var players: Int
    public var maxPlayers: Int?
    /// Shown to the owner and to players of a private game.
    public var joinCode: String?
    public var inviteURL: String?
    @ExactDecimal public var startingCash: Decimal
    @ServerTime public var startsAt: Date
    @OptionalServerTime public var endsAt: Date?
    @OptionalServerTime public var endedAt: Date?
    @OptionalServerTime public var registrationEndsAt: Date?
    public var lateEntry: Bool
    @ServerTime public var createdAt: Date
    public var rules: Rules

    enum CodingKeys: String, CodingKey {
        case id, name, description, market, currency, visibility, status, players, rules
        case isOwner = "is_owner", myAccountID = "my_account_id", maxPlayers = "max_players", joinCode = "join_code"
        case inviteURL = "invite_url", startingCash = "starting_cash", startsAt = "starts_at", endsAt = "ends_at"
        case endedAt = "ended_at", registrationEndsAt = "registration_ends_at", lateEntry = "late_entry"
        case createdAt = "created_at"
    }
}

/// A new game's settings (``PapertradeClient/createGame(_:)``).
public struct GameSettings: Encodable, Hashable, Sendable {
    public var name: String
    public var description: String?
    public var market: Market
    public var startingCash: Decimal
    public var isPrivate: Bool
    public var startsAt: Date?
    public var endsAt: Date?
    public var lateEntry: Bool?
    public var maxPlayers: Int?
    public var rules: Game.Rules?

    public init(
        name: String, description: String? = nil, market: Market = .us, startingCash: Decimal = 100_000,
        isPrivate: Bool = false, startsAt: Date? = nil, endsAt: Date? = nil, lateEntry: Bool? = nil,
        maxPlayers: Int? = nil, rules: Game.Rules? = nil
    ) {
        self.name = name
        self.description = description
        self.market = market
        self.startingCash = startingCash
        self.isPrivate = isPrivate
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.lateEntry = lateEntry
        self.maxPlayers = maxPlayers
        self.rules = rules
    }

    enum CodingKeys: String, CodingKey {
        case name, description, market, visibility, rules
        case startingCash = "starting_cash", startsAt = "starts_at", endsAt = "ends_at", lateEntry = "late_entry"
        case maxPlayers = "max_players"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(description, forKey: .description)
        try c.encode(market, forKey: .market)
        try c.encode(ExactDecimal.text(startingCash), forKey: .startingCash)
        try c.encode(isPrivate ? "private" : "public", forKey: .visibility)
        if let startsAt { try c.encode(ServerTime.text(startsAt), forKey: .startsAt) }
        if let endsAt { try c.encode(ServerTime.text(endsAt), forKey: .endsAt) }
        try c.encodeIfPresent(lateEntry, forKey: .lateEntry)
        try c.encodeIfPresent(maxPlayers, forKey: .maxPlayers)
        if let rules { try c.encode(RulesBody(rules), forKey: .rules) }
    }

    /// The rules a creation sends: only those set (an absent rule means no limit).
    struct RulesBody: Encodable {
        let rules: Game.Rules
        init(_ rules: Game.Rules) { self.rules = rules }

        func encode(to encoder: any Encoder) throws {
            typealias Key = Game.Rules.CodingKeys
            var c = encoder.container(keyedBy: Key.self)
            let r = rules
            for (value, key) in [
                (r.commissionPerTrade, Key.commissionPerTrade), (r.commissionPercent, .commissionPercent),
                (r.minPriceBuy, .minPriceBuy), (r.minPriceShort, .minPriceShort),
                (r.maxPositionPercent, .maxPositionPercent), (r.maxVolumePercent, .maxVolumePercent),
            ] {
                if let value { try c.encode(ExactDecimal.text(value), forKey: key) }
            }
            try c.encodeIfPresent(r.margin, forKey: .margin)
            try c.encodeIfPresent(r.marginMultiplier, forKey: .marginMultiplier)
            try c.encodeIfPresent(r.shortSelling, forKey: .shortSelling)
            try c.encodeIfPresent(r.quickSellMinutes, forKey: .quickSellMinutes)
            try c.encodeIfPresent(r.maxTradesPerDay, forKey: .maxTradesPerDay)
            try c.encodeIfPresent(r.dayTrading, forKey: .dayTrading)
            try c.encodeIfPresent(r.resetsAllowed, forKey: .resetsAllowed)
            try c.encodeIfPresent(r.portfoliosVisible, forKey: .portfoliosVisible)
            try c.encodeIfPresent(r.ranking, forKey: .ranking)
            try c.encodeIfPresent(r.options, forKey: .options)
            try c.encodeIfPresent(r.crypto, forKey: .crypto)
            try c.encodeIfPresent(r.forex, forKey: .forex)
        }
    }
}

/// A player's place in a game: the game account that plays it (and, when asked for, an API key to trade it from a
/// bot or an agent — the secret is shown this once).
public struct GameMembership: Codable, Hashable, Sendable {
    public var gameID: String
    public var accountID: String
    public var player: String
    @ServerTime public var joinedAt: Date
    public var keyID: String?
    public var secret: String?

    enum CodingKeys: String, CodingKey {
        case player, secret
        case gameID = "game_id", accountID = "account_id", joinedAt = "joined_at", keyID = "key_id"
    }
}

/// A game's standings now (or final once it ended).
public struct Leaderboard: Codable, Hashable, Sendable {
    public struct Entry: Codable, Hashable, Sendable {
        public var rank: Int
        public var player: String
        public var accountID: String
        @ExactDecimal public var equity: Decimal
        @ExactDecimal public var dayChange: Decimal
        /// Fraction since the start (0.05 = +5%).
        @OptionalExactDecimal public var `return`: Decimal?
        @OptionalExactDecimal public var excessReturn: Decimal?
        @OptionalExactDecimal public var sharpe: Decimal?
        public var trades: Int

        enum CodingKeys: String, CodingKey {
            case rank, player, equity, `return`, sharpe, trades
            case accountID = "account_id", dayChange = "day_change", excessReturn = "excess_return"
        }
    }

    public struct Benchmark: Codable, Hashable, Sendable {
        public var index: String
        @OptionalExactDecimal public var `return`: Decimal?
    }

    public var gameID: String
    public var ranking: String
    public var final: Bool
    @ServerTime public var asOf: Date
    public var myAccountID: String?
    public var benchmark: Benchmark?
    public var entries: [Entry]

    enum CodingKeys: String, CodingKey {
        case ranking, final, benchmark, entries
        case gameID = "game_id", asOf = "as_of", myAccountID = "my_account_id"
    }
}
