import Brokerage
import Foundation
import Hummingbird
import JSON
import TradingCore

/// Money moved between two of the logged-in user's accounts (`Transfers`): a quote first — both amounts, the rate,
/// the mid rate, the spread's cost and any fee — then the transfer, converted at the live rate when the accounts'
/// currencies differ. A user's login only: an account's API key moves no money out of it.
struct TransfersController {
    let transfers: Transfers

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.post("transfers/quote", use: quote)
        group.post("transfers", use: create)
        group.get("transfers", use: list)
        group.get("transfers/{id}", use: get)
    }

    /// The body both calls take: `from_account`, `to_account`, `amount` and (optional) the amount's `currency`.
    struct Body {
        var from: AccountID
        var to: AccountID
        var amount: FixedDecimal
        var currency: Currency?
        var clientTransferID: String?

        init(_ body: JSONValue) throws {
            func account(_ key: String) throws -> AccountID {
                guard let text = body[key]?.string else { throw APIError.unprocessable("\(key) is required") }
                guard let id = AccountID(text) else { throw APIError.unprocessable("\(key) is not an account id") }
                return id
            }
            from = try account("from_account")
            to = try account("to_account")
            guard let amount = body["amount"]?.decimal else {
                throw APIError.unprocessable("amount is required: a positive amount such as \"1000.00\"")
            }
            self.amount = amount
            currency = try body["currency"].map { value in
                guard let code = value.string?.uppercased(), let currency = Currency(rawValue: code) else {
                    throw APIError.unprocessable("currency must be a currency code such as USD or CNY")
                }
                return currency
            }
            clientTransferID = try body["client_transfer_id"].map { value in
                guard let text = value.string else {
                    throw APIError.unprocessable("client_transfer_id must be a string")
                }
                return text
            }
        }
    }

    @Sendable func quote(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        let body = try Body(try await request.jsonBody(context: context))
        let quote = try await transfers.quote(
            user: user, from: body.from, to: body.to, amount: body.amount, currency: body.currency)
        return NativeEncoding.transferQuote(quote).response()
    }

    @Sendable func create(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        var request = request
        let body = try Body(try await request.jsonBody(context: context))
        let (record, made) = try await transfers.transfer(
            user: user, from: body.from, to: body.to, amount: body.amount, currency: body.currency,
            clientTransferID: body.clientTransferID)
        // A retry with a client_transfer_id already used gets that transfer again (200), never a second one.
        return NativeEncoding.transfer(record).response(status: made ? .created : .ok)
    }

    @Sendable func list(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        let limit = request.uri.queryParameters.get("limit").flatMap { Int($0) } ?? 50
        guard (1...500).contains(limit) else { throw APIError.unprocessable("limit must be 1 to 500") }
        let records = try await transfers.list(user: user, limit: limit)
        return JSONValue.object(["transfers": .array(records.map(NativeEncoding.transfer))]).response()
    }

    @Sendable func get(_ request: Request, context: AppContext) async throws -> Response {
        let user = try context.user()
        guard let text = context.parameters.get("id"), let id = TransferID(text) else {
            throw APIError.notFound("transfer not found")
        }
        return NativeEncoding.transfer(try await transfers.transfer(id, user: user)).response()
    }
}

extension NativeEncoding {
    static func transferPricing(_ p: TransferPricing) -> [String: JSONValue] {
        [
            "rate": .decimal(p.rate), "mid_rate": .decimal(p.midRate), "pair": .text(p.pair),
            "pair_price": p.pairPrice.map(JSONValue.decimal) ?? .null, "spread_cost": .decimal(p.spreadCost),
            "fee": .decimal(p.fee), "odd_lot": .bool(p.oddLot),
        ]
    }

    /// A transfer: both accounts, both amounts with their currencies, the pricing, its status.
    static func transfer(_ t: TransferRecord) -> JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(t.id.description), "client_transfer_id": .text(t.clientTransferID),
            "from_account": .string(t.from.account.description), "to_account": .string(t.to.account.description),
            "from_name": .string(t.from.name), "to_name": .string(t.to.name), "from_amount": .decimal(t.from.amount),
            "from_currency": .string(t.from.currency.rawValue), "to_amount": .decimal(t.to.amount),
            "to_currency": .string(t.to.currency.rawValue), "status": .string(t.status.rawValue),
            "created_at": .string(t.createdAt.description),
            "completed_at": t.completedAt.map { .string($0.description) } ?? .null,
        ]
        o.merge(transferPricing(t.pricing)) { a, _ in a }
        return .object(o)
    }

    /// What a transfer would move now.
    static func transferQuote(_ q: TransferQuote) -> JSONValue {
        var o: [String: JSONValue] = [
            "from_account": .string(q.fromAccount.id.description), "to_account": .string(q.toAccount.id.description),
            "from_amount": .decimal(q.fromAmount), "from_currency": .string(q.fromCurrency.rawValue),
            "to_amount": .decimal(q.toAmount), "to_currency": .string(q.toCurrency.rawValue),
            "quoted_at": .string(q.time.description),
        ]
        o.merge(transferPricing(q.pricing)) { a, _ in a }
        return .object(o)
    }
}
