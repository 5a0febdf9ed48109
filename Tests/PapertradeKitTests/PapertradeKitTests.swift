import Foundation
import PapertradeKit
import Testing

/// PapertradeKit against a real server over HTTP: every call an app makes, the errors it gets, the live stream,
/// and each model's JSON against the server's.
@Suite(.serialized) struct PapertradeKitTests {
    @Test func anAPIKeyTradesItsAccount() async throws {
        try await LiveServer.with { server in
            let client = server.keyClient
            let accounts = try await client.accounts()
            #expect(accounts.map(\.id) == [server.accountID])
            let account = try await client.account()
            #expect(account.cash == 100_000 && account.currency == "USD" && account.market == .us)

            let quote = try await client.quote("aapl")
            #expect(quote.symbol == "AAPL" && quote.last > 0 && quote.asks.count == 5)
            let ask = try #require(quote.asks.first?.price)

            // A resting limit order with a journal note: listed open with its note, then canceled.
            var dip = OrderRequest.limit("AAPL", .buy, qty: 2, limitPrice: 1, timeInForce: .gtc)
            dip.note = "buying the dip — 买在低点"
            let resting = try await client.placeOrder(dip)
            #expect(resting.status == .new && resting.limitPrice == 1 && resting.qty == 2 && resting.status.isOpen)
            #expect(resting.note == "buying the dip — 买在低点")
            #expect(try await client.orders(status: "open").map(\.note) == ["buying the dip — 买在低点"])
            let canceled = try await client.cancelOrder(resting.id)
            #expect(canceled.status == .canceled && canceled.canceledAt != nil)
            #expect(try await client.orders(status: "open").isEmpty)

            // A market buy fills at the ask; cash moves by exactly qty × price.
            let bought = try await client.placeOrder(.market("AAPL", .buy, qty: 3))
            #expect(bought.status == .filled && bought.filledQty == 3 && bought.filledAvgPrice == ask)
            let after = try await client.account()
            #expect(after.cash == 100_000 - 3 * ask - bought.fees)
            let position = try #require(try await client.positions().first)
            #expect(position.symbol == "AAPL" && position.qty == 3 && position.avgEntryPrice == ask)
            #expect(position.costBasis == 3 * ask && position.assetClass == "stock" && position.multiplier == 1)
            let history = try await client.transactions(limit: 10)
            #expect(history.contains { $0.kind == "buy" && $0.orderID == bought.id && $0.qty == 3 && $0.price == ask })

            // Money in and out, exactly.
            let deposit = try await client.deposit(Decimal(string: "1234.56")!, note: "birthday")
            #expect(deposit.account.cash == after.cash + Decimal(string: "1234.56")!)
            #expect(deposit.transaction.kind == "deposit" && deposit.transaction.note == "birthday")
            let withdrawal = try await client.withdraw(Decimal(string: "0.01")!, method: .card)
            #expect(withdrawal.account.cash == deposit.account.cash - Decimal(string: "0.01")!)

            // Every other order type the engine takes, as the kit encodes them.
            let stop = try await client.placeOrder(.stop("AAPL", .sell, qty: 1, stopPrice: 1))
            #expect(stop.type == .stop && stop.stopPrice == 1)
            let stopLimit = try await client.placeOrder(.stop("AAPL", .sell, qty: 1, stopPrice: 2, limitPrice: 1))
            #expect(stopLimit.type == .stopLimit && stopLimit.limitPrice == 1)
            let trailing = try await client.placeOrder(.trailingStop("AAPL", .sell, qty: 1, trailPercent: 5))
            #expect(trailing.type == .trailingStop && trailing.trailPercent == 5 && trailing.hwm != nil)
            let notional = try await client.placeOrder(.market("AAPL", .buy, notional: 500))
            #expect(notional.notional == 500 && notional.status == .filled)
            let bracket = try await client.placeOrder(
                .bracket("AAPL", .buy, qty: 1, limitPrice: 1, takeProfit: 2, stopLoss: Decimal(string: "0.5")!))
            #expect(bracket.orderClass == "bracket" && bracket.status == .new)
            let all = try await client.cancelAllOrders()
            #expect(Set(all.map(\.id)).isSuperset(of: [stop.id, stopLimit.id, trailing.id, bracket.id]))
            #expect(all.allSatisfy { $0.status == .canceled })

            // Market data.
            let bars = try await client.bars("AAPL", timeframe: .day, fromDate: "2026-11-01")
            #expect(bars.bars.count >= 10 && bars.bars.allSatisfy { $0.low <= $0.high && $0.volume >= 0 })
            let found = try await client.search("apple", limit: 5)
            #expect(found.contains { $0.symbol == "AAPL" })
            let status = try await client.marketStatus(.cn)
            #expect(status.market == .cn && status.timeZone == "Asia/Shanghai")
            let calendar = try await client.earnings(from: "2026-01-01", to: "2026-12-31", symbols: ["AAPL", "600519"])
            let apple = calendar.earnings.filter { $0.symbol == "AAPL" }
            #expect(apple.map(\.fiscalQuarter) == [1, 2, 3, 4] && apple.allSatisfy { $0.time != nil })
            #expect(calendar.earnings.filter { $0.symbol == "600519" }.allSatisfy { $0.time == .afterClose })
            #expect(apple.allSatisfy { ($0.marketCapMillions ?? 0) > 1_000_000 })

            // Watchlists, performance and queue rules.
            let list = try await client.createWatchlist("Tech", symbols: ["AAPL"])
            #expect(try await client.addToWatchlist(list.id, symbol: "MSFT").symbols == ["AAPL", "MSFT"])
            #expect(try await client.removeFromWatchlist(list.id, symbol: "AAPL").symbols == ["MSFT"])
            #expect(try await client.replaceWatchlist(list.id, name: "Big", symbols: ["NVDA"]).name == "Big")
            #expect(try await client.watchlists().map(\.id) == [list.id])
            try await client.deleteWatchlist(list.id)
            #expect(try await client.watchlists().isEmpty)
            let performance = try await client.performance(period: .month)
            #expect(performance.accountID == server.accountID && performance.currency == "USD")
            let rule = try await client.addQueueRule(
                QueueRuleRequest(symbol: "AAPL", qty: 1, condition: .priceAtMost(1)))
            #expect(rule.status == "queued" && rule.triggerLevel == 1)
            #expect(try await client.queueRules().map(\.id) == [rule.id])
            #expect(try await client.cancelQueueRule(rule.id).status == "canceled")
            #expect(try await client.queueRules(history: true).map(\.id) == [rule.id])
        }
    }

