import BrokerageModel
import TradingCore

/// An account's watchlists (Alpaca's /v2/watchlists and the web app's favorites are two views of these).
public struct Watchlists: Sendable {
    let storage: any WatchlistRepository

    /// The account's watchlists, oldest first.
    public func all(account: AccountID) async throws(BrokerageError) -> [WatchlistRecord] {
        try await stored { try await storage.watchlists(account: account) }
    }

    public func find(_ id: String, account: AccountID) async throws(BrokerageError) -> WatchlistRecord? {
        try await all(account: account).first { $0.id == id }
    }

    /// Creates or replaces a watchlist. Throws `.duplicate` when another of the account's lists has its name.
    public func save(_ watchlist: WatchlistRecord) async throws(BrokerageError) {
        try await stored { try await storage.saveWatchlist(watchlist) }
    }

    /// Deletes a watchlist; false when the account has none with that id.
    @discardableResult
    public func delete(_ id: String, account: AccountID) async throws(BrokerageError) -> Bool {
        try await stored { try await storage.deleteWatchlist(id: id, account: account) }
    }
}
