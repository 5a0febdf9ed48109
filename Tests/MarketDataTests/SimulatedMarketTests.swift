import Testing
import TradingCore

@testable import MarketData

@Suite("Simulated market")
struct SimulatedMarketTests {
    static let directory = try! SymbolDirectory.bundled()
    let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
    /// Friday 2026-11-20.
    let usNoon = Timestamp(CivilDate(2026, 11, 20), hour: 12, in: .newYork)
    let cnMorning = Timestamp(CivilDate(2026, 11, 20), hour: 10, minute: 30, in: .shanghai)

    @Test("days nobody reads are given back: a day read since the last shedding stays, an unread one goes")
    func idleDaysAreShed() {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
        let day = CivilDate(2026, 11, 20)
        let aapl = market.minuteBars("AAPL", on: day)
        #expect(market.minuteBars("MSFT", on: day)?.count == 390)
        #expect(market.cachedMinutes == 780)
        #expect(market.shedIdleDays() == 0, "both were read since the cache began")
        #expect(market.minuteBars("AAPL", on: day) == aapl)
        #expect(market.shedIdleDays() == 390, "MSFT was not read since the last shedding")
        #expect(market.cachedMinutes == 390)
        #expect(market.shedIdleDays() == 390)
        #expect(market.cachedMinutes == 0)
        #expect(market.minuteBars("AAPL", on: day) == aapl, "a shed day is made again, the same")
    }

