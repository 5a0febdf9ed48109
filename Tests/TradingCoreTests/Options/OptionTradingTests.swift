import Foundation
import Testing
import TradingCore

/// Options on the engine: a contract is an instrument whose quantities are contracts and whose prices are premiums
/// per share, so every value — cash, cost basis, market value, margin, fees — is price × qty × 100.
@Suite("Option trading on the engine")
struct OptionTradingTests {
    var f = Fixture()
    let t = Fixture.usMorning
    /// AAPL 2026-12-18 250 call (Penny Program: cents below $3, nickels from $3).
    let call = OptionContract(
        underlying: "AAPL", expiration: CivilDate(2026, 12, 18), right: .call, strike: FixedDecimal(250))!
    let callID: InstrumentID
    /// SPY quotes in pennies at every price.
    let spyPut = OptionContract(
        underlying: "SPY", expiration: CivilDate(2026, 12, 18), right: .put, strike: FixedDecimal(600))!
    let spyPutID: InstrumentID

    init() {
        callID = f.engine.register(.usOption(call, penniesEverywhere: false))
        spyPutID = f.engine.register(.usOption(spyPut, penniesEverywhere: true))
    }

    @Test("a bought call costs the ask × 100 per contract; selling it at the bid realizes the difference × 100")
    mutating func premiumTimesMultiplier() throws {
        f.quote(callID, bid: "5.10", ask: "5.20", size: 50, at: t)
        let order = try #require(f.place(buy(call.occSymbol, "3"), at: t).order)
        #expect(order.status == .filled && order.filledAvgPrice == d("5.20"))
        #expect(f.cash(f.us) == d("100000") - d("1560")) // 3 × 5.20 × 100
        let position = try #require(f.position(f.us, callID))
        #expect(position.qty == d("3") && position.multiplier == 100)
        #expect(position.costBasis == d("1560") && position.averageEntryPrice == d("5.20"))
        let valued = position.valuation(at: d("5.50"), previousClose: d("5.00"))
        #expect(valued.marketValue == d("1650") && valued.unrealizedPnL == d("90") && valued.dayChange == d("150"))
        #expect(f.engine.account(f.us)!.equity(marks: { _ in d("5.50") }) == d("98440") + d("1650"))

        f.quote(callID, bid: "6.00", ask: "6.10", size: 50, at: t.adding(seconds: 60))
        let sold = try #require(f.place(sell(call.occSymbol, "3"), at: t.adding(seconds: 60)).order)
        #expect(sold.status == .filled && sold.filledAvgPrice == d("6.00"))
        let fills = f.ledger(f.us).compactMap { if case .fill(let fill) = $0.kind { fill } else { nil } }
        #expect(fills.map(\.value) == [d("1560"), d("1800")] && fills.allSatisfy { $0.multiplier == 100 })
        #expect(fills.last?.realizedPnL == d("240"))
        // FINRA's TAF is per unit sold (3 contracts here); the SEC fee's rate is zero.
        let fees = f.ledger(f.us).filter { if case .fee = $0.kind { true } else { false } }
        let paid = fees.reduce(FixedDecimal.zero) { $0 - $1.cashChange }
        #expect(f.cash(f.us) == d("100000") + d("240") - paid)
        #expect(f.position(f.us, callID) == nil)
        // The ledger's fold agrees with the live account, cash and holdings alike.
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
        #expect(replay.holdings[call.occSymbol]?.qty == .zero)
    }

