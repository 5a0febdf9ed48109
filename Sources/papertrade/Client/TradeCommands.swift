import ArgumentParser
import Foundation
import PapertradeKit

/// `papertrade quote AAPL 600519`: last price, the day's change, best bid and ask.
struct QuoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quote", abstract: "Show quotes: last price, change, bid and ask, volume.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Tickers or A-share codes.") var symbols: [String]

    func validate() throws {
        if symbols.isEmpty { throw ValidationError("give at least one symbol") }
    }

    func run() async throws {
        try await clientCommand {
            let client = try await options.client()
            var quotes: [Quote] = []
            for symbol in symbols { quotes.append(try await client.quote(symbol)) }
            if options.json { return try options.printJSON(quotes) }
            print(Self.table(quotes))
        }
    }

    static func table(_ quotes: [Quote]) -> String {
        Terminal.table(
            ["SYMBOL", "NAME", "LAST", "CHANGE", "%", "BID", "ASK", "VOLUME", "PHASE"],
            quotes.map { q in
                let tone = Terminal.tone(q.change)
                return [
                    q.symbol, String((q.name ?? "").prefix(24)), Terminal.amount(q.last),
                    Terminal.paint(Terminal.signed(q.change), tone, market: q.market),
                    Terminal.paint(Terminal.percent(q.changePercent), tone, market: q.market),
                    Terminal.amount(q.bids.first?.price), Terminal.amount(q.asks.first?.price),
                    // A halted stock says so, and why (T1 news pending, LUDP a volatility pause).
                    Terminal.amount(q.volume), q.halt.map { "halted (\($0.code))" } ?? q.phase,
                ]
            }, right: [2, 3, 4, 5, 6, 7])
    }
}

/// `papertrade buy|sell SYMBOL QTY [--limit P] [--stop P] [--trail P%] [--tif day|gtc]`.
struct OrderFlags: ParsableArguments {
    @Argument(help: "Ticker or A-share code.") var symbol: String
    @Argument(help: "Shares (or $AMOUNT for a market order by value, e.g. '$500').") var qty: String
    @Option(help: "Limit price.") var limit: String?
    @Option(help: "Stop price (with --limit: a stop-limit order).") var stop: String?
    @Option(help: "Trailing stop: a percentage (5%) or an amount of price (2.50) behind the best price.")
    var trail: String?
    @Option(help: "Time in force: day, gtc, ioc, fok, opg or cls (default: day; gtc for a crypto pair, BTC/USD).")
    var tif: String?
    @Flag(name: .customLong("extended-hours"), help: "Also fill before the open and after the close (limit day).")
    var extendedHours = false

    func request(_ side: OrderSide) throws -> OrderRequest {
        func decimal(_ text: String, _ what: String) throws -> Decimal {
            guard let value = ExactDecimal.parse(text), value > 0 else {
                throw ValidationError("\(what) must be a positive number (got \(text))")
            }
            return value
        }
        // A crypto pair trades around the clock: its orders are good until canceled (a day order is refused).
        let timeInForce = TimeInForce(rawValue: tif ?? (symbol.contains("/") ? "gtc" : "day"))
        var order = OrderRequest(symbol: symbol.uppercased(), side: side, timeInForce: timeInForce)
        if qty.hasPrefix("$") {
            order.notional = try decimal(String(qty.dropFirst()), "the amount")
        } else {
            order.qty = try decimal(qty, "the quantity")
        }
        order.limitPrice = try limit.map { try decimal($0, "--limit") }
        order.stopPrice = try stop.map { try decimal($0, "--stop") }
        if let trail {
            guard limit == nil, stop == nil else {
                throw ValidationError("--trail is a trailing stop: no --limit or --stop")
            }
            order.type = .trailingStop
            if trail.hasSuffix("%") {
                order.trailPercent = try decimal(String(trail.dropLast()), "--trail")
            } else {
                order.trailPrice = try decimal(trail, "--trail")
            }
        } else {
            switch (order.limitPrice, order.stopPrice) {
            case (nil, nil): order.type = .market
            case (_?, nil): order.type = .limit
            case (nil, _?): order.type = .stop
            case (_?, _?): order.type = .stopLimit
            }
        }
        if extendedHours { order.extendedHours = true }
        return order
    }
}

