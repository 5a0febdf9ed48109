import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Orders: place with IB's reply questions, modify, cancel, what-if, live orders, status and trades.
struct IBOrderRoutes {
    let gateway: IBGateway
    var configurations: AccountConfigurations { gateway.accountService.configurations }
    var market: MarketView { gateway.market }
    var orderService: any OrderService { gateway.orderService }
    var accountService: any AccountService { gateway.accountService }

    func addRoutes(to api: RouterGroup<AppContext>) {
        api.post("iserver/account/{acct}/orders", use: place)
        api.post("iserver/account/{acct}/orders/whatif", use: whatIf)
        api.post("iserver/account/{acct}/order/{id}", use: modify)
        api.delete("iserver/account/{acct}/order/{id}", use: cancel)
        api.post("iserver/reply/{id}", use: reply)
        api.post("iserver/questions/suppress", use: suppress)
        api.post("iserver/questions/suppress/reset", use: resetSuppressed)
        api.get("iserver/account/orders", use: liveOrders)
        api.get("iserver/account/order/status/{id}", use: status)
        api.get("iserver/account/trades", use: trades)
        api.get("iserver/account/{acct}/precautions", use: precautions)
        api.post("iserver/account/{acct}/precautions", use: setPrecautions)
    }

    func account(_ context: AppContext) async throws -> AccountRecord {
        try await gateway.account(try context.parameters.require("acct"))
    }

    /// The single order of a `{"orders": [...]}` body (IB takes related orders only; papertrade one at a time).
    func ticket(_ body: JSONValue?, for record: AccountRecord) throws -> IBOrderTicket {
        guard let orders = body?["orders"]?.array else { throw IBError(.badRequest, "orders is required") }
        guard orders.count == 1 else {
            throw IBError(.badRequest, "send one order per request (brackets: use the native or Alpaca API)")
        }
        let ticket = try IBOrderTicket(orders[0], instrument: findInstrument)
        try check(ticket, record)
        return ticket
    }

    /// What a conid names for an order: a listed stock or an option contract.
    var findInstrument: (String) -> Instrument? { { [market] in IBConid.instrument($0, market: market) } }

    func check(_ ticket: IBOrderTicket, _ record: AccountRecord) throws {
        guard ticket.instrument.market == record.market else {
            let market = record.market == .us ? "US stocks" : "China A-shares"
            throw IBError(
                .badRequest,
                "account \(IBAccountID.make(record.id)) trades \(market); \(ticket.symbol) is not one")
        }
    }

    // MARK: Precautions

    func settings(_ account: AccountID) async throws -> IBQuestions.Settings {
        var settings = IBQuestions.Settings()
        if let saved = try await configurations.saved(account),
            let object = (try? JSONValue(parsing: saved))?["ib_precautions"]?.object
        {
            try? settings.apply(object)
        }
        return settings
    }

    @Sendable func precautions(_ request: Request, context: AppContext) async throws -> Response {
        try await settings(try await account(context).id).json.response()
    }

    /// papertrade's own endpoint (IB keeps these in TWS presets): `{"price_percent": "5", "value_limit": null, …}`.
    @Sendable func setPrecautions(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await account(context)
        var request = request
        guard let changes = try await request.ibBody(context: context)?.object else {
            throw IBError(.badRequest, "send a JSON object of settings")
        }
        var settings = try await settings(record.id)
        try settings.apply(changes)
        var saved =
            (try await configurations.saved(record.id)).flatMap { try? JSONValue(parsing: $0) }?.object ?? [:]
        saved["ib_precautions"] = settings.json
        try await configurations.save(record.id, json: JSONValue.object(saved).serialized)
        return settings.json.response()
    }

