import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Alpaca watchlists, including the `:by_name` variants; every change answers with the updated watchlist.
struct WatchlistsController {
    let market: MarketView
    let watchlists: Watchlists

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("watchlists", use: list)
        group.post("watchlists", use: create)
        group.get("watchlists:by_name", use: getByName)
        group.put("watchlists:by_name", use: updateByName)
        group.post("watchlists:by_name", use: addByName)
        group.delete("watchlists:by_name", use: deleteByName)
        group.get("watchlists/{id}", use: get)
        group.put("watchlists/{id}", use: update)
        group.post("watchlists/{id}", use: add)
        group.delete("watchlists/{id}", use: delete)
        group.delete("watchlists/{id}/{symbol}", use: removeSymbol)
    }

    func encode(_ w: WatchlistRecord) -> JSONValue {
        .object([
            "id": .string(w.id), "account_id": .string(w.accountID.description), "name": .string(w.name),
            "created_at": .string(w.createdAt.description), "updated_at": .string(w.updatedAt.description),
            "assets": .array(w.symbols.compactMap { market.directory.entry($0).map(AlpacaEncoding.asset) }),
        ])
    }

    func find(_ context: AppContext, id: String? = nil, name: String? = nil) async throws -> WatchlistRecord {
        let account = try context.account()
        let all = try await watchlists.all(account: account)
        guard let w = all.first(where: { (id != nil && $0.id == id) || (name != nil && $0.name == name) }) else {
            throw APIError.notFound("watchlist not found")
        }
        return w
    }

    func validName(_ name: String?) throws -> String {
        guard let name = name?.trimmingCharacters(in: .whitespaces), !name.isEmpty, name.count <= 64 else {
            throw APIError.unprocessable("name must be 1 to 64 characters")
        }
        return name
    }

    func validSymbols(_ value: JSONValue?) throws -> [String] {
        guard let value, !value.isNull else { return [] }
        guard let list = value.array else { throw APIError.unprocessable("symbols must be a list") }
        guard list.count <= Watchlists.maximumSymbols else {
            throw APIError.unprocessable("a watchlist holds at most \(Watchlists.maximumSymbols) symbols")
        }
        var symbols: [String] = []
        for item in list {
            guard let s = item.string?.uppercased() else { throw APIError.unprocessable("symbols must be strings") }
            guard market.directory.entry(s) != nil else { throw APIError.unprocessable("asset \(s) not found") }
            if !symbols.contains(s) { symbols.append(s) }
        }
        return symbols
    }

    func save(_ w: WatchlistRecord) async throws -> Response {
        do throws(BrokerageError) {
            try await watchlists.save(w)
        } catch {
            guard error.isDuplicate else { throw error }
            throw APIError(.unprocessableContent, code: 40010001, "watchlist name must be unique")
        }
        return encode(w).response()
    }

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let lists = try await watchlists.all(account: try context.account())
        return JSONValue.array(
            lists.map { w in
                var o = encode(w).object ?? [:]
                o["assets"] = nil // the list form omits assets, as Alpaca's does
                return .object(o)
            }
        ).response()
    }

    @Sendable func create(_ request: Request, context: AppContext) async throws -> Response {
        var request = request
        let body = try await request.jsonBody(context: context)
        let now = market.clock.now()
        let w = WatchlistRecord(
            id: UUID().uuidString.lowercased(), accountID: try context.account(),
            name: try validName(body["name"]?.string), symbols: try validSymbols(body["symbols"]),
            createdAt: now, updatedAt: now)
        return try await save(w)
    }

    @Sendable func get(_ request: Request, context: AppContext) async throws -> Response {
        encode(try await find(context, id: try context.parameters.require("id"))).response()
    }

    @Sendable func getByName(_ request: Request, context: AppContext) async throws -> Response {
        encode(try await find(context, name: request.query("name"))).response()
    }

    func replaceContents(_ w: WatchlistRecord, request: Request, context: AppContext) async throws -> Response {
        var request = request
        let body = try await request.jsonBody(context: context)
        var w = w
        if let name = body["name"], !name.isNull { w.name = try validName(name.string) }
        w.symbols = try validSymbols(body["symbols"])
        w.updatedAt = market.clock.now()
        return try await save(w)
    }

    @Sendable func update(_ request: Request, context: AppContext) async throws -> Response {
        try await replaceContents(
            try await find(context, id: try context.parameters.require("id")), request: request, context: context)
    }

    @Sendable func updateByName(_ request: Request, context: AppContext) async throws -> Response {
        try await replaceContents(
            try await find(context, name: request.query("name")), request: request, context: context)
    }

    func append(_ w: WatchlistRecord, request: Request, context: AppContext) async throws -> Response {
        var request = request
        let body = try await request.jsonBody(context: context)
        guard let symbol = body["symbol"]?.string?.uppercased() else {
            throw APIError.unprocessable("symbol is required")
        }
        guard market.directory.entry(symbol) != nil else {
            throw APIError.unprocessable("asset \(symbol) not found")
        }
        var w = w
        if !w.symbols.contains(symbol) { w.symbols.append(symbol) }
        w.updatedAt = market.clock.now()
        return try await save(w)
    }

    @Sendable func add(_ request: Request, context: AppContext) async throws -> Response {
        try await append(
            try await find(context, id: try context.parameters.require("id")), request: request, context: context)
    }

    @Sendable func addByName(_ request: Request, context: AppContext) async throws -> Response {
        try await append(try await find(context, name: request.query("name")), request: request, context: context)
    }

    @Sendable func delete(_ request: Request, context: AppContext) async throws -> Response {
        let w = try await find(context, id: try context.parameters.require("id"))
        try await watchlists.delete(w.id, account: w.accountID)
        return Response(status: .noContent)
    }

    @Sendable func deleteByName(_ request: Request, context: AppContext) async throws -> Response {
        let w = try await find(context, name: request.query("name"))
        try await watchlists.delete(w.id, account: w.accountID)
        return Response(status: .noContent)
    }

    @Sendable func removeSymbol(_ request: Request, context: AppContext) async throws -> Response {
        var w = try await find(context, id: try context.parameters.require("id"))
        let symbol = try context.pathSymbol()
        guard w.symbols.contains(symbol) else { throw APIError.notFound("\(symbol) is not in this watchlist") }
        w.symbols.removeAll { $0 == symbol }
        w.updatedAt = market.clock.now()
        return try await save(w)
    }
}
