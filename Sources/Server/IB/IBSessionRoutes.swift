import Brokerage
import Foundation
import Hummingbird
import JSON
import NIOCore
import TradingCore

/// Session endpoints and the login page. The gateway starts logged out (unless `--ib-user`); a person logs in at
/// `/` with papertrade credentials, after which every client of the port acts as that user — as with IB's gateway.
struct IBSessionRoutes {
    let gateway: IBGateway
    var market: MarketView { gateway.market }
    var users: UserDirectory { gateway.access.users }
    var access: UserAccess { gateway.access }

    /// Open to everyone: status, login page, logout.
    func addOpenRoutes(to router: Router<AppContext>, api: RouterGroup<AppContext>) {
        router.get("/", use: loginPage)
        router.post("sso/Login", use: login)
        for path in ["iserver/auth/status", "iserver/auth/ssodh/init"] {
            api.post(RouterPath(path), use: status)
            api.get(RouterPath(path), use: status)
        }
        api.post("tickle", use: tickle)
        api.get("tickle", use: tickle)
        api.post("logout", use: logout)
        api.get("logout", use: logout)
        api.get("sso/validate", use: validate)
        api.post("iserver/reauthenticate", use: reauthenticate)
        api.get("openapi.json") { _, _ in IBOpenAPI.document.response() }
    }

    var serverInfo: JSONValue {
        .object(["serverName": .string("papertrade"), "serverVersion": .string("papertrade Client Portal 1")])
    }

    func authStatus() -> JSONValue {
        let loggedIn = gateway.state.withLock { $0.user != nil }
        return .object([
            "authenticated": .bool(loggedIn), "competing": .bool(false), "connected": .bool(loggedIn),
            "message": .string(loggedIn ? "" : "log in at the gateway's page"), "MAC": .string("00:00:00:00:00:00"),
            "serverInfo": serverInfo, "fail": .string(""), "hardware_info": .string("papertrade|0"),
        ])
    }

    @Sendable func status(_ request: Request, context: AppContext) async throws -> Response {
        authStatus().response()
    }

    @Sendable func tickle(_ request: Request, context: AppContext) async throws -> Response {
        let (user, session) = gateway.state.withLock { ($0.user, $0.session) }
        guard user != nil else { throw IBError.notAuthenticated }
        let expires = Int(Date().timeIntervalSince1970 * 1000) + 86_400_000
        return JSONValue.object([
            "session": .string(session), "ssoExpires": .int(expires), "collission": .bool(false),
            "userId": .int(userNumber), "hmds": .object(["error": .string("no bridge")]),
            "iserver": .object(["authStatus": authStatus()]),
        ]).response()
    }

    /// A stable number for the user (IB's userId is an integer): FNV-1a of the user's id, 8 digits.
    var userNumber: Int {
        guard let user = gateway.state.withLock({ $0.user }) else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in user.text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(hash % 90_000_000) + 10_000_000
    }

    @Sendable func validate(_ request: Request, context: AppContext) async throws -> Response {
        let (user, name) = gateway.state.withLock { ($0.user, $0.username) }
        guard user != nil else { throw IBError.notAuthenticated }
        let now = Int(Date().timeIntervalSince1970 * 1000)
        return JSONValue.object([
            "USER_ID": .int(userNumber), "USER_NAME": .string(name), "RESULT": .bool(true), "AUTH_TIME": .int(now),
            "SF_ENABLED": .bool(false), "IS_FREE_TRIAL": .bool(false), "CREDENTIAL": .string(name),
            "IP": .string("127.0.0.1"), "EXPIRES": .int(86_400_000), "QUALIFIED_FOR_MOBILE_AUTH": .null,
            "LANDING_APP": .string("UNIVERSAL"), "IS_MASTER": .bool(false), "lastAccessed": .int(now),
            "LOGIN_TYPE": .int(2), "PAPER_USER_NAME": .string(name), "region": .string("papertrade"),
            "features": .object(["env": .string("PROD"), "wlms": .bool(false), "realtime": .bool(true)]),
        ]).response()
    }

    @Sendable func reauthenticate(_ request: Request, context: AppContext) async throws -> Response {
        _ = try gateway.user()
        return JSONValue.object(["message": .string("triggered")]).response()
    }

    @Sendable func logout(_ request: Request, context: AppContext) async throws -> Response {
        let wasLoggedIn = gateway.state.withLock { $0.user != nil }
        gateway.logOut()
        return JSONValue.object(["status": .bool(wasLoggedIn)]).response()
    }

    // MARK: Login page

    @Sendable func loginPage(_ request: Request, context: AppContext) async throws -> Response {
        let name = gateway.state.withLock { $0.user == nil ? nil : $0.username }
        return page(
            name.map { "<p>Client login succeeds — this gateway trades as <b>\(escape($0))</b>.</p>" + logoutForm }
                ?? loginForm(error: nil))
    }

    /// A login form holds a user name and a password: more than this is refused (413).
    static let loginBodyLimit = 16 * 1024

