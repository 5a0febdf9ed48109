import Testing
import TradingCore

/// Orders on currency pairs: a dollar account pays one currency and receives the other, holds what it bought as a
/// balance of that currency (its cost and profit in dollars), values it at the pair's price, and never sells a
/// currency it does not hold.
@Suite("Currency pairs: cash in several currencies, exact both ways")
struct ForexTradingTests {
    var f = Fixture(usCash: 100_000)
    let eurusd: InstrumentID
    let usdjpy: InstrumentID
    /// Friday 2026-11-20, 10:00 New York: the forex market is open.
    let t = Fixture.usMorning

    init() {
        eurusd = f.engine.register(Instrument.forexPair("EUR.USD", name: "Euro / US Dollar", tick: d("0.00001"))!)
        usdjpy = f.engine.register(Instrument.forexPair("USD.JPY", name: "US Dollar / Japanese Yen", tick: d("0.001"))!)
    }

    mutating func quotes(eur: (String, String) = ("1.08300", "1.08302"), jpy: (String, String) = ("150.120", "150.123"))
    {
        f.quote(eurusd, bid: eur.0, ask: eur.1, size: 10_000_000, at: t)
        f.quote(usdjpy, bid: jpy.0, ask: jpy.1, size: 10_000_000, at: t)
    }

    func balance(_ currency: Currency) -> CurrencyBalance? { f.engine.account(f.us)!.balances[currency] }

