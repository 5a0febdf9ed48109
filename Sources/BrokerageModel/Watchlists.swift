import TradingCore

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
