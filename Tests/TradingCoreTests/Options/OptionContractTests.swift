import Testing

@testable import TradingCore

@Suite("Option contracts and OCC symbols")
struct OptionContractTests {
    @Test("an OCC symbol is root, YYMMDD, C or P and the strike in thousandths, without the root's padding")
    func writesOCCSymbols() throws {
        let call = try #require(
            OptionContract(underlying: "AAPL", expiration: CivilDate(2024, 1, 19), right: .call, strike: 190))
        #expect(call.occSymbol == "AAPL240119C00190000")
        let put = try #require(
            OptionContract(
                underlying: "F", expiration: CivilDate(2026, 12, 18), right: .put,
                strike: FixedDecimal(units: 75, exponent: 1)))
        #expect(put.occSymbol == "F261218P00007500")
        let big = try #require(
            OptionContract(underlying: "BKNG", expiration: CivilDate(2027, 1, 15), right: .call, strike: 1250))
        #expect(big.occSymbol == "BKNG270115C01250000")
        #expect(big.name == "BKNG Jan 15 2027 1250 Call")
    }

    @Test("symbols parse back, padded or not, in any case, and the same contract comes out")
    func parsesOCCSymbols() throws {
        for text in ["SPY251124C00692000", "SPY   251124C00692000", "spy251124c00692000"] {
            let contract = try #require(OptionContract(occSymbol: text), "\(text)")
            #expect(contract.underlying == "SPY")
            #expect(contract.expiration == CivilDate(2025, 11, 24))
            #expect(contract.right == .call)
            #expect(contract.strike == 692)
            #expect(contract.occSymbol == "SPY251124C00692000")
        }
        let adjusted = try #require(OptionContract(occSymbol: "AAPL1250620P00102500"))
        #expect(adjusted.root == "AAPL1")
        #expect(adjusted.underlying == "AAPL")
        #expect(adjusted.strike == FixedDecimal(units: 1025, exponent: 1))
    }

    @Test(
        "malformed symbols are refused, never guessed at",
        arguments: [
            "", "AAPL", "AAPL240119X00190000", "AAPL240230C00190000", "AAPL241319C00190000", "AAPL240119C0019000",
            "AAPL240119C001900000", "240119C00190000", "1AAPL240119C00190000", "AAPL240119C00000000",
            "TOOLONGX240119C00190000", "AA PL240119C00190000", "AAPL24O119C00190000", "XOM2241220P00280000x",
        ])
    func refusesMalformedSymbols(_ text: String) {
        #expect(OptionContract(occSymbol: text) == nil)
    }

    @Test("every contract's symbol parses back to the same contract")
    func roundTrips() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let root = ["A", "SPY", "GOOGL", "BRKB", "AAPL1"].randomElement(using: &generator) ?? "A"
            let date = CivilDate(daysSinceEpoch: Int.random(in: 10_957..<47_482, using: &generator))
            let strike = FixedDecimal(units: Int.random(in: 1...99_999_999, using: &generator), exponent: 3)
            let right = Bool.random(using: &generator) ? OptionRight.call : .put
            guard
                let contract = OptionContract(
                    underlying: OptionContract.underlying(ofRoot: root), expiration: date, right: right, strike: strike,
                    root: root)
            else {
                Issue.record("\(root) \(date) \(strike) was refused")
                continue
            }
            #expect(OptionContract(occSymbol: contract.occSymbol) == contract)
        }
    }

    @Test("intrinsic value is what exercising is worth, never negative")
    func intrinsicValue() throws {
        let call = try #require(
            OptionContract(underlying: "AAPL", expiration: CivilDate(2026, 12, 18), right: .call, strike: 250))
        let put = try #require(
            OptionContract(underlying: "AAPL", expiration: CivilDate(2026, 12, 18), right: .put, strike: 250))
        #expect(
            call.intrinsicValue(at: FixedDecimal(units: 25_512, exponent: 2)) == FixedDecimal(units: 512, exponent: 2))
        #expect(call.intrinsicValue(at: 240) == 0)
        #expect(put.intrinsicValue(at: 240) == 10)
        #expect(put.intrinsicValue(at: 260) == 0)
    }
}

@Suite("Option expirations")
struct OptionExpirationsTests {
    let monthly = OptionExpirations(dailies: false)
    let daily = OptionExpirations(dailies: true)

    @Test("monthlies expire on the third Friday, or the Thursday before when that Friday is a holiday")
    func thirdFridays() {
        let listed = monthly.listed(on: CivilDate(2025, 1, 2))
        #expect(listed.contains(CivilDate(2025, 1, 17)))
        #expect(listed.contains(CivilDate(2025, 3, 21)))
        // Good Friday 2025 was the third Friday of April: the April monthly expired on Thursday the 17th.
        #expect(listed.contains(CivilDate(2025, 4, 17)))
        #expect(!listed.contains(CivilDate(2025, 4, 18)))
        #expect(monthly.kind(of: CivilDate(2025, 4, 17)) == .monthly)
        // LEAPS: Januaries years ahead.
        #expect(listed.contains(CivilDate(2026, 1, 16)))
        #expect(listed.contains(CivilDate(2027, 1, 15)))
        for date in listed { #expect(TradingCalendar.xnys.isTradingDay(date), "\(date)") }
    }

    @Test("weeklies cover the next five Fridays; dailies every weekday of the next two weeks for daily classes")
    func weekliesAndDailies() {
        let start = CivilDate(2026, 11, 23) // a Monday
        let weekly = monthly.listed(on: start).filter { $0 < start.adding(days: 40) }
        // Christmas Friday expires Thursday the 24th; Friday 1 January is listed five weeks ahead, from 27 November.
        #expect(
            weekly == [
                CivilDate(2026, 11, 27), CivilDate(2026, 12, 4), CivilDate(2026, 12, 11), CivilDate(2026, 12, 18),
                CivilDate(2026, 12, 24),
            ])
        let days = daily.listed(on: start).filter { $0 < start.adding(days: 14) }
        let weekdays = (0..<14).map { start.adding(days: $0) }.filter { TradingCalendar.xnys.isTradingDay($0) }
        #expect(days == weekdays)
        #expect(!monthly.listed(on: start).contains(CivilDate(2026, 11, 24)))
    }

    @Test("an expiration, once listed, stays listed every day until it expires")
    func listingsNeverDisappear() {
        for classes in [monthly, daily] {
            var previous = Set(classes.listed(on: CivilDate(2024, 1, 1)))
            var day = CivilDate(2024, 1, 2)
            while day < CivilDate(2026, 12, 31) {
                let now = Set(classes.listed(on: day))
                for expiration in previous where expiration >= day {
                    #expect(now.contains(expiration), "\(expiration) vanished on \(day)")
                }
                for expiration in now { #expect(classes.listingDate(of: expiration).map { $0 <= day } == true) }
                previous = now
                day = day.adding(days: 1)
            }
        }
    }
}
