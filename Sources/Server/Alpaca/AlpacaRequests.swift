import Hummingbird
import JSON
import MarketData
import TradingCore

/// Decodes Alpaca request bodies. alpaca-py sends prices and quantities as JSON numbers, other clients as
/// strings: both are read exactly. Unknown fields are refused, so a typo never silently changes an order.
enum AlpacaRequests {
    static let orderFields: Set<String> = [
        "symbol", "qty", "notional", "side", "type", "time_in_force", "limit_price", "stop_price", "trail_price",
        "trail_percent", "extended_hours", "client_order_id", "order_class", "take_profit", "stop_loss",
        "position_intent", "order_type",
    ]

    static func object(_ json: JSONValue) throws -> [String: JSONValue] {
        guard let object = json.object else { throw APIError.unprocessable("request body must be a JSON object") }
        return object
    }

    static func decimal(_ o: [String: JSONValue], _ key: String) throws -> FixedDecimal? {
        guard let value = o[key], !value.isNull else { return nil }
        switch value {
        case .number(let text), .string(let text):
            do { return try FixedDecimal(parsing: text) } catch {
                throw APIError.unprocessable("invalid \(key) \(text): \(error.description)")
            }
        default: throw APIError.unprocessable("\(key) must be a number or a decimal string")
        }
    }

    static func string(_ o: [String: JSONValue], _ key: String) throws -> String? {
        guard let value = o[key], !value.isNull else { return nil }
        guard let text = value.string else { throw APIError.unprocessable("\(key) must be a string") }
        return text
    }

    static func enumValue<T: RawRepresentable>(_ o: [String: JSONValue], _ key: String, _ type: T.Type) throws -> T?
    where T.RawValue == String, T: CaseIterable {
        guard let text = try string(o, key) else { return nil }
        guard let value = T(rawValue: text.lowercased()) else {
            let allowed = T.allCases.map(\.rawValue).filter { !$0.isEmpty }.joined(separator: ", ")
            throw APIError.unprocessable("invalid \(key) \"\(text)\"; expected one of \(allowed)")
        }
        return value
    }

    /// POST /v2/orders body → OrderRequest.
    static func order(_ json: JSONValue) throws -> OrderRequest {
        let o = try object(json)
        if let unknown = o.keys.filter({ !orderFields.contains($0) }).sorted().first {
            throw APIError.unprocessable("unknown field \(unknown)")
        }
        guard let symbol = try string(o, "symbol"), !symbol.isEmpty else {
            throw APIError.unprocessable("symbol is required")
        }
        guard let side = try enumValue(o, "side", OrderSide.self) else {
            throw APIError.unprocessable("side is required")
        }
        let type = try enumValue(o, "type", OrderType.self) ?? enumValue(o, "order_type", OrderType.self) ?? .market
        guard let tif = try enumValue(o, "time_in_force", TimeInForce.self) else {
            throw APIError.unprocessable("time_in_force is required")
        }
        var orderClass = OrderClass.simple
        if let text = try string(o, "order_class") {
            guard let c = OrderClass(wireValue: text.lowercased()) else {
                throw APIError.unprocessable("invalid order_class \"\(text)\"; expected simple, bracket, oco or oto")
            }
            orderClass = c
        }
        var takeProfit: OrderRequest.TakeProfit?
        if let tp = o["take_profit"], !tp.isNull {
            guard let limit = try decimal(try object(tp), "limit_price") else {
                throw APIError.unprocessable("take_profit.limit_price is required")
            }
            takeProfit = .init(limitPrice: limit)
        }
        var stopLoss: OrderRequest.StopLoss?
        if let sl = o["stop_loss"], !sl.isNull {
            let fields = try object(sl)
            guard let stop = try decimal(fields, "stop_price") else {
                throw APIError.unprocessable("stop_loss.stop_price is required")
            }
            stopLoss = .init(stopPrice: stop, limitPrice: try decimal(fields, "limit_price"))
        }
        var extendedHours = false
        if let value = o["extended_hours"], !value.isNull {
            guard let b = value.bool else { throw APIError.unprocessable("extended_hours must be true or false") }
            extendedHours = b
        }
        return OrderRequest(
            symbol: symbol.uppercased(), side: side, type: type, timeInForce: tif,
            qty: try decimal(o, "qty"), notional: try decimal(o, "notional"),
            limitPrice: try decimal(o, "limit_price"), stopPrice: try decimal(o, "stop_price"),
            trailPrice: try decimal(o, "trail_price"), trailPercent: try decimal(o, "trail_percent"),
            extendedHours: extendedHours, clientOrderID: try string(o, "client_order_id").map { ClientOrderID($0) },
            orderClass: orderClass, takeProfit: takeProfit, stopLoss: stopLoss)
    }

    /// PATCH /v2/orders/{id} body → ReplaceRequest.
    static func replace(_ json: JSONValue) throws -> ReplaceRequest {
        let o = try object(json)
        let allowed: Set<String> = ["qty", "time_in_force", "limit_price", "stop_price", "trail", "client_order_id"]
        if let unknown = o.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw APIError.unprocessable("unknown field \(unknown)")
        }
        return ReplaceRequest(
            qty: try decimal(o, "qty"), timeInForce: try enumValue(o, "time_in_force", TimeInForce.self),
            limitPrice: try decimal(o, "limit_price"), stopPrice: try decimal(o, "stop_price"),
            trail: try decimal(o, "trail"), clientOrderID: try string(o, "client_order_id").map { ClientOrderID($0) })
    }

    /// An integer query parameter within `range` (`value` when absent); anything else is a 422 naming it.
    static func integer(_ request: Request, _ name: String, in range: ClosedRange<Int>, default value: Int) throws
        -> Int
    {
        guard let text = request.query(name) else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw APIError.unprocessable("\(name) must be \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    /// `sort`: asc or desc, in any letter case; `descending` when absent.
    static func sortsDescending(_ request: Request, default descending: Bool) throws -> Bool {
        switch request.query("sort")?.lowercased() {
        case nil: return descending
        case "asc": return false
        case "desc": return true
        case let other?: throw APIError.unprocessable("invalid sort \(other); expected asc or desc")
        }
    }

    /// A page token that is an offset into a list of `count` items (0 when absent).
    static func offset(_ request: Request, count: Int) throws -> Int {
        guard let token = request.query("page_token") else { return 0 }
        guard let n = Int(token), n >= 0, n <= count else {
            throw APIError.unprocessable("invalid page_token \(token)")
        }
        return n
    }

    /// A boolean query parameter: true/false (or 1/0); anything else is a 422 naming it.
    static func bool(_ request: Request, _ name: String) throws -> Bool? {
        guard let text = request.query(name) else { return nil }
        guard let value = bool(text) else {
            throw APIError.unprocessable("invalid \(name) \(text); expected true or false")
        }
        return value
    }

    /// Booleans arrive capitalised from alpaca-py ("True"): parse case-insensitively.
    static func bool(_ text: String?) -> Bool? {
        guard let text else { return nil }
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: return nil
        }
    }
}
