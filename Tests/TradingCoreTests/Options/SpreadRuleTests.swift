import Testing
import TradingCore

/// The universal spread rule (options.md §6): what written contracts require is the worst their payoff at expiry can
/// be, premiums aside, with long contracts and shares as cover.
@Suite("Universal spread rule")
struct SpreadRuleTests {
    let december = CivilDate(2026, 12, 18)
    let january = CivilDate(2027, 1, 15)

    func leg(_ right: OptionRight, _ strike: String, _ qty: String, expiring date: CivilDate? = nil) -> SpreadRule.Leg {
        let contract = OptionContract(
            underlying: "AAPL", expiration: date ?? december, right: right, strike: d(strike))!
        return SpreadRule.Leg(contract, qty: d(qty))
    }

    func requirement(_ legs: SpreadRule.Leg..., longsCover: Bool = true) -> SpreadRule.Requirement {
        SpreadRule.requirement(of: legs, longsCover: longsCover)
    }

    @Test(
        "Alpaca's examples: a call credit spread requires the difference of the strikes; four calls that cannot lose, nothing"
    )
    func alpacaExamples() {
        #expect(requirement(leg(.call, "190", "-1"), leg(.call, "200", "1")) == .init(cash: d("1000"), shares: .zero))
        let four = requirement(
            leg(.call, "100", "1"), leg(.call, "110", "-1"), leg(.call, "190", "-1"), leg(.call, "200", "1"))
        #expect(four == .none)
    }

    @Test("a put alone is secured by its strike; a long put below it leaves the difference; an iron condor one wing")
    func puts() {
        #expect(requirement(leg(.put, "250", "-2")).cash == d("50000"))
        #expect(requirement(leg(.put, "100", "-1"), leg(.put, "90", "1")).cash == d("1000"))
        // A long put above the written one covers it whole (a debit spread).
        #expect(requirement(leg(.put, "100", "-1"), leg(.put, "110", "1")) == .none)
        let condor = requirement(
            leg(.put, "90", "1"), leg(.put, "100", "-1"), leg(.call, "110", "-1"), leg(.call, "120", "1"))
        #expect(condor == .init(cash: d("1000"), shares: .zero))
        // Below level 3 the long put covers nothing.
        #expect(requirement(leg(.put, "100", "-1"), leg(.put, "90", "1"), longsCover: false).cash == d("10000"))
    }

    @Test("a call no long call covers needs 100 shares a contract; with them it requires no cash")
    func calls() {
        #expect(requirement(leg(.call, "250", "-3")) == .init(cash: .zero, shares: d("300")))
        // A ratio spread: one long call covers one of two written; the other needs shares.
        #expect(requirement(leg(.call, "100", "1"), leg(.call, "110", "-2")) == .init(cash: .zero, shares: d("100")))
        // A short straddle: the call's shares, the put's strike (the shares are worth nothing at zero).
        #expect(
            requirement(leg(.call, "250", "-1"), leg(.put, "250", "-1")) == .init(cash: d("25000"), shares: d("100")))
        #expect(requirement(leg(.call, "250", "5")) == .none)
    }

    @Test("a long contract covers a written one that expires no later than it; never one that outlives it")
    func calendars() {
        // Long January, written December: covered.
        #expect(requirement(leg(.call, "250", "-1"), leg(.call, "250", "1", expiring: january)) == .none)
        #expect(requirement(leg(.put, "250", "-1"), leg(.put, "240", "1", expiring: january)).cash == d("1000"))
        // Written January, long December: once December expires the January contract stands alone.
        #expect(
            requirement(leg(.call, "250", "-1", expiring: january), leg(.call, "250", "1"))
                == .init(cash: .zero, shares: d("100")))
        #expect(requirement(leg(.put, "250", "-1", expiring: january), leg(.put, "260", "1")).cash == d("25000"))
    }

    @Test(
        "the requirement is the worst loss at every price, for random combinations of up to six contracts",
        arguments: 1...8)
    func worstLoss(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            var legs: [SpreadRule.Leg] = []
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let strike = String(Int.random(in: 18...32, using: &rng) * 5)
                var qty = Int.random(in: -3...3, using: &rng)
                if qty == 0 { qty = -1 }
                legs.append(
                    leg(
                        Bool.random(using: &rng) ? .call : .put, strike, String(qty),
                        expiring: Bool.random(using: &rng) ? december : january))
            }
            let found = SpreadRule.requirement(of: legs)
            // At each written contract's expiration, with the shares the rule holds: no price from 0 to 400 in
            // steps of 0.25 loses more than the cash, and some price loses exactly that much.
            var worst = FixedDecimal.zero
            for expiration in Set(legs.filter { $0.qty.isNegative }.map(\.contract.expiration)) {
                let alive = legs.filter { $0.contract.expiration >= expiration }
                var callShares = FixedDecimal.zero
                for leg in alive where leg.contract.right == .call { callShares += leg.qty.times(100) }
                let shares = callShares.isNegative ? callShares.magnitude : .zero
                #expect(found.shares >= shares)
                for step in 0...1600 {
                    let price = FixedDecimal(units: step * 25, exponent: 2)
                    var value = shares.multiplied(by: price)
                    for leg in alive {
                        let intrinsic =
                            leg.contract.right == .call ? price - leg.contract.strike : leg.contract.strike - price
                        if intrinsic.isPositive { value += leg.qty.times(100).multiplied(by: intrinsic) }
                    }
                    worst = FixedDecimal.max(worst, -value)
                }
            }
            #expect(found.cash == worst, "\(legs.map { "\($0.qty) \($0.contract.occSymbol)" })")
        }
    }
}
