import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing
import TradingCore

@Suite("The OpenAPI document and what it promises")
struct OpenAPITests {
    @Test("every Alpaca route is described, with its security, parameters and the statuses it answers")
    func alpacaRoutes() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/openapi.json", method: .get) { response in
                    let doc = f.json(response)
                    let paths = doc["paths"]?.object ?? [:]
                    for path in [
                        "/v2/account", "/v2/orders", "/v2/orders/{id}", "/v2/positions/{symbol}", "/v2/assets",
                        "/v2/account/activities/{activity_type}", "/v2/corporate_actions/announcements",
                        "/v1/corporate-actions", "/v1beta1/news", "/v2/stocks/{symbol}/bars", "/v3/calendar/{market}",
                        "/v2/watchlists:by_name", "/v1beta1/screener/stocks/movers",
                    ] {
                        #expect(paths[path] != nil, "\(path) is described")
                    }
                    let create = paths["/v2/orders"]?["post"]
                    #expect(create?["security"]?[0]?["alpacaKeyID"] != nil)
                    let codes = Set(create?["responses"]?.object?.keys.map { $0 } ?? [])
                    #expect(codes.isSuperset(of: ["200", "400", "401", "403", "422", "429"]))
                    let side = create?["requestBody"]?["content"]?["application/json"]?["schema"]?["properties"]?[
                        "side"]
                    #expect(side?["enum"] == .array([.string("buy"), .string("sell")]))
                    #expect(
                        doc["components"]?["securitySchemes"]?["alpacaSecretKey"]?["name"]?.string
                            == "APCA-API-SECRET-KEY")
                }
            }
        }
    }

    @Test("a method the document does not declare on a path it does is a 405 naming the methods there")
    func methodNotAllowed() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/account", method: .put, headers: f.auth) { response in
                    #expect(response.status == .methodNotAllowed)
                    #expect(response.headers[.allow] == "GET")
                }
                try await client.execute(uri: "/v2/orders/\(UUID().uuidString)", method: .post, headers: f.auth) {
                    #expect($0.status == .methodNotAllowed)
                    #expect($0.headers[.allow] == "DELETE, GET, PATCH")
                }
                // Unknown paths stay 404; a known route's own 404 (an unknown order) too.
                try await client.execute(uri: "/v2/nowhere", method: .get, headers: f.auth) {
                    #expect($0.status == .notFound)
                }
                try await client.execute(uri: "/v2/orders/\(UUID().uuidString)", method: .get, headers: f.auth) {
                    #expect($0.status == .notFound)
                }
            }
        }
    }

    @Test("dates far outside what a timestamp holds are refused with a 422, not a crash (found by schemathesis)")
    func farDates() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                for uri in [
                    "/v2/account/activities/INT?date=3592-12-13", "/v2/account/activities?until=8004-04-14",
                    "/v2/calendar?start=0053-03-12", "/v2/stocks/AAPL/bars?timeframe=1Day&start=4922-02-01",
                    "/v1/corporate-actions?start=1970-01-13",
                ] {
                    try await client.execute(uri: uri, method: .get, headers: f.auth) { response in
                        #expect(response.status == .unprocessableContent, "\(uri)")
                    }
                }
                try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            }
        }
    }
}
