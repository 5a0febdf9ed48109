import Testing
import TradingCore

@Suite("Game rules: every order of a game account meets them first")
struct GameRulesTests {
    var f = Fixture()
    let t = Fixture.usMorning
    let player = AccountID(high: 9, low: 9)

    /// Opens the player's game account with `rules` ($50,000, cash unless `margin`).
    mutating func join(
        _ rules: GameRules, margin: Bool = false, fees: FeeSchedule? = .free, cash: FixedDecimal = 50_000
    ) throws {
        try f.engine.openAccount(
            player, market: .us, startingCash: cash, fees: fees,
            terms: margin ? MarginTerms(type: .margin, maxMultiplier: 2, noShorting: !rules.shortSelling) : .cash,
            gameRules: rules)
    }

    mutating func place(_ request: OrderRequest, at time: Timestamp) -> Result<Order, OrderRejection> {
        f.place(request, account: player, at: time)
    }

    /// A quote that also says how many shares traded so far today.
    mutating func quote(_ id: InstrumentID, bid: String, ask: String, volume: String? = nil, at time: Timestamp) {
        let quote = Quote(
            bids: BookSide([(d(bid), 1000)]), asks: BookSide([(d(ask), 1000)]), dayVolume: volume.map(d))
        f.engine.apply(MarketEvent(instrument: id, time: time, kind: .quote(quote)))
    }