    @Test func dollarsMoveToAYuanAccountAtTheQuotedRateAndShowInBothHistories() async throws {
        try await LiveServer.with { server in
            let user = try await server.userClient()
            let yuan = try await user.openAccount(market: .cn)
            let quote = try await user.transferQuote(from: server.accountID, to: yuan.id, amount: 30_000)
            #expect(quote.fromCurrency == "USD" && quote.toCurrency == "CNY" && quote.pricing.pair == "USD.CNH")
            #expect(quote.pricing.rate < quote.pricing.midRate && !quote.pricing.oddLot && quote.pricing.fee == 0)
            // The dollars sold at the pair's bid, the yuan rounded down to the fen.
            let exact = quote.fromAmount * (try #require(quote.pricing.pairPrice))
            #expect(quote.toAmount <= exact && exact - quote.toAmount < Decimal(string: "0.01")!)
            let moved = try await user.transfer(from: server.accountID, to: yuan.id, amount: 30_000)
            #expect(moved.status == "completed" && moved.fromAmount == 30_000)
            #expect(try await user.account(yuan.id).cash == yuan.cash + moved.toAmount)
            let out = try #require(try await user.transactions(account: server.accountID, limit: 5).first)
            #expect(out.kind == "transfer" && out.direction == "out" && out.transferID == moved.id)
            #expect(out.counterpartyAccount == yuan.id && out.counterpartyAmount == moved.toAmount)
            #expect(try await user.transfers().map(\.id) == [moved.id])
            #expect(try await user.transfer(id: moved.id).toAmount == moved.toAmount)
            // Refused: an account's key moves no money.
            do {
                _ = try await server.keyClient.transfer(from: server.accountID, to: yuan.id, amount: 1)
                Issue.record("a key moved money")
            } catch let error as PapertradeError {
                #expect(error.status == 401 || error.status == 403)
            }
        }
    }

    @Test func aCoinIsBoughtByAmountAndSoldWhole() async throws {
        try await LiveServer.with { server in
            let client = server.keyClient
            let quote = try await client.quote("btc/usd")
            #expect(quote.symbol == "BTC/USD" && quote.kind == "crypto" && quote.asks.count == 5)
            // A day order is refused for a pair, with Alpaca's words; good until canceled it fills.
            do {
                _ = try await client.placeOrder(.market("BTC/USD", .buy, notional: 100))
                Issue.record("a day order on a crypto pair was accepted")
            } catch let error as PapertradeError {
                #expect(error.status == 422 && error.message.contains("invalid crypto time_in_force"))
            }
            let bought = try await client.placeOrder(.market("BTC/USD", .buy, notional: 100, timeInForce: .gtc))
            #expect(bought.status == .filled && bought.notional == 100)
            // The taker's 0.25% is taken in bitcoin: the position is the coins bought less it.
            let fee = try #require(try await client.transactions(limit: 10).first { $0.kind == "crypto_fee" })
            #expect(fee.orderID == bought.id && fee.side == .buy && fee.liquidity == "taker")
            #expect(fee.rate == Decimal(string: "0.0025")! && fee.amount == 0)
            let qty = try #require(fee.qty)
            #expect(qty > 0 && qty < bought.filledQty)
            let position = try #require(try await client.positions().first { $0.symbol == "BTC/USD" })
            #expect(position.qty == bought.filledQty - qty)
            // Sold whole, off the pair's steps; the sale's fee is money.
            let sold = try await client.placeOrder(
                OrderRequest(symbol: "BTC/USD", side: .sell, type: .market, timeInForce: .ioc, qty: position.qty))
            #expect(sold.status == .filled && sold.fees > 0)
            #expect(try await client.positions().allSatisfy { $0.symbol != "BTC/USD" })
            let movers = try await client.movers(.active, crypto: true, limit: 30)
            #expect(movers.count >= 20 && movers.allSatisfy { $0.symbol.contains("/") })

            // A queued rule on a coin fires as its condition holds: its order is good until canceled (a pair has no
            // day) and fills; a price alert on a coin is set like a stock's.
            let rule = try await client.addQueueRule(
                QueueRuleRequest(symbol: "ETH/USD", notional: 25, condition: .priceAtLeast(1)))
            #expect(rule.status == "fired")
            let fired = try await client.orders(limit: 5).first { $0.symbol == "ETH/USD" }
            #expect(fired?.timeInForce == .gtc && fired?.status == .filled && fired?.notional == 25)
            let user = try await server.userClient()
            let alert = try await user.createAlert(.price("BTC/USD", below: 10_000_000))
            #expect(alert.symbol == "BTC/USD")
            // Below ten million dollars already: it goes off at the next look at the market.
            var status = alert.status
            for _ in 0..<100 where status != "triggered" {
                try await Task.sleep(for: .milliseconds(100))
                status = try await user.alerts().first { $0.id == alert.id }?.status ?? status
            }
            #expect(status == "triggered")
        }
    }

    @Test func refusalsAndFailuresCarryTheServersMessage() async throws {
        try await LiveServer.with { server in
            let client = server.keyClient
            await #expect {
                _ = try await client.placeOrder(.market("AAPL", .buy, qty: 10_000_000))
            } throws: { error in
                guard case .server(let status, let code, let message) = error as? PapertradeError else { return false }
                return status == 403 && code == 40310000 && message.hasPrefix("insufficient buying power")
            }
            await #expect(throws: PapertradeError.server(status: 404, code: 40410000, message: "unknown symbol NOPE")) {
                _ = try await client.quote("NOPE")
            }
            let bad = PapertradeClient(baseURL: server.baseURL, keyID: server.keyID, secretKey: "wrong")
            await #expect(
                throws: PapertradeError.server(status: 401, code: 40110000, message: "request is not authorized")
            ) {
                _ = try await bad.account()
            }
            // The user behind a login is no key's business; a user must name the account it means.
            let unauthorized = PapertradeError.server(status: 401, code: 40110000, message: "request is not authorized")
            await #expect(throws: unauthorized) { _ = try await client.me() }
            let user = try await server.userClient()
            await #expect(throws: PapertradeError.self) { _ = try await user.account() }
            let nowhere = PapertradeClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, keyID: server.keyID, secretKey: server.secret)
            await #expect {
                _ = try await nowhere.quote("AAPL")
            } throws: { error in
                if case .transport = error as? PapertradeError { true } else { false }
            }
            await #expect(
                throws: PapertradeError.server(status: 401, code: 40110000, message: "wrong username or password")
            ) {
                _ = try await PapertradeClient.login(baseURL: server.baseURL, username: server.username, password: "x")
            }
        }
    }

    @Test func aUserPlaysGamesSetsAlertsAndRunsBacktests() async throws {
        try await LiveServer.with { server in
            let user = try await server.userClient()
            let me = try await user.me()
            #expect(me.username == server.username && me.accounts.map(\.id).contains(server.accountID))

            let game = try await user.createGame(
                GameSettings(
                    name: "Agents league", startingCash: 50_000, isPrivate: true,
                    rules: Game.Rules(maxPositionPercent: 25, ranking: "return")))
            #expect(game.isOwner && game.visibility == "private" && game.joinCode != nil)
            #expect(game.rules.maxPositionPercent == 25 && game.startingCash == 50_000)
            let joined = try await user.joinGame(game.id, apiKey: true)
            let keyID = try #require(joined.keyID)
            let secret = try #require(joined.secret)
            // The game account's key trades it like any other account.
            let player = PapertradeClient(baseURL: server.baseURL, keyID: keyID, secretKey: secret)
            #expect(try await player.account().inGame)
            _ = try await player.placeOrder(.market("AAPL", .buy, qty: 1))
            let board = try await user.leaderboard(game.id)
            #expect(board.entries.map(\.accountID) == [joined.accountID])
            #expect(board.entries.first?.trades == 1 && board.entries.first?.player == server.username)
            #expect(try await user.games(mine: true).map(\.id) == [game.id])
            #expect(try await user.game(game.id).players == 1)
            // A second user joins the private game by its code alone.
            let friend = try await PapertradeClient.signup(
                baseURL: server.baseURL, username: "friend-\(UUID().uuidString.prefix(6))", password: "long enough pw")
            let byCode = try await friend.joinGame(code: try #require(game.joinCode))
            #expect(byCode.gameID == game.id && byCode.keyID == nil)
            #expect(try await user.leaderboard(game.id).entries.count == 2)

            let alert = try await user.createAlert(.price("AAPL", above: 1000))
            #expect(alert.condition == "greater_than" && alert.value == 1000 && alert.status == "active")
            #expect(try await user.alerts().map(\.id) == [alert.id])
            #expect(try await user.cancelAlert(alert.id).status == "canceled")

            // The fill above told the user.
            let inbox = try await user.notifications()
            let fillNote = try #require(
                inbox.notifications.first { $0.kind == "fill" && $0.accountID == joined.accountID })
            #expect(!fillNote.read)
            let afterOne = try await user.markNotificationRead(fillNote.id)
            #expect(afterOne.notifications.first { $0.id == fillNote.id }?.read == true)
            #expect(try await user.markAllNotificationsRead().unread == 0)

            // A user opens an account, mints its key, trades it and starts it over.
            let cnAccount = try await user.openAccount(market: .cn, cash: 500_000, name: "A-shares 2")
            #expect(cnAccount.currency == "CNY" && cnAccount.cash == 500_000 && cnAccount.name == "A-shares 2")
            let key = try await user.createAPIKey(account: cnAccount.id)
            let cnClient = PapertradeClient(baseURL: server.baseURL, keyID: key.keyID, secretKey: key.secret)
            #expect(try await cnClient.keyAccountID() == cnAccount.id)
            _ = try await cnClient.deposit(1000)
            let fresh = try await cnClient.reset()
            #expect(fresh.cash == 500_000 && fresh.positions?.isEmpty == true)
            // Its keys are listed (no secret) and one is revoked: refused from the next request.
            let listed = try await user.apiKeys(account: cnAccount.id)
            #expect(listed.map(\.keyID) == [key.keyID] && listed.first?.createdAt != nil)
            try await user.revokeAPIKey(account: cnAccount.id, keyID: key.keyID)
            await #expect(throws: PapertradeError.self) { _ = try await cnClient.transactions() }
            #expect(try await user.apiKeys(account: cnAccount.id).isEmpty)
            let span = try await user.performance(start: "2026-11-01", end: "2026-11-20", account: server.accountID)
            #expect(span.start >= "2026-11-01" && span.end <= "2026-11-20" && span.period == nil)

            let test = try await user.runBacktest(
                BacktestRequest(symbols: ["AAPL"], from: "2025-01-01", to: "2025-06-30", strategy: "buy-and-hold"))
            let result = try #require(test.result)
            #expect(test.status == "done" && result.symbols == ["AAPL"] && result.startingCash == 100_000)
            #expect(result.trades + result.openTrades >= 1 && !result.equity.isEmpty)
            try await user.logout()
            await #expect(throws: PapertradeError.self) { _ = try await user.me() }
        }
    }

    @Test func theLiveStreamDeliversAFill() async throws {
        try await LiveServer.with { server in
            let client = server.keyClient
            let events = client.orderUpdates()
            let fill = Task { () -> OrderUpdate? in
                for try await update in events where update.event == "fill" { return update }
                return nil
            }
            // The stream connects in the background, and an order placed before it is up is not heard: place one,
            // listen a moment, again, until a fill arrives (a busy machine takes longer to connect, not forever).
            var placed: [String] = []
            var heard: OrderUpdate??
            let deadline = ContinuousClock.now + .seconds(60)
            while heard == nil, ContinuousClock.now < deadline {
                placed.append(try await client.placeOrder(.market("AAPL", .buy, qty: 1)).id)
                heard = try? await withTimeout(seconds: 1) { try await fill.value }
            }
            let update = try #require(heard, "no fill heard on the stream within 60 s")
            #expect(update?.accountID == server.accountID)
            #expect(update.map { placed.contains($0.order.id) } == true)
            #expect(update?.order.status == .filled && update?.order.filledQty == 1)
            fill.cancel()

            // An unknown symbol is refused before the stream starts, with the server's message.
            await #expect(throws: PapertradeError.server(status: 404, code: 40410000, message: "unknown symbol NOPE")) {
                for try await _ in client.events(symbols: ["NOPE"]) {}
            }
        }
    }

    @Test func aCallIsDeclinedThenExercised() async throws {
        try await LiveServer.with { server in
            let client = server.keyClient
            // An AAPL call $10 or more in the money, expiring a month or more out.
            let chain = try await server.services.brokerage.options.chain("AAPL")
            let spot = try await client.quote("AAPL").last
            let call = try #require(
                chain.contracts.filter {
                    $0.right == .call && $0.expiration.daysSinceEpoch - LiveServer.day.daysSinceEpoch >= 30
                        && Decimal(string: $0.strike.description)! <= spot - 10
                }.last)
            let bought = try await client.placeOrder(.market(call.occSymbol, .buy, qty: 1))
            #expect(bought.status == .filled)
            let declined = try await client.doNotExercise(call.occSymbol)
            let held = try #require(declined.positions?.first { $0.symbol == call.occSymbol })
            #expect(held.doNotExercise == true && held.deliverable == 100 && held.assetClass == "option")
            let strike = Decimal(string: call.strike.description)!
            let exercised = try await client.exercise(call.occSymbol)
            #expect(exercised.cash == declined.cash - strike * 100)
            #expect(exercised.positions?.contains { $0.symbol == call.occSymbol } == false)
            #expect(exercised.positions?.first { $0.symbol == "AAPL" }?.qty == 100)
            do throws(PapertradeError) {
                _ = try await client.exercise(call.occSymbol)
                Issue.record("a second exercise of a position no longer held was accepted")
            } catch {
                #expect(error.message.contains("no available position"))
            }
        }
    }

    @Test func everyModelRoundTripsTheServersJSON() async throws {
        try await LiveServer.with { server in
            let client = server.keyClient
            let order = try await client.placeOrder(.market("AAPL", .buy, qty: 2))
            _ = try await client.placeOrder(.limit("AAPL", .buy, qty: 1, limitPrice: 1))
            _ = try await client.createWatchlist("Tech", symbols: ["AAPL", "600519"])
            _ = try await client.addQueueRule(QueueRuleRequest(symbol: "AAPL", qty: 1, condition: .priceAtMost(1)))
            let id = server.accountID
            try expectRoundTrip(Account.self, try await server.raw("accounts/\(id)"))
            try expectRoundTrip([Account].self, try await server.raw("accounts"))
            try expectRoundTrip([Order].self, try await server.raw("accounts/\(id)/orders?status=all"))
            try expectRoundTrip([Transaction].self, try await server.raw("accounts/\(id)/transactions"))
            try expectRoundTrip([Watchlist].self, try await server.raw("accounts/\(id)/watchlists"))
            try expectRoundTrip([QueueRule].self, try await server.raw("accounts/\(id)/queue"))
            try expectRoundTrip(Performance.self, try await server.raw("accounts/\(id)/performance?period=1M"))
            try expectRoundTrip(Quote.self, try await server.raw("quotes/AAPL"))
            try expectRoundTrip(Quote.self, try await server.raw("quotes/600519"))
            try expectRoundTrip(Bars.self, try await server.raw("bars/AAPL?timeframe=1Day&from=2026-10-01"))
            try expectRoundTrip([SymbolMatch].self, try await server.raw("search?q=mao"))
            try expectRoundTrip(MarketStatus.self, try await server.raw("market/status?market=cn"))
            try expectRoundTrip(
                EarningsCalendar.self, try await server.raw("earnings?from=2026-10-01&to=2026-10-31&market=us"))
            #expect(order.status == .filled)

            let user = try await server.userClient()
            try expectRoundTrip(User.self, try await server.raw("me", session: user))
            let game = try await user.createGame(GameSettings(name: "Cup", rules: Game.Rules(quickSellMinutes: 15)))
            _ = try await user.joinGame(game.id)
            try expectRoundTrip([Game].self, try await server.raw("games?scope=mine", session: user))
            try expectRoundTrip(Leaderboard.self, try await server.raw("games/\(game.id)/leaderboard", session: user))
            _ = try await user.createAlert(
                AlertRequest(symbol: "AAPL", condition: "inside_channel", lower: 1, upper: 2))
            _ = try await user.createAlert(
                AlertRequest(symbol: "AAPL", condition: "moving_up_percent", value: 3, within: .duration("15m")))
            try expectRoundTrip([Alert].self, try await server.raw("alerts", session: user))
            try expectRoundTrip(NotificationList.self, try await server.raw("notifications", session: user))
            let test = try await user.runBacktest(
                BacktestRequest(symbols: ["AAPL"], from: "2025-01-01", to: "2025-12-31"))
            try expectRoundTrip(Backtest.self, try await server.raw("backtests/\(test.id)", session: user))
            try expectRoundTrip([Backtest].self, try await server.raw("backtests", session: user))
        }
    }
}

