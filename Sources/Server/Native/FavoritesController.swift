import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Watchlists of one of the user's accounts, as the app shows them: each symbol with its price and change,
/// in the user's order. Reorder by moving one symbol (`move`) or by sending the whole list (`PUT`).
struct FavoritesController {
    let market: MarketView
    let accountService: any AccountService
    let watchlists: Watchlists

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("accounts/{id}/watchlists", use: list)
        group.post("accounts/{id}/watchlists", use: create)
        group.put("accounts/{id}/watchlists/{wid}", use: replace)
        group.delete("accounts/{id}/watchlists/{wid}", use: delete)
        group.post("accounts/{id}/watchlists/{wid}/symbols", use: add)
        group.delete("accounts/{id}/watchlists/{wid}/symbols/{symbol}", use: remove)
        group.post("accounts/{id}/watchlists/{wid}/move", use: move)
    }

    func encode(_ w: WatchlistRecord) async -> JSONValue {
        var items: [JSONValue] = []
        for symbol in w.symbols {
            let entry = market.directory.entry(symbol)
            let quote = try? await market.feed.quote(symbol)
            items.append(
                .object([
                    "symbol": .string(symbol), "name": .text(entry?.name),
                    "market": .text(entry?.instrument.market.rawValue),
                    "price": .decimal(quote?.last), "change": .decimal(quote?.change),
                    "change_percent": .decimal(quote?.changePercent),
                ]))
        }
        return .object([
            "id": .string(w.id), "name": .string(w.name), "items": .array(items),
            "updated_at": .string(w.updatedAt.description),
        ])
    }

    func watchlist(_ context: AppContext) async throws -> WatchlistRecord {
        let account = try await accountService.account(ownedBy: context)
        let id = try context.parameters.require("wid")
        guard let w = try await watchlists.find(id, account: account.id) else {
            throw APIError.notFound("watchlist not found")
        }
        return w
    }

    func save(_ w: WatchlistRecord, status: HTTPResponse.Status = .ok) async throws -> Response {
        do throws(BrokerageError) {
            try await watchlists.save(w)
        } catch {
            guard error.isDuplicate else { throw error }
            throw APIError(.conflict, code: 40900000, "a watchlist named \(w.name) already exists")
        }
        return await encode(w).response(status: status)
    }

    func symbols(_ value: JSONValue?) throws -> [String] {
        let items = value?.array ?? []
        guard items.count <= Watchlists.maximumSymbols else {
            throw APIError.unprocessable("a watchlist holds at most \(Watchlists.maximumSymbols) symbols")
        }
        var out: [String] = []
        for item in items {
            guard let s = item.string?.uppercased(), market.directory.entry(s) != nil else {
                throw APIError.unprocessable("unknown symbol \(item.string ?? "")")
            }
            if !out.contains(s) { out.append(s) }
        }
        return out
    }

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let account = try await accountService.account(ownedBy: context)
        var out: [JSONValue] = []
        for w in try await watchlists.all(account: account.id) { out.append(await encode(w)) }
        return JSONValue.array(out).response()
    }

    @Sendable func create(_ request: Request, context: AppContext) async throws -> Response {
        let account = try await accountService.account(ownedBy: context)
        var request = request
        let body = try await request.jsonBody(context: context)
        guard let name = body["name"]?.string?.trimmingCharacters(in: .whitespaces), !name.isEmpty, name.count <= 64
        else {
            throw APIError.unprocessable("name must be 1 to 64 characters")
        }
        let now = market.clock.now()
        return try await save(
            WatchlistRecord(
                id: UUID().uuidString.lowercased(), accountID: account.id, name: name,
                symbols: try symbols(body["symbols"]), createdAt: now, updatedAt: now), status: .created)
    }

    @Sendable func replace(_ request: Request, context: AppContext) async throws -> Response {
        var w = try await watchlist(context)
        var request = request
        let body = try await request.jsonBody(context: context)
        if let name = body["name"]?.string?.trimmingCharacters(in: .whitespaces), !name.isEmpty {
            w.name = String(name.prefix(64))
        }
        if body["symbols"] != nil { w.symbols = try symbols(body["symbols"]) }
        w.updatedAt = market.clock.now()
        return try await save(w)
    }

    @Sendable func delete(_ request: Request, context: AppContext) async throws -> Response {
        let w = try await watchlist(context)
        try await watchlists.delete(w.id, account: w.accountID)
        return Response(status: .noContent)
    }

    @Sendable func add(_ request: Request, context: AppContext) async throws -> Response {
        var w = try await watchlist(context)
        var request = request
        let body = try await request.jsonBody(context: context)
        let symbol = try symbols(.array([body["symbol"] ?? .null])).first ?? ""
        if !w.symbols.contains(symbol) { w.symbols.append(symbol) }
        w.updatedAt = market.clock.now()
        return try await save(w)
    }

    @Sendable func remove(_ request: Request, context: AppContext) async throws -> Response {
        var w = try await watchlist(context)
        let symbol = try context.pathSymbol()
        guard w.symbols.contains(symbol) else { throw APIError.notFound("\(symbol) is not in this watchlist") }
        w.symbols.removeAll { $0 == symbol }
        w.updatedAt = market.clock.now()
        return try await save(w)
    }

    /// {"symbol": "AAPL", "to": 0}: moves a symbol to a position (clamped to the list).
    @Sendable func move(_ request: Request, context: AppContext) async throws -> Response {
        var w = try await watchlist(context)
        var request = request
        let body = try await request.jsonBody(context: context)
        guard let symbol = body["symbol"]?.string?.uppercased(), let from = w.symbols.firstIndex(of: symbol) else {
            throw APIError.notFound("symbol is not in this watchlist")
        }
        guard let to = body["to"]?.int else { throw APIError.unprocessable("to must be a position (0 = first)") }
        w.symbols.remove(at: from)
        w.symbols.insert(symbol, at: min(max(to, 0), w.symbols.count))
        w.updatedAt = market.clock.now()
        return try await save(w)
    }
}