    @Sendable func suppress(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let ids = (try await request.ibBody(context: context)?["messageIds"]?.array ?? []).compactMap(\.string)
        guard !ids.isEmpty, ids.count <= 51 else { throw IBError(.badRequest, "messageIds must list 1 to 51 ids") }
        gateway.state.withLock { $0.suppressed.formUnion(ids) }
        return JSONValue.object(["status": .string("submitted")]).response()
    }

    @Sendable func resetSuppressed(_ request: Request, context: AppContext) async throws -> Response {
        gateway.state.withLock { $0.suppressed = [] }
        return JSONValue.object(["status": .string("submitted")]).response()
    }

    // MARK: Placing

    static func question(_ replyID: String, _ q: IBQuestions.Question) -> JSONValue {
        .array([
            .object([
                "id": .string(replyID), "message": .array([.string(q.text)]), "isSuppressed": .bool(false),
                "messageIds": .array([.string(q.messageID)]),
            ])
        ])
    }

    func placed(_ order: Order) -> JSONValue {
        let number = gateway.number(of: order)
        return .array([
            .object([
                "order_id": .string(String(number)),
                "order_status": .string(IBEncoding.status(order, now: market.clock.now())),
                "encrypt_message": .string("1"),
            ])
        ])
    }

    @Sendable func place(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await account(context)
        var request = request
        var ticket = try ticket(try await request.ibBody(context: context), for: record)
        let quote = ticket.combo == nil ? try? await market.quote(ticket.symbol) : nil
        ticket = try ticket.sized(bid: quote?.bids.best?.price, ask: quote?.asks.best?.price)
        let questions = IBQuestions.questions(
            for: ticket, quote: quote, settings: try await settings(record.id), suppressed: gateway.suppressed)
        guard let first = questions.first else { return try await submit(ticket, record.id).response() }
        let id = gateway.hold(.init(account: record.id, action: .place(ticket), questions: questions, created: Date()))
        return Self.question(id, first).response()
    }

    func submit(_ ticket: IBOrderTicket, _ account: AccountID) async throws -> JSONValue {
        do throws(BrokerageError) {
            return placed(try await orderService.submit(ticket.request, account: account))
        } catch {
            if case .rejected(let rejection) = error, rejection.reason == .duplicateClientOrderID {
                throw IBError(
                    .badRequest,
                    "Order couldn't be submitted: Local order ID=\(ticket.clientOrderID ?? "") is already registered.")
            }
            throw error
        }
    }

    /// Answers one question. Each held order has its own reply id, so replies to different orders never collide.
    @Sendable func reply(_ request: Request, context: AppContext) async throws -> Response {
        let id = try context.parameters.require("id")
        var request = request
        guard let confirmed = try await request.ibBody(context: context)?["confirmed"]?.bool else {
            throw IBError(.badRequest, "confirmed (true or false) is required")
        }
        guard var pending = gateway.takeReply(id) else {
            throw IBError(.badRequest, "reply id \(id) was not found or has expired; place the order again")
        }
        guard confirmed else {
            return JSONValue.array([
                .object(["order_status": .string("Cancelled"), "text": .string("The order was not submitted.")])
            ]).response()
        }
        let suppressed = gateway.suppressed
        pending.questions = pending.questions.dropFirst().filter { !suppressed.contains($0.messageID) }
        if let next = pending.questions.first {
            pending.created = Date()
            return Self.question(gateway.hold(pending), next).response()
        }
        switch pending.action {
        case .place(let ticket):
            return try await submit(ticket, pending.account).response()
        case .modify(let orderID, let number, let change):
            let old = try await orderService.order(orderID, account: pending.account)
            let order = try await orderService.replace(orderID, account: pending.account, with: change)
            gateway.carry(from: old, to: order)
            gateway.remember(number, order)
            return placed(order).response()
        }
    }

    // MARK: Changing

