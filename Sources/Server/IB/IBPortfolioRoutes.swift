import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Accounts and portfolio: every papertrade account of the user is an IB paper ("DEMO") account.
struct IBPortfolioRoutes {
    let gateway: IBGateway
    var accountService: any AccountService { gateway.accountService }
    var market: MarketView { gateway.market }

    func addRoutes(to api: RouterGroup<AppContext>) {
        api.get("portfolio/accounts", use: portfolioAccounts)
        api.get("portfolio/subaccounts", use: portfolioAccounts)
        api.get("iserver/accounts", use: iserverAccounts)
        api.post("iserver/account", use: switchAccount)
        api.get("portfolio/{acct}/meta", use: meta)
        api.get("portfolio/{acct}/summary", use: summary)
        api.get("portfolio/{acct}/ledger", use: ledger)
        api.get("portfolio/{acct}/allocation", use: allocation)
        api.get("portfolio/{acct}/positions", use: positions)
        api.get("portfolio/{acct}/positions/{page}", use: positions)
        api.get("portfolio2/{acct}/positions", use: positions)
        api.get("portfolio/{acct}/position/{conid}", use: position)
        api.post("portfolio/{acct}/positions/invalidate", use: invalidate)
        api.get("iserver/account/{acct}/summary", use: iserverSummary)
        api.get("iserver/account/pnl/partitioned", use: pnl)
        api.post("pa/performance", use: performance)
    }

    func account(_ context: AppContext) async throws -> (ib: String, record: AccountRecord) {
        let ib = try context.parameters.require("acct")
        let record = try await gateway.account(ib)
        return (IBAccountID.make(record.id), record)
    }

    @Sendable func portfolioAccounts(_ request: Request, context: AppContext) async throws -> Response {
        JSONValue.array(try await gateway.accounts().map { IBEncoding.account($0.ib, $0.record) }).response()
    }

    static func accountsList(_ list: [(ib: String, record: AccountRecord)], selected: String, session: String)
        -> JSONValue
    {
        var props: [String: JSONValue] = [:]
        var aliases: [String: JSONValue] = [:]
        for (ib, record) in list {
            props[ib] = .object([
                "hasChildAccounts": .bool(false), "supportsCashQty": .bool(true), "noFXConv": .bool(true),
                "isProp": .bool(false), "supportsFractions": .bool(record.market == .us),
                "allowCustomerTime": .bool(false),
            ])
            aliases[ib] = .string(record.name)
        }
        return .object([
            "accounts": .array(list.map { .string($0.ib) }), "acctProps": .object(props), "aliases": .object(aliases),
            "allowFeatures": .object([
                "showGFIS": .bool(false), "showEUCostReport": .bool(false), "allowEventContract": .bool(false),
                "allowFXConv": .bool(false), "allowFinancialLens": .bool(false), "allowMTA": .bool(false),
                "allowTypeAhead": .bool(true), "allowEventTrading": .bool(false), "snapshotRefreshTimeout": .int(30),
                "liteUser": .bool(false), "showWebNews": .bool(false), "research": .bool(false),
                "debugPnl": .bool(false), "showTaxOpt": .bool(false), "showImpactDashboard": .bool(false),
                "allowDynAccount": .bool(false), "allowCrypto": .bool(false), "allowFA": .bool(false),
                "allowLiteUnderlyings": .bool(false), "restrictTradeSubscription": .bool(false),
                "showUkUserLabels": .bool(false), "sideBySide": .bool(false),
            ]),
            "chartPeriods": .object([
                "STK": .array(["*"].map(JSONValue.string))
            ]),
            "groups": .array([]), "profiles": .array([]), "selectedAccount": .string(selected),
            "serverInfo": .object([
                "serverName": .string("papertrade"), "serverVersion": .string("papertrade Client Portal 1"),
            ]),
            "sessionId": .string(session), "isFT": .bool(false), "isPaper": .bool(true),
        ])
    }

    @Sendable func iserverAccounts(_ request: Request, context: AppContext) async throws -> Response {
        let list = try await gateway.accounts()
        let selected = try await gateway.selectedAccount()
        let session = gateway.state.withLock { $0.session }
        return Self.accountsList(list, selected: IBAccountID.make(selected.id), session: session).response()
    }

