import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Contracts (conid lookup, search, info and rules), market data (snapshot, history) and the scanner.
struct IBMarketRoutes {
    let gateway: IBGateway
    var market: MarketView { gateway.market }
    var directory: SymbolDirectory { market.directory }
    var options: IBOptionRoutes { IBOptionRoutes(gateway: gateway) }

    func addRoutes(to api: RouterGroup<AppContext>) {
        api.get("trsrv/stocks", use: stocks)
        api.get("trsrv/secdef", use: secdef)
        api.get("iserver/secdef/search", use: search)
        api.post("iserver/secdef/search", use: search)
        api.get("iserver/secdef/info", use: secdefInfo)
        api.get("iserver/currency/pairs", use: currencyPairs)
        api.get("iserver/exchangerate", use: exchangeRate)
        options.addRoutes(to: api)
        api.get("iserver/contract/{conid}/info", use: info)
        api.get("iserver/contract/{conid}/info-and-rules", use: infoAndRules)
        api.post("iserver/contract/rules", use: contractRules)
        api.get("iserver/marketdata/snapshot", use: snapshot)
        api.get("md/snapshot", use: snapshot)
        api.get("iserver/marketdata/history", use: history)
        api.get("hmds/history", use: history)
        api.get("iserver/marketdata/unsubscribeall", use: unsubscribeAll)
        api.post("iserver/marketdata/unsubscribe", use: unsubscribe)
        api.post("iserver/scanner/run", use: scanner)
        api.post("hmds/scanner/run", use: scanner)
        api.post("hmds/scanner", use: scanner)
        api.get("iserver/scanner/params", use: scannerParams)
    }

    func entry(_ conid: String?) throws -> DirectoryEntry {
        guard let conid, !conid.isEmpty else { throw IBError(.badRequest, "conid is required") }
        guard let entry = IBConid.entry(conid, in: directory) else {
            throw IBError(.badRequest, "invalid conid \(conid): no such contract")
        }
        return entry
    }

    // MARK: Contracts

    static func instrumentJSON(_ entry: DirectoryEntry) -> JSONValue {
        .object([
            "name": .string(entry.name.uppercased()), "chineseName": .null,
            "assetClass": .string(IBMarketFields.secType(entry.instrument)),
            "contracts": .array([IBEncoding.contract(entry)]),
        ])
    }

    @Sendable func stocks(_ request: Request, context: AppContext) async throws -> Response {
        guard let symbols = request.query("symbols"), !symbols.isEmpty else {
            throw IBError(.badRequest, "symbols is required")
        }
        var out: [String: JSONValue] = [:]
        for symbol in symbols.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
        where !symbol.isEmpty {
            out[symbol] = .array(directory.entry(symbol).map { [Self.instrumentJSON($0)] } ?? [])
        }
        return JSONValue.object(out).response()
    }

    static func secdefJSON(_ entry: DirectoryEntry) -> JSONValue {
        let i = entry.instrument
        let venue = IBMarketFields.listingExchange(i)
        let tick = i.tick.tick(at: FixedDecimal.one)
        return .object([
            "conid": .int(IBConid.conid(i)), "currency": .string(i.currency.rawValue), "time": .int(0),
            "chineseName": .null, "allExchanges": .string(venue), "listingExchange": .string(venue),
            "countryCode": .string(i.kind == .forex ? "" : i.market == .us ? "US" : "CN"),
            "name": .string(i.name.uppercased()), "assetClass": .string(IBMarketFields.secType(i)), "expiry": .null,
            "lastTradingDay": .null, "group": .text(entry.industry),
            "putOrCall": .null, "sector": .text(entry.sector), "sectorGroup": .text(entry.industry),
            "strike": .string("0"),
            "ticker": .string(i.currencyPair.map { $0.base.rawValue } ?? i.symbol), "undConid": .int(0),
            "multiplier": .number("0"), "type": .string(i.kind == .forex ? "" : "COMMON"),
            "hasOptions": .bool(false), "fullName": .string(i.symbol),
            "isUS": .bool(i.market == .us && i.kind != .forex),
            "incrementRules": .array([.object(["lowerEdge": .number("0"), "increment": IBEncoding.exact(tick)])]),
            "displayRule": .object([
                "magnification": .int(0),
                "displayRuleStep": .array([
                    .object([
                        "decimalDigits": .int(tick.fractionalDigits), "lowerEdge": .number("0"),
                        "wholeDigits": .int(4),
                    ])
                ]),
            ]),
        ])
    }

