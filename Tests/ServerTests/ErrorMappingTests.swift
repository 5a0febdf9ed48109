import Brokerage
import HTTPTypes
import Server
import Testing
import TradingCore

@Suite("Brokerage failures answer with Alpaca's statuses and codes")
struct ErrorMappingTests {
    @Test(
        "refusals: buying power and quantity 403/40310000, unknown order 404, duplicate client id 422/40010001, the rest 422"
    )
    func rejections() {
        let cases: [(OrderRejection.Reason, HTTPResponse.Status, Int)] = [
            (.insufficientBuyingPower, .forbidden, 40310000), (.insufficientQty, .forbidden, 40310000),
            (.notSellableToday, .forbidden, 40310000), (.orderNotFound, .notFound, 40410000),
            (.duplicateClientOrderID, .unprocessableContent, 40010001), (.subPenny, .unprocessableContent, 42210000),
            (.lotSize, .unprocessableContent, 42210000), (.marketClosed, .unprocessableContent, 42210000),
        ]
        for (reason, status, code) in cases {
            let error = BrokerageError.rejected(OrderRejection(reason, "x"))
            #expect(error.status == status, "\(reason)")
            #expect(error.alpacaCode == code, "\(reason)")
        }
    }

    @Test("not found 404, invalid 422, conflict 409, unavailable 503; the message is kept")
    func others() {
        #expect(BrokerageError.notFound("order not found").status == .notFound)
        #expect(BrokerageError.invalid("bad").status == .unprocessableContent)
        #expect(BrokerageError.conflict("user bob already exists").alpacaCode == 40900000)
        #expect(BrokerageError.unavailable("storage unavailable").status == .serviceUnavailable)
        #expect(BrokerageError.conflict("user bob already exists").message == "user bob already exists")
    }
}
