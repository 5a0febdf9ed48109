import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing
import TradingCore

/// Through the Alpaca market-data API, at the moments issue 33 was seen at: the market never answers with a price
/// from later than the clock's now.
@Suite("No price from the future, through the Alpaca API")
struct NoFuturePricesAPITests {
    @Test("at 20:28 UTC (04:28 in Beijing) the last A-share daily bar is the 25th's, and it agrees with the snapshot")
    func aShareNight() async throws {
        let now = Timestamp(CivilDate(2026, 11, 25), hour: 20, minute: 28, in: .utc)
        try await ServerFixture.with(at: now) { f in
            try await f.app.test(.router) { client in
                let uri = "/v2/stocks/600519/bars?timeframe=1Day&limit=3&sort=desc&start=2026-11-18"
                var bar: JSONValue?
                try await client.execute(uri: uri, method: .get, headers: f.auth) { response in
                    #expect(response.status == .ok)
                    let bars = f.json(response)["bars"]?.array ?? []
                    #expect(bars.count == 3)
                    // Beijing midnight of the 25th: the 26th's session (from 09:30 Beijing) has no bar yet.
                    #expect(bars.first?["t"]?.string == "2026-11-24T16:00:00Z")
                    bar = bars.first
                }
                try await client.execute(uri: "/v2/stocks/600519/snapshot", method: .get, headers: f.auth) {
                    let snapshot = f.json($0)
                    #expect(snapshot["dailyBar"] == bar)
                    #expect(snapshot["latestTrade"]?["p"] == bar?["c"])
                    // The last trade was the 25th's closing print, in the minute before 15:00 in Beijing.
                    #expect(snapshot["latestTrade"]?["t"]?.string?.hasPrefix("2026-11-25T06:59:") == true)
                }
            }
        }
    }

    @Test("at 15:30 in New York a US daily bar is the day so far: its close is the latest trade, its volume partial")
    func usAfternoon() async throws {
        let now = Timestamp(CivilDate(2026, 11, 25), hour: 15, minute: 30, in: .newYork)
        try await ServerFixture.with(at: now) { f in
            try await f.app.test(.router) { client in
                for symbol in ["AAPL", "MSFT", "NVDA", "IBM"] {
                    try await client.execute(uri: "/v2/stocks/\(symbol)/snapshot", method: .get, headers: f.auth) {
                        let snapshot = f.json($0)
                        #expect(snapshot["dailyBar"]?["t"]?.string == "2026-11-25T05:00:00Z")
                        #expect(snapshot["dailyBar"]?["c"] == snapshot["latestTrade"]?["p"], "\(symbol)")
                        #expect(snapshot["minuteBar"]?["c"] == snapshot["latestTrade"]?["p"], "\(symbol)")
                    }
                }
            }
        }
    }

    @Test(
        "a bot reading daily bars at night to buy what will close higher tomorrow finds no signal: the bars end tonight"
    )
    func nightBot() async throws {
        let night = Timestamp(CivilDate(2026, 11, 25), hour: 20, minute: 28, in: .utc)
        let symbols = ["600519", "000001", "601318", "600036", "000858", "300750", "601012", "600900"]
        try await ServerFixture.with(at: night) { f in
            // What the coming session will close at, as the market computes it once the session is over.
            let market = f.services.market
            let after = Timestamp(CivilDate(2026, 11, 26), hour: 15, minute: 1, in: .shanghai)
            let tomorrow = Dictionary(
                uniqueKeysWithValues: symbols.map {
                    ($0, market.bars($0, timeframe: .day, from: night, to: after).last?.close)
                })
            let tonight = Dictionary(uniqueKeysWithValues: symbols.map { ($0, market.quote($0, at: night)?.last) })
            try await f.app.test(.router) { client in
                var signals = 0, leaks = 0
                for symbol in symbols {
                    var latestBar: FixedDecimal?, latestTrade: FixedDecimal?
                    let uri = "/v2/stocks/\(symbol)/bars?timeframe=1Day&limit=1&sort=desc&start=2026-11-18"
                    try await client.execute(uri: uri, method: .get, headers: f.auth) {
                        latestBar = f.json($0)["bars"]?[0]?["c"]?.decimal
                    }
                    try await client.execute(uri: "/v2/stocks/\(symbol)/trades/latest", method: .get, headers: f.auth) {
                        latestTrade = f.json($0)["trade"]?["p"]?.decimal
                    }
                    if let bar = latestBar, let trade = latestTrade, bar > trade { signals += 1 }
                    if latestBar != nil, latestBar == tomorrow[symbol] ?? nil, latestBar != tonight[symbol] ?? nil {
                        leaks += 1
                    }
                    #expect(latestBar != nil && latestBar == latestTrade, "\(symbol)")
                }
                #expect(signals == 0 && leaks == 0)
            }
            // The test can tell: the coming session closes elsewhere than tonight's price for most of them.
            #expect(symbols.filter { tomorrow[$0] ?? nil != nil && tomorrow[$0] != tonight[$0] }.count >= 6)
        }
    }
}
