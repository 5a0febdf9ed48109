import Testing
import TradingCore

@Suite("Reg T margin accounts")
struct MarginTests {
    var f = Fixture(usCash: 10_000)
    let t = Fixture.usMorning

    init() throws {
        try f.engine.setMarginTerms(.margin, for: f.us)
    }

    @Test("a margin account buys twice its equity, borrows the difference, and its figures follow the marks")
    mutating func buyingOnMargin() throws {
        f.quote(f.aapl, bid: "49.99", ask: "50.00", at: t)
        let start = try #require(f.engine.margin(of: f.us))
        #expect(start.multiplier == 2) // $10,000: Reg T 2×, not the 4× of $25,000 and more
        #expect(start.regtBuyingPower == d("20000") && start.buyingPower == d("20000"))
        // $15,000 of stock with $10,000: a cash account would refuse it.
        let order = try #require(f.place(buy("AAPL", "300", .limit, limit: "50.00"), at: t).order)
        #expect(order.status == .filled)
        #expect(f.cash(f.us) == d("-5000"))
        f.trade(f.aapl, "50.00", at: t)
        var m = try #require(f.engine.margin(of: f.us))
        #expect(m.longMarketValue == d("15000") && m.equity == d("10000"))
        #expect(m.initialMargin == d("7500") && m.maintenanceMargin == d("4500"))
        #expect(m.regtBuyingPower == d("5000") && m.deficit == .zero) // 2 × (10,000 − 7,500)
        // More than what is left is refused with Alpaca's message.
        let refused = f.place(buy("AAPL", "101", .limit, limit: "50.00"), at: t).rejection
        #expect(refused?.reason == .insufficientBuyingPower)
        #expect(refused?.message == "insufficient buying power (required: 5050.00, available: 5000.00)")
        // The price falls to $20: equity $1,000 against $1,800 maintenance: $800 short.
        f.trade(f.aapl, "20.00", at: t.adding(seconds: 60))
        m = try #require(f.engine.margin(of: f.us))
        #expect(m.equity == d("1000") && m.maintenanceMargin == d("1800") && m.deficit == d("800"))
        #expect(m.multiplier == 1 && m.buyingPower == .zero) // under $2,000 no margin: and cash is negative
        // Cash cannot be withdrawn while it is borrowed.
        #expect(throws: OrderRejection.self) {
            try f.engine.withdraw(d("1"), from: f.us, at: t)
        }
    }

    @Test("stocks under $2.50 are not marginable: their purchases take equity in full")
    mutating func nonMarginable() throws {
        f.quote(f.penny, bid: "2.00", ask: "2.00", size: 10_000, at: t)
        let m = try #require(f.engine.margin(of: f.us))
        #expect(m.nonMarginableBuyingPower == d("10000"))
        #expect(
            f.place(buy("PNNY", "5001", .limit, limit: "2.00"), at: t).rejection?.reason == .insufficientBuyingPower)
        _ = try #require(f.place(buy("PNNY", "5000", .limit, limit: "2.00"), at: t).order)
        f.trade(f.penny, "2.00", at: t)
        let after = try #require(f.engine.margin(of: f.us))
        #expect(after.initialMargin == d("10000") && after.maintenanceMargin == d("10000"))
        #expect(after.regtBuyingPower == .zero)
    }

    @Test("multiplier 1 makes a margin account trade as cash; A-share accounts cannot be margin accounts")
    mutating func multiplierOne() throws {
        try f.engine.setMarginTerms(MarginTerms(type: .margin, maxMultiplier: 1), for: f.us)
        f.quote(f.aapl, bid: "49.99", ask: "50.00", at: t)
        #expect(f.engine.margin(of: f.us)?.buyingPower == d("10000"))
        #expect(
            f.place(buy("AAPL", "201", .limit, limit: "50.00"), at: t).rejection?.reason == .insufficientBuyingPower)
        #expect(throws: OrderRejection.self) { try f.engine.setMarginTerms(.margin, for: f.cn) }
        #expect(throws: OrderRejection.self) {
            try f.engine.setMarginTerms(MarginTerms(type: .margin, maxMultiplier: 3), for: f.us)
        }
    }

    @Test("interest: borrowed cash × rate / 360 per night, three nights over a weekend, once per close")
    mutating func interest() throws {
        f.quote(f.aapl, bid: "49.99", ask: "50.00", at: t)
        _ = try #require(f.place(buy("AAPL", "300", .limit, limit: "50.00"), at: t).order)
        let friday = CivilDate(2026, 11, 20)
        let close = Timestamp(friday, hour: 16, in: .newYork)
        let charged = f.engine.chargeMarginInterest(f.us, close: friday, rate: d("0.07"), at: close)
        let entry = try #require(charged)
        // $5,000 × 7% × 3 nights / 360 = $2.9166… → $2.92
        #expect(entry.cashChange == d("-2.92"))
        #expect(entry.kind == .interest(rate: d("0.07"), balance: d("5000")))
        #expect(f.cash(f.us) == d("-5002.92"))
        let again = f.engine.chargeMarginInterest(f.us, close: friday, rate: d("0.07"), at: close)
        #expect(again == nil)
        // Monday night: one night on the new balance: 5,002.92 × 0.07 / 360 = 0.97279 → 0.97
        let monday = CivilDate(2026, 11, 23)
        let next = f.engine.chargeMarginInterest(
            f.us, close: monday, rate: d("0.07"), at: Timestamp(monday, hour: 16, in: .newYork))
        #expect(next?.cashChange == d("-0.97"))
        // The ledger replays to the same cash.
        let replay = LedgerReplay(startingCash: d("10000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
    }
}
