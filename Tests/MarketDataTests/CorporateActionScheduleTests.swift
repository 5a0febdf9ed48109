import Testing
import TradingCore

@testable import MarketData

@Suite("Simulated corporate actions")
struct CorporateActionScheduleTests {
    static let directory = try! SymbolDirectory.bundled()
    let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
    let years = (CivilDate(2021, 1, 1), CivilDate(2025, 12, 31))

    /// The first `count` primary US stocks and A-shares of the directory.
    func stocks(_ market: Market, count: Int) -> [String] {
        Self.directory.entries.filter { $0.instrument.market == market && $0.instrument.kind == .stock }
            .prefix(count).map(\.symbol)
    }

    /// The first action of `kind` among the symbols, with its symbol's daily bars around the ex-date.
    func first(_ kind: CorporateAction.Kind, in market: Market) -> CorporateAction? {
        for symbol in stocks(market, count: 3000) {
            if let action = self.market.corporateActions(symbol, from: years.0, through: years.1).first(where: {
                $0.kind == kind
            }) {
                return action
            }
        }
        return nil
    }

    func dailyBars(_ symbol: String, around date: CivilDate, zone: ExchangeTimeZone) -> [PriceBar] {
        market.bars(
            symbol, timeframe: .day, from: Timestamp(date.adding(days: -7), in: zone),
            to: Timestamp(date.adding(days: 7), in: zone))
    }

    @Test("about as often as real stocks: ~45% of US stocks pay quarterly, ~65% of A-shares yearly; splits are rare")
    func frequencies() {
        let us = stocks(.us, count: 1000)
        var payers = 0, splits = 0, reverse = 0
        for symbol in us {
            let actions = market.corporateActions(symbol, from: years.0, through: years.1)
            let dividends = actions.filter { $0.kind == .cashDividend }
            if !dividends.isEmpty {
                payers += 1
                #expect(dividends.count == 20, "\(symbol): quarterly for five years")
            }
            splits += actions.filter { $0.kind == .forwardSplit }.count
            reverse += actions.filter { $0.kind == .reverseSplit }.count
        }
        #expect((380...520).contains(payers))
        // 1,000 stocks × 5 years at 1.5–6% a year.
        #expect((40...250).contains(splits + reverse) && splits > 0 && reverse > 0)
        let cn = stocks(.cn, count: 1000)
        let cnPayers = cn.filter { symbol in
            market.corporateActions(symbol, from: years.0, through: years.1).contains { $0.kind == .cashDividend }
        }.count
        #expect((580...720).contains(cnPayers))
    }

