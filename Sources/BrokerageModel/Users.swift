import TradingCore

/// A user (who logs in to the web app and owns accounts): a UUID string as stored. Deliberately not `Encodable`,
/// so a SQL bind must name `.text` and a user id cannot be bound or compared where another id is meant.
public struct UserID: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    public let text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral text: String) { self.text = text }
    public var description: String { text }
}

/// Written as its text.
extension UserID: Codable {
    public init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

public struct UserRecord: Sendable, Hashable {
    public var id: UserID
    public var username: String
    public var passwordHash: String
    public var createdAt: Timestamp
    /// The language the user chose ("en", "zh-Hans"); nil follows the browser. Server-side texts (notifications,
    /// pushes) are written in it.
    public var language: String?
    /// Set on a password someone else chose (a teacher's roster, a reset): the user is asked to choose their own
    /// at their next log-in.
    public var mustChangePassword: Bool
    /// When the user last logged in with their password (nil: never).
    public var lastLoginAt: Timestamp?

    public init(
        id: UserID, username: String, passwordHash: String, createdAt: Timestamp, language: String? = nil,
        mustChangePassword: Bool = false, lastLoginAt: Timestamp? = nil
    ) {
        self.id = id
        self.username = username
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.language = language
        self.mustChangePassword = mustChangePassword
        self.lastLoginAt = lastLoginAt
    }
}

public struct APIKeyRecord: Sendable, Hashable {
    public var keyID: String
    /// SHA-256 of the secret (secrets are random 32-byte tokens; passwords, not secrets, get bcrypt).
    public var secretHash: String
    public var accountID: AccountID
    /// When it was made (as stored; nil on a record not read back from storage).
    public var createdAt: Timestamp?

    public init(keyID: String, secretHash: String, accountID: AccountID, createdAt: Timestamp? = nil) {
        self.keyID = keyID
        self.secretHash = secretHash
        self.accountID = accountID
        self.createdAt = createdAt
    }
}
