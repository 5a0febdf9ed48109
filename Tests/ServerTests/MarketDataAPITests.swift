import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MarketData
import Server
import Testing
import TradingCore

@Suite("Alpaca market data and calendar")
struct MarketDataAPITests {
    @Test("multi-symbol bars page with next_page_token until null; numbers are JSON numbers")
    func barsPagination() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let uri =
                    "/v2/stocks/bars?symbols=AAPL,MSFT&timeframe=5Min&start=2026-11-20T14:30:00Z&end=2026-11-20T15:00:00Z&limit=7"
                var token: String?
                var total = 0
                var pages = 0
                repeat {
                    let page = try await client.execute(
                        uri: uri + (token.map { "&page_token=\($0)" } ?? ""), method: .get, headers: f.auth
                    ) {
                        f.json($0)
                    }
                    let bars = page["bars"]?.object ?? [:]
                    total += bars.values.reduce(0) { $0 + ($1.array?.count ?? 0) }
                    if case .number = bars["AAPL"]?[0]?["o"] ?? .null {
                    } else if !bars.isEmpty, bars["AAPL"] != nil {
                        Issue.record("bar prices must be JSON numbers")
                    }
                    token = page["next_page_token"]?.string
                    pages += 1
                } while token != nil && pages < 10
                #expect(total == 12) // 6 five-minute bars per symbol between 09:30 and 10:00 ET
                #expect(pages == 2)
            }
        }
    }

    @Test("single-symbol bars, latest quotes, snapshots; bad timeframe is 422")
    func latestAndSnapshots() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                try await client.execute(
                    uri: "/v2/stocks/AAPL/bars?timeframe=1Min&start=2026-11-20T14:30:00Z&limit=3", method: .get,
                    headers: f.auth
                ) { response in
                    let page = f.json(response)
                    #expect(page["symbol"] == .string("AAPL"))
                    #expect(page["bars"]?.array?.count == 3)
                    #expect(page["bars"]?[0]?["t"] == .string("2026-11-20T14:30:00Z"))
                }
                try await client.execute(uri: "/v2/stocks/quotes/latest?symbols=AAPL", method: .get, headers: f.auth) {
                    response in
                    #expect(f.json(response)["quotes"]?["AAPL"]?["ap"]?.decimal != nil)
                }
                try await client.execute(uri: "/v2/stocks/snapshots?symbols=AAPL,NOPE", method: .get, headers: f.auth) {
                    response in
                    let snap = f.json(response)
                    #expect(snap["AAPL"]?["latestTrade"]?["p"]?.decimal != nil)
                    #expect(snap["AAPL"]?["prevDailyBar"] != nil)
                    #expect(snap["NOPE"] == nil)
                }
                try await client.execute(
                    uri: "/v2/stocks/bars?symbols=AAPL&timeframe=7Days", method: .get, headers: f.auth
                ) {
                    #expect($0.status == .unprocessableContent)
                }
            }
        }
    }

    @Test("calendar lists trading days with Alpaca's hour formats and early closes")
    func calendar() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                try await client.execute(
                    uri: "/v2/calendar?start=2026-11-25&end=2026-11-30", method: .get, headers: f.auth
                ) { response in
                    let days = f.json(response).array ?? []
                    #expect(days.map { $0["date"]?.string } == ["2026-11-25", "2026-11-27", "2026-11-30"])
                    #expect(days.first?["open"] == .string("09:30"))
                    #expect(days.first?["session_open"] == .string("0400"))
                    #expect(days[1]["close"] == .string("13:00"))
                    #expect(days.first?["settlement_date"] == .string("2026-11-27"))
                }
            }
        }
    }
}
