import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Alpaca Trading API v2: account, orders, positions, assets, activities.
struct TradingController {
    let market: MarketView
    let accountService: any AccountService
    let orderService: any OrderService
    let assetList: AlpacaAssets

    init(market: MarketView, accountService: any AccountService, orderService: any OrderService) {
        self.market = market
        self.accountService = accountService
        self.orderService = orderService
        assetList = AlpacaAssets(directory: market.directory)
    }

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("account", use: account)
        group.get("account/activities", use: activities)
        group.get("account/activities/{activity_type}", use: activities)
        group.get("orders", use: listOrders)
        group.post("orders", use: createOrder)
        group.delete("orders", use: cancelAll)
        group.get("orders:by_client_order_id", use: orderByClientID)
        group.get("orders/{id}", use: getOrder)
        group.patch("orders/{id}", use: replaceOrder)
        group.delete("orders/{id}", use: cancelOrder)
        group.get("positions", use: positions)
        group.get("positions/{symbol}", use: position)
        group.get("positions/{symbol}/{quote}", use: position)
        group.get("assets", use: assets)
        group.get("assets/{symbol}", use: asset)
        group.get("assets/{symbol}/{quote}", use: asset)
    }

    @Sendable func account(_ request: Request, context: AppContext) async throws -> Response {
        let id = try context.account()
        let summary = try await accountService.summary(id)
        return AlpacaEncoding.account(summary).response()
    }

    @Sendable func createOrder(_ request: Request, context: AppContext) async throws -> Response {
        let id = try context.account()
        var request = request
        let order = try OrderRequest(json: try await request.jsonBody(context: context))
        let placed = try await orderService.submit(order, account: id)
        guard placed.legs.isEmpty else { return try await encode(placed, account: id).response() }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: AlpacaEncoding.orderBytes(placed))))
    }

    @Sendable func listOrders(_ request: Request, context: AppContext) async throws -> Response {
        let id = try context.account()
        var query = OrderQuery()
        if let status = request.query("status") {
            guard let s = OrderQuery.Status(rawValue: status.lowercased()) else {
                throw APIError.unprocessable("invalid status \(status); expected open, closed or all")
            }
            query.status = s
        }
        if let limit = request.query("limit") {
            guard let n = Int(limit), (1...500).contains(n) else {
                throw APIError.unprocessable("limit must be 1 to 500")
            }
            query.limit = n
        }
        if let after = request.query("after") {
            guard let t = RFC3339.parse(after) else { throw APIError.unprocessable("after must be an RFC 3339 time") }
            query.after = t
        }
        if let until = request.query("until") {
            guard let t = RFC3339.parse(until) else { throw APIError.unprocessable("until must be an RFC 3339 time") }
            query.until = t
        }
        if let direction = request.query("direction") {
            guard ["asc", "desc"].contains(direction.lowercased()) else {
                throw APIError.unprocessable("direction must be asc or desc")
            }
            query.ascending = direction.lowercased() == "asc"
        }
        if let symbols = request.query("symbols") {
            query.symbols = symbols.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
        }
        let orders = try await orderService.orders(account: id, query)
        let nested = try request.boolQuery("nested") ?? false
        var out: [JSONValue] = []
        for order in orders where !(nested && order.parentID != nil) {
            out.append(try await encode(order, account: id, nested: nested))
        }
        return JSONValue.array(out).response()
    }

    @Sendable func getOrder(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        let id = try orderID(context)
        let order = try await orderService.order(id, account: account)
        return try await encode(order, account: account).response()
    }

    @Sendable func orderByClientID(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        guard let clientID = request.query("client_order_id") else {
            throw APIError.unprocessable("client_order_id is required")
        }
        let order = try await orderService.order(clientOrderID: ClientOrderID(clientID), account: account)
        return try await encode(order, account: account).response()
    }

    @Sendable func replaceOrder(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        let id = try orderID(context)
        var request = request
        let change = try ReplaceRequest(json: try await request.jsonBody(context: context))
        let order = try await orderService.replace(id, account: account, with: change)
        return try await encode(order, account: account).response()
    }

    @Sendable func cancelOrder(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        let id = try orderID(context)
        _ = try await orderService.cancel(id, account: account)
        return Response(status: .noContent)
    }

    @Sendable func cancelAll(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        let results = try await orderService.cancelAll(account: account)
        let body: [JSONValue] = results.map { (id, result) -> JSONValue in
            switch result {
            case .success(let order):
                return .object([
                    "id": .string(id.description), "status": .int(200), "body": AlpacaEncoding.order(order),
                ])
            case .failure(let e):
                let status: Int = e.status.code
                let error: JSONValue = .object(["code": .int(e.alpacaCode), "message": .string(e.message)])
                return .object(["id": .string(id.description), "status": .int(status), "body": error])
            }
        }
        return JSONValue.array(body).response(status: HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status"))
    }

    @Sendable func positions(_ request: Request, context: AppContext) async throws -> Response {
        let id = try context.account()
        let summary = try await accountService.summary(id)
        let date = market.clock.now()
        return JSONValue.array(
            summary.positions.map {
                AlpacaEncoding.position(
                    $0, date: market.clock.sessions.tradingDate($0.instrument.calendar, at: date))
            }
        ).response()
    }

    @Sendable func position(_ request: Request, context: AppContext) async throws -> Response {
        let id = try context.account()
        let symbol = try context.pathSymbol()
        let summary = try await accountService.summary(id)
        guard
            let p = summary.positions.first(where: {
                $0.position.symbol == symbol || AlpacaEncoding.positionSymbol($0.instrument) == symbol
                    || AlpacaEncoding.tradedAssetIdentifier($0.position.symbol).description == symbol.lowercased()
            })
        else {
            throw APIError.notFound("position does not exist")
        }
        let today = market.clock.sessions.tradingDate(p.instrument.calendar, at: market.clock.now())
        return AlpacaEncoding.position(p, date: today).response()
    }

    /// Every asset, filtered as Alpaca filters (`AlpacaAssets.Filter`).
    @Sendable func assets(_ request: Request, context: AppContext) async throws -> Response {
        var filter = AlpacaAssets.Filter()
        func value(_ name: String, in allowed: Set<String>, _ transform: (String) -> String) throws -> String? {
            guard let text = request.query(name), !text.isEmpty else { return nil }
            let value = transform(text)
            guard allowed.contains(value) else {
                throw APIError.unprocessable(
                    "invalid \(name) \(text); expected one of \(allowed.sorted().joined(separator: ", "))")
            }
            return value
        }
        filter.status = try value("status", in: AlpacaAssets.statuses) { $0.lowercased() }
        filter.assetClass = try value("asset_class", in: AlpacaAssets.assetClasses) { $0.lowercased() }
        filter.exchange = try value("exchange", in: AlpacaAssets.exchanges) { $0.uppercased() }
        if let attributes = request.query("attributes") {
            filter.attributes = Set(attributes.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return JSONValue.array(assetList.list(filter)).response()
    }

    @Sendable func asset(_ request: Request, context: AppContext) async throws -> Response {
        let symbol = try context.pathSymbol()
        guard let entry = assetList.entry(symbol) else {
            throw APIError.notFound("asset not found for \(symbol)")
        }
        return AlpacaEncoding.asset(entry).response()
    }

    /// Account activities, Alpaca's way: `activity_types` (or the path's one type), `category`, `date` or
    /// `after`/`until`, `direction` (desc by default), `page_size` and `page_token` (the last id of the page before).
    @Sendable func activities(_ request: Request, context: AppContext) async throws -> Response {
        let id = try context.account()
        var query = ActivityQuery()
        var types = Set<String>()
        if let pathType = context.parameters.get("activity_type") {
            types.insert(pathType.uppercased())
        } else if let list = request.query("activity_types") {
            types.formUnion(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() })
        }
        if let category = request.query("category") {
            guard let kinds = ActivityEncoding.categories[category.lowercased()] else {
                throw APIError.unprocessable(
                    "invalid category \(category); expected trade_activity or non_trade_activity")
            }
            guard types.isEmpty else {
                throw APIError.unprocessable("category and activity_types cannot both be given")
            }
            types = kinds
        }
        for type in types where !ActivityEncoding.alpacaTypes.contains(type) {
            throw APIError.unprocessable("invalid activity type \(type)")
        }
        query.kinds = Set(types.flatMap { ActivityEncoding.storedKinds[$0] ?? [] })
        if let day = request.query("date") {
            guard let date = CivilDate(String(day.prefix(10))) else {
                throw APIError.unprocessable("invalid date \(day); expected YYYY-MM-DD")
            }
            query.after = Timestamp(date, in: .newYork).adding(nanoseconds: -1)
            query.until = Timestamp(date.adding(days: 1), in: .newYork)
        }
        if let after = try request.timeQuery("after", zone: .newYork) { query.after = after }
        if let until = try request.timeQuery("until", zone: .newYork) { query.until = until }
        switch request.query("direction")?.lowercased() {
        case nil, "desc": query.ascending = false
        case "asc": query.ascending = true
        case let other?: throw APIError.unprocessable("invalid direction \(other); expected asc or desc")
        }
        let pageSize = Int(request.query("page_size") ?? "100") ?? 0
        guard (1...1000).contains(pageSize) else { throw APIError.unprocessable("page_size must be 1 to 1000") }
        query.limit = pageSize
        if let token = request.query("page_token") {
            guard let sequence = ActivityEncoding.sequence(ofID: token, account: id) else {
                throw APIError.unprocessable("invalid page_token \(token)")
            }
            query.afterSequence = sequence
        }
        // Types Alpaca has that never happen here (ACATS, options, …) list nothing, once the rest is checked.
        if !types.isEmpty, query.kinds.isEmpty { return JSONValue.array([]).response() }
        let entries = try await accountService.activities(id, query: query)
        return JSONValue.array(entries.map(ActivityEncoding.alpaca)).response()
    }

    // MARK: Helpers

    func orderID(_ context: AppContext) throws -> OrderID {
        let text = try context.parameters.require("id")
        guard let id = OrderID(text) else { throw APIError.notFound("order not found") }
        return id
    }

    func encode(_ order: Order, account: AccountID, nested: Bool = true) async throws -> JSONValue {
        guard nested, !order.legs.isEmpty else { return AlpacaEncoding.order(order) }
        var legs: [Order] = []
        for leg in order.legs {
            if let o = try? await orderService.order(leg, account: account) { legs.append(o) }
        }
        return AlpacaEncoding.order(order, legs: legs)
    }
}

/// Ledger entries as Alpaca activities (FILL, CSD, CSW, JNLC (cash journaled to or from another of the user's accounts),
/// FEE (with hard-to-borrow fees), CFEE (crypto fees), INT for margin interest, MISC for
/// margin calls, DIV, FORWARD_SPLIT / REVERSE_SPLIT / SPLIT (A-share bonus shares; SPLIT also finds the other two), and
/// RESET for account resets).
enum ActivityEncoding {
    /// Alpaca's activity types that papertrade records, with their stored kinds.
    static let storedKinds: [String: [String]] = [
        "FILL": ["fill"], "CSD": ["deposit"], "CSW": ["withdrawal"], "FEE": ["fee", "borrow_fee"],
        "CFEE": ["crypto_fee"], "RESET": ["reset"], "JNLC": ["transfer"],
        "INT": ["interest"], "MISC": ["margin_call"], "DIV": ["dividend"], "OPEXC": ["option_exercise"],
        "OPEXP": ["option_expiry"], "OPASN": ["option_assignment"], "OPTRD": ["option_delivery"],
        "OPCA": ["option_adjustment"], "OPCSH": ["option_cash_deliverable"],
        "SPLIT": ["forward_split", "reverse_split", "stock_dividend"], "FORWARD_SPLIT": ["forward_split"],
        "REVERSE_SPLIT": ["reverse_split"],
    ]

    /// Every activity type Alpaca documents (and RESET, papertrade's own); others are refused.
    static let alpacaTypes: Set<String> = Set(storedKinds.keys).union([
        "TRANS", "MISC", "ACATC", "ACATS", "CFEE", "CIL", "DIV", "DIVCGL", "DIVCGS", "DIVFEE", "DIVFT", "DIVNRA",
        "DIVROC", "DIVTW", "DIVTXEX", "INT", "INTNRA", "INTTW", "JNL", "JNLC", "JNLS", "MA", "NC", "OPASN", "OPCA",
        "OPCSH", "OPEXC", "OPEXP", "OPTRD", "PTC", "PTR", "REORG", "SC", "SSO", "SSP", "SPLIT", "FXTRD", "VOF",
    ])

    /// `category`: trade activities are fills; everything else is non-trade.
    static let categories: [String: Set<String>] = [
        "trade_activity": ["FILL"], "non_trade_activity": alpacaTypes.subtracting(["FILL"]),
    ]

    /// An activity id's sequence number ("<nanoseconds>::<account id>:<sequence>"), if the id is this account's.
    static func sequence(ofID id: String, account: AccountID) -> Int64? {
        let parts = id.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, Int64(parts[0]) != nil, parts[1].isEmpty, parts[2] == account.description else {
            return nil
        }
        return Int64(parts[3])
    }

    static func alpaca(_ e: LedgerEntry) -> JSONValue {
        let id = JSONValue.string(
            String(e.time.nanoseconds) + "::" + e.accountID.description + ":" + String(e.sequence))
        switch e.kind {
        case .fill(let f):
            return .object([
                "id": id, "activity_type": .string("FILL"), "transaction_time": .string(e.time.description),
                "type": .string(f.leavesQty.map { $0.isZero } ?? true ? "fill" : "partial_fill"),
                "price": .decimal(f.price), "qty": .decimal(f.qty), "side": .string(f.side.rawValue),
                "symbol": .string(f.symbol),
                "leaves_qty": .decimal(f.leavesQty ?? .zero), "cum_qty": .decimal(f.cumulativeQty),
                "order_id": .string(f.orderID.description),
                "order_status": .string(f.leavesQty.map { $0.isZero } ?? true ? "filled" : "partially_filled"),
            ])
        case .deposit(let method, let note), .withdrawal(let method, let note):
            let deposit = if case .deposit = e.kind { true } else { false }
            return nonTrade(
                e, id: id, type: deposit ? "CSD" : "CSW",
                description: [method.rawValue, note].compactMap { $0 }.joined(separator: ": "), symbol: nil)
        case .transfer(let t):
            // Alpaca's cash journal between accounts (JNLC); the description names the other account and the rate.
            let other = t.counterpartyAmount.formatted(places: t.counterpartyCurrency.minorUnitDigits)
            let description =
                t.direction == .out
                ? "transfer \(t.transferID) to account \(t.counterparty) (\(other) \(t.counterpartyCurrency.rawValue) at \(t.rate))"
                : "transfer \(t.transferID) from account \(t.counterparty) (\(other) \(t.counterpartyCurrency.rawValue) at \(t.rate))"
            return nonTrade(e, id: id, type: "JNLC", description: description, symbol: nil)
        case .fee(let kind, _, let symbol):
            return nonTrade(e, id: id, type: "FEE", description: kind.rawValue, symbol: symbol)
        case .cryptoFee(let fee):
            // As Alpaca reports a coin pair's fee: the coins taken (negative) on a purchase, the money on a sale.
            let coin = fee.side == .buy
            var o = nonTrade(
                e, id: id, type: "CFEE",
                description: coin ? "Coin Pair Transaction Fee (Non USD)" : "Coin Pair Transaction Fee (USD)",
                symbol: fee.symbol, qty: coin ? -fee.qty : .zero)
            if case .object(var fields) = o {
                fields["price"] = .decimal(fee.price)
                fields["order_id"] = .string(fee.orderID.description)
                o = .object(fields)
            }
            return o
        case .reset:
            return nonTrade(e, id: id, type: "RESET", description: "account reset to its starting cash", symbol: nil)
        case .interest(let rate, let balance):
            return nonTrade(
                e, id: id, type: "INT",
                description: "margin interest at \(rate.times(100))% a year on \(balance.formatted(places: 2))",
                symbol: nil)
        case .marginCall(let deficit, let event):
            let amount = deficit.formatted(places: 2)
            let description =
                switch event {
                case .issued: "margin call: equity is \(amount) below maintenance margin"
                case .met: "margin call met"
                case .liquidation: "margin call not met: positions sold to cover \(amount)"
                }
            return nonTrade(e, id: id, type: "MISC", description: description, symbol: nil)
        case .corporateAction(let b):
            switch b.kind {
            case .cashDividend:
                var o = nonTrade(
                    e, id: id, type: "DIV",
                    description: b.qtyBefore.isNegative
                        ? "dividend of \(b.cashPerShare) a share paid on \(b.qtyBefore.magnitude) shares held short"
                        : "cash dividend of \(b.cashPerShare) a share on \(b.qtyBefore) shares",
                    symbol: b.symbol, qty: b.qtyBefore)
                if case .object(var fields) = o {
                    fields["per_share_amount"] = .decimal(b.cashPerShare)
                    o = .object(fields)
                }
                return o
            case .forwardSplit, .reverseSplit, .stockDividend:
                let type = [.forwardSplit: "FORWARD_SPLIT", .reverseSplit: "REVERSE_SPLIT"][b.kind] ?? "SPLIT"
                var description =
                    "\(b.newRate)-for-\(b.oldRate) \(b.kind.rawValue.replacingOccurrences(of: "_", with: " ")): \(b.qtyBefore) shares became \(b.qtyAfter)"
                if b.fractionPaid.isPositive {
                    description += "; cash in lieu of \(b.fractionPaid) shares: \(e.cashChange.formatted(places: 2))"
                }
                return nonTrade(
                    e, id: id, type: type, description: description, symbol: b.symbol, qty: b.qtyAfter - b.qtyBefore)
            }
        case .borrowFee(let symbol, let qty, let rate, let value):
            return nonTrade(
                e, id: id, type: "FEE",
                description:
                    "HTB fee: \(qty) shares of \(symbol) held short, worth \(value.formatted(places: 2)), at \(rate.times(100))% a year",
                symbol: symbol, qty: -qty)
        case .optionEvent(let event):
            let settled = event.settlementPrice.map { " (underlying closed at \($0))" } ?? ""
            let contracts = "\(event.qty.magnitude) contracts of \(event.symbol)"
            let (type, description) =
                switch event.kind {
                case .exercise: ("OPEXC", "option exercise: \(contracts)\(settled)")
                case .assignment: ("OPASN", "option assignment: \(contracts)\(settled)")
                case .expiry: ("OPEXP", "option expiration: \(contracts) expired worthless\(settled)")
                case .adjustment:
                    (
                        "OPCA",
                        "option corporate action: \(contracts) \(event.qty.isNegative ? "adjusted for a split of the underlying" : "after the split's adjustment")"
                    )
                case .cashDeliverable:
                    (
                        "OPCSH",
                        "option cash deliverable: \(contracts) settled in cash, their deliverable now cash in lieu of a fraction of a share\(settled)"
                    )
                }
            return nonTrade(e, id: id, type: type, description: description, symbol: event.symbol, qty: event.qty)
        case .optionDelivery(let d):
            var o = nonTrade(
                e, id: id, type: "OPTRD",
                description:
                    "option trade: \(d.side == .buy ? "bought" : "sold") \(d.qty) shares of \(d.symbol) at \(d.price) on exercise or assignment of \(d.optionSymbol)",
                symbol: d.symbol, qty: d.side == .buy ? d.qty : -d.qty)
            if case .object(var fields) = o {
                fields["price"] = .decimal(d.price)
                o = .object(fields)
            }
            return o
        }
    }

    static func nonTrade(
        _ e: LedgerEntry, id: JSONValue, type: String, description: String, symbol: String?, qty: Quantity? = nil
    ) -> JSONValue {
        .object([
            "id": id, "activity_type": .string(type),
            "date": .string(TradingCalendar.xnys.zone.localTime(of: e.time).date.description),
            "net_amount": .decimal(e.cashChange), "symbol": .text(symbol), "qty": qty.map(JSONValue.decimal) ?? .null,
            "per_share_amount": .null,
            "description": .string(description), "status": .string("executed"),
        ])
    }
}
