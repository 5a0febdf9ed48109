import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import NIOCore
import Server
import Testing
import TradingCore

/// Each of these requests once stopped the whole server (a trap in Swift ends the process: every user loses it). The
/// router runs in this test process, so a trap here fails the whole test run, not just the test.
@Suite("No request stops the server")
struct RequestRobustnessTests {
    @Test("corporate actions between dates before the schedule begins: 200 with none, and the server still answers")
    func corporateActionsBeforeTheSchedule() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                for (start, end) in [
                    ("1970-01-02", "1970-01-07"), ("1900-01-01", "1900-01-05"), ("1999-12-25", "1999-12-31"),
                    ("2200-12-25", "2200-12-31"), ("2099-01-01", "2099-06-30"),
                ] {
                    let uri = "/v1/corporate-actions?start=\(start)&end=\(end)&symbols=AAPL,MSFT,600519"
                    try await client.execute(uri: uri, method: .get, headers: f.auth) { response in
                        #expect(response.status == .ok, "\(uri)")
                        let actions = f.json(response)["corporate_actions"]
                        #expect(actions?.object?.isEmpty == true, "\(uri): \(actions.map { $0.serialized } ?? "")")
                    }
                }
                try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            }
        }
    }

    @Test(
        "every surface reads a date the same way: a bad one is a 422 naming the parameter; Alpaca's day-only ones take a time"
    )
    func oneDateReader() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                for uri in [
                    "/v1/corporate-actions?symbols=AAPL&start=2026-13-01&end=2026-12-31",
                    "/v2/calendar?start=20261201", "/v2/options/contracts?underlying_symbols=AAPL&expiration_date=soon",
                    "/api/v1/earnings?from=2026-02-30", "/api/v1/halts?symbols=AAPL&from=tomorrow",
                    "/api/v1/options/AAPL/chain?expiration=2026-1-5",
                ] {
                    try await client.execute(uri: uri, method: .get, headers: f.auth) { response in
                        #expect(response.status == .unprocessableContent, "\(uri)")
                        let message = f.json(response)["message"]?.string ?? ""
                        #expect(message.contains("must be a date (YYYY-MM-DD)"), "\(uri): \(message)")
                    }
                }
                // Alpaca takes an RFC 3339 time where only the day counts (the calendar, portfolio history).
                try await client.execute(
                    uri: "/v2/calendar?start=2026-12-01T00:00:00Z&end=2026-12-04T23:59:59Z", method: .get,
                    headers: f.auth
                ) { response in
                    #expect(response.status == .ok)
                    #expect(f.json(response).array?.first?["date"] == .string("2026-12-01"))
                }
            }
        }
    }

    @Test("a reversed or empty date range is refused or empty, never a range built backwards")
    func reversedRanges() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let reversed = "/v1/corporate-actions?symbols=AAPL&start=2026-01-07&end=2026-01-02"
                try await client.execute(uri: reversed, method: .get, headers: f.auth) { response in
                    #expect(response.status == .unprocessableContent)
                    #expect(f.json(response)["message"]?.string == "start must not be after end")
                }
                for uri in [
                    "/v2/stocks/AAPL/bars?timeframe=1Day&start=2026-01-07&end=2026-01-02",
                    "/v2/account/activities?after=2026-01-07T00:00:00Z&until=2026-01-02T00:00:00Z",
                    "/v2/calendar?start=2026-01-07&end=2026-01-02",
                    "/v2/account/portfolio/history?start=2026-01-07&end=2026-01-02",
                ] {
                    try await client.execute(uri: uri, method: .get, headers: f.auth) { response in
                        #expect(response.status == .ok || response.status == .unprocessableContent, "\(uri)")
                    }
                }
                try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            }
        }
    }

    @Test("a quantity and a limit each beyond the maximum are refused by name before they are multiplied")
    func quantityTimesPrice() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let cases: [(String, String)] = [
                    (
                        #"{"symbol":"AAPL","qty":"99999999999999999999","side":"buy","type":"limit","limit_price":"99999999999999","time_in_force":"gtc"}"#,
                        "qty 99999999999999999999 exceeds the maximum of 1000000000"
                    ),
                    (
                        #"{"symbol":"AAPL","qty":"1","side":"buy","type":"limit","limit_price":"99999999999999","time_in_force":"gtc"}"#,
                        "limit_price 99999999999999 exceeds the maximum of 1000000000"
                    ),
                    (
                        #"{"symbol":"AAPL","qty":"5","side":"sell","type":"limit","limit_price":"99999999999999999999","time_in_force":"gtc"}"#,
                        "limit_price 99999999999999999999 exceeds the maximum of 1000000000"
                    ),
                    (
                        #"{"symbol":"AAPL","qty":"1","side":"buy","type":"trailing_stop","trail_price":"99999999999999999999","time_in_force":"gtc"}"#,
                        "trail_price 99999999999999999999 exceeds the maximum of 1000000000"
                    ),
                    (
                        #"{"symbol":"AAPL","notional":"99999999999999999999","side":"buy","type":"market","time_in_force":"day"}"#,
                        "notional 99999999999999999999 exceeds the maximum of 1000000000000"
                    ),
                ]
                for (order, message) in cases {
                    try await client.execute(uri: "/v2/orders", method: .post, headers: f.auth, body: body(order)) {
                        #expect($0.status == .unprocessableContent, "\(order)")
                        #expect(f.json($0)["message"]?.string == message)
                    }
                }
                // At the maximums the product fits: an honest refusal for buying power.
                let largest =
                    #"{"symbol":"AAPL","qty":"1000000000","side":"buy","type":"limit","limit_price":"1000000000","time_in_force":"gtc"}"#
                try await client.execute(uri: "/v2/orders", method: .post, headers: f.auth, body: body(largest)) {
                    #expect($0.status == .forbidden)
                    #expect(f.json($0)["message"]?.string?.hasPrefix("insufficient buying power") == true)
                }
                try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            }
        }
    }

    @Test("a JSON string with a lone high surrogate before another escape is read, on any body (found by libFuzzer)")
    func loneSurrogate() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                // Unauthenticated: before the fix this body stopped the server for anyone who could reach it.
                let login = #"{"username":"\ud800\u0041","password":"whatever-it-is"}"#
                try await client.execute(uri: "/api/v1/auth/login", method: .post, body: body(login)) {
                    #expect($0.status == .unauthorized)
                }
                let order = #"{"symbol":"\ud83d\u0000\udA00","qty":"1","side":"buy","time_in_force":"day"}"#
                try await client.execute(uri: "/v2/orders", method: .post, headers: f.auth, body: body(order)) {
                    #expect($0.status == .notFound) // read, and no such asset
                    #expect(f.json($0)["message"]?.string?.hasPrefix("asset not found") == true)
                }
                try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            }
        }
    }
}