    @Sendable func login(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: Self.loginBodyLimit) } catch {
            throw IBError(.contentTooLarge, "request body is larger than \(Self.loginBodyLimit) bytes")
        }
        let text = String(buffer: body)
        var fields: [String: String] = [:]
        if let json = try? JSONValue(parsing: text), let object = json.object {
            for (key, value) in object { fields[key] = value.string }
        } else {
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
        }
        let username = (fields["username"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        let password = fields["password"] ?? ""
        let now = market.clock.now()
        guard !access.throttle.isBlocked(username, at: now) else {
            return page(
                loginForm(error: "Too many failed logins; try again in a few minutes."), status: .tooManyRequests)
        }
        guard let user = try await users.user(username: username),
            try await Credentials.verifyPassword(password, hash: user.passwordHash)
        else {
            access.throttle.recordFailure(username, at: now)
            return page(loginForm(error: "Wrong username or password."), status: .unauthorized)
        }
        access.throttle.reset(username)
        gateway.logIn(user)
        return page(
            "<p>Client login succeeds — this gateway trades as <b>\(escape(user.username))</b>.</p>" + logoutForm)
    }

    func loginForm(error: String?) -> String {
        (error.map { "<p class=error>\(escape($0))</p>" } ?? "")
            + """
            <form method=post action="/sso/Login">
              <label>Username <input name=username autocomplete=username required></label>
              <label>Password <input name=password type=password autocomplete=current-password required></label>
              <button>Log in</button>
            </form>
            """
    }

    let logoutForm = """
        <form method=post action="/v1/api/logout"><button>Log out</button></form>
        <p>Point your Client Portal client (ibind, an IB app) at this address, e.g. <code>https://localhost:PORT/v1/api/</code>.</p>
        """

    func page(_ content: String, status: HTTPResponse.Status = .ok) -> Response {
        let html = """
            <!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content="width=device-width">
            <title>papertrade — Client Portal gateway</title>
            <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
            label{display:block;margin:.6rem 0}input{display:block;width:100%;padding:.5rem;font-size:1rem}
            button{padding:.5rem 1rem;font-size:1rem}.error{color:#b00}</style></head>
            <body><h1>papertrade gateway</h1><p>Interactive Brokers Client Portal API over papertrade's paper accounts.</p>
            \(content)</body></html>
            """
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// Everything but the session endpoints needs a logged-in gateway: 401 `{"error": "not authenticated"}` before.
struct IBLoginRequired: RouterMiddleware {
    let gateway: IBGateway

    func handle(
        _ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        _ = try gateway.user()
        return try await next(request, context)
    }
}

/// Answers every failure in the gateway's error shape, never with an empty 500.
struct IBErrorMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as IBError {
            throw error
        } catch let error as BrokerageError {
            switch error {
            case .notFound(let message): throw IBError(.notFound, message)
            case .conflict(let message): throw IBError(.conflict, message)
            case .unavailable: throw IBError(.serviceUnavailable, error.message)
            default: throw IBError(.badRequest, error.message)
            }
        } catch let error as APIError {
            throw IBError(error.status == .unprocessableContent ? .badRequest : error.status, error.message)
        } catch let error as HTTPError {
            // A path the gateway documents, asked with a method it does not declare: 405 with the methods it has.
            if error.status == .notFound, let allowed = IBOpenAPI.methods.allowed(for: request.uri.path),
                !allowed.contains(request.method.rawValue)
            {
                var response = try IBError(
                    .methodNotAllowed,
                    "method \(request.method.rawValue) is not allowed here; use \(allowed.joined(separator: ", "))"
                ).response(from: request, context: context)
                response.headers[.allow] = allowed.joined(separator: ", ")
                return response
            }
            throw IBError(error.status, error.body ?? error.status.reasonPhrase)
        } catch is NIOTooManyBytesError {
            throw IBError(.contentTooLarge, "request body is larger than \(context.maxUploadSize) bytes")
        } catch {
            context.logger.error("unexpected error: \(error)")
            throw IBError(.internalServerError, "internal error")
        }
    }
}

extension Request {
    /// The JSON object body of a Client Portal request: nil when empty; 400 when it is not an object.
    mutating func ibObject(context: AppContext) async throws -> IBFields? {
        guard let body = try await ibBody(context: context) else { return nil }
        guard case .object(let fields) = body else { throw IBError(.badRequest, "send a JSON object") }
        return IBFields(fields: fields)
    }

    /// The JSON body of a Client Portal request: nil when empty; 400 in IB's shape when malformed.
    mutating func ibBody(context: AppContext) async throws -> JSONValue? {
        let buffer: ByteBuffer
        do { buffer = try await collectBody(upTo: context.maxUploadSize) } catch {
            throw IBError(.contentTooLarge, "request body is larger than \(context.maxUploadSize) bytes")
        }
        guard buffer.readableBytes > 0 else { return nil }
        do { return try JSONValue(parsing: Array(buffer.readableBytesView)) } catch {
            throw IBError(.badRequest, "malformed JSON: \(error.description)")
        }
    }
}

/// A request body's fields read by type: absent or null is nil, a value of another type is a 400 naming the field.
struct IBFields {
    let fields: [String: JSONValue]

    func read<T>(_ key: String, _ kind: String, _ convert: (JSONValue) -> T?) throws(IBError) -> T? {
        guard let value = fields[key], !value.isNull else { return nil }
        guard let converted = convert(value) else { throw IBError(.badRequest, "\(key) must be \(kind)") }
        return converted
    }

    func string(_ key: String) throws(IBError) -> String? { try read(key, "a string", \.string) }
    func bool(_ key: String) throws(IBError) -> Bool? { try read(key, "true or false", \.bool) }
}
