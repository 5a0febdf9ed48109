import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Search, quotes, market overview and movers (public: no login needed to look at the market).
struct MarketController {
    let brokerage: Brokerage

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("search", use: search)
        group.get("quotes/{symbol}", use: quote)
        group.get("market/overview", use: overview)
        group.get("market/movers", use: movers)
    }

    @Sendable func search(_ request: Request, context: AppContext) async throws -> Response {
        let q = request.query("q") ?? ""
        let market = try request.query("market").map { text -> Market in
            guard let m = Market(rawValue: text) else { throw APIError.unprocessable("market must be us or cn") }
            return m
        }
        let limit = min(max(Int(request.query("limit") ?? "") ?? 10, 1), 50)
        return JSONValue.array(
            brokerage.directory.search(q, market: market, limit: limit).map { r in
                .object([
                    "symbol": .string(r.symbol), "name": .string(r.name), "exchange": .string(r.exchange.rawValue),
                    "market": .string(r.market.rawValue), "kind": .string(r.kind.rawValue),
                ])
            }
        ).response()
    }

    @Sendable func quote(_ request: Request, context: AppContext) async throws -> Response {
        let symbol = try context.parameters.require("symbol").uppercased()
        guard let entry = brokerage.directory.entry(symbol) else { throw APIError.notFound("unknown symbol \(symbol)") }
        do {
            let q = try await brokerage.feed.quote(entry.symbol)
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
        do { indices = try await brokerage.feed.indices() } catch { throw APIError(feed: error) }
        return JSONValue.object([
            "source": .string(brokerage.feed.name), "source_url": .text(brokerage.feed.attributionURL),
            "simulated": .bool(brokerage.feed.isSimulated),
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
        let limit = min(max(Int(request.query("limit") ?? "") ?? 20, 1), 50)
        let rows: [Mover]
        do { rows = try await brokerage.feed.movers(market, kind: kind, limit: limit) } catch {
            throw APIError(feed: error)
        }
        return JSONValue.array(
            rows.map { m in
                .object([
                    "symbol": .string(m.symbol), "name": .string(m.name), "last": .decimal(m.last),
                    "change": .decimal(m.change),
                    "change_percent": .decimal(m.changePercent), "volume": .decimal(m.volume),
                ])
            }
        ).response()
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
