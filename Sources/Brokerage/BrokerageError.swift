import BrokerageModel
import MarketData
import Storage
import TradingCore

/// Why a brokerage call failed, in the brokerage's terms. Each surface decides what a case means on its wire
/// (the server maps them to HTTP statuses and Alpaca codes in one place, `BrokerageError+HTTP.swift`).
public enum BrokerageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The engine refused the command (buying power, lot size, price limits, an order that cannot be canceled…).
    case rejected(OrderRejection)
    /// What the call names does not exist (or is not the caller's).
    case notFound(String)
    /// The request itself is invalid, whatever the state.
    case invalid(String)
    /// It would duplicate something unique (a username, a watchlist name).
    case conflict(String)
    /// The caller may see it but not do this (a game's owner tools, a closed game's registration).
    case forbidden(String)
    /// Storage or market data could not be reached; nothing was changed.
    case unavailable(String)
    /// On a cluster: the account's shard is served by another node (named, with its URL, when known) or is
    /// changing hands. Thrown before anything was done, so the request may be sent there or retried.
    case elsewhere(shard: ShardID, owner: String?, url: String?)

    public var message: String {
        switch self {
        case .rejected(let r): return r.message
        case .notFound(let m), .invalid(let m), .conflict(let m), .forbidden(let m), .unavailable(let m): return m
        case .elsewhere(let shard, let owner?, _):
            return "this account is served by node \(owner) (shard \(shard)); try again"
        case .elsewhere(let shard, nil, _):
            return "this account's shard \(shard) is moving to another node; try again in a moment"
        }
    }

    public var description: String { message }

    /// True when the call failed because its object already exists.
    public var isDuplicate: Bool {
        if case .conflict = self { return true }
        return false
    }

    public static func feed(_ error: FeedError) -> BrokerageError {
        switch error {
        case .unknownSymbol(let s): return .notFound("asset not found for \(s)")
        case .unsupported: return .notFound(error.description)
        default: return .unavailable(error.description)
        }
    }

    public static func storage(_ error: any Error) -> BrokerageError {
        if let e = error as? StorageError, case .duplicate(let what) = e { return .conflict("\(what) already exists") }
        if let e = error as? StorageError, case .fenced(let shard, _, _) = e {
            return .elsewhere(shard: shard, owner: nil, url: nil)
        }
        if let e = error as? StorageError, case .outcomeUnknown = e {
            return .unavailable(
                "the database stopped answering while this change was being saved, and whether it was is not known yet; "
                    + "look it up before trying again (an order: by its client_order_id) (\(e))")
        }
        return .unavailable("storage unavailable; nothing was changed (\(error))")
    }
}