/// The value of `body`, or a failure after `seconds` (a stream that never delivers must not hang the suite).
func withTimeout<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw PapertradeError.transport("nothing arrived within \(seconds) s")
        }
        return value
    }
}

@Suite("PapertradeKit: classes")
struct PapertradeKitClassTests {
    @Test func aTeacherFollowsAClassAndChangesItsWorkThroughTheKit() async throws {
        try await LiveServer.with { server in
            let teacher = try await server.userClient()
            let klass = try await teacher.createClass(ClassSettings(game: GameSettings(name: "Econ")))
            let students = try await teacher.importRoster(
                klass.id,
                csv: "username,display_name\nkit-a-\(klass.id.prefix(6)),Ann\nkit-b-\(klass.id.prefix(6)),Ben\n")
            let ann = try #require(students.first)
            let due = Date().addingTimeInterval(5 * 86_400)
            let week = try await teacher.createAssignment(
                klass.id, title: "Week 1", due: due, checks: [.trades(1), .journal])
            let essay = try await teacher.createAssignment(
                klass.id, title: "Essay", due: due, checks: [.task("Why index funds?")])
            // Ann changes her handed-out password and trades once, with a note.
            let student = try await PapertradeClient.login(
                baseURL: server.baseURL, username: ann.username, password: ann.initialPassword)
            _ = try await student.changePassword(current: ann.initialPassword, new: "ann's own secret")
            var buy = OrderRequest.market("AAPL", .buy, qty: 1)
            buy.note = "Services keep growing"
            let order = try await student.placeOrder(buy, account: ann.accountID)

            let progress = try await teacher.progress(klass.id)
            let annWork = try #require(progress.first { $0.student.username == ann.username })
            #expect(annWork.assignments.first { $0.assignmentID == week.id }?.done == true)
            #expect(annWork.assignments.first { $0.assignmentID == week.id }?.checks.first?.orders == [order.id])
            #expect(progress.first { $0.student.username != ann.username }?.assignments.allSatisfy { !$0.done } == true)
            #expect(try await teacher.classJournal(klass.id).map(\.order.note) == ["Services keep growing"])
            let rankings = try await teacher.rankings(klass.id)
            #expect(rankings.students.map(\.rank) == [1, 2] && rankings.definitions["sharpe"] != nil)
            let report = try await teacher.studentReport(klass.id, student: ann.username)
            #expect(report.positions?.map(\.symbol) == ["AAPL"] && report.orders.map(\.id) == [order.id])
            // Ann reads her own progress only, and not Ben's report.
            #expect(try await student.progress(klass.id).map(\.student.username) == [ann.username])
            await #expect(throws: PapertradeError.self) {
                _ = try await student.studentReport(klass.id, student: students[1].username)
            }
            for (type, path): (any Codable.Type, String) in [
                ([StudentProgress].self, "progress"), ([ClassJournalLine].self, "journal"),
                (ClassRankings.self, "rankings"), (StudentReport.self, "students/\(ann.username)"),
            ] {
                try expectRoundTrip(type, try await server.raw("classes/\(klass.id)/\(path)", session: teacher))
            }

            // The teacher marks the essay, asks for two trades instead of one, then deletes the essay.
            try await teacher.markAssignment(klass.id, assignment: essay.id, student: ann.username, mark: "A-")
            let changed = try await teacher.editAssignment(klass.id, assignment: week.id, checks: [.trades(2)])
            #expect(changed.title == "Week 1" && changed.checks == [.trades(2)])
            let after = try await teacher.progress(klass.id).first { $0.student.username == ann.username }
            #expect(after?.assignments.first { $0.assignmentID == week.id }?.done == false)
            #expect(after?.assignments.first { $0.assignmentID == essay.id }?.mark == "A-")
            try await teacher.deleteAssignment(klass.id, assignment: essay.id)
            #expect(try await teacher.assignments(klass.id).map(\.title) == ["Week 1"])
            await #expect(throws: PapertradeError.self) {
                try await teacher.deleteAssignment(klass.id, assignment: essay.id)
            }

