import Brokerage
import Testing
import TradingCore

/// A crypto order's refusal reads in Chinese as in English: each of the crypto rules' sentences has its template,
/// and every figure it names is filled in.
@Suite("Crypto refusals in Chinese")
struct CryptoWordingTests {
    @Test("every crypto refusal has a Chinese sentence with its figures filled in")
    func chinese() throws {
        var engine = TradingEngine()
        let account = AccountID(high: 9, low: 9)
        try engine.openAccount(account, market: .us, startingCash: 10_000, fees: .free)
        let btc = engine.register(
            .cryptoPair(
                "BTC/USD", name: "Bitcoin", minimumOrder: FixedDecimal("0.0001")!,
                increment: FixedDecimal("0.0001")!, priceIncrement: 1))
        let t = Timestamp(CivilDate(2026, 11, 21), hour: 3, in: .utc)
        engine.apply(.quote(btc, at: t, bid: 91_000, bidSize: 5, ask: 91_001, askSize: 5))
        func request(
            _ side: OrderSide, _ qty: String?, _ type: OrderType = .market, tif: TimeInForce = .gtc,
            notional: FixedDecimal? = nil, limit: Price? = nil, stop: Price? = nil
        ) -> OrderRequest {
            OrderRequest(
                symbol: "BTC/USD", side: side, type: type, timeInForce: tif, qty: qty.flatMap(FixedDecimal.init),
                notional: notional, limitPrice: limit, stopPrice: stop)
        }
        var extended = request(.buy, "0.001", .limit, limit: 90_000)
        extended.extendedHours = true
        var bracket = request(.buy, "0.001", .limit, limit: 90_000)
        bracket.orderClass = .bracket
        bracket.takeProfit = .init(limitPrice: 99_000)
        bracket.stopLoss = .init(stopPrice: 85_000)
        let refused: [(OrderRequest, String)] = [
            (request(.buy, "0.00005"), "低于最小下单量 0.0001"),
            (request(.buy, "0.00015"), "最小交易单位 0.0001"),
            (request(.buy, "0.001", .stop, stop: 95_000), "不支持 stop 委托"),
            (request(.buy, "0.001", tif: .day), "不能是 day"),
            (bracket, "不支持 bracket 委托"),
            (extended, "全天候交易"),
            (request(.buy, nil, .limit, notional: 50, limit: 90_000), "只能用市价委托"),
            (request(.sell, "0.01"), "BTC 余额不足（委托 0.01，可用 0）"),
        ]
        for (order, expected) in refused {
            do throws(OrderRejection) {
                _ = try engine.submit(order, account: account, at: t)
                Issue.record("accepted: \(order)")
            } catch {
                let text = RejectionWording.message(error, in: .zhHans)
                #expect(text.contains(expected), "\(text)")
                #expect(!text.contains("{"), "\(text)")
            }
        }
    }
}
