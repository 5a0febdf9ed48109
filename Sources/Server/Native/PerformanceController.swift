import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// `GET /api/v1/accounts/{id}/performance`: the equity chart and every performance figure with its definition
/// (`Brokerage.performance`, `PerformanceMetrics`).
struct PerformanceController {
    let accountService: any AccountService
    let languages: LanguagePreferences

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("accounts/{id}/performance", use: performance)
    }

    @Sendable func performance(_ request: Request, context: AppContext) async throws -> Response {
        let record = try await accountService.account(ownedBy: context)
        let (period, start, end) = try Self.span(request)
        let report = try await accountService.performance(record.id, period: period, start: start, end: end)
        let catalogue = Catalogue(languages.language(of: record.userID))
        return Self.encode(report, zone: record.market.calendar.zone, catalogue: catalogue).response()
    }

    /// `period` (1D, 1W, 1M, 3M, 6M, YTD, 1Y, ALL; 1M by default) or `start`/`end` dates (YYYY-MM-DD).
    static func span(_ request: Request) throws -> (PerformancePeriod?, CivilDate?, CivilDate?) {
        func date(_ name: String) throws -> CivilDate? { try request.dateQuery(name) }
        let start = try date("start")
        let end = try date("end")
        if let text = request.query("period") {
            guard start == nil else { throw APIError.unprocessable("give period or start/end, not both") }
            guard let period = PerformancePeriod(rawValue: text.uppercased()) else {
                let names = PerformancePeriod.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIError.unprocessable("invalid period \(text); expected one of \(names)")
            }
            return (period, nil, end)
        }
        return (start == nil ? .month : nil, start, end)
    }

    static func encode(_ report: PerformanceReport, zone: ExchangeTimeZone, catalogue: Catalogue) -> JSONValue {
        let f = report.figures
        func optional(_ value: FixedDecimal?) -> JSONValue { value.map { .decimal($0) } ?? .null }
        var out: [String: JSONValue] = [
            "account_id": .string(report.accountID.description), "currency": .string(report.currency.rawValue),
            "period": report.period.map { .string($0.rawValue) } ?? .null,
            "start": .string(f.start.description), "end": .string(f.end.description),
            "start_value": .decimal(f.startValue), "end_value": .decimal(f.endValue), "net_flows": .decimal(f.netFlows),
            "twr": optional(f.twr), "mwr": optional(f.mwr), "mwr_annualized": optional(f.mwrAnnualized),
            "total_return": .decimal(f.totalReturn), "price_return": .decimal(f.priceReturn),
            "realized_pnl": .decimal(report.realizedPnL), "unrealized_pnl": .decimal(report.unrealizedPnL),
            "dividends": .decimal(f.dividends), "fees": .decimal(f.fees),
            "volatility": optional(f.volatility), "sharpe": optional(f.sharpe), "sortino": optional(f.sortino),
            "max_drawdown": optional(f.maxDrawdown?.depth),
            "max_drawdown_start": f.maxDrawdown.map { .string($0.peak.description) } ?? .null,
            "max_drawdown_end": f.maxDrawdown.map { .string($0.trough.description) } ?? .null,
            "max_drawdown_recovery": f.maxDrawdown?.recovery.map { .string($0.description) } ?? .null,
            "trading_days": .int(f.dailyReturns.count),
        ]
        out["equity"] = .array(
            report.series.map { point in
                .object([
                    "t": .string(point.time.description), "value": .decimal(point.value), "flow": .decimal(point.flow),
                ])
            })
        out["drawdown"] = .array(
            zip(f.dates, f.drawdowns).map { date, depth in
                .object(["date": .string(date.description), "value": .decimal(depth)])
            })
        out["monthly"] = .array(
            f.monthly.map { month in
                let name = "\(month.year)-\(month.month < 10 ? "0" : "")\(month.month)"
                return .object(["month": .string(name), "twr": .decimal(month.twr)])
            })
        if let benchmark = report.benchmark {
            out["benchmark"] = .object([
                "symbol": .string(benchmark.index.rawValue),
                "name": .string(catalogue("index.\(benchmark.index.rawValue)")),
                "return": optional(benchmark.periodReturn),
                "series": .array(
                    benchmark.series.map { .object(["t": .string($0.time.description), "value": .decimal($0.value)]) }),
            ])
        } else {
            out["benchmark"] = .null
        }
        out["holdings"] = .array(report.holdings.map(holding))
        out["definitions"] = .object(
            Dictionary(
                uniqueKeysWithValues: PerformanceMetrics.definitions.keys.map {
                    ($0, .string(catalogue("performance.\($0)")))
                }))
        return .object(out)
    }

    static func holding(_ h: HoldingPerformance) -> JSONValue {
        let p = h.summary
        return .object([
            "symbol": .string(p.position.symbol), "name": .string(p.instrument.name), "qty": .decimal(p.position.qty),
            "avg_cost": .decimal(p.position.averageEntryPrice), "price": .decimal(p.current),
            "market_value": .decimal(p.valuation.marketValue), "unrealized_pnl": .decimal(p.valuation.unrealizedPnL),
            "unrealized_pnl_pct": .decimal(p.valuation.unrealizedPnLPercent), "realized_pnl": .decimal(h.realizedPnL),
            "dividends": .decimal(h.dividends), "share": .decimal(h.share),
            "day_change": .decimal(p.dayProfit ?? p.valuation.dayChange),
        ])
    }
}