    @Sendable func modify(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await account(context)
        guard let number = Int(try context.parameters.require("id")) else {
            throw IBError(.badRequest, "invalid order id")
        }
        let order = try await gateway.order(number: number, account: record.id)
        var request = request
        guard let body = try await request.ibBody(context: context), body.object != nil else {
            throw IBError(.badRequest, "send the order's fields to change")
        }
        guard order.status.isOpen else {
            throw IBError(
                .badRequest,
                "order \(number) is \(IBEncoding.status(order, now: market.clock.now())) and can no longer be modified"
            )
        }
        if order.orderClass == .mleg {
            return try await modifyCombo(order, number: number, body: body, record: record)
        }
        // IB's quantity is the order's total: what the chain already filled counts toward it.
        let carried = gateway.carried(order)
        // The body repeats the order; merge it over the order as it stands so fields left out keep their values.
        var merged = body.object ?? [:]
        let conid = IBConid.conid(symbol: order.symbol, market: record.market) ?? 0
        merged["conid"] = merged["conid"] ?? .int(conid)
        merged["side"] = merged["side"] ?? .string(order.side == .buy ? "BUY" : "SELL")
        merged["orderType"] = merged["orderType"] ?? .string(Self.ibType(order.type))
        merged["quantity"] = merged["quantity"] ?? .number((carried.qty + (order.qty ?? .zero)).description)
        merged["tif"] = merged["tif"] ?? .string(IBEncoding.tif(order.timeInForce))
        switch order.type {
        case .limit: merged["price"] = merged["price"] ?? order.limitPrice.map { .number($0.description) }
        case .stop:
            merged["price"] = merged["price"] ?? merged["auxPrice"] ?? order.stopPrice.map { .number($0.description) }
        case .stopLimit:
            merged["price"] = merged["price"] ?? order.limitPrice.map { .number($0.description) }
            merged["auxPrice"] = merged["auxPrice"] ?? order.stopPrice.map { .number($0.description) }
        case .trailingStop:
            merged["trailingAmt"] =
                merged["trailingAmt"] ?? (order.trailPrice ?? order.trailPercent).map { .number($0.description) }
            merged["trailingType"] = merged["trailingType"] ?? .string(order.trailPercent == nil ? "amt" : "%")
        case .market: break
        }
        merged.removeValue(forKey: "cOID")
        let ticket = try IBOrderTicket(.object(merged), instrument: findInstrument)
        try check(ticket, record)
        guard ticket.symbol == order.symbol, ticket.side == order.side, ticket.type == order.type else {
            throw IBError(.badRequest, "a modification cannot change the contract, side or order type")
        }
        guard ticket.quantity > carried.qty + order.filledQty else {
            throw IBError(
                .badRequest,
                "order \(number) has \((carried.qty + order.filledQty).formatted(minimumPlaces: 0)) filled; the new quantity must be above that"
            )
        }
        let change = ReplaceRequest(
            qty: ticket.quantity - carried.qty, timeInForce: ticket.timeInForce, limitPrice: ticket.limitPrice,
            stopPrice: ticket.stopPrice, trail: ticket.trailAmount ?? ticket.trailPercent, qtyIncludesFills: true)
        let quote = try? await market.feed.quote(order.symbol)
        var settings = try await settings(record.id)
        settings.marketOrderWarning = false
        let questions = IBQuestions.questions(
            for: ticket, quote: quote, settings: settings, suppressed: gateway.suppressed)
        if let first = questions.first {
            let id = gateway.hold(
                .init(
                    account: record.id, action: .modify(order.id, number: number, change), questions: questions,
                    created: Date()))
            return Self.question(id, first).response()
        }
        let replaced = try await orderService.replace(order.id, account: record.id, with: change)
        gateway.carry(from: order, to: replaced)
        gateway.remember(number, replaced)
        return placed(replaced).response()
    }

