// Prints a simulated quote, today's bars and a search result with no network:
//
//   swift run market-demo [SYMBOL] [SEARCH TEXT]
import MarketData
import TradingCore

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
let symbol = arguments.count > 1 ? arguments[1] : "AAPL"
let text = arguments.count > 2 ? arguments[2] : "appl"

do {
    let directory = try SymbolDirectory.bundled()
    let market = SimulatedMarket(directory: directory)
    let now = MarketClock(.realtime).now()
    guard let entry = directory.entry(symbol), let q = market.quote(symbol, at: now) else {
        print("unknown symbol \(symbol)")
        exit(1)
    }
    let zone = entry.instrument.calendar.zone
    print("\(entry.symbol)  \(entry.name)  (\(entry.instrument.exchange.rawValue), simulated market)")
    print(
        "  last \(q.last)  change \(q.change) (\(q.changePercent)%)  prev close \(q.previousClose)  phase \(q.phase.rawValue)"
    )
    print(
        "  open \(q.open.map(\.description) ?? "-")  high \(q.high.map(\.description) ?? "-")  low \(q.low.map(\.description) ?? "-")  volume \(q.volume)"
    )
    if let up = q.limitUp, let down = q.limitDown { print("  limit up \(up)  limit down \(down)") }
    for i in stride(from: min(q.asks.count, 5) - 1, through: 0, by: -1) {
        print("    ask\(i + 1) \(q.asks[i].price) × \(q.asks[i].size)")
    }
    for i in 0..<min(q.bids.count, 5) { print("    bid\(i + 1) \(q.bids[i].price) × \(q.bids[i].size)") }
    let day = q.tradingDate
    let bars = market.bars(symbol, timeframe: .minutes(30), from: Timestamp(day, in: zone), to: now)
    print("\n30-minute bars of \(day) (so far):")
    for bar in bars {
        print(
            "  \(bar.time.rfc3339(in: zone, fractionalDigits: 0))  o \(bar.open)  h \(bar.high)  l \(bar.low)  c \(bar.close)  v \(bar.volume)"
        )
    }
    print("\nsearch \"\(text)\":")
    for hit in directory.search(text, limit: 5) { print("  \(hit.symbol)  \(hit.name)  \(hit.exchange.rawValue)") }
    print("\nmarket overview:")
    for index in market.overview(at: now) { print("  \(index.index.name): \(index.value) (\(index.changePercent)%)") }
} catch {
    print("error: \(error)")
    exit(1)
}
