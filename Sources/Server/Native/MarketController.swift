import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Search, quotes, market overview and movers (public: no login needed to look at the market).
struct MarketController {
    let market: MarketView

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("search", use: search)
        group.get("quotes/{symbol}", use: quote)
        group.get("market/overview", use: overview)
        group.get("market/movers", use: movers)
        group.get("earnings", use: earnings)
        group.get("halts", use: halts)
    }

    @Sendable func search(_ request: Request, context: AppContext) async throws -> Response {
        let q = request.query("q") ?? ""
        let market = try request.query("market").map { text -> Market in
            guard let m = Market(rawValue: text) else { throw APIError.unprocessable("market must be us or cn") }
            return m
        }
        let limit = min(max(Int(request.query("limit") ?? "") ?? 10, 1), 50)
        return JSONValue.array(
            self.market.directory.search(q, market: market, limit: limit).map { r in
                .object([
                    "symbol": .string(r.symbol), "name": .string(r.name), "exchange": .string(r.exchange.rawValue),
                    "market": .string(r.market.rawValue), "kind": .string(r.kind.rawValue),
                ])
            }
        ).response()
    }

    @Sendable func quote(_ request: Request, context: AppContext) async throws -> Response {
        let symbol = try context.pathSymbol()
        guard let entry = market.directory.entry(symbol) else { throw APIError.notFound("unknown symbol \(symbol)") }
        do {
            let q = try await market.feed.quote(entry.symbol)
            return NativeEncoding.quote(q, entry: entry).response(headers: [.cacheControl: "no-store"])
        } catch {
            if case .unavailable(_, _, let last?, let age) = error {
                var body = NativeEncoding.quote(last, entry: entry).object ?? [:]
                body["stale"] = .bool(true)
                body["age_seconds"] = age.map(JSONValue.int) ?? .null
                body["warning"] = .string(error.description)
                return JSONValue.object(body).response()
            }
            throw APIError(feed: error)
        }
    }

    @Sendable func overview(_ request: Request, context: AppContext) async throws -> Response {
        let indices: [IndexQuote]
        do { indices = try await market.feed.indices() } catch { throw APIError(feed: error) }
        return JSONValue.object([
            "source": .string(market.feed.name), "source_url": .text(market.feed.attributionURL),
            "simulated": .bool(market.feed.isSimulated),
            "indices": .array(
                indices.map { i in
                    .object([
                        "symbol": .string(i.index.rawValue), "name": .string(i.index.name),
                        "market": .string(i.index.market.rawValue),
                        "value": .decimal(i.value), "change": .decimal(i.change),
                        "change_percent": .decimal(i.changePercent),
                    ])
                }),
        ]).response()
    }

    @Sendable func movers(_ request: Request, context: AppContext) async throws -> Response {
        guard let market = Market(rawValue: request.query("market") ?? "us") else {
            throw APIError.unprocessable("market must be us or cn")
        }
        guard let kind = MoverKind(rawValue: request.query("kind") ?? "gainers") else {
            throw APIError.unprocessable("kind must be gainers, losers or active")
        }
        let assetClass = request.query("asset_class") ?? "stocks"
        guard assetClass == "stocks" || assetClass == "crypto" else {
            throw APIError.unprocessable("asset_class must be stocks or crypto")
        }
        let limit = min(max(Int(request.query("limit") ?? "") ?? 20, 1), 50)
        let rows: [Mover]
        if assetClass == "crypto" {
            rows = await cryptoMovers(kind, limit: limit)
        } else {
            do { rows = try await self.market.feed.movers(market, kind: kind, limit: limit) } catch {
                throw APIError(feed: error)
            }
        }
        return JSONValue.array(
            rows.map { m in
                .object([
                    "symbol": .string(m.symbol), "name": .string(m.name),
                    "chinese_name": .text(chineseName(m.symbol)),
                    "last": .decimal(m.last),
                    "change": .decimal(m.change),
                    "change_percent": .decimal(m.changePercent), "volume": .decimal(m.volume),
                ])
            }
        ).response()
    }
}

extension MarketController {
    /// A symbol's name in Chinese, where the directory has one.
    func chineseName(_ symbol: String) -> String? {
        market.directory.entry(symbol).flatMap { $0.chineseName.isEmpty ? nil : $0.chineseName }
    }

    /// The crypto pairs ranked as the stocks' movers are — by change since the UTC day began, or by dollar volume —
    /// from their quotes (a few dozen pairs: every feed's quotes serve).
    func cryptoMovers(_ kind: MoverKind, limit: Int) async -> [Mover] {
        let pairs = market.directory.entries.filter { $0.instrument.kind == .crypto }
        let quotes = await market.feed.latestQuotes(pairs.map(\.symbol))
        let movers: [Mover] = pairs.compactMap { entry in
            guard let q = quotes[entry.symbol] else { return nil }
            return Mover(
                symbol: entry.symbol, name: entry.name, last: q.last, change: q.change,
                changePercent: q.changePercent, volume: q.volume)
        }
        return Array(Mover.ranked(movers, kind).prefix(limit))
    }

