import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Steps the market's time on a server started with `--clock manual`: a test or a demo that must not depend on how
/// fast the machine is moves the clock itself (`POST /api/v1/clock/advance {"seconds": N}`), and orders, halts,
/// alerts and the close happen when it says. Whoever started the server may step it: the request carries the key the
/// server printed at start (`Authorization: Bearer …`), so no user of a shared server can move everyone's market.
struct ClockController {
    let clock: MarketClock
    /// The key printed in the banner; nil when the clock is not manual.
    let key: String?

    /// The most one step may move the clock: a year.
    static let maximumStep = 366 * 86_400

    func addRoutes(to router: Router<AppContext>) {
        router.post("api/v1/clock/advance", use: advance)
    }

    @Sendable func advance(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        guard let key else {
            throw APIError(
                .conflict, code: 40900000,
                "this server's clock is not manual: only a server started with --clock manual may be stepped")
        }
        let presented = request.headers[.authorization].flatMap { text in
            text.hasPrefix("Bearer ") ? String(text.dropFirst("Bearer ".count)) : nil
        }
        guard let presented, Self.same(presented, key) else {
            throw APIError(.unauthorized, code: 40110000, "step the clock with the key the server printed at start")
        }
        let body = try await request.jsonBody(context: context)
        guard let seconds = body["seconds"]?.int, (0...Self.maximumStep).contains(seconds) else {
            throw APIError.unprocessable("seconds must be a whole number from 0 to \(Self.maximumStep)")
        }
        clock.advance(by: Int64(seconds) * 1_000_000_000)
        return JSONValue.object(["time": .string(clock.now().description)]).response()
    }

    /// Compares in time independent of where the texts differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
