import Brokerage
import Hummingbird
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

    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// 64 KiB is far more than any papertrade request needs.
    public var maxUploadSize: Int { 64 * 1024 }
}

extension Brokerage {
    /// The account in the path (`{id}`), if it belongs to the logged-in user or is the API key's own account;
    /// "account not found" otherwise (never "forbidden": another user's account ids are not confirmed).
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
        let accounts = try await loadAccounts(of: user)
        guard let record = accounts.first(where: { $0.id == id }) else { throw APIError.notFound("account not found") }
        return record
    }
}
