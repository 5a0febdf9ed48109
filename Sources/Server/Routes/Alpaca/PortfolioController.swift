import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Closing positions, account configurations and portfolio history.
struct PortfolioController {
    let services: Papertrade
    var brokerage: Brokerage { services.brokerage }

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.delete("positions", use: closeAll)
        group.delete("positions/{symbol}", use: close)
        group.get("account/configurations", use: configurations)
        group.patch("account/configurations", use: updateConfigurations)
        group.get("account/portfolio/history", use: history)
    }

    static func decimalQuery(_ request: Request, _ name: String) throws -> FixedDecimal? {
        guard let text = request.query(name) else { return nil }
        guard let value = FixedDecimal(text) else { throw APIError.unprocessable("invalid \(name) \(text)") }
        return value
    }

    @Sendable func close(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        let symbol = try context.parameters.require("symbol").uppercased()
        let qty = try Self.decimalQuery(request, "qty")
        let percentage = try Self.decimalQuery(request, "percentage")
        guard qty == nil || percentage == nil else { throw APIError.unprocessable("give qty or percentage, not both") }
        let order = try await brokerage.closePosition(symbol, account: account, qty: qty, percentage: percentage)
        return AlpacaEncoding.order(order).response()
    }

    @Sendable func closeAll(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        if AlpacaRequests.bool(request.query("cancel_orders")) == true {
            _ = try await brokerage.cancelAll(account: account)
        }
        var results: [JSONValue] = []
        for symbol in await brokerage.heldSymbols(account) {
            do throws(BrokerageError) {
                let order = try await brokerage.closePosition(symbol, account: account, qty: nil, percentage: nil)
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

    static let defaultConfiguration: [String: JSONValue] = [
        "dtbp_check": .string("entry"), "trade_confirm_email": .string("all"), "suspend_trade": .bool(false),
        "no_shorting": .bool(true), "fractional_trading": .bool(true), "max_margin_multiplier": .string("1"),
        "pdt_check": .string("entry"), "max_options_trading_level": .int(0), "ptp_no_exception_entry": .bool(false),
    ]

    func currentConfiguration(_ account: AccountID) async throws -> [String: JSONValue] {
        var config = Self.defaultConfiguration
        if let stored = try await services.brokerage.configurations.saved(account),
            let object = (try? JSONValue(parsing: stored))?.object
        {
            config.merge(object) { $1 }
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
        }
        try await services.brokerage.configurations.save(account, json: JSONValue.object(config).serialized)
        return JSONValue.object(config).response()
    }

    /// Equity over a period (`Brokerage.equityHistory`), with profit and loss against its first point.
    @Sendable func history(_ request: Request, context: AppContext) async throws -> Response {
        let account = try context.account()
        let period = request.query("period") ?? "1M"
        let days: Int
        switch period.uppercased() {
        case "1D": days = 1
        case "1W": days = 7
        case "1M": days = 30
        case "3M": days = 91
        case "6M": days = 182
        case "1A", "12M": days = 365
        default: throw APIError.unprocessable("invalid period \(period); expected 1D, 1W, 1M, 3M, 6M or 1A")
        }
        let tfText = request.query("timeframe") ?? (days <= 1 ? "15Min" : "1D")
        guard let timeframe = BarTimeframe(tfText),
            ["1Min", "5Min", "15Min", "1Hour", "1Day"].contains(timeframe.description)
        else {
            throw APIError.unprocessable("invalid timeframe \(tfText); expected 1Min, 5Min, 15Min, 1H or 1D")
        }
        let now = services.clock.now()
        let points = try await brokerage.equityHistory(
            account, timeframe: timeframe, from: now.adding(seconds: -Int64(days) * 86_400), to: now)
        var timestamps: [JSONValue] = [], equity: [JSONValue] = [], pl: [JSONValue] = [], plPct: [JSONValue] = []
        let base = points.first?.equity
        for point in points {
            let b = base ?? point.equity
            timestamps.append(.int(Int(point.time.seconds)))
            equity.append(.number(point.equity))
            pl.append(.number(point.equity - b))
            plPct.append(
                b.isPositive ? .number((point.equity - b).divided(by: b, places: 6, rule: .halfEven)) : .null)
        }
        let baseValue: FixedDecimal
        if let base { baseValue = base } else { baseValue = try await brokerage.summary(account).equity }
        return JSONValue.object([
            "timestamp": .array(timestamps), "equity": .array(equity), "profit_loss": .array(pl),
            "profit_loss_pct": .array(plPct), "base_value": .number(baseValue),
            "timeframe": .string(timeframe.description), "cashflow": .object([:]),
        ]).response()
    }
}