    @Test("deterministic and announced ahead: declaration before ex-date, US record = ex-date (T+1), paid later")
    func dates() throws {
        let other = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
        let dividend = try #require(first(.cashDividend, in: .us))
        #expect(other.corporateActions(dividend.symbol, from: years.0, through: years.1).contains(dividend))
        #expect(dividend.declarationDate < dividend.exDate && dividend.payableDate > dividend.exDate)
        // T+1 settlement from 2024-05-28: the record date is the ex-date; before, the next trading day.
        let t1 = dividend.exDate >= CivilDate(2024, 5, 28)
        #expect(
            dividend.recordDate
                == (t1 ? dividend.exDate : TradingCalendar.xnys.nextTradingDay(after: dividend.exDate)))
        #expect(dividend.cash.isPositive)
        #expect(TradingCalendar.xnys.isTradingDay(dividend.exDate))
        let bonus = try #require(first(.stockDividend, in: .cn))
        #expect(bonus.oldRate == 10 && bonus.newRate > 10)
        #expect(bonus.recordDate == TradingCalendar.xshg.previousTradingDay(before: bonus.exDate))
        #expect(bonus.payableDate == bonus.exDate)
    }

    @Test("a split divides raw prices from its ex-date on; the reference price follows; split-adjusted bars join up")
    func splitPrices() throws {
        let split = try #require(first(.forwardSplit, in: .us))
        let bars = dailyBars(split.symbol, around: split.exDate, zone: .newYork)
        let before = try #require(bars.last { ExchangeTimeZone.newYork.localTime(of: $0.time).date < split.exDate })
        let ex = try #require(bars.first { ExchangeTimeZone.newYork.localTime(of: $0.time).date == split.exDate })
        let ratio = try #require(Double(split.ratio.description))
        // The first raw open after the split is near the old close ÷ the ratio (an ordinary day's move away).
        let jump = Double(ex.open.description)! / (Double(before.close.description)! / ratio)
        #expect(abs(jump - 1) < 0.15, "\(split.symbol) \(split.exDate): \(before.close) → \(ex.open)")
        let quote = try #require(
            market.quote(split.symbol, at: Timestamp(split.exDate, hour: 9, minute: 31, in: .newYork)))
        let reference = Double(quote.previousClose.description)! * ratio
        #expect(abs(reference / Double(before.close.description)! - 1) < 0.001)
        let adjusted = BarAdjustment.split.apply(
            to: bars, actions: [split], zone: .newYork, through: split.exDate)
        let restated = try #require(adjusted.first { $0.time == before.time })
        let factor = try #require(split.oldRate.divided(by: split.newRate, rule: .halfEven))
        #expect(restated.close == before.close.multiplied(by: factor, places: 4, rule: .halfEven))
        #expect(restated.volume == before.volume.multiplied(by: split.ratio))
    }

    @Test("a dividend's ex-date opens lower by about the dividend; the A-share reference price is ex-rights")
    func dividendPrices() throws {
        let dividend = try #require(first(.cashDividend, in: .us))
        let quote = try #require(
            market.quote(dividend.symbol, at: Timestamp(dividend.exDate, hour: 9, minute: 31, in: .newYork)))
        let bars = dailyBars(dividend.symbol, around: dividend.exDate, zone: .newYork)
        let before = try #require(bars.last { ExchangeTimeZone.newYork.localTime(of: $0.time).date < dividend.exDate })
        let drop = before.close - quote.previousClose
        // The reference drops by the yield of the close before the ex-date; the dividend was that yield of the
        // declaration day's close: the two differ by the price change in between, not by more than a few percent.
        #expect(drop.isPositive)
        let ratio = Double(drop.description)! / Double(dividend.cash.description)!
        #expect(ratio > 0.6 && ratio < 1.6, "\(dividend.symbol): drop \(drop) for a dividend of \(dividend.cash)")

        let bonus = try #require(first(.stockDividend, in: .cn))
        let cnBars = dailyBars(bonus.symbol, around: bonus.exDate, zone: .shanghai)
        let last = try #require(cnBars.last { ExchangeTimeZone.shanghai.localTime(of: $0.time).date < bonus.exDate })
        let exQuote = try #require(
            market.quote(bonus.symbol, at: Timestamp(bonus.exDate, hour: 9, minute: 31, in: .shanghai)))
        let expected =
            Double(last.close.description)! * Double(bonus.oldRate.description)!
            / Double(bonus.newRate.description)!
        #expect(abs(Double(exQuote.previousClose.description)! / expected - 1) < 0.05)
        // The band is around the ex-rights reference: the ex-date does not look like a crash to limit-down.
        let exBar = try #require(cnBars.first { ExchangeTimeZone.shanghai.localTime(of: $0.time).date == bonus.exDate })
        #expect(exBar.low >= (exQuote.limitDown ?? .zero))
        #expect(Double(exBar.open.description)! / expected > 0.85)
    }

    @Test("news: each action announced on its declaration day, A-shares as 权益分派实施公告")
    func news() throws {
        let dividend = try #require(first(.cashDividend, in: .us))
        let items = market.news(dividend.symbol, from: dividend.declarationDate, through: dividend.declarationDate)
        let item = try #require(items.first { $0.headline.contains("dividend") })
        #expect(
            item.headline.hasSuffix("declares quarterly dividend of $\(dividend.cash.formatted(places: 2)) per share"))
        #expect(item.time == Timestamp(dividend.declarationDate, hour: 8, in: .newYork))
        let bonus = try #require(first(.stockDividend, in: .cn))
        let cn = market.news(bonus.symbol, from: bonus.declarationDate, through: bonus.declarationDate)
        let bonusShares = (bonus.newRate - bonus.oldRate).formatted(places: 0)
        #expect(cn.contains { $0.headline.contains("权益分派实施公告（每10股送转\(bonusShares)股）") })
        #expect(
            cn.filter { $0.headline.contains("权益分派") }.allSatisfy { $0.summary.contains("除权除息日 \(bonus.exDate)") })
    }

    @Test("dates outside the schedule's years, at the calendar's ends or reversed give no actions (one once trapped)")
    func datesOutsideTheSchedule() {
        for symbol in stocks(.us, count: 5) + stocks(.cn, count: 5) {
            for (from, through) in [
                (CivilDate(1970, 1, 2), CivilDate(1970, 1, 7)), (CivilDate(1900, 1, 1), CivilDate(1999, 12, 31)),
                (CivilDate(2041, 1, 1), CivilDate(2200, 12, 31)), (CivilDate(2026, 1, 7), CivilDate(2026, 1, 2)),
            ] {
                #expect(market.corporateActions(symbol, from: from, through: through).isEmpty, "\(symbol) \(from)")
            }
        }
        // Spanning the whole calendar still finds the schedule's actions.
        let symbol = stocks(.us, count: 200).first {
            !market.corporateActions($0, from: years.0, through: years.1).isEmpty
        }
        #expect(
            symbol.map {
                !market.corporateActions($0, from: CivilDate(1900, 1, 1), through: CivilDate(2200, 12, 31)).isEmpty
            } == true)
    }
}
