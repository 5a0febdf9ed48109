import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Price alerts of the signed-in user: notifications when a price condition holds (nothing is ordered).
///
/// `POST /api/v1/alerts` body:
/// ```
/// {"symbol": "AAPL", "condition": "crossing_up", "value": "150",      (or "moving_average": 20 — daily closes)
///  "frequency": "once",                 (once | once_per_bar | once_per_minute)
///  "timeframe": "1Day",                 (the bar: 1Min 5Min 15Min 30Min 1Hour 1Day)
///  "expires_at": "2026-12-31T21:00:00Z", "message": "time to look at it"}
/// ```
/// Conditions: crossing, crossing_up, crossing_down, greater_than, less_than (`value` or `moving_average`);
/// entering_channel, exiting_channel, inside_channel, outside_channel (`lower`, `upper`); moving_up, moving_down
/// (`value` an amount of price), moving_up_percent, moving_down_percent (`value` in percent), each with `within`:
/// a number of bars (`5`) or a duration (`"90s"`, `"15m"`, `"2h"`, `"1d"`).
struct AlertsController {
    let market: MarketView
    let accountService: any AccountService
    let alertService: any AlertService

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("alerts", use: list)
        group.post("alerts", use: add)
        group.get("alerts/history", use: history)
        group.get("alerts/triggers", use: triggers)
        group.get("alerts/{id}", use: show)
        group.get("alerts/{id}/triggers", use: triggers)
        group.delete("alerts/{id}", use: cancel)
    }

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        var encoded: [JSONValue] = []
        for record in try await alertService.alerts(user: user) { encoded.append(await encode(record)) }
        return JSONValue.array(encoded).response()
    }

    @Sendable func history(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        let limit = min(max(Int(request.query("limit") ?? "") ?? 100, 1), 500)
        var encoded: [JSONValue] = []
        for record in try await alertService.alertHistory(user: user, limit: limit) {
            encoded.append(await encode(record))
        }
        return JSONValue.array(encoded).response()
    }

    @Sendable func show(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        return await encode(try await alertService.alert(try Self.id(context), user: user)).response()
    }

    @Sendable func triggers(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        let limit = min(max(Int(request.query("limit") ?? "") ?? 100, 1), 500)
        var alert: AlertID?
        if context.parameters.get("id") != nil {
            let id = try Self.id(context)
            _ = try await alertService.alert(id, user: user) // 404 for someone else's alert
            alert = id
        }
        let items = try await alertService.alertTriggers(user: user, alert: alert, limit: limit)
        return JSONValue.array(
            items.map { t in
                .object([
                    "id": .string(t.id), "alert_id": .string(t.alertID.description), "symbol": .string(t.symbol),
                    "time": .string(t.time.description), "price": .decimal(t.price), "level": .decimal(t.level),
                    "notification_id": .string(t.notificationID),
                ])
            }
        ).response()
    }

    @Sendable func add(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        var request = request
        let body = try await request.jsonBody(context: context)
        let parsed = try Self.parse(body)
        let record = try await alertService.addAlert(
            user: user, symbol: parsed.symbol, condition: parsed.condition, frequency: parsed.frequency,
            timeframe: parsed.timeframe, expiresAt: parsed.expiresAt, message: parsed.message)
        return await encode(record).response(status: .created)
    }

    @Sendable func cancel(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        return await encode(try await alertService.cancelAlert(try Self.id(context), user: user)).response()
    }

    static func id(_ context: AppContext) throws -> AlertID {
        guard let id = AlertID(try context.parameters.require("id")) else { throw APIError.notFound("alert not found") }
        return id
    }

    // MARK: Parsing

    struct Parsed {
        var symbol: String
        var condition: AlertCondition
        var frequency: AlertFrequency
        var timeframe: AlertTimeframe
        var expiresAt: Timestamp?
        var message: String?
    }

    static let conditions = [
        "crossing", "crossing_up", "crossing_down", "greater_than", "less_than", "entering_channel",
        "exiting_channel", "inside_channel", "outside_channel", "moving_up", "moving_down", "moving_up_percent",
        "moving_down_percent",
    ]

    static func parse(_ body: JSONValue) throws -> Parsed {
        guard case .object(let o) = body else { throw APIError.unprocessable("expected a JSON object") }
        let known: Set<String> = [
            "symbol", "condition", "value", "moving_average", "lower", "upper", "within", "frequency", "timeframe",
            "expires_at", "message",
        ]
        if let unknown = o.keys.sorted().first(where: { !known.contains($0) }) {
            throw APIError.unprocessable("unknown field \(unknown)")
        }
        guard let symbol = o["symbol"]?.string?.uppercased(), !symbol.isEmpty else {
            throw APIError.unprocessable("symbol is required")
        }
        guard let name = o["condition"]?.string else {
            throw APIError.unprocessable("condition is required: one of \(conditions.joined(separator: ", "))")
        }
        let decimal = { (field: String) throws -> FixedDecimal in try QueueController.decimal(o[field], field) }
        func operand() throws -> AlertOperand {
            switch (o["value"], o["moving_average"]) {
            case (nil, nil): throw APIError.unprocessable("\(name) needs a value or a moving_average")
            case (_?, _?): throw APIError.unprocessable("give either value or moving_average, not both")
            case (_?, nil): return .value(try decimal("value"))
            case (nil, let bars?):
                guard let n = bars.int ?? bars.string.flatMap({ Int($0) }) else {
                    throw APIError.unprocessable("moving_average must be a whole number of daily bars")
                }
                return .movingAverage(bars: n)
            }
        }
        func channel() throws -> (Price, Price) { (try decimal("lower"), try decimal("upper")) }
        func within() throws -> AlertWindow {
            guard let w = o["within"] else {
                throw APIError.unprocessable("\(name) needs within: a number of bars or a duration such as \"15m\"")
            }
            if let n = w.int { return .bars(n) }
            if let text = w.string, let window = parseWindow(text) { return window }
            throw APIError.unprocessable(
                "within must be a number of bars or a duration such as \"90s\", \"15m\", \"2h\" or \"1d\"")
        }
        let condition: AlertCondition
        switch name {
        case "crossing": condition = .crossing(try operand())
        case "crossing_up": condition = .crossingUp(try operand())
        case "crossing_down": condition = .crossingDown(try operand())
        case "greater_than": condition = .greaterThan(try operand())
        case "less_than": condition = .lessThan(try operand())
        case "entering_channel":
            let (lower, upper) = try channel()
            condition = .enteringChannel(lower: lower, upper: upper)
        case "exiting_channel":
            let (lower, upper) = try channel()
            condition = .exitingChannel(lower: lower, upper: upper)
        case "inside_channel":
            let (lower, upper) = try channel()
            condition = .insideChannel(lower: lower, upper: upper)
        case "outside_channel":
            let (lower, upper) = try channel()
            condition = .outsideChannel(lower: lower, upper: upper)
        case "moving_up": condition = .movingUp(try decimal("value"), within: try within())
        case "moving_down": condition = .movingDown(try decimal("value"), within: try within())
        case "moving_up_percent": condition = .movingUpPercent(try decimal("value"), within: try within())
        case "moving_down_percent": condition = .movingDownPercent(try decimal("value"), within: try within())
        default:
            throw APIError.unprocessable(
                "unknown condition \(name); expected one of \(conditions.joined(separator: ", "))")
        }
        if condition.channel == nil, o["lower"] != nil || o["upper"] != nil {
            throw APIError.unprocessable("lower and upper belong to the channel conditions")
        }
        if condition.movement == nil, o["within"] != nil {
            throw APIError.unprocessable("within belongs to the moving conditions")
        }
        if let problem = condition.problem { throw APIError.unprocessable(problem) }
        let frequency = try o["frequency"].map { value -> AlertFrequency in
            guard let f = value.string.flatMap(AlertFrequency.init(rawValue:)) else {
                throw APIError.unprocessable("frequency must be once, once_per_bar or once_per_minute")
            }
            return f
        }
        let timeframe = try o["timeframe"].map { value -> AlertTimeframe in
            guard let t = value.string.flatMap(AlertTimeframe.init(rawValue:)) else {
                throw APIError.unprocessable(
                    "timeframe must be one of \(AlertTimeframe.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return t
        }
        var expiresAt: Timestamp?
        if let e = o["expires_at"], e != .null {
            guard let text = e.string, let t = RFC3339.parse(text) else {
                throw APIError.unprocessable("expires_at must be an RFC 3339 time")
            }
            expiresAt = t
        }
        var message: String?
        if let m = o["message"], m != .null {
            guard let text = m.string else { throw APIError.unprocessable("message must be a string") }
            message = text
        }
        return Parsed(
            symbol: symbol, condition: condition, frequency: frequency ?? .once, timeframe: timeframe ?? .day,
            expiresAt: expiresAt, message: message)
    }

    /// "90s", "15m", "15min", "2h", "1d" → seconds; a bare number is a count of bars.
    static func parseWindow(_ text: String) -> AlertWindow? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let n = Int(t) { return .bars(n) }
        let digits = t.prefix { $0.isNumber }
        guard let n = Int64(digits), n > 0 else { return nil }
        let unit: Int64
        switch t.dropFirst(digits.count).trimmingCharacters(in: .whitespaces) {
        case "s", "sec", "second", "seconds": unit = 1
        case "m", "min", "minute", "minutes": unit = 60
        case "h", "hour", "hours": unit = 3_600
        case "d", "day", "days": unit = 86_400
        case "bar", "bars": return .bars(Int(n))
        default: return nil
        }
        let (seconds, overflow) = n.multipliedReportingOverflow(by: unit)
        return overflow ? nil : .seconds(seconds)
    }

    // MARK: Encoding

    func encode(_ record: AlertRecord) async -> JSONValue {
        let a = record.alert
        let price = try? await market.feed.quote(a.symbol).last
        let instrument = market.directory.entry(a.symbol)?.instrument
        var o: [String: JSONValue] = [
            "id": .string(a.id.description), "symbol": .string(a.symbol),
            "name": .text(instrument?.name),
            "condition": .string(a.condition.name), "frequency": .string(a.frequency.rawValue),
            "timeframe": .string(a.timeframe.rawValue), "expires_at": .text(a.expiresAt?.description),
            "message": .text(a.message), "status": .string(record.status.rawValue),
            "created_at": .string(a.createdAt.description), "updated_at": .string(record.updatedAt.description),
            "last_triggered_at": .text(record.lastTriggeredAt?.description),
            "last_triggered_price": .decimal(record.lastTriggeredPrice), "trigger_count": .int(record.triggerCount),
            "price": .decimal(price), "level": .decimal(await alertService.alertLevel(record)),
            // The unit of its prices: the market's currency, or the coin a coin pair is priced in (USDT for BTC/USDT).
            "currency": .text(instrument.flatMap { $0.coinPair?.quote ?? $0.market.currency.rawValue }),
        ]
        switch a.condition.operand {
        case .value(let v)?: o["value"] = .decimal(v)
        case .movingAverage(let n)?: o["moving_average"] = .int(n)
        case nil: break
        }
        if let (lower, upper) = a.condition.channel {
            o["lower"] = .decimal(lower)
            o["upper"] = .decimal(upper)
        }
        if let (amount, within) = a.condition.movement {
            o["value"] = .decimal(amount)
            switch within {
            case .bars(let n): o["within"] = .int(n)
            case .seconds(let s): o["within"] = .string("\(s)s")
            }
        }
        return .object(o)
    }
}
