import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A connection to one papertrade server through its native API (`/api/v1`).
///
/// Two ways in:
/// - an account's API key (the pair an Alpaca client uses): ``init(baseURL:keyID:secretKey:session:)``. The client
///   then reaches that one account — its orders, positions, transfers, watchlists, queue and performance — and
///   market data;
/// - a user's login: ``login(baseURL:username:password:session:)`` (or ``signup(baseURL:username:password:session:)``),
///   which reaches every account of the user and what belongs to the user: games, alerts, notifications, backtests.
///
/// Every call is `async` and throws ``PapertradeError``; amounts are `Decimal`, parsed exactly from the server's text.
public final class PapertradeClient: Sendable {
    public enum Credentials: Sendable, Equatable {
        case apiKey(id: String, secret: String)
        /// A logged-in user's session token (the `papertrade_session` cookie).
        case session(String)
    }

    public let baseURL: URL
    public let credentials: Credentials
    let urlSession: URLSession
    /// The API key's account, learned on first use.
    let keyAccount = Locked<String?>(nil)

    /// A client for the account that owns the API key.
    public convenience init(baseURL: URL, keyID: String, secretKey: String, session: URLSession? = nil) {
        self.init(baseURL: baseURL, credentials: .apiKey(id: keyID, secret: secretKey), session: session)
    }

    public init(baseURL: URL, credentials: Credentials, session: URLSession? = nil) {
        self.baseURL = baseURL
        self.credentials = credentials
        self.urlSession = session ?? Self.defaultSession()
    }

    /// Logs in and returns a client for the user's session.
    public static func login(baseURL: URL, username: String, password: String, session: URLSession? = nil)
        async throws(PapertradeError) -> PapertradeClient
    {
        try await startSession(baseURL, "auth/login", username: username, password: password, session: session)
    }

    /// Creates a user (with a US and an A-share paper account) and returns a client logged in as it.
    public static func signup(baseURL: URL, username: String, password: String, session: URLSession? = nil)
        async throws(PapertradeError) -> PapertradeClient
    {
        try await startSession(baseURL, "auth/signup", username: username, password: password, session: session)
    }

    /// Ends the user's session on the server.
    public func logout() async throws(PapertradeError) {
        try await sendIgnoringBody("POST", "auth/logout")
    }

    static let sessionCookie = "papertrade_session"

    static func defaultSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        // The client sends its own credentials; cookies a server sets are read from the login answer only.
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }

    private static func startSession(
        _ baseURL: URL, _ path: String, username: String, password: String, session: URLSession?
    ) async throws(PapertradeError) -> PapertradeClient {
        let anonymous = PapertradeClient(baseURL: baseURL, credentials: .session(""), session: session)
        let body = ["username": username, "password": password]
        let (_, response) = try await anonymous.exchange("POST", path, query: [], body: anonymous.encode(body))
        let cookies = response.value(forHTTPHeaderField: "Set-Cookie") ?? ""
        for part in cookies.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == sessionCookie {
                return PapertradeClient(baseURL: baseURL, credentials: .session(String(pair[1])), session: session)
            }
        }
        throw .decoding("the server did not start a session")
    }

    // MARK: - Requests

    /// The URL of an API path (relative to `/api/v1/`, or from the server's root when it starts with "/") with its
    /// query.
    func url(_ path: String, query: [URLQueryItem]) throws(PapertradeError) -> URL {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        guard var components = URLComponents(string: text + (path.hasPrefix("/") ? path : "/api/v1/" + path)) else {
            throw .transport("bad server URL \(baseURL)")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw .transport("bad request path \(path)") }
        return url
    }

    func request(
        _ method: String, _ path: String, query: [URLQueryItem], body: Data?, contentType: String = "application/json"
    ) throws(PapertradeError) -> URLRequest {
        var request = URLRequest(url: try url(path, query: query))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        switch credentials {
        case .apiKey(let id, let secret):
            request.setValue(id, forHTTPHeaderField: "APCA-API-KEY-ID")
            request.setValue(secret, forHTTPHeaderField: "APCA-API-SECRET-KEY")
        case .session(let token) where !token.isEmpty:
            request.setValue("\(Self.sessionCookie)=\(token)", forHTTPHeaderField: "Cookie")
        case .session: break
        }
        if let body {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        return request
    }

    /// One request: the body and response of a 2xx answer; anything else becomes the server's error.
    func exchange(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
        contentType: String = "application/json"
    ) async throws(PapertradeError) -> (Data, HTTPURLResponse) {
        let request = try request(method, path, query: query, body: body, contentType: contentType)
        let data: Data
        let response: URLResponse
        do { (data, response) = try await urlSession.data(for: request) } catch {
            throw .transport(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw .transport("not an HTTP answer") }
        guard (200..<300).contains(http.statusCode) else { throw Self.error(status: http.statusCode, body: data) }
        return (data, http)
    }

    /// The server's error body ({"code": 40310000, "message": "…"}) as a typed error.
    static func error(status: Int, body: Data) -> PapertradeError {
        struct Body: Decodable {
            var code: Int?
            var message: String?
        }
        let decoded = try? JSONDecoder().decode(Body.self, from: body)
        let message =
            decoded?.message
            ?? (body.isEmpty
                ? HTTPURLResponse.localizedString(forStatusCode: status) : String(decoding: body, as: UTF8.self))
        return .server(status: status, code: decoded?.code, message: message)
    }

    /// Any path of the server with this client's credentials — the Alpaca-compatible API (`/v2/account`,
    /// `/v2/stocks/bars`…) as well as the native one (`/api/v1/…`) — answering the body of a 2xx as it came; errors
    /// as for every call. For what the typed calls do not cover.
    public func rawRequest(_ method: String, path: String, query: [URLQueryItem] = [], body: Data? = nil)
        async throws(PapertradeError) -> Data
    {
        guard path.hasPrefix("/") else {
            throw .transport("a raw path starts at the server's root: /v2/… or /api/v1/…")
        }
        return try await exchange(method, path, query: query, body: body).0
    }

    func send<Answer: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
        as type: Answer.Type = Answer.self
    ) async throws(PapertradeError) -> Answer {
        let (data, _) = try await exchange(method, path, query: query, body: body)
        return try decode(Answer.self, from: data)
    }

    func sendIgnoringBody(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil)
        async throws(PapertradeError)
    {
        _ = try await exchange(method, path, query: query, body: body)
    }

    func decode<Answer: Decodable>(_ type: Answer.Type, from data: Data) throws(PapertradeError) -> Answer {
        do { return try PapertradeJSON.decoder().decode(Answer.self, from: data) } catch {
            throw .decoding("\(Answer.self): \(error)")
        }
    }

    func encode(_ value: some Encodable) throws(PapertradeError) -> Data {
        do { return try PapertradeJSON.encoder().encode(value) } catch { throw .decoding("\(error)") }
    }

    /// A path segment with reserved characters escaped (symbols like BRK.B pass through; a slash cannot).
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// A value behind a lock (Foundation only: `Synchronization.Mutex` needs iOS 18).
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
