import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MarketData
import Server
import Testing
import TradingCore

@Suite("Native API")
struct NativeAPITests {
    func cookie(_ response: TestResponse) -> String? {
        response.headers[.setCookie]?.split(separator: ";").first.map(String.init)
    }

    @Test("sign up creates a USD and a CNY account and a session; me needs the session; wrong passwords are throttled")
    func signupLogin() async throws {
        try await ServerFixture.with() { f in
            try await f.app.test(.router) { client in
                let session = try await client.execute(
                    uri: "/api/v1/auth/signup", method: .post,
                    body: body(#"{"username":"Bob","password":"hunter2hunter2"}"#)
                ) { response in
                    #expect(response.status == .created)
                    #expect(response.headers[.setCookie]?.contains("HttpOnly") == true)
                    let me = f.json(response)
                    #expect(me["username"] == .string("bob"))
                    #expect(me["accounts"]?.array?.map { $0["currency"]?.string } == ["USD", "CNY"])
                    return cookie(response)
                }
                try await client.execute(uri: "/api/v1/me", method: .get) { #expect($0.status == .unauthorized) }
                try await client.execute(uri: "/api/v1/me", method: .get, headers: [.cookie: session ?? ""]) {
                    response in
                    #expect(response.status == .ok)
                    #expect(f.json(response)["accounts"]?.array?.count == 2)
                }
                // The app's first question: always a 200 (no failed request in the console before anyone logs in).
                try await client.execute(uri: "/api/v1/auth/session", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(f.json(response) == .object(["user": .null]))
                }
                try await client.execute(
                    uri: "/api/v1/auth/session", method: .get, headers: [.cookie: "papertrade_session=forged"]
                ) { #expect($0.status == .ok && f.json($0)["user"] == .null) }
                try await client.execute(uri: "/api/v1/auth/session", method: .get, headers: [.cookie: session ?? ""]) {
                    #expect(f.json($0)["user"]?["username"] == .string("bob"))
                    #expect(f.json($0)["user"]?["accounts"]?.array?.count == 2)
                }
                try await client.execute(
                    uri: "/api/v1/auth/signup", method: .post,
                    body: body(#"{"username":"bob","password":"another-password"}"#)
                ) { #expect($0.status == .conflict) }
                try await client.execute(
                    uri: "/api/v1/auth/signup", method: .post,
                    body: body(#"{"username":"carol","password":"short"}"#)
                ) { #expect($0.status == .unprocessableContent) }
                for _ in 0..<5 {
                    try await client.execute(
                        uri: "/api/v1/auth/login", method: .post,
                        body: body(#"{"username":"bob","password":"wrong-password"}"#)
                    ) { #expect($0.status == .unauthorized) }
                }
                try await client.execute(
                    uri: "/api/v1/auth/login", method: .post,
                    body: body(#"{"username":"bob","password":"hunter2hunter2"}"#)
                ) { #expect($0.status == .tooManyRequests) }
                try await client.execute(uri: "/api/v1/auth/logout", method: .post, headers: [.cookie: session ?? ""]) {
                    #expect($0.status == .ok)
                }
                try await client.execute(uri: "/api/v1/me", method: .get, headers: [.cookie: session ?? ""]) {
                    #expect($0.status == .unauthorized)
                }
                try await client.execute(uri: "/api/v1/auth/session", method: .get, headers: [.cookie: session ?? ""]) {
                    #expect($0.status == .ok && f.json($0)["user"] == .null, "logged out")
                }
            }
        }
    }

    @Test("search, quote with depth, market overview, movers and the OpenAPI document")
    func market() async throws {
        try await ServerFixture.with() { f in
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/api/v1/search?q=appl", method: .get) { response in
                    let first = f.json(response).array?.first
                    #expect(first?["symbol"] == .string("AAPL"))
                    #expect(first?["market"] == .string("us"))
                    #expect(first?["exchange"] == .string("NASDAQ"))
                }
                try await client.execute(uri: "/api/v1/search?q=%E8%8C%85%E5%8F%B0", method: .get) { response in
                    #expect(f.json(response).array?.first?["symbol"] == .string("600519"))
                }
                try await client.execute(uri: "/api/v1/quotes/600519", method: .get) { response in
                    let q = f.json(response)
                    #expect(q["name"] == .string("贵州茅台"))
                    #expect(q["bids"]?.array?.count == 5)
                    #expect(q["limit_up"]?.decimal != nil)
                }
                try await client.execute(uri: "/api/v1/quotes/NOPE", method: .get) { #expect($0.status == .notFound) }
                try await client.execute(uri: "/api/v1/market/overview", method: .get) { response in
                    let indices = f.json(response)["indices"]?.array ?? []
                    #expect(indices.count == 7)
                    for symbol in ["^GSPC", "^NDX", "sh000300"] {
                        #expect(indices.contains { $0["symbol"] == .string(symbol) }, "\(symbol) in the overview")
                    }
                }
                try await client.execute(uri: "/api/v1/market/movers?market=cn&kind=losers&limit=5", method: .get) {
                    response in
                    #expect(f.json(response).array?.count == 5)
                }
                try await client.execute(uri: "/api/v1/market/movers?market=mars", method: .get) {
                    #expect($0.status == .unprocessableContent)
                }
                try await client.execute(uri: "/openapi.json", method: .get) { response in
                    let doc = f.json(response)
                    #expect(doc["openapi"] == .string("3.1.0"))
                    #expect(doc["paths"]?["/api/v1/search"] != nil)
                    #expect(doc["paths"]?["/api/v1/alerts"]?["post"] != nil)
                    #expect(doc["paths"]?["/api/v1/push/subscriptions"]?["post"] != nil)
                }
            }
        }
    }
}
