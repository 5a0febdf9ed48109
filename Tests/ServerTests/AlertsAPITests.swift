import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing
import TradingCore

@Suite("Alerts API")
struct AlertsAPITests {
    /// Signs a new user up; the session cookie (alerts belong to the signed-in user, not to an API key's account).
    func session(_ client: some TestClientProtocol, _ f: ServerFixture) async throws -> HTTPFields {
        try await client.execute(
            uri: "/api/v1/auth/signup", method: .post,
            body: body(#"{"username":"alerter","password":"hunter2hunter2"}"#)
        ) { r in
            [.cookie: r.headers[.setCookie]?.split(separator: ";").first.map(String.init) ?? ""]
        }
    }

    @Test("an alert is created, listed, shown and deleted")
    func lifecycle() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await session(client, f)
                let id = try await client.execute(
                    uri: "/api/v1/alerts", method: .post, headers: auth,
                    body: body(
                        #"{"symbol":"aapl","condition":"entering_channel","lower":"1","upper":"2","frequency":"once_per_bar","timeframe":"1Hour","message":"look"}"#
                    )
                ) { r in
                    #expect(r.status == .created)
                    let o = f.json(r)
                    #expect(o["symbol"] == .string("AAPL"))
                    #expect(o["condition"] == .string("entering_channel"))
                    #expect(o["lower"] == .string("1") && o["upper"] == .string("2"))
                    #expect(o["frequency"] == .string("once_per_bar") && o["timeframe"] == .string("1Hour"))
                    #expect(o["status"] == .string("active") && o["trigger_count"] == .int(0))
                    #expect(o["price"]?.string != nil, "the current price is shown")
                    return o["id"]?.string ?? ""
                }
                try await client.execute(
                    uri: "/api/v1/alerts", method: .post, headers: auth,
                    body: body(#"{"symbol":"AAPL","condition":"moving_up_percent","value":"3","within":"15m"}"#)
                ) { r in
                    #expect(r.status == .created)
                    #expect(f.json(r)["within"] == .string("900s"))
                    #expect(f.json(r)["timeframe"] == .string("1Day") && f.json(r)["frequency"] == .string("once"))
                }
                try await client.execute(uri: "/api/v1/alerts", method: .get, headers: auth) { r in
                    #expect(f.json(r).array?.count == 2)
                }
                try await client.execute(uri: "/api/v1/alerts/\(id)", method: .get, headers: auth) { r in
                    #expect(f.json(r)["message"] == .string("look"))
                }
                try await client.execute(uri: "/api/v1/alerts/\(id)", method: .delete, headers: auth) { r in
                    #expect(r.status == .ok)
                    #expect(f.json(r)["status"] == .string("canceled"))
                }
                try await client.execute(uri: "/api/v1/alerts/\(id)", method: .delete, headers: auth) { r in
                    #expect(r.status == .notFound)
                }
                try await client.execute(uri: "/api/v1/alerts/history", method: .get, headers: auth) { r in
                    #expect(f.json(r).array?.first?["status"] == .string("canceled"))
                }
                try await client.execute(uri: "/api/v1/alerts/\(id)/triggers", method: .get, headers: auth) { r in
                    #expect(f.json(r) == .array([]))
                }
            }
        }
    }

    @Test("bad alerts are 422 with a message that says what is wrong")
    func badInput() async throws {
        let cases: [(String, String)] = [
            (#"{"symbol":"AAPL","condition":"crossing_sideways","value":"1"}"#, "unknown condition crossing_sideways"),
            (#"{"symbol":"AAPL","condition":"crossing"}"#, "crossing needs a value or a moving_average"),
            (#"{"symbol":"AAPL","condition":"greater_than","value":"1","moving_average":5}"#, "give either value"),
            (#"{"symbol":"AAPL","condition":"inside_channel","lower":"2"}"#, "upper is required"),
            (
                #"{"symbol":"AAPL","condition":"inside_channel","lower":"20","upper":"10"}"#,
                "lower (20) must be below upper (10)"
            ),
            (#"{"symbol":"AAPL","condition":"moving_up","value":"2"}"#, "moving_up needs within"),
            (
                #"{"symbol":"AAPL","condition":"moving_up","value":"2","within":"soon"}"#,
                "within must be a number of bars"
            ),
            (#"{"symbol":"AAPL","condition":"less_than","value":"-3"}"#, "value must be positive"),
            (#"{"symbol":"AAPL","condition":"less_than","value":"3","frequency":"always"}"#, "frequency must be"),
            (
                #"{"symbol":"AAPL","condition":"less_than","value":"3","expires_at":"2020-01-01T00:00:00Z"}"#,
                "has already passed"
            ),
            (#"{"symbol":"AAPL","condition":"less_than","value":"3","within":"5m"}"#, "within belongs to the moving"),
            (#"{"condition":"less_than","value":"3"}"#, "symbol is required"),
            (#"{"symbol":"AAPL","value":"3"}"#, "condition is required"),
        ]
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let auth = try await session(client, f)
                for (json, message) in cases {
                    try await client.execute(uri: "/api/v1/alerts", method: .post, headers: auth, body: body(json)) {
                        r in
                        #expect(r.status == .unprocessableContent, "\(json)")
                        #expect(f.json(r)["message"]?.string?.contains(message) == true, "\(json): \(f.json(r))")
                    }
                }
                try await client.execute(
                    uri: "/api/v1/alerts", method: .post, headers: auth,
                    body: body(#"{"symbol":"NOPE","condition":"less_than","value":"3"}"#)
                ) { r in
                    #expect(r.status == .notFound)
                }
                try await client.execute(uri: "/api/v1/alerts", method: .get) { r in
                    #expect(r.status == .unauthorized)
                }
            }
        }
    }
}
