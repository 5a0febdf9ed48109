import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

extension AccountsController {
    /// The trade sheet's estimate for an order on a currency pair: what it pays and receives, each in its own currency
    /// (`qty` is the base currency's amount; a purchase pays `qty` × the price of the quote currency), the most the
    /// currency paid allows, and the refusal placing it would meet, in the user's language.
    func forexEstimate(
        _ record: AccountRecord, summary: AccountSummary, symbol: String, pair: CurrencyPair, side: OrderSide,
        qty requested: Quantity, price: Price, limit: Price?, type: String?, context: AppContext
    ) async throws -> Response {
        let account = summary.account
        let places = pair.base.minorUnitDigits
        let qty = requested.rounded(places: places, rule: .down)
        let value = pair.quote.round(price.multiplied(by: qty), .halfUp)
        let paid = pair.paid(side)
        let available = account.available(paid)
        let most =
            side == .buy
            ? (price.isPositive ? available.divided(by: price, places: places, rule: .down) ?? .zero : .zero)
            : available.rounded(places: places, rule: .down)
        var refusal: String?
        if let order = Self.estimatedOrder(
            type, symbol: symbol, side: side, qty: requested, price: limit, timeInForce: .gtc),
            let rejection = try await orderService.check(order, account: record.id)
        {
            let language = (try? context.user()).map { languages.language(of: $0) } ?? .en
            refusal = RejectionWording.message(rejection, in: language)
        }
        let (payAmount, receiveAmount) = side == .buy ? (value, qty) : (qty, value)
        return JSONValue.object([
            "refusal": .text(refusal), "symbol": .string(symbol), "side": .string(side.rawValue),
            "qty": .decimal(qty), "price": .decimal(price), "value": .decimal(value),
            "pays": .object(["currency": .string(paid.rawValue), "amount": .decimal(payAmount)]),
            "receives": .object([
                "currency": .string((side == .buy ? pair.base : pair.quote).rawValue),
                "amount": .decimal(receiveAmount),
            ]),
            "available": .object(["currency": .string(paid.rawValue), "amount": .decimal(Swift.max(.zero, available))]),
            "most": .decimal(Swift.max(.zero, most)),
            "sellable": .decimal(Swift.max(.zero, side == .sell ? most : .zero)),
            "fees": .array([]), "fee_total": .decimal(FixedDecimal.zero),
            "currency": .string(account.currency.rawValue),
            "short_sale": .bool(false), "forex": .bool(true),
        ]).response(headers: [.cacheControl: "no-store"])
    }
}
