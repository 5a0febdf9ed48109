import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Sign up, log in, log out, me (and the user's language) — sessions in HttpOnly, SameSite=Lax cookies; failed
/// logins throttled.
struct AuthController {
    let clock: MarketClock
    let accountService: any AccountService
    let users: UserDirectory
    let access: UserAccess
    static let sessionDays: Int64 = 30

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.post("auth/signup", use: signup)
        group.post("auth/login", use: login)
        group.post("auth/logout", use: logout)
        group.get("auth/session", use: session)
        group.get("me", use: me)
        group.put("me", use: update)
        group.put("me/password", use: changePassword)
    }

    /// The username and password of a signup or login, and the language the signup asks for (the app sends the
    /// browser's, so the new user's accounts and first notifications are named in it).
    func credentials(_ request: inout Request, context: AppContext) async throws -> (String, String, Language?) {
        let body = try await request.jsonBody(context: context)
        guard let username = body["username"]?.string?.trimmingCharacters(in: .whitespaces), !username.isEmpty,
            let password = body["password"]?.string, !password.isEmpty
        else {
            throw APIError.unprocessable("username and password are required")
        }
        return (username.lowercased(), password, body["language"]?.string.flatMap(Language.init(tag:)))
    }

    @Sendable func signup(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let (username, password, language) = try await credentials(&request, context: context)
        let user = try await access.createUser(username: username, password: password)
        if let language { try await users.setLanguage(language, user: user.id) }
        _ = try await accountService.openAccount(userID: user.id, market: .us, cash: nil, name: nil)
        _ = try await accountService.openAccount(userID: user.id, market: .cn, cash: nil, name: nil)
        return try await sessionResponse(user: user, status: .created)
    }

    @Sendable func login(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let (username, password, _) = try await credentials(&request, context: context)
        let now = clock.now()
        guard !access.throttle.isBlocked(username, at: now) else {
            throw APIError(
                .tooManyRequests, code: UserAccess.Refusal.tooManyLogins,
                "too many failed logins; try again in a few minutes")
        }
        guard let user = try await users.user(username: username),
            try await Credentials.verifyPassword(password, hash: user.passwordHash)
        else {
            access.throttle.recordFailure(username, at: now)
            throw APIError(.unauthorized, code: UserAccess.Refusal.wrongPassword, "wrong username or password")
        }
        access.throttle.reset(username)
        try await users.recordLogin(user: user.id)
        return try await sessionResponse(user: user, status: .ok)
    }

    @Sendable func logout(_ request: Request, context: AppContext) async throws -> Response {
        if case .user(_, let token) = context.caller {
            try await users.closeSession(tokenHash: Credentials.sha256(token))
        }
        var response = JSONValue.object(["ok": .bool(true)]).response()
        response.setCookie(
            Cookie(name: SessionAuthenticator.cookie, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .lax))
        return response
    }

    @Sendable func me(_ request: Request, context: AppContext) async throws -> Response {
        let userID = try context.user()
        guard let user = try await users.user(id: userID) else { throw APIError.unauthorized }
        return try await profile(user).response()
    }

    /// `GET /api/v1/auth/session`: `{"user": …}` as `/me` gives it when the session cookie is valid, `{"user": null}`
    /// otherwise — always a 200, so the app asks at start without a failed request in the browser's console.
    @Sendable func session(_ request: Request, context: AppContext) async throws -> Response {
        guard case .user(let userID, _) = context.caller, let user = try await users.user(id: userID) else {
            return JSONValue.object(["user": .null]).response()
        }
        return try await JSONValue.object(["user": profile(user)]).response()
    }

    /// `PUT /api/v1/me {"language": "zh-Hans" | "en" | null}`: the language the app and the user's notifications are
    /// written in (null follows the browser; notifications are then English).
    @Sendable func update(_ request: Request, context: AppContext) async throws -> Response {
        let userID = try context.user()
        var request = request
        let body = try await request.jsonBody(context: context)
        guard case .object(let fields) = body, fields.keys.allSatisfy({ $0 == "language" }),
            let value = fields["language"]
        else {
            throw APIError.unprocessable("expected {\"language\": \"en\" | \"zh-Hans\" | null}")
        }
        var language: Language?
        if value != .null {
            guard let tag = value.string, let chosen = Language(rawValue: tag) else {
                throw APIError.unprocessable("language must be en or zh-Hans (or null to follow the browser)")
            }
            language = chosen
        }
        try await users.setLanguage(language, user: userID)
        guard let user = try await users.user(id: userID) else { throw APIError.unauthorized }
        return try await profile(user).response()
    }

    /// `PUT /api/v1/me/password {"current_password", "new_password"}`: the user chooses their own password (a
    /// student whose teacher handed one out is asked to at the first log-in: `must_change_password`).
    @Sendable func changePassword(_ request: Request, context: AppContext) async throws -> Response {
        let userID = try context.user()
        var request = request
        let o = try BodyFields(
            try await request.jsonBody(context: context), allowed: ["current_password", "new_password"])
        let current = try o.required("current_password") { try o.string($0) }
        let new = try o.required("new_password") { try o.string($0) }
        guard let user = try await users.user(id: userID) else { throw APIError.unauthorized }
        let now = clock.now()
        guard !access.throttle.isBlocked(user.username, at: now) else {
            throw APIError(
                .tooManyRequests, code: UserAccess.Refusal.tooManyLogins,
                "too many wrong passwords; try again in a few minutes")
        }
        guard try await Credentials.verifyPassword(current, hash: user.passwordHash) else {
            access.throttle.recordFailure(user.username, at: now)
            throw APIError(.forbidden, code: UserAccess.Refusal.wrongPassword, "the current password is wrong")
        }
        if let problem = AccountRules.passwordProblem(new) {
            throw APIError(.unprocessableContent, code: UserAccess.Refusal.password, problem)
        }
        guard new != current else {
            throw APIError(.unprocessableContent, code: UserAccess.Refusal.password, "choose a new password")
        }
        try await users.setPassword(user: userID, hash: try await Credentials.hashPassword(new), mustChange: false)
        guard let changed = try await users.user(id: userID) else { throw APIError.unauthorized }
        return try await profile(changed).response()
    }

    func profile(_ user: UserRecord) async throws -> JSONValue {
        let accounts = try await accountService.loadAccounts(of: user.id)
        var list: [JSONValue] = []
        for record in accounts {
            let summary = try await accountService.summary(record.id)
            list.append(NativeEncoding.account(record, summary: summary, name: accountService.displayName(of: record)))
        }
        return .object([
            "id": .string(user.id.text), "username": .string(user.username), "language": .text(user.language),
            "must_change_password": .bool(user.mustChangePassword), "accounts": .array(list),
        ])
    }

    func sessionResponse(user: UserRecord, status: HTTPResponse.Status) async throws -> Response {
        let token = Credentials.token()
        try await users.openSession(
            tokenHash: Credentials.sha256(token), userID: user.id,
            lifetime: Self.sessionDays * 86_400)
        var response = try await profile(user).response(status: status)
        response.setCookie(
            Cookie(
                name: SessionAuthenticator.cookie, value: token, maxAge: Int(Self.sessionDays * 86_400),
                path: "/", httpOnly: true, sameSite: .lax))
        return response
    }
}
