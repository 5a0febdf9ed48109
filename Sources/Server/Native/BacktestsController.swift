import Backtest
import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Backtests as jobs (`Brokerage.backtests`): start one, follow its progress, read its report.
///
/// `POST /api/v1/backtests` body (all but `symbols` optional):
/// ```
/// {"symbols": ["AAPL", "MSFT"], "from": "2021-01-01", "to": "2025-12-31", "strategy": "sma-cross",
///  "params": {"fast": 10, "slow": 30}, "qty": "10", "cash": "100000", "fill": "next-open", "commission": "real",
///  "timeframe": "1Day"}
/// ```
/// `timeframe` is 1Day (the default) or intraday (1Min … 59Min, 1Hour …) over at most a year. `"source": "real"` tests
/// on the bundled real history instead of the market data: daily, and 5Min for 000338 (2007–2020, any span).
/// `strategy` is buy-and-hold, sma-cross or queue-rules: with `rules` (queue rule bodies, as the queue routes take
/// them) or `account_id` (replay that account's queued rules; `symbols` then defaults to theirs).
struct BacktestsController {
    let clock: MarketClock
    let accountService: any AccountService
    let backtestService: any BacktestService
    let languages: LanguagePreferences

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("backtests", use: list)
        group.post("backtests", use: start)
        group.get("backtests/{id}", use: show)
        group.get("backtests/{id}/report.html", use: report)
    }

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        return JSONValue.array(
            await backtestService.backtests.jobs(user: user).map { Self.encode($0, withResult: false) }
        ).response()
    }

    @Sendable func show(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        guard let job = await backtestService.backtests.job(try context.parameters.require("id"), user: user) else {
            throw APIError.notFound("backtest not found")
        }
        return Self.encode(job, withResult: true, language: languages.language(of: user)).response()
    }

    /// The finished report as the CLI's `--report html` page: one self-contained file with its charts.
    @Sendable func report(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        guard let job = await backtestService.backtests.job(try context.parameters.require("id"), user: user) else {
            throw APIError.notFound("backtest not found")
        }
        guard let result = job.result else {
            throw APIError(
                .conflict, code: 40900000,
                job.status == .failed ? "the backtest failed: \(job.error ?? "")" : "the backtest is still running")
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentDisposition] = "inline; filename=\"backtest-\(job.id).html\""
        // In the reader's language, warnings too (the report a Chinese learner downloads is Chinese).
        let language = languages.language(of: user)
        let page = result.html(
            language == .zhHans ? .simplifiedChinese : .english, warnings: result.warnings(in: language))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    @Sendable func start(_ request: Request, context: AppContext) async throws -> Response {
        let user = try await accountService.userOrKeyOwner(context)
        var request = request
        let body = try await request.jsonBody(context: context)
        let (parsed, account) = try Self.parse(body, today: clock.now())
        let job = try await backtestService.startBacktest(parsed, user: user, rulesOf: account)
        return Self.encode(job, withResult: false).response(status: .accepted)
    }

    static let fields: Set<String> = [
        "symbols", "from", "to", "strategy", "params", "qty", "cash", "fill", "commission", "rules", "account_id",
        "source", "timeframe",
    ]

    static func parse(_ body: JSONValue, today now: Timestamp) throws -> (BacktestJobs.Request, AccountID?) {
        guard case .object(let o) = body else { throw APIError.unprocessable("expected a JSON object") }
        if let unknown = o.keys.sorted().first(where: { !fields.contains($0) }) {
            throw APIError.unprocessable("unknown field \(unknown)")
        }
        var symbols: [String] = []
        switch o["symbols"] {
        case .string(let text)?:
            symbols = text.split(separator: ",").map { $0.uppercased().filter { !$0.isWhitespace } }
        case .array(let items)?:
            symbols = try items.map {
                guard let s = $0.string, !s.isEmpty else { throw APIError.unprocessable("symbols must be strings") }
                return s.uppercased()
            }
        case nil, .null?: break
        default: throw APIError.unprocessable("symbols must be a list of symbols")
        }
        func date(_ field: String) throws -> CivilDate? {
            guard let value = o[field], value != .null else { return nil }
            guard let text = value.string, let d = CivilDate(text) else {
                throw APIError.unprocessable("\(field) must be a date YYYY-MM-DD")
            }
            return d
        }
        let yesterday = TradingCalendar.xnys.zone.localTime(of: now).date.adding(days: -1)
        let to = try date("to") ?? yesterday
        let from = try date("from") ?? to.adding(days: -365)
        var parameters: [String: String] = [:]
        if let p = o["params"], p != .null {
            guard case .object(let items) = p else { throw APIError.unprocessable("params must be an object") }
            for (key, value) in items {
                guard let text = value.string ?? value.int.map(String.init) else {
                    throw APIError.unprocessable("params.\(key) must be a number or a string")
                }
                parameters[key] = text
            }
        }
        func positive(_ field: String, _ fallback: FixedDecimal) throws -> FixedDecimal {
            guard let value = o[field], value != .null else { return fallback }
            guard let d = value.decimal, d.isPositive else {
                throw APIError.unprocessable("\(field) must be a positive number")
            }
            return d
        }
        let fill =
            try o["fill"].map { value -> FillTiming in
                guard let f = value.string.flatMap(FillTiming.init(rawValue:)) else {
                    throw APIError.unprocessable("fill must be next-open or close")
                }
                return f
            } ?? .nextOpen
        let fees: FeeSchedule?
        do { fees = try BacktestSettings.fees(commission: o["commission"]?.string ?? "real") } catch {
            throw APIError.unprocessable(error.description)
        }
        var rules: [QueueRuleStrategy.Rule] = []
        if let r = o["rules"], r != .null {
            do { rules = try QueueRuleStrategy.rules(r) } catch { throw APIError.unprocessable(error.description) }
        }
        let account = try o["account_id"].flatMap { value -> AccountID? in
            guard value != .null else { return nil }
            guard let id = value.string.flatMap(AccountID.init) else { throw APIError.notFound("account not found") }
            return id
        }
        let strategy = o["strategy"]?.string ?? (rules.isEmpty && account == nil ? "sma-cross" : "queue-rules")
        if symbols.isEmpty, account == nil { throw APIError.unprocessable("symbols is required") }
        let source = o["source"]?.string ?? "feed"
        guard source == "feed" || source == "real" else {
            throw APIError.unprocessable("source must be feed (the market data) or real (the bundled real history)")
        }
        var timeframe = BarTimeframe.day
        if let value = o["timeframe"], value != .null {
            guard let text = value.string, let parsed = BarTimeframe(text), parsed == .day || parsed.isIntraday else {
                throw APIError.unprocessable("timeframe must be 1Day or intraday: 1Min to 59Min, 1Hour to 23Hour")
            }
            timeframe = parsed
        }
        if timeframe.isIntraday, source == "real" {
            // The bundled real intraday history: 5-minute bars of a few symbols, over all their years.
            let fiveMinute = BundledHistory.fiveMinuteSymbols.sorted().joined(separator: ", ")
            guard timeframe == .minutes(5),
                symbols.allSatisfy({ BundledHistory.fiveMinuteSymbols.contains($0.uppercased()) })
            else {
                throw APIError.unprocessable(
                    "the bundled real history is daily, and 5-minute (timeframe 5Min) for \(fiveMinute) only")
            }
        } else if timeframe.isIntraday {
            guard to.daysSinceEpoch - from.daysSinceEpoch <= 366 else {
                throw APIError.unprocessable("an intraday backtest covers at most a year (from … to)")
            }
        }
        var request = BacktestJobs.Request(
            symbols: symbols, from: from, to: to, strategy: strategy, parameters: parameters,
            qty: try positive("qty", .one), cash: try positive("cash", 100_000), fill: fill, fees: fees, rules: rules)
        request.realHistory = source == "real"
        request.timeframe = timeframe
        return (request, account)
    }

    /// A job as the API shows it; the report's warnings in the user's `language`.
    static func encode(_ job: BacktestJobs.Job, withResult: Bool, language: Language = .en) -> JSONValue {
        let r = job.request
        var o: [String: JSONValue] = [
            "id": .string(job.id), "status": .string(job.status.rawValue),
            "progress": .number(String(Int(job.done * 100))), "created_at": .string(job.createdAt.description),
            "finished_at": NativeEncoding.time(job.finishedAt), "error": .text(job.error),
            "request": .object([
                "symbols": .array(r.symbols.map(JSONValue.string)), "from": .string(r.from.description),
                "to": .string(r.to.description), "strategy": .string(r.strategy),
                "params": .object(r.parameters.mapValues(JSONValue.string)), "qty": .decimal(r.qty),
                "cash": .decimal(r.cash), "fill": .string(r.fill.rawValue), "rules": .int(r.rules.count),
                "source": .string(r.realHistory ? "real" : "feed"), "timeframe": .string(r.timeframe.description),
            ]),
        ]
        if withResult, let result = job.result, case .object(var report) = result.json {
            report["warnings"] = .array(result.warnings(in: language).map(JSONValue.string))
            o["result"] = .object(report)
        }
        return .object(o)
    }
}