    @Test(
        "buying euros pays dollars at the ask, to the cent; the euros are a balance at their dollar cost, no position")
    mutating func buyEuros() throws {
        quotes()
        let order = try #require(f.place(buy("EUR.USD", "27700", tif: .gtc), at: t).order)
        #expect(order.status == .filled && order.filledAvgPrice == d("1.08302"))
        // 27,700 × 1.08302 = 29,999.654 → $29,999.65 (half up).
        #expect(f.cash(f.us) == d("100000") - d("29999.65"))
        let eur = try #require(balance(.eur))
        #expect(eur.amount == d("27700") && eur.cost == d("29999.65") && eur.reserved == .zero)
        #expect(f.position(f.us, eurusd) == nil)
        // Valued at the mark (the bid: no trade yet): 27,700 × 1.08300 = 29,999.10.
        let account = f.engine.account(f.us)!
        #expect(account.equity(marks: f.engine.mark) == d("100000") - d("29999.65") + d("29999.10"))
        #expect(f.engine.margin(of: f.us)?.foreignCash == d("29999.10"))
        // The ledger entry moves dollars; the fill names the pair, so a replay of the log finds the euros.
        let fill = try #require(
            f.ledger(f.us).compactMap { if case .fill(let fill) = $0.kind { fill } else { nil } }.last)
        #expect(fill.pair == CurrencyPair(base: .eur, quote: .usd) && fill.value == d("29999.65"))
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us) && replay.balances[.eur]?.amount == d("27700"))
        #expect(replay.balances[.eur]?.cost == d("29999.65"))
    }

    @Test("selling the euros back takes the bid: the round trip loses exactly the spread, realized in dollars")
    mutating func roundTrip() throws {
        quotes()
        _ = try #require(f.place(buy("EUR.USD", "27700", tif: .gtc), at: t).order)
        let back = try #require(f.place(sell("EUR.USD", "27700", tif: .gtc), at: t).order)
        #expect(back.status == .filled && back.filledAvgPrice == d("1.08300"))
        // 27,700 × 1.08300 = 29,999.10 back: 0.55 lost, the spread (2 pips × 27,700 = 0.554) to the cent.
        #expect(f.cash(f.us) == d("100000") - d("0.55"))
        #expect(balance(.eur) == nil)
        let fills = f.ledger(f.us).compactMap { if case .fill(let fill) = $0.kind { fill } else { nil } }
        #expect(fills.last?.realizedPnL == d("-0.55"))
    }

    @Test("yen come from selling USD.JPY (dollars out, yen in); a USD.JPY limit buy pays yen when the ask reaches it")
    mutating func yen() throws {
        quotes()
        let sold = try #require(f.place(sell("USD.JPY", "1000", tif: .gtc), at: t).order)
        #expect(sold.status == .filled)
        // 1,000 × 150.120 = ¥150,120 (the yen has no minor unit); the dollars are the quantity.
        #expect(f.cash(f.us) == d("99000") && balance(.jpy)?.amount == d("150120"))
        #expect(balance(.jpy)?.cost == d("1000"))
        let limit = try #require(f.place(buy("USD.JPY", "500", .limit, limit: "149.000", tif: .gtc), at: t).order)
        #expect(limit.status == .new)
        // It holds 500 × 149 = ¥74,500 of the yen: a second purchase beyond what is left is refused.
        #expect(balance(.jpy)?.reserved == d("74500"))
        let tooMuch = f.place(buy("USD.JPY", "600", .limit, limit: "149.000", tif: .gtc), at: t).rejection
        #expect(tooMuch?.reason == .insufficientQty)
        #expect(
            tooMuch?.message
                == "insufficient JPY balance to buy 600 USD.JPY (required: 89400 JPY, available: 75620 JPY)")
        f.quote(usdjpy, bid: "148.990", ask: "148.995", size: 10_000_000, at: t.adding(seconds: 60))
        let filled = try #require(f.engine.order(limit.id))
        #expect(filled.status == .filled && filled.filledAvgPrice == d("148.995"))
        // Paid 500 × 148.995 = ¥74,497.5 → ¥74,498; got $500. Half the yen's $1,000 cost went with them.
        #expect(balance(.jpy)?.amount == d("75622") && balance(.jpy)?.reserved == .zero)
        #expect(f.cash(f.us) == d("99500"))
        let fills = f.ledger(f.us).compactMap { if case .fill(let fill) = $0.kind { fill } else { nil } }
        let released = d("1000").multiplied(by: d("74498")).divided(by: d("150120"), rule: .halfEven)!
        #expect(fills.last?.realizedPnL == d("500") - released)
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.balances[.jpy]?.amount == d("75622") && replay.balances[.jpy]?.cost == balance(.jpy)?.cost)
    }

    @Test("the day's closing equity counts euros at EUR.USD and yen at USD.JPY, as the live account values them")
    mutating func closingEquity() throws {
        quotes()
        _ = try #require(f.place(buy("EUR.USD", "27700", tif: .gtc), at: t).order)
        _ = try #require(f.place(sell("USD.JPY", "1000", tif: .gtc), at: t).order)
        var builder = EquityDayBuilder(accountID: f.us, currency: .usd, openingCash: d("100000"))
        for entry in f.ledger(f.us) { builder.apply(entry) }
        let closes = ["EUR.USD": d("1.09125"), "USD.JPY": d("151.500")]
        let day = builder.close(date: CivilDate(2026, 11, 20), closes: closes)
        let marks: [InstrumentID: Price] = [eurusd: d("1.09125"), usdjpy: d("151.500")]
        let live = f.engine.account(f.us)!.equity(marks: { marks[$0] })
        // 100,000 − 29,999.65 − 1,000 + 27,700 × 1.09125 (30,227.63) + ¥150,120 ÷ 151.5 (990.89).
        #expect(live == d("100000") - d("29999.65") - d("1000") + d("30227.63") + d("990.89"))
        #expect(day.equity == live && day.cash == f.cash(f.us))
    }

    @Test("refused, moving nothing: a currency not held, a yuan account, stops, notionals, sub-cent amounts, a game")
    mutating func refusals() throws {
        quotes()
        let noEuros = f.place(sell("EUR.USD", "100", tif: .gtc), at: t).rejection
        #expect(noEuros?.reason == .insufficientQty)
        #expect(
            noEuros?.message
                == "insufficient EUR balance to sell 100 EUR.USD (required: 100.00 EUR, available: 0.00 EUR)")
        #expect(
            f.place(buy("USD.JPY", "10", tif: .gtc), at: t).rejection?.facts?.sentence == "forex.insufficient_balance")
        let tooManyDollars = f.place(buy("EUR.USD", "100000", tif: .gtc), at: t).rejection
        #expect(tooManyDollars?.reason == .insufficientBuyingPower)
        let yuan = f.place(buy("EUR.USD", "100", tif: .gtc), account: f.cn, at: t).rejection
        #expect(yuan?.reason == .currencyMismatch && yuan?.facts?.sentence == "forex.account_currency")
        #expect(
            f.place(buy("EUR.USD", "100", .stop, stop: "1.09000", tif: .gtc), at: t).rejection?.reason == .invalidInput)
        #expect(f.place(buy("EUR.USD", "100.001", tif: .gtc), at: t).rejection?.reason == .lotSize)
        #expect(f.place(buy("EUR.USD", "100", tif: .fok), at: t).rejection?.reason == .invalidInput)
        #expect(
            f.place(buy("EUR.USD", "100", .limit, limit: "1.083005", tif: .gtc), at: t).rejection?.reason == .offTick)
        var notional = buy("EUR.USD", "1", tif: .gtc)
        (notional.qty, notional.notional) = (nil, d("100"))
        #expect(f.place(notional, at: t).rejection?.reason == .invalidInput)
        let player = AccountID(high: 9, low: 9)
        try f.engine.openAccount(player, market: .us, startingCash: 50_000, gameRules: GameRules())
        let game = f.place(buy("EUR.USD", "100", tif: .gtc), account: player, at: t).rejection
        #expect(game?.reason == .gameRule && game?.facts?.sentence == "game.no_forex")
        var rules = GameRules()
        rules.forex = true
        let other = AccountID(high: 10, low: 10)
        try f.engine.openAccount(other, market: .us, startingCash: 50_000, gameRules: rules)
        #expect(f.place(buy("EUR.USD", "100", tif: .gtc), account: other, at: t).order?.status == .filled)
        #expect(f.cash(f.us) == d("100000") && f.engine.account(f.us)!.balances.isEmpty)
        #expect(f.ledger(f.us).isEmpty)
    }

    @Test("a resting sale holds the euros it sells; canceling it frees them; a reset clears every currency")
    mutating func holdsAndReset() throws {
        quotes()
        _ = try #require(f.place(buy("EUR.USD", "1000", tif: .gtc), at: t).order)
        let resting = try #require(f.place(sell("EUR.USD", "600", .limit, limit: "1.10000", tif: .gtc), at: t).order)
        #expect(balance(.eur)?.reserved == d("600") && balance(.eur)?.available == d("400"))
        #expect(f.place(sell("EUR.USD", "500", tif: .gtc), at: t).rejection?.reason == .insufficientQty)
        _ = try f.engine.cancel(resting.id, account: f.us, at: t)
        #expect(balance(.eur)?.reserved == .zero && balance(.eur)?.available == d("1000"))
        try f.engine.reset(f.us, at: t)
        #expect(f.engine.account(f.us)!.balances.isEmpty && f.cash(f.us) == d("100000"))
        #expect(LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us)).balances.isEmpty)
    }

    @Test("a limit purchase fills at the better ask and lets go of the rest of its hold")
    mutating func betterPrice() throws {
        quotes()
        // A limit buy may hold 90,000 × 1.10 = $99,000; it fills at the ask, $97,471.80, and holds nothing after.
        let order = try #require(f.place(buy("EUR.USD", "90000", .limit, limit: "1.10000", tif: .gtc), at: t).order)
        #expect(order.status == .filled && f.cash(f.us) == d("100000") - d("97471.80"))
        #expect(f.engine.account(f.us)!.reservedCash == .zero && f.engine.account(f.us)!.buyingPower == d("2528.20"))
        _ = try #require(f.place(sell("EUR.USD", "90000", tif: .gtc), at: t).order)
        #expect(balance(.eur) == nil)
    }

    @Test(
        "random conversions both ways on 12 seeds: dollars, euros and yen reconcile with the log to the cent, and a round trip at one quote loses exactly its spreads",
        arguments: 1...12)
    func property(seed: UInt64) throws {
        var f = Fixture(usCash: 1_000_000)
        let eurusd = f.engine.register(Instrument.forexPair("EUR.USD", name: "EUR", tick: d("0.00001"))!)
        let usdjpy = f.engine.register(Instrument.forexPair("USD.JPY", name: "JPY", tick: d("0.001"))!)
        var rng = SeededGenerator(seed: seed)
        var time = Fixture.usMorning
        for _ in 0..<80 {
            time = time.adding(seconds: Int64(1 + rng.next() % 120))
            let eurBid = FixedDecimal(units: Int(100_000 + rng.next() % 20_000), exponent: 5)
            let eurAsk = eurBid + FixedDecimal(units: Int(1 + rng.next() % 5), exponent: 5)
            let jpyBid = FixedDecimal(units: Int(140_000 + rng.next() % 20_000), exponent: 3)
            let jpyAsk = jpyBid + FixedDecimal(units: Int(1 + rng.next() % 10), exponent: 3)
            f.engine.apply(.quote(eurusd, at: time, bid: eurBid, bidSize: 50_000_000, ask: eurAsk, askSize: 50_000_000))
            f.engine.apply(.quote(usdjpy, at: time, bid: jpyBid, bidSize: 50_000_000, ask: jpyAsk, askSize: 50_000_000))
            let account = f.engine.account(f.us)!
            let cents = FixedDecimal(units: Int(1 + rng.next() % 5_000_000), exponent: 2)
            let symbol = rng.next() % 2 == 0 ? "EUR.USD" : "USD.JPY"
            let wantsSell = rng.next() % 2 == 0
            // A sale of a currency held is at most what is held (for EUR.USD, euros; for USD.JPY, dollars).
            let held = symbol == "EUR.USD" ? account.balances[.eur]?.available ?? .zero : account.buyingPower
            let qty = wantsSell ? Swift.min(cents, held.rounded(places: 2, rule: .down)) : cents
            guard qty.isPositive else { continue }
            let request = wantsSell ? sell(symbol, qty.description, tif: .ioc) : buy(symbol, qty.description, tif: .ioc)
            _ = f.place(request, at: time)
            let after = f.engine.account(f.us)!
            #expect(!after.cash.isNegative && after.balances.values.allSatisfy { !$0.amount.isNegative })
        }
        let account = f.engine.account(f.us)!
        let replay = LedgerReplay(startingCash: d("1000000"), entries: f.ledger(f.us))
        #expect(replay.cash == account.cash, "seed \(seed)")
        for (currency, balance) in account.balances {
            #expect(replay.balances[currency]?.amount == balance.amount, "seed \(seed) \(currency)")
            #expect(replay.balances[currency]?.cost == balance.cost, "seed \(seed) \(currency)")
        }
        // Everything converted back at one quote: what was lost since the start is the realized P&L, all of it.
        time = time.adding(seconds: 1)
        f.engine.apply(
            .quote(eurusd, at: time, bid: d("1.08000"), bidSize: 50_000_000, ask: d("1.08002"), askSize: 50_000_000))
        f.engine.apply(
            .quote(usdjpy, at: time, bid: d("150.000"), bidSize: 50_000_000, ask: d("150.004"), askSize: 50_000_000))
        if let eur = account.balances[.eur]?.amount, eur.isPositive {
            _ = f.place(sell("EUR.USD", eur.description, tif: .ioc), at: time)
        }
        if let yen = account.balances[.jpy]?.amount, yen >= FixedDecimal(200) {
            let dollars = yen.divided(by: d("150.004"), places: 2, rule: .down)!
            _ = f.place(buy("USD.JPY", dollars.description, tif: .ioc), at: time)
        }
        let fills = f.ledger(f.us).compactMap { if case .fill(let fill) = $0.kind { fill } else { nil } }
        #expect(fills.count > 30, "seed \(seed): \(fills.count) fills")
        let realized = fills.reduce(FixedDecimal.zero) { $0 + $1.realizedPnL }
        let final = f.engine.account(f.us)!
        let left = final.balances.values.reduce(FixedDecimal.zero) { $0 + $1.cost }
        // Dollars now + the cost of the few yen left = the start + every gain and loss realized.
        #expect(final.cash + left == d("1000000") + realized, "seed \(seed)")
    }
}
