import BrokerageModel
import Foundation
import MarketData
import SQLKit
import Storage
import Testing
import TradingCore

@testable import Brokerage

@Suite("Account performance history")
struct PerformanceTests {
    static func buyKO(_ qty: Quantity) -> OrderRequest {
        OrderRequest(symbol: "KO", side: .buy, type: .market, timeInForce: .day, qty: qty)
    }

    /// Friday 10:00 New York: buy 10 KO; Monday 10:00: deposit 5,000; Wednesday 10:00: look.
    static func week(_ f: BrokerageFixture) async throws {
        let bought = try await f.brokerage.submit(buyKO(10), account: f.account)
        #expect(bought.status == .filled)
        f.clock.advance(by: 3 * Duration64.day)
        _ = try await f.brokerage.deposit(5_000, to: f.account, method: .bank, note: nil)
        f.clock.advance(by: 2 * Duration64.day)
    }

    @Test(
        "a reset starts the figures afresh: after it, nothing gained or lost today or over any period; then a deposit is money in, not a return"
    )
    func resetStartsAfresh() async throws {
        try await BrokerageFixture.with { f in
            // Friday: 10 KO, Monday a deposit; Wednesday morning KO has moved since Tuesday's close (a day's gain or
            // loss), one more is bought at today's price, and the learner resets.
            try await Self.week(f)
            #expect(try await f.brokerage.submit(Self.buyKO(1), account: f.account).status == .filled)
            #expect(try await f.brokerage.summary(f.account).dayChange != .zero, "the day had moved before the reset")
            try await f.brokerage.reset(f.account)
            func expectAfresh(_ when: String, moved: FixedDecimal) async throws {
                let summary = try await f.brokerage.summary(f.account)
                #expect(summary.equity == 100_000 + moved, "\(when): the starting cash and what moved in")
                #expect(summary.dayChange == .zero, "\(when): today's P&L")
                for period: PerformancePeriod in [.day, .week, .month, .all] {
                    let report = try await f.brokerage.performance(f.account, period: period)
                    #expect(report.figures.totalReturn == .zero, "\(when) \(period): total return")
                    #expect(report.figures.twr == .zero, "\(when) \(period): TWR")
                    #expect(report.figures.netFlows == moved, "\(when) \(period): money moved in since the reset")
                    #expect(report.series.first?.value == 100_000, "\(when) \(period): the chart starts at the reset")
                }
            }
            try await expectAfresh("just after the reset", moved: .zero)
            _ = try await f.brokerage.deposit(1_000, to: f.account, method: .bank, note: nil)
            f.clock.advance(by: Duration64.hour)
            try await expectAfresh("after a deposit", moved: 1_000)
        }
    }

    @Test(
        "euros bought on EUR.USD: the closes value them at the pair's close, and performance counts what they gained or lost at the rate"
    )
    func currencies() async throws {
        try await BrokerageFixture.with { f in
            let bought = try await f.brokerage.submit(
                OrderRequest(symbol: "EUR.USD", side: .buy, type: .market, timeInForce: .gtc, qty: 10_000),
                account: f.account)
            #expect(bought.status == .filled)
            f.clock.advance(by: 2 * Duration64.day)
            let summary = try await f.brokerage.summary(f.account)
            let euros = try #require(summary.currencies.first { $0.balance.currency == .eur })
            #expect(euros.balance.amount == 10_000 && summary.positions.isEmpty)
            #expect(summary.equity == summary.account.cash + euros.value)
            #expect(euros.unrealizedPnL != .zero, "two days of a 7%-a-year rate move the euros' worth")
            let report = try await f.brokerage.performance(f.account, period: .all)
            #expect(report.unrealizedPnL == euros.unrealizedPnL)
            #expect(report.series.last?.value == summary.equity)
            // Friday's and Monday's closes: the dollars left and the euros at EUR.USD's close that day.
            let storage = try await f.independentStorage()
            let days = try await SQLEquityHistory(storage).equityDays(account: f.account, withHoldings: true)
            await storage.shutdown()
            #expect(!days.isEmpty)
            for day in days {
                #expect(day.holdings == ["EUR.USD": 10_000])
                let close = try #require(day.marks["EUR.USD"])
                #expect(day.equity == day.cash + close.multiplied(by: 10_000, places: 2, rule: .halfUp), "\(day.date)")
            }
        }
    }

