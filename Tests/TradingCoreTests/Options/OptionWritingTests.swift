import Testing
import TradingCore

/// Writing options, Alpaca's level 1: a call sold to open is covered by 100 shares a contract, which cannot be sold
/// while it is open; a put sold to open is secured by its strike × 100 in cash, which buying power leaves out until
/// it is bought back, expires or is assigned. Nothing uncovered is written.
@Suite("Option writing: covered calls and cash-secured puts")
struct OptionWritingTests {
    var f = Fixture()
    let t = Fixture.usMorning
    /// AAPL 2026-12-18 250 call and put.
    let call = OptionContract(
        underlying: "AAPL", expiration: CivilDate(2026, 12, 18), right: .call, strike: FixedDecimal(250))!
    let put = OptionContract(
        underlying: "AAPL", expiration: CivilDate(2026, 12, 18), right: .put, strike: FixedDecimal(250))!
    let callID: InstrumentID
    let putID: InstrumentID

    init() {
        callID = f.engine.register(.usOption(call, penniesEverywhere: false))
        putID = f.engine.register(.usOption(put, penniesEverywhere: false))
        f.quote(f.aapl, bid: "249.90", ask: "250.00", at: t)
        f.quote(callID, bid: "5.10", ask: "5.20", size: 50, at: t)
        f.quote(putID, bid: "4.80", ask: "4.90", size: 50, at: t)
    }

    func fees(_ account: AccountID) -> FixedDecimal {
        f.ledger(account).reduce(FixedDecimal.zero) { if case .fee = $1.kind { $0 - $1.cashChange } else { $0 } }
    }

    var account: Account { f.engine.account(f.us)! }

