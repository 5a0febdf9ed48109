import Testing
import TradingCore

/// Spreads legged into one order at a time (options level 3): a long contract covers a written one of the same
/// underlying, so the written leg needs only the difference of the strikes; the long leg then cannot be sold while it
/// covers, unless shares or cash take its place.
@Suite("Option spreads, one leg at a time")
struct SpreadLeggingTests {
    var f = Fixture()
    let t = Fixture.usMorning
    let december = CivilDate(2026, 12, 18)
    var ids: [String: InstrumentID] = [:]

    init() {
        f.quote(f.aapl, bid: "249.90", ask: "250.00", at: t)
        for (right, strike, bid) in [
            (OptionRight.call, "240", "12.00"), (.call, "250", "5.10"), (.put, "240", "2.00"), (.put, "250", "4.80"),
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

    var account: Account { f.engine.account(f.us)! }

    @Test("a put credit spread sets aside the difference of the strikes, not the written put's strike")
    mutating func putCreditSpread() throws {
        _ = try #require(f.place(buy(symbol(.put, "240"), "2"), at: t).order)
        let resting = try #require(
            f.place(sell(symbol(.put, "250"), "2", .limit, limit: "9.00"), at: t).order)
        // While it works the write holds what it adds: (250 − 240) × 200, and a sale's fee cushion.
        #expect(resting.reservedCash >= d("2000") && resting.reservedCash < d("2100"))
        _ = try f.engine.cancel(resting.id, account: f.us, at: t)
        let written = try #require(f.place(sell(symbol(.put, "250"), "2"), at: t).order)
        #expect(written.status == .filled && written.positionIntent == .sellToOpen)
        #expect(account.optionCollateral == d("2000"))
        #expect(account.buyingPower == f.cash(f.us) - d("2000"))

        // Selling the long puts would leave the written ones secured by cash alone: $48,000 more, which is there.
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
        _ = try #require(f.place(buy("AAPL", "250"), at: t).order)
        // After $62,500 of shares it is not: the sale is refused and says why.
        let refused = f.place(sell(symbol(.put, "240"), "2"), at: t).rejection
        #expect(refused?.reason == .insufficientBuyingPower)
        #expect(
            refused?.message.hasPrefix(
                "2 \(symbol(.put, "240")) cover contracts you wrote: selling them sets aside 48000.00") == true)
        // Buying the written puts back first frees them.
        #expect(f.place(buy(symbol(.put, "250"), "2"), at: t).order?.status == .filled)
        #expect(account.optionCollateral == .zero)
        #expect(f.place(sell(symbol(.put, "240"), "2"), at: t).order?.status == .filled)
    }

    @Test("a call debit spread needs no shares; its long call cannot be sold alone without 100 shares to cover")
    mutating func callDebitSpread() throws {
        _ = try #require(f.place(buy(symbol(.call, "240"), "1"), at: t).order)
        let written = try #require(f.place(sell(symbol(.call, "250"), "1"), at: t).order)
        #expect(written.status == .filled)
        #expect(account.optionCollateral == .zero && account.sharesCoveringCalls("AAPL") == .zero)
        let refused = f.place(sell(symbol(.call, "240"), "1"), at: t).rejection
        #expect(refused?.reason == .insufficientQty)
        #expect(
            refused?.message
                == "1 \(symbol(.call, "240")) cover calls you wrote: selling them needs 100 shares of AAPL to cover the calls instead, and 0 are free; buy the written calls back first"
        )
        // With 100 shares the long call may go: the shares cover the written call from then on.
        _ = try #require(f.place(buy("AAPL", "100"), at: t).order)
        #expect(f.place(sell(symbol(.call, "240"), "1"), at: t).order?.status == .filled)
        #expect(account.sharesCoveringCalls("AAPL") == d("100"))
        #expect(f.place(sell("AAPL", "1"), at: t).rejection?.reason == .insufficientQty)
    }

    @Test("below level 3 a long contract covers nothing: the written call needs shares, the put its strike")
    mutating func belowLevelThree() throws {
        _ = try #require(f.place(buy(symbol(.call, "240"), "1"), at: t).order)
        _ = try #require(f.place(buy(symbol(.put, "240"), "1"), at: t).order)
        var terms = account.terms
        terms.maxOptionsLevel = .longOptions
        try f.engine.setMarginTerms(terms, for: f.us)
        let call = f.place(sell(symbol(.call, "250"), "1"), at: t).rejection
        #expect(call?.reason == .insufficientQty)
        #expect(call?.message.hasPrefix("writing 1 \(symbol(.call, "250")) needs 100 shares of AAPL") == true)
        #expect(call?.message.contains("long AAPL call") == false)
        // The put is written against its full strike (which the cash covers), and the account holds the spread's.
        #expect(f.place(sell(symbol(.put, "250"), "1"), at: t).order?.status == .filled)
        #expect(account.optionCollateral == d("1000"))
    }

    @Test("a sale that would leave a written contract uncovered when it fills is canceled, not filled")
    mutating func uncoveredAtFill() throws {
        _ = try #require(f.place(buy("AAPL", "100"), at: t).order)
        _ = try #require(f.place(buy(symbol(.call, "240"), "1"), at: t).order)
        _ = try #require(f.place(sell(symbol(.call, "250"), "1"), at: t).order)
        // The long call covers the written one, so the shares are free; a resting sale of the long call is accepted
        // while they are there to take its place.
        #expect(account.sharesCoveringCalls("AAPL") == .zero)
        let resting = try #require(f.place(sell(symbol(.call, "240"), "1", .limit, limit: "13.00"), at: t).order)
        #expect(resting.status == .new)
        #expect(f.place(sell("AAPL", "100"), at: t).order?.status == .filled)
        // The bid reaches the limit: filling would leave the written call naked.
        f.quote(ids[symbol(.call, "240")]!, bid: "13.00", ask: "13.10", size: 50, at: t.adding(seconds: 5))
        let after = try #require(f.engine.order(resting.id))
        #expect(after.status == .canceled && after.filledQty == .zero)
        #expect(after.reason?.contains("uncovered") == true)
        #expect(f.position(f.us, ids[symbol(.call, "240")]!)?.qty == d("1"))
    }
}
