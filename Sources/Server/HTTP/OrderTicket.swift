import JSON
import TradingCore

/// The order ticket the JSON surfaces take — Alpaca's `POST /v2/orders` body, which the native API's
/// `POST /api/v1/accounts/{id}/orders` takes as well, so a bot's and the web app's orders read the same. Prices and
/// quantities are read exactly from numbers (alpaca-py) or strings (everyone else).
extension OrderRequest {
    static let fields: Set<String> = [
        "symbol", "qty", "notional", "side", "type", "time_in_force", "limit_price", "stop_price", "trail_price",
        "trail_percent", "extended_hours", "client_order_id", "order_class", "take_profit", "stop_loss",
        "position_intent", "order_type", "legs", "note",
    ]

    init(json: JSONValue) throws {
        let o = try BodyFields(json, allowed: Self.fields)
        if try o.string("order_class")?.lowercased() == "mleg" {
            try self.init(multiLeg: o)
            return
        }
        guard let symbol = try o.string("symbol"), !symbol.isEmpty else {
            throw APIError.unprocessable("symbol is required")
        }
        let side = try o.required("side") { try o.choice($0, OrderSide.self) }
        let type = try o.choice("type", OrderType.self) ?? o.choice("order_type", OrderType.self) ?? .market
        let tif = try o.required("time_in_force") { try o.choice($0, TimeInForce.self) }
        var orderClass = OrderClass.simple
        if let text = try o.string("order_class") {
            guard let c = OrderClass(wireValue: text.lowercased()) else {
                throw APIError.unprocessable(
                    "invalid order_class \"\(text)\"; expected simple, bracket, oco, oto or mleg")
            }
            orderClass = c
        }
        let takeProfit = try o.object("take_profit").map { tp in
            TakeProfit(limitPrice: try tp.required("limit_price", tp.decimal))
        }
        let stopLoss = try o.object("stop_loss").map { sl in
            StopLoss(stopPrice: try sl.required("stop_price", sl.decimal), limitPrice: try sl.decimal("limit_price"))
        }
        self.init(
            symbol: symbol.uppercased(), side: side, type: type, timeInForce: tif,
            qty: try o.decimal("qty"), notional: try o.decimal("notional"),
            limitPrice: try o.decimal("limit_price"), stopPrice: try o.decimal("stop_price"),
            trailPrice: try o.decimal("trail_price"), trailPercent: try o.decimal("trail_percent"),
            extendedHours: try o.bool("extended_hours") ?? false,
            clientOrderID: try o.string("client_order_id").map { ClientOrderID($0) },
            orderClass: orderClass, takeProfit: takeProfit, stopLoss: stopLoss,
            positionIntent: try o.choice("position_intent", PositionIntent.self))
        note = try o.string("note").flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    }
}

extension OrderRequest {
    /// A multi-leg option order (`order_class: mleg`): `qty` strategy units, `type` market or limit, a net
    /// `limit_price` (negative for a credit), and 2–4 `legs` of `{symbol, ratio_qty, side, position_intent}` — a
    /// leg's side may be left to its intent, as alpaca-py allows. No top-level symbol or side.
    init(multiLeg o: BodyFields) throws {
        // (A top-level symbol or side names nothing in a package: they are ignored, as Alpaca omits them.)
        for field in ["notional", "take_profit", "stop_loss", "stop_price", "trail_price", "trail_percent"]
        where o.contains(field) && !(o.values[field]?.isNull ?? true) {
            throw APIError.unprocessable("\(field) is not allowed for mleg orders")
        }
        let type = try o.choice("type", OrderType.self) ?? o.choice("order_type", OrderType.self) ?? .market
        let tif = try o.required("time_in_force") { try o.choice($0, TimeInForce.self) }
        guard let qty = try o.decimal("qty") else { throw APIError.unprocessable("qty is required for mleg orders") }
        guard let items = try o.objects("legs", allowed: ["symbol", "ratio_qty", "side", "position_intent"]) else {
            throw APIError.unprocessable("legs is required for mleg orders")
        }
        var legs: [OptionLeg] = []
        for leg in items {
            let symbol = try leg.required("symbol") { try leg.string($0) }
            let ratio = try leg.required("ratio_qty") { try leg.decimal($0) }
            guard ratio.isPositive, ratio.isInteger, let whole = ratio.integerPart, whole <= 1000 else {
                throw APIError.unprocessable("ratio_qty must be a whole number from 1 to 1000, not \(ratio)")
            }
            let intent = try leg.choice("position_intent", PositionIntent.self)
            guard let side = try leg.choice("side", OrderSide.self) ?? intent.map(\.side) else {
                throw APIError.unprocessable("each leg needs side or position_intent")
            }
            legs.append(OptionLeg(symbol: symbol.uppercased(), ratio: whole, side: side, positionIntent: intent))
        }
        self.init(
            symbol: "", side: .buy, type: type, timeInForce: tif, qty: qty, limitPrice: try o.decimal("limit_price"),
            extendedHours: try o.bool("extended_hours") ?? false,
            clientOrderID: try o.string("client_order_id").map { ClientOrderID($0) }, orderClass: .mleg)
        self.legs = legs
        note = try o.string("note").flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    }
}

/// A change to a working order (`PATCH /v2/orders/{id}`).
extension ReplaceRequest {
    init(json: JSONValue) throws {
        let o = try BodyFields(
            json, allowed: ["qty", "time_in_force", "limit_price", "stop_price", "trail", "client_order_id"])
        self.init(
            qty: try o.decimal("qty"), timeInForce: try o.choice("time_in_force", TimeInForce.self),
            limitPrice: try o.decimal("limit_price"), stopPrice: try o.decimal("stop_price"),
            trail: try o.decimal("trail"), clientOrderID: try o.string("client_order_id").map { ClientOrderID($0) })
    }
}
