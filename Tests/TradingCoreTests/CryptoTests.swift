import Testing
import TradingCore

/// Crypto pairs in the engine: traded every second of every day, in fractions on the pair's steps, by the rules
/// Alpaca's paper accounts apply (gtc or ioc; market, limit or stop-limit; never short, never on margin).
@Suite("Crypto pairs: around the clock, fractional, never short")
struct CryptoTests {
    // No fees here: the crypto fee tiers are checked on their own; every figure below is the trade itself.
    var f = Fixture(usCash: 100_000, usFees: .free)
    let btc: InstrumentID
    let doge: InstrumentID

    init() {
        btc = f.engine.register(
            .cryptoPair(
                "BTC/USD", name: "Bitcoin", minimumOrder: d("0.0001"), increment: d("0.0001"), priceIncrement: d("1")))
        doge = f.engine.register(
            .cryptoPair(
                "DOGE/USD", name: "Dogecoin", minimumOrder: d("1"), increment: d("1"), priceIncrement: d("0.000001")))
    }

    /// Every hour of 2026 in UTC, daylight-saving changes, weekends and both markets' holidays included.
    static let hoursOf2026: [Timestamp] = (0..<(365 * 24)).map {
        Timestamp(CivilDate(2026, 1, 1), in: .utc).adding(seconds: Int64($0) * 3_600)
    }

