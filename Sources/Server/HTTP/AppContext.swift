import Brokerage
import Foundation
import Hummingbird
import NIOCore
import TradingCore

/// Who is calling: an API key's account (Alpaca surface) or a logged-in user (native surface).
public enum Caller: Sendable {
    case account(AccountID)
    case user(id: UserID, sessionToken: String)
}

/// The request context of every papertrade route.
public struct AppContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var caller: Caller?
    /// What the caller signed in with (a stream ends when it no longer opens anything: `CredentialWatch`).
    var credential: Credential?
    /// The address this connection reached the server on (the MCP endpoint calls the API back through it).
    public let localAddress: SocketAddress?

    public init(source: Source) {
        coreContext = .init(source: source)
        localAddress = source.channel.localAddress
    }

    /// 64 KiB is far more than any papertrade request needs.
    public var maxUploadSize: Int { 64 * 1024 }
}

extension AccountService {
    /// The account in the path (`{id}`), if it belongs to the logged-in user (or to their class team: teammates
    /// share one) or is the API key's own account; "account not found" otherwise (never "forbidden": another user's
    /// account ids are not confirmed).
    func account(ownedBy context: AppContext) async throws -> AccountRecord {
        guard let id = AccountID(try context.parameters.require("id")) else {
            throw APIError.notFound("account not found")
        }
        if case .account(let keyAccount) = context.caller {
            guard keyAccount == id, let record = await accountRecord(id) else {
                throw APIError.notFound("account not found")
            }
            return record
        }
        let user = try context.user()
        // Only this account is loaded (on a cluster it may be another node's: `.elsewhere` sends the request there).
        try await loadAccountIfNeeded(id)
        guard let record = await accountRecord(id) else { throw APIError.notFound("account not found") }
        // (Someone else's account: one indexed read of the user's roster rows says whether it is their team's.)
        if record.userID != user {
            guard await tradesAsTeammate(id, user: user) else { throw APIError.notFound("account not found") }
        }
        return record
    }

    /// The logged-in user; for an API key, the user who owns the key's account — for the few user routes an agent or
    /// bot on a key may use on its owner's behalf (read and join games, alerts, backtests: what the MCP server's
    /// tools reach). 401 without either.
    func userOrKeyOwner(_ context: AppContext) async throws -> UserID {
        switch context.caller {
        case .user(let id, _): return id
        case .account(let account):
            guard let record = await accountRecord(account) else { throw APIError.unauthorized }
            return record.userID
        case nil: throw APIError.unauthorized
        }
    }
}

extension AppContext {
    /// The symbol a path names: `{symbol}`, or a crypto pair written with its slash (`/v2/assets/BTC/USD`, as
    /// alpaca-py sends it: `{symbol}/{quote}`); percent-escapes decoded (`BTC%2FUSD`), upper-cased.
    func pathSymbol() throws -> String {
        var text = try parameters.require("symbol")
        if let quote = parameters.get("quote") { text += "/" + quote }
        return (text.removingPercentEncoding ?? text).uppercased()
    }
}