    @Sendable func secdef(_ request: Request, context: AppContext) async throws -> Response {
        guard let conids = request.query("conids"), !conids.isEmpty else {
            throw IBError(.badRequest, "conids is required")
        }
        let entries = try conids.split(separator: ",").map { try entry(String($0)) }
        return JSONValue.object(["secdef": .array(entries.map(Self.secdefJSON))]).response()
    }

    /// Search by symbol (or by company name with `name=true`).
    @Sendable func search(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        var symbol = request.query("symbol")
        var byName = false
        if let flag = request.query("name") {
            switch flag.lowercased() {
            case "true", "1": byName = true
            case "false", "0", "": byName = false
            default: throw IBError(.badRequest, "name must be true or false")
            }
        }
        var secType = request.query("secType")
        if request.method == .post, let body = try await request.ibObject(context: context) {
            symbol = try body.string("symbol") ?? symbol
            byName = try body.bool("name") ?? byName
            secType = try body.string("secType") ?? secType
        }
        guard let text = symbol?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            throw IBError(.badRequest, "symbol is required")
        }
        let wanted = secType?.uppercased() ?? ""
        let optionsOnly = wanted == "OPT"
        if !["STK", "OPT", "CASH", ""].contains(wanted) {
            return JSONValue.array([]).response()
        }
        var entries: [DirectoryEntry] = []
        if !byName, let exact = directory.entry(text) { entries.append(exact) }
        // A currency (`EUR`, secType CASH) finds the pairs it is in, as IB's search does.
        let limit = wanted == "CASH" ? 40 : 10
        for result in directory.search(text, limit: limit)
        where !entries.contains(where: { $0.symbol == result.symbol }) {
            if let e = directory.entry(result.symbol) { entries.append(e) }
        }
        let options = self.options
        if optionsOnly { entries = entries.filter { options.searchFields($0) != nil } }
        if wanted == "CASH" {
            entries = entries.filter { $0.instrument.kind == .forex }
        } else if wanted == "STK" {
            entries = entries.filter { $0.instrument.kind != .forex }
        }
        let out: [JSONValue] = entries.prefix(10).map { e in
            let venue = IBMarketFields.listingExchange(e.instrument)
            if e.instrument.kind == .forex {
                return .object([
                    "conid": .string(String(IBConid.conid(e.instrument))),
                    "companyHeader": .string("\(e.name) - \(venue)"), "companyName": .string(e.name),
                    "symbol": .string(e.symbol), "description": .string(venue), "restricted": .string("CASH"),
                    "fop": .null, "opt": .null, "war": .null,
                    "sections": .array([.object(["secType": .string("CASH"), "exchange": .string(venue + ";")])]),
                ])
            }
            // An optionable stock's OPT section lists its months, as IB's does; ibind reads it to walk the chain.
            let option = options.searchFields(e)
            return .object([
                "conid": .string(String(IBConid.conid(e.instrument))), "companyHeader": .string("\(e.name) - \(venue)"),
                "companyName": .string(e.name), "symbol": .string(e.symbol), "description": .string(venue),
                "restricted": .null, "fop": .null, "opt": option?.opt ?? .null, "war": .null,
                "sections": .array([.object(["secType": .string("STK")])] + (option.map { [$0.section] } ?? [])),
            ])
        }
        guard !out.isEmpty else { throw IBError(.badRequest, "No symbol found") }
        return JSONValue.array(out).response()
    }

    /// The currency pairs a currency trades in, as IB lists them: `{"USD": [{"symbol": "USD.JPY", "conid": 15016059,
    /// "ccyPair": "JPY"}, …]}`.
    @Sendable func currencyPairs(_ request: Request, context: AppContext) async throws -> Response {
        guard let code = request.query("currency")?.uppercased(), !code.isEmpty else {
            throw IBError(.badRequest, "currency is required")
        }
        guard let currency = Currency(rawValue: code) else { throw IBError(.badRequest, "unknown currency \(code)") }
        let pairs: [JSONValue] = directory.currencyPairs.compactMap { e in
            guard let pair = e.instrument.currencyPair, pair.base == currency || pair.quote == currency else {
                return nil
            }
            let other = pair.base == currency ? pair.quote : pair.base
            return .object([
                "symbol": .string(e.symbol), "conid": .int(IBConid.conid(e.instrument)),
                "ccyPair": .string(other.rawValue),
            ])
        }
        return JSONValue.object([code: .array(pairs)]).response()
    }

    /// Units of `target` one unit of `source` is worth at the pair's mid price now: `{"rate": 7.1234}`.
    @Sendable func exchangeRate(_ request: Request, context: AppContext) async throws -> Response {
        guard let source = request.query("source").flatMap({ Currency(rawValue: $0.uppercased()) }),
            let target = request.query("target").flatMap({ Currency(rawValue: $0.uppercased()) })
        else { throw IBError(.badRequest, "source and target must be currency codes such as USD and CNH") }
        if source == target { return JSONValue.object(["rate": .number("1")]).response() }
        guard let entry = directory.currencyPair(source, target), let pair = entry.instrument.currencyPair else {
            throw IBError(.badRequest, "no currency pair joins \(source.rawValue) and \(target.rawValue)")
        }
        let quote: MarketQuote
        do { quote = try await market.quote(entry.symbol) } catch { throw IBError(.serviceUnavailable, "\(error)") }
        let mid =
            (quote.bids.best?.price).flatMap { bid in (quote.asks.best?.price).flatMap { (bid + $0).divided(by: 2) } }
            ?? quote.last
        let rate = pair.base == source ? mid : FixedDecimal.one.divided(by: mid, places: 9) ?? .zero
        return JSONValue.object(["rate": IBEncoding.exact(rate)]).response()
    }

    @Sendable func secdefInfo(_ request: Request, context: AppContext) async throws -> Response {
        if (request.query("sectype") ?? request.query("secType"))?.uppercased() == "OPT" {
            return try await options.secdefInfo(request)
        }
        if let contract = try await options.listed(request.query("conid")), let conid = IBOptionConid.conid(contract) {
            return JSONValue.array([IBOptionRoutes.info(contract, conid: conid)]).response()
        }
        let e = try entry(request.query("conid"))
        return JSONValue.array([IBEncoding.contractInfo(e)]).response()
    }

    @Sendable func info(_ request: Request, context: AppContext) async throws -> Response {
        if let contract = try await options.listed(context.parameters.get("conid")),
            let conid = IBOptionConid.conid(contract)
        {
            let underlying = IBConid.conid(symbol: contract.underlying, market: .us) ?? 0
            return IBOptionRoutes.contractInfo(contract, conid: conid, underlying: underlying).response()
        }
        return IBEncoding.contractInfo(try entry(context.parameters.get("conid"))).response()
    }

    @Sendable func infoAndRules(_ request: Request, context: AppContext) async throws -> Response {
        let e = try entry(context.parameters.get("conid"))
        guard case .object(var object) = IBEncoding.contractInfo(e) else { throw IBError(.internalServerError, "") }
        object["rules"] = IBEncoding.rules(e, quote: try? await market.feed.quote(e.symbol))
        return JSONValue.object(object).response()
    }

    @Sendable func contractRules(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let body = try await request.ibBody(context: context)
        let conid = body?["conid"].flatMap { $0.int.map(String.init) ?? $0.string }
        let e = try entry(conid)
        return IBEncoding.rules(e, quote: try? await market.feed.quote(e.symbol)).response()
    }

    // MARK: Market data

    /// Unlike IB's gateway, the first call already answers with data: there is no subscription to warm up. A
    /// client that calls twice (as ibind does) gets data both times.
    @Sendable func snapshot(_ request: Request, context: AppContext) async throws -> Response {
        guard let conids = request.query("conids"), !conids.isEmpty else {
            throw IBError(.badRequest, "conids is required")
        }
        let fields = (request.query("fields") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        let list = conids.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard list.count <= 100 else { throw IBError(.badRequest, "at most 100 conids per snapshot") }
        var out: [JSONValue] = []
        for conid in list {
            if let contract = try await options.listed(conid), let number = IBOptionConid.conid(contract) {
                out.append(try await options.snapshot(contract, conid: number, fields: fields))
                continue
            }
            let e = try entry(conid)
            out.append(try await gateway.snapshot(e, fields: fields))
        }
        return JSONValue.array(out).response()
    }

    @Sendable func unsubscribeAll(_ request: Request, context: AppContext) async throws -> Response {
        JSONValue.object(["unsubscribed": .bool(true)]).response()
    }

    /// `{"conid": …}`: nothing to stop (snapshots are not subscriptions here), but the contract must be one.
    @Sendable func unsubscribe(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let body = try await request.ibBody(context: context)
        _ = try entry(body?["conid"].flatMap { $0.int.map(String.init) ?? $0.string })
        return JSONValue.object(["success": .bool(true)]).response()
    }

    /// `bar` 1min…1m and `period` {n}min/h/d/w/m/y, as IB; `startTime` (yyyyMMdd-HH:mm:ss, UTC) ends the window.
    @Sendable func history(_ request: Request, context: AppContext) async throws -> Response {
        let e = try entry(request.query("conid"))
        let barText = request.query("bar") ?? "1min"
        guard let bar = IBHistory.bar(barText) else {
            throw IBError(
                .badRequest,
                "bar \(barText) is not one of 1min, 2min, 3min, 5min, 10min, 15min, 30min, 1h, 2h, 3h, 4h, 8h, 1d, 1w, 1m"
            )
        }
        let periodText = request.query("period") ?? "1w"
        guard let period = IBHistory.period(periodText) else {
            throw IBError(
                .badRequest, "period \(periodText) must be {1-30}min, {1-8}h, {1-1000}d, {1-792}w, {1-182}m or {1-15}y")
        }
        var end = market.clock.now()
        if let start = request.query("startTime"), !start.isEmpty {
            guard let t = IBHistory.time(start) else {
                throw IBError(.badRequest, "startTime must be yyyyMMdd-HH:mm:ss")
            }
            end = min(t, end)
        }
        let outsideRTH = ["true", "1"].contains((request.query("outsideRth") ?? "").lowercased())
        guard gateway.beginHistory() else { throw IBError(.tooManyRequests, "Too many requests") }
        defer { gateway.endHistory() }
        let answer = try await IBHistory.answer(
            e, bar: bar, barText: barText, period: period, periodText: periodText, end: end, outsideRTH: outsideRTH,
            feed: market.feed)
        return answer.response()
    }

    // MARK: Scanner

    @Sendable func scanner(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let body = try await request.ibObject(context: context)
        _ = try body?.string("instrument")
        let type = (try body?.string("type") ?? body?.string("scanCode") ?? "TOP_PERC_GAIN").uppercased()
        let location = (try body?.string("location") ?? "STK.US.MAJOR").uppercased()
        let market: Market =
            ["CN", "SSE", "SZSE", "SEHKNTL", "SEHKSZSE", "CHINA"].contains(where: { location.contains($0) }) ? .cn : .us
        let kind: MoverKind
        let column: String
        switch type {
        case "TOP_PERC_GAIN", "TOP_OPEN_PERC_GAIN", "HIGH_OPEN_GAP": (kind, column) = (.gainers, "Chg%")
        case "TOP_PERC_LOSE", "TOP_OPEN_PERC_LOSE", "LOW_OPEN_GAP": (kind, column) = (.losers, "Chg%")
        case "MOST_ACTIVE", "HOT_BY_VOLUME", "TOP_VOLUME_RATE": (kind, column) = (.active, "Volume")
        default:
            throw IBError(
                .badRequest, "scanner type \(type) is not supported; use TOP_PERC_GAIN, TOP_PERC_LOSE or MOST_ACTIVE")
        }
        let movers = try await self.market.feed.movers(market, kind: kind, limit: 50)
        let contracts: [JSONValue] = movers.compactMap { m in
            guard let e = directory.entry(m.symbol) else { return nil }
            let conid = IBConid.conid(e.instrument)
            let data =
                kind == .active
                ? IBMarketFields.formattedVolume(m.volume)
                : IBMarketFields.signed(m.changePercent.formatted(places: 2)) + "%"
            return .object([
                "server_id": .string("0"), "column_name": .string(column), "symbol": .string(m.symbol),
                "conidex": .string(String(conid)), "con_id": .int(conid), "conid": .int(conid),
                "available_chart_periods": .string("#R|1"), "company_name": .string(m.name), "scan_data": .string(data),
                "contract_description_1": .string(m.symbol),
                "listing_exchange": .string(IBMarketFields.listingExchange(e.instrument)),
                "sec_type": .string(IBMarketFields.secType(e.instrument)),
                "last": .string(m.last.formatted(minimumPlaces: 2)),
            ])
        }
        return JSONValue.object(["contracts": .array(contracts), "scan_data_column_name": .string(column)]).response()
    }

    @Sendable func scannerParams(_ request: Request, context: AppContext) async throws -> Response {
        func item(_ code: String, _ name: String) -> JSONValue {
            .object(["code": .string(code), "display_name": .string(name), "instruments": .array([.string("STK")])])
        }
        return JSONValue.object([
            "scan_type_list": .array([
                item("TOP_PERC_GAIN", "Top % Gainers"), item("TOP_PERC_LOSE", "Top % Losers"),
                item("MOST_ACTIVE", "Most Active"),
            ]),
            "instrument_list": .array([.object(["display_name": .string("US Stocks"), "type": .string("STK")])]),
            "location_tree": .array([
                .object(["display_name": .string("US Stocks"), "type": .string("STK.US.MAJOR")]),
                .object(["display_name": .string("China A-shares"), "type": .string("STK.CN")]),
            ]),
            "filter_list": .array([]),
        ]).response()
    }
}