    /// Modifies a combo (a multi-leg order): its `quantity` (units), `price` (the net as the combo is listed, bought;
    /// with `side` SELL, what selling it brings in) or `tif`; the legs stay as they are. A leg alone is not modified.
    func modifyCombo(_ order: Order, number: Int, body: JSONValue, record: AccountRecord) async throws -> Response {
        guard order.parentID == nil else {
            throw IBError(.badRequest, "order \(number) is a leg of a combo: modify the combo order")
        }
        let o = body.object ?? [:]
        func decimal(_ key: String) throws(IBError) -> FixedDecimal? {
            guard let value = o[key], !value.isNull else { return nil }
            guard let number = value.decimal else { throw IBError(.badRequest, "\(key) must be a number") }
            return number
        }
        let selling = o["side"]?.string?.uppercased() == "SELL"
        let price = try decimal("price").map { selling ? -$0 : $0 }
        let quantity = try decimal("quantity")
        if let quantity, !quantity.isPositive || !quantity.isInteger {
            throw IBError(.badRequest, "quantity must be a whole number of combo units")
        }
        var tif: TimeInForce?
        switch o["tif"]?.string?.uppercased() {
        case nil: tif = nil
        case "DAY": tif = .day
        case "GTC": tif = .gtc
        case let other?: throw IBError(.badRequest, "tif \(other) is not supported for combos; use DAY or GTC")
        }
        let change = ReplaceRequest(qty: quantity, timeInForce: tif, limitPrice: price)
        let replaced = try await orderService.replace(order.id, account: record.id, with: change)
        gateway.remember(number, replaced)
        return placed(replaced).response()
    }

    static func ibType(_ type: OrderType) -> String {
        switch type {
        case .market: return "MKT"
        case .limit: return "LMT"
        case .stop: return "STP"
        case .stopLimit: return "STOP_LIMIT"
        case .trailingStop: return "TRAIL"
        }
    }

    /// Cancels one order, or every open order of the account with id -1.
    @Sendable func cancel(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await account(context)
        let ib = IBAccountID.make(record.id)
        let idText = try context.parameters.require("id")
        if idText == "-1" {
            _ = try await orderService.cancelAll(account: record.id)
            return JSONValue.object([
                "msg": .string("Request was submitted"), "order_id": .int(-1), "account": .string(ib),
            ])
            .response()
        }
        guard let number = Int(idText) else { throw IBError(.badRequest, "invalid order id \(idText)") }
        let order = try await gateway.order(number: number, account: record.id)
        guard order.status.isOpen else {
            throw IBError(.badRequest, "OrderID \(number) doesn't exist or is no longer working")
        }
        _ = try await orderService.cancel(order.id, account: record.id)
        return JSONValue.object([
            "msg": .string("Request was submitted"), "order_id": .int(number),
            "conid": .int(IBConid.conid(symbol: order.symbol, market: record.market) ?? 0), "account": .string(ib),
        ]).response()
    }

