import Crypto
import Foundation

/// A push message encrypted for one subscription: RFC 8291 (Message Encryption for Web Push) over RFC 8188's
/// `aes128gcm` content coding, in a single record.
///
///     ecdh_secret = ECDH(server's one-time P-256 key, browser's p256dh key)
///     IKM   = HKDF-SHA256(salt: auth secret, ikm: ecdh_secret, info: "WebPush: info\0" ‖ ua_public ‖ as_public, 32)
///     CEK   = HKDF-SHA256(salt: random 16 bytes, ikm: IKM, info: "Content-Encoding: aes128gcm\0", 16)
///     NONCE = HKDF-SHA256(salt, IKM, info: "Content-Encoding: nonce\0", 12)
///     body  = salt ‖ record size (4096, big-endian u32) ‖ 65 ‖ as_public ‖ AES-128-GCM(CEK, NONCE, plaintext ‖ 0x02)
///
/// A new key pair and salt for every message, so no two messages share a key or nonce.
public struct WebPushMessage: Sendable {
    /// The encrypted body to POST with `Content-Encoding: aes128gcm`.
    public let body: [UInt8]

    /// Push services must accept 4096-byte payloads; one record of that size holds up to 3993 bytes of plaintext
    /// (4096 − 16 tag − 1 delimiter − 86 header).
    public static let maximumPlaintext = 3_993
    static let recordSize: UInt32 = 4_096

    public enum EncryptionError: Error, CustomStringConvertible {
        case badKey(String)
        case tooLong(Int)

        public var description: String {
            switch self {
            case .badKey(let what): return "the subscription's \(what) is not valid"
            case .tooLong(let n): return "the message is \(n) bytes; at most \(WebPushMessage.maximumPlaintext) fit"
            }
        }
    }

    /// Encrypts `plaintext` for a subscription's `p256dh` (65-byte uncompressed point) and `auth` (16 bytes).
    /// `serverKey` and `salt` are for tests with known vectors (RFC 8291 §5); leave them nil.
    public init(
        plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8],
        serverKey: P256.KeyAgreement.PrivateKey? = nil, salt: [UInt8]? = nil
    ) throws {
        guard plaintext.count <= Self.maximumPlaintext else { throw EncryptionError.tooLong(plaintext.count) }
        guard auth.count == 16 else { throw EncryptionError.badKey("auth secret") }
        let userAgentKey: P256.KeyAgreement.PublicKey
        do { userAgentKey = try P256.KeyAgreement.PublicKey(x963Representation: p256dh) } catch {
            throw EncryptionError.badKey("p256dh key")
        }
        let serverKey = serverKey ?? P256.KeyAgreement.PrivateKey()
        let salt = salt ?? (0..<16).map { _ in UInt8.random(in: 0...255) }
        let serverPublic = Array(serverKey.publicKey.x963Representation)
        let shared = try serverKey.sharedSecretFromKeyAgreement(with: userAgentKey)
        let keyInfo = Array("WebPush: info\0".utf8) + p256dh + serverPublic
        let ikm = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let cek = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm\0".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
        let sealed = try AES.GCM.seal(
            plaintext + [0x02], using: cek, nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }))
        var body = salt
        withUnsafeBytes(of: Self.recordSize.bigEndian) { body += $0 }
        body.append(UInt8(serverPublic.count))
        body += serverPublic
        body += sealed.ciphertext
        body += sealed.tag
        self.body = body
    }
}
