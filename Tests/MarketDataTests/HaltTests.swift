import Testing
import TradingCore

@testable import MarketData

/// US trading halts on the simulated market: news-pending halts on some smaller companies' report days and Limit
/// Up–Limit Down pauses on the days that move most. A halted stock shows its last price with no bids or offers, its
/// minutes have no bars, and it reopens where the price has got to; every timeframe still agrees.
@Suite("Trading halts")
struct HaltTests {
    static let directory = MarketRealismTests.directory

    /// Every `step`-th US primary listing outside the S&P 500 (small and micro caps mostly).
    static func smallerCompanies(_ count: Int) -> [DirectoryEntry] {
        let names = directory.entries.filter {
            $0.instrument.market == .us && $0.instrument.kind == .stock && $0.sector.isEmpty
                && $0.instrument.exchange != .otc && $0.symbol.allSatisfy(\.isLetter)
        }
        let step = max(names.count / count, 1)
        return stride(from: 0, to: names.count, by: step).prefix(count).map { names[$0] }
    }

    /// The halts of `entries` over `from`…`through`, with the symbol.
    static func halts(
        _ market: SimulatedMarket, _ entries: [DirectoryEntry], from: CivilDate, through: CivilDate
    ) -> [(symbol: String, halt: TradingHalt)] {
        entries.flatMap { entry in
            market.halts(entry.symbol, from: from, through: through).map { (entry.symbol, $0) }
        }
    }

