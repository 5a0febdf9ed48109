import Testing

@testable import TradingCore

/// Converting between currencies at a pair's bid or ask (`CurrencyConversion`): exact, never paying out more than the
/// price gives, odd lots at the wider spread, and a round trip that loses the spreads and nothing else.
@Suite("Currency conversion")
struct CurrencyConversionTests {
    static let usdCNH = CurrencyPair(base: .usd, quote: .cnh)
    static let tick = FixedDecimal("0.00001")!

    @Test(
        "dollars to yuan sell USD.CNH at its bid; yuan to dollars buy it at its ask; an A-share account's CNY converts as CNH"
    )
    func sides() throws {
        let (bid, ask) = (FixedDecimal("7.12340")!, FixedDecimal("7.12350")!)
        let out = try #require(
            CurrencyConversion.convert(
                .debit(30_000), from: .usd, to: .cny, pair: Self.usdCNH, bid: bid, ask: ask, tick: Self.tick,
                usdPerBase: .one))
        #expect(!out.oddLot && out.pairPrice == bid && out.rate == bid)
        #expect(out.toAmount == FixedDecimal("213702.00")!) // 30,000 × 7.1234
        #expect(out.fromAmount == 30_000 && out.midRate == FixedDecimal("7.12345")!)
        // The spread's cost: half the spread on 30,000 dollars, in dollars (to the cent).
        #expect(out.spreadCost == FixedDecimal("0.21")!)
        let back = try #require(
            CurrencyConversion.convert(
                .debit(FixedDecimal("213702.00")!), from: .cny, to: .usd, pair: Self.usdCNH, bid: bid, ask: ask,
                tick: Self.tick, usdPerBase: .one))
        #expect(!back.oddLot && back.pairPrice == ask)
        #expect(back.toAmount == FixedDecimal("29999.57")!) // 213,702 ÷ 7.1235, down to the cent
        #expect(back.rate == FixedDecimal.one.divided(by: ask))
        // Naming the credit instead: the debit is worked back and rounded up.
        let wanted = try #require(
            CurrencyConversion.convert(
                .credit(FixedDecimal("1000.00")!), from: .cny, to: .usd, pair: Self.usdCNH, bid: bid, ask: ask,
                tick: Self.tick, usdPerBase: .one))
        #expect(wanted.toAmount == FixedDecimal("1000.00")!)
        #expect(wanted.oddLot)
        // An odd lot: the ask widened five times from the mid (7.12345 + 5 × 0.00005), up to the tick.
        #expect(wanted.pairPrice == FixedDecimal("7.12370")!)
        #expect(wanted.fromAmount == FixedDecimal("7123.70")!)
        // Pairs that do not join the currencies, crossed books and dust convert to nothing.
        #expect(
            CurrencyConversion.convert(
                .debit(100), from: .usd, to: .eur, pair: Self.usdCNH, bid: bid, ask: ask, tick: Self.tick,
                usdPerBase: .one) == nil)
        #expect(
            CurrencyConversion.convert(
                .debit(100), from: .usd, to: .cny, pair: Self.usdCNH, bid: ask, ask: bid, tick: Self.tick,
                usdPerBase: .one) == nil)
        #expect(
            CurrencyConversion.convert(
                .debit(FixedDecimal("0.01")!), from: .cny, to: .usd, pair: Self.usdCNH, bid: bid, ask: ask,
                tick: Self.tick, usdPerBase: .one) == nil)
    }

    @Test(
        "on 64 seeds × 200 conversions: never more than the price gives, within a minor unit of it, and there and back loses the spreads and the rounding, nothing else"
    )
    func properties() throws {
        for seed in UInt64(1)...64 {
            var r = SeededGenerator(seed: seed)
            for _ in 0..<200 {
                // A pair priced from 0.005 to 2 (tenths of a pip) or 0.5 to 200 (thousandths), spread 1 to 40 ticks, amounts from cents to millions.
                let tick = Bool.random(using: &r) ? Self.tick : FixedDecimal("0.001")!
                let bid = tick.times(Int.random(in: 500...200_000, using: &r))
                guard bid.isPositive else { continue }
                let ask = bid + tick.times(Int.random(in: 1...40, using: &r))
                let pair = CurrencyPair(base: .usd, quote: .cnh)
                let cents = Int.random(in: 1...200_000_000, using: &r)
                let amount = FixedDecimal(units: cents, exponent: 2)
                let sell = Bool.random(using: &r)
                let (from, to): (Currency, Currency) = sell ? (.usd, .cny) : (.cny, .usd)
                guard
                    let c = CurrencyConversion.convert(
                        .debit(amount), from: from, to: to, pair: pair, bid: bid, ask: ask, tick: tick,
                        usdPerBase: .one)
                else { continue }
                let exact = sell ? amount.multiplied(by: c.pairPrice) : amount.divided(by: c.pairPrice, places: 9)!
                #expect(c.toAmount <= exact, "seed \(seed): \(amount) \(from) → \(c.toAmount) at \(c.pairPrice)")
                #expect(exact - c.toAmount < FixedDecimal("0.01")! + FixedDecimal("0.000000001")!)
                #expect(c.fromAmount == amount && c.toAmount.isMultiple(of: to.minorUnit))
                // The credit named instead: the debit it takes pays at least the price, within a minor unit.
                if let w = CurrencyConversion.convert(
                    .credit(c.toAmount), from: from, to: to, pair: pair, bid: bid, ask: ask, tick: tick,
                    usdPerBase: .one)
                {
                    #expect(w.toAmount == c.toAmount && w.fromAmount <= amount, "seed \(seed)")
                    #expect(w.fromAmount.isMultiple(of: from.minorUnit))
                }
                // There and back at the same book: what is lost is the spreads (each leg's price against the mid)
                // and the two roundings down to a minor unit, nothing else.
                guard
                    let back = CurrencyConversion.convert(
                        .debit(c.toAmount), from: to, to: from, pair: pair, bid: bid, ask: ask, tick: tick,
                        usdPerBase: .one)
                else { continue }
                let lost = amount - back.toAmount
                // Each leg keeps price/mid of the value (the sale at the bid, the purchase at the ask).
                let firstPrice = c.pairPrice, secondPrice = back.pairPrice
                let kept =
                    sell
                    ? amount.multiplied(by: firstPrice).divided(by: secondPrice)!
                    : amount.divided(by: firstPrice)!.multiplied(by: secondPrice)
                let spreads = amount - kept
                #expect(lost >= spreads - FixedDecimal("0.000001")!, "seed \(seed): lost \(lost), spreads \(spreads)")
                // The roundings: a minor unit of the first leg's credit, carried back, and one of the second's.
                let firstRounding =
                    sell
                    ? FixedDecimal("0.01")!.divided(by: secondPrice)!
                    : FixedDecimal("0.01")!.multiplied(by: secondPrice)
                #expect(
                    lost <= spreads + firstRounding + FixedDecimal("0.01")!,
                    "seed \(seed): lost \(lost), spreads \(spreads)")
                #expect(!lost.isNegative)
            }
        }
    }
}