    @Test("a partly closed option position releases cost basis per contract, as the ledger replay does")
    mutating func partialClose() throws {
        f.quote(callID, bid: "2.45", ask: "2.47", size: 50, at: t)
        _ = try #require(f.place(buy(call.occSymbol, "4"), at: t).order)
        f.quote(callID, bid: "2.90", ask: "2.95", size: 50, at: t.adding(seconds: 1))
        _ = try #require(f.place(sell(call.occSymbol, "1"), at: t.adding(seconds: 1)).order)
        let position = try #require(f.position(f.us, callID))
        #expect(position.qty == d("3") && position.costBasis == d("741") && position.averageEntryPrice == d("2.47"))
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.holdings[call.occSymbol]?.costBasis == position.costBasis)
        #expect(replay.cash == f.cash(f.us))
        // The equity history values the holding as contracts: 3 × 2.90 × 100.
        var history = EquityDayBuilder(accountID: f.us, currency: .usd, openingCash: d("100000"))
        for entry in f.ledger(f.us) { history.apply(entry) }
        let day = history.close(date: CivilDate(2026, 11, 20), closes: [call.occSymbol: d("2.90")])
        #expect(day.positionsValue == d("870") && day.equity == f.cash(f.us) + d("870"))
    }

    @Test("premiums move on the Penny Program's grid: nickels from $3 except in the penny-everywhere classes")
    mutating func ticks() {
        f.quote(callID, bid: "3.00", ask: "3.10", at: t)
        #expect(f.place(buy(call.occSymbol, "1", .limit, limit: "3.02"), at: t).rejection?.reason == .offTick)
        #expect(f.place(buy(call.occSymbol, "1", .limit, limit: "2.99"), at: t).order != nil)
        f.quote(spyPutID, bid: "7.01", ask: "7.03", at: t)
        #expect(f.place(buy(spyPut.occSymbol, "1", .limit, limit: "7.02"), at: t).order != nil)
    }

    @Test("a limit buy reserves its premium × 100 until it is canceled")
    mutating func reservation() throws {
        f.quote(callID, bid: "1.00", ask: "1.05", at: t)
        let order = try #require(f.place(buy(call.occSymbol, "2", .limit, limit: "0.50"), at: t).order)
        #expect(f.engine.account(f.us)!.reservedCash == d("100"))
        _ = try f.engine.cancel(order.id, account: f.us, at: t)
        #expect(f.engine.account(f.us)!.reservedCash == .zero)
    }

    @Test("an order for more contracts than the cash pays for is refused, at the premium × 100")
    mutating func buyingPower() {
        f.quote(callID, bid: "9.90", ask: "10.00", size: 1000, at: t)
        let refused = f.place(buy(call.occSymbol, "101", .limit, limit: "10.00"), at: t).rejection
        #expect(refused?.reason == .insufficientBuyingPower)
        #expect(refused?.message == "insufficient buying power (required: 101000.00, available: 100000.00)")
        #expect(f.place(buy(call.occSymbol, "100", .limit, limit: "10.00"), at: t).order?.status == .filled)
    }

    @Test("on margin an option is paid for in full: no loan value, and it counts in full toward both requirements")
    mutating func margin() throws {
        try f.engine.setMarginTerms(.margin, for: f.us)
        f.quote(callID, bid: "9.90", ask: "10.00", size: 1000, at: t)
        // $100,000 of equity buys $400,000 of stock on 4×, but only $100,000 of options.
        #expect(
            f.place(buy(call.occSymbol, "101", .limit, limit: "10.00"), at: t).rejection?.reason
                == .insufficientBuyingPower)
        _ = try #require(f.place(buy(call.occSymbol, "50", .limit, limit: "10.00"), at: t).order)
        f.trade(callID, "10.00", at: t)
        let m = try #require(f.engine.margin(of: f.us))
        #expect(m.longMarketValue == d("50000"))
        #expect(m.initialMargin == d("50000") && m.maintenanceMargin == d("50000"))
    }

    @Test(
        "Alpaca's option order rules refuse with a reason",
        arguments: [
            (
                OrderRequest(symbol: "X", side: .buy, notional: d("100")),
                "notional orders are not available for options: give qty in whole contracts"
            ),
            (OrderRequest(symbol: "X", side: .buy, qty: d("1.5")), "qty 1.5 must be a whole number of contracts"),
            (
                OrderRequest(symbol: "X", side: .buy, type: .trailingStop, qty: d("1"), trailPercent: d("5")),
                "trailing_stop orders are not available for options"
            ),
            (
                OrderRequest(symbol: "X", side: .buy, timeInForce: .ioc, qty: d("1")),
                "options orders must have time_in_force day or gtc, not ioc"
            ),
            (
                OrderRequest(
                    symbol: "X", side: .buy, type: .limit, qty: d("1"), limitPrice: d("1"), extendedHours: true),
                "options trade in regular hours only"
            ),
            (
                OrderRequest(
                    symbol: "X", side: .buy, type: .limit, qty: d("1"), limitPrice: d("1"), orderClass: .bracket,
                    takeProfit: .init(limitPrice: d("2")), stopLoss: .init(stopPrice: d("0.5"))),
                "bracket orders are not available for options"
            ),
            (
                OrderRequest(symbol: "X", side: .sell, qty: d("1"), positionIntent: .sellToClose),
                "position_intent sell_to_close does not match the position: you hold 0 contracts"
            ),
            (
                OrderRequest(symbol: "X", side: .sell, qty: d("1")),
                "writing 1 AAPL261218C00250000 needs 100 shares of AAPL to cover it; 0 are free"
            ),
        ])
    mutating func rules(request: OrderRequest, words: String) {
        f.quote(callID, bid: "1.00", ask: "1.05", at: t)
        var request = request
        request.symbol = call.occSymbol
        let refused = f.place(request, at: t).rejection
        #expect(refused?.message.contains(words) == true, "\(refused?.message ?? "placed")")
    }

    @Test("the options level an account allows itself: buying needs level 2; closing is always allowed")
    mutating func levels() throws {
        f.quote(callID, bid: "1.00", ask: "1.05", at: t)
        _ = try #require(f.place(buy(call.occSymbol, "2"), at: t).order)
        var terms = f.engine.account(f.us)!.terms
        terms.maxOptionsLevel = .coveredWriting
        try f.engine.setMarginTerms(terms, for: f.us)
        #expect(f.engine.account(f.us)!.optionsTradingLevel == .coveredWriting)
        let refused = f.place(buy(call.occSymbol, "1"), at: t).rejection
        #expect(refused?.reason == .optionsLevel)
        #expect(refused?.message == "buying options needs options trading level 2; this account's level is 1")
        #expect(f.place(sell(call.occSymbol, "2"), at: t).order?.status == .filled)
        // An A-share account is approved for no options at all (and holds yuan besides).
        #expect(f.engine.account(f.cn)!.optionsApprovedLevel == .disabled)
        #expect(f.place(buy(call.occSymbol, "1"), account: f.cn, at: t).rejection?.reason == .currencyMismatch)
    }

    @Test("a contract past its expiration is refused as no longer trading")
    mutating func expired() {
        let old = OptionContract(
            underlying: "AAPL", expiration: CivilDate(2026, 11, 13), right: .call, strike: FixedDecimal(250))!
        let id = f.engine.register(.usOption(old, penniesEverywhere: false))
        f.quote(id, bid: "1.00", ask: "1.05", at: t)
        let refused = f.place(buy(old.occSymbol, "1"), at: t).message
        #expect(refused == "\(old.occSymbol) expired on 2026-11-13 and no longer trades")
    }

    @Test("stored terms from before options levels decode with spreads allowed")
    func termsDecode() throws {
        let text = #"{"type":"margin","maxMultiplier":4,"noShorting":false}"#
        let terms = try JSONDecoder().decode(MarginTerms.self, from: Data(text.utf8))
        #expect(terms.maxOptionsLevel == .spreads)
    }
}
