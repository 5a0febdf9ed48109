import ArgumentParser
import Foundation
import PapertradeKit

/// `papertrade game create|list|join|leaderboard`: games on a running server, on PapertradeKit, as a user (games
/// belong to users, not to an API key's account): each command logs in with the username and password first.
struct Game: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, find, join and follow games on a running server.",
        subcommands: [Create.self, List.self, Join.self, Leaderboard.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a game; prints its id, join code and invite link.",
            discussion: """
                Rules are --rule name=value, any of: commission_per_trade, commission_percent, margin (true/false), \
                margin_multiplier, short_selling, min_price_buy, min_price_short, max_position_percent, \
                max_volume_percent, quick_sell_minutes, max_trades_per_day, day_trading, resets_allowed, \
                portfolios_visible (never, after_end, always), ranking (return, sharpe, excess_return), options \
                (true/false; default true). Omitted: no limit.
                Example: papertrade game create "Econ 101" --cash 50000 --private --ends 2027-01-29T21:00:00Z \
                --rule max_position_percent=20 --rule quick_sell_minutes=15
                """)

        @OptionGroup var options: ClientOptions
        @Argument(help: "The game's name.") var name: String
        @Option(help: "Starting cash of every player.") var cash = "100000"
        @Option(help: "us or cn.") var market = "us"
        @Flag(help: "Only players with the code or link may join.") var `private` = false
        @Option(help: "Start (RFC 3339); default now.") var starts: String?
        @Option(help: "End (RFC 3339); default never.") var ends: String?
        @Flag(name: .customLong("no-late-entry"), help: "Close joining at the start.") var noLateEntry = false
        @Option(name: .customLong("max-players")) var maxPlayers: Int?
        @Option(help: "A rule, name=value (repeatable).") var rule: [String] = []

        func settings() throws -> GameSettings {
            func time(_ text: String?, _ flag: String) throws -> Date? {
                guard let text else { return nil }
                guard let date = ServerTime.parse(text) else {
                    throw ValidationError("\(flag) must be an RFC 3339 time (2027-01-29T21:00:00Z)")
                }
                return date
            }
            guard let startingCash = ExactDecimal.parse(cash) else { throw ValidationError("--cash must be a number") }
            return GameSettings(
                name: name, market: Market(rawValue: market), startingCash: startingCash, isPrivate: `private`,
                startsAt: try time(starts, "--starts"), endsAt: try time(ends, "--ends"), lateEntry: !noLateEntry,
                maxPlayers: maxPlayers, rules: try Game.rules(rule))
        }

        func validate() throws { _ = try settings() }

        func run() async throws {
            try await clientCommand {
                let game = try await options.client(needsUser: true).createGame(try settings())
                if options.json { return try options.printJSON(game) }
                print("Created \(game.name): id \(game.id)")
                print("Join code: \(game.joinCode ?? "?")   Invite: \(game.inviteURL ?? "?")")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Public games, or with --mine those you own or play.")

        @OptionGroup var options: ClientOptions
        @Flag(help: "Games you own or play in.") var mine = false

        func run() async throws {
            try await clientCommand {
                let games = try await options.client(needsUser: true).games(mine: mine)
                if options.json { return try options.printJSON(games) }
                if games.isEmpty { print(mine ? "You play in no game." : "No public games.") }
                for g in games {
                    let role = g.isOwner ? "owner" : g.myAccountID != nil ? "playing" : ""
                    print(
                        [
                            g.id, g.name, g.status, "\(g.players) players",
                            "\(Terminal.amount(g.startingCash)) \(g.currency)", role,
                        ].filter { !$0.isEmpty }.joined(separator: "  "))
                }
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a game by id (with --code for a private game) or by its join code alone.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The game's id, or its join code.") var game: String
        @Option(help: "The join code of a private game.") var code: String?
        @Flag(name: .customLong("api-key"), help: "Also make an Alpaca API key for the game account (for a bot).")
        var apiKey = false

        func run() async throws {
            try await clientCommand {
                let client = try await options.client(needsUser: true)
                let joined =
                    game.count == 36 && game.contains("-")
                    ? try await client.joinGame(game, code: code, apiKey: apiKey)
                    : try await client.joinGame(code: code ?? game, apiKey: apiKey)
                if options.json { return try options.printJSON(joined) }
                print("Joined: game account \(joined.accountID)")
                if let key = joined.keyID, let secret = joined.secret {
                    print("APCA_API_KEY_ID=\(key)\nAPCA_API_SECRET_KEY=\(secret)   (shown once)")
                }
            }
        }
    }

    struct Leaderboard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A game's standings.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The game's id.") var game: String

        func run() async throws {
            try await clientCommand {
                let board = try await options.client(needsUser: true).leaderboard(game)
                if options.json { return try options.printJSON(board) }
                print("\(board.final ? "Final standings" : "Standings") as of \(Terminal.time(board.asOf)) UTC")
                print(
                    Terminal.table(
                        ["#", "PLAYER", "RETURN", "EQUITY", "TODAY", "TRADES"],
                        board.entries.map { e in
                            [
                                String(e.rank), e.player,
                                Terminal.paint(Terminal.percent(fraction: e.return), Terminal.tone(e.return)),
                                Terminal.amount(e.equity), Terminal.signed(e.dayChange), String(e.trades),
                            ]
                        }, right: [0, 2, 3, 4, 5]))
            }
        }
    }

    /// `--rule name=value` flags as the game's rules.
    static func rules(_ items: [String]) throws -> PapertradeKit.Game.Rules {
        var rules = PapertradeKit.Game.Rules()
        for item in items {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--rule takes name=value: \(item)") }
            let (name, text) = (parts[0], parts[1])
            func decimal() throws -> Decimal {
                guard let v = ExactDecimal.parse(text) else { throw ValidationError("--rule \(name) takes a number") }
                return v
            }
            func whole() throws -> Int {
                guard let v = Int(text) else { throw ValidationError("--rule \(name) takes a whole number") }
                return v
            }
            func flag() throws -> Bool {
                guard text == "true" || text == "false" else {
                    throw ValidationError("--rule \(name) is true or false")
                }
                return text == "true"
            }
            switch name {
            case "commission_per_trade": rules.commissionPerTrade = try decimal()
            case "commission_percent": rules.commissionPercent = try decimal()
            case "margin": rules.margin = try flag()
            case "margin_multiplier": rules.marginMultiplier = try whole()
            case "short_selling": rules.shortSelling = try flag()
            case "min_price_buy": rules.minPriceBuy = try decimal()
            case "min_price_short": rules.minPriceShort = try decimal()
            case "max_position_percent": rules.maxPositionPercent = try decimal()
            case "max_volume_percent": rules.maxVolumePercent = try decimal()
            case "quick_sell_minutes": rules.quickSellMinutes = try whole()
            case "max_trades_per_day": rules.maxTradesPerDay = try whole()
            case "day_trading": rules.dayTrading = try flag()
            case "resets_allowed": rules.resetsAllowed = try whole()
            case "portfolios_visible": rules.portfoliosVisible = text
            case "ranking": rules.ranking = text
            case "options": rules.options = try flag()
            default: throw ValidationError("unknown rule \(name); see papertrade game create --help")
            }
        }
        return rules
    }
}
