import Foundation
import MarketData
import Storage
import Testing
import TradingCore

@testable import Brokerage

/// Options bought on a manual clock and held through their expiration day's close: the contracts in the money by a
/// cent or more at the underlying's close are exercised into shares at the strike, the rest expire worthless — cash,
/// shares and activities exact, written the same day, once.
@Suite("Option expiry and exercise")
struct OptionExpiryTests {
    /// Friday 2026-11-20 is November's monthly expiration (the third Friday).
    static let expiration = CivilDate(2026, 11, 20)

    /// A contract of AAPL's 2026-11-20 chain: the listed strike nearest `target`.
    static func contract(_ f: BrokerageFixture, _ right: OptionRight, near target: Price) async throws -> OptionContract
    {
        let chain = try await f.brokerage.options.chain("AAPL")
        let candidates = chain.contracts.filter { $0.expiration == expiration && $0.right == right }
        return try #require(candidates.min { ($0.strike - target).magnitude < ($1.strike - target).magnitude })
    }

    static func buy(_ f: BrokerageFixture, _ symbol: String, _ qty: Int) async throws -> Order {
        try await f.brokerage.submit(
            OrderRequest(symbol: symbol, side: .buy, qty: FixedDecimal(qty)), account: f.account)
    }

    /// AAPL's official close on the expiration day, from the feed's daily bar.
    static func close(_ f: BrokerageFixture) async throws -> Price {
        let zone = ExchangeTimeZone.newYork
        let bars = try await f.brokerage.feed.bars(
            "AAPL", timeframe: .day, from: Timestamp(expiration, in: zone),
            to: Timestamp(expiration.adding(days: 1), in: zone))
        return try #require(bars.last?.close)
    }

    @Test("an in-the-money call becomes 100 shares a contract at the strike; an out-of-the-money call expires")
    func callsAtExpiry() async throws {
        try await BrokerageFixture.with { f in
            let spot = try await f.brokerage.feed.quote("AAPL").last
            let itm = try await Self.contract(f, .call, near: spot - FixedDecimal(20))
            let otm = try await Self.contract(f, .call, near: spot + FixedDecimal(25))
            let boughtITM = try await Self.buy(f, itm.occSymbol, 2)
            let boughtOTM = try await Self.buy(f, otm.occSymbol, 3)
            #expect(boughtITM.status == .filled && boughtOTM.status == .filled)
            let premiumITM = try #require(boughtITM.filledAvgPrice).times(200)
            let premiumOTM = try #require(boughtOTM.filledAvgPrice).times(300)
            let cashBefore = try #require(await f.state()).cash

            f.clock.set(Timestamp(Self.expiration, hour: 16, minute: 5, in: .newYork))
            let close = try await Self.close(f)
            #expect(close - itm.strike >= FixedDecimal(units: 1, exponent: 2) && close < otm.strike)
            try await f.brokerage.settleExpiredOptions(through: Self.expiration)

            let account = try #require(await f.state())
            #expect(account.cash == cashBefore - itm.strike.times(200))
            #expect(!account.positions.values.contains { $0.symbol == itm.occSymbol || $0.symbol == otm.occSymbol })
            let shares = try #require(account.positions.values.first { $0.symbol == "AAPL" })
            // The premium rides on in the shares' cost: strike × 200 plus what the two contracts cost.
            #expect(shares.qty == FixedDecimal(200) && shares.costBasis == itm.strike.times(200) + premiumITM)

            let activities = try await f.brokerage.activities(f.account, limit: 10)
            let kinds = activities.map(\.kind.name)
            #expect(kinds.prefix(3).sorted() == ["option_delivery", "option_exercise", "option_expiry"])
            let expiry = activities.compactMap {
                if case .optionEvent(let e) = $0.kind, e.kind == .expiry { e } else { nil }
            }
            #expect(expiry.first?.qty == FixedDecimal(-3) && expiry.first?.realizedPnL == -premiumOTM)
            #expect(expiry.first?.settlementPrice == close)
            // Written today, as the positions changed: not the next day, as Alpaca's paper accounts do.
            #expect(activities.prefix(3).allSatisfy { $0.time == f.clock.now() })

            // The ledger alone tells the same story.
            let ledger = try await f.brokerage.activities(f.account, limit: 100, ascending: true)
            let replay = LedgerReplay(startingCash: FixedDecimal(100_000), entries: ledger)
            #expect(replay.cash == account.cash)
            #expect(replay.holdings["AAPL"]?.costBasis == shares.costBasis)

            // Once: a second run (the service after a restart) changes nothing.
            try await f.brokerage.settleExpiredOptions(through: Self.expiration)
            #expect(try await f.brokerage.activities(f.account, limit: 100).count == ledger.count)

            let notes = try await f.brokerage.notifications.recent(user: f.userID).items
            #expect(notes.contains { $0.title == "\(itm.name) exercised" })
            #expect(notes.contains { $0.title == "\(otm.name) expired" })
        }
    }

