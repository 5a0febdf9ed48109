import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import MarketData
import Server
import Testing
import TradingCore

@Suite("Option expirations on the native API")
struct OptionsAPITests {
    @Test(
        "an expiration is 'in N days' from the date in New York, at every hour of the day — after the close too, when the listing is already the next day's"
    )
    func daysCountFromTheCalendarDate() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("papertrade-options-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = dir
        // Tuesday 1 December 2026, from midnight on.
        let tuesday = CivilDate(2026, 12, 1)
        let clock = MarketClock(.manual(start: Timestamp(tuesday, in: .newYork)))
        let services = try await Papertrade.start(configuration, clock: clock)
        let user = try await services.access.createUser(username: "optionist", password: "correct horse")
        let account = try await services.brokerage.openAccount(userID: user.id, market: .us, cash: nil, name: nil)
        let key = try await services.access.createKey(account: account.id)
        let headers: HTTPFields = [
            HTTPField.Name("APCA-API-KEY-ID")!: key.keyID, HTTPField.Name("APCA-API-SECRET-KEY")!: key.secret,
        ]
        try await buildApplication(services).test(.router) { client in
            for hour in 0..<24 {
                if hour > 0 { clock.advance(by: Duration64.hour) }
                try await client.execute(uri: "/api/v1/options/AAPL", method: .get, headers: headers) {
                    r in
                    #expect(r.status == .ok)
                    let expirations = (try? JSONValue(parsing: Array(r.body.readableBytesView)))?["expirations"]
                    let listed = expirations?.array ?? []
                    #expect(!listed.isEmpty, "\(hour):00")
                    for e in listed {
                        guard let text = e["date"]?.string, let date = CivilDate(text) else {
                            Issue.record("an expiration without a date at \(hour):00")
                            continue
                        }
                        #expect(
                            e["days"]?.int == date.daysSinceEpoch - tuesday.daysSinceEpoch, "\(text) at \(hour):00")
                    }
                    #expect(
                        listed.first { $0["date"]?.string == "2026-12-04" }?["days"]?.int == 3,
                        "Friday the 4th is in 3 days all through Tuesday the 1st (\(hour):00)")
                }
            }
        }
        await services.shutdown()
    }
}
