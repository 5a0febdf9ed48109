import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Alpaca's option contracts (`/v2/options/contracts`): the listing with every filter Alpaca takes and its defaults,
/// and the lookup by OCC symbol or contract id. Contracts are the simulated chains of `options`.
struct OptionContractsController {
    let options: OptionMarket

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("options/contracts", use: list)
        group.get("options/contracts/{symbol_or_id}", use: lookup)
    }

    /// A contract as Alpaca serves it: every field as its spec types it (decimals as strings), `root_symbol` always
    /// (alpaca-py requires it), deliverables when asked.
    static func encode(
        _ contract: OptionContract, active: Bool, close: OptionSnapshot?, deliverables: Bool
    ) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(OptionContractID.id(contract).description), "symbol": .string(contract.occSymbol),
            "name": .string(contract.name), "status": .string(active ? "active" : "inactive"),
            "tradable": .bool(active), "expiration_date": .string(contract.expiration.description),
            "root_symbol": .string(contract.root), "underlying_symbol": .string(contract.underlying),
            "underlying_asset_id": .string(AlpacaEncoding.assetID(contract.underlying)),
            "type": .string(contract.right.rawValue), "style": .string(contract.style.rawValue),
            "strike_price": .string(contract.strike.description), "multiplier": .string(String(contract.multiplier)),
            "size": .string(String(contract.multiplier)), "ppind": .bool(true),
            "open_interest": close.map { .string(String($0.openInterest)) } ?? .null,
            "open_interest_date": close?.openInterestDate.map { .string($0.description) } ?? .null,
            "close_price": close?.last.map { .string($0.description) } ?? .null,
            "close_price_date": close.map { .string(TradingCalendar.xnys.zone.localTime(of: $0.time).date.description) }
                ?? .null,
        ]
        if deliverables {
            fields["deliverables"] = .array([
                .object([
                    "type": .string("equity"), "symbol": .string(contract.underlying),
                    "asset_id": .string(AlpacaEncoding.assetID(contract.underlying)),
                    "amount": .string(String(contract.deliverable)), "allocation_percentage": .string("100"),
                    "settlement_type": .string("T+1"), "settlement_method": .string("CCC"),
                    "delayed_settlement": .bool(false),
                ])
            ])
        }
        return .object(fields)
    }

    /// The day after which Alpaca's listing stops when no expiration filter is given: the coming Saturday (on a
    /// Thursday, Thursday's and Friday's expirations; on a Saturday, the next seven days).
    static func comingWeekend(after today: CivilDate) -> CivilDate {
        let days = (Weekday.saturday.rawValue - today.weekday.rawValue + 7) % 7
        return today.adding(days: days == 0 ? 7 : days)
    }

    /// The query parameters, each checked: `underlying_symbols`, `status` (active by default), `expiration_date`,
    /// `expiration_date_gte`, `expiration_date_lte` (the coming weekend when no expiration filter is given — the
    /// newest documentation's default, applied as it describes), `root_symbol`, `type`, `style`,
    /// `strike_price_gte`, `strike_price_lte`, `ppind`, `show_deliverables`.
    func query(_ request: Request) throws -> OptionMarket.ContractQuery {
        var q = OptionMarket.ContractQuery()
        q.underlyings =
            request.query("underlying_symbols")?.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).uppercased()
            }.filter { !$0.isEmpty } ?? []
        switch request.query("status")?.lowercased() {
        case nil, "active": q.active = true
        case "inactive": q.active = false
        case let other?: throw APIError.unprocessable("invalid status \(other); expected active or inactive")
        }
        func date(_ name: String) throws -> CivilDate? { try request.dateQuery(name) }
        if let exact = try date("expiration_date") {
            q.expirationFrom = exact
            q.expirationThrough = exact
        } else {
            q.expirationFrom = try date("expiration_date_gte")
            q.expirationThrough = try date("expiration_date_lte")
            if q.expirationFrom == nil, q.expirationThrough == nil, q.active {
                q.expirationThrough = Self.comingWeekend(after: options.today())
            }
        }
        if let root = request.query("root_symbol") { q.root = root.uppercased() }
        if let type = request.query("type") {
            guard let right = OptionRight(rawValue: type.lowercased()) else {
                throw APIError.unprocessable("invalid type \(type); expected call or put")
            }
            q.right = right
        }
        if let style = request.query("style") {
            guard let value = OptionStyle(rawValue: style.lowercased()) else {
                throw APIError.unprocessable("invalid style \(style); expected american or european")
            }
            q.style = value
        }
        q.strikeFrom = try request.decimalQuery("strike_price_gte")
        q.strikeThrough = try request.decimalQuery("strike_price_lte")
        // Every class papertrade lists is in the Penny Program, so ppind=false lists nothing.
        if try request.boolQuery("ppind") == false { q.underlyings = ["-"] }
        return q
    }

    /// `GET /v2/options/contracts` → `{"option_contracts": […], "next_page_token": …}`; `limit` 1–10,000 (100). A
    /// page can hold fewer than `limit` and still name a next page (see `OptionMarket.contracts`): follow the token.
    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let q = try query(request)
        let limit = try request.integerQuery("limit", in: 1...10_000, default: 100)
        let deliverables = try request.boolQuery("show_deliverables") ?? false
        var cursor = OptionMarket.ContractCursor()
        if let token = request.query("page_token") {
            guard let parsed = OptionMarket.ContractCursor(token) else {
                throw APIError.unprocessable("invalid page_token \(token)")
            }
            cursor = parsed
        }
        let (page, next): ([(contract: OptionContract, chain: OptionMarket.ChainDay)], OptionMarket.ContractCursor?)
        do throws(FeedError) {
            (page, next) = try await options.contracts(q, from: cursor, limit: limit)
        } catch { throw APIError(feed: error) }
        let options = self.options
        return JSONValue.object([
            "option_contracts": .array(
                page.map {
                    Self.encode(
                        $0.contract, active: q.active, close: options.previousClose($0.contract, of: $0.chain),
                        deliverables: deliverables)
                }),
            "next_page_token": next.map { .string($0.description) } ?? .null,
        ]).response()
    }

    /// `GET /v2/options/contracts/{symbol_or_id}`: an OCC symbol or a contract id; 404 in Alpaca's words otherwise.
    @Sendable func lookup(_ request: Request, context: AppContext) async throws -> Response {
        let key = context.parameters.get("symbol_or_id") ?? ""
        let symbol = Identifier(key).flatMap(OptionContractID.contract)?.occSymbol ?? key
        let options = self.options
        guard let found = await options.contract(symbol) else {
            throw APIError.notFound("option contract \(key) not found")
        }
        let day = found.active ? options.today() : found.contract.expiration
        let chain: OptionMarket.ChainDay
        do throws(FeedError) { chain = try await options.chain(found.contract.underlying, on: day) } catch {
            throw APIError(feed: error)
        }
        return Self.encode(
            found.contract, active: found.active, close: options.previousClose(found.contract, of: chain),
            deliverables: true
        ).response()
    }
}
