import Testing
import TradingCore

@testable import MarketData

/// The simulated market as a learner sees it across many stocks: stocks that move together (by sector more), indices
/// made of their members, sizes that behave like their tiers, volumes at real scale, earnings on a calendar.
@Suite("Simulated market realism")
struct MarketRealismTests {
    static let directory = try! SymbolDirectory.bundled()

    /// Every `step`-th S&P 500 member (the directory's GICS sectors mark them): up to 200 names across all sectors.
    static func sample(_ count: Int) -> [DirectoryEntry] {
        let members = directory.entries.filter {
            $0.instrument.market == .us && !$0.sector.isEmpty && $0.symbol.allSatisfy(\.isLetter)
        }
        let step = max(members.count / count, 1)
        return stride(from: 0, to: members.count, by: step).prefix(count).map { members[$0] }
    }

    @Test(
        "200 S&P 500 stocks move together like real ones: correlation ~0.5–0.6 within a sector, ~0.2–0.4 across, the equal-weighted basket ~1% a day",
        arguments: [1, 7, 2024] as [UInt64])
    func crossSection(seed: UInt64) {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: seed))
        let sample = Self.sample(200)
        // Three years: one year's figures swing with the market's mood (calm years correlate less, stormy ones more),
        // as real years do.
        let from = CivilDate(2023, 1, 1), through = CivilDate(2025, 12, 31)
        let returns = sample.map { market.dailyReturns($0.symbol, from: from, through: through) }
        #expect(returns.allSatisfy { $0.count > 700 })
        let stats = CrossSectionStatistics(returns: returns, sectors: sample.map(\.sector))
        #expect(stats.withinSectorCorrelation > 0.4 && stats.withinSectorCorrelation < 0.72, "\(stats)")
        #expect(stats.acrossSectorCorrelation > 0.15 && stats.acrossSectorCorrelation < 0.45, "\(stats)")
        #expect(stats.withinSectorCorrelation > stats.acrossSectorCorrelation + 0.15, "\(stats)")
        #expect(stats.basketVolatility > 0.006 && stats.basketVolatility < 0.015, "\(stats)")
        // Diversification helps but does not make risk vanish: the basket keeps about half the average stock's.
        let kept = stats.basketVolatility / stats.meanVolatility
        #expect(kept > 0.35 && kept < 0.75, "\(stats)")
        // The S&P 500 index moves about like the basket of its members.
        let index = ReturnStatistics(returns: market.dailyReturns(.sp500, from: from, through: through))
        #expect(index.volatility > 0.006 && index.volatility < 0.016, "S&P 500: \(index)")
    }

    @Test("the S&P 500 is its members: its daily returns are their weighted returns, and SPY tracks it")
    func indexFromMembers() throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 3))
        let members = market.indexMembers(.sp500)
        #expect(members.count > 490)
        #expect(abs(members.reduce(0) { $0 + $1.weight } - 1) < 1e-9)
        // The largest companies weigh most, as in the real index.
        #expect(Set(members.prefix(5).map(\.symbol)).isSuperset(of: ["NVDA", "AAPL", "MSFT"]))
        // From the anchor day's start (the close of 2025-12-31), where the weights are the members' market values.
        let from = CivilDate(2025, 12, 31), through = CivilDate(2026, 4, 30)
        let zone = ExchangeTimeZone.newYork
        let start = Timestamp(from, in: zone), end = Timestamp(through.adding(days: 1), in: zone)
        let index = market.indexBars(.sp500, timeframe: .day, from: start, to: end).map {
            Double($0.close.description)!
        }
        #expect(index.count > 80)
        // Members' adjusted closes over the same days, weighted by market value as the period began (a fixed basket of
        // shares, as a market-value-weighted index is).
        var basket = [Double](repeating: 0, count: index.count)
        for (symbol, weight) in members {
            let r = market.dailyReturns(symbol, from: from, through: through)
            try #require(r.count == index.count - 1, "\(symbol)")
            var level = weight
            basket[0] += level
            for (t, x) in r.enumerated() {
                level *= exp(x)
                basket[t + 1] += level
            }
        }
        let indexReturns = zip(index, index.dropFirst()).map { log($1 / $0) }
        let basketReturns = zip(basket, basket.dropFirst()).map { log($1 / $0) }
        let c = CrossSectionStatistics(returns: [indexReturns, basketReturns], sectors: ["x", "x"])
        #expect(c.withinSectorCorrelation > 0.999, "index against its members' basket: \(c)")
        let gap = zip(indexReturns, basketReturns).map { abs($0 - $1) }.max() ?? 1
        #expect(gap < 0.001, "largest daily difference between the index and its members: \(gap)")
        // SPY is the index at a tenth of its level (to the cent).
        let spy = market.dailyReturns("SPY", from: from, through: through)
        #expect(spy.count == indexReturns.count)
        #expect(zip(spy, indexReturns).allSatisfy { abs($0 - $1) < 0.0005 })
    }

    @Test(
        "the Nasdaq-100 and the CSI 300 by their rules: the 100 largest non-financial Nasdaq companies, the 300 largest A-shares; QQQ tracks the Nasdaq-100"
    )
    func ruleBasedIndices() {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 3))
        func capitalisation(_ entry: DirectoryEntry) -> Double { market.profile(entry).capitalisation }
        func eligible(_ e: DirectoryEntry) -> Bool {
            e.instrument.kind == .stock && e.instrument.board != .bShare && !e.isWarrantRightOrUnit
                && e.symbol.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." }
        }

        let ndx = market.indexMembers(.nasdaq100)
        #expect(ndx.count == 100)
        let ndxEntries = ndx.compactMap { Self.directory.entry($0.symbol) }
        #expect(ndxEntries.count == 100)
        #expect(ndxEntries.allSatisfy { $0.instrument.exchange == .nasdaq && $0.sector != "Financials" })
        #expect(Set(ndx.prefix(10).map(\.symbol)).isSuperset(of: ["NVDA", "AAPL", "MSFT"]))
        // No eligible Nasdaq company left out is larger than the smallest member.
        let smallestNDX = ndxEntries.map(capitalisation).min() ?? 0
        let ndxSymbols = Set(ndx.map(\.symbol))
        let largerOutside = Self.directory.entries.filter {
            $0.instrument.exchange == .nasdaq && $0.sector != "Financials" && eligible($0)
                && !ndxSymbols.contains($0.symbol) && IndexBasket.tracked[$0.symbol] == nil
                && capitalisation($0) > smallestNDX
        }
        #expect(largerOutside.isEmpty, "\(largerOutside.prefix(5).map(\.symbol))")

        let csi = market.indexMembers(.csi300)
        #expect(csi.count == 300)
        let csiEntries = csi.compactMap { Self.directory.entry($0.symbol) }
        #expect(csiEntries.allSatisfy { $0.instrument.market == .cn && $0.instrument.board != .bShare })
        #expect(Set(csi.map(\.symbol)).isSuperset(of: ["600519", "300750", "601318"]))
        let smallestCSI = csiEntries.map(capitalisation).min() ?? 0
        let csiSymbols = Set(csi.map(\.symbol))
        #expect(
            !Self.directory.entries.contains {
                $0.instrument.market == .cn && eligible($0) && !csiSymbols.contains($0.symbol)
                    && capitalisation($0) > smallestCSI
            })

        // QQQ is the Nasdaq-100 at its own level: the same daily moves (to the cent).
        let from = CivilDate(2025, 12, 31), through = CivilDate(2026, 4, 30)
        let index = market.dailyReturns(.nasdaq100, from: from, through: through)
        let qqq = market.dailyReturns("QQQ", from: from, through: through)
        #expect(index.count > 80 && qqq.count == index.count)
        #expect(zip(qqq, index).allSatisfy { abs($0 - $1) < 0.0005 })
        // And a learner's two benchmarks differ: the Nasdaq-100 is not the S&P 500 under another name.
        let sp = market.dailyReturns(.sp500, from: from, through: through)
        let c = CrossSectionStatistics(returns: [index, sp], sectors: ["x", "x"])
        #expect(c.withinSectorCorrelation > 0.6 && c.withinSectorCorrelation < 0.99, "\(c)")
    }

    @Test("size tiers: mega caps are calmer than micro caps, never move like penny stocks, and trade at real scale")
    func tiers() {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 11))
        #expect(market.sizeTier("AAPL") == .mega)
        #expect(market.sizeTier("NVDA") == .mega)
        #expect(market.sizeTier(Self.sample(50)[17].symbol).map { $0 == .large || $0 == .mega } == true)
        var byTier: [SizeTier: [String]] = [:]
        for entry in Self.directory.entries
        where entry.instrument.market == .us && entry.instrument.kind == .stock && entry.isMoverCandidate {
            let tier = market.sizeTier(entry.symbol)!
            if byTier[tier, default: []].count < 25 { byTier[tier, default: []].append(entry.symbol) }
        }
        #expect(SizeTier.allCases.allSatisfy { (byTier[$0]?.count ?? 0) == 25 }, "every tier is represented")
        func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
        var vol: [SizeTier: Double] = [:], bigDays: [SizeTier: Double] = [:]
        for tier in [SizeTier.mega, .large, .micro] {
            let stats = byTier[tier]!.map {
                ReturnStatistics(
                    returns: market.dailyReturns($0, from: CivilDate(2016, 1, 1), through: CivilDate(2025, 12, 31)))
            }
            vol[tier] = median(stats.map(\.volatility))
            bigDays[tier] = stats.map(\.shareAbove10).reduce(0, +) / Double(stats.count)
            // Fat tails and clustering in every tier.
            #expect(median(stats.map(\.excessKurtosis)) > 1.5, "\(tier)")
            #expect(median(stats.map { $0.absoluteAutocorrelation[0] }) > 0.08, "\(tier)")
        }
        #expect(vol[.mega]! > 0.013 && vol[.mega]! < 0.026)
        #expect(vol[.large]! > 0.013 && vol[.large]! < 0.026)
        #expect(vol[.micro]! > vol[.mega]! * 1.5)
        // Days beyond ±10%: rare for the largest companies (a few in ten years), routine for micro caps.
        #expect(bigDays[.mega]! < 0.004)
        #expect(bigDays[.micro]! > bigDays[.mega]! * 4)

        // Volume at real scale (AAPL ~50M shares a day, NVDA ~180M, SPY ~70M), with days that vary.
        let to = Timestamp(CivilDate(2026, 11, 20), hour: 16, in: .newYork)
        let from = Timestamp(CivilDate(2026, 8, 20), in: .newYork)
        func volumes(_ symbol: String) -> [Double] {
            market.bars(symbol, timeframe: .day, from: from, to: to).map { Double($0.volume.description)! }
        }
        func mean(_ xs: [Double]) -> Double { xs.reduce(0, +) / Double(max(xs.count, 1)) }
        let aapl = volumes("AAPL"), nvda = volumes("NVDA"), spy = volumes("SPY")
        #expect(mean(aapl) > 25e6 && mean(aapl) < 100e6, "AAPL \(mean(aapl))")
        #expect(mean(nvda) > 90e6 && mean(nvda) < 360e6, "NVDA \(mean(nvda))")
        #expect(mean(spy) > 35e6 && mean(spy) < 140e6, "SPY \(mean(spy))")
        #expect((aapl.max() ?? 0) > 1.5 * (aapl.min() ?? 0))
        // Most active by traded value: the giants, as on a real day.
        let active = market.movers(.us, kind: .active, at: to, limit: 10).map(\.symbol)
        let giants = active.filter { market.sizeTier($0) == .mega || ["SPY", "QQQ"].contains($0) }
        #expect(giants.count >= 5, "most active: \(active)")
    }

    @Test("determinism: the same history whatever order symbols and indices are asked for in, from any number of tasks")
    func orderAndConcurrency() async {
        let symbols = ["AAPL", "SPY", "JPM", "XOM", "600519", "300750", "KO", "NVDA"]
        let from = Timestamp(CivilDate(2025, 10, 1), in: .newYork)
        let to = Timestamp(CivilDate(2026, 11, 21), in: .newYork)
        let serial = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 5))
        var expected: [String: [PriceBar]] = [:]
        for s in symbols { expected[s] = serial.bars(s, timeframe: .day, from: from, to: to) }
        let expectedIndex = serial.indexBars(.sp500, timeframe: .day, from: from, to: to)
        let parallel = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 5))
        let results = await withTaskGroup(of: (String, [PriceBar]).self) { group in
            group.addTask { ("^GSPC", parallel.indexBars(.sp500, timeframe: .day, from: from, to: to)) }
            for s in symbols.reversed() {
                group.addTask { (s, parallel.bars(s, timeframe: .day, from: from, to: to)) }
            }
            var out: [String: [PriceBar]] = [:]
            for await (s, bars) in group { out[s] = bars }
            return out
        }
        for s in symbols { #expect(results[s] == expected[s], "\(s)") }
        #expect(results["^GSPC"] == expectedIndex)
        // One minute of one day, asked for alone in a third market, is the same too.
        let third = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 5))
        #expect(
            third.minuteBars("JPM", on: CivilDate(2026, 3, 4)) == parallel.minuteBars("JPM", on: CivilDate(2026, 3, 4)))
    }

    @Test("warrants, rights and units are not companies: no earnings, micro-cap sized, priced like claims")
    func warrantsRightsAndUnits() throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 8))
        let claims = ["ACHR.W", "ACHR-WT", "AIIA.R", "AIIA-RI", "AAC.U", "AIIA-UN", "AACIW", "AACBR", "AACBU"]
        let shares = ["ACHR", "AIIA", "AACI", "AACB", "AB", "BEP", "AMX", "AAPL"]
        for symbol in claims + shares { #expect(Self.directory.entry(symbol) != nil, "\(symbol) is listed") }
        #expect(claims.allSatisfy { Self.directory.entry($0)?.isWarrantRightOrUnit == true })
        // A partnership's units and a depositary share "representing the right to receive" shares are shares.
        #expect(shares.allSatisfy { Self.directory.entry($0)?.isWarrantRightOrUnit == false })
        let year = (CivilDate(2026, 1, 1), CivilDate(2026, 12, 31))
        #expect(market.earnings(from: year.0, through: year.1, symbols: claims).isEmpty)
        #expect(market.earnings(from: year.0, through: year.1, symbols: ["ACHR"]).count == 4)
        // Nor do they pay dividends or split, in any of twenty years.
        let decade = (CivilDate(2006, 1, 1), CivilDate(2026, 12, 31))
        #expect(claims.allSatisfy { market.corporateActions($0, from: decade.0, through: decade.1).isEmpty })
        #expect(shares.contains { !market.corporateActions($0, from: decade.0, through: decade.1).isEmpty })
        for symbol in claims {
            #expect(market.sizeTier(symbol) == .micro, "\(symbol)")
            let close = try #require(
                market.bars(
                    symbol, timeframe: .day, from: Timestamp(CivilDate(2026, 3, 2), in: .newYork),
                    to: Timestamp(CivilDate(2026, 3, 3), in: .newYork)
                ).last?.close)
            // A warrant or a right for cents to a few dollars; a unit near its $10 trust value.
            let ceiling: FixedDecimal = symbol.hasSuffix("U") || symbol.hasSuffix("UN") ? 30 : 20
            #expect(close > .zero && close < ceiling, "\(symbol) closed at \(close)")
        }
    }

    @Test(
        "earnings: four reports a year on stable dates, known ahead; the report gaps the next open and the day trades more"
    )
    func earnings() throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 8))
        let year = market.earnings(from: CivilDate(2026, 1, 1), through: CivilDate(2026, 12, 31), symbols: ["AAPL"])
        #expect(year.count == 4)
        // Apple's fiscal year ends in September: its first quarter is the December one, reported in January.
        #expect(year.map(\.fiscalQuarter) == [1, 2, 3, 4])
        #expect(year.map(\.fiscalYear) == [2026, 2026, 2026, 2026])
        #expect(year.first.map { $0.date.month <= 2 } == true)
        #expect(year.allSatisfy { Self.nyse.isTradingDay($0.date) })
        // Stable: another market with the same seed, and a request for one week, give the same dates.
        let again = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 8))
        let first = try #require(year.first)
        #expect(again.earnings(from: first.date, through: first.date, symbols: ["AAPL"]) == [first])
        // Funds and unknown symbols have none; A-shares report in their seasons, in the evening.
        #expect(
            market.earnings(from: CivilDate(2026, 1, 1), through: CivilDate(2026, 12, 31), symbols: ["SPY", "ZZZZ"])
                .isEmpty)
        let moutai = market.earnings(from: CivilDate(2026, 1, 1), through: CivilDate(2026, 12, 31), symbols: ["600519"])
        #expect(moutai.count == 4)
        #expect(moutai.allSatisfy { $0.time == .afterClose })
        #expect(moutai.map(\.date.month).allSatisfy { [3, 4, 5, 8, 10].contains($0) })
        // The news: the date two weeks ahead, then the report when it is out (A-shares in Chinese).
        let news = market.news("AAPL", from: first.date.adding(days: -20), through: first.date)
        #expect(news.contains { $0.headline == "Apple Inc. reports first-quarter 2026 results" })
        #expect(
            news.contains {
                $0.headline == "Apple Inc. to report first-quarter 2026 results on \(first.date)"
                    && $0.time == Timestamp(first.date.adding(days: -14), hour: 8, in: .newYork)
            })
        let annual = try #require(moutai.first)
        #expect(
            market.news("600519", from: annual.date, through: annual.date).contains {
                $0.headline == "贵州茅台：2025年年度报告"
            })
        // Fiscal years end in different months, so reports come in every month (late November too: companies whose
        // quarter ended in October).
        let months = Set(
            market.earnings(from: CivilDate(2026, 1, 1), through: CivilDate(2026, 12, 31)).map(\.date.month))
        #expect(months == Set(1...12))
        #expect(!market.earnings(from: CivilDate(2026, 11, 23), through: CivilDate(2026, 11, 30)).isEmpty)
        // The whole calendar for a week: hundreds of companies, sorted by date.
        let week = market.earnings(from: CivilDate(2026, 10, 26), through: CivilDate(2026, 10, 30))
        #expect(week.count > 200)
        #expect(week == week.sorted { ($0.date, $0.symbol) < ($1.date, $1.symbol) })

        // What reports do: over 30 large companies and five years, the opening gap on the day a report lands is several
        // times the usual one, and that day's volume surges.
        var reportGaps: [Double] = [], otherGaps: [Double] = []
        var reportVolume: [Double] = [], otherVolume: [Double] = []
        let zone = ExchangeTimeZone.newYork
        for entry in Self.sample(30) {
            let reports = market.earnings(
                from: CivilDate(2021, 1, 1), through: CivilDate(2025, 12, 31), symbols: [entry.symbol])
            #expect(reports.count == 20, "\(entry.symbol)")
            var landing = Set<CivilDate>()
            for r in reports {
                landing.insert(r.time == .beforeOpen ? r.date : Self.nyse.nextTradingDay(after: r.date))
            }
            let bars = market.bars(
                entry.symbol, timeframe: .day, from: Timestamp(CivilDate(2021, 1, 1), in: zone),
                to: Timestamp(CivilDate(2026, 1, 1), in: zone))
            for (previous, bar) in zip(bars, bars.dropFirst()) {
                let gap = abs(log(Double(bar.open.description)! / Double(previous.close.description)!))
                let volume = Double(bar.volume.description)!
                if landing.contains(zone.localTime(of: bar.time).date) {
                    reportGaps.append(gap)
                    reportVolume.append(volume)
                } else if gap < 0.2 { // not an ex-date of a split
                    otherGaps.append(gap)
                    otherVolume.append(volume)
                }
            }
        }
        func mean(_ xs: [Double]) -> Double { xs.reduce(0, +) / Double(max(xs.count, 1)) }
        #expect(reportGaps.count > 500)
        #expect(
            mean(reportGaps) > 3 * mean(otherGaps), "gaps: reports \(mean(reportGaps)), other days \(mean(otherGaps))")
        #expect(mean(reportVolume) > 1.8 * mean(otherVolume))
    }

    @Test("options price the next report: implied volatility is higher for expiries after it, and falls once it is out")
    func earningsVolatility() async throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 8))
        let report = try #require(
            market.earnings(from: CivilDate(2026, 4, 1), through: CivilDate(2026, 9, 30), symbols: ["AAPL"]).first)
        let landing = report.time == .afterClose ? Self.nyse.nextTradingDay(after: report.date) : report.date
        var before = landing
        for _ in 0..<6 { before = Self.nyse.previousTradingDay(before: before) }
        /// At-the-money call volatility of each expiration on a day (noon in New York).
        func smile(on day: CivilDate) async throws -> [CivilDate: Double] {
            let clock = MarketClock(.manual(start: Timestamp(day, hour: 12, in: .newYork)))
            let options = OptionMarket(
                feed: SimulatedFeed(market: market, clock: clock), directory: Self.directory, clock: clock, seed: 0)
            let chain = try await options.chain("AAPL")
            let spot = Quantize.level(try #require(market.quote("AAPL", at: clock.now())).last)
            func distance(_ c: OptionContract) -> Double { abs(Quantize.level(c.strike) - spot) }
            var nearest: [CivilDate: OptionContract] = [:]
            for c in chain.contracts where c.right == .call {
                if let known = nearest[c.expiration], distance(known) <= distance(c) { continue }
                nearest[c.expiration] = c
            }
            let snapshots = try await options.snapshots(Array(nearest.values), of: chain)
            return Dictionary(uniqueKeysWithValues: snapshots.map { ($0.contract.expiration, $0.impliedVolatility) })
        }
        let early = try await smile(on: before)
        let expirations = early.keys.sorted()
        let last = try #require(expirations.last { $0 < landing }, "an expiry before the report")
        let next = try #require(expirations.first { $0 >= landing }, "an expiry after it")
        #expect(early[next]! > early[last]! + 0.03, "before the report: \(early[last]!) then \(early[next]!)")
        // The day the report is out: the same expiry's volatility has fallen back (the "crush").
        let after = try await smile(on: landing)
        #expect(after[next]! < early[next]! - 0.03, "\(next): \(early[next]!) before, \(after[next]!) after")
    }

    static let nyse = Market.us.calendar
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
