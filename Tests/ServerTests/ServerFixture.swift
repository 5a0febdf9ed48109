import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import MarketData
import NIOCore
import Server
import TradingCore

/// A real server on a fresh SQLite file, with a manual clock inside the US session, a user, a USD account (a margin
/// account, as new US accounts are, unless `type` says cash) and its API key.
struct ServerFixture {
    let services: Papertrade
    let directory: String
    let accountID: AccountID
    let keyID: String
    let secret: String

    static let morning = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)

    static func make(
        at time: Timestamp = morning, directory: String? = nil, cash: FixedDecimal? = nil, type: AccountType? = nil
    ) async throws -> ServerFixture {
        let dir =
            directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-test-\(UUID())").path
        var configuration = ServerConfiguration()
        configuration.dataDirectory = dir
        let services = try await Papertrade.start(configuration, clock: MarketClock(.manual(start: time)))
        do {
            // A fixture reopened on the same directory adds a user of its own: the names must differ.
            let suffix = UUID().uuidString.prefix(8).lowercased()
            let user = try await services.access.createUser(username: "alice-\(suffix)", password: "correct horse")
            let account = try await services.brokerage.openAccount(
                userID: user.id, market: .us, cash: cash, name: nil, type: type)
            let key = try await services.access.createKey(account: account.id)
            return ServerFixture(
                services: services, directory: dir, accountID: account.id, keyID: key.keyID, secret: key.secret)
        } catch {
            await services.shutdown() // SQLite insists on being closed, also when setting up fails
            throw error
        }
    }

    /// Runs a test against a fresh fixture and always closes its database (SQLite insists on it).
    static func with(
        at time: Timestamp = morning, cash: FixedDecimal? = nil, type: AccountType? = nil,
        _ body: (ServerFixture) async throws -> Void
    ) async throws {
        let f = try await make(at: time, cash: cash, type: type)
        do {
            try await body(f)
        } catch {
            await f.services.shutdown()
            throw error
        }
        await f.services.shutdown()
    }

    var app: some ApplicationProtocol { buildApplication(services) }

    var auth: HTTPFields {
        [HTTPField.Name("APCA-API-KEY-ID")!: keyID, HTTPField.Name("APCA-API-SECRET-KEY")!: secret]
    }

    /// The response body as JSON (`.null` if it is not JSON, which every assertion on it then reports).
    func json(_ response: TestResponse) -> JSONValue {
        (try? JSONValue(parsing: Array(response.body.readableBytesView))) ?? .null
    }
}

func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