    /// What an order would cost and do to the account, without placing it.
    @Sendable func whatIf(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await account(context)
        var request = request
        var ticket = try ticket(try await request.ibBody(context: context), for: record)
        let summary = try await accountService.summary(record.id)
        if ticket.combo != nil, ticket.type == .market {
            throw IBError(.badRequest, "a what-if of a combo needs its net price: send it as LMT")
        }
        let quote = ticket.combo == nil ? try? await market.quote(ticket.symbol) : nil
        ticket = try ticket.sized(bid: quote?.bids.best?.price, ask: quote?.asks.best?.price)
        // A combo's price is its net per unit (negative: a credit), so what it pays or brings in is that × 100.
        let net = ticket.combo == nil ? nil : ticket.request.limitPrice
        let price =
            net?.magnitude ?? ticket.limitPrice ?? ticket.stopPrice
            ?? (ticket.side == .buy ? quote?.asks.best?.price : quote?.bids.best?.price) ?? quote?.last ?? .zero
        let qty = ticket.cashQuantity.flatMap { $0.divided(by: price, places: 0, rule: .down) } ?? ticket.quantity
        // An option's value is its premium × the contract's 100 shares.
        let value = qty.multiplied(by: ticket.instrument.multiplier).multiplied(by: price, places: 2, rule: .halfUp)
        let paying = net.map { !$0.isNegative } ?? (ticket.side == .buy)
        let fees = summary.account.fees.total(
            side: paying ? .buy : .sell, filledQty: qty, filledValue: value, currency: summary.account.currency)
        let cashChange = paying ? -(value + fees) : value - fees
        let currency = summary.account.currency.rawValue
        func amount(_ current: FixedDecimal, _ change: FixedDecimal) -> JSONValue {
            .object([
                "current": .string(current.formatted(places: 2)), "change": .string(change.formatted(places: 2)),
                "after": .string((current + change).formatted(places: 2)),
            ])
        }
        var warn: String? = nil
        if paying, -cashChange > summary.buyingPower {
            warn =
                "Insufficient buying power: the order needs \(currency) \((-cashChange).formatted(places: 2)); \(summary.buyingPower.formatted(places: 2)) is available."
        }
        return JSONValue.object([
            "amount": .object([
                "amount": .string("\(value.formatted(places: 2)) \(currency)"),
                "commission": .string("\(fees.formatted(places: 2)) \(currency)"),
                "total": .string("\((value + fees).formatted(places: 2)) \(currency)"),
            ]),
            "equity": amount(summary.equity, -fees),
            "initial": amount(.zero, .zero), "maintenance": amount(.zero, .zero),
            "position": amount(
                summary.positions.first { $0.instrument.symbol == ticket.symbol }?.position.qty ?? .zero,
                ticket.combo != nil ? .zero : ticket.side == .buy ? qty : -qty),
            "cash": amount(summary.account.cash, cashChange),
            "warn": .text(warn), "error": .null,
        ]).response()
    }

    // MARK: Reading

    /// Today's orders and every open one, newest first; `filters` keeps IB statuses (`submitted,filled`).
    @Sendable func liveOrders(_ request: Request, context: AppContext) async throws -> Response {
        let records: [AccountRecord]
        if let id = request.query("accountId"), !id.isEmpty {
            records = [try await gateway.account(id)]
        } else {
            records = try await gateway.accounts().map(\.record)
        }
        let filters = Set(
            (request.query("filters") ?? "").lowercased().split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")
            }.filter { !$0.isEmpty && $0 != "sortbytime" })
        let now = market.clock.now()
        var rows: [(Timestamp, JSONValue)] = []
        for record in records {
            let ib = IBAccountID.make(record.id)
            let orders = try await recentOrders(record.id, now: now)
            let known = Dictionary(orders.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            for order in orders where order.status != .replaced && !IBEncoding.isComboLeg(order) {
                let state = IBEncoding.status(order, now: now)
                if !filters.isEmpty, !filters.contains(state.lowercased()) { continue }
                let number = gateway.number(of: order)
                rows.append(
                    (
                        order.updatedAt,
                        IBEncoding.liveOrder(
                            order, number: number, ib: ib, entry: market.directory.entry(order.symbol), now: now,
                            carried: gateway.carried(order), combo: await comboLegs(order, among: known))
                    ))
            }
        }
        rows.sort { $0.0 > $1.0 }
        return JSONValue.object(["orders": .array(rows.map(\.1)), "snapshot": .bool(true)]).response()
    }

    /// A multi-leg order's legs (from `known`, else looked up), to show it as IB's combo; nil for any other order.
    func comboLegs(_ order: Order, among known: [OrderID: Order] = [:]) async -> [Order]? {
        guard order.orderClass == .mleg, order.parentID == nil else { return nil }
        var legs: [Order] = []
        for id in order.legs {
            if let leg = known[id] {
                legs.append(leg)
            } else if let leg = try? await orderService.order(id, account: order.accountID) {
                legs.append(leg)
            }
        }
        return legs
    }

