import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing
import TradingCore

@Suite("Backtests API")
struct BacktestsAPITests {
    func session(_ client: some TestClientProtocol) async throws -> HTTPFields {
        try await client.execute(
            uri: "/api/v1/auth/signup", method: .post, body: body(#"{"username":"quant","password":"hunter2hunter2"}"#)
        ) { r in [.cookie: r.headers[.setCookie]?.split(separator: ";").first.map(String.init) ?? ""] }
    }

    /// Starts a backtest from a JSON body; returns the job's id (checks the 202 and hands its body to `check`).
    func start(
        _ client: some TestClientProtocol, _ f: ServerFixture, _ auth: HTTPFields, _ json: String,
        check: (JSONValue) -> Void = { _ in }
    ) async throws -> String {
        let answer = try await client.execute(uri: "/api/v1/backtests", method: .post, headers: auth, body: body(json))
        { r in
            #expect(r.status == .accepted, "\(String(buffer: r.body))")
            return f.json(r)
        }
        check(answer)
        return answer["id"]?.string ?? ""
    }

    /// Polls a job until it is no longer running (a deadline of two minutes: only a hang reaches it).
    func finished(_ client: some TestClientProtocol, _ f: ServerFixture, _ auth: HTTPFields, _ id: String)
        async throws -> JSONValue
    {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let job = try await client.execute(uri: "/api/v1/backtests/\(id)", method: .get, headers: auth) { r in
                f.json(r)
            }
            if job["status"] != .string("running") { return job }
            try await Task.sleep(for: .milliseconds(100))
        }
        return .null
    }

