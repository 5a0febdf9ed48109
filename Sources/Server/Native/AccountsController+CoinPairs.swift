import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// The trade sheet's estimate for a pair priced in another coin (`BTC/USDT`): everything in coins — the quote coin
/// paid or received (quantity × price), the fee in the coin received at the account's tier, what the coin it pays
/// with holds free, the most it buys or sells — and the refusal placing it would meet.
extension AccountsController {
    func coinEstimate(
        _ record: AccountRecord, summary: AccountSummary, entry: DirectoryEntry, side: OrderSide,
        qty requested: Quantity, price: Price, limit: Price?, notional: Bool, type: String?, context: AppContext
    ) async throws -> Response {
        let instrument = entry.instrument
        guard let pair = instrument.coinPair else { throw APIError.notFound("\(entry.symbol) is not a coin pair") }
        guard !notional else {
            throw APIError.unprocessable(
                "\(pair) is priced in \(pair.quote), not dollars: give qty (in \(pair.base)) instead of notional")
        }
        let account = summary.account
        let qty = requested
        let value = price.multiplied(by: qty, places: FixedDecimal.scale, rule: .halfUp)
        // The coin it pays with, and what of it is free (held less what other orders hold).
        let paying = summary.positions.first { $0.instrument.symbol == pair.paidLeg(side) }?.position
        let available = Self.free(paying)
        let most = Self.mostCoins(side: side, available: available, price: price, instrument: instrument)
        // The fee: the taker's rate unless a limit rests, in the coin received.
        let role = await feeRole(instrument.symbol, side: side, limit: limit, type: type)
        let date = market.clock.sessions.tradingDate(instrument.calendar, at: market.clock.now())
        let volume = account.cryptoVolume.trailing(before: date)
        let rate = account.fees.crypto.tier(forVolume: volume).rate(role)
        let received = side == .buy ? qty : value
        let fee = received.multiplied(by: rate, places: FixedDecimal.scale, rule: .halfUp)
        let receivedCoin = side == .buy ? pair.base : pair.quote
        var refusal: String?
        if let order = Self.estimatedOrder(
            type, symbol: instrument.symbol, side: side, qty: qty, price: limit, timeInForce: .gtc),
            let rejection = try await orderService.check(order, account: record.id)
        {
            let language = (try? context.user()).map { languages.language(of: $0) } ?? .en
            refusal = RejectionWording.message(rejection, in: language)
        }
        return JSONValue.object([
            "refusal": .text(refusal), "symbol": .string(instrument.symbol), "side": .string(side.rawValue),
            "qty": .decimal(qty), "price": .decimal(price), "value": .decimal(value),
            "coin_pair": .object(["base": .string(pair.base), "quote": .string(pair.quote)]),
            "pays": .object([
                "coin": .string(side == .buy ? pair.quote : pair.base), "amount": .decimal(side == .buy ? value : qty),
            ]),
            "receives": .object(["coin": .string(receivedCoin), "amount": .decimal(received - fee)]),
            "available": .object([
                "coin": .string(side == .buy ? pair.quote : pair.base), "amount": .decimal(available),
            ]),
            "fees": .array([
                .object([
                    "kind": .string("crypto_fee"), "qty": .decimal(fee), "coin": .string(receivedCoin),
                    "liquidity": .string(role.rawValue), "rate": .decimal(rate),
                ])
            ]),
            "most": .decimal(most), "sellable": .decimal(side == .sell ? available : .zero),
            "currency": .string(account.currency.rawValue), "short_sale": .bool(false),
        ]).response(headers: [.cacheControl: "no-store"])
    }

    /// What a position holds free of other orders (zero without one).
    static func free(_ position: Position?) -> Quantity {
        guard let position else { return .zero }
        return Swift.max(.zero, position.qty - position.reservedForSale)
    }

    /// The most a coin-pair order can trade: what the quote coins buy at `price` on the pair's steps, or the base
    /// coins held.
    static func mostCoins(side: OrderSide, available: Quantity, price: Price, instrument: Instrument) -> Quantity {
        guard side == .buy else { return available }
        guard price.isPositive, let coins = available.divided(by: price, rule: .down) else { return .zero }
        guard case .fractional(_, let increment) = instrument.lot, increment.isPositive else { return coins }
        return coins.rounded(toMultipleOf: increment, rule: .down)
    }
}
