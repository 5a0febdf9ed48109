import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Games: create one with rules, join it (by id, code or invite link) with a game account, follow its
/// leaderboard; owner tools to edit, remove a player, end early and export results. The rules themselves are
/// enforced by the engine on every order of a game account, whichever surface places it (`GameRules`).
///
/// `POST /api/v1/games` body (every rule optional: omitted means no limit; omitted dates: starts now, never ends):
/// ```
/// {"name": "Econ 101", "description": "…", "market": "us", "starting_cash": "50000", "visibility": "private",
///  "starts_at": "2026-12-01T14:30:00Z", "ends_at": "2027-01-29T21:00:00Z", "registration_ends_at": null,
///  "late_entry": true, "max_players": 40,
///  "rules": {"commission_per_trade": "4.95", "commission_percent": "0", "margin": false, "margin_multiplier": 2,
///            "short_selling": false, "min_price_buy": "1", "min_price_short": "5", "max_position_percent": "20",
///            "max_volume_percent": "10", "quick_sell_minutes": 15, "max_trades_per_day": 10, "day_trading": true,
///            "resets_allowed": 1, "portfolios_visible": "after_end", "ranking": "return", "options": false}}
/// ```
struct GamesController {
    let clock: MarketClock
    let accountService: any AccountService
    let games: GameRegistry
    let users: UserDirectory
    let access: UserAccess

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("games", use: list)
        group.post("games", use: create)
        group.post("games/join", use: joinByCode)
        group.get("games/{id}", use: show)
        group.patch("games/{id}", use: update)
        group.post("games/{id}/join", use: join)
        group.get("games/{id}/leaderboard", use: leaderboard)
        group.get("games/{id}/history", use: history)
        group.get("games/{id}/export", use: export)
        group.get("games/{id}/players/{player}/portfolio", use: portfolio)
        group.post("games/{id}/players/{player}/remove", use: remove)
        group.post("games/{id}/end", use: end)
    }

    // MARK: Routes

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        // ?code= finds the game a join code belongs to (the invite link's screen shows it before joining).
        if let code = request.query("code") {
            guard let id = games.id(code: code) else { return JSONValue.array([]).response() }
            return JSONValue.array([encode(try games.view(id, user: user, code: code), request: request)])
                .response()
        }
        let scope = request.query("scope") ?? "public"
        guard scope == "mine" || scope == "public" else { throw APIError.unprocessable("scope must be mine or public") }
        let views = games.views(user: user, mine: scope == "mine")
        return JSONValue.array(views.map { encode($0, request: request) }).response()
    }

    @Sendable func create(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        let body = try await request.jsonBody(context: context)
        let (name, market, settings) = try Self.parseCreation(body, now: clock.now())
        let game = try await games.create(owner: user, name: name, market: market, settings: settings)
        return encode(try games.view(game.id, user: user), request: request).response(status: .created)
    }

    @Sendable func show(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        let view = try games.view(try Self.id(context), user: user, code: request.query("code"))
        return encode(view, request: request).response()
    }

    @Sendable func update(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let id = try Self.id(context)
        var request = request
        let change = try Self.parseChange(try await request.jsonBody(context: context))
        _ = try await games.update(id, by: user, change)
        return encode(try games.view(id, user: user), request: request).response()
    }

    @Sendable func join(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        var request = request
        let body = try await Self.joinBody(&request, context: context)
        return try await joined(try Self.id(context), body: body, user: user)
    }

    /// Joins the game a code belongs to (the web app's "enter a code" and invite links).
    @Sendable func joinByCode(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        var request = request
        let body = try await Self.joinBody(&request, context: context)
        guard let code = body.code, !code.isEmpty else { throw APIError.unprocessable("code is required") }
        guard let id = games.id(code: code) else { throw APIError.notFound("no game has this code") }
        return try await joined(id, body: body, user: user)
    }

    /// Joins and answers with the game account (and, with `api_key: true`, an Alpaca API key for it: the secret is
    /// shown once).
    func joined(_ id: GameID, body: (code: String?, apiKey: Bool), user: UserID) async throws -> Response {
        let name = try await users.user(id: user)?.username ?? user.text
        let player = try await games.join(id, user: user, name: name, code: body.code)
        var o: [String: JSONValue] = [
            "account_id": .string(player.accountID.description), "game_id": .string(id.description),
            "player": .string(player.name), "joined_at": .string(player.joinedAt.description),
        ]
        if body.apiKey {
            let key = try await access.createKey(account: player.accountID)
            o["key_id"] = .string(key.keyID)
            o["secret"] = .string(key.secret)
        }
        return JSONValue.object(o).response(status: .created)
    }

    @Sendable func leaderboard(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        let board = try await games.leaderboard(try Self.id(context), user: user, code: request.query("code"))
        let me = try? games.view(board.game.id, user: user, code: request.query("code"))
        return JSONValue.object([
            "game_id": .string(board.game.id.description), "as_of": .string(board.asOf.description),
            "final": .bool(board.isFinal), "ranking": .string(board.game.settings.ranking.rawValue),
            "benchmark": .object([
                "index": .string(board.benchmark.rawValue), "return": .decimal(board.benchmarkReturn),
            ]),
            "my_account_id": .text(me?.account?.description),
            "entries": .array(
                board.standings.map { s in
                    .object([
                        "rank": .int(s.rank), "player": .string(s.player),
                        "account_id": .string(s.accountID.description),
                        "return": .decimal(s.totalReturn), "equity": .decimal(s.equity),
                        "day_change": .decimal(s.dayChange), "trades": .int(s.trades), "sharpe": .decimal(s.sharpe),
                        "excess_return": .decimal(s.excessReturn),
                    ])
                }),
        ]).response()
    }

    @Sendable func history(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let days = try await games.history(try Self.id(context), user: user, code: request.query("code"))
        return JSONValue.object([
            "days": .array(
                days.map { day in
                    .object([
                        "date": .string(day.date.description),
                        "standings": .array(
                            day.standings.map {
                                .object([
                                    "account_id": .string($0.accountID.description), "player": .string($0.player),
                                    "rank": .int($0.rank), "return": .decimal($0.totalReturn),
                                ])
                            }),
                    ])
                })
        ]).response()
    }

    /// The standings as CSV (the owner's export): rank, player, return, equity, day change, trades.
    @Sendable func export(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let id = try Self.id(context)
        let view = try games.view(id, user: user)
        guard view.isOwner else { throw BrokerageError.forbidden("only the game's owner may export its results") }
        let board = try await games.leaderboard(id, user: user)
        var csv = "rank,player,account_id,return,equity,day_change,trades,sharpe,excess_return\r\n"
        for s in board.standings {
            let fields = [
                String(s.rank), s.player, s.accountID.description, s.totalReturn.description, s.equity.description,
                s.dayChange.description, String(s.trades), s.sharpe?.description ?? "",
                s.excessReturn?.description ?? "",
            ]
            csv += fields.map(CSVFile.field).joined(separator: ",") + "\r\n"
        }
        return CSVFile.response(
            csv, file: "game-" + String(id.description.prefix(8)) + (board.isFinal ? "-final" : "") + ".csv")
    }

    @Sendable func portfolio(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let summary = try await games.portfolio(
            try Self.id(context), account: try Self.player(context), user: user, code: request.query("code"))
        let now = clock.now()
        return JSONValue.object([
            "account_id": .string(summary.account.id.description), "cash": .decimal(summary.account.cash),
            "equity": .decimal(summary.equity), "market_value": .decimal(summary.marketValue),
            "day_change": .decimal(summary.dayChange),
            "positions": .array(
                summary.positions.map { p in
                    NativeEncoding.position(
                        p, date: clock.sessions.tradingDate(p.instrument.calendar, at: now))
                }),
        ]).response()
    }

    @Sendable func remove(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let id = try Self.id(context)
        try await games.removePlayer(try Self.player(context), from: id, by: user)
        return encode(try games.view(id, user: user), request: request).response()
    }

    @Sendable func end(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let id = try Self.id(context)
        _ = try await games.end(id, by: user)
        return encode(try games.view(id, user: user), request: request).response()
    }

    // MARK: Encoding

    func encode(_ view: GameView, request: Request) -> JSONValue {
        let game = view.game
        let s = game.settings
        let r = s.rules
        // The join code (and so the invite link) is for those already in: the owner and the players, or anyone
        // for a public game.
        let mayInvite = s.visibility == .public || view.isOwner || view.account != nil
        return .object([
            "id": .string(game.id.description), "name": .string(game.name), "description": .string(s.description),
            "market": .string(game.market.rawValue), "currency": .string(game.market.currency.rawValue),
            "visibility": .string(s.visibility.rawValue), "status": .string(view.status.rawValue),
            "is_owner": .bool(view.isOwner), "my_account_id": .text(view.account?.description),
            "players": .int(view.players), "max_players": s.maxPlayers.map { .int($0) } ?? .null,
            "join_code": mayInvite ? .string(game.joinCode) : .null,
            "invite_url": mayInvite ? .string(Self.inviteURL(game, request: request)) : .null,
            "starting_cash": .decimal(s.startingCash), "starts_at": .string(game.startsAt.description),
            "ends_at": NativeEncoding.time(game.endsAt), "ended_at": NativeEncoding.time(game.endedAt),
            "registration_ends_at": NativeEncoding.time(view.registrationEndsAt), "late_entry": .bool(s.lateEntry),
            "created_at": .string(game.createdAt.description),
            "rules": .object([
                "commission_per_trade": .decimal(s.commissionPerTrade),
                "commission_percent": .decimal(s.commissionPercent), "margin": .bool(s.margin),
                "margin_multiplier": s.margin ? .int(s.marginMultiplier) : .null,
                "short_selling": .bool(r.shortSelling), "options": .bool(r.optionsAllowed),
                "crypto": .bool(r.cryptoAllowed), "forex": .bool(r.forexAllowed),
                "min_price_buy": .decimal(r.minimumBuyPrice), "min_price_short": .decimal(r.minimumShortPrice),
                "max_position_percent": .decimal(r.maximumPositionPercent),
                "max_volume_percent": .decimal(r.maximumVolumePercent),
                "quick_sell_minutes": r.quickSellMinutes.map { .int($0) } ?? .null,
                "max_trades_per_day": r.maximumOrdersPerDay.map { .int($0) } ?? .null,
                "day_trading": .bool(r.dayTrading), "resets_allowed": s.resetsAllowed.map { .int($0) } ?? .null,
                "portfolios_visible": .string(s.portfoliosVisible.rawValue), "ranking": .string(s.ranking.rawValue),
            ]),
        ])
    }

    /// The link a player shares: the web app's join screen for the game's code, on the host the request came to.
    static func inviteURL(_ game: GameRecord, request: Request) -> String {
        let host = request.head.authority ?? "localhost"
        let scheme = request.headers[.literal("X-Forwarded-Proto")] == "https" ? "https" : "http"
        return "\(scheme)://\(host)/#/join/\(game.joinCode)"
    }

    // MARK: Parsing

    static func id(_ context: AppContext) throws -> GameID {
        guard let id = GameID(try context.parameters.require("id")) else { throw APIError.notFound("game not found") }
        return id
    }

    static func player(_ context: AppContext) throws -> AccountID {
        guard let id = AccountID(try context.parameters.require("player")) else {
            throw APIError.notFound("player not found in this game")
        }
        return id
    }

    /// A join's optional body `{"code": "…", "api_key": true}` (the code may come as a query parameter instead).
    static func joinBody(_ request: inout Request, context: AppContext) async throws -> (code: String?, apiKey: Bool) {
        guard let body = try await request.optionalJSONBody(context: context) else {
            return (request.query("code"), false)
        }
        let o = try BodyFields(body, allowed: ["code", "api_key"])
        return (try o.string("code") ?? request.query("code"), try o.bool("api_key") ?? false)
    }

    static let topFields: Set<String> = [
        "name", "description", "market", "starting_cash", "visibility", "starts_at", "ends_at", "registration_ends_at",
        "late_entry", "max_players", "rules",
    ]
    static let ruleFields: Set<String> = [
        "commission_per_trade", "commission_percent", "margin", "margin_multiplier", "short_selling", "min_price_buy",
        "min_price_short", "max_position_percent", "max_volume_percent", "quick_sell_minutes", "max_trades_per_day",
        "day_trading", "resets_allowed", "portfolios_visible", "ranking", "options", "crypto",
        "forex",
    ]

    static func parseCreation(_ body: JSONValue, now: Timestamp) throws -> (String, Market, GameSettings) {
        let o = try BodyFields(body, allowed: topFields)
        let name = try o.required("name", o.string)
        let market = try o.choice("market", Market.self) ?? .us
        var settings = GameSettings(startingCash: try o.required("starting_cash", o.decimal), resetsAllowed: nil)
        settings.description = try o.string("description") ?? ""
        if let visibility = try o.choice("visibility", GameVisibility.self) { settings.visibility = visibility }
        settings.rules.startsAt = try o.time("starts_at")
        settings.rules.endsAt = try o.time("ends_at")
        settings.registrationEndsAt = try o.time("registration_ends_at")
        settings.lateEntry = try o.bool("late_entry") ?? true
        settings.maxPlayers = try o.int("max_players")
        guard let r = try o.object("rules", allowed: ruleFields, unknownName: "rule") else {
            settings.rules.shortSelling = false
            return (name, market, settings)
        }
        settings.commissionPerTrade = try r.decimal("commission_per_trade")
        settings.commissionPercent = try r.decimal("commission_percent")
        settings.margin = try r.bool("margin") ?? false
        settings.marginMultiplier = try r.int("margin_multiplier") ?? 2
        settings.rules.shortSelling = try r.bool("short_selling") ?? false
        settings.rules.minimumBuyPrice = try r.decimal("min_price_buy")
        settings.rules.minimumShortPrice = try r.decimal("min_price_short")
        settings.rules.maximumPositionPercent = try r.decimal("max_position_percent")
        settings.rules.maximumVolumePercent = try r.decimal("max_volume_percent")
        settings.rules.quickSellMinutes = try r.int("quick_sell_minutes")
        settings.rules.maximumOrdersPerDay = try r.int("max_trades_per_day")
        settings.rules.dayTrading = try r.bool("day_trading") ?? true
        settings.rules.options = try r.bool("options")
        settings.rules.crypto = try r.bool("crypto")
        settings.rules.forex = try r.bool("forex")
        settings.resetsAllowed = try r.int("resets_allowed")
        if let visible = try r.choice("portfolios_visible", PortfolioVisibility.self) {
            settings.portfoliosVisible = visible
        }
        if let ranking = try r.choice("ranking", GameRanking.self) { settings.ranking = ranking }
        return (name, market, settings)
    }

    static let editableFields: Set<String> = [
        "name", "description", "visibility", "starts_at", "ends_at", "registration_ends_at", "late_entry",
        "max_players", "resets_allowed", "portfolios_visible", "ranking",
    ]

    static func parseChange(_ body: JSONValue) throws -> GameChange {
        if case .object(let fields) = body,
            let fixed = fields.keys.sorted().first(where: { !editableFields.contains($0) }),
            topFields.contains(fixed) || ruleFields.contains(fixed)
        {
            throw APIError.unprocessable(
                "\(fixed) cannot change after creation: a game's market, cash and trading rules are fixed so the game stays fair"
            )
        }
        let o = try BodyFields(body, allowed: editableFields)
        var change = GameChange()
        change.name = try o.string("name")
        change.description = try o.string("description")
        change.visibility = try o.choice("visibility", GameVisibility.self)
        change.startsAt = try o.time("starts_at")
        change.endsAt = try o.time("ends_at")
        change.registrationEndsAt = try o.time("registration_ends_at")
        change.lateEntry = try o.bool("late_entry")
        if o.contains("max_players") { change.maxPlayers = .some(try o.int("max_players")) }
        if o.contains("resets_allowed") { change.resetsAllowed = .some(try o.int("resets_allowed")) }
        change.portfoliosVisible = try o.choice("portfolios_visible", PortfolioVisibility.self)
        change.ranking = try o.choice("ranking", GameRanking.self)
        return change
    }
}
