import Testing
import TradingCore

/// Multi-leg option orders (Alpaca's `mleg`): the legs fill together at their own quotes when the net is within the
/// limit, hold the net debit and what the written legs add while they work, and end together.
@Suite("Multi-leg option orders")
struct MultiLegOrderTests {
    var f = Fixture()
    let t = Fixture.usMorning
    let december = CivilDate(2026, 12, 18)
    var ids: [String: InstrumentID] = [:]

    init() {
        f.quote(f.aapl, bid: "249.90", ask: "250.00", at: t)
        for (right, strike, bid) in [
            (OptionRight.call, "240", "12.00"), (.call, "250", "5.10"), (.call, "260", "2.00"),
            (.put, "240", "2.00"), (.put, "250", "4.80"),
        ] {
            let contract = OptionContract(underlying: "AAPL", expiration: december, right: right, strike: d(strike))!
            let id = f.engine.register(.usOption(contract, penniesEverywhere: false))
            ids[contract.occSymbol] = id
            f.quote(id, bid: bid, ask: (d(bid) + d("0.10")).description, size: 50, at: t)
        }
    }

    func symbol(_ right: OptionRight, _ strike: String) -> String {
        OptionContract(underlying: "AAPL", expiration: december, right: right, strike: d(strike))!.occSymbol
    }

    func id(_ right: OptionRight, _ strike: String) -> InstrumentID { ids[symbol(right, strike)]! }

    func mleg(
        _ qty: String, _ legs: [(OptionRight, String, OrderSide, Int)], limit: String? = nil,
        tif: TimeInForce = .day
    ) -> OrderRequest {
        var request = OrderRequest(
            symbol: "", side: .buy, type: limit == nil ? .market : .limit, timeInForce: tif, qty: d(qty),
            limitPrice: limit.map(d), orderClass: .mleg)
        request.legs = legs.map { OrderRequest.OptionLeg(symbol: symbol($0.0, $0.1), ratio: $0.3, side: $0.2) }
        return request
    }

    var account: Account { f.engine.account(f.us)! }

    func fees() -> FixedDecimal {
        f.ledger(f.us).reduce(FixedDecimal.zero) { if case .fee = $1.kind { $0 - $1.cashChange } else { $0 } }
    }

