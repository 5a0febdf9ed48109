import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Queue purchase: an account's automatic conditional orders.
///
/// `POST /api/v1/accounts/{id}/queue` body:
/// ```
/// {"symbol": "600519", "side": "buy", "qty": "100",            (or "notional": "5000")
///  "condition": {"type": .string("within_percent_of_limit_up"), "value": "1"},
///  "order_type": "limit_up",                                   (market | limit with "limit_price" | limit_up)
///  "lifetime": {"type": .string("until_triggered")}}                     (until with "date" | session)
/// ```
/// Condition types: price_at_least, price_at_most, change_percent_at_least, change_percent_at_most (value in
/// percent), within_of_limit_up, within_of_limit_down (value an amount), within_percent_of_limit_up,
/// within_percent_of_limit_down, touches_limit_up (no value), crosses_above_moving_average,
/// crosses_below_moving_average (value = number of daily bars).
struct QueueController {
    let accountService: any AccountService
    let queueService: any QueueService

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("accounts/{id}/queue", use: list)
        group.post("accounts/{id}/queue", use: add)
        group.get("accounts/{id}/queue/history", use: history)
        group.delete("accounts/{id}/queue/{rule}", use: cancel)
    }

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        let entries = try await queueService.queue(account: record.id)
        return JSONValue.array(entries.map { Self.encode($0, currency: record.market.currency) }).response()
    }

    @Sendable func history(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        let limit = min(max(Int(request.query("limit") ?? "") ?? 100, 1), 500)
        let entries = try await queueService.queueHistory(account: record.id, limit: limit)
        return JSONValue.array(entries.map { Self.encode($0, currency: record.market.currency) }).response()
    }

    @Sendable func add(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        var request = request
        let body = try await request.jsonBody(context: context)
        let parsed = try Self.parse(body)
        let added = try await queueService.addRule(
            account: record.id, symbol: parsed.symbol, condition: parsed.condition,
            action: parsed.action, lifetime: parsed.lifetime)
        let entry = await queueService.entry(added)
        return Self.encode(entry, currency: record.market.currency).response(status: .created)
    }

    @Sendable func cancel(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        guard let id = QueueRuleID(try context.parameters.require("rule")) else {
            throw APIError.notFound("queued rule not found")
        }
        let canceled = try await queueService.cancelRule(id, account: record.id)
        let entry = await queueService.entry(canceled)
        return Self.encode(entry, currency: record.market.currency).response()
    }

    // MARK: Parsing

    struct Parsed {
        var symbol: String
        var condition: RuleCondition
        var action: RuleAction
        var lifetime: RuleLifetime?
    }

    static func decimal(_ value: JSONValue?, _ field: String) throws -> FixedDecimal {
        do { return try QueueRuleJSON.decimal(value, field) } catch { throw APIError.unprocessable(error.description) }
    }

    static func parse(_ body: JSONValue) throws -> Parsed {
        guard case .object(let o) = body else { throw APIError.unprocessable("expected a JSON object") }
        let known: Set<String> = [
            "symbol", "side", "qty", "notional", "condition", "order_type", "limit_price", "lifetime",
        ]
        if let unknown = o.keys.sorted().first(where: { !known.contains($0) }) {
            throw APIError.unprocessable("unknown field \(unknown)")
        }
        guard let symbol = o["symbol"]?.string?.uppercased(), !symbol.isEmpty else {
            throw APIError.unprocessable("symbol is required")
        }
        let condition: RuleCondition
        let action: RuleAction
        do {
            action = try QueueRuleJSON.action(o)
            condition = try QueueRuleJSON.condition(o["condition"])
        } catch {
            throw APIError.unprocessable(error.description)
        }
        var lifetime: RuleLifetime?
        if let l = o["lifetime"] {
            guard case .object(let lo) = l, let kind = lo["type"]?.string else {
                throw APIError.unprocessable("lifetime must be an object with a type")
            }
            switch kind {
            case "until_triggered": lifetime = .untilTriggered
            case "until", "session":
                guard let text = lo["date"]?.string, let date = CivilDate(text) else {
                    throw APIError.unprocessable("lifetime.date must be a date (YYYY-MM-DD)")
                }
                lifetime = kind == "until" ? .until(date) : .session(date)
            default: throw APIError.unprocessable("lifetime type must be until_triggered, until or session")
            }
        }
        return Parsed(symbol: symbol, condition: condition, action: action, lifetime: lifetime)
    }

    // MARK: Encoding

    static func encode(_ e: QueueEntry, currency: Currency) -> JSONValue {
        let r = e.record.rule
        var lifetime: [String: JSONValue]
        switch r.lifetime {
        case .untilTriggered: lifetime = ["type": .string("until_triggered")]
        case .until(let d): lifetime = ["type": .string("until"), "date": .string(d.description)]
        case .session(let d): lifetime = ["type": .string("session"), "date": .string(d.description)]
        }
        var o: [String: JSONValue] = [
            "id": .string(r.id.description), "account_id": .string(r.accountID.description),
            "symbol": .string(r.symbol),
            "name": .text(e.instrument?.name), "side": .string(r.action.side.rawValue),
            "qty": .decimal(r.action.qty), "notional": .decimal(r.action.notional),
            "condition": QueueRuleJSON.encode(r.condition), "lifetime": .object(lifetime),
            "status": .string(e.record.status.rawValue), "created_at": .string(r.createdAt.description),
            "updated_at": .string(e.record.updatedAt.description), "currency": .string(currency.rawValue),
            "price": .decimal(e.price), "trigger_level": .decimal(e.triggerLevel),
            "order_id": .text(e.record.orderID?.description), "fired_price": .decimal(e.record.firedPrice),
            "fill_price": .decimal(e.fillPrice),
            "message": .text(e.record.message),
        ]
        switch r.action.pricing {
        case .market: o["order_type"] = .string("market")
        case .limit(let p):
            o["order_type"] = .string("limit")
            o["limit_price"] = .decimal(p)
        case .limitUp: o["order_type"] = .string("limit_up")
        }
        return .object(o)
    }
}