    @Test("deterministic: two markets with the same seed agree on history and live quotes")
    func determinism() {
        let other = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
        #expect(market.quote("AAPL", at: usNoon) == other.quote("AAPL", at: usNoon))
        let from = Timestamp(CivilDate(2024, 1, 1), in: .newYork)
        #expect(
            market.bars("AAPL", timeframe: .day, from: from, to: usNoon)
                == other.bars("AAPL", timeframe: .day, from: from, to: usNoon))
        let different = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 43))
        #expect(market.quote("AAPL", at: usNoon)?.last != different.quote("AAPL", at: usNoon)?.last)
    }

    @Test("random access: a day's bars are the same whether or not earlier days were generated")
    func randomAccess() {
        let fresh = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
        _ = market.bars("MSFT", timeframe: .day, from: Timestamp(CivilDate(2025, 1, 1), in: .newYork), to: usNoon)
        #expect(
            fresh.minuteBars("MSFT", on: CivilDate(2026, 11, 20))
                == market.minuteBars("MSFT", on: CivilDate(2026, 11, 20)))
    }

    @Test("each daily bar agrees with its minutes: open, close, high, low, volume and prints, limit days included")
    func dailyBarsAgreeWithMinutes() throws {
        // Five months of a US stock and A-shares (main board and ChiNext, so limit-up and limit-down days with
        // pinned minutes are among them).
        var limitDays = 0
        for symbol in ["AAPL", "600000", "600036", "000002", "000858", "600900", "002415", "000651", "300750"] {
            let zone = Self.directory.entry(symbol)!.instrument.market.calendar.zone
            let from = Timestamp(CivilDate(2026, 6, 1), in: zone), to = Timestamp(CivilDate(2026, 11, 1), in: zone)
            let days = market.bars(symbol, timeframe: .day, from: from, to: to)
            #expect(days.count > 95, "\(symbol)")
            for day in days {
                let date = zone.localTime(of: day.time).date
                let minutes = try #require(market.minuteBars(symbol, on: date), "\(symbol) \(date)")
                #expect(day.open == minutes.first?.open, "\(symbol) \(date)")
                #expect(day.close == minutes.last?.close, "\(symbol) \(date)")
                #expect(day.high == minutes.map(\.high).max(), "\(symbol) \(date)")
                #expect(day.low == minutes.map(\.low).min(), "\(symbol) \(date)")
                #expect(day.volume == minutes.reduce(FixedDecimal.zero) { $0 + $1.volume }, "\(symbol) \(date)")
                #expect(day.tradeCount == minutes.reduce(0) { $0 + $1.tradeCount }, "\(symbol) \(date)")
                #expect(minutes.allSatisfy { $0.low <= min($0.open, $0.close) && $0.high >= max($0.open, $0.close) })
                if let q = market.quote(symbol, at: Timestamp(date, hour: 23, in: zone)),
                    q.last == q.limitUp || q.last == q.limitDown
                {
                    limitDays += 1
                    #expect(q.high == day.high && q.low == day.low && q.volume == day.volume, "\(symbol) \(date)")
                }
            }
        }
        #expect(limitDays > 0)
    }

    @Test("years of daily bars in one request are the same as each day asked for alone")
    func dailyHistoryInBulk() {
        // A fresh market per check, so nothing is cached: the one-pass chain of closes (and of corporate-action
        // factors) must give exactly what a lone day computes by walking back.
        // A-shares pulled to their limits on any day moving 2% of the limit or more: long runs of pinned closes, so
        // the carried close often differs from the latent path.
        let limitHeavy = SimulatorConfiguration(seed: 42, limitPullThreshold: 0.2)
        var exDates = 0
        for (symbol, configuration) in [
            ("IBM", SimulatorConfiguration(seed: 42)), ("KO", SimulatorConfiguration(seed: 42)),
            ("600000", SimulatorConfiguration(seed: 42)), ("000858", limitHeavy), ("300750", limitHeavy),
            ("601398", limitHeavy),
        ] {
            let zone = Self.directory.entry(symbol)!.instrument.market.calendar.zone
            let bulk = SimulatedMarket(directory: Self.directory, configuration: configuration)
            let history = bulk.bars(
                symbol, timeframe: .day, from: Timestamp(CivilDate(2022, 1, 1), in: zone),
                to: Timestamp(CivilDate(2026, 11, 21), in: zone))
            #expect(history.count > 1150, "\(symbol)")
            // Every 23rd day alone, and the days around the history's corporate actions.
            let actions = Set(
                bulk.corporateActions(symbol, from: CivilDate(2022, 1, 1), through: CivilDate(2026, 11, 21)).map(
                    \.exDate))
            exDates += actions.count
            for (i, bar) in history.enumerated() {
                let date = zone.localTime(of: bar.time).date
                guard i % 23 == 0 || actions.contains(date) else { continue }
                let alone = SimulatedMarket(directory: Self.directory, configuration: configuration)
                let one = alone.bars(
                    symbol, timeframe: .day, from: Timestamp(date, in: zone),
                    to: Timestamp(date.adding(days: 1), in: zone))
                #expect(one == [bar], "\(symbol) \(date)")
            }
        }
        #expect(exDates > 0)
    }

    @Test("US sessions: 390 one-minute bars from 09:30 ET, none on weekends or holidays, 210 on an early close")
    func usSessions() throws {
        let bars = try #require(market.minuteBars("AAPL", on: CivilDate(2026, 11, 20)))
        #expect(bars.count == 390)
        #expect(bars.first?.time == Timestamp(CivilDate(2026, 11, 20), hour: 9, minute: 30, in: .newYork))
        #expect(market.minuteBars("AAPL", on: CivilDate(2026, 11, 21)) == nil) // Saturday
        #expect(market.minuteBars("AAPL", on: CivilDate(2026, 11, 26)) == nil) // Thanksgiving
        #expect(market.minuteBars("AAPL", on: CivilDate(2026, 11, 27))?.count == 210)
    }

    @Test("A-share sessions: 240 minutes with the lunch break, nothing between 11:30 and 13:00")
    func cnSessions() throws {
        let bars = try #require(market.minuteBars("600519", on: CivilDate(2026, 11, 20)))
        #expect(bars.count == 240)
        let lunch = Timestamp(CivilDate(2026, 11, 20), hour: 11, minute: 30, in: .shanghai)
        let afternoon = Timestamp(CivilDate(2026, 11, 20), hour: 13, in: .shanghai)
        #expect(!bars.contains { $0.time >= lunch && $0.time < afternoon })
        let atLunch = try #require(
            market.quote("600519", at: Timestamp(CivilDate(2026, 11, 20), hour: 12, in: .shanghai)))
        #expect(atLunch.phase == .lunchBreak)
        #expect(atLunch.last == bars[119].close) // frozen at the 11:29 bar's close
    }

    @Test("bars at every timeframe aggregate the same minute path consistently")
    func aggregation() throws {
        let day = CivilDate(2026, 11, 20)
        let from = Timestamp(day, in: .newYork), to = Timestamp(day.adding(days: 1), in: .newYork)
        let minutes = try #require(market.minuteBars("AAPL", on: day))
        let five = market.bars("AAPL", timeframe: .minutes(5), from: from, to: to)
        let daily = try #require(market.bars("AAPL", timeframe: .day, from: from, to: to).first)
        #expect(five.count == 78)
        #expect(five[1].open == minutes[5].open)
        #expect(five[1].close == minutes[9].close)
        #expect(five[1].high == minutes[5...9].map(\.high).max())
        #expect(daily.high == minutes.map(\.high).max())
        #expect(daily.low == minutes.map(\.low).min())
        #expect(daily.open == minutes.first?.open)
        #expect(daily.close == minutes.last?.close)
        #expect(daily.volume == minutes.reduce(FixedDecimal.zero) { $0 + $1.volume })
        for bar in minutes + five {
            #expect(bar.low <= min(bar.open, bar.close) && bar.high >= max(bar.open, bar.close))
        }
        let hourly = market.bars("AAPL", timeframe: .hours(1), from: from, to: to)
        #expect(hourly.count == 7)
        let weekly = market.bars(
            "AAPL", timeframe: .week, from: Timestamp(CivilDate(2026, 11, 16), in: .newYork), to: to)
        #expect(weekly.count == 1)
        #expect(
            weekly.first?.high
                == market.bars("AAPL", timeframe: .day, from: Timestamp(CivilDate(2026, 11, 16), in: .newYork), to: to)
                .map(\.high).max())
    }

    @Test(
        "an intraday window that starts part-way through a session has the same bars as the whole day from then on, at every timeframe, before and during the session's end"
    )
    func windowsAgreeWithTheWholeDay() throws {
        let sessions: [(String, CivilDate, ExchangeTimeZone, open: Int, minutes: Int)] = [
            ("AAPL", CivilDate(2026, 11, 20), .newYork, 9 * 60 + 30, 390),
            ("600519", CivilDate(2026, 11, 20), .shanghai, 9 * 60 + 30, 330), // (the lunch break inside)
        ]
        for (symbol, day, zone, open, length) in sessions {
            let start = Timestamp(day, in: zone)
            // At the end of the day, and part-way through (a partial minute under way).
            for to in [Timestamp(day.adding(days: 1), in: zone), start.adding(seconds: Int64((open + 200) * 60 + 17))] {
                for timeframe in [BarTimeframe.minutes(1), .minutes(5), .minutes(30), .hours(1)] {
                    let whole = market.bars(symbol, timeframe: timeframe, from: start, to: to)
                    #expect(!whole.isEmpty, "\(symbol) \(timeframe)")
                    for offset in stride(from: open - 3, through: open + length + 3, by: 7) {
                        let from = start.adding(seconds: Int64(offset * 60 + offset % 50))
                        #expect(
                            market.bars(symbol, timeframe: timeframe, from: from, to: to)
                                == whole.filter { $0.time >= from }, "\(symbol) \(timeframe) from \(from) to \(to)")
                    }
                }
            }
        }
    }

    @Test("quotes carry five levels of depth around the last price, on the tick grid")
    func depth() throws {
        let q = try #require(market.quote("AAPL", at: usNoon))
        #expect(q.bids.count == 5 && q.asks.count == 5)
        #expect(q.bids[0].price <= q.last && q.asks[0].price > q.last)
        #expect(q.asks[0].price > q.bids[0].price)
        #expect(TickRule.usEquity.isValid(q.last))
        #expect(q.phase == .continuous)
        #expect(q.open != nil && q.high! >= q.last && q.low! <= q.last)
        let cn = try #require(market.quote("600519", at: cnMorning))
        #expect(cn.limitUp != nil && cn.limitDown != nil)
        #expect(cn.bids.count == 5)
    }

    @Test("A-shares stay inside the day's limits; limit-up days pin with an empty ask side")
    func limits() throws {
        // Find a limit-up day among a few symbols over a few months.
        var found = false
        let symbols = ["600000", "600036", "000002", "000858", "600900", "601398", "002415", "000651"]
        var date = CivilDate(2026, 6, 1)
        search: while date < CivilDate(2026, 11, 1) {
            defer { date = date.adding(days: 1) }
            guard TradingCalendar.xshg.isTradingDay(date) else { continue }
            for symbol in symbols {
                guard let bars = market.minuteBars(symbol, on: date),
                    let close = Timestamp(date, hour: 15, minute: 30, in: .shanghai) as Timestamp?,
                    let q = market.quote(symbol, at: close), let up = q.limitUp, let down = q.limitDown
                else { continue }
                #expect(bars.allSatisfy { $0.high <= up && $0.low >= down }, "\(symbol) \(date)")
                if q.last == up {
                    #expect(q.asks.isEmpty)
                    #expect(q.bids.best?.price == up)
                    found = true
                    break search
                }
            }
        }
        #expect(found)
    }

    @Test("always-open mode trades every minute of every day")
    func alwaysOpen() throws {
        let open = SimulatedMarket(
            directory: Self.directory, configuration: SimulatorConfiguration(seed: 1, sessions: .alwaysOpen))
        #expect(open.minuteBars("AAPL", on: CivilDate(2026, 11, 21))?.count == 1440)
        #expect(open.quote("AAPL", at: Timestamp(CivilDate(2026, 11, 21), hour: 3, in: .newYork))?.phase == .continuous)
    }

    @Test("market overview: SSE Composite, SZSE Component, NASDAQ, Dow Jones, S&P 500")
    func overview() {
        let indices = market.overview(at: usNoon)
        #expect(indices.map(\.index) == MarketIndex.allCases)
        #expect(indices.allSatisfy { $0.value.isPositive && $0.previousClose.isPositive })
    }

    @Test("movers: gainers sorted by change, losers ascending, most active by traded value")
    func movers() {
        let gainers = market.movers(.us, kind: .gainers, at: usNoon, limit: 10)
        #expect(gainers.count == 10)
        #expect(zip(gainers, gainers.dropFirst()).allSatisfy { $0.changePercent >= $1.changePercent })
        let losers = market.movers(.cn, kind: .losers, at: cnMorning, limit: 10)
        #expect(zip(losers, losers.dropFirst()).allSatisfy { $0.changePercent <= $1.changePercent })
        #expect(losers.first!.changePercent < gainers.last!.changePercent)
        #expect(market.movers(.us, kind: .active, at: usNoon, limit: 5).count == 5)
    }

    @Test("trades fall inside their minute's range")
    func trades() throws {
        let from = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)
        let ticks = market.trades("AAPL", from: from, to: from.adding(seconds: 600))
        let minutes = try #require(market.minuteBars("AAPL", on: CivilDate(2026, 11, 20)))
        #expect(!ticks.isEmpty)
        for tick in ticks {
            let bar = try #require(minutes.last { $0.time <= tick.time })
            #expect(tick.price >= bar.low && tick.price <= bar.high)
        }
        // Times are unique and ordered, so a page can continue after the last one; newest first reverses them.
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0.time < $1.time })
        let newest = market.trades("AAPL", from: from, to: from.adding(seconds: 600), limit: 5, descending: true)
        #expect(newest == Array(ticks.suffix(5).reversed()))
        let quotes = market.quotes("AAPL", from: from, to: from.adding(seconds: 600))
        #expect(quotes.count == ticks.count)
        #expect(quotes.allSatisfy { $0.bidPrice < $0.askPrice && $0.bidSize.isPositive })
    }

    @Test("auctions print the day's official open and close")
    func auctions() throws {
        let date = CivilDate(2026, 11, 20)
        let days = market.auctions("600519", from: date.adding(days: -2), through: date, before: .distantFuture)
        #expect(days.map(\.date) == [CivilDate(2026, 11, 18), CivilDate(2026, 11, 19), date]) // Wednesday to Friday
        let minutes = try #require(market.minuteBars("600519", on: date))
        let last = try #require(days.last)
        #expect(last.opening?.price == minutes.first?.open && last.closing?.price == minutes.last?.close)
        #expect(last.closing?.time == Timestamp(date, hour: 15, in: .shanghai))
        let morning = Timestamp(date, hour: 10, in: .shanghai)
        #expect(market.auctions("600519", from: date, through: date, before: morning).first?.closing == nil)
    }
}

@Suite("Simulated market, always open")
struct AlwaysOpenLevelTests {
    @Test("always-open prices stay at the calendar market's level")
    func levels() throws {
        let directory = try SymbolDirectory.bundled()
        let calendar = SimulatedMarket(directory: directory)
        let open = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(sessions: .alwaysOpen))
        let t = Timestamp(CivilDate(2026, 11, 20), hour: 12, in: .newYork)
        let a = try #require(calendar.quote("AAPL", at: t)?.last)
        let b = try #require(open.quote("AAPL", at: t)?.last)
        // Within a factor of two after ten months of independent paths.
        #expect(b > a.multiplied(by: FixedDecimal(units: 5, exponent: 1)) && b < a.times(2))
    }
}
