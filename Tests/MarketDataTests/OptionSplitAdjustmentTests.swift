import Testing
import TradingCore

@testable import MarketData

/// Contracts through more than one split before they expire, the OCC way: the roots each split gives, and what the
/// chain lists on them.
@Suite("Option contracts through successive splits")
struct OptionSplitAdjustmentTests {
    static func split(_ date: CivilDate, _ new: Int, for old: Int) -> CorporateAction {
        CorporateAction(
            symbol: "XYZ", kind: new > old ? .forwardSplit : .reverseSplit, declarationDate: date.adding(days: -30),
            exDate: date, recordDate: date, payableDate: date.adding(days: 1), newRate: FixedDecimal(new),
            oldRate: FixedDecimal(old))
    }

    /// A year of closes at 100 a share in today's shares, ending the day before `date`.
    static func history(on date: CivilDate, splits: [UnderlyingHistory.Split]) -> UnderlyingHistory {
        var closes: [UnderlyingHistory.DailyClose] = []
        var day = date.adding(days: -4 * 366)
        while day < date {
            if TradingCalendar.xnys.isTradingDay(day) { closes.append(.init(date: day, close: 100)) }
            day = day.adding(days: 1)
        }
        var history = UnderlyingHistory(
            symbol: "XYZ", date: date, closes: closes, dividendYield: 0, averageVolume: 1_000_000)
        history.splits = splits
        return history
    }

    let first = CivilDate(2027, 3, 15)
    let second = CivilDate(2028, 1, 18)
    /// A LEAPS listed in September 2025, before both splits, expiring after them.
    let leaps = CivilDate(2029, 1, 19)
    let xyz = OptionClass(underlying: "XYZ", isETF: false)

    @Test(
        "a 3:2 split moves the contracts to XYZ1 (150 shares), a 2:1 split ten months later moves those to XYZ2 (300 shares); a root's digit counts the roots of the four years before; a deliverable that would fall below a share is not carried"
    )
    func roots() throws {
        let splits = OptionMarket.splits(
            of: "XYZ", [Self.split(first, 3, for: 2), Self.split(second, 2, for: 1)], from: CivilDate(2025, 1, 1))
        try #require(splits.count == 2)
        #expect(splits[0].adjustedRoot == "XYZ1" && splits[0].deliverable == 150 && splits[0].readjusted.isEmpty)
        #expect(splits[1].wholeFactor == 2 && splits[1].adjustedRoot == nil)
        #expect(splits[1].readjusted == [.init(from: "XYZ1", root: "XYZ2", deliverable: 300)])

        // Two odd splits: the first's contracts move on (XYZ2, 225 shares), the standard ones take the next digit.
        let odd = OptionMarket.splits(
            of: "XYZ", [Self.split(first, 3, for: 2), Self.split(second, 3, for: 2)], from: CivilDate(2025, 1, 1))
        #expect(odd[1].readjusted == [.init(from: "XYZ1", root: "XYZ2", deliverable: 225)])
        #expect(odd[1].adjustedRoot == "XYZ3" && odd[1].deliverable == 150)

        // A third split moves only the root whose contracts are still there (XYZ2, not XYZ1 again).
        let three = OptionMarket.splits(
            of: "XYZ",
            [
                Self.split(first, 3, for: 2), Self.split(second, 2, for: 1),
                Self.split(CivilDate(2028, 9, 5), 3, for: 2),
            ],
            from: CivilDate(2025, 1, 1))
        #expect(three[2].readjusted == [.init(from: "XYZ2", root: "XYZ3", deliverable: 450)])
        #expect(three[2].adjustedRoot == "XYZ4" && three[2].deliverable == 150)

        // Three years on no contract of XYZ1 is left; five years on its root is free again.
        let later = OptionMarket.splits(
            of: "XYZ", [Self.split(first, 3, for: 2), Self.split(CivilDate(2030, 6, 3), 3, for: 2)],
            from: CivilDate(2025, 1, 1))
        #expect(later[1].readjusted.isEmpty && later[1].adjustedRoot == "XYZ2")
        let free = OptionMarket.splits(
            of: "XYZ", [Self.split(first, 3, for: 2), Self.split(CivilDate(2032, 6, 1), 3, for: 2)],
            from: CivilDate(2025, 1, 1))
        #expect(free[1].adjustedRoot == "XYZ1")

        // 1:20 twice: 5 shares, then a quarter of one — no contract delivers that: XYZ1's contracts settle in cash
        // on the second ex-date (OCC's accelerated expiration), and no root is made for them.
        let pennies = OptionMarket.splits(
            of: "XYZ", [Self.split(first, 1, for: 20), Self.split(second, 1, for: 20)], from: CivilDate(2025, 1, 1))
        #expect(pennies[0].deliverable == 5 && pennies[1].readjusted.isEmpty)
        let quarter = FixedDecimal(units: 25, exponent: 2)
        #expect(pennies[1].cashSettled == [.init(root: "XYZ1", deliverable: 5, shares: quarter)])
        #expect(pennies[1].adjustedRoot == "XYZ2" && pennies[1].deliverable == 5)
        #expect(splits[1].cashSettled.isEmpty && odd[1].cashSettled.isEmpty && three[2].cashSettled.isEmpty)
    }