    /// Seeds 1 and 7 (a stormy and a calm first half of 2025): each market and the halts of 60 smaller companies
    /// from January through June, scanned once for every test here.
    static let scans: [UInt64: (market: SimulatedMarket, found: [(symbol: String, halt: TradingHalt)])] = {
        var out: [UInt64: (market: SimulatedMarket, found: [(symbol: String, halt: TradingHalt)])] = [:]
        for seed: UInt64 in [1, 7] {
            let market = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: seed))
            out[seed] = (
                market,
                halts(market, smallerCompanies(60), from: CivilDate(2025, 1, 1), through: CivilDate(2025, 6, 30))
            )
        }
        return out
    }()

    @Test(
        "halts come where the real market has them: news halts on smaller companies' report days, pauses on the days that move most (in stormy markets), none for A-shares or indices",
        arguments: [1, 7] as [UInt64])
    func whereHaltsHappen(seed: UInt64) throws {
        let (market, found) = try #require(Self.scans[seed])
        let from = CivilDate(2025, 1, 1), through = CivilDate(2025, 6, 30)
        let sample = Self.smallerCompanies(60)
        let news = found.filter { $0.halt.reason == .newsPending }
        #expect(!news.isEmpty, "no news halt among \(sample.count) smaller companies in half a year")
        // (Pauses cluster where the market is stormy: `pausesOnStormyDays`.)
        // Rare all the same: a few a year per company at most.
        #expect(found.count < sample.count * 3, "\(found.count) halts")
        let zone = ExchangeTimeZone.newYork
        for (symbol, halt) in found {
            let profile = market.profile(try #require(Self.directory.entry(symbol)))
            let date = zone.localTime(of: halt.start).date
            let day = try #require(market.day(profile, on: date))
            switch halt.reason {
            case .newsPending:
                // At the open of a report day, for 20 to 89 minutes.
                #expect(profile.isReportDay(day.dayIndex), "\(symbol) \(date)")
                #expect(halt.start == day.minuteStarts[0], "\(symbol) \(date)")
                let minutes = (halt.end.nanoseconds - halt.start.nanoseconds) / 60_000_000_000
                #expect(minutes >= 20 && minutes < 90, "\(symbol) \(date): \(minutes) minutes")
            case .volatilityPause:
                #expect(halt.end.nanoseconds - halt.start.nanoseconds == 5 * 60_000_000_000, "\(symbol) \(date)")
                #expect(halt.end < day.minuteStarts[day.minuteStarts.count - 1], "reopens before the close")
            }
        }
        // Large caps pause far less often than the smaller companies.
        let large = Self.halts(market, MarketRealismTests.sample(60), from: from, through: through)
        #expect(large.count * 4 <= max(found.count, 1), "large caps \(large.count), smaller \(found.count)")
        // No halts for A-shares (their daily limits do that work) or indices.
        for symbol in ["600519", "000001", "300750", "688981", "510300"] {
            #expect(market.halts(symbol, from: from, through: through).isEmpty, "\(symbol)")
        }
        #expect(MarketIndex.allCases.allSatisfy { market.profile($0).haltRule == nil })
    }

    @Test("pauses come on the days that move most: a stormy half-year pauses smaller companies, a calm one hardly")
    func pausesOnStormyDays() throws {
        var counts: [UInt64: Int] = [:]
        for seed: UInt64 in [1, 7] {
            let (market, found) = try #require(Self.scans[seed])
            let pauses = found.filter { $0.halt.reason == .volatilityPause }
            counts[seed] = pauses.count
            // Each on a day that ran at least a band (5–10%, doubled near the open) from its open: its range is wide.
            for (symbol, halt) in pauses {
                let date = ExchangeTimeZone.newYork.localTime(of: halt.start).date
                let day = try #require(
                    market.bars(
                        symbol, timeframe: .day, from: Timestamp(date, in: .newYork),
                        to: Timestamp(date.adding(days: 1), in: .newYork)
                    ).first)
                let range = (day.high - day.low).divided(by: day.open, places: 4, rule: .down) ?? .zero
                #expect(range >= FixedDecimal(units: 5, exponent: 2), "\(symbol) \(date): range \(range)")
            }
        }
        // Seed 1's first half of 2025 is stormy, seed 7's calm.
        #expect((counts[1] ?? 0) >= 10, "\(counts)")
        #expect((counts[1] ?? 0) > (counts[7] ?? 0), "\(counts)")
    }

    @Test(
        "a halted session still agrees with its daily bar: no minute trades inside a halt, the open is the first trade's, the high, low and volume the traded minutes'",
        arguments: [1, 7] as [UInt64])
    func haltedSessionsAgree(seed: UInt64) throws {
        let (market, found) = try #require(Self.scans[seed])
        #expect(!found.isEmpty)
        let zone = ExchangeTimeZone.newYork
        for (symbol, halt) in found.prefix(24) {
            let date = zone.localTime(of: halt.start).date
            let dayStart = Timestamp(date, in: zone), dayEnd = Timestamp(date.adding(days: 1), in: zone)
            let minutes = try #require(market.minuteBars(symbol, on: date))
            let daily = try #require(market.bars(symbol, timeframe: .day, from: dayStart, to: dayEnd).first)
            #expect(!minutes.contains { halt.covers($0.time) }, "\(symbol) \(date): a bar inside the halt")
            #expect(minutes.allSatisfy { $0.volume.isPositive && $0.tradeCount > 0 })
            #expect(minutes.contains { $0.time == halt.end }, "\(symbol) \(date): trading resumes at the halt's end")
            let day = BarAggregation.combine(minutes)
            #expect(day?.open == daily.open, "\(symbol) \(date)")
            #expect(day?.high == daily.high, "\(symbol) \(date)")
            #expect(day?.low == daily.low, "\(symbol) \(date)")
            #expect(day?.close == daily.close, "\(symbol) \(date)")
            #expect(day?.volume == daily.volume, "\(symbol) \(date)")
            // Five-minute bars: none made of halted minutes only; together, the same day.
            let fives = market.bars(symbol, timeframe: .minutes(5), from: dayStart, to: dayEnd)
            #expect(fives.allSatisfy { $0.volume.isPositive })
            #expect(BarAggregation.combine(fives)?.volume == daily.volume)
            #expect(
                market.trades(symbol, from: halt.start, to: halt.end).isEmpty, "\(symbol) \(date): prints in a halt")
        }
    }

    @Test(
        "a quote during a halt: the last price stands, no bids or offers, the halt named; at the reopening the book is back",
        arguments: [1, 7] as [UInt64])
    func quotesDuringHalts(seed: UInt64) throws {
        let (market, found) = try #require(Self.scans[seed])
        #expect(found.contains { $0.halt.reason == .newsPending })
        for (symbol, halt) in found.prefix(24) {
            let before = try #require(market.quote(symbol, at: halt.start.adding(nanoseconds: -1)))
            for offset: Int64 in [0, 30, 150, 299] {
                let during = try #require(market.quote(symbol, at: halt.start.adding(seconds: offset)))
                #expect(during.halt == halt, "\(symbol) at +\(offset) s")
                #expect(during.bids.count == 0 && during.asks.count == 0, "\(symbol): a book during a halt")
                if halt.reason == .newsPending {
                    // Not yet opened: no open, no volume, the last price the previous close.
                    #expect(during.open == nil && during.volume.isZero && during.last == during.previousClose)
                } else {
                    #expect(during.last == before.last && during.volume == before.volume, "\(symbol): frozen")
                }
            }
            let reopened = try #require(market.quote(symbol, at: halt.end.adding(seconds: 30)))
            #expect(reopened.halt == nil && reopened.bids.count > 0 && reopened.asks.count > 0, "\(symbol)")
            if halt.reason == .newsPending {
                #expect(reopened.open != nil && reopened.volume.isPositive, "\(symbol): the reopening trades")
            } else {
                #expect(reopened.volume > before.volume, "\(symbol): the reopening trades")
            }
        }
        // The session's auctions: a session that opens halted opens with its reopening print.
        if let (symbol, halt) = found.first(where: { $0.halt.reason == .newsPending }) {
            let date = ExchangeTimeZone.newYork.localTime(of: halt.start).date
            let auctions = market.auctions(symbol, from: date, through: date, before: halt.end.adding(seconds: 3600))
            #expect(auctions.first?.opening?.time == halt.end, "\(symbol) \(date)")
            #expect(market.auctions(symbol, from: date, through: date, before: halt.end.adding(seconds: -1)).isEmpty)
        }
    }

    @Test(
        "options halt with their underlying: their quotes carry its halt and no bids or offers until the reopening"
    )
    func optionsHaltWithTheirUnderlying() async throws {
        // Optionable stocks are S&P 500 members, which pause rarely; the mid-sized ones have news halts on a few report
        // days. Their report days of two years, looked at one by one.
        let market = try #require(Self.scans[1]).market
        let nyse = TradingCalendar.xnys
        let mids = Self.directory.entries.filter {
            $0.instrument.kind == .stock && OptionMarket.optionClass(of: $0) != nil && market.profile($0).tier == .mid
        }
        var found: (symbol: String, halt: TradingHalt)?
        search: for report in market.earnings(
            from: CivilDate(2024, 1, 1), through: CivilDate(2025, 12, 31), symbols: mids.map(\.symbol))
        {
            let day = report.time == .afterClose ? nyse.nextTradingDay(after: report.date) : report.date
            if let halt = market.halts(report.symbol, from: day, through: day).first {
                found = (report.symbol, halt)
                break search
            }
        }
        let (symbol, halt) = try #require(found, "no halt among \(mids.count) mid-sized S&P 500 members' report days")
        func options(at time: Timestamp) -> OptionMarket {
            let clock = MarketClock(.manual(start: time))
            return OptionMarket(
                feed: SimulatedFeed(market: market, clock: clock), directory: Self.directory, clock: clock, seed: 0)
        }
        let during = options(at: halt.start.adding(seconds: 60))
        let chain = try await during.chain(symbol)
        let spot = Quantize.level(try #require(market.quote(symbol, at: halt.start)).last)
        let near = chain.contracts.sorted {
            abs(Quantize.level($0.strike) - spot) < abs(Quantize.level($1.strike) - spot)
        }
        .prefix(4)
        #expect(!near.isEmpty)
        for contract in near {
            let quote = try #require(try await during.quote(contract.occSymbol))
            #expect(quote.halt == halt, "\(contract.occSymbol) while \(symbol) is halted")
            #expect(quote.bids.count == 0 && quote.asks.count == 0, "\(contract.occSymbol): a book during the halt")
            let after = try #require(try await options(at: halt.end.adding(seconds: 60)).quote(contract.occSymbol))
            #expect(after.halt == nil && after.asks.count > 0, "\(contract.occSymbol) after the reopening")
        }
    }
}
