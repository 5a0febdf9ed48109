import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing
import TradingCore

@Suite("The user's language")
struct LanguageAPITests {
    @Test("PUT /me sets the language (kept on the server), null follows the browser again, anything else is 422")
    func setLanguage() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await AlertsAPITests().session(client, f)
                try await client.execute(uri: "/api/v1/me", method: .get, headers: auth) { r in
                    #expect(f.json(r)["language"] == .null)
                }
                try await client.execute(
                    uri: "/api/v1/me", method: .put, headers: auth, body: body(#"{"language":"zh-Hans"}"#)
                ) { r in
                    #expect(r.status == .ok)
                    #expect(f.json(r)["language"] == .string("zh-Hans"))
                }
                try await client.execute(uri: "/api/v1/me", method: .get, headers: auth) { r in
                    #expect(f.json(r)["language"] == .string("zh-Hans"))
                }
                for bad in [#"{"language":"klingon"}"#, #"{"language":5}"#, #"{"theme":"dark"}"#] {
                    try await client.execute(uri: "/api/v1/me", method: .put, headers: auth, body: body(bad)) { r in
                        #expect(r.status == .unprocessableContent, "\(bad)")
                    }
                }
                try await client.execute(
                    uri: "/api/v1/me", method: .put, headers: auth, body: body(#"{"language":null}"#)
                ) { r in
                    #expect(f.json(r)["language"] == .null)
                }
            }
        }
    }

    @Test("an account still called by its default name reads in the user's language; a name the user gave stays theirs")
    func defaultAccountNamesFollowTheLanguage() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await AlertsAPITests().session(client, f)
                try await client.execute(
                    uri: "/api/v1/accounts", method: .post, headers: auth,
                    body: body(#"{"market":"us","name":"US paper account savings"}"#)
                ) { r in #expect(r.status == .created || r.status == .ok) }
                func names() async throws -> Set<String> {
                    try await client.execute(uri: "/api/v1/accounts", method: .get, headers: auth) { r in
                        Set((f.json(r).array ?? []).compactMap { $0["name"]?.string })
                    }
                }
                #expect(try await names() == ["US paper account", "A-share paper account", "US paper account savings"])
                try await client.execute(
                    uri: "/api/v1/me", method: .put, headers: auth, body: body(#"{"language":"zh-Hans"}"#)
                ) { r in
                    let profile = Set((f.json(r)["accounts"]?.array ?? []).compactMap { $0["name"]?.string })
                    #expect(profile == ["美股模拟账户", "A 股模拟账户", "US paper account savings"])
                }
                #expect(try await names() == ["美股模拟账户", "A 股模拟账户", "US paper account savings"])
                try await client.execute(
                    uri: "/api/v1/me", method: .put, headers: auth, body: body(#"{"language":"en"}"#)
                ) { r in #expect(r.status == .ok) }
                #expect(try await names() == ["US paper account", "A-share paper account", "US paper account savings"])
            }
        }
    }

    @Test(
        "a signed-in user who chose Chinese reads the native API's order and transfer refusals in Chinese, with the same status and figures; English otherwise"
    )
    func chineseRejections() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await AlertsAPITests().session(client, f)
                let accounts = try await client.execute(uri: "/api/v1/accounts", method: .get, headers: auth) { r in
                    Dictionary(
                        uniqueKeysWithValues: (f.json(r).array ?? []).map {
                            ($0["market"]?.string ?? "", $0["id"]?.string ?? "")
                        })
                }
                let (us, cn) = (accounts["us"] ?? "", accounts["cn"] ?? "")
                // A whole-yuan price inside 600519's limits today (the simulated price moves).
                let price = try await client.execute(uri: "/api/v1/quotes/600519", method: .get) { r -> Int in
                    let q = f.json(r)
                    let low = Int(Double(q["limit_down"]?.string ?? "") ?? 0)
                    let high = Int(Double(q["limit_up"]?.string ?? "") ?? 0)
                    return (low + high) / 2
                }
                let cases:
                    [(path: String, body: String, status: HTTPResponse.Status, english: String, chinese: String)] = [
                        (
                            "\(cn)/orders",
                            #"{"symbol":"600519","qty":"150","side":"buy","type":"limit","limit_price":"\#(price)","time_in_force":"day"}"#,
                            .unprocessableContent,
                            "trades in lots of 100 shares, and 150 is not a whole number of lots",
                            "600519 的委托数量 150 必须是每手 100 股的整数倍"
                        ),
                        (
                            "\(us)/orders",
                            #"{"symbol":"AAPL","qty":"1000000","side":"buy","type":"market","time_in_force":"day"}"#,
                            .forbidden, "insufficient buying power (required: ", "可用资金不足（需要 "
                        ),
                        (
                            "\(cn)/orders",
                            #"{"symbol":"600519","qty":"100","side":"sell","type":"limit","limit_price":"\#(price)","time_in_force":"day"}"#,
                            .forbidden, "no position in 600519 (A-share accounts cannot sell short)",
                            "您没有 600519 的持仓，无法卖出（此账户不能卖空）"
                        ),
                        (
                            "\(us)/orders",
                            #"{"symbol":"AAPL","qty":"1","side":"buy","type":"limit","limit_price":"1.001","time_in_force":"day"}"#,
                            .unprocessableContent, "sub-penny increment", "limit_price 1.001 无效：美股价格的最小变动单位为 0.01"
                        ),
                        (
                            "\(us)/withdraw", #"{"amount":"99999999"}"#,
                            .forbidden, "cannot withdraw 99999999.00 USD", "无法出金 99999999.00 USD：可用资金仅 "
                        ),
                        (
                            "\(us)/orders", #"{"symbol":"AAPL","side":"buy","type":"market","time_in_force":"day"}"#,
                            .unprocessableContent, "qty or notional is required", "委托无效：qty or notional is required"
                        ),
                    ]
                for language in ["en", "zh-Hans"] {
                    try await client.execute(
                        uri: "/api/v1/me", method: .put, headers: auth, body: body(#"{"language":"\#(language)"}"#)
                    ) { #expect($0.status == .ok) }
                    for c in cases {
                        try await client.execute(
                            uri: "/api/v1/accounts/\(c.path)", method: .post, headers: auth, body: body(c.body)
                        ) { r in
                            #expect(r.status == c.status, "\(c.path) \(c.body)")
                            let message = f.json(r)["message"]?.string ?? ""
                            let expected = language == "en" ? c.english : c.chinese
                            #expect(message.contains(expected), "\(language): \(message)")
                            #expect(!message.contains("{"), "every placeholder is filled: \(message)")
                        }
                    }
                }
            }
        }
    }

    @Test(
        "the trade sheet's estimate says, while the user types, the refusal placing the order would meet, in their language, and the most that can be bought"
    )
    func estimateRefusals() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await AlertsAPITests().session(client, f)
                let accounts = try await client.execute(uri: "/api/v1/accounts", method: .get, headers: auth) { r in
                    Dictionary(
                        uniqueKeysWithValues: (f.json(r).array ?? []).map {
                            ($0["market"]?.string ?? "", $0["id"]?.string ?? "")
                        })
                }
                let (us, cn) = (accounts["us"] ?? "", accounts["cn"] ?? "")
                // A whole-yuan price inside 600519's limits today (the simulated price moves).
                let price = try await client.execute(uri: "/api/v1/quotes/600519", method: .get) { r -> Int in
                    let q = f.json(r)
                    let low = Int(Double(q["limit_down"]?.string ?? "") ?? 0)
                    let high = Int(Double(q["limit_up"]?.string ?? "") ?? 0)
                    return (low + high) / 2
                }
                func estimate(_ account: String, _ query: String) async throws -> JSONValue {
                    try await client.execute(
                        uri: "/api/v1/accounts/\(account)/estimate?\(query)", method: .get, headers: auth
                    ) { r in
                        #expect(r.status == .ok, "\(query)")
                        return f.json(r)
                    }
                }
                for language in ["en", "zh-Hans"] {
                    try await client.execute(
                        uri: "/api/v1/me", method: .put, headers: auth, body: body(#"{"language":"\#(language)"}"#)
                    ) { #expect($0.status == .ok) }
                    let english = language == "en"
                    // 50 shares of an A-share: not a board lot — said before the review step, not after "confirm".
                    let lot = try await estimate(cn, "symbol=600519&side=buy&qty=50&price=\(price)&type=limit")
                    let lotText = lot["refusal"]?.string ?? ""
                    #expect(
                        lotText.contains(
                            english ? "50 is not a whole number of lots: buy 100 shares instead" : "必须是每手 100 股的整数倍"),
                        "\(lotText)")
                    // A whole lot at a price it can pay: no refusal.
                    #expect(
                        try await estimate(cn, "symbol=600519&side=buy&qty=100&price=\(price)&type=limit")["refusal"]
                            == .null)
                    // More than the account can pay: refused, with the most it can buy (whole lots, fees included).
                    let big = try await estimate(cn, "symbol=600519&side=buy&qty=100000&price=\(price)&type=limit")
                    #expect(big["refusal"]?.string?.contains(english ? "insufficient buying power" : "可用资金不足") == true)
                    let most = try #require(big["most"]?.decimal)
                    // ¥1,000,000 buys whole lots at the price, fees included, and one lot more it could not pay.
                    let lots = 1_000_000 / (price * 100)
                    #expect(most == FixedDecimal(lots * 100) || most == FixedDecimal((lots - 1) * 100), "\(most)")
                    // A sub-penny limit on a US stock.
                    let penny = try await estimate(us, "symbol=AAPL&side=buy&qty=1&price=1.001&type=limit")
                    #expect(penny["refusal"]?.string?.contains(english ? "sub-penny" : "最小变动单位为 0.01") == true)
                    // Selling what is not held in an A-share account.
                    let sell = try await estimate(cn, "symbol=600519&side=sell&qty=100&price=\(price)&type=limit")
                    #expect(sell["refusal"]?.string?.isEmpty == false && sell["most"]?.decimal == .zero)
                }
            }
        }
    }

    @Test("a signup in a Chinese browser keeps Chinese for the user and names the new accounts in it")
    func chineseSignup() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await client.execute(
                    uri: "/api/v1/auth/signup", method: .post,
                    body: body(#"{"username":"xiaoming","password":"hunter2hunter2","language":"zh-CN"}"#)
                ) { r in
                    #expect(r.status == .created)
                    return HTTPFields([
                        .init(
                            name: .cookie,
                            value: r.headers[.setCookie]?.split(separator: ";").first.map(String.init) ?? "")
                    ])
                }
                try await client.execute(uri: "/api/v1/me", method: .get, headers: auth) { r in
                    #expect(f.json(r)["language"] == .string("zh-Hans"))
                    let names = Set((f.json(r)["accounts"]?.array ?? []).compactMap { $0["name"]?.string })
                    #expect(names == ["美股模拟账户", "A 股模拟账户"])
                }
            }
        }
    }
}
