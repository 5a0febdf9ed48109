import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The benchmark's user, made over the native API: signed up (its session cookie opens the app's sockets) with the
/// API keys of its US account (Alpaca's stream takes five connections per key).
struct Setup {
    var cookie: String
    var keys: [(id: String, secret: String)]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func make(base: URL, keys count: Int) async throws -> Setup {
        let session = URLSession(configuration: .ephemeral)
        func call(_ method: String, _ path: String, body: [String: Any]? = nil, cookie: String? = nil) async throws
            -> (Any, HTTPURLResponse)
        {
            var request = URLRequest(url: base.appendingPathComponent(path))
            request.httpMethod = method
            if let body {
                request.httpBody = try JSONSerialization.data(withJSONObject: body)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
                throw Failure(
                    description: "\(method) \(path): \((response as? HTTPURLResponse)?.statusCode ?? 0) "
                        + String(decoding: data, as: UTF8.self))
            }
            return (try JSONSerialization.jsonObject(with: data), http)
        }
        let username = "fanout-\(UInt32.random(in: 0...UInt32.max))"
        let (_, signup) = try await call(
            "POST", "api/v1/auth/signup", body: ["username": username, "password": "fanout-bench-password"])
        guard let setCookie = signup.value(forHTTPHeaderField: "Set-Cookie"),
            let pair = setCookie.split(separator: ";").first, pair.hasPrefix("papertrade_session=")
        else { throw Failure(description: "the signup set no session cookie") }
        let cookie = String(pair)
        let (listed, _) = try await call("GET", "api/v1/accounts", cookie: cookie)
        guard let accounts = listed as? [[String: Any]],
            let us = accounts.first(where: { $0["market"] as? String == "us" })?["id"] as? String
        else { throw Failure(description: "the new user has no US account") }
        var keys: [(String, String)] = []
        for _ in 0..<count {
            let (made, _) = try await call("POST", "api/v1/accounts/\(us)/keys", cookie: cookie)
            guard let key = made as? [String: Any], let id = key["key_id"] as? String,
                let secret = key["secret"] as? String
            else { throw Failure(description: "a key without an id or secret") }
            keys.append((id, secret))
        }
        return Setup(cookie: cookie, keys: keys)
    }
}
