import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix
import Synchronization
import TradingCore

/// Secrets, hashes and login throttling.
enum Credentials {
    /// A random token of `bytes` bytes, URL-safe base64 without padding.
    static func token(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }

    /// An Alpaca-style key id: 20 upper-case letters and digits starting with "PK".
    static func keyID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return "PK" + String((0..<18).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    static func sha256(_ text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Array(text.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Constant-time comparison of two hex digests.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// bcrypt, off the event loops (it is deliberately slow).
    static func hashPassword(_ password: String) async throws -> String {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: 10) }
    }

    static func verifyPassword(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}

/// At most `limit` failed logins per username within `window`; then 429 until the window passes.
final class LoginThrottle: Sendable {
    let limit: Int
    let window: Int64
    private let failures = Mutex<[String: [Timestamp]]>([:])

    init(limit: Int = 5, windowSeconds: Int64 = 300) {
        self.limit = limit
        window = windowSeconds * Duration64.second
    }

    func isBlocked(_ username: String, at now: Timestamp) -> Bool {
        failures.withLock { f in
            let recent = (f[username] ?? []).filter { now.nanoseconds - $0.nanoseconds < window }
            f[username] = recent
            return recent.count >= limit
        }
    }

    func recordFailure(_ username: String, at now: Timestamp) {
        failures.withLock { $0[username, default: []].append(now) }
    }

    func reset(_ username: String) {
        failures.withLock { $0[username] = nil }
    }
}
