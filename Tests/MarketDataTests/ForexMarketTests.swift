import Testing
import TradingCore

@testable import MarketData

/// The simulated currency pairs: the forex week (Sunday 17:00 to Friday 17:00 New York, the day rolling at 17:00),
/// two-sided quotes with IDEALPRO's spreads, five years of history, and moves calibrated to published figures
/// (`ForexCalibration.published`) on every seed, not one.
@Suite("Simulated currency pairs")
struct ForexMarketTests {
    static let directory = try! SymbolDirectory.bundled()
    static let pairs = directory.entries.filter { $0.instrument.kind == .forex }
    static let newYork = ExchangeTimeZone.newYork

    @Test("the directory lists the G10 pairs against the dollar and USD.CNH as IB writes them; search finds 欧元")
    func directory() throws {
        #expect(Set(Self.pairs.map(\.symbol)) == Set(ForexStatistics.pairs))
        let eur = try #require(Self.directory.entry("EUR.USD"))
        #expect(eur.instrument.exchange == .idealpro && eur.instrument.currency == .usd)
        #expect(eur.instrument.currencyPair?.base == .eur && eur.instrument.currencyPair?.quote == .usd)
        #expect(eur.instrument.calendar == .forex)
        #expect(Self.directory.entry("USD.JPY")?.instrument.currency == .jpy)
        #expect(Self.directory.entry("USD.JPY")?.instrument.tick.tick(at: 157) == FixedDecimal("0.001"))
        #expect(Self.directory.entry("EURUSD")?.symbol == "EUR.USD")
        #expect(Self.directory.currencyPair(.cnh, .usd)?.symbol == "USD.CNH")
        #expect(Self.directory.currencyPair(.usd, .eur)?.symbol == "EUR.USD")
        #expect(Self.directory.currencyPair(.eur, .jpy) == nil && Self.directory.currencyPair(.usd, .usd) == nil)
        #expect(Self.directory.currencyPairs.map(\.symbol) == Self.pairs.map(\.symbol))
        #expect(Self.directory.entry("eur/usd")?.symbol == "EUR.USD")
        #expect(Self.directory.search("欧元").first?.symbol == "EUR.USD")
        #expect(Self.directory.search("EUR.USD").first?.symbol == "EUR.USD")
        #expect(Self.directory.search("离岸人民币").first?.symbol == "USD.CNH")
        #expect(Self.directory.search("AAPL").first?.symbol == "AAPL")
    }

    @Test(
        "the forex week: open from Sunday 17:00 to Friday 17:00 New York, each day's session from 17:00 the evening before, through both daylight-saving changes"
    )
    func calendar() {
        let forex = TradingCalendar.forex
        for (year, month, sunday) in [(2026, 3, 8), (2026, 11, 1), (2026, 11, 15), (2027, 1, 3)] {
            let sun = CivilDate(year, month, sunday)
            func at(_ days: Int, _ hour: Int, _ minute: Int = 0) -> Timestamp {
                Timestamp(sun.adding(days: days), hour: hour, minute: minute, in: Self.newYork)
            }
            #expect(forex.phase(at: at(0, 16, 59)) == .closed, "\(sun)")
            #expect(forex.phase(at: at(0, 17)) == .continuous, "\(sun)")
            #expect(forex.phase(at: at(1, 3)) == .continuous)
            #expect(forex.phase(at: at(3, 17, 30)) == .continuous)
            #expect(forex.phase(at: at(5, 16, 59)) == .continuous)
            #expect(forex.phase(at: at(5, 17)) == .closed)
            #expect(forex.phase(at: at(6, 12)) == .closed)
            #expect(forex.sessionDate(at: at(1, 18)) == sun.adding(days: 2), "Monday 18:00 belongs to Tuesday")
            #expect(forex.sessionDate(at: at(1, 16)) == sun.adding(days: 1))
            #expect(forex.tradingDate(at: at(0, 18)) == sun.adding(days: 1), "Sunday evening is Monday's session")
            #expect(forex.tradingDate(at: at(5, 18)) == sun.adding(days: 8), "Friday evening belongs to Monday")
            let monday = forex.schedule(on: sun.adding(days: 1))
            #expect(monday?.open == at(0, 17) && monday?.close == at(1, 17))
        }
    }