    @Sendable func switchAccount(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        guard let ib = try await request.ibBody(context: context)?["acctId"]?.string else {
            throw IBError(.badRequest, "acctId is required")
        }
        let record = try await gateway.account(ib)
        let already = gateway.state.withLock { $0.selected == record.id }
        gateway.select(record.id)
        if already {
            return JSONValue.object(["set": .bool(true), "success": .string("Account already set")]).response()
        }
        return JSONValue.object(["set": .bool(true), "acctId": .string(IBAccountID.make(record.id))]).response()
    }

    @Sendable func meta(_ request: Request, context: AppContext) async throws -> Response {
        let (ib, record) = try await account(context)
        return IBEncoding.account(ib, record).response()
    }

    @Sendable func summary(_ request: Request, context: AppContext) async throws -> Response {
        let (ib, record) = try await account(context)
        return IBEncoding.summary(ib, try await accountService.summary(record.id), at: market.clock.now()).response()
    }

    @Sendable func iserverSummary(_ request: Request, context: AppContext) async throws -> Response {
        let (_, record) = try await account(context)
        return IBEncoding.iserverSummary(try await accountService.summary(record.id)).response()
    }

    @Sendable func ledger(_ request: Request, context: AppContext) async throws -> Response {
        let (ib, record) = try await account(context)
        return IBEncoding.ledger(ib, try await accountService.summary(record.id), at: market.clock.now()).response()
    }

    @Sendable func allocation(_ request: Request, context: AppContext) async throws -> Response {
        let (_, record) = try await account(context)
        let summary = try await accountService.summary(record.id)
        var sectors: [String: FixedDecimal] = [:]
        var groups: [String: FixedDecimal] = [:]
        for p in summary.positions where !p.position.qty.isZero {
            let entry = market.directory.entry(p.instrument.symbol)
            let sector = entry.flatMap { $0.sector.isEmpty ? nil : $0.sector } ?? "Others"
            let group = entry.flatMap { $0.industry.isEmpty ? nil : $0.industry } ?? "Others"
            sectors[sector, default: .zero] += p.valuation.marketValue
            groups[group, default: .zero] += p.valuation.marketValue
        }
        func object(_ values: [String: FixedDecimal]) -> JSONValue {
            .object(values.mapValues { IBEncoding.money($0) })
        }
        return JSONValue.object([
            "assetClass": .object([
                "long": object(["STK": summary.marketValue, "CASH": summary.account.cash + summary.foreignCash]),
                "short": .object([:]),
            ]),
            "sector": .object(["long": object(sectors), "short": .object([:])]),
            "group": .object(["long": object(groups), "short": .object([:])]),
        ]).response()
    }

    /// 100 positions a page, page 0 first.
    @Sendable func positions(_ request: Request, context: AppContext) async throws -> Response {
        let (ib, record) = try await account(context)
        let page =
            try context.parameters.get("page").map { text -> Int in
                guard let n = Int(text), n >= 0 else {
                    throw IBError(.badRequest, "page must be a whole number from 0")
                }
                return n
            } ?? 0
        let held = try await rows(ib, try await accountService.summary(record.id))
        // (A page past the end is empty, however large: `page * 100` overflowed for a page near Int.max.)
        let slice = held.dropFirst(page < held.count ? page * 100 : held.count).prefix(100)
        return JSONValue.array(slice.map(\.row)).response()
    }

    /// Every position row, by symbol: securities, and the currencies held as `CASH` rows in their pairs.
    func rows(_ ib: String, _ summary: AccountSummary) async throws -> [(symbol: String, row: JSONValue)] {
        var rows = summary.positions.filter { !$0.position.qty.isZero }.map {
            ($0.instrument.symbol, IBEncoding.position(ib, $0, entry: market.directory.entry($0.instrument.symbol)))
        }
        for currency in summary.currencies where !currency.balance.amount.isZero {
            guard let pair = market.directory.entry(currency.balance.pairSymbol)?.instrument else { continue }
            rows.append((pair.symbol, IBEncoding.currencyPosition(ib, currency, pair: pair)))
        }
        return rows.sorted { $0.0 < $1.0 }.map { (symbol: $0.0, row: $0.1) }
    }

