import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// The logged-in user's accounts: create, summary with positions, deposit, withdraw, reset, transactions,
/// orders (same bodies as Alpaca's), chart bars and market status. Another user's account is a 404.
struct AccountsController {
    let market: MarketView
    let accountService: any AccountService
    let orderService: any OrderService
    let languages: LanguagePreferences
    let access: UserAccess

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("accounts", use: list)
        group.post("accounts", use: create)
        group.get("accounts/{id}", use: get)
        group.post("accounts/{id}/deposit", use: deposit)
        group.post("accounts/{id}/withdraw", use: withdraw)
        group.post("accounts/{id}/reset", use: reset)
        group.post("accounts/{id}/keys", use: createKey)
        group.get("accounts/{id}/keys", use: keys)
        group.delete("accounts/{id}/keys/{key}", use: revokeKey)
        group.get("accounts/{id}/transactions", use: transactions)
        group.get("accounts/{id}/orders", use: orders)
        group.post("accounts/{id}/orders", use: placeOrder)
        group.delete("accounts/{id}/orders/{order}", use: cancelOrder)
        group.post("accounts/{id}/positions/{symbol}/exercise", use: exercise)
        group.post("accounts/{id}/positions/{symbol}/do-not-exercise", use: doNotExercise)
        group.get("accounts/{id}/estimate", use: estimate)
        group.get("bars/{symbol}", use: bars)
        group.get("market/status", use: status)
    }

    func detail(_ record: AccountRecord) async throws -> JSONValue {
        let summary = try await accountService.summary(record.id)
        var o =
            NativeEncoding.account(record, summary: summary, name: accountService.displayName(of: record)).object ?? [:]
        let now = market.clock.now()
        var positions: [JSONValue] = []
        for p in summary.positions {
            var position =
                NativeEncoding.position(p, date: market.clock.sessions.tradingDate(p.instrument.calendar, at: now))
            if p.instrument.option != nil, case .object(var fields) = position {
                fields.merge(await greeks(of: p)) { _, new in new }
                position = .object(fields)
            }
            positions.append(position)
        }
        o["positions"] = .array(positions)
        return .object(o)
    }

    /// An option position's greeks from the model that prices the chain: per share as the chain shows them, and what
    /// they come to for the position — `position_delta` in shares of the underlying it moves like, `position_theta`
    /// in money a day of time decay (both signed: a written contract's are the other way). Nulls when the model has
    /// no figure (an expired contract).
    func greeks(of p: PositionSummary) async -> [String: JSONValue] {
        let empty: [String: JSONValue] = ["greeks": .null, "position_delta": .null, "position_theta": .null]
        guard let snapshot = try? await market.options.snapshot(p.position.symbol), !snapshot.expired,
            let contracts = Double(p.position.qty.description)
        else { return empty }
        let g = snapshot.greeks
        // Delta moves with the shares delivered (an adjusted contract's deliverable), theta with the premium's
        // multiplier.
        let shares = contracts * Double(snapshot.contract.deliverable)
        let units = contracts * Double(snapshot.contract.multiplier)
        return [
            "greeks": .object([
                "delta": OptionsController.figure(g.delta), "gamma": OptionsController.figure(g.gamma),
                "theta": OptionsController.figure(g.theta), "vega": OptionsController.figure(g.vega),
                "implied_volatility": OptionsController.figure(snapshot.impliedVolatility),
            ]),
            "position_delta": OptionsController.figure((g.delta * shares * 100).rounded() / 100),
            "position_theta": OptionsController.figure((g.theta * units * 100).rounded() / 100),
        ]
    }

    /// The user's accounts; for an API key, its own account (how a client learns which account a key trades).
    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let accounts: [AccountRecord]
        if case .account(let id) = context.caller, let record = await accountService.accountRecord(id) {
            accounts = [record]
        } else {
            accounts = try await accountService.loadAccounts(of: try context.user())
        }
        var out: [JSONValue] = []
        for record in accounts {
            let summary = try await accountService.summary(record.id)
            out.append(NativeEncoding.account(record, summary: summary, name: accountService.displayName(of: record)))
        }
        return JSONValue.array(out).response()
    }

    @Sendable func create(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        let body = try await request.jsonBody(context: context)
        guard let market = body["market"]?.string.flatMap(Market.init(rawValue:)) else {
            throw APIError.unprocessable("market must be us or cn")
        }
        let cash = try body["cash"].map { value -> FixedDecimal in
            guard let amount = value.decimal, amount.isPositive, amount <= FixedDecimal(1_000_000_000) else {
                throw APIError.unprocessable("cash must be a positive amount up to 1000000000")
            }
            return amount
        }
        let name = body["name"]?.string.map { String($0.prefix(64)) }
        let type = try body["type"].map { value -> AccountType in
            guard let type = value.string.flatMap(AccountType.init(rawValue:)) else {
                throw APIError.unprocessable("type must be cash or margin")
            }
            return type
        }
        let record = try await accountService.openAccount(
            userID: user, market: market, cash: cash, name: name, type: type)
        return try await detail(record).response(status: .created)
    }

    @Sendable func get(_ request: Request, context: AppContext) async throws -> Response {
        try await detail(try await accountService.account(ownedBy: context)).response()
    }

    func transfer(_ request: Request, context: AppContext, deposit: Bool) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        var request = request
        let body = try await request.jsonBody(context: context)
        guard let amount = body["amount"]?.decimal else { throw APIError.unprocessable("Please enter a valid amount") }
        let method =
            try body["method"]?.string.map { text -> TransferMethod in
                // (An adjustment is a class teacher's, through the class: never a user's own.)
                guard let m = TransferMethod(rawValue: text), m != .adjustment else {
                    throw APIError.unprocessable("method must be bank, card or transfer")
                }
                return m
            } ?? .bank
        let note = body["note"]?.string.map { String($0.prefix(200)) }.flatMap { $0.isEmpty ? nil : $0 }
        let entry: LedgerEntry
        if deposit {
            entry = try await accountService.deposit(amount, to: record.id, method: method, note: note)
        } else {
            entry = try await accountService.withdraw(amount, from: record.id, method: method, note: note)
        }
        var detail = try await self.detail(record).object ?? [:]
        detail["transaction"] = NativeEncoding.transaction(entry)
        return JSONValue.object(detail).response()
    }

    @Sendable func deposit(_ request: Request, context: AppContext) async throws -> Response {
        try await transfer(request, context: context, deposit: true)
    }

    @Sendable func withdraw(_ request: Request, context: AppContext) async throws -> Response {
        try await transfer(request, context: context, deposit: false)
    }

    @Sendable func reset(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        try await accountService.reset(record.id)
        return try await detail(record).response()
    }

    /// A new Alpaca API key pair for the account (a bot trades it, a game account included): the secret is shown
    /// this once and stored only as a hash.
    @Sendable func createKey(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        _ = try context.user() // an API key does not mint more keys
        let key = try await access.createKey(account: record.id)
        return JSONValue.object([
            "account_id": .string(record.id.description), "key_id": .string(key.keyID), "secret": .string(key.secret),
        ]).response(status: .created)
    }

    /// The account's API keys (ids and when each was made: a secret is shown once, when its key is made).
    @Sendable func keys(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        _ = try context.user() // a key does not list keys
        return JSONValue.array(
            try await access.keys(of: record.id).map { key in
                .object([
                    "key_id": .string(key.keyID), "account_id": .string(record.id.description),
                    "created_at": NativeEncoding.time(key.createdAt),
                ])
            }
        ).response()
    }

    /// Revokes one of the account's keys: a bot using it is refused from its next request (401).
    @Sendable func revokeKey(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        _ = try context.user() // a key does not revoke keys
        let keyID = context.parameters.get("key") ?? ""
        try await access.revokeKey(keyID, of: record.id)
        return Response(status: .noContent)
    }

    @Sendable func transactions(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        let limit = min(max(Int(request.query("limit") ?? "") ?? 200, 1), 1000)
        let entries = try await accountService.activities(record.id, limit: limit)
        // Fills and fees of orders a queued rule placed are marked automatic (their client order id is queue-<rule>).
        var recent = OrderQuery()
        recent.status = .all
        recent.limit = 500
        let orders = try await orderService.orders(account: record.id, recent)
        let automatic = Set(orders.filter { $0.clientOrderID.text.hasPrefix("queue-") }.map(\.id))
        return JSONValue.array(
            entries.map { entry in
                var o = NativeEncoding.transaction(entry).object ?? [:]
                switch entry.kind {
                case .fill(let f) where automatic.contains(f.orderID): o["automatic"] = .bool(true)
                case .fee(_, let order, _) where automatic.contains(order): o["automatic"] = .bool(true)
                case .cryptoFee(let fee) where automatic.contains(fee.orderID): o["automatic"] = .bool(true)
                default: break
                }
                return .object(o)
            }
        ).response()
    }

    @Sendable func orders(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        var query = OrderQuery()
        query.status = OrderQuery.Status(rawValue: request.query("status") ?? "all") ?? .all
        query.limit = min(max(Int(request.query("limit") ?? "") ?? 100, 1), 500)
        let list = try await orderService.orders(account: record.id, query)
        return JSONValue.array(list.map { NativeEncoding.order($0) }).response()
    }

    @Sendable func placeOrder(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        var request = request
        let order = try OrderRequest(json: try await request.jsonBody(context: context))
        let placed = try await orderService.submit(order, account: record.id)
        return NativeEncoding.order(placed).response(status: .created)
    }

    @Sendable func cancelOrder(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        guard let id = OrderID(try context.parameters.require("order")) else {
            throw APIError.notFound("order not found")
        }
        let order = try await orderService.cancel(id, account: record.id)
        return NativeEncoding.order(order).response()
    }

    /// Exercises every contract of a long option position now (the same call as Alpaca's
    /// `POST /v2/positions/{symbol}/exercise`); answers the account as `GET accounts/{id}` does.
    @Sendable func exercise(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        let symbol = try Self.contractSymbol(context)
        try await orderService.exercise(symbol, account: record.id)
        return try await detail(record).response()
    }

    /// Lets a long option position expire unexercised, even in the money (Alpaca's do-not-exercise); answers the
    /// account, the position marked `do_not_exercise`.
    @Sendable func doNotExercise(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        let symbol = try Self.contractSymbol(context)
        try await orderService.doNotExercise(symbol, account: record.id)
        return try await detail(record).response()
    }

    /// The `symbol` path parameter as an OCC symbol (any case); 422 for anything else.
    static func contractSymbol(_ context: AppContext) throws -> String {
        let symbol = try context.parameters.require("symbol").uppercased()
        guard OptionContract(occSymbol: symbol) != nil else {
            throw APIError.unprocessable("\(symbol) is not an option contract's OCC symbol")
        }
        return symbol
    }

    /// What the trade sheet shows while the user types: value, fees and total of `qty` shares of `symbol` at
    /// `price` (default: the best ask for a buy, the best bid for a sell), with buying power and sellable shares.
    /// Fees follow the account's own schedule, exactly as a fill would charge them.
    @Sendable func estimate(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        let symbol = (request.query("symbol") ?? "").uppercased()
        guard let entry = market.directory.entry(symbol) else { throw APIError.notFound("unknown symbol \(symbol)") }
        guard let side = OrderSide(rawValue: request.query("side") ?? "buy") else {
            throw APIError.unprocessable("side must be buy or sell")
        }
        // A quantity, or (a market order's) an amount of money: what it buys at the price is worked out below.
        let notional = request.query("notional").flatMap(FixedDecimal.init)
        let requested = notional == nil ? request.query("qty").flatMap(FixedDecimal.init) : notional
        guard let requested, requested.isPositive, requested <= FixedDecimal(1_000_000_000) else {
            throw APIError.unprocessable("Please enter a valid amount")
        }
        let explicit = try request.query("price").map { text -> FixedDecimal in
            guard let price = FixedDecimal(text), price.isPositive else {
                throw APIError.unprocessable("price must be a positive number")
            }
            return price
        }
        let summary = try await accountService.summary(record.id)
        let price: FixedDecimal
        if let explicit {
            price = explicit
        } else {
            let quote: MarketQuote
            do { quote = try await market.feed.quote(entry.symbol) } catch { throw APIError(feed: error) }
            price = (side == .buy ? quote.asks.best?.price : quote.bids.best?.price) ?? quote.last
        }
        if entry.instrument.kind == .crypto, entry.instrument.coinPair != nil {
            return try await coinEstimate(
                record, summary: summary, entry: entry, side: side, qty: requested, price: price, limit: explicit,
                notional: notional != nil, type: request.query("type"), context: context)
        }
        if let pair = entry.instrument.currencyPair {
            return try await forexEstimate(
                record, summary: summary, symbol: entry.symbol, pair: pair, side: side, qty: requested, price: price,
                limit: explicit, type: request.query("type"), context: context)
        }
        let account = summary.account
        // A coin is never bought on margin: the cash is what buys it.
        let buyingPower =
            entry.instrument.kind == .crypto ? min(account.buyingPower, summary.buyingPower) : summary.buyingPower
        // A notional order's quantity: the money over the price, to the quantity's nine places (as its fill divides).
        let qty = notional.map { ($0.divided(by: price, rule: .down) ?? .zero) } ?? requested
        guard qty.isPositive else { throw APIError.unprocessable("Please enter a valid amount") }
        let value = notional ?? account.currency.round(price.multiplied(by: qty), .halfUp)
        let date = market.clock.sessions.tradingDate(entry.instrument.calendar, at: market.clock.now())
        var fees = account.fees(for: entry.instrument).fees(
            side: side, filledQty: qty, filledValue: value, currency: account.currency
        ).map { JSONValue.object(["kind": .string($0.kind.rawValue), "amount": .decimal($0.amount)]) }
        var feeTotal = account.fees(for: entry.instrument).total(
            side: side, filledQty: qty, filledValue: value, currency: account.currency)
        // A coin's fee: the taker's rate unless a limit rests (the maker's), at the account's tier, in what the trade
        // receives — coins less on a purchase, dollars less on a sale.
        var received = side == .buy ? qty : value - feeTotal
        if entry.instrument.kind == .crypto {
            let role = await feeRole(entry.symbol, side: side, limit: explicit, type: request.query("type"))
            let volume = account.cryptoVolume.trailing(before: date)
            let (coin, money) = account.fees.crypto.charge(
                side: side, role: role, volume: volume, qty: qty, value: value, currency: account.currency)
            let worth = side == .buy ? account.currency.round(coin.multiplied(by: price), .halfUp) : money
            feeTotal = worth
            received = side == .buy ? qty - coin : value - money
            fees = [
                .object([
                    "kind": .string("crypto_fee"), "amount": .decimal(worth), "qty": .decimal(coin),
                    "liquidity": .string(role.rawValue),
                    "rate": .decimal(account.fees.crypto.tier(forVolume: volume).rate(role)),
                ])
            ]
        }
        let position = summary.positions.first { $0.instrument.symbol == entry.symbol }?.position
        let held = position?.qty ?? .zero
        let sellable = held.isPositive ? position?.availableToSell(on: date) ?? .zero : .zero
        // A sale with no long position is a short sale where the account and the name allow it (it spends buying
        // power); a buy with a short position covers it.
        let shortSale =
            side == .sell && !held.isPositive && summary.shortingEnabled && entry.instrument.borrow.shortable
        // Would the order be accepted now? The refusal placing it would meet (lots, ticks, price limits, buying
        // power, T+1, market hours), in the user's language, while they are still typing.
        var refusal: String?
        var checked = Self.estimatedOrder(
            request.query("type"), symbol: entry.symbol, side: side, qty: qty, price: explicit,
            timeInForce: entry.instrument.kind == .crypto ? .gtc : .day)
        if let notional {
            checked?.qty = nil
            checked?.notional = notional
        }
        if let order = checked, let rejection = try await orderService.check(order, account: record.id) {
            let language = (try? context.user()).map { languages.language(of: $0) } ?? .en
            refusal = RejectionWording.message(rejection, in: language)
        }
        return JSONValue.object([
            "refusal": .text(refusal),
            "most": side == .buy
                ? .decimal(
                    Self.mostAffordable(
                        price: price, instrument: entry.instrument, lot: entry.roundLot,
                        buyingPower: buyingPower, account: account))
                : .decimal(shortSale ? .zero : sellable),
            "symbol": .string(entry.symbol), "side": .string(side.rawValue), "qty": .decimal(qty),
            "price": .decimal(price),
            "value": .decimal(value),
            "fees": .array(fees), "fee_total": .decimal(feeTotal),
            // What the trade costs (a coin's fee is not money out of a purchase) and what it gets: shares or coins
            // bought, money from a sale.
            "total": .decimal(
                side == .buy ? value + (entry.instrument.kind == .crypto ? .zero : feeTotal) : value - feeTotal),
            "receive": .decimal(received),
            "currency": .string(account.currency.rawValue), "buying_power": .decimal(buyingPower),
            "sellable": .decimal(sellable), "round_lot": .int(entry.roundLot), "short_sale": .bool(shortSale),
            "short_qty": .decimal(held.isNegative ? held.magnitude : .zero),
        ]).response(headers: [.cacheControl: "no-store"])
    }

    /// The role a crypto order's fee is charged at: the taker's, unless a limit rests away from the far side of the
    /// book (the maker's).
    func feeRole(_ symbol: String, side: OrderSide, limit: Price?, type: String?) async -> LiquidityRole {
        guard let limit, type != "market" else { return .taker }
        let quote = try? await market.feed.quote(symbol)
        let far = side == .buy ? quote?.asks.best?.price : quote?.bids.best?.price
        guard let far else { return .taker }
        return (side == .buy ? limit < far : limit > far) ? .maker : .taker
    }

    /// The order the trade sheet would place, for checking it: `type` market (no price), limit or stop_limit (at
    /// `price` as the limit), stop (at `price` as the stop); nil for a trailing stop (its trail is not known here).
    /// The order an estimate checks. It carries a journal note: the note is written on the trade sheet's last step
    /// and a class's requirement of one is checked when the order is placed; the estimate says what else refuses it.
    static func estimatedOrder(
        _ type: String?, symbol: String, side: OrderSide, qty: FixedDecimal, price: FixedDecimal?,
        timeInForce: TimeInForce = .day
    )
        -> OrderRequest?
    {
        var order = unnotedOrder(type, symbol: symbol, side: side, qty: qty, price: price, timeInForce: timeInForce)
        order?.note = "estimate"
        return order
    }

    static func unnotedOrder(
        _ type: String?, symbol: String, side: OrderSide, qty: FixedDecimal, price: FixedDecimal?,
        timeInForce: TimeInForce
    ) -> OrderRequest? {
        switch type ?? (price == nil ? "market" : "limit") {
        case "market":
            return OrderRequest(symbol: symbol, side: side, type: .market, timeInForce: timeInForce, qty: qty)
        case "limit", "stop_limit":
            guard let price else { return nil }
            return OrderRequest(
                symbol: symbol, side: side, type: .limit, timeInForce: timeInForce, qty: qty, limitPrice: price)
        case "stop":
            guard let price else { return nil }
            return OrderRequest(
                symbol: symbol, side: side, type: .stop, timeInForce: timeInForce, qty: qty, stopPrice: price)
        default: return nil
        }
    }

    /// The most whole lots a buy at `price` can pay for, fees included ("you can buy at most …").
    static func mostAffordable(
        price: FixedDecimal, instrument: Instrument, lot: Int, buyingPower: FixedDecimal, account: Account
    ) -> FixedDecimal {
        // A coin: as much as the money buys, down to the pair's step (its fee is paid in the coin, not the money).
        if case .fractional(_, let increment) = instrument.lot {
            guard price.isPositive, buyingPower.isPositive, increment.isPositive,
                let most = buyingPower.divided(by: price, rule: .down)
            else { return .zero }
            return most.rounded(toMultipleOf: increment, rule: .down)
        }
        let lotSize = FixedDecimal(max(lot, 1))
        guard price.isPositive, buyingPower.isPositive,
            let lots = buyingPower.divided(by: price.multiplied(by: lotSize), places: 0, rule: .down)
        else { return .zero }
        var most = lots.multiplied(by: lotSize)
        // Fees take a little more: step down a lot at a time (a few steps at most) until the total fits.
        for _ in 0..<5 where most.isPositive {
            let value = account.currency.round(price.multiplied(by: most), .halfUp)
            let fees = account.fees.total(side: .buy, filledQty: most, filledValue: value, currency: account.currency)
            if value + fees <= buyingPower { return most }
            most = most - lotSize
        }
        return most.isPositive ? most : .zero
    }

    /// Chart bars: `timeframe` (1Min … 1Month) over [`from`, `to`) (RFC 3339 or YYYY-MM-DD); defaults to today's 5Min.
    @Sendable func bars(_ request: Request, context: AppContext) async throws -> Response {
        let symbol = try context.pathSymbol()
        guard let entry = market.directory.entry(symbol) else { throw APIError.notFound("unknown symbol \(symbol)") }
        let zone = entry.instrument.calendar.zone
        let tfText = request.query("timeframe") ?? "5Min"
        guard let timeframe = BarTimeframe(tfText) else { throw APIError.unprocessable("invalid timeframe \(tfText)") }
        let now = market.clock.now()
        let to = min(try request.timeQuery("to", zone: zone) ?? now, now)
        let session = try? await market.feed.quote(entry.symbol)
        // Without `from`: the trading day's bars. A currency pair's day starts at 17:00 New York the evening before,
        // so from then to midnight its trading date is tomorrow's: the chart starts at today's midnight instead.
        let dayStart = Timestamp(session?.tradingDate ?? zone.localTime(of: now).date, in: zone)
        let from =
            try request.timeQuery("from", zone: zone)
            ?? (dayStart < to ? dayStart : Timestamp(zone.localTime(of: to).date, in: zone))
        guard from < to, to.nanoseconds - from.nanoseconds <= Int64(3700) * Duration64.day else {
            throw APIError.unprocessable("from must be before to, within ten years")
        }
        let list: [PriceBar]
        do { list = try await market.feed.bars(entry.symbol, timeframe: timeframe, from: from, to: to) } catch {
            throw APIError(feed: error)
        }
        return JSONValue.object([
            "symbol": .string(entry.symbol), "timeframe": .string(timeframe.description),
            "bars": .array(
                list.map { b in
                    .object([
                        "t": .string(b.time.description), "o": .decimal(b.open), "h": .decimal(b.high),
                        "l": .decimal(b.low),
                        "c": .decimal(b.close), "v": .decimal(b.volume),
                    ])
                }),
        ]).response()
    }

    /// Open, closed or lunch break, in the exchange's time zone, with the next open and close.
    @Sendable func status(_ request: Request, context: AppContext) async throws -> Response {
        guard let market = Market(rawValue: request.query("market") ?? "us") else {
            throw APIError.unprocessable("market must be us or cn")
        }
        let calendar = market.calendar
        let now = self.market.clock.now()
        let alwaysOpen = self.market.clock.sessions == .alwaysOpen
        let phase = alwaysOpen ? MarketPhase.continuous : calendar.phase(at: now)
        let session = calendar.currentOrNextSession(at: now)
        return JSONValue.object([
            "market": .string(market.rawValue), "phase": .string(phase.rawValue),
            "is_open": .bool(phase.isRegularTrading),
            "time_zone": .string(calendar.zone.identifier),
            "local_time": .string(now.rfc3339(in: calendar.zone, fractionalDigits: 0)),
            "session_date": .string(session.date.description),
            "open": .string(session.open.rfc3339(in: calendar.zone, fractionalDigits: 0)),
            "close": .string(session.close.rfc3339(in: calendar.zone, fractionalDigits: 0)),
            "always_open": .bool(alwaysOpen),
        ]).response()
    }
}

