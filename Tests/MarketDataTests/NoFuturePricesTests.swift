import Testing
import TradingCore

@testable import MarketData

/// The simulated market can compute any moment, so every read must be bounded by the moment it is asked at: bars
/// "as of" `to` hold nothing later than `to` (issue 33).
@Suite("Nothing from the future: bars as they stood at the moment asked")
struct NoFuturePricesTests {
    static let directory = try! SymbolDirectory.bundled()
    static let symbols = ["AAPL", "NVDA", "SPY", "600519", "000001", "300750"]

    @Test("at 04:28 in Beijing (20:28 UTC) there is no bar for the coming session: the last is the whole of yesterday")
    func aShareNight() throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 1))
        let now = Timestamp(CivilDate(2026, 11, 25), hour: 20, minute: 28, in: .utc)
        let bars = market.bars("600519", timeframe: .day, from: now.adding(seconds: -10 * 86_400), to: now)
        let last = try #require(bars.last)
        #expect(ExchangeTimeZone.shanghai.localTime(of: last.time).date == CivilDate(2026, 11, 25))
        // The whole of the 25th's session, as it will always read.
        let later = Timestamp(CivilDate(2026, 11, 30), hour: 12, in: .utc)
        let settled = market.bars("600519", timeframe: .day, from: now.adding(seconds: -10 * 86_400), to: later)
        #expect(settled.contains(last))
        #expect(settled.count > bars.count)
        #expect(last.close == market.quote("600519", at: now)?.last)
        #expect(market.bars("600519", timeframe: .minutes(5), from: now.adding(seconds: -3_600 * 8), to: now).isEmpty)
    }

    @Test("at 15:30 in New York the day's bar is the day so far: its close is the last trade, not the 16:00 close")
    func usAfternoon() throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 1))
        let now = Timestamp(CivilDate(2026, 11, 25), hour: 15, minute: 30, second: 17, in: .newYork)
        let close = Timestamp(CivilDate(2026, 11, 25), hour: 16, minute: 1, in: .newYork)
        let open = Timestamp(CivilDate(2026, 11, 25), hour: 9, minute: 30, in: .newYork)
        var differ = 0
        for symbol in ["AAPL", "MSFT", "NVDA", "IBM"] {
            let today = try #require(market.bars(symbol, timeframe: .day, from: open, to: now).last)
            let whole = try #require(market.bars(symbol, timeframe: .day, from: open, to: close).last)
            #expect(today.time == whole.time)
            let quote = try #require(market.quote(symbol, at: now))
            #expect(today.close == quote.last, "\(symbol)")
            #expect(today.open == whole.open)
            #expect(today.volume < whole.volume, "\(symbol): the last half hour has not traded yet")
            if today.close != whole.close { differ += 1 }
        }
        #expect(differ >= 3, "closes at 15:30 are the prices then, not the day's close")
    }

    @Test("the latest trade of a closed market is stamped with when it traded: the close's print, not the moment asked")
    func lastTradeTime() throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 1))
        let wednesday = CivilDate(2026, 11, 25), thanksgiving = CivilDate(2026, 11, 26)
        for (symbol, asked, closed) in [
            ("AAPL", Timestamp(wednesday, hour: 18, in: .newYork), Timestamp(wednesday, hour: 16, in: .newYork)),
            ("AAPL", Timestamp(thanksgiving, hour: 12, in: .newYork), Timestamp(wednesday, hour: 16, in: .newYork)),
            (
                "600519", Timestamp(thanksgiving, hour: 4, minute: 28, in: .shanghai),
                Timestamp(wednesday, hour: 15, in: .shanghai)
            ),
            (
                "600519", Timestamp(wednesday, hour: 11, minute: 45, in: .shanghai),
                Timestamp(wednesday, hour: 11, minute: 30, in: .shanghai)
            ),
        ] {
            let quote = try #require(market.quote(symbol, at: asked))
            let time = try #require(quote.lastTradeTime)
            // In the session's (or the morning's) last minute, and the last print of the trades read then.
            #expect(time < closed && time >= closed.adding(seconds: -60), "\(symbol) at \(asked): \(time)")
            let prints = market.trades(symbol, from: closed.adding(seconds: -3_600), to: asked, limit: 10_000)
            #expect(prints.last?.time == time && prints.last?.price == quote.last)
        }
        // Inside a minute, the latest print before the moment asked.
        let during = Timestamp(wednesday, hour: 10, minute: 15, second: 30, in: .shanghai)
        let time = try #require(market.quote("600519", at: during)?.lastTradeTime)
        #expect(time < during && time >= Timestamp(wednesday, hour: 10, minute: 15, in: .shanghai))
    }

    /// Instants across a week of both markets — before, during and after sessions, the lunch break, a weekend and
    /// Thanksgiving (2026-11-26, US closed) — at odd seconds, in both session policies.
    static func instants() -> [Timestamp] {
        var out: [Timestamp] = []
        var generator = SeededGenerator(seed: 20_261_125)
        let start = Timestamp(CivilDate(2026, 11, 23), in: .utc).nanoseconds
        let week: Int64 = 7 * 86_400 * 1_000_000_000
        for _ in 0..<32 { out.append(Timestamp(nanoseconds: start + Int64(generator.next() % UInt64(week)))) }
        // And the edges: a session's first and last minute, the lunch break.
        out += [
            Timestamp(CivilDate(2026, 11, 24), hour: 9, minute: 30, in: .newYork),
            Timestamp(CivilDate(2026, 11, 24), hour: 15, minute: 59, second: 59, in: .newYork),
            Timestamp(CivilDate(2026, 11, 24), hour: 11, minute: 45, in: .shanghai),
            Timestamp(CivilDate(2026, 11, 24), hour: 9, minute: 30, second: 1, in: .shanghai),
        ]
        return out
    }

    @Test(
        "at any instant of a week, both markets and both session policies: the latest bars of every timeframe agree with the quote then and end at or before it",
        arguments: [EngineConfiguration.SessionPolicy.exchangeCalendars, .alwaysOpen])
    func property(policy: EngineConfiguration.SessionPolicy) throws {
        let market = SimulatedMarket(
            directory: Self.directory, configuration: SimulatorConfiguration(seed: 7, sessions: policy))
        for now in Self.instants() {
            for symbol in Self.symbols {
                let quote = try #require(market.quote(symbol, at: now))
                let from = now.adding(seconds: -12 * 86_400)
                let days = market.bars(symbol, timeframe: .day, from: from, to: now)
                // (Minutes of the last few days: enough to hold the latest session, which began within that.)
                let recent = now.adding(seconds: -4 * 86_400)
                let minutes = market.bars(symbol, timeframe: .minutes(1), from: recent, to: now)
                let fives = market.bars(symbol, timeframe: .minutes(5), from: recent, to: now)
                let context = "\(symbol) at \(now) (\(policy))"
                guard let day = days.last, let minute = minutes.last, let five = fives.last else {
                    Issue.record("no bars: \(context)")
                    continue
                }
                // Nothing starts after now; the latest close of every timeframe is the price now.
                #expect(minute.time <= now && five.time <= now && day.time <= now, "\(context)")
                #expect(day.close == quote.last, "\(context): day \(day.close) vs last \(quote.last)")
                #expect(minute.close == quote.last && five.close == quote.last, "\(context)")
                // The day's bar is its minutes so far: high and low bound them, volume is their sum.
                let session = minutes.filter { $0.time >= day.time }
                #expect(session.allSatisfy { $0.high <= day.high && $0.low >= day.low }, "\(context)")
                #expect(session.reduce(Quantity.zero) { $0 + $1.volume } == day.volume, "\(context)")
                #expect(session.first?.open == day.open, "\(context)")
                // And the prints so far: the day's bar is made of them, the last is the latest trade.
                let prints = market.trades(symbol, from: day.time, to: now, limit: 100_000)
                #expect(prints.reduce(Quantity.zero) { $0 + $1.size } == day.volume, "\(context): volume")
                #expect(prints.allSatisfy { $0.price <= day.high && $0.price >= day.low }, "\(context): range")
                #expect(prints.last?.price == quote.last, "\(context): last print")
                #expect(prints.last?.time == quote.lastTradeTime, "\(context): last print's time")
                #expect(prints.first?.price == day.open, "\(context): first print")
                // Auctions: a closing cross is shown only once it has happened, and it is the day's close.
                let localDay = symbol.allSatisfy(\.isNumber) ? ExchangeTimeZone.shanghai : .newYork
                let today = localDay.localTime(of: now).date
                for auction in market.auctions(symbol, from: today.adding(days: -6), through: today, before: now) {
                    #expect((auction.opening?.time ?? now) <= now, "\(context): opening cross of \(auction.date)")
                    guard let closing = auction.closing else { continue }
                    #expect(closing.time <= now, "\(context): closing cross of \(auction.date) at \(closing.time)")
                    let bar = days.first { localDay.localTime(of: $0.time).date == auction.date }
                    #expect(bar?.close == closing.price, "\(context): closing cross of \(auction.date) vs its bar")
                }
            }
        }
    }
}