protocol TradeCommand: AsyncParsableCommand {
    var options: ClientOptions { get }
    var order: OrderFlags { get }
    static var side: OrderSide { get }
}

extension TradeCommand {
    func validate() throws { _ = try order.request(Self.side) }

    func run() async throws {
        try await clientCommand {
            let client = try await options.client()
            let account = try await options.accountID(client, symbol: order.symbol)
            let placed = try await client.placeOrder(try order.request(Self.side), account: account)
            if options.json { return try options.printJSON(placed) }
            print(OrdersCommand.summary(placed))
        }
    }
}

struct BuyCommand: TradeCommand {
    static let configuration = CommandConfiguration(
        commandName: "buy", abstract: "Buy shares: market by default, or limit, stop, stop-limit, trailing stop.",
        discussion: """
            Examples:
              papertrade buy AAPL 10                      market order for 10 shares
              papertrade buy AAPL '$500'                  market order for $500 of AAPL
              papertrade buy AAPL 10 --limit 180 --tif gtc
              papertrade buy 600519 100 --limit 1500      an A-share account (with a login) or key
            """)
    static let side = OrderSide.buy
    @OptionGroup var options: ClientOptions
    @OptionGroup var order: OrderFlags
}

struct SellCommand: TradeCommand {
    static let configuration = CommandConfiguration(
        commandName: "sell", abstract: "Sell (or sell short): market by default, or limit, stop, trailing stop.",
        discussion: """
            Examples:
              papertrade sell AAPL 10
              papertrade sell AAPL 10 --stop 170          a stop-loss
              papertrade sell AAPL 10 --trail 5%          a trailing stop 5% under the best price since
            """)
    static let side = OrderSide.sell
    @OptionGroup var options: ClientOptions
    @OptionGroup var order: OrderFlags
}

struct PositionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "positions", abstract: "Show the account's positions with their value and profit or loss.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await clientCommand {
            let client = try await options.client()
            let positions = try await client.positions(account: try await options.accountID(client))
            if options.json { return try options.printJSON(positions) }
            if positions.isEmpty { return print("No positions.") }
            print(
                Terminal.table(
                    ["SYMBOL", "QTY", "AVG COST", "PRICE", "VALUE", "P/L", "P/L %", "TODAY"],
                    positions.map { p in
                        let tone = Terminal.tone(p.unrealizedPL)
                        return [
                            p.symbol, Terminal.amount(p.qty), Terminal.averagePrice(p.avgEntryPrice),
                            Terminal.amount(p.currentPrice), Terminal.money(p.marketValue),
                            Terminal.paint(Terminal.signedMoney(p.unrealizedPL), tone, market: p.market),
                            Terminal.paint(Terminal.percent(fraction: p.unrealizedPLPercent), tone, market: p.market),
                            Terminal.paint(
                                Terminal.signedMoney(p.dayPL), Terminal.tone(p.dayPL),
                                market: p.market),
                        ]
                    }, right: [1, 2, 3, 4, 5, 6, 7]))
        }
    }
}

