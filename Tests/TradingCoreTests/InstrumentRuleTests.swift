import Testing
import TradingCore

@Suite("Instruments and market rules")
struct InstrumentRuleTests {
    @Test("A-share exchange and board follow from the code")
    func boardsFromCodes() {
        let cases: [(String, Exchange, Board)] = [
            ("600519", .sse, .main), ("601318", .sse, .main), ("688981", .sse, .star), ("000001", .szse, .main),
            ("002594", .szse, .main), ("300750", .szse, .chinext), ("301001", .szse, .chinext),
            ("920001", .bse, .beijing),
            ("430047", .bse, .beijing),
        ]
        for (code, exchange, board) in cases {
            let instrument = Instrument.aShare(code, name: "x")
            #expect(instrument?.exchange == exchange, "\(code)")
            #expect(instrument?.board == board, "\(code)")
            #expect(instrument?.currency == .cny)
            #expect(instrument?.sellableSameDay == false)
        }
        #expect(Instrument.aShare("AAPL", name: "x") == nil)
        #expect(Instrument.aShare("999999", name: "x") == nil)
        #expect(Instrument.aShare("510300", name: "沪深300ETF")?.tick == .tenthOfCent)
    }

    @Test("US tick: $0.01 at or above $1, $0.0001 below")
    func usTicks() {
        let tick = TickRule.usEquity
        #expect(tick.isValid(d("150.25")))
        #expect(!tick.isValid(d("150.255")))
        #expect(tick.isValid(d("0.5123")))
        #expect(!tick.isValid(d("0.51234")))
        #expect(tick.isValid(d("1.00")))
        #expect(!tick.isValid(d("1.0001")))
    }

    @Test("price limits: main ±10%, ST ±5%, ChiNext/STAR ±20%, BSE ±30%, rounded half-up to 0.01")
    func priceLimits() {
        func band(_ code: String, _ name: String, _ close: String) -> PriceBand? {
            let i = Instrument.aShare(code, name: name)!
            return i.priceLimit.band(previousClose: d(close), tick: i.tick)
        }
        #expect(band("600519", "贵州茅台", "1763.00") == PriceBand(limitDown: d("1586.70"), limitUp: d("1939.30")))
        #expect(band("600001", "ST海航", "2.03") == PriceBand(limitDown: d("1.93"), limitUp: d("2.13")))
        #expect(band("300750", "宁德时代", "99.68") == PriceBand(limitDown: d("79.74"), limitUp: d("119.62")))
        #expect(band("688981", "中芯国际", "99.68")?.limitUp == d("119.62"))
        #expect(band("920001", "x", "10.00") == PriceBand(limitDown: d("7.00"), limitUp: d("13.00")))
        #expect(
            Instrument.usEquity("AAPL", name: "Apple").priceLimit.band(previousClose: d("100"), tick: .usEquity) == nil)
    }

    @Test("no price limit in the first five trading days after an IPO")
    func ipoDays() {
        let rule = PriceLimitRule.mainBoard
        #expect(rule.band(previousClose: d("10"), tick: .cent, tradingDayOfListing: 5) == nil)
        #expect(rule.band(previousClose: d("10"), tick: .cent, tradingDayOfListing: 6) != nil)
        #expect(PriceLimitRule.beijing.band(previousClose: d("10"), tick: .cent, tradingDayOfListing: 2) != nil)
    }

    @Test("lots: A-share buys in 100s, odd lots sell only as the whole remainder; STAR min 200")
    func lots() {
        let main = LotRule.boardLot(100)
        #expect(main.violation(side: .buy, qty: d("200"), held: .zero, symbol: "600519") == nil)
        #expect(
            main.violation(side: .buy, qty: d("150"), held: .zero, symbol: "600519")?.message
                == "600519 trades in lots of 100 shares, and 150 is not a whole number of lots: buy 100 or 200 shares instead"
        )
        #expect(main.violation(side: .sell, qty: d("150"), held: d("150"), symbol: "600519") == nil)
        #expect(main.violation(side: .sell, qty: d("50"), held: d("150"), symbol: "600519") != nil)
        let star = LotRule.minimumThenIncrement(minimum: 200)
        #expect(star.violation(side: .buy, qty: d("201"), held: .zero, symbol: "688981") == nil)
        #expect(
            star.violation(side: .buy, qty: d("199"), held: .zero, symbol: "688981")?.message
                == "qty 199 for 688981 is below the minimum order of 200 shares")
        #expect(star.violation(side: .sell, qty: d("150"), held: d("150"), symbol: "688981") == nil)
        #expect(LotRule.anyWholeShares.violation(side: .buy, qty: d("1.5"), held: .zero, symbol: "AAPL") != nil)
    }

    @Test("fees: A-share commission 0.025% min ¥5, stamp duty 0.05% on sells, transfer fee 0.001%")
    func aShareFees() {
        let fees = FeeSchedule.cnDefault
        // Buy ¥10,000: commission 2.50 → minimum 5.00; transfer 0.10; no stamp duty.
        let buy = fees.fees(side: .buy, filledQty: d("100"), filledValue: d("10000"), currency: .cny)
        #expect(buy == [FeeCharge(kind: .commission, amount: d("5")), FeeCharge(kind: .transferFee, amount: d("0.1"))])
        // Sell ¥176,300: commission 44.075 → 44.08 (half-up); stamp 88.15; transfer 1.763 → 1.76.
        let sell = fees.fees(side: .sell, filledQty: d("100"), filledValue: d("176300"), currency: .cny)
        #expect(
            sell == [
                FeeCharge(kind: .commission, amount: d("44.08")), FeeCharge(kind: .stampDuty, amount: d("88.15")),
                FeeCharge(kind: .transferFee, amount: d("1.76")),
            ])
    }

    @Test("fees: US zero commission; FINRA TAF per share sold, rounded up, capped at $8.30")
    func usFees() {
        let fees = FeeSchedule.usDefault
        #expect(fees.fees(side: .buy, filledQty: d("100"), filledValue: d("15000"), currency: .usd).isEmpty)
        #expect(
            fees.fees(side: .sell, filledQty: d("100"), filledValue: d("15000"), currency: .usd)
                == [FeeCharge(kind: .finraTAF, amount: d("0.02"))]) // 0.0166 → 0.02
        #expect(
            fees.fees(side: .sell, filledQty: d("1000000"), filledValue: d("1000000"), currency: .usd)
                == [FeeCharge(kind: .finraTAF, amount: d("8.30"))])
        var old = FeeSchedule.usDefault
        old.components[0].basis = .value(rate: d("0.0000278")) // SEC fee before 2025-05-14
        #expect(
            old.fees(side: .sell, filledQty: d("100"), filledValue: d("15000"), currency: .usd).first
                == FeeCharge(kind: .secFee, amount: d("0.42"))) // 0.417 rounded up
    }
}