    @Test("months are added with the day clamped to the month's end, in either direction, before year 0 too")
    func addingMonths() {
        #expect(CivilDate(2026, 3, 31).addingMonths(-1) == CivilDate(2026, 2, 28))
        #expect(CivilDate(2024, 1, 31).addingMonths(1) == CivilDate(2024, 2, 29))
        #expect(CivilDate(2026, 11, 25).addingMonths(-120) == CivilDate(2016, 11, 25))
        #expect(CivilDate(1, 1, 15).addingMonths(-1) == CivilDate(0, 12, 15))
        #expect(CivilDate(1, 1, 15).addingMonths(-13) == CivilDate(-1, 12, 15))
    }

    @Test("closes are kept per trading day at each day's closing prices; flows are the deposits and the opening cash")
    func dailyCloses() async throws {
        try await BrokerageFixture.with { f in
            try await Self.week(f)
            let report = try await f.brokerage.performance(f.account, period: .all)
            let storage = try await f.independentStorage()
            let days = try await SQLEquityHistory(storage).equityDays(account: f.account, withHoldings: true)
            await storage.shutdown()
            // Friday, Monday, Tuesday have closed; Wednesday is in progress.
            #expect(days.map(\.date) == [CivilDate(2026, 11, 20), CivilDate(2026, 11, 23), CivilDate(2026, 11, 24)])
            let bars = try await f.brokerage.feed.bars(
                "KO", timeframe: .day, from: Timestamp(CivilDate(2026, 11, 20), in: .newYork), to: f.clock.now())
            let closes = Dictionary(bars.map { (NewYork.date($0.time), $0.close) }) { a, _ in a }
            for day in days {
                #expect(day.holdings == ["KO": 10])
                let close: FixedDecimal = closes[day.date] ?? .zero
                #expect(day.equity == day.cash + close.times(10), "\(day.date) valued at its close")
            }
            #expect(days.map(\.flow) == [100_000, 5_000, 0])
            // The live point is today's equity; the figures add up.
            let summary = try await f.brokerage.summary(f.account)
            #expect(report.series.last?.value == summary.equity)
            #expect(report.figures.netFlows == 105_000)
            #expect(report.figures.totalReturn == summary.equity - 105_000)
            // TWR links the daily returns on the value after each day's flow: the deposit is not a gain.
            let values: [FixedDecimal] = [.zero] + days.map(\.equity) + [summary.equity]
            let flows: [FixedDecimal] = [.zero] + days.map(\.flow) + [.zero]
            var wealth = FixedDecimal.one
            for i in 1..<values.count where (values[i - 1] + flows[i]).isPositive {
                let base = values[i - 1] + flows[i]
                let r: FixedDecimal = (values[i] - base).divided(by: base) ?? .zero
                wealth = wealth.multiplied(by: .one + r, places: 9)
            }
            let twr = try #require(report.figures.twr)
            #expect((twr - (wealth - .one)).magnitude <= FixedDecimal(units: 1, exponent: 8))
            #expect(twr.magnitude < FixedDecimal(units: 5, exponent: 2), "a 5,000 deposit is not a 5% gain")
            #expect(report.benchmark?.index == .sp500)
            #expect(report.benchmark?.periodReturn != nil)
        }
    }

    @Test(
        "an account holding a coin keeps a close every UTC day, weekends included, each at that day's price; its statistics are annualized over 365 days"
    )
    func aroundTheClock() async throws {
        try await BrokerageFixture.with { f in
            // Friday 10:00 New York: 0.5 BTC (its fee taken in bitcoin); Wednesday 10:00: look.
            let bought = try await f.brokerage.submit(
                OrderRequest(
                    symbol: "BTC/USD", side: .buy, type: .market, timeInForce: .gtc, qty: FixedDecimal("0.5")!),
                account: f.account)
            #expect(bought.status == .filled)
            f.clock.advance(by: 5 * Duration64.day)
            let report = try await f.brokerage.performance(f.account, period: .all)
            let storage = try await f.independentStorage()
            let days = try await SQLEquityHistory(storage).equityDays(account: f.account, withHoldings: true)
            await storage.shutdown()
            // Friday through Tuesday have ended (UTC days); Wednesday is in progress.
            #expect(days.map(\.date) == (20...24).map { CivilDate(2026, 11, $0) })
            let bars = try await f.brokerage.feed.bars(
                "BTC/USD", timeframe: .day, from: Timestamp(CivilDate(2026, 11, 20), in: .utc), to: f.clock.now())
            let closes = Dictionary(bars.map { (ExchangeTimeZone.utc.localTime(of: $0.time).date, $0.close) }) { a, _ in
                a
            }
            let held = FixedDecimal("0.49875")!
            for day in days {
                #expect(day.holdings == ["BTC/USD": held])
                let close = try #require(closes[day.date])
                #expect(day.equity == day.cash + close.multiplied(by: held, places: 2, rule: .halfUp), "\(day.date)")
            }
            // Saturday's and Sunday's closes differ from Friday's: the weekend moved the account.
            #expect(Set(days.prefix(3).map(\.equity)).count == 3)
            // The chart has the weekend's points too: Saturday's and Sunday's closes, at the end of each UTC day.
            let times = Set(report.series.map(\.time))
            #expect(times.isSuperset(of: [22, 23].map { Timestamp(CivilDate(2026, 11, $0), in: .utc) }))
            #expect(report.figures.dates.contains(CivilDate(2026, 11, 21)))
        }
    }