extension NativeEncoding {
    /// A ledger entry as the app's transaction history shows it: kind, signed amount, date, details.
    static func transaction(_ e: LedgerEntry) -> JSONValue {
        var o: [String: JSONValue] = [
            "sequence": .int(Int(e.sequence)), "time": .string(e.time.description),
            "amount": .decimal(e.cashChange), "kind": .string(e.kind.name),
        ]
        switch e.kind {
        case .deposit(let method, let note), .withdrawal(let method, let note):
            o["method"] = .string(method.rawValue)
            o["note"] = .text(note)
        case .transfer(let t):
            o["transfer_id"] = .string(t.transferID.description)
            o["direction"] = .string(t.direction.rawValue)
            o["counterparty_account"] = .string(t.counterparty.description)
            o["counterparty_amount"] = .decimal(t.counterpartyAmount)
            o["counterparty_currency"] = .string(t.counterpartyCurrency.rawValue)
            o["rate"] = .decimal(t.rate)
        case .fill(let f):
            o["kind"] = .string(f.side == .buy ? "buy" : "sell")
            o["symbol"] = .string(f.symbol)
            o["qty"] = .decimal(f.qty)
            o["price"] = .decimal(f.price)
            o["order_id"] = .string(f.orderID.description)
        case .fee(let kind, let order, let symbol):
            o["fee"] = .string(kind.rawValue)
            o["symbol"] = .string(symbol)
            o["order_id"] = .string(order.description)
        case .cryptoFee(let fee):
            o["symbol"] = .string(fee.symbol)
            o["order_id"] = .string(fee.orderID.description)
            o["side"] = .string(fee.side.rawValue)
            o["liquidity"] = .string(fee.role.rawValue)
            o["rate"] = .decimal(fee.rate)
            o["qty"] = .decimal(fee.qty)
            o["price"] = .decimal(fee.price)
            o["value"] = .decimal(fee.value)
        case .reset(let starting):
            o["starting_cash"] = .decimal(starting)
        case .interest(let rate, let balance):
            o["rate"] = .decimal(rate)
            o["balance"] = .decimal(balance)
        case .marginCall(let deficit, let event):
            o["deficit"] = .decimal(deficit)
            o["event"] = .string(event.rawValue)
        case .corporateAction(let b):
            o["symbol"] = .string(b.symbol)
            o["action"] = .string(b.kind.rawValue)
            o["qty_before"] = .decimal(b.qtyBefore)
            o["qty_after"] = .decimal(b.qtyAfter)
            if b.kind == .cashDividend { o["per_share"] = .decimal(b.cashPerShare) }
            if b.fractionPaid.isPositive { o["cash_in_lieu_qty"] = .decimal(b.fractionPaid) }
        case .borrowFee(let symbol, let qty, let rate, let value):
            o["symbol"] = .string(symbol)
            o["qty"] = .decimal(qty)
            o["rate"] = .decimal(rate)
            o["value"] = .decimal(value)
        case .optionEvent(let event):
            o["symbol"] = .string(event.symbol)
            o["qty"] = .decimal(event.qty)
            o["settlement_price"] = event.settlementPrice.map(JSONValue.decimal) ?? .null
            o["realized_pl"] = .decimal(event.realizedPnL)
        case .optionDelivery(let delivery):
            o["symbol"] = .string(delivery.symbol)
            o["option_symbol"] = .string(delivery.optionSymbol)
            o["side"] = .string(delivery.side.rawValue)
            o["qty"] = .decimal(delivery.qty)
            o["price"] = .decimal(delivery.price)
            o["realized_pl"] = .decimal(delivery.realizedPnL)
        }
        return .object(o)
    }
}