struct OrdersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "orders", abstract: "List the account's orders.")
    @OptionGroup var options: ClientOptions
    @Option(help: "open, closed or all.") var status = "open"
    @Option(help: "At most this many (newest first).") var limit = 50

    func validate() throws {
        guard ["open", "closed", "all"].contains(status) else {
            throw ValidationError("--status is open, closed or all")
        }
    }

    func run() async throws {
        try await clientCommand {
            let client = try await options.client()
            let orders = try await client.orders(
                status: status, limit: limit, account: try await options.accountID(client))
            if options.json { return try options.printJSON(orders) }
            if orders.isEmpty { return print(status == "open" ? "No open orders." : "No orders.") }
            print(
                Terminal.table(
                    ["ID", "CREATED", "SYMBOL", "SIDE", "QTY", "TYPE", "PRICE", "TIF", "STATUS", "FILLED"],
                    orders.map { o in
                        [
                            o.id, Terminal.time(o.createdAt), o.symbol, o.side.rawValue, Self.amount(o),
                            o.type.rawValue, Self.prices(o), o.timeInForce.rawValue, o.status.rawValue,
                            o.filledQty > 0
                                ? "\(Terminal.amount(o.filledQty)) @ \(Terminal.amount(o.filledAvgPrice))" : "",
                        ]
                    }, right: [4]))
        }
    }

    static func amount(_ o: Order) -> String {
        o.qty.map(Terminal.amount) ?? o.notional.map { "$" + Terminal.amount($0) } ?? "-"
    }

    /// The prices an order waits for: "180" (a limit), "stop 170", "stop 170 limit 168", "trail 5%".
    static func prices(_ o: Order) -> String {
        var parts: [String] = []
        if let stop = o.stopPrice { parts.append("stop \(Terminal.amount(stop))") }
        if let limit = o.limitPrice {
            parts.append(o.stopPrice == nil ? Terminal.amount(limit) : "limit \(Terminal.amount(limit))")
        }
        if let p = o.trailPercent { parts.append("trail \(Terminal.amount(p))%") }
        if let p = o.trailPrice { parts.append("trail \(Terminal.amount(p))") }
        return parts.joined(separator: " ")
    }

    /// One order in a sentence: "Order 01a…: buy 10 AAPL limit 180 (gtc): new".
    static func summary(_ o: Order) -> String {
        var text = "Order \(o.id): \(o.side.rawValue) \(amount(o)) \(o.symbol) \(o.type.rawValue)"
        if let limit = o.limitPrice, o.stopPrice == nil { text += " \(Terminal.amount(limit))" }
        if o.stopPrice != nil || o.trailPrice != nil || o.trailPercent != nil { text += " \(prices(o))" }
        text += " (\(o.timeInForce.rawValue)): \(o.status.rawValue)"
        if o.filledQty > 0 {
            text += ", filled \(Terminal.amount(o.filledQty)) @ \(Terminal.amount(o.filledAvgPrice))"
        }
        if let reason = o.rejectReason { text += " — \(reason)" }
        return text
    }
}

struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel an open order, or with --all every open order.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "The order's id (from papertrade orders).") var orderID: String?
    @Flag(help: "Cancel every open order of the account.") var all = false

    func validate() throws {
        if (orderID == nil) == !all { throw ValidationError("give an order id or --all") }
    }

    func run() async throws {
        try await clientCommand {
            let client = try await options.client()
            let account = try await options.accountID(client)
            let canceled =
                all
                ? try await client.cancelAllOrders(account: account)
                : [try await client.cancelOrder(orderID ?? "", account: account)]
            if options.json { return try options.printJSON(canceled) }
            if canceled.isEmpty { return print("No open orders.") }
            for order in canceled { print(OrdersCommand.summary(order)) }
        }
    }
}

struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account", abstract: "Show the account: cash, buying power, equity and today's change.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await clientCommand {
            let client = try await options.client()
            let a = try await client.account(try await options.accountID(client))
            if options.json { return try options.printJSON(a) }
            let change = a.equity - a.dayChange == 0 ? nil : a.dayChange / (a.equity - a.dayChange)
            print(
                Terminal.pairs(
                    [
                        ("Account", "\(a.name) (\(a.accountNumber)), \(a.type), \(a.currency)"),
                        ("Cash", Terminal.amount(a.cash)), ("Buying power", Terminal.amount(a.buyingPower)),
                        ("Market value", Terminal.amount(a.marketValue)), ("Equity", Terminal.amount(a.equity)),
                        (
                            "Today",
                            Terminal.paint(
                                "\(Terminal.signed(a.dayChange)) (\(Terminal.percent(fraction: change)))",
                                Terminal.tone(a.dayChange), market: a.market)
                        ),
                        ("Positions", String(a.positions?.count ?? 0)),
                    ]
                        + (a.balances ?? []).map { b in
                            (
                                b.currency,
                                "\(Terminal.amount(b.amount)) (≈ \(Terminal.amount(b.value)) \(a.currency) at \(b.rate))"
                            )
                        }))
        }
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Show price bars (open, high, low, close, volume).",
        discussion: "Dates are YYYY-MM-DD (the exchange's day) or RFC 3339 times. Daily bars default to 30 days.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Ticker or A-share code.") var symbol: String
    @Option(help: "1Min … 59Min, 1Hour, 1Day, 1Week or 1Month.") var timeframe = "1Day"
    @Option(help: "From this date or time.") var from: String?
    @Option(help: "Up to this date or time (default now).") var to: String?

    func run() async throws {
        try await clientCommand {
            let client = try await options.client()
            let daily = ["1Day", "1Week", "1Month"].contains(timeframe)
            let start = from ?? (daily ? ServerTime.text(Date().addingTimeInterval(-30 * 86_400)) : nil)
            let bars: Bars
            if let start {
                bars = try await client.bars(
                    symbol, timeframe: Timeframe(rawValue: timeframe), fromDate: start, toDate: to)
            } else {
                bars = try await client.bars(symbol, timeframe: Timeframe(rawValue: timeframe))
            }
            if options.json { return try options.printJSON(bars) }
            if bars.bars.isEmpty { return print("No bars for \(bars.symbol) in that span.") }
            print(
                Terminal.table(
                    ["TIME", "OPEN", "HIGH", "LOW", "CLOSE", "VOLUME"],
                    bars.bars.map { b in
                        [
                            daily ? String(ServerTime.text(b.time).prefix(10)) : Terminal.time(b.time),
                            Terminal.amount(b.open), Terminal.amount(b.high), Terminal.amount(b.low),
                            Terminal.amount(b.close), Terminal.amount(b.volume),
                        ]
                    }, right: [1, 2, 3, 4, 5]))
        }
    }
}

/// `papertrade watch AAPL MSFT`: a live quote table redrawn in place until Ctrl-C (in a pipe: one line per change;
/// with --json: one quote per line).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Watch live quotes (and your order fills) until Ctrl-C.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Tickers or A-share codes.") var symbols: [String]

    func validate() throws {
        if symbols.isEmpty { throw ValidationError("give at least one symbol") }
    }

    func run() async throws {
        try await clientCommand {
            let client = try await options.client()
            let wanted = symbols.map { $0.uppercased() }
            var latest: [String: Quote] = [:]
            for symbol in wanted { latest[symbol] = try await client.quote(symbol) }
            var drawn = 0
            func draw() {
                let table = QuoteCommand.table(wanted.compactMap { latest[$0] })
                if drawn > 0 { print("\u{1B}[\(drawn)A\u{1B}[J", terminator: "") }
                print(table)
                drawn = table.split(separator: "\n", omittingEmptySubsequences: false).count
                fflush(nil)
            }
            let live = Terminal.isInteractive && !options.json
            if live { draw() }
            for try await event in client.events(symbols: wanted) {
                switch event {
                case .quote(let q):
                    latest[q.symbol] = q
                    if options.json {
                        try printLine(q)
                    } else if live {
                        draw()
                    } else {
                        print(QuoteCommand.table([q]).split(separator: "\n").last.map(String.init) ?? "")
                        fflush(nil)
                    }
                case .order(let update) where options.json: try printLine(update)
                case .order(let update) where update.event == "fill" || update.event == "partial_fill":
                    if live { drawn = 0 }
                    print(OrdersCommand.summary(update.order))
                    if live { draw() }
                default: break
                }
            }
        }
    }

    func printLine(_ value: some Encodable) throws {
        print(String(decoding: try PapertradeJSON.encoder().encode(value), as: UTF8.self))
        fflush(nil)
    }
}