    @Test("a backfill from the ledger gives the same rows the history kept day by day")
    func backfillMatchesKept() async throws {
        try await BrokerageFixture.with { f in
            let bought = try await f.brokerage.submit(Self.buyKO(10), account: f.account)
            #expect(bought.status == .filled)
            f.clock.advance(by: 3 * Duration64.day)
            try await f.brokerage.catchUpEquityDays(f.account) // Monday: Friday's close
            _ = try await f.brokerage.deposit(5_000, to: f.account, method: .bank, note: nil)
            _ = try await f.brokerage.submit(Self.buyKO(3), account: f.account)
            f.clock.advance(by: 2 * Duration64.day)
            try await f.brokerage.catchUpEquityDays(f.account) // Wednesday: Monday's and Tuesday's
            let storage = try await f.independentStorage()
            let kept = try await SQLEquityHistory(storage).equityDays(account: f.account, withHoldings: true)
            #expect(kept.count == 3)
            try await storage.transaction { db in try await db.raw("DELETE FROM equity_days").run() }
            await storage.shutdown()
            try await f.brokerage.catchUpEquityDays(f.account)
            let reopened = try await f.independentStorage()
            let backfilled = try await SQLEquityHistory(reopened).equityDays(account: f.account, withHoldings: true)
            await reopened.shutdown()
            #expect(backfilled == kept)
            #expect(kept.last?.holdings == ["KO": 13])
        }
    }

    @Test("the 1D chart has a point every 5 minutes of today's session, from yesterday's close to the live value")
    func intradayChart() async throws {
        try await BrokerageFixture.with { f in
            try await Self.week(f)
            let report = try await f.brokerage.performance(f.account, period: .day)
            let times = report.series.map(\.time)
            let tuesdayClose = Timestamp(CivilDate(2026, 11, 24), hour: 16, in: .newYork)
            #expect(times.first == tuesdayClose)
            // 9:35, 9:40, … 10:00 on Wednesday, then now (10:00).
            let session = (1...6).map {
                Timestamp(CivilDate(2026, 11, 25), hour: 9, minute: 30 + 5 * $0, in: .newYork)
            }
            #expect(Array(times.dropFirst().prefix(6)) == session)
            #expect(report.series.last?.value == (try await f.brokerage.summary(f.account)).equity)
            #expect(report.figures.start == CivilDate(2026, 11, 24))
            #expect(report.benchmark?.series.isEmpty == false)
        }
    }

    @Test("an account before its first close already has figures: its opening cash in, its value now")
    func newAccount() async throws {
        try await BrokerageFixture.with { f in
            _ = try await f.brokerage.submit(Self.buyKO(10), account: f.account)
            let report = try await f.brokerage.performance(f.account, period: .month)
            let equity = try await f.brokerage.summary(f.account).equity
            #expect(report.figures.netFlows == 100_000)
            #expect(report.figures.totalReturn == equity - 100_000)
            #expect(report.series.map(\.value) == [equity], "the chart starts with money in it, not at zero")
        }
    }

    @Test("a period before the account opened starts from nothing; a bad range is refused")
    func ranges() async throws {
        try await BrokerageFixture.with { f in
            try await Self.week(f)
            let year = try await f.brokerage.performance(f.account, period: .year)
            #expect(year.figures.startValue == 0)
            #expect(year.figures.netFlows == 105_000)
            await #expect(throws: BrokerageError.self) {
                try await f.brokerage.performance(
                    f.account, period: nil, start: CivilDate(2026, 11, 30), end: CivilDate(2026, 11, 1))
            }
        }
    }
}

enum NewYork {
    static func date(_ time: Timestamp) -> CivilDate { ExchangeTimeZone.newYork.localTime(of: time).date }
}
