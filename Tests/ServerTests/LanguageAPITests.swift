import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing

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
}