    @Test("a call debit spread at market fills both legs at their quotes: the net is what it costs")
    mutating func debitSpread() throws {
        let placed = try #require(
            f.place(mleg("2", [(.call, "240", .buy, 1), (.call, "250", .sell, 1)]), account: f.us, at: t).order)
        #expect(placed.orderClass == .mleg && placed.status == .filled && placed.legs.count == 2)
        // Bought at the 12.10 ask, sold at the 5.10 bid: 7.00 a unit.
        #expect(placed.filledAvgPrice == d("7") && placed.filledQty == d("2"))
        let long = try #require(f.engine.order(placed.legs[0]))
        let short = try #require(f.engine.order(placed.legs[1]))
        #expect(long.status == .filled && long.filledAvgPrice == d("12.10") && long.positionIntent == .buyToOpen)
        #expect(short.status == .filled && short.filledAvgPrice == d("5.10") && short.positionIntent == .sellToOpen)
        #expect(long.parentID == placed.id && long.qty == d("2"))
        #expect(f.position(f.us, id(.call, "240"))?.qty == d("2"))
        #expect(f.position(f.us, id(.call, "250"))?.qty == d("-2"))
        // The long calls cover the written ones: nothing set aside, no shares needed.
        #expect(account.optionCollateral == .zero && account.reservedCash == .zero)
        #expect(f.cash(f.us) == d("100000") - d("1400") - fees())
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
    }

    /// Sets a contract's book: levels of (price, size), best first, the same on both sides a dime apart.
    mutating func book(_ id: InstrumentID, asks: [(String, Int)], bids: [(String, Int)], at time: Timestamp) {
        f.engine.apply(
            MarketEvent(
                instrument: id, time: time,
                kind: .quote(
                    Quote(
                        bids: BookSide(bids.map { (d($0.0), FixedDecimal($0.1)) }),
                        asks: BookSide(asks.map { (d($0.0), FixedDecimal($0.1)) })))))
    }

    @Test("units beyond the best levels' sizes walk the legs' books, each round at its own prices, within the limit")
    mutating func walksTheBooks() throws {
        // The long 240 call shows 1 contract at 12.10, then 2 at 12.15 and 5 at 12.20; the written 250 call's bid
        // is deep.
        book(id(.call, "240"), asks: [("12.10", 1), ("12.15", 2), ("12.20", 5)], bids: [("12.00", 50)], at: t)
        // At market, 4 units: 1 at 12.10, 2 at 12.15, 1 at 12.20 against the 5.10 bid.
        let market = try #require(
            f.place(mleg("4", [(.call, "240", .buy, 1), (.call, "250", .sell, 1)]), account: f.us, at: t).order)
        #expect(market.status == .filled && market.filledQty == d("4"))
        #expect(market.filledAvgPrice == d("7.05")) // (7.00 + 2 × 7.05 + 7.10) / 4
        let long = try #require(f.engine.order(market.legs[0]))
        #expect(long.filledQty == d("4") && long.filledAvgPrice == d("12.15"))
        #expect(f.position(f.us, id(.call, "240"))?.qty == d("4"))
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))

        // A net limit of 7.05 stops the walk before the 12.20 level: 3 of 5 units fill, the rest rests.
        let t2 = t.adding(seconds: 1)
        book(id(.call, "240"), asks: [("12.10", 1), ("12.15", 2), ("12.20", 5)], bids: [("12.00", 50)], at: t2)
        let limited = try #require(
            f.place(
                mleg("5", [(.call, "240", .buy, 1), (.call, "250", .sell, 1)], limit: "7.05"), account: f.us, at: t2
            )
            .order)
        let after = try #require(f.engine.order(limited.id))
        #expect(after.status == .partiallyFilled && after.filledQty == d("3"))
        // Bought 1 at 12.10 and 2 at 12.15: 36.40 for 3 units' long legs, 3 × 5.10 taken in.
        #expect(after.filledValue == d("36.40") - d("15.30"))
        #expect(f.position(f.us, id(.call, "240"))?.qty == d("7") && f.position(f.us, id(.call, "250"))?.qty == d("-7"))
        #expect(account.reservedCash > .zero)
    }

    @Test(
        "a put credit spread at a net credit limit fills when the credit is at least the limit, and sets aside the spread's width"
    )
    mutating func creditSpread() throws {
        // Sold at 4.80, bought at 2.10: a 2.70 credit, at least the 2.50 asked.
        let placed = try #require(
            f.place(mleg("1", [(.put, "250", .sell, 1), (.put, "240", .buy, 1)], limit: "-2.50"), account: f.us, at: t)
                .order)
        #expect(placed.status == .filled && placed.filledAvgPrice == d("-2.7"))
        #expect(account.optionCollateral == d("1000"))
        #expect(f.cash(f.us) == d("100000") + d("270") - fees())
        #expect(account.buyingPower == f.cash(f.us) - d("1000"))
    }

    @Test("a limit beyond the market rests, holds the debit, and fills on the quote that brings the net within it")
    mutating func restsThenFills() throws {
        let placed = try #require(
            f.place(
                mleg("1", [(.call, "240", .buy, 1), (.call, "250", .sell, 1)], limit: "6.50"), account: f.us, at: t
            )
            .order)
        #expect(placed.status == .new)
        let legs = placed.legs.compactMap { f.engine.order($0) }
        #expect(legs.allSatisfy { $0.status == .new } && legs.count == 2)
        // The 650 debit and the legs' fee cushions are held.
        #expect(account.reservedCash >= d("650") && account.reservedCash < d("700"))
        // The long leg's ask falls to 11.50: 11.50 − 5.10 = 6.40.
        f.quote(id(.call, "240"), bid: "11.40", ask: "11.50", size: 50, at: t.adding(seconds: 1))
        let filled = try #require(f.engine.order(placed.id))
        #expect(filled.status == .filled && filled.filledAvgPrice == d("6.4"))
        #expect(account.reservedCash == .zero)
        #expect(f.engine.order(placed.legs[0])?.filledAvgPrice == d("11.50"))
    }

    @Test("units fill as far as every leg's displayed size allows; ratios multiply the contracts")
    mutating func ratioAndSize() throws {
        // A 1×2 call backspread: each unit writes one 250 call and buys two 260 calls. 40 units need 80 of the 260
        // calls; 50 are offered, so 25 units fill now.
        let placed = try #require(
            f.place(mleg("40", [(.call, "250", .sell, 1), (.call, "260", .buy, 2)]), account: f.us, at: t).order)
        #expect(placed.status == .partiallyFilled && placed.filledQty == d("25"))
        // 2 × 2.10 paid, 5.10 taken in: a 0.90 credit a unit.
        #expect(placed.filledAvgPrice == d("-0.9"))
        #expect(f.position(f.us, id(.call, "250"))?.qty == d("-25"))
        #expect(f.position(f.us, id(.call, "260"))?.qty == d("50"))
        // Between the strikes the written calls can lose 10 × 100 a unit before the long ones pay.
        #expect(account.optionCollateral == d("25000") && account.sharesCoveringCalls("AAPL") == .zero)
        // The rest waits, holding its own 15 units' collateral.
        #expect(account.reservedCash >= d("15000") - d("1350"))
        f.quote(id(.call, "260"), bid: "2.00", ask: "2.10", size: 100, at: t.adding(seconds: 1))
        let done = try #require(f.engine.order(placed.id))
        #expect(done.status == .filled && done.filledQty == d("40"))
        #expect(f.position(f.us, id(.call, "260"))?.qty == d("80"))
        #expect(account.optionCollateral == d("40000") && account.reservedCash == .zero)
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
    }

    @Test(
        "replacing a resting package (Alpaca's PATCH) chases the price: same legs, new limit and units, the old parent and legs replaced; refused, it keeps working"
    )
    mutating func replace() throws {
        let placed = try #require(
            f.place(
                mleg("1", [(.call, "240", .buy, 1), (.call, "250", .sell, 1)], limit: "6.50"), account: f.us, at: t
            )
            .order)
        #expect(placed.status == .new)
        // Neither a leg nor a stop price can be replaced, and a debit beyond the cash is refused: the package works on.
        #expect(throws: OrderRejection.self) {
            try f.engine.replace(placed.legs[0], account: f.us, with: ReplaceRequest(limitPrice: d("7")), at: t)
        }
        #expect(throws: OrderRejection.self) {
            try f.engine.replace(placed.id, account: f.us, with: ReplaceRequest(stopPrice: d("7")), at: t)
        }
        #expect(throws: OrderRejection.self) {
            try f.engine.replace(placed.id, account: f.us, with: ReplaceRequest(qty: d("1000")), at: t)
        }
        #expect(f.engine.order(placed.id)?.status == .new)
        #expect(account.reservedCash >= d("650") && account.reservedCash < d("700"))

        // Two units at 7.00: the net is 12.10 − 5.10 = 7.00, so it fills at once.
        let replacement = try f.engine.replace(
            placed.id, account: f.us, with: ReplaceRequest(qty: d("2"), limitPrice: d("7")), at: t.adding(seconds: 1))
        #expect(replacement.replaces == placed.id && replacement.orderClass == .mleg && replacement.legs.count == 2)
        #expect(
            replacement.status == .filled && replacement.filledQty == d("2") && replacement.filledAvgPrice == d("7"))
        let old = try #require(f.engine.order(placed.id))
        #expect(old.status == .replaced && old.replacedBy == replacement.id)
        #expect(placed.legs.allSatisfy { f.engine.order($0)?.status == .replaced })
        let legs = replacement.legs.compactMap { f.engine.order($0) }
        #expect(legs.map(\.symbol) == [symbol(.call, "240"), symbol(.call, "250")])
        #expect(legs.map(\.side) == [.buy, .sell] && legs.allSatisfy { $0.qty == d("2") })
        #expect(f.position(f.us, id(.call, "240"))?.qty == d("2") && f.position(f.us, id(.call, "250"))?.qty == d("-2"))
        #expect(account.reservedCash == .zero && f.engine.openOrders(of: f.us).isEmpty)
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
    }

    @Test("canceling the package, or any leg, ends it whole and frees what it held")
    mutating func cancel() throws {
        let placed = try #require(
            f.place(
                mleg("1", [(.call, "240", .buy, 1), (.call, "250", .sell, 1)], limit: "1.00"), account: f.us, at: t
            )
            .order)
        _ = try f.engine.cancel(placed.legs[1], account: f.us, at: t)
        #expect(f.engine.order(placed.id)?.status == .canceled)
        #expect(placed.legs.allSatisfy { f.engine.order($0)?.status == .canceled })
        #expect(account.reservedCash == .zero)
        #expect(f.engine.openOrders(of: f.us).isEmpty)
    }

    @Test("Alpaca's rules refuse a package with a reason", arguments: 0..<7)
    mutating func refusals(_ k: Int) throws {
        let cases: [(OrderRequest, String)] = [
            (mleg("1", [(.call, "240", .buy, 1)]), "a multi-leg order has 2 to 4 legs; this one has 1"),
            (mleg("1", [(.call, "240", .buy, 1), (.call, "240", .sell, 1)]), "appears twice"),
            (mleg("1", [(.call, "240", .buy, 2), (.call, "250", .sell, 4)]), "ratio_qty must be in lowest terms (2:4"),
            (
                mleg("1", [(.call, "250", .sell, 2), (.call, "240", .buy, 1)]),
                "need 100 shares of AAPL, and 0 are free"
            ),
            (mleg("1.5", [(.call, "240", .buy, 1), (.call, "250", .sell, 1)]), "whole number of strategy units"),
            (mleg("1", [(.call, "240", .buy, 1), (.call, "250", .sell, 1)], tif: .ioc), "time_in_force day or gtc"),
            (mleg("1", [(.put, "240", .sell, 1), (.put, "250", .sell, 1)], limit: "-1.00"), "options buying power is"),
        ]
        if k == 6 { _ = try #require(f.place(buy("AAPL", "380"), account: f.us, at: t).order) }
        let (request, words) = cases[k]
        let refused = f.place(request, account: f.us, at: t).rejection
        #expect(refused?.message.contains(words) == true, "\(refused?.message ?? "placed")")
        #expect(f.engine.openOrders(of: f.us).isEmpty && account.reservedCash == .zero)
    }

    @Test("multi-leg orders need options level 3")
    mutating func level() throws {
        var terms = account.terms
        terms.maxOptionsLevel = .longOptions
        try f.engine.setMarginTerms(terms, for: f.us)
        let refused = f.place(mleg("1", [(.call, "240", .buy, 1), (.call, "250", .sell, 1)]), account: f.us, at: t)
        #expect(refused.rejection?.reason == .optionsLevel)
    }
}