    @Sendable func position(_ request: Request, context: AppContext) async throws -> Response {
        let (ib, record) = try await account(context)
        let conid = try context.parameters.require("conid")
        guard let entry = IBConid.entry(conid, in: market.directory) else {
            throw IBError(.badRequest, "invalid conid \(conid)")
        }
        let held = try await rows(ib, try await accountService.summary(record.id)).filter { $0.symbol == entry.symbol }
        return JSONValue.array(held.map(\.row)).response()
    }

    @Sendable func invalidate(_ request: Request, context: AppContext) async throws -> Response {
        _ = try await account(context)
        return JSONValue.object(["message": .string("success")]).response()
    }

    static func pnlRow(_ summary: AccountSummary) -> JSONValue {
        let t = IBEncoding.Totals(summary)
        return .object([
            "rowType": .int(1), "dpl": IBEncoding.money(t.dayChange), "nl": IBEncoding.money(t.equity),
            "upl": IBEncoding.money(t.unrealized), "el": IBEncoding.money(t.buyingPower),
            "mv": IBEncoding.money(t.marketValue), "uel": IBEncoding.money(t.buyingPower),
        ])
    }

    @Sendable func pnl(_ request: Request, context: AppContext) async throws -> Response {
        var rows: [String: JSONValue] = [:]
        for (ib, record) in try await gateway.accounts() {
            rows[ib + ".Core"] = Self.pnlRow(try await accountService.summary(record.id))
        }
        return JSONValue.object(["upnl": .object(rows)]).response()
    }

    /// `POST /pa/performance {acctIds, period}`: daily net asset values and cumulative time-weighted returns.
    @Sendable func performance(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let body = try await request.ibBody(context: context)
        let ids = (body?["acctIds"]?.array ?? []).compactMap(\.string)
        guard !ids.isEmpty else { throw IBError(.badRequest, "acctIds is required") }
        let periodText = (body?["period"]?.string ?? "1M").uppercased()
        let periods: [String: PerformancePeriod] = [
            "1D": .day, "7D": .week, "MTD": .month, "1M": .month, "3M": .threeMonths, "6M": .sixMonths,
            "YTD": .yearToDate, "1Y": .year, "ALL": .all,
        ]
        guard let period = periods[periodText] else {
            throw IBError(.badRequest, "period must be one of 1D, 7D, MTD, 1M, 3M, 6M, YTD, 1Y, ALL")
        }
        var navs: [JSONValue] = []
        var cps: [JSONValue] = []
        var dates: [String] = []
        for ib in ids {
            let record = try await gateway.account(ib)
            let report = try await accountService.performance(
                record.id, period: period == .day ? .week : period, start: nil, end: nil, resolution: .daily)
            let figures = report.figures
            dates = figures.dates.map { $0.compact }
            var cumulative: [JSONValue] = []
            var growth = FixedDecimal.one
            for r in figures.dailyReturns {
                growth = growth.multiplied(by: .one + r, places: 9, rule: .halfEven)
                cumulative.append(.number((growth - .one).rounded(places: 6, rule: .halfEven).description))
            }
            let navValues = report.series.map { IBEncoding.money($0.value) }
            let start = figures.dates.first?.compact ?? ""
            let end = figures.dates.last?.compact ?? ""
            navs.append(
                .object([
                    "idType": .string("acctid"), "id": .string(ib), "navs": .array(navValues), "start": .string(start),
                    "end": .string(end), "baseCurrency": .string(report.currency.rawValue),
                    "startNAV": .object(["date": .string(start), "val": IBEncoding.money(figures.startValue)]),
                ]))
            cps.append(
                .object([
                    "idType": .string("acctid"), "id": .string(ib), "returns": .array([.number("0")] + cumulative),
                    "start": .string(start), "end": .string(end), "baseCurrency": .string(report.currency.rawValue),
                ]))
        }
        let dateList = JSONValue.array(dates.map(JSONValue.string))
        return JSONValue.object([
            "currencyType": .string("base"), "rc": .int(0), "pm": .string("TWR"), "id": .string("getPerformanceData"),
            "included": .array(ids.map(JSONValue.string)),
            "nav": .object(["data": .array(navs), "freq": .string("D"), "dates": dateList]),
            "cps": .object(["data": .array(cps), "freq": .string("D"), "dates": dateList]),
        ]).response()
    }
}

extension CivilDate {
    /// "20231211".
    var compact: String {
        String(format: "%04d%02d%02d", year, month, day)
    }
}