    @Test("the one-stock limit counts the position's cost plus the order against equity, and names the share")
    mutating func positionShare() throws {
        try join(GameRules(maximumPositionPercent: 20))
        quote(f.aapl, bid: "99.99", ask: "100.00", at: t)
        // $10,000 of $50,000 is 20%: allowed; another $3,500 would make 27%.
        #expect(place(buy("AAPL", "100"), at: t).order?.status == .filled)
        let refused = place(buy("AAPL", "35"), at: t).rejection
        #expect(refused?.reason == .gameRule)
        #expect(
            refused?.message
                == "This game allows at most 20% of your portfolio in one stock; this order would make AAPL 27%")
        // Another stock has its own 20%.
        quote(f.penny, bid: "9.99", ask: "10.00", at: t)
        #expect(place(buy("PNNY", "900"), at: t).order?.status == .filled)
    }

    @Test("minimum prices: to buy, and to sell short")
    mutating func minimumPrices() throws {
        try join(GameRules(minimumBuyPrice: 1, minimumShortPrice: 5), margin: true)
        quote(f.penny, bid: "0.84", ask: "0.85", at: t)
        #expect(
            place(buy("PNNY", "100"), at: t).message
                == "This game allows buying only stocks priced at least $1.00; PNNY is at $0.85")
        quote(f.penny, bid: "3.20", ask: "3.21", at: t)
        #expect(
            place(sell("PNNY", "100"), at: t).message
                == "This game allows short selling only stocks priced at least $5.00; PNNY is at $3.20")
        #expect(place(buy("PNNY", "100"), at: t).order?.status == .filled)
    }

    @Test("crypto counts only in a game that says so: refused by default, traded (on a Saturday) when allowed")
    mutating func crypto() throws {
        let btc = f.engine.register(
            .cryptoPair(
                "BTC/USD", name: "Bitcoin", minimumOrder: d("0.0001"), increment: d("0.0001"), priceIncrement: d("1")))
        let saturday = Timestamp(CivilDate(2026, 11, 21), hour: 12, in: .utc)
        quote(btc, bid: "91000", ask: "91001", at: saturday)
        try join(GameRules())
        let refused = place(buy("BTC/USD", "0.01", tif: .gtc), at: saturday).rejection
        #expect(refused?.reason == .gameRule)
        #expect(refused?.message == "This game does not allow crypto: it is played with stocks and ETFs (BTC/USD)")
        var rules = GameRules()
        rules.crypto = true
        try f.engine.setGameRules(rules, for: player)
        #expect(place(buy("BTC/USD", "0.01", tif: .gtc), at: saturday).order?.status == .filled)
    }

    @Test("no short selling: a sale of a stock not held is refused with the game's reason")
    mutating func noShortSelling() throws {
        try join(GameRules(shortSelling: false), margin: true)
        quote(f.aapl, bid: "99.99", ask: "100.00", at: t)
        let refused = place(sell("AAPL", "10"), at: t).rejection
        #expect(refused?.reason == .gameRule)
        #expect(refused?.message == "This game does not allow short selling: you hold no AAPL to sell")
    }

    @Test("an order may take at most the given share of the shares traded so far today")
    mutating func volumeShare() throws {
        try join(GameRules(maximumVolumePercent: 10))
        quote(f.aapl, bid: "99.99", ask: "100.00", volume: "1234", at: t)
        #expect(
            place(buy("AAPL", "124"), at: t).message
                == "This game allows orders of at most 10% of the day's volume: 1234 shares of AAPL traded so far today, so at most 123"
        )
        #expect(place(buy("AAPL", "123"), at: t).order?.status == .filled)
    }

    @Test("quick sell: no sale within N minutes of a purchase; the wait is counted down")
    mutating func quickSell() throws {
        try join(GameRules(quickSellMinutes: 15))
        quote(f.aapl, bid: "99.99", ask: "100.00", at: t)
        #expect(place(buy("AAPL", "10"), at: t).order?.status == .filled)
        let early = t.adding(seconds: 6 * 60)
        quote(f.aapl, bid: "99.99", ask: "100.00", at: early)
        #expect(
            place(sell("AAPL", "10"), at: early).message
                == "This game allows no sale within 15 minutes of a purchase: AAPL was bought 6 minutes ago; you may sell it in 9 minutes"
        )
        let later = t.adding(seconds: 15 * 60)
        quote(f.aapl, bid: "99.99", ask: "100.00", at: later)
        #expect(place(sell("AAPL", "10"), at: later).order?.status == .filled)
    }

    @Test("orders per day: the limit counts placed orders, and a new trading day starts over")
    mutating func ordersPerDay() throws {
        try join(GameRules(maximumOrdersPerDay: 2))
        quote(f.aapl, bid: "99.99", ask: "100.00", at: t)
        #expect(place(buy("AAPL", "1", .limit, limit: "90.00"), at: t).order != nil)
        #expect(place(buy("AAPL", "1"), at: t).order != nil)
        #expect(
            place(buy("AAPL", "1"), at: t).message
                == "This game allows at most 2 orders a day; you have placed 2 today")
        let monday = Timestamp(CivilDate(2026, 11, 23), hour: 10, in: .newYork)
        quote(f.aapl, bid: "99.99", ask: "100.00", at: monday)
        #expect(place(buy("AAPL", "1"), at: monday).order != nil)
        #expect(f.engine.account(player)?.gameActivity?.trades == 2) // the resting limit never traded
    }

    @Test("no day trading: shares bought today cannot be sold today; older shares can")
    mutating func noDayTrading() throws {
        try join(GameRules(dayTrading: false))
        let thursday = Timestamp(CivilDate(2026, 11, 19), hour: 10, in: .newYork)
        quote(f.aapl, bid: "99.99", ask: "100.00", at: thursday)
        #expect(place(buy("AAPL", "10"), at: thursday).order?.status == .filled)
        quote(f.aapl, bid: "99.99", ask: "100.00", at: t)
        #expect(place(buy("AAPL", "5"), at: t).order?.status == .filled)
        // Ten shares are from yesterday: selling them is no day trade; the eleventh would be.
        #expect(
            place(sell("AAPL", "11"), at: t).message
                == "This game does not allow day trading: 5 shares of AAPL were bought today; sell them from the next trading day"
        )
        #expect(place(sell("AAPL", "10"), at: t).order?.status == .filled)
    }

    @Test("orders placed before the start wait for it and fill at the first market update after it")
    mutating func beforeTheStart() throws {
        let start = t.adding(seconds: 3600)
        try join(GameRules(startsAt: start))
        quote(f.aapl, bid: "99.99", ask: "100.00", at: t)
        let order = try #require(place(buy("AAPL", "10"), at: t).order)
        #expect(order.status == .new && f.position(player, f.aapl) == nil)
        quote(f.aapl, bid: "100.99", ask: "101.00", at: start.adding(seconds: -1))
        #expect(f.position(player, f.aapl) == nil)
        quote(f.aapl, bid: "101.99", ask: "102.00", at: start.adding(seconds: 1))
        #expect(f.position(player, f.aapl)?.qty == d("10"))
        #expect(f.position(player, f.aapl)?.averageEntryPrice == d("102.00"))
    }

    @Test("at the end orders are refused; deposits and withdrawals never are allowed")
    mutating func endAndTransfers() throws {
        let end = t.adding(seconds: 60)
        try join(GameRules(endsAt: end))
        quote(f.aapl, bid: "99.99", ask: "100.00", at: end)
        let refused = place(buy("AAPL", "1"), at: end).rejection
        #expect(refused?.reason == .gameRule)
        #expect(refused?.message.hasPrefix("This game ended at ") == true)
        #expect(throws: OrderRejection.self) { try f.engine.deposit(100, to: player, method: .bank, at: t) }
        #expect(throws: OrderRejection.self) { try f.engine.withdraw(100, from: player, at: t) }
    }

    @Test("a game's commission: a flat amount once per order and a percentage of the value")
    mutating func commission() throws {
        let fees = GameRules.commissionSchedule(flat: d("4.95"), percent: d("0.1"))
        try join(GameRules(), fees: fees)
        quote(f.aapl, bid: "99.99", ask: "100.00", at: t)
        let order = try #require(place(buy("AAPL", "10"), at: t).order)
        // $4.95 + 0.1% of $1,000.
        #expect(order.fees == d("5.95"))
        #expect(f.cash(player) == d("48994.05"))
        #expect(GameRules.commissionSchedule(flat: nil, percent: .zero) == nil)
    }

    @Test("accounts outside games meet none of this")
    mutating func ordinaryAccounts() throws {
        quote(f.aapl, bid: "0.84", ask: "0.85", volume: "10", at: t)
        #expect(f.place(buy("AAPL", "500"), at: t).order?.status == .filled)
        #expect(f.engine.account(f.us)?.gameActivity == nil)
        #expect(f.position(f.us, f.aapl)?.lastBoughtAt == nil)
    }
}

