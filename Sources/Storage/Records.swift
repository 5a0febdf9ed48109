import Foundation
import JSON
import TradingCore

/// A user (who logs in to the web app and owns accounts): a UUID string as stored. Deliberately not `Encodable`,
/// so a SQL bind must name `.text` and a user id cannot be bound or compared where another id is meant.
public struct UserID: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    public let text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral text: String) { self.text = text }
    public var description: String { text }
}

public struct UserRecord: Sendable, Hashable {
    public var id: UserID
    public var username: String
    public var passwordHash: String
    public var createdAt: Timestamp
    /// The language the user chose ("en", "zh-Hans"); nil follows the browser. Server-side texts (notifications,
    /// pushes) are written in it.
    public var language: String?

    public init(id: UserID, username: String, passwordHash: String, createdAt: Timestamp, language: String? = nil) {
        self.id = id
        self.username = username
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.language = language
    }
}

/// One of the database's virtual shards (0 ..< the shard count fixed when the database was created). Every account
/// lives in exactly one; one owner at a time holds a shard's accounts in memory and writes their journal.
public struct ShardID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let index: Int

    public init(_ index: Int) { self.index = index }
    public var description: String { String(index) }
    public static func < (a: ShardID, b: ShardID) -> Bool { a.index < b.index }
}

/// A paper account: who owns it, and its balances and positions. Open orders and used client order ids are not
/// in `snapshot` as stored; `Storage.restorable(_:)` adds them from the orders table.
public struct AccountRecord: Sendable, Hashable {
    public var id: AccountID
    public var userID: UserID
    public var name: String
    public var market: Market
    public var accountNumber: String
    public var createdAt: Timestamp
    public var snapshot: AccountSnapshot
    /// The virtual shard the account lives in, chosen when it was opened and never changed.
    public var shard: ShardID

    public init(
        id: AccountID, userID: UserID, name: String, market: Market, accountNumber: String,
        createdAt: Timestamp, snapshot: AccountSnapshot, shard: ShardID = ShardID(0)
    ) {
        self.shard = shard
        self.id = id
        self.userID = userID
        self.name = name
        self.market = market
        self.accountNumber = accountNumber
        self.createdAt = createdAt
        self.snapshot = snapshot
    }
}

public struct APIKeyRecord: Sendable, Hashable {
    public var keyID: String
    /// SHA-256 of the secret (secrets are random 32-byte tokens; passwords, not secrets, get bcrypt).
    public var secretHash: String
    public var accountID: AccountID

    public init(keyID: String, secretHash: String, accountID: AccountID) {
        self.keyID = keyID
        self.secretHash = secretHash
        self.accountID = accountID
    }
}

public struct WatchlistRecord: Sendable, Hashable {
    public var id: String
    public var accountID: AccountID
    public var name: String
    public var symbols: [String]
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        id: String, accountID: AccountID, name: String, symbols: [String], createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.accountID = accountID
        self.name = name
        self.symbols = symbols
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// An in-app notification: listed with an unread count, pushed over the web app's socket, shown as a toast.
public struct NotificationRecord: Sendable, Hashable {
    public var id: String
    public var userID: UserID
    public var accountID: AccountID?
    /// fill, order_canceled, order_placed_automatically, automatic_order_failed, queue_empty, …
    public var kind: String
    public var title: String
    public var body: String
    public var createdAt: Timestamp
    public var readAt: Timestamp?

    public init(
        id: String, userID: UserID, accountID: AccountID?, kind: String, title: String, body: String,
        createdAt: Timestamp, readAt: Timestamp? = nil
    ) {
        self.id = id
        self.userID = userID
        self.accountID = accountID
        self.kind = kind
        self.title = title
        self.body = body
        self.createdAt = createdAt
        self.readAt = readAt
    }
}

enum Coding {
    static func encode(_ value: some Encodable) throws -> String {
        try StreamingJSONEncoder.encode(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        do { return try JSONDecoder().decode(type, from: Data(text.utf8)) } catch {
            throw StorageError.corrupt("\(T.self): \(error)")
        }
    }
}