            // Ann and Ben form a team: Ben trades the team's account, and the rankings show one line for both.
            let team = try await teacher.formTeam(klass.id, name: "Bulls", members: students.map(\.username))
            #expect(team.members.map(\.username) == students.map(\.username))
            let ben = try await PapertradeClient.login(
                baseURL: server.baseURL, username: students[1].username, password: students[1].initialPassword)
            #expect(try await ben.classroom(klass.id).accountID == team.accountID)
            #expect(try await ben.classroom(klass.id).team == "Bulls")
            _ = try await ben.placeOrder(.market("MSFT", .buy, qty: 1), account: team.accountID)
            let teamLines = try await teacher.rankings(klass.id).students
            #expect(teamLines.count == 1 && teamLines.first?.team == "Bulls")
            #expect(teamLines.first?.members == students.map(\.username))
            #expect(try await ben.teams(klass.id).map(\.name) == ["Bulls"])
            for (type, path): (any Codable.Type, String) in [
                ([ClassTeam].self, "teams"), (ClassRankings.self, "rankings"), ([ClassStudent].self, "roster"),
                ([ClassJournalLine].self, "journal"),
            ] {
                try expectRoundTrip(type, try await server.raw("classes/\(klass.id)/\(path)", session: teacher))
            }
            try await teacher.disbandTeam(klass.id, name: "Bulls")
            #expect(try await ben.classroom(klass.id).accountID == students[1].accountID)
            #expect(try await teacher.teams(klass.id).isEmpty)
        }
    }
}
