import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MarketData
import Server
import Testing
import TradingCore

@Suite("Native accounts API")
struct NativeAccountsTests {
    func signup(_ client: some TestClientProtocol, _ f: ServerFixture, _ name: String) async throws -> (
        cookie: String, usd: String, cny: String
    ) {
        try await client.execute(
            uri: "/api/v1/auth/signup", method: .post,
            body: body(#"{"username":"\#(name)","password":"long-enough-password"}"#)
        ) { response in
            let me = f.json(response)
            let cookie = response.headers[.setCookie]?.split(separator: ";").first.map(String.init) ?? ""
            return (cookie, me["accounts"]?[0]?["id"]?.string ?? "", me["accounts"]?[1]?["id"]?.string ?? "")
        }
    }

    @Test(
        "an account's API keys are listed without their secrets and revoked: a revoked key is refused by the Alpaca API at once, the other key still trades; a key cannot list or revoke keys; another user reaches neither"
    )
    func apiKeys() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let (cookie, usd, _) = try await signup(client, f, "kira")
                let auth: HTTPFields = [.cookie: cookie]
                var made: [(id: String, secret: String)] = []
                for _ in 0..<2 {
                    try await client.execute(uri: "/api/v1/accounts/\(usd)/keys", method: .post, headers: auth) { r in
                        #expect(r.status == .created)
                        made.append((f.json(r)["key_id"]?.string ?? "", f.json(r)["secret"]?.string ?? ""))
                    }
                }
                func alpaca(_ key: (id: String, secret: String)) -> HTTPFields {
                    [HTTPField.Name("APCA-API-KEY-ID")!: key.id, HTTPField.Name("APCA-API-SECRET-KEY")!: key.secret]
                }
                func account(_ key: (id: String, secret: String)) async throws -> HTTPResponse.Status {
                    try await client.execute(uri: "/v2/account", method: .get, headers: alpaca(key)) { $0.status }
                }
                #expect(try await account(made[0]) == .ok)
                #expect(try await account(made[1]) == .ok)
                try await client.execute(uri: "/api/v1/accounts/\(usd)/keys", method: .get, headers: auth) { r in
                    let listed = f.json(r).array ?? []
                    // (Oldest first; made in the same instant of the test's clock, so in either order.)
                    #expect(Set(listed.compactMap { $0["key_id"]?.string }) == Set(made.map(\.id)), "\(listed)")
                    #expect(listed.allSatisfy { $0["secret"] == nil && $0["created_at"]?.string != nil })
                }
                // A key manages no keys; a stranger reaches none of them.
                try await client.execute(
                    uri: "/api/v1/accounts/\(usd)/keys", method: .get, headers: alpaca(made[0])
                ) { r in #expect(r.status == .forbidden || r.status == .unauthorized, "\(r.status)") }
                let (other, _, _) = try await signup(client, f, "lars")
                for method in [HTTPRequest.Method.get, .delete] {
                    let uri = "/api/v1/accounts/\(usd)/keys" + (method == .delete ? "/\(made[0].id)" : "")
                    try await client.execute(uri: uri, method: method, headers: [.cookie: other]) { r in
                        #expect(r.status == .notFound, "\(method) \(r.status)")
                    }
                }
                // Revoked (after it was used, so it sat in the key cache): refused from the next request.
                try await client.execute(
                    uri: "/api/v1/accounts/\(usd)/keys/\(made[0].id)", method: .delete, headers: auth
                ) { r in #expect(r.status == .noContent) }
                #expect(try await account(made[0]) == .unauthorized)
                #expect(try await account(made[1]) == .ok)
                try await client.execute(
                    uri: "/api/v1/accounts/\(usd)/keys/\(made[0].id)", method: .delete, headers: auth
                ) { r in #expect(r.status == .notFound) }
                try await client.execute(uri: "/api/v1/accounts/\(usd)/keys", method: .get, headers: auth) { r in
                    #expect((f.json(r).array ?? []).compactMap { $0["key_id"]?.string } == [made[1].id])
                }
            }
        }
    }

    @Test("deposit with method and note, withdraw, transactions signed; orders through the session; reset")
    func accountJourney() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let (cookie, usd, _) = try await signup(client, f, "dana")
                let auth: HTTPFields = [.cookie: cookie]
                try await client.execute(
                    uri: "/api/v1/accounts/\(usd)/deposit", method: .post, headers: auth,
                    body: body(#"{"amount":"2500.50","method":"card","note":"birthday"}"#)
                ) { response in
                    #expect(response.status == .ok)
                    #expect(f.json(response)["cash"] == .string("102500.5"))
                    #expect(f.json(response)["transaction"]?["method"] == .string("card"))
                }
                try await client.execute(
                    uri: "/api/v1/accounts/\(usd)/withdraw", method: .post, headers: auth,
                    body: body(#"{"amount":"500"}"#)
                ) { #expect(f.json($0)["cash"] == .string("102000.5")) }
                try await client.execute(
                    uri: "/api/v1/accounts/\(usd)/withdraw", method: .post, headers: auth,
                    body: body(#"{"amount":"abc"}"#)
                ) { response in
                    #expect(response.status == .unprocessableContent)
                    #expect(f.json(response)["message"] == .string("Please enter a valid amount"))
                }
                try await client.execute(
                    uri: "/api/v1/accounts/\(usd)/orders", method: .post, headers: auth,
                    body: body(#"{"symbol":"AAPL","qty":"3","side":"buy","type":"market","time_in_force":"day"}"#)
                ) { response in
                    #expect(response.status == .created)
                    #expect(f.json(response)["status"] == .string("filled"))
                }
                try await client.execute(uri: "/api/v1/notifications", method: .get, headers: auth) { response in
                    let n = f.json(response)
                    #expect(n["unread"]?.int == 1)
                    #expect(
                        n["notifications"]?[0]?["body"]?.string?.hasPrefix(
                            "You have successfully bought 3 shares of AAPL at $") == true)
                }
                try await client.execute(uri: "/api/v1/notifications/read-all", method: .post, headers: auth) {
                    response in
                    #expect(f.json(response)["unread"]?.int == 0)
                }
                try await client.execute(uri: "/api/v1/accounts/\(usd)", method: .get, headers: auth) { response in
                    let account = f.json(response)
                    #expect(account["positions"]?[0]?["symbol"] == .string("AAPL"))
                    #expect(account["positions"]?[0]?["name"] == .string("Apple Inc."))
                }
                try await client.execute(uri: "/api/v1/accounts/\(usd)/transactions", method: .get, headers: auth) {
                    response in
                    let kinds = f.json(response).array?.map { $0["kind"]?.string ?? "" } ?? []
                    #expect(kinds == ["buy", "withdrawal", "deposit"])
                    #expect(f.json(response)[1]?["amount"] == .string("-500"))
                }
                try await client.execute(uri: "/api/v1/accounts/\(usd)/reset", method: .post, headers: auth) {
                    response in
                    #expect(f.json(response)["cash"] == .string("100000"))
                    #expect(f.json(response)["positions"]?.array?.isEmpty == true)
                }
                // A reset starts the figures afresh: the buy's spread and fees before it are not today's loss, nor the
                // period's return (they were: −105.00 today and −0.10% TWR with nothing held).
                try await client.execute(uri: "/api/v1/accounts/\(usd)", method: .get, headers: auth) { response in
                    #expect(Decimal(string: f.json(response)["day_change"]?.string ?? "x") == 0)
                    #expect(f.json(response)["equity"] == .string("100000"))
                }
                for period in ["1D", "1M"] {
                    try await client.execute(
                        uri: "/api/v1/accounts/\(usd)/performance?period=\(period)", method: .get, headers: auth
                    ) { response in
                        let report = f.json(response)
                        #expect(response.status == .ok)
                        for figure in ["twr", "total_return"] {
                            #expect(
                                Decimal(string: report[figure]?.string ?? "x") == 0,
                                "\(period) \(figure): \(report[figure] ?? .null)")
                        }
                    }
                }
                // Another user cannot see or touch this account.
                let (other, _, _) = try await signup(client, f, "erin")
                try await client.execute(uri: "/api/v1/accounts/\(usd)", method: .get, headers: [.cookie: other]) {
                    #expect($0.status == .notFound)
                }
                try await client.execute(
                    uri: "/api/v1/accounts/\(usd)/deposit", method: .post, headers: [.cookie: other],
                    body: body(#"{"amount":"1"}"#)
                ) { #expect($0.status == .notFound) }
                try await client.execute(
                    uri: "/api/v1/accounts", method: .post, headers: auth,
                    body: body(#"{"market":"cn","cash":"50000","name":"Second A-share"}"#)
                ) { response in
                    #expect(response.status == .created)
                    #expect(f.json(response)["currency"] == .string("CNY"))
                }
                try await client.execute(uri: "/api/v1/accounts", method: .get, headers: auth) {
                    #expect(f.json($0).array?.count == 3)
                }
            }
        }
    }

    @Test("watchlists: create with quotes, add, move, reorder, remove; names unique per account")
    func favorites() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let (cookie, usd, _) = try await signup(client, f, "fay")
                let auth: HTTPFields = [.cookie: cookie]
                let base = "/api/v1/accounts/\(usd)/watchlists"
                let id = try await client.execute(
                    uri: base, method: .post, headers: auth,
                    body: body(#"{"name":"Favorites","symbols":["aapl","MSFT"]}"#)
                ) { response in
                    #expect(response.status == .created)
                    let w = f.json(response)
                    #expect(w["items"]?.array?.map { $0["symbol"]?.string } == ["AAPL", "MSFT"])
                    #expect(w["items"]?[0]?["price"]?.decimal != nil)
                    return w["id"]?.string ?? ""
                }
                try await client.execute(
                    uri: "\(base)/\(id)/symbols", method: .post, headers: auth, body: body(#"{"symbol":"600519"}"#)
                ) { response in
                    #expect(f.json(response)["items"]?.array?.count == 3)
                }
                try await client.execute(
                    uri: "\(base)/\(id)/move", method: .post, headers: auth, body: body(#"{"symbol":"600519","to":0}"#)
                ) { response in
                    #expect(
                        f.json(response)["items"]?.array?.map { $0["symbol"]?.string } == ["600519", "AAPL", "MSFT"])
                }
                try await client.execute(
                    uri: "\(base)/\(id)", method: .put, headers: auth, body: body(#"{"symbols":["MSFT","AAPL"]}"#)
                ) { response in
                    #expect(f.json(response)["items"]?.array?.map { $0["symbol"]?.string } == ["MSFT", "AAPL"])
                }
                try await client.execute(uri: "\(base)/\(id)/symbols/MSFT", method: .delete, headers: auth) {
                    response in
                    #expect(f.json(response)["items"]?.array?.map { $0["symbol"]?.string } == ["AAPL"])
                }
                try await client.execute(uri: base, method: .post, headers: auth, body: body(#"{"name":"Favorites"}"#))
                {
                    #expect($0.status == .conflict)
                }
                try await client.execute(
                    uri: base, method: .post, headers: auth, body: body(#"{"name":"X","symbols":["NOPE"]}"#)
                ) {
                    #expect($0.status == .unprocessableContent)
                }
            }
        }
    }

    @Test(
        "a currency pair's day chart has bars in the evening too, when its trading day (from 17:00 New York) is already tomorrow's"
    )
    func forexEveningBars() async throws {
        for hour in [16, 17, 18, 23] {
            try await ServerFixture.with(at: Timestamp(CivilDate(2026, 11, 18), hour: hour, minute: 30, in: .newYork)) {
                f in
                try await f.app.test(.router) { client in
                    try await client.execute(uri: "/api/v1/bars/USD.CNH?timeframe=1Min", method: .get) { response in
                        #expect(response.status == .ok, "\(hour):30 \(String(buffer: response.body))")
                        #expect((f.json(response)["bars"]?.array?.count ?? 0) > 60, "\(hour):30")
                    }
                }
            }
        }
    }

    @Test("chart bars and market status")
    func barsAndStatus() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/api/v1/bars/AAPL?timeframe=30Min", method: .get) { response in
                    let bars = f.json(response)["bars"]?.array ?? []
                    #expect(bars.count == 1) // 09:30–10:00 ET so far
                }
                try await client.execute(
                    uri: "/api/v1/bars/600519?timeframe=1Day&from=2026-11-02&to=2026-11-20", method: .get
                ) { response in
                    #expect(f.json(response)["bars"]?.array?.count == 14)
                }
                try await client.execute(uri: "/api/v1/market/status?market=cn", method: .get) { response in
                    let s = f.json(response)
                    #expect(s["phase"] == .string("closed")) // 23:00 in Shanghai
                    #expect(s["time_zone"] == .string("Asia/Shanghai"))
                }
            }
        }
    }
}