@Suite("Leaderboard")
struct LeaderboardTests {
    static func player(_ n: UInt64, _ name: String, cash: String, holding qty: String = "0") -> Leaderboard.Player {
        var account = Account(
            id: AccountID(high: n, low: n), market: .us, startingCash: 10_000, gameRules: GameRules())
        account.cash = d(cash)
        if qty != "0" {
            var position = Position(instrument: InstrumentID(0), symbol: "AAPL")
            position.qty = d(qty)
            position.costBasis = d(qty).multiplied(by: 100)
            account.positions[position.instrument] = position
        }
        return Leaderboard.Player(accountID: account.id, name: name, account: account)
    }

    @Test("ranked by return at the marks; equal returns share a rank and list by name; day change from the close")
    func ranking() {
        let players = [
            Self.player(1, "carol", cash: "10000"),
            Self.player(2, "alice", cash: "0", holding: "100"), // 100 × $110 = $11,000: +10%
            Self.player(3, "bob", cash: "10000"),
            Self.player(4, "dave", cash: "9000"),
        ]
        let marks = ["AAPL": Leaderboard.Mark(last: d("110"), previousClose: d("108"))]
        let board = Leaderboard.standings(players, marks: marks, ranking: .totalReturn, benchmarkReturn: d("0.02"))
        #expect(board.map(\.player) == ["alice", "bob", "carol", "dave"])
        #expect(board.map(\.rank) == [1, 2, 2, 4])
        #expect(board[0].totalReturn == d("0.1") && board[0].equity == d("11000") && board[0].dayChange == d("200"))
        #expect(board[0].excessReturn == d("0.08"))
        #expect(board[3].totalReturn == d("-0.1"))
    }

    @Test("ranked by Sharpe, players without one yet come last, by return")
    func sharpe() {
        var players = [
            Self.player(1, "a", cash: "12000"), Self.player(2, "b", cash: "10500"), Self.player(3, "c", cash: "9000"),
        ]
        players[1].sharpe = d("1.5")
        players[2].sharpe = d("0.5")
        let board = Leaderboard.standings(players, marks: [:], ranking: .sharpe, benchmarkReturn: nil)
        #expect(board.map(\.player) == ["b", "c", "a"])
        #expect(board.map(\.rank) == [1, 2, 3])
    }
}