    @Test("a backtest runs as a job over the simulated market's daily bars and reports the CLI's figures")
    func job() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await session(client)
                let id = try await start(
                    client, f, auth,
                    #"{"symbols":["aapl"],"from":"2024-01-01","to":"2025-06-30","strategy":"sma-cross","params":{"fast":5,"slow":20},"qty":"10","commission":"none"}"#
                ) { #expect($0["request"]?["symbols"] == .array([.string("AAPL")])) }
                let job = try await finished(client, f, auth, id)
                #expect(job["status"] == .string("done"), "\(job)")
                #expect(job["progress"] == .number("100"))
                let report = try #require(job["result"])
                #expect(report["bars"]?.int ?? 0 > 300)
                #expect(report["trades"]?.int ?? 0 > 0)
                #expect(report["final_equity"]?.decimal != nil && report["max_drawdown"] != nil)
                #expect(report["fill"] == .string("next-open") && report["fees"] == .string("0"))
                #expect(report["index"]?["name"] == .string("S&P 500") && report["index"]?["return"]?.decimal != nil)
                try await client.execute(uri: "/api/v1/backtests", method: .get, headers: auth) { r in
                    #expect(f.json(r).array?.first?["id"] == .string(id))
                    #expect(f.json(r).array?.first?["result"] == nil)
                }
            }
        }
    }

    @Test("intraday backtests over the feed's 5-minute bars; the finished report as one HTML page")
    func intradayAndHTMLReport() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await session(client)
                // Two weeks of 5-minute bars: 78 a regular US session.
                let id = try await start(
                    client, f, auth,
                    #"{"symbols":["MSFT"],"from":"2025-03-03","to":"2025-03-14","strategy":"sma-cross","params":{"fast":6,"slow":24},"timeframe":"5Min"}"#
                ) { #expect($0["request"]?["timeframe"] == .string("5Min")) }
                let job = try await finished(client, f, auth, id)
                #expect(job["status"] == .string("done"), "\(job)")
                #expect(job["result"]?["bars"] == .int(10 * 78))
                #expect(job["result"]?["frequency"] == .string("5Min"))
                #expect((job["result"]?["trades"]?.int ?? 0) > 3)
                try await client.execute(uri: "/api/v1/backtests/\(id)/report.html", method: .get, headers: auth) { r in
                    #expect(r.status == .ok)
                    #expect(r.headers[.contentType]?.hasPrefix("text/html") == true)
                    let page = String(buffer: r.body)
                    #expect(page.hasPrefix("<!doctype html>") && page.contains("MSFT") && page.contains("<svg"))
                    #expect(page.contains("<html lang=\"en\">") && page.contains("Final equity"))
                }
                // A user who reads papertrade in Chinese downloads the report in Chinese: its words, not its figures.
                try await client.execute(
                    uri: "/api/v1/me", method: .put, headers: auth, body: ByteBuffer(string: #"{"language":"zh-Hans"}"#)
                ) { #expect($0.status == .ok) }
                try await client.execute(uri: "/api/v1/backtests/\(id)/report.html", method: .get, headers: auth) { r in
                    let page = String(buffer: r.body)
                    #expect(page.contains("<html lang=\"zh-Hans\">") && page.contains("MSFT 回测报告"))
                    for chinese in ["期末权益", "夏普比率", "最大回撤", "交易明细", "委托以下一根 K 线开盘价成交"] {
                        #expect(page.contains(chinese), "\(chinese)")
                    }
                    for english in ["Final equity", "Sharpe", "Max drawdown", "Trades", "orders fill", "Warning"] {
                        #expect(!page.contains(">\(english)") && !page.contains(" \(english) "), "\(english) left")
                    }
                }
                try await client.execute(uri: "/api/v1/backtests/nope/report.html", method: .get, headers: auth) { r in
                    #expect(r.status == .notFound)
                }
                for (json, message) in [
                    (#"{"symbols":["MSFT"],"timeframe":"1Week"}"#, "timeframe must be 1Day or intraday"),
                    (#"{"symbols":["MSFT"],"timeframe":"soon"}"#, "timeframe must be 1Day or intraday"),
                    (
                        #"{"symbols":["AAPL"],"timeframe":"5Min","source":"real"}"#,
                        "5-minute (timeframe 5Min) for 000338"
                    ),
                    (
                        #"{"symbols":["000338"],"timeframe":"1Hour","source":"real"}"#,
                        "the bundled real history is daily"
                    ),
                    (
                        #"{"symbols":["MSFT"],"timeframe":"1Min","from":"2023-01-01","to":"2025-01-01"}"#,
                        "at most a year"
                    ),
                ] {
                    try await client.execute(uri: "/api/v1/backtests", method: .post, headers: auth, body: body(json)) {
                        r in
                        #expect(r.status == .unprocessableContent, "\(json)")
                        #expect(f.json(r)["message"]?.string?.contains(message) == true, "\(String(buffer: r.body))")
                    }
                }
            }
        }
    }

    @Test("an account's queued rules are replayed; bad requests are refused with the reason")
    func queueRulesAndErrors() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await session(client)
                let accounts = try await client.execute(uri: "/api/v1/accounts", method: .get, headers: auth) { r in
                    f.json(r).array ?? []
                }
                let us = try #require(accounts.first { $0["market"] == .string("us") }?["id"]?.string)
                try await client.execute(
                    uri: "/api/v1/accounts/\(us)/queue", method: .post, headers: auth,
                    body: body(
                        #"{"symbol":"MSFT","side":"buy","qty":"1","condition":{"type":"change_percent_at_most","value":"-1"}}"#
                    )
                ) { r in #expect(r.status == .created || r.status == .ok, "\(String(buffer: r.body))") }
                let id = try await client.execute(
                    uri: "/api/v1/backtests", method: .post, headers: auth,
                    body: body(#"{"account_id":"\#(us)","from":"2025-01-01","to":"2025-06-30"}"#)
                ) { r in
                    #expect(r.status == .accepted, "\(String(buffer: r.body))")
                    #expect(f.json(r)["request"]?["strategy"] == .string("queue-rules"))
                    #expect(f.json(r)["request"]?["symbols"] == .array([.string("MSFT")]))
                    return f.json(r)["id"]?.string ?? ""
                }
                let job = try await finished(client, f, auth, id)
                #expect(job["status"] == .string("done"), "\(job)")
                #expect(job["result"]?["open_trades"]?.int == 1 || (job["result"]?["trades"]?.int ?? 0) > 0)

                // The bundled real history: real AAPL prices of 2010–2012, split-adjusted, no index bundled.
                let real = try await client.execute(
                    uri: "/api/v1/backtests", method: .post, headers: auth,
                    body: body(
                        #"{"symbols":["AAPL"],"from":"2010-01-01","to":"2012-12-31","strategy":"buy-and-hold","qty":"100","source":"real"}"#
                    )
                ) { r in
                    #expect(r.status == .accepted, "\(String(buffer: r.body))")
                    #expect(f.json(r)["request"]?["source"] == .string("real"))
                    return f.json(r)["id"]?.string ?? ""
                }
                let realJob = try await finished(client, f, auth, real)
                #expect(realJob["status"] == .string("done"), "\(realJob)")
                #expect(realJob["result"]?["bars"] == .int(754))
                #expect(realJob["result"]?["start"]?.string?.hasPrefix("2010-01-04") == true)
                #expect(realJob["result"]?["index"] == .null)

                // 000338's real 5-minute bars: 2019 is 244 trading days of 48 bars, stamped at each bar's end.
                let fiveMinute = try await client.execute(
                    uri: "/api/v1/backtests", method: .post, headers: auth,
                    body: body(
                        #"{"symbols":["000338"],"from":"2019-01-01","to":"2019-12-31","strategy":"sma-cross","qty":"100","source":"real","timeframe":"5Min"}"#
                    )
                ) { r in
                    #expect(r.status == .accepted, "\(String(buffer: r.body))")
                    return f.json(r)["id"]?.string ?? ""
                }
                let fiveMinuteJob = try await finished(client, f, auth, fiveMinute)
                #expect(fiveMinuteJob["status"] == .string("done"), "\(fiveMinuteJob)")
                #expect(fiveMinuteJob["result"]?["bars"] == .int(244 * 48))
                #expect(fiveMinuteJob["result"]?["frequency"] == .string("5Min"))
                #expect(fiveMinuteJob["result"]?["start"]?.string?.hasPrefix("2019-01-02T01:35:00") == true)
                #expect((fiveMinuteJob["result"]?["trades"]?.int ?? 0) > 50)

                for (json, status, message) in [
                    (
                        #"{"symbols":["TSLA"],"source":"real"}"#, HTTPResponse.Status.unprocessableContent,
                        "no bundled real history for TSLA"
                    ),
                    (#"{"symbols":["AAPL"],"source":"moon"}"#, .unprocessableContent, "source must be feed"),
                    (#"{"symbols":["NOPE"]}"#, HTTPResponse.Status.notFound, "asset not found for NOPE"),
                    (#"{"symbols":["AAPL"],"strategy":"moon"}"#, .unprocessableContent, "unknown strategy moon"),
                    (#"{"symbols":["AAPL","600519"]}"#, .unprocessableContent, "one backtest trades one currency"),
                    (
                        #"{"symbols":["AAPL"],"from":"2025-02-01","to":"2025-01-01"}"#, .unprocessableContent,
                        "from must not be after to"
                    ),
                    (#"{"symbols":["AAPL"],"commission":"lots"}"#, .unprocessableContent, "commission must be"),
                ] {
                    try await client.execute(uri: "/api/v1/backtests", method: .post, headers: auth, body: body(json)) {
                        r in
                        #expect(r.status == status, "\(json)")
                        #expect(f.json(r)["message"]?.string?.contains(message) == true, "\(String(buffer: r.body))")
                    }
                }
            }
        }
    }
}
