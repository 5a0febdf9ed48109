import Crypto
import Foundation
import Testing

@testable import Server

@Suite("Web Push encryption and VAPID")
struct WebPushTests {
    func b64(_ text: String) throws -> [UInt8] { try #require(Base64URL.decode(text)) }

    @Test("the aes128gcm body matches RFC 8291's worked example byte for byte")
    func rfc8291Example() throws {
        let serverKey = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: try b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        let message = try WebPushMessage(
            plaintext: Array("When I grow up, I want to be a watermelon".utf8),
            p256dh: try b64(
                "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"),
            auth: try b64("BTBZMqHH6r4Tts7J_aSIgg"), serverKey: serverKey, salt: try b64("DGv6ra1nlYgDCS1FRnbzlw"))
        #expect(
            Base64URL.encode(message.body)
                == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        )
    }

    @Test("bad subscription keys and oversized messages are refused, not sent")
    func refusals() throws {
        let browser = P256.KeyAgreement.PrivateKey()
        let p256dh = Array(browser.publicKey.x963Representation)
        #expect(throws: WebPushMessage.EncryptionError.self) {
            _ = try WebPushMessage(plaintext: [1], p256dh: p256dh, auth: [1, 2, 3])
        }
        #expect(throws: WebPushMessage.EncryptionError.self) {
            _ = try WebPushMessage(
                plaintext: [1], p256dh: Array(p256dh.dropLast()), auth: Array(repeating: 0, count: 16))
        }
        #expect(throws: WebPushMessage.EncryptionError.self) {
            _ = try WebPushMessage(
                plaintext: Array(repeating: 0, count: 4_000), p256dh: p256dh, auth: Array(repeating: 0, count: 16))
        }
        let fits = try WebPushMessage(
            plaintext: Array(repeating: 7, count: WebPushMessage.maximumPlaintext), p256dh: p256dh,
            auth: Array(repeating: 0, count: 16))
        #expect(fits.body.count == 4_096, "the largest message fills one 4 KB record exactly")
    }

    @Test("the VAPID JWT is ES256 over the endpoint's origin, expires within 24 hours, and verifies with k")
    func vapid() throws {
        let key = VAPIDKey(privateKey: P256.Signing.PrivateKey())
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let header = try key.authorization(
            endpoint: try #require(URL(string: "https://push.example.net:8443/send/abc?x=1")),
            contact: "mailto:ops@example.org", now: now)
        let parts = header.dropFirst("vapid t=".count).split(separator: ",")
        let jwt = String(parts[0])
        #expect(parts[1].trimmingCharacters(in: .whitespaces) == "k=\(key.publicKeyText)")
        let pieces = jwt.split(separator: ".").map(String.init)
        #expect(pieces.count == 3)
        let claims = try JSONSerialization.jsonObject(with: Data(try b64(pieces[1]))) as? [String: Any]
        #expect(claims?["aud"] as? String == "https://push.example.net:8443")
        #expect(claims?["sub"] as? String == "mailto:ops@example.org")
        let exp = try #require(claims?["exp"] as? Int)
        #expect(exp > 1_800_000_000 && exp <= 1_800_000_000 + 86_400)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try b64(pieces[2]))
        let publicKey = try P256.Signing.PublicKey(x963Representation: try b64(key.publicKeyText))
        #expect(publicKey.isValidSignature(signature, for: Array((pieces[0] + "." + pieces[1]).utf8)))
    }

    @Test("the VAPID key is made once and read back on the next start")
    func keyIsKept() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-vapid-\(UUID())").path
        let first = try VAPIDKey.loadOrCreate(in: dir)
        let second = try VAPIDKey.loadOrCreate(in: dir)
        #expect(first.publicKeyText == second.publicKeyText)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/vapid-private-key.pem")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }
}
