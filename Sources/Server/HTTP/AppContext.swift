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
