import Brokerage
import HTTPTypes
import Hummingbird
import TradingCore

/// Alpaca's auth headers (APCA-API-KEY-ID / APCA-API-SECRET-KEY) → the key's account; 401 otherwise.
///
/// On a cluster node (`node` is its name) an answer for an account whose shard this node serves says so in
/// `Papertrade-Shard-Owner`; an answer forwarded from the owner carries the owner's. HAProxy keeps the last one per
/// key (deploy/haproxy.cfg, `set-map`) and sends the key's next requests to that node, so a key's requests are
/// forwarded only until its first answer, and again only after its shard moves.
struct APIKeyAuthenticator: RouterMiddleware {
    let access: UserAccess
    var node: String? = nil
    static let shardOwner = HTTPField.Name.literal("Papertrade-Shard-Owner")

    func handle(
        _ request: Request, context: AppContext,
        next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        let (keyID, secret) = request.headers.alpacaCredentials
        guard let keyID, let secret, let account = try await access.authenticate(keyID: keyID, secret: secret) else {
            throw APIError.unauthorized
        }
        var context = context
        context.caller = .account(account)
        context.credential = .apiKey(keyID)
        var response = try await next(request, context)
        if let node, await access.accountService.servesHere(account) {
            response.headers[Self.shardOwner] = node
        }
        return response
    }
}

/// On a cluster node, the web app's (and the CLI's) answers about one account — `/api/v1/accounts/{id}/…` — name
/// this node in `Papertrade-Shard-Owner` when it serves the account, as `APIKeyAuthenticator` does for an Alpaca key:
/// HAProxy keeps the last name per account id and sends that account's next requests straight here
/// (deploy/haproxy.cfg). A forwarded answer keeps the owner's name.
struct AccountOwnerHint: RouterMiddleware {
    let accounts: any AccountService
    let node: String

    func handle(
        _ request: Request, context: AppContext,
        next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        if response.headers[APIKeyAuthenticator.shardOwner] == nil, let account = Self.account(in: request.uri.path),
            await accounts.servesHere(account)
        {
            response.headers[APIKeyAuthenticator.shardOwner] = node
        }
        return response
    }

    /// The account a native path names (`/api/v1/accounts/{id}` and below), if it names one.
    static func account(in path: String) -> AccountID? {
        let parts = path.split(separator: "/")
        guard parts.count >= 4, parts[0] == "api", parts[1] == "v1", parts[2] == "accounts" else { return nil }
        return AccountID(String(parts[3]))
    }
}

/// The web session cookie → the logged-in user, when there is one (routes decide whether they need it).
/// Without a cookie, an API key (Alpaca's headers) may call the routes of its own account
/// (`/api/v1/accounts/{its id}/…`: the CLI and bots use this); a wrong key is a 401.
struct SessionAuthenticator: RouterMiddleware {
    static let cookie = "papertrade_session"
    let access: UserAccess

    func handle(
        _ request: Request, context: AppContext,
        next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if let token = request.cookies[Self.cookie]?.value,
            case let hash = Credentials.sha256(token),
            let user = try await access.users.sessionUser(tokenHash: hash)
        {
            context.caller = .user(id: user, sessionToken: token)
            context.credential = .session(tokenHash: hash)
        } else if let keyID = request.headers[HTTPField.Name.alpacaKeyID] {
            // The event stream only listens (on a cluster, on any node); every other route uses the account.
            guard let secret = request.headers[HTTPField.Name.alpacaSecretKey],
                let account = try await access.authenticate(
                    keyID: keyID, secret: secret, loading: request.uri.path != "/api/v1/events")
            else {
                throw APIError.unauthorized
            }
            context.caller = .account(account)
            context.credential = .apiKey(keyID)
        }
        return try await next(request, context)
    }
}

extension AppContext {
    /// The API key's account, or 401.
    func account() throws -> AccountID {
        guard case .account(let id) = caller else { throw APIError.unauthorized }
        return id
    }

    /// The logged-in user, or 401.
    func user() throws -> UserID {
        guard case .user(let id, _) = caller else { throw APIError.unauthorized }
        return id
    }
}

extension HTTPFields {
    /// Alpaca's two auth headers, read in one pass over the fields (every Alpaca request needs both).
    var alpacaCredentials: (keyID: String?, secret: String?) {
        var keyID: String?
        var secret: String?
        for field in self {
            if field.name == .alpacaKeyID {
                keyID = keyID ?? field.value
            } else if field.name == .alpacaSecretKey {
                secret = secret ?? field.value
            }
        }
        return (keyID, secret)
    }
}

extension HTTPField.Name {
    /// Alpaca's auth headers (made once: a name is validated and lowercased when it is made).
    static let alpacaKeyID = HTTPField.Name.literal("APCA-API-KEY-ID")
    static let alpacaSecretKey = HTTPField.Name.literal("APCA-API-SECRET-KEY")
}
