import ArgumentParser
import Foundation
import JSON

/// `papertrade game create|list|join|leaderboard`: games on a running server, as a user (games belong to users,
/// not to an API key's account): each command logs in with the username and password first.
struct Game: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, find, join and follow games on a running server.",
        subcommands: [Create.self, List.self, Join.self, Leaderboard.self])

    struct Connection: ParsableArguments {
        @Option(help: "Server URL (env PAPERTRADE_URL; default http://127.0.0.1:8080).") var server: String?
        @Option(help: "Username (env PAPERTRADE_USERNAME).") var username: String?
        @Option(help: "Password (env PAPERTRADE_PASSWORD).") var password: String?

        var base: String {
            server ?? ProcessInfo.processInfo.environment["PAPERTRADE_URL"] ?? "http://127.0.0.1:8080"
        }

        /// Logs in and returns a session for the calls that follow.
        func session() async throws -> Session {
            let env = ProcessInfo.processInfo.environment
            guard let user = username ?? env["PAPERTRADE_USERNAME"], let pass = password ?? env["PAPERTRADE_PASSWORD"]
            else {
                throw ValidationError("give --username and --password (or PAPERTRADE_USERNAME and PAPERTRADE_PASSWORD)")
            }
            var session = Session(base: base, cookie: nil)
            let (_, headers) = try await session.send(
                "POST", "/api/v1/auth/login", body: .object(["username": .string(user), "password": .string(pass)]))
            guard let cookie = headers["Set-Cookie"]?.split(separator: ";").first.map(String.init) else {
                throw CLIError("the server did not start a session")
            }
            session.cookie = cookie
            return session
        }
    }

    struct Session {
        let base: String
        var cookie: String?

        /// Sends a request; the JSON body and headers of a 2xx answer, or fails with the server's message.
        func send(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> (
            JSONValue, [String: String]
        ) {
            let answer = try await ServerClient.send(
                base: base, method, path, headers: cookie.map { ["Cookie": $0] } ?? [:], body: body)
            return (answer.json, answer.headers)
        }

        func json(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
            try await send(method, path, body: body).0
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a game; prints its id, join code and invite link.",
            discussion: """
                Rules are --rule name=value, any of: commission_per_trade, commission_percent, margin (true/false), \
                margin_multiplier, short_selling, min_price_buy, min_price_short, max_position_percent, \
                max_volume_percent, quick_sell_minutes, max_trades_per_day, day_trading, resets_allowed, \
                portfolios_visible (never, after_end, always), ranking (return, sharpe, excess_return). Omitted: no limit.
                Example: papertrade game create "Econ 101" --cash 50000 --private --ends 2027-01-29T21:00:00Z \
                --rule max_position_percent=20 --rule quick_sell_minutes=15
                """)

        @OptionGroup var connection: Connection
        @Argument(help: "The game's name.") var name: String
        @Option(help: "Starting cash of every player.") var cash = "100000"
        @Option(help: "us or cn.") var market = "us"
        @Flag(help: "Only players with the code or link may join.") var `private` = false
        @Option(help: "Start (RFC 3339); default now.") var starts: String?
        @Option(help: "End (RFC 3339); default never.") var ends: String?
        @Flag(name: .customLong("no-late-entry"), help: "Close joining at the start.") var noLateEntry = false
        @Option(name: .customLong("max-players")) var maxPlayers: Int?
        @Option(help: "A rule, name=value (repeatable).") var rule: [String] = []

        func run() async throws {
            var rules: [String: JSONValue] = [:]
            for item in rule {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw ValidationError("--rule takes name=value: \(item)")
                }
                rules[parts[0]] = Game.value(parts[1])
            }
            var body: [String: JSONValue] = [
                "name": .string(name), "market": .string(market), "starting_cash": .string(cash),
                "visibility": .string(`private` ? "private" : "public"), "late_entry": .bool(!noLateEntry),
                "rules": .object(rules),
            ]
            if let starts { body["starts_at"] = .string(starts) }
            if let ends { body["ends_at"] = .string(ends) }
            if let maxPlayers { body["max_players"] = .int(maxPlayers) }
            let game = try await connection.session().json("POST", "/api/v1/games", body: .object(body))
            print("Created \(game["name"]?.string ?? name): id \(game["id"]?.string ?? "?")")
            print("Join code: \(game["join_code"]?.string ?? "?")   Invite: \(game["invite_url"]?.string ?? "?")")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Public games, or with --mine those you own or play.")

        @OptionGroup var connection: Connection
        @Flag(help: "Games you own or play in.") var mine = false

        func run() async throws {
            let games = try await connection.session().json("GET", "/api/v1/games?scope=\(mine ? "mine" : "public")")
            let list = games.array ?? []
            if list.isEmpty { print(mine ? "You play in no game." : "No public games.") }
            for g in list {
                let role = g["is_owner"] == .bool(true) ? "owner" : g["my_account_id"]?.string != nil ? "playing" : ""
                print(
                    [
                        g["id"]?.string ?? "", g["name"]?.string ?? "", g["status"]?.string ?? "",
                        "\(g["players"]?.int ?? 0) players",
                        "\(g["starting_cash"]?.string ?? "") \(g["currency"]?.string ?? "")",
                        role,
                    ].filter { !$0.isEmpty }.joined(separator: "  "))
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a game by id (with --code for a private game) or by its join code alone.")

        @OptionGroup var connection: Connection
        @Argument(help: "The game's id, or its join code.") var game: String
        @Option(help: "The join code of a private game.") var code: String?
        @Flag(name: .customLong("api-key"), help: "Also make an Alpaca API key for the game account (for a bot).")
        var apiKey = false

        func run() async throws {
            var body: [String: JSONValue] = ["api_key": .bool(apiKey)]
            let path: String
            if game.count == 36, game.contains("-") {
                path = "/api/v1/games/\(game)/join"
                if let code { body["code"] = .string(code) }
            } else {
                path = "/api/v1/games/join"
                body["code"] = .string(code ?? game)
            }
            let joined = try await connection.session().json("POST", path, body: .object(body))
            print("Joined: game account \(joined["account_id"]?.string ?? "?")")
            if let key = joined["key_id"]?.string, let secret = joined["secret"]?.string {
                print("APCA_API_KEY_ID=\(key)\nAPCA_API_SECRET_KEY=\(secret)   (shown once)")
            }
        }
    }

    struct Leaderboard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A game's standings.")

        @OptionGroup var connection: Connection
        @Argument(help: "The game's id.") var game: String
        @Flag(help: "Print the JSON.") var json = false

        func run() async throws {
            let board = try await connection.session().json("GET", "/api/v1/games/\(game)/leaderboard")
            if json {
                print(String(decoding: board.serializedBytes, as: UTF8.self))
                return
            }
            print(
                "\(board["final"] == .bool(true) ? "Final standings" : "Standings") as of \(board["as_of"]?.string ?? "")"
            )
            let header = ["#", "player", "return", "equity", "today", "trades"]
            var rows = [header]
            for e in board["entries"]?.array ?? [] {
                rows.append([
                    String(e["rank"]?.int ?? 0), e["player"]?.string ?? "", Game.percent(e["return"]?.string),
                    e["equity"]?.string ?? "", e["day_change"]?.string ?? "", String(e["trades"]?.int ?? 0),
                ])
            }
            let widths = header.indices.map { i in rows.map { $0[i].count }.max() ?? 0 }
            for row in rows {
                print(
                    row.enumerated().map { i, cell in
                        let pad = String(repeating: " ", count: widths[i] - cell.count)
                        return i == 1 ? cell + pad : pad + cell
                    }.joined(separator: "  "))
            }
        }
    }

    /// A rule's value as JSON: true/false, a whole number, else text (decimals travel as strings).
    static func value(_ text: String) -> JSONValue {
        if text == "true" || text == "false" { return .bool(text == "true") }
        if let n = Int(text) { return .int(n) }
        return .string(text)
    }

    /// "0.0525" → "+5.25%".
    static func percent(_ fraction: String?) -> String {
        guard let fraction, let value = Decimal(string: fraction) else { return "" }
        var scaled = value * 100
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 2, .plain)
        return (rounded > 0 ? "+" : "") + "\(rounded)%"
    }
}