    @Test("a covered call takes in the premium, and its shares cannot be sold until it is bought back")
    mutating func coveredCall() throws {
        _ = try #require(f.place(buy("AAPL", "200"), at: t).order)
        let written = try #require(f.place(sell(call.occSymbol, "2"), at: t).order)
        #expect(written.status == .filled && written.filledAvgPrice == d("5.10"))
        #expect(written.positionIntent == .sellToOpen)
        let short = try #require(f.position(f.us, callID))
        #expect(short.qty == d("-2") && short.costBasis == d("-1020") && short.averageEntryPrice == d("5.10"))
        #expect(f.cash(f.us) == d("100000") - d("50000") + d("1020") - fees(f.us))
        // Equity counts what buying the calls back would cost.
        let marks: (InstrumentID) -> Price? = { $0 == self.callID ? d("6.00") : d("250") }
        #expect(account.equity(marks: marks) == f.cash(f.us) + d("50000") - d("1200"))
        #expect(account.optionCollateral == .zero)

        // The 200 shares cover the two calls: none can be sold, and no third call can be written.
        let sale = f.place(sell("AAPL", "1"), at: t).rejection
        #expect(sale?.reason == .insufficientQty)
        #expect(
            sale?.message
                == "200 of your AAPL shares cover calls you wrote and cannot be sold while the calls are open (buy them back first); available: 0"
        )
        let third = f.place(sell(call.occSymbol, "1"), at: t).rejection
        #expect(
            third?.message.hasPrefix("writing 1 \(call.occSymbol) needs 100 shares of AAPL to cover it; 0 are free")
                == true)

        // Bought back at the ask: the position closes, P&L (5.10 − 5.20) × 200, and the shares are free again.
        let back = try #require(f.place(buy(call.occSymbol, "2"), at: t).order)
        #expect(back.status == .filled && back.positionIntent == .buyToClose)
        #expect(f.position(f.us, callID) == nil)
        let fills = f.ledger(f.us).compactMap { if case .fill(let fill) = $0.kind { fill } else { nil } }
        #expect(fills.last?.realizedPnL == d("-20"))
        #expect(f.place(sell("AAPL", "200"), at: t).order?.status == .filled)

        // The ledger's fold agrees with the live account.
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us) && replay.holdings[call.occSymbol]?.qty == .zero)
    }

    @Test("an unfilled call write holds its shares as a sell order does, and lets them go when canceled")
    mutating func restingCallWrite() throws {
        _ = try #require(f.place(buy("AAPL", "150"), at: t).order)
        let resting = try #require(f.place(sell(call.occSymbol, "1", .limit, limit: "6.00"), at: t).order)
        #expect(resting.status == .new)
        #expect(f.position(f.us, f.aapl)?.reservedForSale == d("100"))
        #expect(f.place(sell("AAPL", "51"), at: t).rejection?.reason == .insufficientQty)
        #expect(f.place(sell(call.occSymbol, "1"), at: t).rejection?.message.contains("50 are free") == true)
        _ = try f.engine.cancel(resting.id, account: f.us, at: t)
        #expect(f.position(f.us, f.aapl)?.reservedForSale == .zero)
        #expect(f.place(sell("AAPL", "150"), at: t).order?.status == .filled)
    }

    @Test("a cash-secured put sets its strike × 100 aside until it is bought back; no more without the cash")
    mutating func cashSecuredPut() throws {
        let resting = try #require(f.place(sell(put.occSymbol, "3", .limit, limit: "9.00"), at: t).order)
        // While it works, the order holds the collateral (and a sale's fee cushion) as a buy holds its cost.
        #expect(resting.reservedCash >= d("75000"))
        _ = try f.engine.cancel(resting.id, account: f.us, at: t)
        #expect(account.reservedCash == .zero)

        let written = try #require(f.place(sell(put.occSymbol, "3"), at: t).order)
        #expect(written.status == .filled && written.filledAvgPrice == d("4.80"))
        #expect(account.optionCollateral == d("75000"))
        #expect(account.buyingPower == f.cash(f.us) - d("75000"))
        #expect(f.cash(f.us) == d("100000") + d("1440") - fees(f.us))
        // About $26,440 is free: one more put's $25,000, not two more.
        let refused = f.place(sell(put.occSymbol, "2"), at: t).rejection
        #expect(refused?.reason == .insufficientBuyingPower)
        #expect(refused?.message.contains("sets aside 50000.") == true)
        // Buying a stock can only spend what the puts do not secure.
        #expect(f.place(buy("AAPL", "120"), at: t).rejection?.reason == .insufficientBuyingPower)

        // Buying one back releases its share of the collateral; the cost is paid from it if need be.
        let back = try #require(f.place(buy(put.occSymbol, "1"), at: t).order)
        #expect(back.status == .filled && back.positionIntent == .buyToClose)
        #expect(f.position(f.us, putID)?.qty == d("-2") && account.optionCollateral == d("50000"))
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us) && replay.holdings[put.occSymbol]?.qty == d("-2"))
        #expect(replay.holdings[put.occSymbol]?.costBasis == f.position(f.us, putID)?.costBasis)

        // A reset closes the puts out: nothing is set aside any more.
        try f.engine.reset(f.us, at: t)
        #expect(account.optionCollateral == .zero && account.buyingPower == d("100000"))
    }

    @Test("writing needs options level 1; a level-0 account writes nothing")
    mutating func level() throws {
        _ = try #require(f.place(buy("AAPL", "100"), at: t).order)
        var terms = account.terms
        terms.maxOptionsLevel = .disabled
        try f.engine.setMarginTerms(terms, for: f.us)
        let refused = f.place(sell(call.occSymbol, "1"), at: t).rejection
        #expect(refused?.reason == .optionsLevel)
        #expect(
            refused?.message.hasPrefix("writing covered calls and cash-secured puts needs options trading level 1")
                == true)
        terms.maxOptionsLevel = .coveredWriting
        try f.engine.setMarginTerms(terms, for: f.us)
        #expect(f.place(sell(call.occSymbol, "1"), at: t).order?.status == .filled)
        #expect(f.place(sell(put.occSymbol, "1"), at: t).order?.status == .filled)
    }

    @Test("on margin a written contract requires nothing beyond its cover: the shares' requirement, the put's cash")
    mutating func margin() throws {
        try f.engine.setMarginTerms(.margin, for: f.us)
        _ = try #require(f.place(buy("AAPL", "100"), at: t).order)
        _ = try #require(f.place(sell(call.occSymbol, "1"), at: t).order)
        _ = try #require(f.place(sell(put.occSymbol, "1"), at: t).order)
        f.trade(f.aapl, "250.00", at: t)
        f.trade(callID, "5.15", at: t)
        f.trade(putID, "4.85", at: t)
        let m = try #require(f.engine.margin(of: f.us))
        #expect(m.initialMargin == d("12500") && m.maintenanceMargin == d("7500"))
        #expect(m.shortMarketValue == d("-1000"))
        #expect(m.equity == f.cash(f.us) + d("25000") - d("1000"))
        // The put's $25,000 is out of every figure that spends.
        #expect(m.nonMarginableBuyingPower == m.equity - d("12500") - d("25000"))
    }

    @Test("at expiry a written call in the money is assigned: its shares are sold at the strike, the premium kept")
    mutating func callAssignment() throws {
        _ = try #require(f.place(buy("AAPL", "100"), at: t).order)
        _ = try #require(f.place(sell(call.occSymbol, "1"), at: t).order)
        let cash = f.cash(f.us)
        let entries = try f.engine.settleOption(
            f.us, option: callID, underlying: f.aapl, exercise: true, settlementPrice: d("262.50"), at: t)
        guard case .optionEvent(let event) = entries.first?.kind,
            case .optionDelivery(let delivery) = entries.last?.kind
        else {
            Issue.record("no assignment: \(entries)")
            return
        }
        #expect(event.kind == .assignment && event.qty == d("1") && event.realizedPnL == .zero)
        #expect(delivery.side == .sell && delivery.qty == d("100") && delivery.price == d("250"))
        // Bought at 250.00, sold at the strike 250 plus the 5.10 premium: 510 realized.
        #expect(delivery.realizedPnL == d("510"))
        #expect(f.cash(f.us) == cash + d("25000"))
        #expect(f.position(f.us, f.aapl) == nil && f.position(f.us, callID) == nil)
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us) && replay.holdings["AAPL"]?.qty == .zero)
    }

    @Test("a written put in the money is assigned with the cash that secured it; out of the money it expires, kept")
    mutating func putSettlement() throws {
        _ = try #require(f.place(sell(put.occSymbol, "2"), at: t).order)
        let cash = f.cash(f.us)
        try f.engine.settleOption(
            f.us, option: putID, underlying: f.aapl, exercise: true, settlementPrice: d("240"), at: t)
        let shares = try #require(f.position(f.us, f.aapl))
        // 200 shares at the strike, less the 9.60 × 100 premium: an average cost of 245.20.
        #expect(shares.qty == d("200") && shares.costBasis == d("49040") && shares.averageEntryPrice == d("245.20"))
        #expect(f.cash(f.us) == cash - d("50000") && account.optionCollateral == .zero)

        _ = try #require(f.place(sell(put.occSymbol, "1"), at: t).order)
        let before = f.cash(f.us)
        let expired = try f.engine.settleOption(
            f.us, option: putID, underlying: f.aapl, exercise: false, settlementPrice: d("255"), at: t)
        guard case .optionEvent(let event) = expired.first?.kind else {
            Issue.record("no expiry: \(expired)")
            return
        }
        #expect(event.kind == .expiry && event.qty == d("1") && event.realizedPnL == d("480"))
        #expect(f.cash(f.us) == before && account.optionCollateral == .zero && f.position(f.us, putID) == nil)
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us) && replay.holdings["AAPL"]?.costBasis == d("49040"))
        #expect(replay.holdings[put.occSymbol]?.qty == .zero)
    }

    @Test(
        "contracts a reverse split leaves delivering cash only settle at their value: the holder paid, the writer paying, an out-of-the-money one for nothing, the collateral freed"
    )
    mutating func cashDeliverable() throws {
        // AAPL1 contracts delivering 5 shares (after a 1:20 reverse split) that a second 1:20 split leaves a quarter of
        // a share: paid as cash in lieu, 262.40 a contract at 1,049.60 a new share.
        let adjustedCall = try #require(call.adjusted(root: "AAPL1", deliverable: 5))
        let adjustedPut = try #require(put.adjusted(root: "AAPL1", deliverable: 5))
        let callID = f.engine.register(.usOption(adjustedCall, penniesEverywhere: false))
        let putID = f.engine.register(.usOption(adjustedPut, penniesEverywhere: false))
        f.quote(callID, bid: "0.10", ask: "0.15", size: 50, at: t)
        f.quote(putID, bid: "2.50", ask: "2.60", size: 50, at: t)
        _ = try #require(f.place(buy(adjustedCall.occSymbol, "3"), at: t).order)
        // Two written puts (their strike × 100 set aside) and a resting order to write another.
        _ = try #require(f.place(sell(adjustedPut.occSymbol, "2"), at: t).order)
        var resting = sell(adjustedPut.occSymbol, "1")
        resting.type = .limit
        resting.limitPrice = d("9")
        let waiting = try #require(f.place(resting, at: t).order)
        #expect(waiting.status == .new && account.optionCollateral == d("50000"))
        let cash = f.cash(f.us)
        let cashPerContract = d("262.40")

        // The put is worth 250 × 100 − 262.40 = 24,737.60 a contract: the writer pays it for two.
        let putSettled = f.engine.settleOptionInCash(
            f.us, option: putID, cashPerContract: cashPerContract, underlyingPrice: d("1049.60"), at: t)
        let putEntry = try #require(putSettled)
        guard case .optionEvent(let written) = putEntry.kind else {
            Issue.record("no option event: \(putEntry)")
            return
        }
        #expect(written.kind == .cashDeliverable && written.qty == d("2") && written.cash == d("-49475.20"))
        #expect(putEntry.cashChange == d("-49475.20"))
        // The premium taken (2 × 250) is kept against what was paid.
        #expect(written.realizedPnL == d("-49475.20") + d("500"))
        #expect(f.engine.order(waiting.id)?.status == .canceled)
        #expect(f.position(f.us, putID) == nil && account.optionCollateral == .zero)

        // The call (cash 262.40 against a 25,000 strike) is worth nothing: the holder loses the premium.
        let callSettled = f.engine.settleOptionInCash(
            f.us, option: callID, cashPerContract: cashPerContract, underlyingPrice: d("1049.60"), at: t)
        let callEntry = try #require(callSettled)
        guard case .optionEvent(let held) = callEntry.kind else { return }
        #expect(held.qty == d("-3") && held.cash == .zero && callEntry.cashChange == .zero)
        #expect(held.realizedPnL == d("-45"))
        #expect(f.position(f.us, callID) == nil)
        #expect(f.cash(f.us) == cash - d("49475.20"))
        // Nothing more to settle.
        let again = f.engine.settleOptionInCash(
            f.us, option: callID, cashPerContract: cashPerContract, underlyingPrice: nil, at: t)
        #expect(again == nil)
        let replay = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
        #expect(replay.holdings[adjustedPut.occSymbol]?.qty == .zero)

        // A holder in the money is paid: a 2.00 call (an aggregate strike of 200) against 262.40 of cash.
        let low = try #require(
            OptionContract(underlying: "AAPL", expiration: call.expiration, right: .call, strike: d("2"))?
                .adjusted(root: "AAPL1", deliverable: 5))
        let lowID = f.engine.register(.usOption(low, penniesEverywhere: false))
        f.quote(lowID, bid: "0.55", ask: "0.60", size: 50, at: t)
        _ = try #require(f.place(buy(low.occSymbol, "4"), at: t).order)
        let before = f.cash(f.us)
        let settled = f.engine.settleOptionInCash(
            f.us, option: lowID, cashPerContract: cashPerContract, underlyingPrice: d("1049.60"), at: t)
        let paid = try #require(settled)
        #expect(paid.cashChange == d("249.60") && f.cash(f.us) == before + d("249.60"))
        guard case .optionEvent(let exercised) = paid.kind else { return }
        // 4 × 62.40 paid for 4 × 60 of premium.
        #expect(exercised.realizedPnL == d("9.60"))
        let after = LedgerReplay(startingCash: d("100000"), entries: f.ledger(f.us))
        #expect(after.cash == f.cash(f.us) && after.holdings[low.occSymbol]?.qty == .zero)
    }
}
