import Crypto
import Foundation

/// The server's VAPID key pair (RFC 8292): it signs the JWT that tells push services which application server is
/// sending, and its public half is the `applicationServerKey` browsers subscribe with — so it must stay the same
/// across restarts, or every subscription stops working. Generated on first start and kept in the data directory
/// (`vapid-private-key.pem`, mode 0600).
public struct VAPIDKey: Sendable {
    public let privateKey: P256.Signing.PrivateKey

    public init(privateKey: P256.Signing.PrivateKey) { self.privateKey = privateKey }

    /// The public key as browsers want it: the uncompressed point (65 bytes), base64url without padding.
    public var publicKeyText: String { Base64URL.encode(privateKey.publicKey.x963Representation) }

    /// Loads the key from `directory`, making and saving one the first time.
    public static func loadOrCreate(in directory: String) throws -> VAPIDKey {
        let path = directory + "/vapid-private-key.pem"
        if let pem = try? String(contentsOfFile: path, encoding: .utf8) {
            return VAPIDKey(privateKey: try P256.Signing.PrivateKey(pemRepresentation: pem))
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = P256.Signing.PrivateKey()
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        return VAPIDKey(privateKey: key)
    }

    /// `Authorization: vapid t=<JWT>, k=<public key>` for a push endpoint: an ES256 JWT whose audience is the
    /// endpoint's origin, valid for 12 hours (RFC 8292 allows at most 24), with the operator's contact as `sub`.
    public func authorization(endpoint: URL, contact: String, now: Date = Date()) throws -> String {
        guard let scheme = endpoint.scheme, let host = endpoint.host else { throw URLError(.badURL) }
        let origin = "\(scheme)://\(host)" + (endpoint.port.map { ":\($0)" } ?? "")
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let expiry = Int(now.timeIntervalSince1970) + 12 * 3600
        let claims = Base64URL.encode(
            Array(#"{"aud":"\#(Self.escaped(origin))","exp":\#(expiry),"sub":"\#(Self.escaped(contact))"}"#.utf8))
        let signingInput = header + "." + claims
        let signature = try privateKey.signature(for: Array(signingInput.utf8)).rawRepresentation
        return "vapid t=\(signingInput).\(Base64URL.encode(signature)), k=\(publicKeyText)"
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

/// base64url without padding (RFC 4648 §5), as Web Push keys and JWTs are written.
enum Base64URL {
    static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Accepts padded or unpadded base64url (and plain base64, which some clients send).
    static func decode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}