    @Test(
        "an in-the-money put sells the shares held at the strike; one with no shares left to deliver is not exercised")
    func putsAtExpiry() async throws {
        try await BrokerageFixture.with(cash: 500_000) { f in
            let spot = try await f.brokerage.feed.quote("AAPL").last
            // Settled in symbol order: the lower strike first, which takes 200 of the 300 shares.
            let first = try await Self.contract(f, .put, near: spot + FixedDecimal(20))
            let second = try await Self.contract(f, .put, near: spot + FixedDecimal(30))
            #expect(first.occSymbol < second.occSymbol)
            let shares = try await Self.buy(f, "AAPL", 300)
            let premium = try #require(try await Self.buy(f, first.occSymbol, 2).filledAvgPrice).times(200)
            _ = try await Self.buy(f, second.occSymbol, 2)
            let cashBefore = try #require(await f.state()).cash
            let sharesCost = try #require(await f.state()?.positions.values.first { $0.symbol == "AAPL" }).costBasis

            f.clock.set(Timestamp(Self.expiration, hour: 16, minute: 5, in: .newYork))
            let close = try await Self.close(f)
            #expect(first.strike - close >= FixedDecimal(units: 1, exponent: 2))
            try await f.brokerage.settleExpiredOptions(through: Self.expiration)

            let account = try #require(await f.state())
            #expect(account.cash == cashBefore + first.strike.times(200))
            let left = try #require(account.positions.values.first { $0.symbol == "AAPL" })
            #expect(left.qty == FixedDecimal(100))
            #expect(
                !account.positions.values.contains { $0.symbol == first.occSymbol || $0.symbol == second.occSymbol })
            // The sale realizes the strike less two thirds of the shares' cost and the puts' premium.
            let sale = try await f.brokerage.activities(f.account, limit: 10).compactMap {
                if case .optionDelivery(let d) = $0.kind { d } else { nil }
            }
            let released = sharesCost - left.costBasis
            #expect(sale.count == 1 && sale.first?.realizedPnL == first.strike.times(200) - released - premium)
            let notes = try await f.brokerage.notifications.recent(user: f.userID).items
            #expect(notes.contains { $0.title == "\(first.name) exercised" })
            let note = try #require(notes.first { $0.title == "\(second.name) expired" })
            #expect(note.body.contains("expired without being exercised") && note.body.contains("100 are available"))
            _ = shares
        }
    }

    @Test(
        "a written call in the money is assigned out of the shares that cover it; a written put out of the money expires and its cash is free"
    )
    func writtenAtExpiry() async throws {
        try await BrokerageFixture.with(cash: 200_000) { f in
            let spot = try await f.brokerage.feed.quote("AAPL").last
            let call = try await Self.contract(f, .call, near: spot - FixedDecimal(20))
            let put = try await Self.contract(f, .put, near: spot - FixedDecimal(2))
            _ = try await Self.buy(f, "AAPL", 200)
            let sell = { (symbol: String, qty: Int) in
                try await f.brokerage.submit(
                    OrderRequest(symbol: symbol, side: .sell, qty: FixedDecimal(qty)), account: f.account)
            }
            let calls = try await sell(call.occSymbol, 2)
            let puts = try await sell(put.occSymbol, 1)
            #expect(calls.status == .filled && puts.status == .filled)
            let premium = try #require(calls.filledAvgPrice).times(200)
            let putPremium = try #require(puts.filledAvgPrice).times(100)
            let before = try #require(await f.state())
            #expect(before.optionCollateral == put.strike.times(100))
            let sharesCost = try #require(before.positions.values.first { $0.symbol == "AAPL" }).costBasis

            f.clock.set(Timestamp(Self.expiration, hour: 16, minute: 5, in: .newYork))
            let close = try await Self.close(f)
            #expect(
                close - call.strike >= FixedDecimal(units: 1, exponent: 2) && close > put.strike, "\(spot) \(close)")
            try await f.brokerage.settleExpiredOptions(through: Self.expiration)

            let account = try #require(await f.state())
            // The 200 shares went at the strike; the put expired and its collateral is free again.
            #expect(account.cash == before.cash + call.strike.times(200))
            #expect(account.positions.isEmpty && account.optionCollateral == .zero)
            let activities = try await f.brokerage.activities(f.account, limit: 10)
            let events = activities.compactMap { if case .optionEvent(let e) = $0.kind { e } else { nil } }
            #expect(events.first { $0.symbol == call.occSymbol }?.kind == .assignment)
            #expect(events.first { $0.symbol == call.occSymbol }?.qty == FixedDecimal(2))
            let expiry = try #require(events.first { $0.symbol == put.occSymbol })
            #expect(expiry.kind == .expiry && expiry.realizedPnL == putPremium)
            let sale = try #require(
                activities.compactMap { if case .optionDelivery(let d) = $0.kind { d } else { nil } }.first)
            // The shares' sale realizes the strike less their cost, plus the calls' premium.
            #expect(sale.side == .sell && sale.realizedPnL == call.strike.times(200) - sharesCost + premium)
            #expect(activities.map(\.kind.name).contains("option_assignment"))

            let ledger = try await f.brokerage.activities(f.account, limit: 100, ascending: true)
            let replay = LedgerReplay(startingCash: FixedDecimal(200_000), entries: ledger)
            #expect(replay.cash == account.cash)
            let notes = try await f.brokerage.notifications.recent(user: f.userID).items
            let assigned = try #require(notes.first { $0.title == "\(call.name) assigned" })
            #expect(assigned.body.contains("you sold 200 shares of AAPL"))
            let expired = try #require(notes.first { $0.title == "\(put.name) expired" })
            #expect(expired.body.contains("the premium is yours"))
        }
    }

    @Test(
        "a call spread in the money at expiry settles to the difference of the strikes, though the cash could not buy the long leg's shares"
    )
    func spreadAtExpiry() async throws {
        try await BrokerageFixture.with(cash: 10_000) { f in
            let spot = try await f.brokerage.feed.quote("AAPL").last
            let long = try await Self.contract(f, .call, near: spot - FixedDecimal(25))
            let short = try await Self.contract(f, .call, near: spot - FixedDecimal(15))
            #expect(long.strike < short.strike)
            #expect(try await Self.buy(f, long.occSymbol, 1).status == .filled)
            let written = try await f.brokerage.submit(
                OrderRequest(symbol: short.occSymbol, side: .sell, qty: FixedDecimal(1)), account: f.account)
            #expect(written.status == .filled)
            let before = try #require(await f.state())
            // The long call covers the written one: no shares, no cash set aside (it cannot lose at expiry).
            #expect(before.optionCollateral == .zero && before.sharesCoveringCalls("AAPL") == .zero)
            #expect(before.cash < long.strike.times(100))

            f.clock.set(Timestamp(Self.expiration, hour: 16, minute: 5, in: .newYork))
            let close = try await Self.close(f)
            #expect(close - short.strike >= FixedDecimal(units: 1, exponent: 2), "\(spot) \(close)")
            try await f.brokerage.settleExpiredOptions(through: Self.expiration)

            let account = try #require(await f.state())
            // Assigned on the written call (100 shares sold at its strike), then the long call exercised (bought back
            // at its own): the difference of the strikes is what the spread paid.
            #expect(account.positions.isEmpty, "\(account.positions.values.map { "\($0.qty) \($0.symbol)" })")
            #expect(account.cash == before.cash + (short.strike - long.strike).times(100))
            let activities = try await f.brokerage.activities(f.account, limit: 10)
            let events = activities.compactMap { if case .optionEvent(let e) = $0.kind { e } else { nil } }
            #expect(events.first { $0.symbol == short.occSymbol }?.kind == .assignment)
            #expect(events.first { $0.symbol == long.occSymbol }?.kind == .exercise)
            let ledger = try await f.brokerage.activities(f.account, limit: 100, ascending: true)
            #expect(LedgerReplay(startingCash: FixedDecimal(10_000), entries: ledger).cash == account.cash)
        }
    }

    @Test("from 15:15 ET on expiry day, in-the-money calls the account cannot pay to exercise are sold at the bid")
    func sellOut() async throws {
        try await BrokerageFixture.with { f in
            let spot = try await f.brokerage.feed.quote("AAPL").last
            let call = try await Self.contract(f, .call, near: spot - FixedDecimal(20))
            // Five contracts cost about $10,000; exercising them would buy $150,000 of shares with $90,000.
            _ = try await Self.buy(f, call.occSymbol, 5)
            f.clock.set(Timestamp(Self.expiration, hour: 15, minute: 10, in: .newYork))
            try await f.brokerage.sellOutUncarriedOptions()
            #expect(try #require(await f.state()).positions.values.contains { $0.symbol == call.occSymbol })

            f.clock.set(Timestamp(Self.expiration, hour: 15, minute: 16, in: .newYork))
            try await f.brokerage.sellOutUncarriedOptions()
            // What the bid's size does not take at once, the market order takes as the quotes come (one sell-out
            // order: the service's next minute leaves it working).
            for _ in 0..<10 {
                f.clock.advance(by: Duration64.minute)
                try await f.brokerage.sellOutUncarriedOptions()
                try await f.brokerage.pumpMarket()
            }
            let account = try #require(await f.state())
            #expect(!account.positions.values.contains { $0.symbol == call.occSymbol })
            let sold = try await f.brokerage.activities(f.account, limit: 10).compactMap {
                if case .fill(let fill) = $0.kind, fill.side == .sell { fill } else { nil }
            }
            #expect(sold.allSatisfy { $0.symbol == call.occSymbol && $0.orderID == sold.first?.orderID })
            #expect(sold.reduce(FixedDecimal.zero) { $0 + $1.qty } == FixedDecimal(5))
            let notes = try await f.brokerage.notifications.recent(user: f.userID).items
            let note = try #require(notes.first { $0.title == "\(call.name) sold before expiry" })
            #expect(note.body.contains("buying power is"))
        }
    }

    @Test("the day's close values an option position at the contract's close × 100, and the equity adds up")
    func equityHistory() async throws {
        try await BrokerageFixture.with { f in
            let spot = try await f.brokerage.feed.quote("AAPL").last
            let call = try await Self.contract(f, .call, near: spot)
            _ = try await Self.buy(f, call.occSymbol, 3)
            // The expiration day's own close, before the settlement a minute later, is the position's first.
            f.clock.set(Timestamp(CivilDate(2026, 11, 20), hour: 16, minute: 30, in: .newYork))
            let day = try #require(try await f.brokerage.catchUpEquityDays(f.account))
            let zone = ExchangeTimeZone.newYork
            let bars = try await f.brokerage.options.bars(
                call.occSymbol, timeframe: .day, from: Timestamp(day.date, in: zone),
                to: Timestamp(day.date.adding(days: 1), in: zone))
            let close = try #require(bars.last?.close)
            #expect(day.holdings[call.occSymbol] == FixedDecimal(3) && day.marks[call.occSymbol] == close)
            #expect(day.positionsValue == close.times(300))
            #expect(day.equity == day.cash + day.positionsValue)
        }
    }

    @Test("exercising early buys the shares now; a short, missing or expired position is refused")
    func earlyExercise() async throws {
        try await BrokerageFixture.with { f in
            let spot = try await f.brokerage.feed.quote("AAPL").last
            let call = try await Self.contract(f, .call, near: spot - FixedDecimal(10))
            _ = try await Self.buy(f, call.occSymbol, 1)
            let cashBefore = try #require(await f.state()).cash
            try await f.brokerage.exercise(call.occSymbol, account: f.account)
            let account = try #require(await f.state())
            #expect(account.cash == cashBefore - call.strike.times(100))
            #expect(account.positions.values.first { $0.symbol == "AAPL" }?.qty == FixedDecimal(100))
            await #expect(throws: BrokerageError.self) {
                try await f.brokerage.exercise(call.occSymbol, account: f.account)
            }
        }
    }

    @Test(
        "after a close, a written put worth no more than exercising it is assigned early — shares bought at the strike, the writer told why, once; a put near the money and a covered deep call are not"
    )
    func earlyAssignment() async throws {
        try await BrokerageFixture.with(cash: 500_000) { f in
            let spot = try await f.brokerage.feed.quote("AAPL").last
            let chain = try await f.brokerage.options.chain("AAPL")
            // The next expiration after today's: weeks of time value at most.
            let later = try #require(chain.contracts.map(\.expiration).filter { $0 > Self.expiration }.min())
            let puts = chain.contracts.filter { $0.expiration == later && $0.right == .put }
            let calls = chain.contracts.filter { $0.expiration == later && $0.right == .call }
            let deep = try #require(puts.max { $0.strike < $1.strike })
            let near = try #require(puts.min { ($0.strike - spot).magnitude < ($1.strike - spot).magnitude })
            let deepCall = try #require(calls.min { $0.strike < $1.strike })
            _ = try await Self.buy(f, "AAPL", 100)
            for contract in [deep, near, deepCall] {
                let sold = try await f.brokerage.submit(
                    OrderRequest(symbol: contract.occSymbol, side: .sell, qty: 1), account: f.account)
                #expect(sold.status == .filled, "\(contract.occSymbol)")
            }
            let before = try #require(await f.state())

            f.clock.set(Timestamp(Self.expiration, hour: 16, minute: 5, in: .newYork))
            // The model's value at the close: the deep put's holder gains nothing by waiting; the others' do.
            func waiting(_ c: OptionContract) async throws -> Price {
                let snapshot = try #require(try await f.brokerage.options.snapshot(c.occSymbol))
                return snapshot.theoreticalValue - c.intrinsicValue(at: snapshot.underlyingPrice)
            }
            let deepWaits = try await waiting(deep)
            let nearWaits = try await waiting(near)
            let callWaits = try await waiting(deepCall)
            #expect(deepWaits <= .zero && nearWaits.isPositive && callWaits.isPositive)
            try await f.brokerage.assignEarly(on: Self.expiration)

            let account = try #require(await f.state())
            func qty(_ symbol: String) -> Quantity? { account.positions.values.first { $0.symbol == symbol }?.qty }
            #expect(qty(deep.occSymbol) == nil)
            #expect(qty(near.occSymbol) == FixedDecimal(-1) && qty(deepCall.occSymbol) == FixedDecimal(-1))
            #expect(qty("AAPL") == FixedDecimal(200))
            #expect(account.cash == before.cash - deep.strike.times(100))
            #expect(account.optionCollateral == before.optionCollateral - deep.strike.times(100))
            let activities = try await f.brokerage.activities(f.account, limit: 10)
            let events = activities.compactMap { if case .optionEvent(let e) = $0.kind { e } else { nil } }
            #expect(events.map(\.symbol) == [deep.occSymbol] && events.first?.kind == .assignment)
            let notes = try await f.brokerage.notifications.recent(user: f.userID).items
            let told = try #require(notes.first { $0.title == "\(deep.name) assigned" })
            #expect(told.body.contains("before their expiration (\(later))"))
            #expect(told.body.contains("You bought 100 shares of AAPL"))

            // Once: the next look finds nothing more to assign.
            try await f.brokerage.assignEarly(on: Self.expiration)
            #expect(try #require(await f.state()).cash == account.cash)
        }
    }

    @Test(
        "do-not-exercise: an in-the-money call so marked expires worthless at the close; a short or missing position and a late instruction are refused"
    )
    func doNotExercise() async throws {
        try await BrokerageFixture.with { f in
            let spot = try await f.brokerage.feed.quote("AAPL").last
            let declined = try await Self.contract(f, .call, near: spot - FixedDecimal(20))
            let kept = try await Self.contract(f, .call, near: spot - FixedDecimal(30))
            #expect(declined != kept)
            _ = try await Self.buy(f, declined.occSymbol, 1)
            _ = try await Self.buy(f, kept.occSymbol, 1)
            try await f.brokerage.doNotExercise(declined.occSymbol, account: f.account)
            await #expect(throws: BrokerageError.self, "no position in it") {
                try await f.brokerage.doNotExercise(
                    try await Self.contract(f, .put, near: spot).occSymbol, account: f.account)
            }
            // The instruction is durable: committed with the account.
            let storage = try await f.independentStorage()
            let stored = try await SQLAccounts(storage).account(f.account)?.snapshot.account
            await storage.shutdown()
            #expect(stored?.positions.values.first { $0.symbol == declined.occSymbol }?.doNotExercise == true)
            let cashBefore = try #require(await f.state()).cash

            f.clock.set(Timestamp(Self.expiration, hour: 16, minute: 35, in: .newYork))
            await #expect(throws: BrokerageError.self, "after 4:30 pm ET on the expiration day") {
                try await f.brokerage.doNotExercise(kept.occSymbol, account: f.account)
            }
            let close = try await Self.close(f)
            #expect(close - declined.strike >= FixedDecimal(units: 1, exponent: 2), "both are in the money")
            try await f.brokerage.settleExpiredOptions(through: Self.expiration)
            let account = try #require(await f.state())
            // Only the kept call was exercised: 100 shares bought at its strike; the declined one simply expired.
            #expect(account.cash == cashBefore - kept.strike.times(100))
            #expect(account.positions.values.first { $0.symbol == "AAPL" }?.qty == FixedDecimal(100))
            #expect(!account.positions.values.contains { $0.symbol == declined.occSymbol })
            let expiries = try await f.brokerage.activities(f.account, limit: 10).compactMap {
                if case .optionEvent(let e) = $0.kind { (e.symbol, e.kind) } else { nil }
            }
            #expect(expiries.contains { $0 == (declined.occSymbol, .expiry) })
            #expect(expiries.contains { $0 == (kept.occSymbol, .exercise) })
        }
    }
}