    @Test(
        "every hour of a week: a two-sided quote on the pair's step with IDEALPRO's spread while open, none traded at the weekend",
        arguments: [1, 7, 19])
    func quotesThroughTheWeek(seed: UInt64) throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: seed))
        let sunday = CivilDate(2026, 11, 15)
        for entry in Self.pairs {
            let calibration = try #require(ForexCalibration.pairs[entry.symbol])
            for hour in 0..<(7 * 24) {
                let t = Timestamp(sunday, in: Self.newYork).adding(seconds: Int64(hour) * 3_600 + 1_234)
                let q = try #require(market.quote(entry.symbol, at: t), "\(entry.symbol) at \(t)")
                #expect(q.phase == TradingCalendar.forex.phase(at: t), "\(entry.symbol) at \(t)")
                guard q.phase == .continuous else { continue }
                let bid = try #require(q.bids.best), ask = try #require(q.asks.best)
                #expect(bid.price < ask.price && bid.price.isPositive, "\(entry.symbol) at \(t)")
                let tick = entry.instrument.tick.tick(at: q.last)
                #expect(entry.instrument.tick.isValid(bid.price) && entry.instrument.tick.isValid(ask.price))
                #expect(ask.price - bid.price == tick.times(calibration.spreadTicks), "\(entry.symbol)")
                #expect(bid.size >= 500_000, "IDEALPRO's sizes at the top")
                #expect(q.tradingDate == TradingCalendar.forex.sessionDate(at: t))
                // Within a fifth of the anchor level: a week is no time for a currency.
                let level = Double(q.last.description)! / calibration.anchor
                #expect(level > 0.6 && level < 1.6, "\(entry.symbol) at \(q.last)")
            }
        }
    }

    @Test(
        "a weekday has 1,440 minute bars from 17:00 the evening before, and each day opens where the last closed",
        arguments: [1, 2])
    func minutesAndRoll(seed: UInt64) throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: seed))
        for symbol in ["EUR.USD", "USD.JPY", "USD.CNH"] {
            let tick = try #require(Self.directory.entry(symbol)).instrument.tick
            var previous: [PriceBar]?
            for day in 16...20 { // Monday to Friday
                let date = CivilDate(2026, 11, day)
                let bars = try #require(market.minuteBars(symbol, on: date))
                #expect(bars.count == 1_440, "\(symbol) on the \(day)th")
                #expect(bars.first?.time == Timestamp(date.adding(days: -1), hour: 17, minute: 0, in: Self.newYork))
                if let last = previous?.last, let first = bars.first {
                    #expect((first.open - last.close).magnitude <= tick.tick(at: last.close).times(40), "\(symbol)")
                }
                previous = bars
            }
            #expect(market.minuteBars(symbol, on: CivilDate(2026, 11, 21)) == nil, "no Saturday session")
        }
    }

    @Test(
        "five years of daily returns: EUR.USD ~7% a year, USD.CNH ~4%, the others 6–11%; EUR.USD against USD.CHF −0.8, against GBP.USD 0.7; AUD.USD with NZD.USD and with stocks",
        arguments: [1, 2, 3])
    func calibration(seed: UInt64) throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: seed))
        let published = ForexStatistics.published
        let s = ForexStatistics(market: market, from: CivilDate(2021, 1, 4), through: CivilDate(2025, 12, 31))
        #expect(s.days >= 5 * 260 - 5, "a daily bar for every weekday of five years: \(s)")
        // A walk with storms that last months measures its own volatility over five years only to within a few
        // points: a percentage point either side of the published range.
        func near(_ range: ClosedRange<Double>, _ x: Double?, by slack: Double = 0.01) -> Bool {
            guard let x else { return false }
            return x >= range.lowerBound - slack && x <= range.upperBound + slack
        }
        #expect(near(published.euroVolatility, s.volatilities["EUR.USD"]), "\(s)")
        #expect(near(published.yuanVolatility, s.volatilities["USD.CNH"]), "\(s)")
        for pair in ForexStatistics.pairs where pair != "EUR.USD" && pair != "USD.CNH" {
            #expect(near(published.g10Volatility, s.volatilities[pair], by: 0.015), "\(pair): \(s)")
        }
        #expect(near(published.euroFranc, s.euroFranc, by: 0.05), "\(s)")
        #expect(near(published.euroPound, s.euroPound, by: 0.05), "\(s)")
        #expect(near(published.australianNewZealand, s.australianNewZealand, by: 0.05), "\(s)")
        #expect(near(published.australianStocks, s.australianStocks, by: 0.05), "\(s)")
    }

    @Test("deterministic: the same seed gives the same rates in any market; another seed, others")
    func determinism() {
        let t = Timestamp(CivilDate(2026, 11, 18), hour: 9, minute: 17, in: .newYork)
        let a = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
        let b = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
        let c = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 43))
        #expect(a.quote("EUR.USD", at: t) == b.quote("EUR.USD", at: t))
        #expect(a.quote("EUR.USD", at: t)?.last != c.quote("EUR.USD", at: t)?.last)
    }
}
