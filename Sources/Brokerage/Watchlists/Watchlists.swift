import BrokerageModel
import TradingCore

/// An account's watchlists (Alpaca's /v2/watchlists and the web app's favorites are two views of these).
public struct Watchlists: Sendable {
    let storage: any WatchlistRepository

    /// The most symbols one watchlist holds, on every surface. A 6,000-symbol list through Alpaca's API (which had
    /// no limit while the app's had 200) took the server from 114 MB to 1.7 GB on the next listing (issue 55).
    public static let maximumSymbols = 200
    /// The most watchlists one account keeps.
    public static let maximumLists = 50

    /// The account's watchlists, oldest first.
    public func all(account: AccountID) async throws(BrokerageError) -> [WatchlistRecord] {
        try await stored { try await storage.watchlists(account: account) }
    }

    public func find(_ id: String, account: AccountID) async throws(BrokerageError) -> WatchlistRecord? {
        try await all(account: account).first { $0.id == id }
    }

    /// Creates or replaces a watchlist. Throws `.duplicate` when another of the account's lists has its name, and
    /// `.invalid` past `maximumSymbols` or a list past `maximumLists`.
    public func save(_ watchlist: WatchlistRecord) async throws(BrokerageError) {
        guard watchlist.symbols.count <= Self.maximumSymbols else {
            throw .invalid("a watchlist holds at most \(Self.maximumSymbols) symbols")
        }
        let lists = try await all(account: watchlist.accountID)
        guard lists.count < Self.maximumLists || lists.contains(where: { $0.id == watchlist.id }) else {
            throw .invalid("an account keeps at most \(Self.maximumLists) watchlists")
        }
        try await stored { try await storage.saveWatchlist(watchlist) }
    }

    /// Deletes a watchlist; false when the account has none with that id.
    @discardableResult
    public func delete(_ id: String, account: AccountID) async throws(BrokerageError) -> Bool {
        try await stored { try await storage.deleteWatchlist(id: id, account: account) }
    }
}