    /// The earnings calendar: reports dated `from` through `to` (YYYY-MM-DD; from today and a week on by default, at
    /// most a year), of `symbols` (comma-separated, at most 100) or of every company (of one `market`, us or cn).
    @Sendable func earnings(_ request: Request, context: AppContext) async throws -> Response {
        func date(_ name: String) throws -> CivilDate? { try request.dateQuery(name) }
        let today = Market.us.calendar.zone.localTime(of: market.clock.now()).date
        let from = try date("from") ?? today
        let to = try date("to") ?? from.adding(days: 7)
        guard from <= to else { throw APIError.unprocessable("from must not be after to") }
        guard to.daysSinceEpoch - from.daysSinceEpoch <= 366 else {
            throw APIError.unprocessable("from and to may be at most a year apart")
        }
        let market = try request.query("market").map { text -> Market in
            guard let m = Market(rawValue: text) else { throw APIError.unprocessable("market must be us or cn") }
            return m
        }
        var symbols: [String]?
        if let text = request.query("symbols") {
            let list = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
                .filter { !$0.isEmpty }
            guard !list.isEmpty, list.count <= 100 else {
                throw APIError.unprocessable("symbols must list 1 to 100 comma-separated symbols")
            }
            for symbol in list where self.market.directory.entry(symbol) == nil {
                throw APIError.notFound("unknown symbol \(symbol)")
            }
            symbols = list.compactMap { self.market.directory.entry($0)?.symbol }
        }
        let reports: [EarningsReport]
        do { reports = try await self.market.feed.earningsCalendar(from: from, through: to, symbols: symbols) } catch {
            throw APIError(feed: error)
        }
        return JSONValue.object([
            "from": .string(from.description), "to": .string(to.description),
            "earnings": .array(
                reports.compactMap { r -> JSONValue? in
                    let entry = self.market.directory.entry(r.symbol)
                    if let market, entry?.instrument.market != market { return nil }
                    return .object([
                        "symbol": .string(r.symbol), "name": .text(entry?.name),
                        "market": .text(entry?.instrument.market.rawValue), "date": .string(r.date.description),
                        "time": .text(r.time?.rawValue), "fiscal_year": .int(r.fiscalYear),
                        "fiscal_quarter": r.fiscalQuarter > 0 ? .int(r.fiscalQuarter) : .null,
                        "market_cap_millions": .decimal(r.marketCapMillions),
                    ])
                }),
        ]).response()
    }
}

extension MarketController {
    /// Trading halts of `symbols` (comma-separated, 1 to 200) in their sessions `from` through `to` (YYYY-MM-DD;
    /// today by default; at most 31 days), those that have started by now: as the exchanges' halt lists.
    @Sendable func halts(_ request: Request, context: AppContext) async throws -> Response {
        func date(_ name: String) throws -> CivilDate? { try request.dateQuery(name) }
        let today = Market.us.calendar.zone.localTime(of: market.clock.now()).date
        let from = try date("from") ?? today
        let to = try date("to") ?? from
        guard from <= to else { throw APIError.unprocessable("from must not be after to") }
        guard to.daysSinceEpoch - from.daysSinceEpoch <= 30 else {
            throw APIError.unprocessable("from and to may be at most 31 days apart")
        }
        let list = (request.query("symbols") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.filter { !$0.isEmpty }
        guard !list.isEmpty, list.count <= 200 else {
            throw APIError.unprocessable("symbols must list 1 to 200 comma-separated symbols")
        }
        var symbols: [String] = []
        for symbol in list {
            guard let entry = market.directory.entry(symbol) else {
                throw APIError.notFound("unknown symbol \(symbol)")
            }
            symbols.append(entry.symbol)
        }
        var halts: [TradingHalt] = []
        for symbol in symbols {
            do { halts += try await market.feed.halts(symbol, from: from, through: to) } catch {
                throw APIError(feed: error)
            }
        }
        halts.sort { ($0.start, $0.symbol) < ($1.start, $1.symbol) }
        return JSONValue.object([
            "from": .string(from.description), "to": .string(to.description),
            "halts": .array(
                halts.map { h in
                    var object = NativeEncoding.halt(h).object ?? [:]
                    object["symbol"] = .string(h.symbol)
                    return .object(object)
                }),
        ]).response()
    }
}

extension APIError {
    init(feed error: FeedError) {
        switch error {
        case .unknownSymbol(let s): self = .notFound("unknown symbol \(s)")
        default: self = APIError(.serviceUnavailable, code: 50300000, error.description)
        }
    }
}
