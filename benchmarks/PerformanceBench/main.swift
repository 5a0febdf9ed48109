// Account performance benchmark: prints figures, asserts nothing.
//
//   swift run -c release PerformanceBench
//
// An account with five years of history (about 1,000 ledger entries: buys and sells of ten stocks every few
// trading days, fees, monthly deposits) on a SQLite database and the simulated market, then:
// 1. the backfill: its daily closes rebuilt from the ledger (`catchUpEquityDays` on an empty history);
// 2. `Brokerage.performance` for ALL, 1Y, 1M and 1D, 200 times each: median and p99. The target is ≤ 10 ms.
import Brokerage
import Foundation
import MarketData
import TradingCore

let clock = ContinuousClock()
func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}
func format(_ ms: Double) -> String { String(Int((ms * 100).rounded())).paddedMilliseconds }
extension String {
    var paddedMilliseconds: String {
        let n = Int(self) ?? 0
        let text = "\(n / 100).\(n % 100 < 10 ? "0" : "")\(n % 100) ms"
        return String(repeating: " ", count: max(0, 10 - text.count)) + text
    }
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-performance-bench-\(UUID())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let calendar = TradingCalendar.xnys
let firstDay = CivilDate(2021, 11, 22)
let lastDay = CivilDate(2026, 11, 20)
let marketClock = MarketClock(.manual(start: Timestamp(firstDay, hour: 9, minute: 45, in: .newYork)))
let symbols = try SymbolDirectory.bundled()
let market = SimulatedMarket(
    directory: symbols, configuration: SimulatorConfiguration(seed: 1, sessions: marketClock.sessions))
let brokerage = try await Brokerage.open(
    .sqlite(path: directory.path + "/papertrade.sqlite"), feed: SimulatedFeed(market: market, clock: marketClock),
    directory: symbols, clock: marketClock)
let user = try await brokerage.users.createUser(id: UserID(UUID().uuidString), username: "bench", passwordHash: "-")
let account = try await brokerage.openAccount(userID: user.id, market: .us, cash: 100_000, name: "five years").id

// Five years of trading: every other trading day one order (buy, or sell half of what is held), a deposit a month.
let stocks = ["AAPL", "MSFT", "KO", "JPM", "IBM", "NVDA", "AMZN", "GOOGL", "PEP", "XOM"]
let days = calendar.tradingDays(from: firstDay, through: lastDay)
var held: [String: Int] = [:]
var lastMonth = 0
let setup = clock.now
for (i, day) in days.enumerated() {
    marketClock.set(Timestamp(day, hour: 10, minute: 30, in: .newYork))
    if day.month != lastMonth {
        lastMonth = day.month
        _ = try await brokerage.deposit(1_000, to: account, method: .bank, note: nil)
    }
    guard i % 2 == 0 else { continue }
    let symbol = stocks[(i / 2) % stocks.count]
    let qty = held[symbol, default: 0]
    let selling = qty >= 4 && (i / 2) % 3 == 2
    let order = OrderRequest(
        symbol: symbol, side: selling ? .sell : .buy, type: .market, timeInForce: .day,
        qty: FixedDecimal(selling ? qty / 2 : 3))
    if let placed = try? await brokerage.submit(order, account: account), placed.status == .filled {
        held[symbol] = qty + (selling ? -(qty / 2) : 3)
    }
}
marketClock.set(Timestamp(CivilDate(2026, 11, 23), hour: 11, in: .newYork))
var entries = 0
var query = ActivityQuery()
query.limit = 1000
query.ascending = true
while true {
    let page = try await brokerage.activities(account, query: query)
    entries += page.count
    guard page.count == 1000, let last = page.last else { break }
    query.afterSequence = last.sequence
}
print("setup: \(days.count) trading days, \(entries) ledger entries in \(Int(milliseconds(clock.now - setup))) ms")

let backfill = clock.now
try await brokerage.catchUpEquityDays(account)
print("backfill: \(days.count) daily closes from the ledger in \(format(milliseconds(clock.now - backfill)))")

let parts = clock.now
_ = try await brokerage.feed.indexBars(
    .sp500, timeframe: .day, from: Timestamp(firstDay, in: .newYork), to: marketClock.now())
print("the S&P 500's daily bars for five years, first request (then kept): \(format(milliseconds(clock.now - parts)))")
for period in [PerformancePeriod.all, .year, .month, .day] {
    var times: [Double] = []
    var points = 0
    for _ in 0..<200 {
        let started = clock.now
        let report = try await brokerage.performance(account, period: period)
        times.append(milliseconds(clock.now - started))
        points = report.series.count
    }
    times.sort()
    print(
        "performance \(period.rawValue.padding(toLength: 3, withPad: " ", startingAt: 0)): median \(format(times[100])), p99 \(format(times[197]))  (\(points) chart points; target ≤ 10 ms)"
    )
}
await brokerage.shutdown()