    /// Open orders and those of the last day.
    func recentOrders(_ account: AccountID, now: Timestamp) async throws -> [Order] {
        var open = OrderQuery()
        open.status = .open
        open.limit = 500
        var closed = OrderQuery()
        closed.status = .closed
        closed.limit = 500
        closed.after = now.adding(seconds: -86_400)
        let orders =
            try await orderService.orders(account: account, open) + orderService.orders(account: account, closed)
        let chain = Dictionary(orders.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for order in orders {
            _ = gateway.number(of: order, chain: chain)
            _ = gateway.carried(order, chain: chain)
        }
        return orders
    }

    @Sendable func status(_ request: Request, context: AppContext) async throws -> Response {
        guard let number = Int(try context.parameters.require("id")) else {
            throw IBError(.badRequest, "invalid order id")
        }
        for (ib, record) in try await gateway.accounts() {
            if let order = try? await gateway.order(number: number, account: record.id) {
                return IBEncoding.orderStatus(
                    order, number: number, ib: ib, entry: market.directory.entry(order.symbol),
                    now: market.clock.now(), carried: gateway.carried(order), combo: await comboLegs(order)
                ).response()
            }
        }
        throw IBError(.badRequest, "order \(number) not found")
    }

    /// Executions of the last `days` days (1 to 7; today only by default).
    @Sendable func trades(_ request: Request, context: AppContext) async throws -> Response {
        var days = 1
        if let text = request.query("days") {
            guard let n = Int(text), (1...7).contains(n) else { throw IBError(.badRequest, "days must be 1 to 7") }
            days = n
        }
        let records: [AccountRecord]
        if let id = request.query("accountId"), !id.isEmpty {
            records = [try await gateway.account(id)]
        } else {
            records = try await gateway.accounts().map(\.record)
        }
        var out: [(Timestamp, JSONValue)] = []
        for record in records {
            out += try await gateway.trades(record, days: days)
        }
        out.sort { $0.0 > $1.0 }
        return JSONValue.array(out.map(\.1)).response()
    }
}

extension IBGateway {
    /// An account's executions since the start of the trading day `days - 1` sessions ago, with their commissions
    /// (the fee entries booked after each fill of the order).
    func trades(_ record: AccountRecord, days: Int) async throws -> [(Timestamp, JSONValue)] {
        let calendar = record.market.calendar
        let now = market.clock.now()
        var date = calendar.zone.localTime(of: now).date
        for _ in 1..<max(1, days) { date = calendar.previousTradingDay(before: date) }
        var query = ActivityQuery()
        query.kinds = ["fill", "fee", "crypto_fee"]
        query.after = Timestamp(date, in: calendar.zone)
        query.ascending = true
        query.limit = 5000
        let entries = try await accountService.activities(record.id, query: query)
        var fills: [(Fill, Timestamp, FixedDecimal)] = []
        for entry in entries {
            switch entry.kind {
            case .fill(let fill): fills.append((fill, entry.time, .zero))
            case .fee(_, let orderID, _):
                if let index = fills.lastIndex(where: { $0.0.orderID == orderID }) {
                    fills[index].2 += -entry.cashChange
                }
            case .cryptoFee(let fee):
                // A crypto fee's worth in money, whether it was paid in coins or dollars.
                if let index = fills.lastIndex(where: { $0.0.orderID == fee.orderID }) { fills[index].2 += fee.value }
            default: break
            }
        }
        let ib = IBAccountID.make(record.id)
        var out: [(Timestamp, JSONValue)] = []
        for (fill, time, commission) in fills {
            let order = try? await orderService.order(fill.orderID, account: record.id)
            let number = order.map { self.number(of: $0) } ?? IBOrderNumber.make(fill.orderID)
            out.append(
                (
                    time,
                    IBEncoding.trade(
                        fill, at: time, commission: commission, order: order, number: number, ib: ib,
                        entry: market.directory.entry(fill.symbol))
                ))
        }
        return out
    }
}
