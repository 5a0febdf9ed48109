import PropertyBased
import Testing
import TradingCore

/// Hand-computed cases for every performance figure (../shared/reference/analytics.md), then properties.
@Suite("Performance figures")
struct PerformanceMetricsTests {
    let day0 = CivilDate(2026, 1, 5)

    func point(_ day: Int, _ value: String, flow: String = "0", dividends: String = "0", fees: String = "0")
        -> ValuationPoint
    {
        ValuationPoint(
            date: day0.adding(days: day), value: d(value), flow: d(flow), dividends: d(dividends), fees: d(fees))
    }

    @Test("the textbook TWR: +16.25% then −5.56% links to +9.79%, and a deposit between them does not move it")
    func textbookTWR() throws {
        // 100 → 116.25 (+16.25%); then 100 more arrives; 216.25 → 204.2265 (−5.56%).
        let points = [point(0, "100"), point(1, "116.25"), point(2, "204.2265", flow: "100")]
        let figures = try #require(PerformanceMetrics.figures(points))
        #expect(figures.dailyReturns == [d("0.1625"), d("-0.0556")])
        #expect(figures.twr == d("0.09786500"))
        #expect(figures.twr?.rounded(places: 4, rule: .halfUp) == d("0.0979"))
        // Money: 204.2265 − 100 − 100 deposited.
        #expect(figures.totalReturn == d("4.2265"))
        #expect(figures.netFlows == d("100"))

        // The same returns without the deposit: same TWR, another MWR (the loss fell on more money).
        let alone = try #require(
            PerformanceMetrics.figures([point(0, "100"), point(1, "116.25"), point(2, "109.7865")]))
        #expect(alone.twr == figures.twr)
        #expect(alone.mwr == d("0.097865"))
        let mwr = try #require(figures.mwr)
        #expect(mwr < alone.mwr!)
        #expect(mwr.isPositive)
    }

    @Test(
        "beta, Jensen's alpha and Treynor by hand: returns of twice the index plus 0.1% a day have beta 2, alpha 25.2% and Treynor 12.6% a year; half the index plus noise that does not move with it, beta 0.5 and alpha 0"
    )
    func relativeToBenchmark() throws {
        let index = (0..<24).map { i in d(["0.01", "-0.004", "0.006", "-0.012"][i % 4]) }
        let levered = index.map { $0.times(2) + d("0.001") }
        let first = try #require(PerformanceMetrics.relative(Array(zip(levered, index))))
        #expect(first.beta == d("2") && first.alpha == d("0.252") && first.days == 24)
        // Treynor: the index's mean is 0, so 0.001 × 252 a year over beta 2.
        #expect(first.treynor == d("0.126"))
        // Noise of ±0.2% in blocks of four is orthogonal to an index alternating ±1%: it moves neither figure.
        let alternating = (0..<20).map { d($0 % 2 == 0 ? "0.01" : "-0.01") }
        let noise = (0..<20).map { d($0 % 4 < 2 ? "0.002" : "-0.002") }
        let half = zip(alternating, noise).map { $0.divided(by: d("2"))! + $1 }
        let second = try #require(PerformanceMetrics.relative(Array(zip(half, alternating))))
        #expect(second.beta == d("0.5") && second.alpha == .zero && second.treynor == .zero)
        // Returns that do not move with the index (beta 0) have no Treynor ratio.
        let apart = try #require(PerformanceMetrics.relative(Array(zip(noise, alternating))))
        #expect(apart.beta == .zero && apart.treynor == nil)
        // Too few days (19) say nothing; an index that never moves has no beta.
        #expect(PerformanceMetrics.relative(Array(zip(half, alternating).prefix(19))) == nil)
        #expect(PerformanceMetrics.relative(Array(zip(half, [FixedDecimal](repeating: .zero, count: 20)))) == nil)
        // Dated: a day the index has no close is left out of both series.
        let dates = (0...24).map { day0.adding(days: $0) }
        var closes: [CivilDate: FixedDecimal] = [:]
        var level = d("1000")
        for (i, date) in dates.enumerated() {
            closes[date] = level
            if i < index.count { level = level + level.multiplied(by: index[i]) }
        }
        let dated = try #require(PerformanceMetrics.relative(levered, dates: dates, benchmark: closes))
        #expect(dated.beta == d("2") && dated.alpha == d("0.252") && dated.days == 24)
        closes[dates[5]] = nil
        #expect(PerformanceMetrics.relative(levered, dates: dates, benchmark: closes)?.days == 22)
    }

    @Test("XIRR on irregular dates matches Excel's documented example (37.34%)")
    func xirrExcel() throws {
        let flows: [(date: CivilDate, amount: FixedDecimal)] = [
            (CivilDate(2008, 1, 1), d("-10000")), (CivilDate(2008, 3, 1), d("2750")),
            (CivilDate(2008, 10, 30), d("4250")), (CivilDate(2009, 2, 15), d("3250")),
            (CivilDate(2009, 4, 1), d("2750")),
        ]
        let rate = try #require(PerformanceMetrics.xirr(flows))
        // Excel: 0.373362535; bisection in binary floating point: 0.3733625335188.
        #expect(rate.rounded(places: 8, rule: .halfEven) == d("0.37336253"))
        #expect(PerformanceMetrics.xirr([(CivilDate(2008, 1, 1), d("-10")), (CivilDate(2009, 1, 1), d("-5"))]) == nil)
    }

    @Test("MWR of a year with one deposit: the XIRR, compounded over the period, and annualized only for a year")
    func mwrOverAYear() throws {
        // 1,000 for a year at +10%, plus 1,000 added half-way that earns nothing: the end is 2,100.
        let start = CivilDate(2025, 1, 1)
        let points = [
            ValuationPoint(date: start, value: 1000),
            ValuationPoint(date: start.adding(days: 182), value: 1050),
            ValuationPoint(date: start.adding(days: 365), value: 2100, flow: 1000),
        ]
        let figures = try #require(PerformanceMetrics.figures(points))
        let annual = try #require(figures.mwrAnnualized)
        // 1000 (1+r) + 1000 (1+r)^(183/365) = 2100 → r ≈ 6.6%: between 0 (the deposit) and 10%.
        #expect(annual > d("0.066") && annual < d("0.067"))
        #expect(figures.mwr == annual) // one year: the period rate is the annual one
        let short = try #require(PerformanceMetrics.figures(Array(points.prefix(2))))
        #expect(short.mwrAnnualized == nil)
        #expect(short.mwr == d("0.05"))
    }

    @Test("a reset is a flow: the starting cash replaces the value, and TWR keeps the gain made before it")
    func resetIsAFlow() throws {
        // A builder over real engine entries: buy 10 AAPL, close at +10% of the account, reset to 100,000.
        var f = Fixture()
        let t = Fixture.usMorning
        f.quote(f.aapl, bid: "150.00", ask: "150.00", at: t)
        _ = f.place(buy("AAPL", "100"), at: t)
        var builder = EquityDayBuilder(accountID: f.us, currency: .usd, openingCash: d("100000"))
        for entry in f.ledger(f.us) { builder.apply(entry) }
        let first = builder.close(date: day0, closes: ["AAPL": d("250.00")])
        #expect(first.equity == d("110000"))
        #expect(first.flow == d("100000"))
        try f.engine.reset(f.us, at: t.adding(seconds: 86_400))
        for entry in f.ledger(f.us) { builder.apply(entry) }
        let second = builder.close(date: day0.adding(days: 1), closes: ["AAPL": d("300.00")])
        #expect(second.equity == d("100000"))
        #expect(second.holdings.isEmpty)
        #expect(second.flow == d("-10000")) // 100,000 in for the 110,000 held
        let opening = ValuationPoint(date: day0.adding(days: -1), value: .zero)
        let figures = try #require(PerformanceMetrics.figures([opening, first.valuation, second.valuation]))
        #expect(figures.twr == d("0.1"))
        #expect(figures.totalReturn == d("10000"))
    }

    @Test("the builder's days agree with the engine: cash, shares, fees and realized P&L")
    func builderMatchesEngine() throws {
        var f = Fixture(usFees: nil)
        let t = Fixture.usMorning
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        _ = f.place(buy("AAPL", "10"), at: t)
        _ = f.place(sell("AAPL", "4"), at: t)
        try f.engine.deposit(d("500"), to: f.us, method: .bank, at: t)
        try f.engine.withdraw(d("200"), from: f.us, at: t)
        var builder = EquityDayBuilder(accountID: f.us, currency: .usd, openingCash: d("100000"))
        for entry in f.ledger(f.us) { builder.apply(entry) }
        for entry in f.ledger(f.us) { builder.apply(entry) } // folded once only
        let day = builder.close(date: day0, closes: ["AAPL": d("151.00")])
        let account = try #require(f.engine.account(f.us))
        #expect(day.cash == account.cash)
        #expect(day.holdings == ["AAPL": d("6")])
        #expect(day.positionsValue == d("906.00"))
        #expect(day.flow == d("100300"))
        #expect(day.fees == account.totalFees)
        #expect(day.realizedPnL == (f.position(f.us, f.aapl)?.realizedPnL ?? .zero) + account.totalFees)
        #expect(
            EquityDayBuilder.openingCash(ledger: f.ledger(f.us), startingCash: account.startingCash) == d("100000"))
        try f.engine.reset(f.us, startingCash: d("25000"), at: t)
        #expect(EquityDayBuilder.openingCash(ledger: f.ledger(f.us), startingCash: d("25000")) == d("100000"))
    }

    @Test("dividends count in total return and not in price return; fees the other way")
    func dividendsAndFees() throws {
        let points = [point(0, "1000"), point(1, "1020", dividends: "15", fees: "1"), point(2, "1030", fees: "2")]
        let figures = try #require(PerformanceMetrics.figures(points))
        #expect(figures.totalReturn == d("30"))
        #expect(figures.dividends == d("15"))
        #expect(figures.fees == d("3"))
        #expect(figures.priceReturn == d("18"))
    }

    @Test("max drawdown: the deepest fall from a peak, with its peak, trough and recovery dates")
    func drawdown() throws {
        let points = [
            point(0, "100"), point(1, "120"), point(2, "90"), point(3, "110"), point(4, "125"), point(5, "118"),
        ]
        let drawdown = try #require(PerformanceMetrics.figures(points)?.maxDrawdown)
        #expect(drawdown.depth == d("-0.25"))
        #expect(drawdown.peak == day0.adding(days: 1))
        #expect(drawdown.trough == day0.adding(days: 2))
        #expect(drawdown.recovery == day0.adding(days: 4))
        // 110/120 − 1 = −0.0833…: daily returns are kept to nine places (+0.222222222 from 90 to 110), so the
        // linked value ends …334.
        #expect(
            PerformanceMetrics.figures(points)?.drawdowns
                == [0, 0, d("-0.25"), d("-0.083333334"), 0, d("-0.056")])
        // A withdrawal is not a drawdown.
        let withdrawn = [point(0, "100"), point(1, "50", flow: "-50"), point(2, "55")]
        #expect(PerformanceMetrics.figures(withdrawn)?.maxDrawdown == nil)
    }

    @Test("volatility, Sharpe and Sortino of alternating +1%/−0.5% days")
    func statistics() throws {
        var points = [point(0, "1000")]
        var value = d("1000")
        for i in 1...40 {
            let r = i % 2 == 1 ? d("0.01") : d("-0.005")
            value = value + value.multiplied(by: r, places: 9)
            points.append(point(i, value.description))
        }
        let figures = try #require(PerformanceMetrics.figures(points))
        // Mean 0.25%; sample deviation √(40 × 0.0075² / 39) = 0.0075955…; × √252 = 0.1205755…
        #expect(figures.volatility?.rounded(places: 6, rule: .halfEven) == d("0.120576"))
        // 0.0025 / 0.0075955 × √252 = 5.2249…
        #expect(figures.sharpe?.rounded(places: 3, rule: .halfEven) == d("5.225"))
        // Downside: √(20 × 0.005² / 40) = 0.0035355…; 0.0025 / 0.0035355 × √252 = 11.2250
        #expect(figures.sortino?.rounded(places: 3, rule: .halfEven) == d("11.225"))
        // Fewer than 20 daily returns: no annualized statistics.
        let week = try #require(PerformanceMetrics.figures(Array(points.prefix(6))))
        #expect(week.volatility == nil && week.sharpe == nil && week.sortino == nil)
    }

    @Test("monthly returns link the days of each calendar month")
    func monthly() throws {
        let points = [
            ValuationPoint(date: CivilDate(2026, 1, 30), value: 100),
            ValuationPoint(date: CivilDate(2026, 2, 2), value: 110),
            ValuationPoint(date: CivilDate(2026, 2, 27), value: 99),
            ValuationPoint(date: CivilDate(2026, 3, 2), value: d("108.9")),
        ]
        let months = try #require(PerformanceMetrics.figures(points)).monthly
        #expect(months.map(\.month) == [2, 3])
        #expect(months[0].twr == d("-0.01"))
        #expect(months[1].twr == d("0.1"))
    }

    @Test("square roots, logarithms and powers are exact to nine places")
    func decimalFunctions() {
        #expect(DecimalFunctions.squareRoot(d("2")) == d("1.414213562"))
        #expect(DecimalFunctions.squareRoot(d("252")) == d("15.874507866"))
        #expect(DecimalFunctions.squareRoot(d("-1")) == nil)
        #expect(DecimalFunctions.naturalLogarithm(d("10")) == d("2.302585093"))
        #expect(DecimalFunctions.naturalLogarithm(.zero) == nil)
        #expect(DecimalFunctions.exponential(d("1")) == d("2.718281828"))
        #expect(DecimalFunctions.exponential(d("100")) == nil)
        #expect(DecimalFunctions.power(d("1.1"), d("0.5")) == d("1.048808848"))
    }

    // MARK: Properties

    /// Daily returns between −9% and +9% in basis points, and a day for a flow.
    static let returns = Gen.int(in: -900...900).array(of: 2...60)

    @Test("TWR of a period without flows is its simple return; a deposit on any day leaves it unchanged")
    func properties() async {
        await propertyCheck(count: 200, input: Self.returns, Gen.int(in: 0...1000), Gen.int(in: 1...59)) {
            basisPoints, deposit, day in
            var points = [point(0, "10000")]
            var value = d("10000")
            for (i, bp) in basisPoints.enumerated() {
                value = value + value.multiplied(by: FixedDecimal(units: bp, exponent: 4), places: 9)
                points.append(point(i + 1, value.description))
            }
            let figures = PerformanceMetrics.figures(points)
            let simple = (value - d("10000")).divided(by: d("10000"))!
            #expect(((figures?.twr ?? .zero) - simple).magnitude <= d("0.000000005"))

            // The same daily returns with money arriving at the start of day k.
            let k = min(day, basisPoints.count)
            var withFlow = [point(0, "10000")]
            var v = d("10000")
            for (i, bp) in basisPoints.enumerated() {
                let flow = i + 1 == k ? FixedDecimal(deposit) : .zero
                v = v + flow
                v = v + v.multiplied(by: FixedDecimal(units: bp, exponent: 4), places: 9)
                withFlow.append(point(i + 1, v.description, flow: flow.description))
            }
            let moved = PerformanceMetrics.figures(withFlow)
            #expect(((moved?.twr ?? .zero) - (figures?.twr ?? .zero)).magnitude <= d("0.00000001"))
        }
    }
}