    @Test("the crypto calendar trades every hour of the year, and its trading date is the UTC date")
    func calendar() {
        let calendar = TradingCalendar.crypto
        for hour in Self.hoursOf2026 {
            #expect(calendar.phase(at: hour) == .continuous, "\(hour)")
            let date = ExchangeTimeZone.utc.localTime(of: hour).date
            #expect(calendar.isTradingDay(date) && calendar.tradingDate(at: hour) == date)
        }
        #expect(
            Instrument.cryptoPair(
                "ETH/USD", name: "Ethereum", minimumOrder: d("0.001"), increment: d("0.001"), priceIncrement: d("0.1")
            ).calendar == .crypto)
        #expect(Instrument.usEquity("AAPL", name: "Apple").calendar == .xnys)
    }

    @Test("on a Saturday, at every hour, a bitcoin market order fills while a stock's market order waits for Monday")
    mutating func saturday() throws {
        let saturday = Timestamp(CivilDate(2026, 11, 21), in: .utc)
        for hour in 0..<24 {
            let t = saturday.adding(seconds: Int64(hour) * 3_600)
            f.quote(btc, bid: "91000", ask: "91001", size: 5, at: t)
            f.quote(f.aapl, bid: "199.99", ask: "200.00", at: t)
            let coin = try #require(f.place(buy("BTC/USD", "0.0012", tif: .gtc), at: t).order, "\(hour):00")
            #expect(coin.status == .filled && coin.filledAvgPrice == d("91001"), "\(hour):00")
            let stock = try #require(f.place(buy("AAPL", "1"), at: t).order)
            #expect(stock.status != .filled && stock.filledQty == .zero, "\(hour):00")
        }
        let position = try #require(f.position(f.us, btc))
        #expect(position.qty == d("0.0288"))
        #expect(position.costBasis == d("0.0288").multiplied(by: d("91001")))
    }

    @Test("fractions on the pair's steps: below the minimum or off the increment is refused with the pair's figures")
    mutating func quantities() throws {
        let t = Fixture.usMorning
        f.quote(btc, bid: "91000", ask: "91001", size: 5, at: t)
        f.quote(doge, bid: "0.412345", ask: "0.412346", size: 1_000_000, at: t)
        let small = f.place(buy("BTC/USD", "0.00005", tif: .gtc), at: t).rejection
        #expect(small?.reason == .lotSize)
        #expect(small?.message == "qty 0.00005 for BTC/USD is below the minimum order of 0.0001")
        let offStep = f.place(buy("BTC/USD", "0.00015", tif: .gtc), at: t).rejection
        #expect(offStep?.message == "qty 0.00015 for BTC/USD must be a multiple of its minimum trade increment 0.0001")
        #expect(f.place(buy("DOGE/USD", "2.5", tif: .gtc), at: t).rejection?.reason == .lotSize)

        let bought = try #require(f.place(buy("BTC/USD", "0.0003", tif: .ioc), at: t).order)
        // 0.0003 × $91,001 = $27.3003: cash moves in cents (half up), the position keeps the exact cost.
        #expect(bought.status == .filled && f.cash(f.us) == d("100000") - d("27.30"))
        #expect(f.position(f.us, btc)?.costBasis == d("27.3003"))
        // A limit price off the pair's $1 step is refused; on it, it rests.
        let offTick = f.place(buy("BTC/USD", "0.001", .limit, limit: "90000.50", tif: .gtc), at: t).rejection
        #expect(offTick?.reason == .offTick)
        let resting = try #require(f.place(buy("BTC/USD", "0.001", .limit, limit: "90000", tif: .gtc), at: t).order)
        #expect(resting.status == .new)
        // Everything held may be sold, even below the minimum.
        let tiny = try #require(f.place(sell("BTC/USD", "0.0003", tif: .gtc), at: t).order)
        #expect(tiny.status == .filled && f.position(f.us, btc) == nil)
    }

    @Test("a notional buy gets the coin's fraction for the dollars; a notional with a limit price is refused")
    mutating func notional() throws {
        let t = Fixture.usMorning
        f.quote(btc, bid: "91000", ask: "91001", size: 5, at: t)
        let order = try #require(
            f.place(
                OrderRequest(symbol: "BTC/USD", side: .buy, type: .market, timeInForce: .gtc, notional: d("50")),
                at: t
            ).order)
        #expect(order.status == .filled)
        let position = try #require(f.position(f.us, btc))
        #expect(position.qty.isPositive && position.qty < d("0.001"))
        // The account pays the $50 exactly; the position's exact cost is the fraction times the price, within a cent.
        #expect(d("100000") - f.cash(f.us) == d("50"))
        #expect(position.costBasis <= d("50") && position.costBasis >= d("49.99"))
        let limited = f.place(
            OrderRequest(
                symbol: "BTC/USD", side: .buy, type: .limit, timeInForce: .gtc, notional: d("50"),
                limitPrice: d("90000")), at: t
        ).rejection
        #expect(limited?.message == "notional crypto orders must be market orders: give qty with a limit price")
    }

    @Test(
        "Alpaca's refusals: day, opg, cls and fok; stop and trailing stops; brackets; extended hours; selling what is not held"
    )
    mutating func refusals() throws {
        let t = Fixture.usMorning
        f.quote(btc, bid: "91000", ask: "91001", size: 5, at: t)
        for tif in [TimeInForce.day, .opg, .cls, .fok] {
            #expect(f.place(buy("BTC/USD", "0.001", tif: tif), at: t).message == "invalid crypto time_in_force")
        }
        #expect(
            f.place(buy("BTC/USD", "0.001", .stop, stop: "95000", tif: .gtc), at: t).message
                == "invalid crypto order type stop: crypto orders are market, limit or stop_limit")
        let stopLimit = f.place(
            buy("BTC/USD", "0.001", .stopLimit, limit: "95100", stop: "95000", tif: .gtc), at: t)
        #expect(stopLimit.order?.status == .new)
        var bracket = buy("BTC/USD", "0.001", .limit, limit: "90000", tif: .gtc)
        bracket.orderClass = .bracket
        bracket.takeProfit = .init(limitPrice: d("99000"))
        bracket.stopLoss = .init(stopPrice: d("85000"))
        #expect(f.place(bracket, at: t).message == "bracket orders are not available for crypto: place simple orders")
        var extended = buy("BTC/USD", "0.001", .limit, limit: "90000", tif: .gtc)
        extended.extendedHours = true
        #expect(f.place(extended, at: t).rejection?.reason == .invalidInput)

        // Never short: not on a cash account, not on a margin account.
        for terms in [MarginTerms.cash, .margin] {
            try f.engine.setMarginTerms(terms, for: f.us)
            let short = f.place(sell("BTC/USD", "0.01", tif: .gtc), at: t).rejection
            #expect(short?.reason == .insufficientQty)
            #expect(short?.message == "insufficient balance for BTC (requested: 0.01, available: 0)")
        }
    }

    @Test(
        "a coin's trades pay the crypto fee and none of the stock fees (no FINRA TAF, no SEC fee) on an account that pays them on stocks"
    )
    func noSecuritiesFees() throws {
        var f = Fixture(usCash: 100_000) // the US default schedule: FINRA TAF on every sale
        let btc = f.engine.register(
            .cryptoPair(
                "BTC/USD", name: "Bitcoin", minimumOrder: d("0.0001"), increment: d("0.0001"), priceIncrement: d("1")))
        let t = Fixture.usMorning
        f.quote(btc, bid: "91000", ask: "91001", size: 5, at: t)
        f.quote(f.aapl, bid: "199.99", ask: "200.00", at: t)
        _ = try #require(f.place(buy("BTC/USD", "0.01", tif: .gtc), at: t).order)
        // The purchase paid its taker fee in bitcoin (0.01 × 0.25%); the sale of what is left pays it in dollars, and
        // nothing else: 0.009975 × $91,000 = $907.725 → $907.73, its fee $2.269… → $2.27.
        #expect(f.position(f.us, btc)?.qty == d("0.009975"))
        let sold = try #require(f.place(sell("BTC/USD", "0.009975", tif: .gtc), at: t).order)
        #expect(sold.status == .filled && sold.fees == d("2.27"))
        #expect(f.cash(f.us) == d("100000") - d("910.01") + d("907.73") - d("2.27"))
        // The same account's stock sale still pays the TAF.
        _ = try #require(f.place(buy("AAPL", "100"), at: t).order)
        #expect(try #require(f.place(sell("AAPL", "100"), at: t).order).fees.isPositive)
    }

    @Test("crypto is paid for in full on a margin account: its buying power is the cash, not twice it")
    mutating func notMarginable() throws {
        let t = Fixture.usMorning
        try f.engine.setMarginTerms(.margin, for: f.us)
        f.quote(btc, bid: "91000", ask: "91001", size: 50, at: t)
        f.quote(f.aapl, bid: "199.99", ask: "200.00", size: 10_000, at: t)
        // $150k of Apple would fit the margin account's buying power; $150k of bitcoin does not fit its $100k cash.
        #expect(try #require(f.engine.margin(of: f.us)).buyingPower >= d("150000"))
        let coin = f.place(buy("BTC/USD", "1.6484", tif: .gtc), at: t).rejection
        #expect(coin?.reason == .insufficientBuyingPower)
        // (A limit at the ask: a market buy reserves 3% above it, as for stocks.)
        let fits = f.place(buy("BTC/USD", "1.0988", .limit, limit: "91001", tif: .gtc), at: t)
        #expect(fits.order?.status == .filled, "\(fits.message ?? "")")
    }

    @Test(
        "random fractional trades on many seeds: each fill moves cash by its value in cents, and the ledger agrees exactly",
        arguments: 1...20)
    func reconciles(seed: UInt64) throws {
        var f = Fixture(usCash: 1_000_000, usFees: .free)
        let btc = f.engine.register(
            .cryptoPair(
                "BTC/USD", name: "Bitcoin", minimumOrder: d("0.0001"), increment: d("0.0001"), priceIncrement: d("1")))
        var rng = SeededGenerator(seed: seed)
        var t = Timestamp(CivilDate(2026, 11, 21), in: .utc) // a Saturday
        var spent = FixedDecimal.zero
        for _ in 0..<60 {
            t = t.adding(seconds: Int64(rng.next() % 7_200))
            let mid = FixedDecimal(Int(60_000 + rng.next() % 40_000))
            f.quote(btc, bid: (mid - FixedDecimal(1)).description, ask: mid.description, size: 100, at: t)
            let held = f.position(f.us, btc)?.qty ?? .zero
            let steps = Int(1 + rng.next() % 5_000)
            let qty = d("0.0001").times(steps)
            if rng.next() % 3 == 0, held.isPositive {
                let amount = min(qty, held)
                let order = try #require(f.place(sell("BTC/USD", amount.description, tif: .ioc), at: t).order)
                spent -= order.filledQty.multiplied(by: mid - FixedDecimal(1), places: 2, rule: .halfUp)
            } else {
                let order = try #require(f.place(buy("BTC/USD", qty.description, tif: .gtc), at: t).order)
                spent += order.filledQty.multiplied(by: mid, places: 2, rule: .halfUp)
            }
        }
        #expect(f.cash(f.us) == d("1000000") - spent)
        let replay = LedgerReplay(startingCash: d("1000000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
        #expect((replay.holdings["BTC/USD"]?.qty ?? .zero) == (f.position(f.us, btc)?.qty ?? .zero))
    }
}
