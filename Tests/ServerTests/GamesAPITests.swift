import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing
import TradingCore

@Suite("Games API")
struct GamesAPITests {
    /// Signs a user up and returns their session cookie.
    func session(_ client: some TestClientProtocol, _ name: String) async throws -> HTTPFields {
        try await client.execute(
            uri: "/api/v1/auth/signup", method: .post,
            body: body(#"{"username":"\#(name)","password":"hunter2hunter2"}"#)
        ) { r in
            #expect(r.status == .created || r.status == .ok)
            return [.cookie: r.headers[.setCookie]?.split(separator: ";").first.map(String.init) ?? ""]
        }
    }

    /// Creates a game from `json` and returns (id, join code).
    func create(_ client: some TestClientProtocol, _ f: ServerFixture, _ auth: HTTPFields, _ json: String)
        async throws -> (id: String, code: String)
    {
        try await client.execute(uri: "/api/v1/games", method: .post, headers: auth, body: body(json)) { r in
            #expect(r.status == .created, "\(String(buffer: r.body))")
            return (f.json(r)["id"]?.string ?? "", f.json(r)["join_code"]?.string ?? "")
        }
    }

    func join(
        _ client: some TestClientProtocol, _ f: ServerFixture, _ auth: HTTPFields, game: String, body text: String = ""
    ) async throws -> JSONValue {
        try await client.execute(
            uri: "/api/v1/games/\(game)/join", method: .post, headers: auth, body: body(text)
        ) { r in
            #expect(r.status == .created, "\(String(buffer: r.body))")
            return f.json(r)
        }
    }

    func order(
        _ client: some TestClientProtocol, _ f: ServerFixture, _ auth: HTTPFields, account: String, _ json: String
    ) async throws -> (HTTPResponse.Status, JSONValue) {
        try await client.execute(
            uri: "/api/v1/accounts/\(account)/orders", method: .post, headers: auth, body: body(json)
        ) { r in (r.status, f.json(r)) }
    }

    static let econ101 = #"""
        {"name": "Econ 101", "market": "us", "starting_cash": "50000", "visibility": "private",
         "late_entry": true,
         "rules": {"commission_per_trade": "4.95", "commission_percent": "0", "margin": false, "short_selling": false,
                   "min_price_buy": "1", "min_price_short": "5", "max_position_percent": "20",
                   "max_volume_percent": "10", "quick_sell_minutes": 15, "max_trades_per_day": 10,
                   "day_trading": true, "resets_allowed": 1, "portfolios_visible": "after_end", "ranking": "return"}}
        """#

    @Test("a private game is found and joined only with its code; a player joins once and gets a game account")
    func privateGame() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let teacher = try await session(client, "teacher")
                let student = try await session(client, "student")
                let game = try await client.execute(
                    uri: "/api/v1/games", method: .post, headers: teacher, body: body(Self.econ101)
                ) { r in
                    #expect(r.status == .created)
                    let o = f.json(r)
                    #expect(o["name"] == .string("Econ 101") && o["visibility"] == .string("private"))
                    #expect(o["status"] == .string("running") && o["is_owner"] == .bool(true))
                    #expect(o["join_code"]?.string?.count == 8)
                    #expect(o["invite_url"]?.string?.hasSuffix("/#/join/\(o["join_code"]?.string ?? "")") == true)
                    #expect(o["rules"]?["max_position_percent"] == .string("20"))
                    #expect(o["rules"]?["quick_sell_minutes"] == .int(15))
                    return (o["id"]?.string ?? "", o["join_code"]?.string ?? "")
                }
                // Unknown to others without the code; not in the public list.
                try await client.execute(uri: "/api/v1/games/\(game.0)", method: .get, headers: student) { r in
                    #expect(r.status == .notFound)
                }
                try await client.execute(uri: "/api/v1/games?scope=public", method: .get, headers: student) { r in
                    #expect(f.json(r).array?.isEmpty == true)
                }
                try await client.execute(
                    uri: "/api/v1/games/\(game.0)/join", method: .post, headers: student,
                    body: body(#"{"code":"WRONG"}"#)
                ) { r in #expect(r.status == .notFound) }
                // With the code (any case), by the code alone, the student joins.
                try await client.execute(
                    uri: "/api/v1/games/join", method: .post, headers: student,
                    body: body(#"{"code":"\#(game.1.lowercased())"}"#)
                ) { r in
                    #expect(r.status == .created)
                    #expect(f.json(r)["account_id"]?.string != nil && f.json(r)["player"] == .string("student"))
                }
                try await client.execute(
                    uri: "/api/v1/games/\(game.0)/join", method: .post, headers: student,
                    body: body(#"{"code":"\#(game.1)"}"#)
                ) { r in
                    #expect(r.status == .conflict)
                    #expect(f.json(r)["message"]?.string?.hasPrefix("you already play in this game") == true)
                }
                try await client.execute(uri: "/api/v1/games?scope=mine", method: .get, headers: student) { r in
                    let games = f.json(r).array ?? []
                    #expect(games.count == 1 && games.first?["players"] == .int(1))
                    #expect(games.first?["my_account_id"]?.string != nil && games.first?["is_owner"] == .bool(false))
                }
                // The game account is one of the student's accounts, with the game's cash and no deposits.
                try await client.execute(uri: "/api/v1/accounts", method: .get, headers: student) { r in
                    let game = (f.json(r).array ?? []).first { $0["name"] == .string("Game: Econ 101") }
                    #expect(game?["starting_cash"] == .string("50000") && game?["type"] == .string("cash"))
                }
            }
        }
    }

    @Test("every rule answers 403 with its message, on the native API and to an Alpaca client of the game account")
    func rules() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let teacher = try await session(client, "teacher")
                let student = try await session(client, "student")
                let game = try await create(client, f, teacher, Self.econ101)
                let joined = try await join(
                    client, f, student, game: game.id, body: #"{"code":"\#(game.code)","api_key":true}"#)
                let account = try #require(joined["account_id"]?.string)
                let alpaca: HTTPFields = [
                    HTTPField.Name("APCA-API-KEY-ID")!: joined["key_id"]?.string ?? "",
                    HTTPField.Name("APCA-API-SECRET-KEY")!: joined["secret"]?.string ?? "",
                ]
                let symbol = "AAPL"
                let price = try #require(await f.services.brokerage.feed.quote(symbol).asks.best?.price)
                // 20% of $50,000 is $10,000: a little under it fills (with the $4.95 commission), more is refused.
                let qty = (FixedDecimal(9_000).divided(by: price, places: 0, rule: .down))!
                let (status, filled) = try await order(
                    client, f, student, account: account,
                    #"{"symbol":"AAPL","qty":"\#(qty)","side":"buy","type":"market","time_in_force":"day"}"#)
                #expect(status == .ok || status == .created, "\(filled)")
                #expect(filled["status"] == .string("filled"))
                let more = #"{"symbol":"AAPL","qty":"\#(qty)","side":"buy","type":"market","time_in_force":"day"}"#
                let (refusedStatus, refused) = try await order(client, f, student, account: account, more)
                #expect(refusedStatus == .forbidden)
                let message = try #require(refused["message"]?.string)
                #expect(
                    message.hasPrefix(
                        "This game allows at most 20% of your portfolio in one stock; this order would make AAPL "))
                // The same order from an Alpaca client: Alpaca's error shape, the same words.
                try await client.execute(uri: "/v2/orders", method: .post, headers: alpaca, body: body(more)) { r in
                    #expect(r.status == .forbidden)
                    #expect(f.json(r)["code"] == .int(40310000))
                    #expect(f.json(r)["message"] == .string(message))
                }
                // Quick sell: bought just now.
                try await client.execute(
                    uri: "/v2/orders", method: .post, headers: alpaca,
                    body: body(#"{"symbol":"AAPL","qty":"1","side":"sell","type":"market","time_in_force":"day"}"#)
                ) { r in
                    #expect(r.status == .forbidden)
                    #expect(
                        f.json(r)["message"]?.string?.hasPrefix(
                            "This game allows no sale within 15 minutes of a purchase: AAPL was bought 0 minutes ago")
                            == true)
                }
                // No short selling, and commissions of $4.95 per order.
                let (_, short) = try await order(
                    client, f, student, account: account,
                    #"{"symbol":"MSFT","qty":"1","side":"sell","type":"market","time_in_force":"day"}"#)
                #expect(short["message"] == .string("This game does not allow short selling: you hold no MSFT to sell"))
                try await client.execute(uri: "/v2/account", method: .get, headers: alpaca) { r in
                    let cash = f.json(r)["cash"]?.decimal
                    #expect(cash == FixedDecimal(50_000) - qty.multiplied(by: price) - FixedDecimal("4.95")!)
                }
                // No deposits into a game account.
                try await client.execute(
                    uri: "/api/v1/accounts/\(account)/deposit", method: .post, headers: student,
                    body: body(#"{"amount":"1000"}"#)
                ) { r in
                    #expect(r.status == .forbidden)
                    #expect(f.json(r)["message"]?.string?.contains("deposits and withdrawals are not allowed") == true)
                }
                // One reset is allowed, the second is refused.
                try await client.execute(uri: "/api/v1/accounts/\(account)/reset", method: .post, headers: student) {
                    r in #expect(r.status == .ok)
                }
                try await client.execute(uri: "/api/v1/accounts/\(account)/reset", method: .post, headers: student) {
                    r in
                    #expect(r.status == .forbidden)
                    #expect(f.json(r)["message"] == .string("this game allows 1 reset; you have used 1"))
                }
            }
        }
    }

    @Test("the other rules over the API: lowest prices, day volume share, no day trading, margin and short selling")
    func otherRules() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let owner = try await session(client, "owner")
                let player = try await session(client, "player")
                let strict = try await create(
                    client, f, owner,
                    #"{"name":"Strict","starting_cash":"10000","rules":{"min_price_buy":"100000","max_volume_percent":"0.0001","day_trading":false}}"#
                )
                let account = try #require(try await join(client, f, player, game: strict.id)["account_id"]?.string)
                let buy = { (qty: Int) in
                    #"{"symbol":"AAPL","qty":"\#(qty)","side":"buy","type":"market","time_in_force":"day"}"#
                }
                let (_, cheap) = try await order(client, f, player, account: account, buy(1))
                #expect(
                    cheap["message"]?.string?.hasPrefix(
                        "This game allows buying only stocks priced at least $100000.00; AAPL is at $") == true,
                    "\(cheap)")

                let margin = try await create(
                    client, f, owner,
                    #"{"name":"Margin","starting_cash":"10000","rules":{"margin":true,"margin_multiplier":2,"short_selling":true,"min_price_short":"100000","max_volume_percent":"0.001","day_trading":false}}"#
                )
                let trader = try #require(try await join(client, f, player, game: margin.id)["account_id"]?.string)
                try await client.execute(uri: "/api/v1/accounts/\(trader)", method: .get, headers: player) { r in
                    #expect(f.json(r)["type"] == .string("margin") && f.json(r)["buying_power"] == .string("20000"))
                }
                let (_, short) = try await order(
                    client, f, player, account: trader,
                    #"{"symbol":"AAPL","qty":"1","side":"sell","type":"market","time_in_force":"day"}"#)
                #expect(
                    short["message"]?.string?.hasPrefix(
                        "This game allows short selling only stocks priced at least $100000.00; AAPL is at $") == true)
                // 0.001% of the shares traded so far today (millions of AAPL's) is a few dozen: a larger order is
                // refused, saying how many.
                let (_, large) = try await order(client, f, player, account: trader, buy(10_000))
                let message = try #require(large["message"]?.string)
                #expect(
                    message.hasPrefix("This game allows orders of at most 0.001% of the day's volume: "), "\(message)")
                let most = try #require(Int(message.split(separator: " ").last ?? ""))
                #expect(most >= 1)
                let (status, bought) = try await order(client, f, player, account: trader, buy(most))
                #expect((status == .ok || status == .created) && bought["status"] == .string("filled"), "\(bought)")
                // Bought today: not sellable today.
                let (_, sale) = try await order(
                    client, f, player, account: trader,
                    #"{"symbol":"AAPL","qty":"1","side":"sell","type":"market","time_in_force":"day"}"#)
                #expect(
                    sale["message"]?.string?.hasPrefix("This game does not allow day trading: ") == true, "\(sale)")
            }
        }
    }

    @Test(
        "a game may forbid options: its players' option orders are refused in the game's words; by default they trade")
    func optionsRule() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let owner = try await session(client, "owner")
                let player = try await session(client, "player")
                // The call nearest the money on AAPL's first listed expiration a week or more away.
                let contract = try await client.execute(
                    uri: "/api/v1/options/AAPL/chain", method: .get, headers: player
                ) { r -> String in
                    let chain = f.json(r)
                    let atm = chain["at_the_money"]?.string
                    let row = chain["rows"]?.array?.first { $0["strike"]?.string == atm }
                    return row?["call"]?["symbol"]?.string ?? ""
                }
                #expect(!contract.isEmpty)
                let buy = #"{"symbol":"\#(contract)","qty":"1","side":"buy","type":"market","time_in_force":"day"}"#
                for (rules, allowed) in [(#"{"options":false}"#, false), ("{}", true)] {
                    let game = try await create(
                        client, f, owner, #"{"name":"Options \#(allowed)","starting_cash":"50000","rules":\#(rules)}"#)
                    try await client.execute(uri: "/api/v1/games/\(game.id)", method: .get, headers: owner) { r in
                        #expect(f.json(r)["rules"]?["options"] == .bool(allowed))
                    }
                    let account = try #require(try await join(client, f, player, game: game.id)["account_id"]?.string)
                    let (status, placed) = try await order(client, f, player, account: account, buy)
                    if allowed {
                        #expect(status == .created, "\(placed)")
                    } else {
                        #expect(status == .forbidden || status == .unprocessableContent, "\(status)")
                        #expect(
                            placed["message"]
                                == .string(
                                    "This game does not allow options: it is played with stocks and ETFs (\(contract))"),
                            "\(placed)")
                    }
                }
            }
        }
    }

    @Test("the leaderboard ranks by return, ties share a rank; ending freezes it and stops orders; CSV export")
    func leaderboardAndEnd() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let owner = try await session(client, "owner")
                let game = try await create(
                    client, f, owner,
                    #"{"name":"Club","starting_cash":"10000","visibility":"public","rules":{"portfolios_visible":"after_end"}}"#
                )
                var accounts: [String: String] = [:]
                var sessions: [String: HTTPFields] = [:]
                for name in ["zed", "amy", "bea"] {
                    sessions[name] = try await session(client, name)
                    accounts[name] = try await join(client, f, sessions[name]!, game: game.id)["account_id"]?.string
                }
                // amy buys; zed and bea hold cash (tied).
                let (status, _) = try await order(
                    client, f, sessions["amy"]!, account: accounts["amy"]!,
                    #"{"symbol":"AAPL","qty":"10","side":"buy","type":"market","time_in_force":"day"}"#)
                #expect(status == .ok || status == .created)
                let board = try await client.execute(
                    uri: "/api/v1/games/\(game.id)/leaderboard", method: .get, headers: sessions["zed"]!
                ) { r in
                    #expect(r.status == .ok)
                    return f.json(r)
                }
                let entries = board["entries"]?.array ?? []
                #expect(entries.count == 3 && board["final"] == .bool(false))
                let cashPlayers = entries.filter { $0["player"] != .string("amy") }
                #expect(cashPlayers.map { $0["player"] } == [.string("bea"), .string("zed")])
                #expect(cashPlayers.allSatisfy { $0["return"] == .string("0") && $0["equity"] == .string("10000") })
                #expect(cashPlayers[0]["rank"] == cashPlayers[1]["rank"])
                #expect(entries.first { $0["player"] == .string("amy") }?["trades"] == .int(1))
                // Portfolios are private until the end, but the player and the owner see them.
                try await client.execute(
                    uri: "/api/v1/games/\(game.id)/players/\(accounts["amy"]!)/portfolio", method: .get,
                    headers: sessions["zed"]!
                ) { r in #expect(r.status == .forbidden) }
                try await client.execute(
                    uri: "/api/v1/games/\(game.id)/players/\(accounts["amy"]!)/portfolio", method: .get, headers: owner
                ) { r in
                    #expect(r.status == .ok)
                    #expect(f.json(r)["positions"]?.array?.first?["symbol"] == .string("AAPL"))
                }
                // Only the owner ends the game or removes players.
                try await client.execute(uri: "/api/v1/games/\(game.id)/end", method: .post, headers: sessions["zed"]!)
                {
                    r in #expect(r.status == .forbidden)
                }
                try await client.execute(
                    uri: "/api/v1/games/\(game.id)/players/\(accounts["zed"]!)/remove", method: .post, headers: owner
                ) { r in #expect(r.status == .ok && f.json(r)["players"] == .int(2)) }
                let (removedStatus, removed) = try await order(
                    client, f, sessions["zed"]!, account: accounts["zed"]!,
                    #"{"symbol":"AAPL","qty":"1","side":"buy","type":"market","time_in_force":"day"}"#)
                #expect(removedStatus == .forbidden)
                #expect(removed["message"]?.string?.hasPrefix("The game's owner removed you") == true)

                try await client.execute(uri: "/api/v1/games/\(game.id)/end", method: .post, headers: owner) { r in
                    #expect(r.status == .ok && f.json(r)["status"] == .string("ended"))
                }
                let final = try await client.execute(
                    uri: "/api/v1/games/\(game.id)/leaderboard", method: .get, headers: owner
                ) { r in f.json(r) }
                #expect(final["final"] == .bool(true) && final["entries"]?.array?.count == 2)
                // Prices move on; the final standings do not, and the game takes no more orders.
                f.services.brokerage.clock.set(ServerFixture.morning.adding(seconds: 3 * 3600))
                try await client.execute(
                    uri: "/api/v1/games/\(game.id)/leaderboard", method: .get, headers: owner
                ) { r in #expect(f.json(r)["entries"] == final["entries"]) }
                let (after, ended) = try await order(
                    client, f, sessions["amy"]!, account: accounts["amy"]!,
                    #"{"symbol":"AAPL","qty":"10","side":"sell","type":"market","time_in_force":"day"}"#)
                #expect(after == .forbidden)
                #expect(ended["message"]?.string?.hasPrefix("This game ended at ") == true)
                // Each player is told where they finished.
                try await client.execute(uri: "/api/v1/notifications", method: .get, headers: sessions["amy"]!) { r in
                    let items = f.json(r)["notifications"]?.array ?? []
                    let ended = items.first { $0["kind"] == .string("game_ended") }
                    #expect(ended?["title"] == .string("Club has ended"))
                    #expect(
                        ended?["body"]?.string?.hasPrefix("You finished #2 of 2 with a return of -") == true,
                        "\(ended?["body"] ?? .null)")
                }
                // Ended: portfolios are visible to every player now.
                try await client.execute(
                    uri: "/api/v1/games/\(game.id)/players/\(accounts["amy"]!)/portfolio", method: .get,
                    headers: sessions["bea"]!
                ) { r in #expect(r.status == .ok) }
                try await client.execute(uri: "/api/v1/games/\(game.id)/export", method: .get, headers: owner) { r in
                    #expect(r.status == .ok)
                    #expect(r.headers[.contentType]?.hasPrefix("text/csv") == true)
                    let lines = String(buffer: r.body).split(separator: "\r\n")
                    #expect(
                        lines.first == "rank,player,account_id,return,equity,day_change,trades,sharpe,excess_return")
                    #expect(lines.count == 3)
                }
                try await client.execute(
                    uri: "/api/v1/games/\(game.id)/export", method: .get, headers: sessions["amy"]!
                ) {
                    r in #expect(r.status == .forbidden)
                }
            }
        }
    }

    @Test("at its end time the game service's pass ends a game, valuing holdings at the day's close, not after hours")
    func endsOnTimeAtTheClose() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let owner = try await session(client, "owner")
                // Ends at 17:00 New York, after the 16:00 close.
                let end = Timestamp(CivilDate(2026, 11, 20), hour: 17, in: .newYork)
                let game = try await create(
                    client, f, owner, #"{"name":"Timed","starting_cash":"10000","ends_at":"\#(end)"}"#)
                let player = try await session(client, "player")
                let account = try #require(try await join(client, f, player, game: game.id)["account_id"]?.string)
                let (_, bought) = try await order(
                    client, f, player, account: account,
                    #"{"symbol":"AAPL","qty":"10","side":"buy","type":"market","time_in_force":"day"}"#)
                let cost = try #require(bought["filled_avg_price"]?.decimal).times(10)
                await f.services.brokerage.games.endDue()
                try await client.execute(uri: "/api/v1/games/\(game.id)", method: .get, headers: owner) { r in
                    #expect(f.json(r)["status"] == .string("running"))
                }
                f.services.brokerage.clock.set(Timestamp(CivilDate(2026, 11, 20), hour: 18, in: .newYork))
                await f.services.brokerage.games.endDue()
                let board = try await client.execute(
                    uri: "/api/v1/games/\(game.id)/leaderboard", method: .get, headers: owner
                ) { r in f.json(r) }
                #expect(board["final"] == .bool(true))
                let zone = ExchangeTimeZone.newYork
                let day = try await f.services.brokerage.feed.bars(
                    "AAPL", timeframe: .day, from: Timestamp(CivilDate(2026, 11, 20), in: zone),
                    to: Timestamp(CivilDate(2026, 11, 21), in: zone))
                let close = try #require(day.last?.close)
                let equity = FixedDecimal(10_000) - cost + close.times(10)
                #expect(board["entries"]?[0]?["equity"]?.decimal == equity)
                #expect(board["as_of"]?.string?.hasPrefix("2026-11-20T23:00:00") == true)
            }
        }
    }

    @Test("a game, its players, their rules and its final standings survive a restart")
    func durable() async throws {
        let f = try await ServerFixture.make()
        let game: (id: String, code: String)
        let account: String
        let teacher: HTTPFields
        let student: HTTPFields
        do {
            (game, account, teacher, student) = try await f.app.test(.router) { client in
                let teacher = try await session(client, "teacher")
                let student = try await session(client, "student")
                let game = try await create(client, f, teacher, Self.econ101)
                let joined = try await join(client, f, student, game: game.id, body: #"{"code":"\#(game.code)"}"#)
                return (game, joined["account_id"]?.string ?? "", teacher, student)
            }
        } catch {
            await f.services.shutdown()
            throw error
        }
        await f.services.shutdown()

        let again = try await ServerFixture.make(directory: f.directory)
        do {
            try await again.app.test(.router) { client in
                try await client.execute(uri: "/api/v1/games/\(game.id)", method: .get, headers: student) { r in
                    #expect(r.status == .ok)
                    #expect(again.json(r)["my_account_id"] == .string(account) && again.json(r)["players"] == .int(1))
                }
                // The rules live in the account itself: still enforced after the restart.
                let (status, refused) = try await order(
                    client, again, student, account: account,
                    #"{"symbol":"MSFT","qty":"1","side":"sell","type":"market","time_in_force":"day"}"#)
                #expect(status == .forbidden)
                #expect(
                    refused["message"] == .string("This game does not allow short selling: you hold no MSFT to sell"))
                try await client.execute(uri: "/api/v1/games/\(game.id)/end", method: .post, headers: teacher) { r in
                    #expect(r.status == .ok)
                }
            }
        } catch {
            await again.services.shutdown()
            throw error
        }
        await again.services.shutdown()

        let third = try await ServerFixture.make(directory: f.directory)
        do {
            try await third.app.test(.router) { client in
                try await client.execute(uri: "/api/v1/games/\(game.id)/leaderboard", method: .get, headers: teacher) {
                    r in
                    #expect(third.json(r)["final"] == .bool(true))
                    #expect(third.json(r)["entries"]?[0]?["account_id"] == .string(account))
                }
            }
        } catch {
            await third.services.shutdown()
            throw error
        }
        await third.services.shutdown()
    }

    @Test("orders placed before the start fill after it; without late entry, joining closes at the start")
    func startAndLateEntry() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let owner = try await session(client, "owner")
                let start = ServerFixture.morning.adding(seconds: 3600)
                let game = try await create(
                    client, f, owner,
                    #"{"name":"Later","starting_cash":"10000","visibility":"public","late_entry":false,"starts_at":"\#(start)"}"#
                )
                let early = try await session(client, "early")
                let account = try #require(try await join(client, f, early, game: game.id)["account_id"]?.string)
                try await client.execute(uri: "/api/v1/games/\(game.id)", method: .get, headers: early) { r in
                    #expect(f.json(r)["status"] == .string("upcoming"))
                }
                let (_, placed) = try await order(
                    client, f, early, account: account,
                    #"{"symbol":"AAPL","qty":"5","side":"buy","type":"market","time_in_force":"day"}"#)
                #expect(placed["status"] == .string("new"), "\(placed)")
                try await f.services.brokerage.pumpMarket()
                f.services.brokerage.clock.set(start.adding(seconds: 60))
                try await f.services.brokerage.pumpMarket()
                try await client.execute(
                    uri: "/api/v1/accounts/\(account)/orders", method: .get, headers: early
                ) { r in
                    #expect(f.json(r).array?.first?["status"] == .string("filled"))
                }
                let late = try await session(client, "late")
                try await client.execute(uri: "/api/v1/games/\(game.id)/join", method: .post, headers: late) { r in
                    #expect(r.status == .forbidden)
                    #expect(f.json(r)["message"]?.string?.contains("does not allow late entry") == true)
                }
            }
        }
    }

    @Test("settings are checked: short selling needs margin, dates in order, rules fixed after creation")
    func validation() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let owner = try await session(client, "owner")
                for (json, message) in [
                    (
                        #"{"name":"x","starting_cash":"1000","rules":{"short_selling":true}}"#,
                        "short_selling needs margin"
                    ),
                    (#"{"name":"x","starting_cash":"-5"}"#, "starting_cash must be a positive amount"),
                    (#"{"name":" ","starting_cash":"1000"}"#, "name is required"),
                    (
                        #"{"name":"x","starting_cash":"1000","rules":{"max_position_percent":"120"}}"#,
                        "max_position_percent"
                    ),
                    (#"{"name":"x","starting_cash":"1000","market":"cn","rules":{"margin":true}}"#, "A-share games"),
                    (#"{"name":"x","starting_cash":"1000","rules":{"bogus":1}}"#, "unknown rule bogus"),
                    (
                        #"{"name":"x","starting_cash":"1000","ends_at":"2020-01-01T00:00:00Z"}"#,
                        "ends_at must be in the future"
                    ),
                ] {
                    try await client.execute(uri: "/api/v1/games", method: .post, headers: owner, body: body(json)) {
                        r in
                        #expect(r.status == .unprocessableContent, "\(json)")
                        #expect(f.json(r)["message"]?.string?.contains(message) == true, "\(String(buffer: r.body))")
                    }
                }
                let game = try await create(client, f, owner, #"{"name":"x","starting_cash":"1000"}"#)
                try await client.execute(
                    uri: "/api/v1/games/\(game.id)", method: .patch, headers: owner,
                    body: body(#"{"rules":{"margin":true}}"#)
                ) { r in
                    #expect(r.status == .unprocessableContent)
                    #expect(f.json(r)["message"]?.string?.hasPrefix("rules cannot change after creation") == true)
                }
                try await client.execute(
                    uri: "/api/v1/games/\(game.id)", method: .patch, headers: owner,
                    body: body(#"{"name":"Renamed","portfolios_visible":"always","max_players":null}"#)
                ) { r in
                    #expect(r.status == .ok)
                    #expect(f.json(r)["name"] == .string("Renamed"))
                    #expect(f.json(r)["rules"]?["portfolios_visible"] == .string("always"))
                }
            }
        }
    }
}
