import Testing
import TradingCore

@Suite("Fill engine")
struct FillEngineTests {
    var f = Fixture()
    let t = Fixture.usMorning
    let c = Fixture.cnMorning

    func depth(_ levels: [(String, Int)]) -> BookSide { BookSide(levels.map { (d($0.0), FixedDecimal($0.1)) }) }

    @Test(
        "orders canceled from the middle of a book: a canceled best bid no longer fills; the rest fill best price first"
    )
    mutating func cancelFromTheMiddle() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        var ids: [String: OrderID] = [:]
        for (n, cents) in [3, 7, 0, 9, 5, 1, 8, 2, 6, 4].enumerated() { // submitted in a scrambled order
            let limit = "140.0\(cents)"
            ids[limit] = try #require(
                f.place(buy("AAPL", "1", .limit, limit: limit, tif: .gtc), at: t.adding(seconds: Int64(n))).order
            ).id
        }
        for limit in ["140.09", "140.05", "140.03"] { // the best, one in the middle, the first submitted
            _ = try f.engine.cancel(ids[limit]!, account: f.us, at: t.adding(seconds: 20))
        }
        f.quote(f.aapl, bid: "140.00", ask: "140.09", at: t.adding(seconds: 21))
        #expect(
            ids.values.allSatisfy { f.engine.order($0)?.status != .filled },
            "only the canceled 140.09 bid crossed 140.09")
        f.engine.outbox.removeAll()
        f.quote(f.aapl, bid: "139.00", ask: "140.07", at: t.adding(seconds: 22))
        let fills = f.engine.outbox.compactMap { event -> FixedDecimal? in
            if case .order(let u) = event, u.event == .fill { return u.order.limitPrice } else { return nil }
        }
        #expect(fills == [d("140.08"), d("140.07")])
        _ = try f.engine.cancel(ids["140.00"]!, account: f.us, at: t.adding(seconds: 23)) // moved by the swaps above
        f.quote(f.aapl, bid: "138.00", ask: "139.00", at: t.adding(seconds: 24))
        let status = ids.mapValues { f.engine.order($0)!.status }
        #expect(
            status.filter { $0.value == .filled }.keys.sorted() == [
                "140.01", "140.02", "140.04", "140.06", "140.07", "140.08",
            ])
        #expect(status.filter { $0.value == .canceled }.keys.sorted() == ["140.00", "140.03", "140.05", "140.09"])
    }

    @Test("cancel all on a crowded book: 5,000 resting buys on one symbol all canceled, every reserved dollar released")
    mutating func cancelAllCrowded() throws {
        var fx = Fixture(usCash: 10_000_000)
        fx.quote(fx.aapl, bid: "150.00", ask: "150.05", at: t)
        for n in 0..<5_000 {
            _ = try #require(fx.place(buy("AAPL", "1", .limit, limit: "\(100 + n % 40).00", tif: .gtc), at: t).order)
        }
        #expect(fx.engine.account(fx.us)!.reservedCash > 0)
        let results = try fx.engine.cancelAll(account: fx.us, at: t.adding(seconds: 1))
        #expect(results.count == 5_000 && results.allSatisfy { (try? $0.1.get())?.status == .canceled })
        #expect(fx.engine.account(fx.us)!.reservedCash == 0)
        #expect(fx.engine.openOrders(of: fx.us).isEmpty && fx.engine.instrumentsWithWorkingOrders.isEmpty)
        fx.quote(fx.aapl, bid: "100.00", ask: "100.05", at: t.adding(seconds: 2)) // would have crossed every one
        #expect(fx.engine.account(fx.us)!.positions.isEmpty)
    }

    @Test("market orders take the opposite side of the quote")
    mutating func marketTakesQuote() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        let b = try #require(f.place(buy("AAPL", "10"), at: t).order)
        #expect(b.status == .filled)
        #expect(b.filledAvgPrice == d("150.05"))
        let s = try #require(f.place(sell("AAPL", "4"), at: t).order)
        #expect(s.filledAvgPrice == d("150.00"))
        #expect(f.cash(f.us) == d("100000") - d("1500.50") + d("600.00") - d("0.01")) // TAF 4 × 0.000166 → 0.01
    }

    @Test(
        "without order updates (a backtest's engine) the ledger still gets every fill and fee, and nothing else changes"
    )
    func ledgerOnlyOutbox() throws {
        var configuration = EngineConfiguration()
        configuration.publishesOrderUpdates = false
        func trade(_ fx: inout Fixture) throws {
            fx.quote(fx.aapl, bid: "150.00", ask: "150.05", at: t)
            _ = try #require(fx.place(buy("AAPL", "10"), at: t).order)
            _ = try #require(fx.place(sell("AAPL", "4", .limit, limit: "151", tif: .gtc), at: t).order)
            fx.trade(fx.aapl, "151.50", at: t.adding(seconds: 1))
        }
        var quiet = Fixture(configuration: configuration)
        var loud = Fixture()
        try trade(&quiet)
        try trade(&loud)
        let ledgerOnly = quiet.engine.outbox.compactMap { if case .ledger(let e) = $0 { e } else { nil } }
        #expect(ledgerOnly.count == quiet.engine.outbox.count, "no order updates")
        #expect(ledgerOnly.filter { if case .fill = $0.kind { true } else { false } }.count == 2)
        #expect(ledgerOnly.contains { if case .fee = $0.kind { true } else { false } }) // the sale's TAF
        #expect(quiet.ledger(quiet.us) == loud.ledger(loud.us))
        #expect(loud.engine.outbox.contains { if case .order = $0 { true } else { false } }) // (published by default)
        #expect(quiet.cash(quiet.us) == loud.cash(loud.us))
        #expect(quiet.position(quiet.us, quiet.aapl)?.qty == 6)
    }

    @Test("limit orders fill only when the quote crosses them, at the better (quoted) price")
    mutating func limitCrossing() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        let o = try #require(f.place(buy("AAPL", "10", .limit, limit: "149.50"), at: t).order)
        #expect(o.status == .new)
        f.quote(f.aapl, bid: "149.40", ask: "149.55", at: t.adding(seconds: 1))
        #expect(f.engine.order(o.id)?.status == .new) // ask 149.55 is above the limit
        f.quote(f.aapl, bid: "149.30", ask: "149.45", at: t.adding(seconds: 2))
        let filled = try #require(f.engine.order(o.id))
        #expect(filled.status == .filled)
        #expect(filled.filledAvgPrice == d("149.45")) // better than the 149.50 limit
    }

    @Test("a trade through the limit fills at the trade price; a trade at the limit does not")
    mutating func tradeThroughLimit() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        let o = try #require(f.place(buy("AAPL", "10", .limit, limit: "149.50"), at: t).order)
        f.trade(f.aapl, "149.50", at: t.adding(seconds: 1))
        #expect(f.engine.order(o.id)?.status == .new)
        f.trade(f.aapl, "149.48", size: 1000, at: t.adding(seconds: 2))
        #expect(f.engine.order(o.id)?.filledAvgPrice == d("149.48"))
    }

    @Test("size is bounded by the quoted size: large orders fill partially over several quotes, walking the depth")
    mutating func partialFillsByDepth() throws {
        let quote = Quote(bids: depth([("99.99", 100)]), asks: depth([("100.00", 100), ("100.01", 50)]))
        f.engine.apply(MarketEvent(instrument: f.aapl, time: t, kind: .quote(quote)))
        let o = try #require(f.place(buy("AAPL", "300", .limit, limit: "100.01"), at: t).order)
        #expect(o.status == .partiallyFilled)
        #expect(o.filledQty == d("150"))
        #expect(o.filledValue == d("15000.50")) // 100 @ 100.00 + 50 @ 100.01
        let fills = f.updates(o.id).compactMap(\.fill)
        #expect(fills.map(\.price) == [d("100.00"), d("100.01")])
        f.engine.apply(MarketEvent(instrument: f.aapl, time: t.adding(seconds: 1), kind: .quote(quote)))
        #expect(f.engine.order(o.id)?.filledQty == d("300"))
        #expect(f.engine.order(o.id)?.status == .filled)
    }

    @Test("size is bounded by a participation share of traded volume")
    mutating func participation() throws {
        f = Fixture(configuration: EngineConfiguration(volumeParticipation: d("0.1")))
        f.trade(f.aapl, "150.00", at: t)
        let o = try #require(f.place(buy("AAPL", "100"), at: t).order) // no quote: waits for liquidity
        #expect(o.status == .new)
        f.trade(f.aapl, "150.10", size: 300, at: t.adding(seconds: 1))
        #expect(f.engine.order(o.id)?.filledQty == d("30"))
        f.trade(f.aapl, "150.20", size: 1000, at: t.adding(seconds: 2))
        #expect(f.engine.order(o.id)?.filledQty == d("100"))
    }

    @Test("stop orders trigger on a trade at or through the stop, then fill as market orders")
    mutating func stops() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        _ = f.place(buy("AAPL", "10"), at: t)
        let stop = try #require(f.place(sell("AAPL", "10", .stop, stop: "148.00"), at: t).order)
        f.trade(f.aapl, "148.50", at: t.adding(seconds: 1))
        #expect(f.engine.order(stop.id)?.triggered == false)
        f.trade(f.aapl, "147.90", size: 1000, at: t.adding(seconds: 2))
        let o = try #require(f.engine.order(stop.id))
        #expect(o.status == .filled)
        #expect(o.filledAvgPrice == d("147.90"))
    }

    @Test("stop-limit orders become limit orders once triggered")
    mutating func stopLimit() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        let o = try #require(f.place(buy("AAPL", "10", .stopLimit, limit: "152.00", stop: "151.00"), at: t).order)
        f.quote(f.aapl, bid: "151.00", ask: "153.00", at: t.adding(seconds: 1)) // triggers, but ask above limit
        #expect(f.engine.order(o.id)?.triggered == true)
        #expect(f.engine.order(o.id)?.status == .new)
        f.quote(f.aapl, bid: "151.50", ask: "151.90", at: t.adding(seconds: 2))
        #expect(f.engine.order(o.id)?.filledAvgPrice == d("151.90"))
    }

    @Test("trailing stops track the high-water mark and trigger on the pullback")
    mutating func trailingStop() throws {
        f.quote(f.aapl, bid: "100.00", ask: "100.05", at: t)
        _ = f.place(buy("AAPL", "10"), at: t)
        f.trade(f.aapl, "100.00", at: t)
        var request = sell("AAPL", "10", .trailingStop)
        request.trailPercent = d("5")
        let o = try #require(f.place(request, at: t).order)
        #expect(o.hwm == d("100.00"))
        #expect(o.stopPrice == d("95.00"))
        f.trade(f.aapl, "110.00", at: t.adding(seconds: 1))
        #expect(f.engine.order(o.id)?.hwm == d("110.00"))
        #expect(f.engine.order(o.id)?.stopPrice == d("104.50"))
        f.trade(f.aapl, "105.00", at: t.adding(seconds: 2))
        #expect(f.engine.order(o.id)?.status == .new)
        f.trade(f.aapl, "104.40", size: 1000, at: t.adding(seconds: 3))
        #expect(f.engine.order(o.id)?.status == .filled)
        #expect(f.engine.order(o.id)?.filledAvgPrice == d("104.40"))
    }

    @Test("day orders expire at the session close; gtc orders stay")
    mutating func dayExpiry() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        let day = try #require(f.place(buy("AAPL", "1", .limit, limit: "140.00"), at: t).order)
        let gtc = try #require(f.place(buy("AAPL", "1", .limit, limit: "140.00", tif: .gtc), at: t).order)
        #expect(day.expiresAt == Timestamp(CivilDate(2026, 11, 20), hour: 16, in: .newYork))
        f.engine.advance(to: Timestamp(CivilDate(2026, 11, 20), hour: 15, minute: 59, in: .newYork))
        #expect(f.engine.order(day.id)?.status == .new)
        f.quote(
            f.aapl, bid: "150.00", ask: "150.05",
            at: Timestamp(CivilDate(2026, 11, 20), hour: 16, minute: 1, in: .newYork))
        #expect(f.engine.order(day.id)?.status == .expired)
        #expect(f.engine.order(gtc.id)?.status == .new)
        #expect(f.engine.account(f.us)?.reservedCash == d("140.00"))
    }

    @Test("nothing fills outside regular hours unless the order is an extended-hours order")
    mutating func sessions() throws {
        let pre = Timestamp(CivilDate(2026, 11, 20), hour: 8, in: .newYork)
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: pre)
        let regular = try #require(f.place(buy("AAPL", "1", .limit, limit: "151.00"), at: pre).order)
        var ext = buy("AAPL", "1", .limit, limit: "151.00")
        ext.extendedHours = true
        let extended = try #require(f.place(ext, at: pre).order)
        #expect(regular.status == .new)
        #expect(extended.status == .filled)
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        #expect(f.engine.order(regular.id)?.status == .filled)
    }

    @Test("opg and cls orders take the auction price; the unfilled rest expires")
    mutating func auctions() throws {
        let pre = Timestamp(CivilDate(2026, 11, 20), hour: 9, in: .newYork)
        let o = try #require(
            f.place(
                OrderRequest(
                    symbol: "AAPL", side: .buy, type: .limit, timeInForce: .opg, qty: 50,
                    limitPrice: d("151")), at: pre
            ).order)
        let open = Timestamp(CivilDate(2026, 11, 20), hour: 9, minute: 30, in: .newYork)
        f.engine.apply(
            MarketEvent(instrument: f.aapl, time: open, kind: .auction(.open, price: d("150.50"), volume: 200)))
        let done = try #require(f.engine.order(o.id))
        #expect(done.filledQty == d("20")) // 10% of the 200 shares crossed
        #expect(done.filledAvgPrice == d("150.50"))
        #expect(done.status == .expired)
    }

    @Test("A-share buys never fill at limit-up from trades or bars; only displayed asks fill")
    mutating func limitUp() throws {
        f.reference(f.moutai, previousClose: "1763.00", at: c) // limit-up 1939.30
        f.quote(f.moutai, bid: "1939.29", ask: "1939.30", at: c)
        let o = try #require(f.place(buy("600519", "100", .limit, limit: "1939.30"), at: c).order)
        #expect(o.status == .filled) // sellers displayed at the limit: fills
        // Now pinned: ask side empty, trades print at limit-up.
        f.engine.apply(
            MarketEvent(
                instrument: f.moutai, time: c.adding(seconds: 1),
                kind: .quote(Quote(bids: depth([("1939.30", 50000)]), asks: .empty))))
        let queued = try #require(
            f.place(buy("600519", "100", .limit, limit: "1939.30"), at: c.adding(seconds: 1)).order)
        f.trade(f.moutai, "1939.30", size: 100_000, at: c.adding(seconds: 2))
        f.engine.apply(
            MarketEvent(
                instrument: f.moutai, time: c.adding(seconds: 3),
                kind: .bar(
                    Bar(open: d("1939.30"), high: d("1939.30"), low: d("1939.30"), close: d("1939.30"), volume: 100_000)
                )))
        #expect(f.engine.order(queued.id)?.status == .new)
    }

    @Test("fill latency: an order cannot fill before submission + latency")
    mutating func latency() throws {
        f = Fixture(configuration: EngineConfiguration(fillLatency: 500 * 1_000_000))
        f.quote(f.aapl, bid: "150.00", ask: "150.05", at: t)
        let o = try #require(f.place(buy("AAPL", "1"), at: t).order)
        #expect(o.status == .new)
        f.quote(f.aapl, bid: "150.10", ask: "150.15", at: t.adding(nanoseconds: 100_000_000))
        #expect(f.engine.order(o.id)?.status == .new)
        f.quote(f.aapl, bid: "150.20", ask: "150.25", at: t.adding(nanoseconds: 600_000_000))
        #expect(f.engine.order(o.id)?.filledAvgPrice == d("150.25"))
    }

    @Test("slippage moves the price against the order but never past the worst quoted level")
    mutating func slippage() throws {
        f = Fixture(configuration: EngineConfiguration(slippageTicks: 3))
        let quote = Quote(bids: depth([("99.99", 100)]), asks: depth([("100.00", 100), ("100.02", 100)]))
        f.engine.apply(MarketEvent(instrument: f.aapl, time: t, kind: .quote(quote)))
        let o = try #require(f.place(buy("AAPL", "150"), at: t).order)
        let prices = f.updates(o.id).compactMap(\.fill).map(\.price)
        #expect(prices == [d("100.02"), d("100.02")]) // 100.00 + 3 ticks clamped to 100.02
    }

    @Test("ioc fills what it can and cancels the rest; fok fills completely or not at all")
    mutating func iocFok() throws {
        f.quote(f.aapl, bid: "150.00", ask: "150.05", size: 100, at: t)
        let ioc = try #require(f.place(buy("AAPL", "150", .limit, limit: "150.05", tif: .ioc), at: t).order)
        #expect(ioc.status == .canceled)
        #expect(ioc.filledQty == d("100"))
        let fok = try #require(f.place(buy("AAPL", "150", .limit, limit: "150.05", tif: .fok), at: t).order)
        #expect(fok.status == .canceled)
        #expect(fok.filledQty == .zero)
        let fok2 = try #require(f.place(buy("AAPL", "100", .limit, limit: "150.05", tif: .fok), at: t).order)
        #expect(fok2.status == .filled)
    }

    @Test("a market buy that gapped beyond its reserve fills only what cash covers; cash never goes negative")
    mutating func gapBeyondCushion() throws {
        f = Fixture(usCash: 10_000)
        let pre = Timestamp(CivilDate(2026, 11, 20), hour: 9, in: .newYork)
        f.quote(f.aapl, bid: "99.00", ask: "100.00", at: pre)
        let o = try #require(f.place(buy("AAPL", "95"), at: pre).order) // reserves 95 × 103 = 9,785
        f.quote(f.aapl, bid: "119.00", ask: "120.00", at: t) // opens 20% higher
        let done = try #require(f.engine.order(o.id))
        #expect(done.filledQty == d("83")) // 83 × 120 = 9,960 ≤ 10,000
        #expect(done.status == .canceled)
        #expect(done.reason == "insufficient buying power to fill the rest at 120")
        #expect(f.cash(f.us) == d("40"))
    }
}