    @Test(
        "after a 3:2 and a 2:1 split the chain lists the LEAPS of before them on XYZ2 alone, every strike of the eve of the first, delivering 300 shares; standard contracts as the grid and the 2:1 split give them"
    )
    func listingAfterTwoSplits() throws {
        let splits = OptionMarket.splits(
            of: "XYZ", [Self.split(first, 3, for: 2), Self.split(second, 2, for: 1)], from: CivilDate(2025, 1, 1))
        let today = CivilDate(2028, 2, 1)
        let history = Self.history(on: today, splits: splits)
        let adjusted = xyz.adjustedContracts(expiration: leaps, history: history)
        try #require(!adjusted.isEmpty)
        #expect(adjusted.allSatisfy { $0.root == "XYZ2" && $0.deliverable == 300 && $0.expiration == leaps })
        // The eve of the first split: 100 today is 300 then (× 1.5 × 2), so its strikes are around 300.
        let strikes = Set(adjusted.map(\.strike))
        let sorted = strikes.sorted()
        #expect(strikes.contains(FixedDecimal(300)))
        #expect(sorted[sorted.count / 2] > FixedDecimal(250) && sorted[sorted.count / 2] < FixedDecimal(350))
        #expect(adjusted.filter { $0.right == .call }.count == strikes.count)
        let listed = xyz.contracts(history: history)
        #expect(Set(adjusted).isSubset(of: Set(listed)))
        #expect(!listed.contains { $0.root == "XYZ1" })
    }

    @Test(
        "a 3:1 split then a 3:2 one: the strikes the whole split carried (÷ 3, to $0.001) move to the adjusted root with the grid's"
    )
    func carriedStrikesMoveToo() throws {
        let splits = OptionMarket.splits(
            of: "XYZ", [Self.split(first, 3, for: 1), Self.split(second, 3, for: 2)], from: CivilDate(2025, 1, 1))
        #expect(splits[0].wholeFactor == 3 && splits[0].readjusted.isEmpty)
        #expect(splits[1].adjustedRoot == "XYZ1" && splits[1].deliverable == 150)
        let history = Self.history(on: CivilDate(2028, 2, 1), splits: splits)
        let adjusted = xyz.adjustedContracts(expiration: leaps, history: history)
        try #require(!adjusted.isEmpty)
        #expect(adjusted.allSatisfy { $0.root == "XYZ1" && $0.deliverable == 150 })
        // Strikes of before the 3:1 split (around 450), a third of them: not on any grid.
        let thirds = adjusted.map(\.strike).filter { !$0.isMultiple(of: FixedDecimal(units: 5, exponent: 1)) }
        #expect(!thirds.isEmpty)
        #expect(thirds.allSatisfy { $0.times(3).rounded(places: 0, rule: .halfEven).isMultiple(of: FixedDecimal(5)) })
    }
}
