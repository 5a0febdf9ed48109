import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Closing positions, account configurations and portfolio history.
struct PortfolioController {
    let clock: MarketClock
    let accountService: any AccountService
    let orderService: any OrderService
    let configurations: AccountConfigurations

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.delete("positions", use: closeAll)
        group.delete("positions/{symbol}", use: close)
        group.delete("positions/{symbol}/{quote}", use: close)
        group.post("positions/{symbol}/exercise", use: exercise)
        group.post("positions/{symbol}/do-not-exercise", use: doNotExercise)
        group.get("account/configurations", use: configurations)
        group.patch("account/configurations", use: updateConfigurations)
        group.get("account/portfolio/history", use: history)
    }

    @Sendable func close(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        let key = try context.pathSymbol()
        // An option position is closed by its symbol or its contract's id (alpaca-py's `close_position`).
        let symbol = Identifier(key.lowercased()).flatMap(OptionContractID.contract)?.occSymbol ?? key
        let qty = try request.decimalQuery("qty")
        let percentage = try request.decimalQuery("percentage")
        guard qty == nil || percentage == nil else { throw APIError.unprocessable("give qty or percentage, not both") }
        let order = try await orderService.closePosition(symbol, account: account, qty: qty, percentage: percentage)
        return AlpacaEncoding.order(order).response()
    }

    /// Exercises every contract of a long option position now; 200 with an empty body, as Alpaca answers.
    @Sendable func exercise(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        let key = try context.parameters.require("symbol")
        let symbol = Identifier(key).flatMap(OptionContractID.contract)?.occSymbol ?? key.uppercased()
        guard OptionContract(occSymbol: symbol) != nil else { throw APIError.unprocessable("invalid symbol") }
        try await orderService.exercise(symbol, account: account)
        return Response(status: .ok)
    }

    /// Asks that a long option position not be exercised at expiry (it then expires worthless, even in the money);
    /// 200 with an empty body. alpaca-py has no method for it: `client.post("/positions/{symbol}/do-not-exercise")`.
    @Sendable func doNotExercise(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        let key = try context.parameters.require("symbol")
        let symbol = Identifier(key).flatMap(OptionContractID.contract)?.occSymbol ?? key.uppercased()
        guard OptionContract(occSymbol: symbol) != nil else { throw APIError.unprocessable("invalid symbol") }
        try await orderService.doNotExercise(symbol, account: account)
        return Response(status: .ok)
    }

    @Sendable func closeAll(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        if try request.boolQuery("cancel_orders") == true {
            _ = try await orderService.cancelAll(account: account)
        }
        var results: [JSONValue] = []
        for symbol in try await orderService.heldSymbols(account) {
            do throws(BrokerageError) {
                let order = try await orderService.closePosition(symbol, account: account, qty: nil, percentage: nil)
                results.append(
                    .object(["symbol": .string(symbol), "status": .int(200), "body": AlpacaEncoding.order(order)]))
            } catch {
                let status: Int = error.status.code
                let body: JSONValue = .object([
                    "code": .int(error.alpacaCode), "message": .string(error.message),
                    "symbol": .string(symbol),
                ])
                results.append(.object(["symbol": .string(symbol), "status": .int(status), "body": body]))
            }
        }
        return JSONValue.array(results).response(status: HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status"))
    }

    /// Alpaca's settings, and papertrade's `pdt_protection` (whether `pdt_check` stops orders at all: the pattern
    /// day trader rule is off unless an account turns it on).
    static let defaultConfiguration: [String: JSONValue] = [
        "dtbp_check": .string("entry"), "trade_confirm_email": .string("all"), "suspend_trade": .bool(false),
        "no_shorting": .bool(true), "fractional_trading": .bool(true), "max_margin_multiplier": .string("1"),
        "pdt_check": .string("entry"), "max_options_trading_level": .int(3), "ptp_no_exception_entry": .bool(false),
        "pdt_protection": .bool(false),
    ]

    /// The values Alpaca defines for its enumerated settings.
    static let allowedValues: [String: Set<String>] = [
        "dtbp_check": ["both", "entry", "exit"], "pdt_check": ["both", "entry", "exit"],
        "trade_confirm_email": ["all", "none"], "max_margin_multiplier": ["1", "2", "4"],
        "max_options_trading_level": ["0", "1", "2", "3"],
    ]

    /// The stored configuration, with the settings the brokerage enforces read from the account itself (its margin
    /// terms): max_margin_multiplier, no_shorting (always true on cash accounts), pdt_check and pdt_protection.
    func currentConfiguration(_ account: AccountID) async throws -> [String: JSONValue] {
        var config = Self.defaultConfiguration
        if let stored = try await configurations.saved(account),
            let object = (try? JSONValue(parsing: stored))?.object
        {
            config.merge(object) { $1 }
        }
        do {
            let terms = try await accountService.account(account).terms
            config["max_margin_multiplier"] = .string(String(terms.maxMultiplier))
            config["no_shorting"] = .bool(terms.type == .cash || terms.noShorting)
            config["pdt_check"] = .string(terms.dayTradeCheck.rawValue)
            config["pdt_protection"] = .bool(terms.dayTradeProtection)
            config["max_options_trading_level"] = .int(terms.maxOptionsLevel.rawValue)
        }
        return config
    }

    @Sendable func configurations(_ request: Request, context: AppContext) async throws -> Response {
        JSONValue.object(try await currentConfiguration(try context.account())).response()
    }

    /// alpaca-py PATCHes the whole model, nulls included: nulls keep the current value.
    @Sendable func updateConfigurations(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        var request = request
        guard let changes = try await request.jsonBody(context: context).object else {
            throw APIError.unprocessable("request body must be a JSON object")
        }
        var config = try await currentConfiguration(account)
        for (key, value) in changes where !value.isNull {
            guard let current = Self.defaultConfiguration[key] else {
                throw APIError.unprocessable("unknown configuration \(key)")
            }
            switch (current, value) {
            case (.bool, .bool), (.string, .string), (.number, .number): config[key] = value
            default: throw APIError.unprocessable("\(key) has the wrong type")
            }
            if let allowed = Self.allowedValues[key] {
                let text = value.string ?? value.int.map(String.init)
                guard let text, allowed.contains(text) else {
                    throw APIError.unprocessable(
                        "invalid \(key); expected one of \(allowed.sorted().joined(separator: ", "))")
                }
            }
        }
        do {
            let current = try await accountService.account(account).terms
            var terms = current
            if let text = changes["max_margin_multiplier"]?.string {
                guard let multiplier = Int(text), MarginTerms.multipliers.contains(multiplier) else {
                    throw APIError.unprocessable("max_margin_multiplier must be \"1\", \"2\" or \"4\"")
                }
                guard terms.type == .margin || multiplier == 1 else {
                    throw APIError.forbidden("this is a cash account: max_margin_multiplier stays \"1\"")
                }
                terms.maxMultiplier = multiplier
            }
            if let noShorting = changes["no_shorting"]?.bool, terms.type == .margin {
                terms.noShorting = noShorting
            }
            if let text = changes["pdt_check"]?.string {
                guard let check = DayTradeCheck(rawValue: text) else {
                    throw APIError.unprocessable("pdt_check must be \"entry\", \"exit\" or \"both\"")
                }
                terms.dayTradeCheck = check
            }
            if let on = changes["pdt_protection"]?.bool { terms.dayTradeProtection = on }
            if let level = changes["max_options_trading_level"]?.int.flatMap(OptionsLevel.init(rawValue:)) {
                terms.maxOptionsLevel = level
            }
            if terms != current { try await accountService.setMarginTerms(terms, for: account) }
        }
        try await configurations.save(account, json: JSONValue.object(config).serialized)
        return JSONValue.object(config).response()
    }

    /// Alpaca's portfolio history, read from the same history as the performance screen (`Brokerage.performance`):
    /// `period` (1D, 1W, 1M, 3M, 6M, 1A, all, or n days/weeks/months/years such as 2W), `timeframe` (1Min, 5Min,
    /// 15Min, 1H for periods up to a week; 1D), `start`/`end` or `date_end`, `pnl_reset` (per_day for intraday
    /// charts by default, or no_reset). Profit and loss exclude deposits and withdrawals, which `cashflow` lists.
    @Sendable func history(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        _ = try request.boolQuery("extended_hours") // accepted and checked; sessions are what they are
        let zone = (await accountService.accountRecord(account))?.market.calendar.zone ?? .newYork
        let periodText = request.query("period") ?? (request.query("start") == nil ? "1M" : nil)
        let end = try request.dateQuery("end", timeAllowed: true) ?? request.dateQuery("date_end", timeAllowed: true)
        var start = try request.dateQuery("start", timeAllowed: true)
        var period: PerformancePeriod?
        if let text = periodText?.uppercased() {
            switch text {
            case "1D": period = .day
            case "1W", "7D": period = .week
            case "1M": period = .month
            case "3M": period = .threeMonths
            case "6M": period = .sixMonths
            case "1A", "12M", "1Y": period = .year
            case "ALL": period = .all
            default:
                guard let unit = text.last, let n = Int(text.dropLast()), n > 0, n <= 100,
                    let days = ["D": 1, "W": 7, "M": 30, "A": 365][String(unit)]
                else {
                    throw APIError.unprocessable("invalid period \(text); expected e.g. 1D, 1W, 1M, 3M, 6M, 1A or all")
                }
                start = (end ?? zone.localTime(of: clock.now()).date).adding(days: -n * days + 1)
            }
        }
        let tfText = request.query("timeframe") ?? (period == .day || period == .week ? "15Min" : "1D")
        let step: Int64?
        switch tfText {
        case "1Min": step = Duration64.minute
        case "5Min": step = 5 * Duration64.minute
        case "15Min": step = 15 * Duration64.minute
        case "1H": step = Duration64.hour
        case "1D": step = nil
        default: throw APIError.unprocessable("invalid timeframe \(tfText); expected 1Min, 5Min, 15Min, 1H or 1D")
        }
        if step != nil, !(period == .day || period == .week) {
            throw APIError.unprocessable("intraday timeframes need a period of at most a week (1D or 1W)")
        }
        let pnlReset = request.query("pnl_reset") ?? (step == nil ? "no_reset" : "per_day")
        guard pnlReset == "per_day" || pnlReset == "no_reset" else {
            throw APIError.unprocessable("invalid pnl_reset \(pnlReset); expected per_day or no_reset")
        }
        let report = try await accountService.performance(
            account, period: start == nil ? period : nil, start: start, end: end,
            resolution: step.map { .every($0) } ?? .daily)
        return Self.alpacaHistory(
            report, timeframe: tfText, resetDaily: pnlReset == "per_day" && step != nil, zone: zone
        )
        .response()
    }

    /// Alpaca's arrays: P&L against the base value (the first point, or each day's first point with per_day),
    /// net of the flows since; the percentage is the time-weighted return since the base.
    static func alpacaHistory(
        _ report: PerformanceReport, timeframe: String, resetDaily: Bool, zone: ExchangeTimeZone
    ) -> JSONValue {
        var timestamps: [JSONValue] = [], equity: [JSONValue] = [], pl: [JSONValue] = [], plPct: [JSONValue] = []
        var deposits: [JSONValue] = [], withdrawals: [JSONValue] = []
        let first = report.series.first
        var base = first?.value ?? .zero
        var baseDay = first.map { zone.localTime(of: $0.time).date }
        var flows = FixedDecimal.zero
        var wealth = FixedDecimal.one
        var previous = base
        for point in report.series {
            let day = zone.localTime(of: point.time).date
            if resetDaily, day != baseDay {
                base = previous
                baseDay = day
                flows = .zero
                wealth = .one
            }
            let before = previous + point.flow
            if point.time != first?.time, before.isPositive, let r = (point.value - before).divided(by: before) {
                wealth = wealth.multiplied(by: .one + r)
            }
            flows += point.flow
            previous = point.value
            timestamps.append(.int(Int(point.time.seconds)))
            equity.append(.decimal(point.value))
            pl.append(.decimal(point.value - base - flows))
            plPct.append(.decimal((wealth - .one).rounded(places: 6, rule: .halfEven)))
            deposits.append(.decimal(point.flow.isPositive ? point.flow : .zero))
            withdrawals.append(.decimal(point.flow.isNegative ? -point.flow : .zero))
        }
        var out: [String: JSONValue] = [
            "timestamp": .array(timestamps), "equity": .array(equity), "profit_loss": .array(pl),
            "profit_loss_pct": .array(plPct), "base_value": .decimal(first?.value ?? report.figures.endValue),
            "base_value_asof": .string(
                (first.map { zone.localTime(of: $0.time).date } ?? report.figures.start).description),
            "timeframe": .string(timeframe), "cashflow": .object([:]),
        ]
        if report.series.contains(where: { !$0.flow.isZero }) {
            out["cashflow"] = .object(["CSD": .array(deposits), "CSW": .array(withdrawals)])
        }
        return .object(out)
    }
}
