import Foundation
import Hummingbird
import HummingbirdTesting
import MarketData
import PapertradeKit
import Server
import TradingCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real papertrade server listening on a free local port (fresh SQLite file, manual clock inside the US
/// session), a user with its US account, and that account's API key: PapertradeKit talks to it over HTTP as an app
/// would.
struct LiveServer {
    let services: Papertrade
    let baseURL: URL
    let username: String
    let password = "correct horse"
    let accountID: String
    let keyID: String
    let secret: String

    static let day = CivilDate(2026, 11, 20)
    static let morning = Timestamp(day, hour: 10, in: .newYork)

    var keyClient: PapertradeClient { PapertradeClient(baseURL: baseURL, keyID: keyID, secretKey: secret) }

    func userClient() async throws -> PapertradeClient {
        try await PapertradeClient.login(baseURL: baseURL, username: username, password: password)
    }

    /// Runs `body` against a fresh server and always shuts it down.
    static func with(_ body: @Sendable (LiveServer) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-kit-\(UUID())").path
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory
        let services = try await Papertrade.start(configuration, clock: MarketClock(.manual(start: morning)))
        do {
            let username = "kit-\(UUID().uuidString.prefix(8).lowercased())"
            let user = try await services.access.createUser(username: username, password: "correct horse")
            let account = try await services.brokerage.openAccount(
                userID: user.id, market: .us, cash: nil, name: nil, type: nil)
            let key = try await services.access.createKey(account: account.id)
            try await buildApplication(services).test(.live) { client in
                guard let port = client.port, let url = URL(string: "http://127.0.0.1:\(port)") else {
                    throw PapertradeError.transport("the live server has no port")
                }
                try await body(
                    LiveServer(
                        services: services, baseURL: url, username: username, accountID: account.id.description,
                        keyID: key.keyID, secret: key.secret))
            }
        } catch {
            await services.shutdown()
            throw error
        }
        await services.shutdown()
    }

    /// The server's own JSON for a path, read without the kit (what the round-trip tests compare with).
    func raw(_ path: String, session: PapertradeClient? = nil) async throws -> Any {
        guard let url = URL(string: baseURL.absoluteString + "/api/v1/" + path) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        switch session?.credentials {
        case .session(let token)?: request.setValue("papertrade_session=\(token)", forHTTPHeaderField: "Cookie")
        default:
            request.setValue(keyID, forHTTPHeaderField: "APCA-API-KEY-ID")
            request.setValue(secret, forHTTPHeaderField: "APCA-API-SECRET-KEY")
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONSerialization.jsonObject(with: data)
    }
}
