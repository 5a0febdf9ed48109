import JSON
import Testing
import TradingCore

@testable import MarketData
@testable import Server

/// The Client Portal skin's pure parts: conids, market-data field ids, and the reply questions.
@Suite("IB Client Portal: conids, field ids and questions")
struct IBClientPortalTests {
    static let directory = try! SymbolDirectory.bundled()

    static func quote(
        _ symbol: String, last: String, previousClose: String, bid: String, ask: String,
        phase: MarketPhase = .continuous,
        volume: Int = 1_234_567
    ) -> MarketQuote {
        let d = { (text: String) in FixedDecimal(text)! }
        return MarketQuote(
            symbol: symbol, time: Timestamp(seconds: 1_790_000_000), last: d(last), open: d(previousClose),
            high: d(last) + d("1"), low: d(previousClose) - d("1"), previousClose: d(previousClose),
            volume: FixedDecimal(volume), turnover: .zero, bids: BookSide([(d(bid), FixedDecimal(300))]),
            asks: BookSide([(d(ask), FixedDecimal(250))]), limitUp: nil, limitDown: nil, phase: phase,
            tradingDate: CivilDate(2026, 9, 21))
    }

    static func ticket(_ json: String) throws -> IBOrderTicket {
        try IBOrderTicket(try JSONValue(parsing: json), instrument: { IBConid.entry($0, in: directory)?.instrument })
    }

    @Test(
        "every listed symbol has its own conid, and the conid reads back to the symbol and market; a currency pair's is IB's own, read back by table"
    )
    func conidsRoundTrip() {
        var seen: [Int: String] = [:]
        for entry in Self.directory.entries {
            let conid = IBConid.conid(entry.instrument)
            #expect(conid > 1 && conid < 1 << 53)
            #expect(seen[conid] == nil, "\(entry.symbol) shares conid \(conid) with \(seen[conid] ?? "")")
            seen[conid] = entry.symbol
            #expect(IBConid.entry(String(conid), in: Self.directory)?.symbol == entry.symbol, "\(entry.symbol)")
            guard entry.instrument.kind != .forex else { continue }
            let decoded = IBConid.decode(conid)
            #expect(decoded?.symbol == entry.symbol && decoded?.market == entry.instrument.market)
        }
        // IB's conids for the pairs, as clients hard-code them; none is a listed symbol's encoding.
        #expect(IBConid.conid(symbol: "EUR.USD", market: .us) != 12_087_792)
        #expect(IBConid.entry("12087792", in: Self.directory)?.symbol == "EUR.USD")
        #expect(IBConid.entry("113342317", in: Self.directory)?.symbol == "USD.CNH")
        for conid in IBConid.forex.values {
            let shadowed = IBConid.decode(conid).flatMap { Self.directory.entry($0.symbol) }
            #expect(
                shadowed == nil || shadowed?.instrument.kind == .forex,
                "conid \(conid) is also \(shadowed?.symbol ?? "")")
        }
        #expect(seen.count == Self.directory.count)
        // Fixed forever: clients store conids.
        #expect(IBConid.conid(symbol: "AAPL", market: .us) == 164_112)
        #expect(IBConid.entry("3", in: Self.directory) == nil)
        #expect(IBConid.entry("not a number", in: Self.directory) == nil)
    }

    @Test(
        "snapshot fields: strings, tick places, C prefix when closed, H when halted, US sizes in hundreds, K/M volume")
    func fields() throws {
        let aapl = try #require(Self.directory.entry("AAPL"))
        let live = Self.quote("AAPL", last: "189.2", previousClose: "187.5", bid: "189.19", ask: "189.21")
        let values = Dictionary(
            uniqueKeysWithValues: IBMarketFields.values(
                live, .init(entry: aapl),
                requested: ["31", "84", "86", "88", "85", "82", "83", "87", "7762", "55", "6509"]))
        #expect(values["31"] == "189.20")
        #expect(values["84"] == "189.19" && values["86"] == "189.21")
        #expect(values["88"] == "3" && values["85"] == "2.5")
        #expect(values["82"] == "+1.70" && values["83"] == "+0.91")
        #expect(values["87"] == "1.23M" && values["7762"] == "1234567")
        #expect(values["55"] == "AAPL" && values["6509"] == "RpB")

        let closed = Self.quote(
            "AAPL", last: "189.2", previousClose: "190", bid: "189.19", ask: "189.21", phase: .closed)
        let closedValues = Dictionary(
            uniqueKeysWithValues: IBMarketFields.values(closed, .init(entry: aapl), requested: ["31", "82", "7296"]))
        #expect(closedValues["31"] == "C189.20" && closedValues["82"] == "-0.80" && closedValues["7296"] == "189.20")

        // Halted: the last trade with IB's H prefix, and no bid or ask.
        var halted = live
        halted.bids = .empty
        halted.asks = .empty
        halted.halt = TradingHalt(
            symbol: "AAPL", reason: .volatilityPause, start: live.time, end: live.time.adding(seconds: 300))
        let haltedValues = Dictionary(
            uniqueKeysWithValues: IBMarketFields.values(halted, .init(entry: aapl), requested: ["31", "84", "86"]))
        #expect(haltedValues["31"] == "H189.20" && haltedValues["84"] == nil && haltedValues["86"] == nil)

        // A-shares: sizes in shares; fields a quote has no value for are left out, unknown ids ignored.
        let moutai = try #require(Self.directory.entry("600519"))
        let cn = Self.quote(
            "600519", last: "1500", previousClose: "1490", bid: "1499.99", ask: "1500.01", volume: 4_560)
        let cnValues = Dictionary(
            uniqueKeysWithValues: IBMarketFields.values(
                cn, .init(entry: moutai), requested: ["88", "87", "73", "99999"]))
        #expect(cnValues["88"] == "300" && cnValues["87"] == "4.6K")
        #expect(cnValues["73"] == nil && cnValues["99999"] == nil)
    }

    @Test("order tickets read IB's fields exactly and refuse what they cannot place")
    func tickets() throws {
        let conid = IBConid.conid(symbol: "AAPL", market: .us)!
        let limit = try Self.ticket(
            #"{"conid": \#(conid), "side": "BUY", "quantity": 10, "orderType": "LMT", "price": 189.07, "tif": "GTC", "cOID": "a1"}"#
        )
        #expect(limit.request.limitPrice == FixedDecimal("189.07") && limit.request.timeInForce == .gtc)
        #expect(limit.request.clientOrderID?.text == "a1" && limit.request.qty == FixedDecimal(10))
        let stopLimit = try Self.ticket(
            #"{"conidex": "\#(conid)@SMART", "side": "SELL", "quantity": 1, "orderType": "STOP_LIMIT", "price": 180, "auxPrice": 181}"#
        )
        #expect(stopLimit.request.stopPrice == FixedDecimal(181) && stopLimit.request.limitPrice == FixedDecimal(180))
        let trail = try Self.ticket(
            #"{"conid": "\#(conid)", "side": "SELL", "quantity": 1, "orderType": "TRAIL", "trailingAmt": 2.5, "trailingType": "%"}"#
        )
        #expect(trail.request.trailPercent == FixedDecimal("2.5") && trail.request.type == .trailingStop)

        for bad in [
            #"{"side": "BUY", "quantity": 1, "orderType": "MKT"}"#,
            #"{"conid": \#(conid), "side": "HOLD", "quantity": 1, "orderType": "MKT"}"#,
            #"{"conid": \#(conid), "side": "BUY", "quantity": 0, "orderType": "MKT"}"#,
            #"{"conid": \#(conid), "side": "BUY", "quantity": 1, "orderType": "LMT"}"#,
            #"{"conid": \#(conid), "side": "BUY", "quantity": 1, "orderType": "MIDPRICE"}"#,
            #"{"conid": \#(conid), "side": "BUY", "quantity": 1, "orderType": "MKT", "tif": "GTD"}"#,
            #"{"conid": \#(conid), "side": "BUY", "quantity": 1, "orderType": "MKT", "colour": "red"}"#,
        ] {
            #expect(throws: IBError.self) { try Self.ticket(bad) }
        }
    }

    @Test("questions: price far from last (o163), size (o383), value (o451), immediate fill (o403), market (o10151)")
    func questions() throws {
        let conid = IBConid.conid(symbol: "AAPL", market: .us)!
        let quote = Self.quote("AAPL", last: "100", previousClose: "99", bid: "99.99", ask: "100.01")
        let settings = IBQuestions.Settings()
        func ids(_ json: String, settings: IBQuestions.Settings = settings, suppressed: Set<String> = []) throws
            -> [String]
        {
            IBQuestions.questions(for: try Self.ticket(json), quote: quote, settings: settings, suppressed: suppressed)
                .map(\.messageID)
        }
        // Within 3% and small: no question.
        #expect(
            try ids(#"{"conid": \#(conid), "side": "BUY", "quantity": 10, "orderType": "LMT", "price": 97.5}"#) == [])
        // 3.01% away: asked, in IB's words (clients match the phrase).
        let far = IBQuestions.questions(
            for: try Self.ticket(
                #"{"conid": \#(conid), "side": "BUY", "quantity": 10, "orderType": "LMT", "price": 96.99}"#),
            quote: quote, settings: settings, suppressed: [])
        #expect(far.map(\.messageID) == ["o163"])
        #expect(
            far[0].text.replacingOccurrences(of: "\n", with: "").contains(
                "price exceeds the Percentage constraint of 3%"))
        #expect(
            try ids(#"{"conid": \#(conid), "side": "BUY", "quantity": 501, "orderType": "LMT", "price": 100}"#) == [
                "o383"
            ])
        let value = IBQuestions.questions(
            for: try Self.ticket(
                #"{"conid": \#(conid), "side": "BUY", "quantity": 500, "orderType": "LMT", "price": 200.02}"#),
            quote: Self.quote("AAPL", last: "200", previousClose: "199", bid: "199.99", ask: "200.01"),
            settings: settings, suppressed: [])
        #expect(value.map(\.messageID) == ["o451"])
        #expect(value[0].text.contains("value estimate of 100,010.00 USD exceeds the Total Value Limit of 100,000 USD"))
        // A buy stop at or under the ask triggers at once.
        #expect(
            try ids(#"{"conid": \#(conid), "side": "BUY", "quantity": 1, "orderType": "STP", "price": 100}"#) == [
                "o403"
            ])
        #expect(try ids(#"{"conid": \#(conid), "side": "BUY", "quantity": 1, "orderType": "STP", "price": 101}"#) == [])
        #expect(try ids(#"{"conid": \#(conid), "side": "BUY", "quantity": 1, "orderType": "MKT"}"#) == ["o10151"])
        // Suppressed for the session, or turned off for the account.
        #expect(
            try ids(#"{"conid": \#(conid), "side": "BUY", "quantity": 1, "orderType": "MKT"}"#, suppressed: ["o10151"])
                == [])
        var quiet = settings
        try quiet.apply(["market_order_warning": .bool(false), "size_limit": .null])
        #expect(
            try ids(#"{"conid": \#(conid), "side": "BUY", "quantity": 600, "orderType": "MKT"}"#, settings: quiet) == []
        )
        #expect(throws: IBError.self) { try quiet.apply(["price_percent": .string("-1")]) }
        #expect(throws: IBError.self) { try quiet.apply(["margin": .bool(true)]) }
        // Without market data: o354 only.
        let blind = IBQuestions.questions(
            for: try Self.ticket(#"{"conid": \#(conid), "side": "BUY", "quantity": 1, "orderType": "MKT"}"#),
            quote: nil,
            settings: settings, suppressed: [])
        #expect(blind.map(\.messageID) == ["o354"])
    }

    @Test("history grammar: IB's bars and periods, nothing else")
    func historyGrammar() {
        #expect(
            IBHistory.bar("5min") == .minutes(5) && IBHistory.bar("1h") == .hours(1) && IBHistory.bar("1m") == .month)
        #expect(IBHistory.bar("7min") == nil)
        #expect(IBHistory.period("30min") == .minutes(30) && IBHistory.period("1000d") == .days(1000))
        #expect(IBHistory.period("31min") == nil && IBHistory.period("16y") == nil && IBHistory.period("d") == nil)
        #expect(
            IBHistory.time("20230818-13:30:00") == Timestamp(CivilDate(2023, 8, 18), in: .utc).adding(seconds: 48_600))
        #expect(IBHistory.time("20231340-00:00:00") == nil)
        #expect(IBOrderNumber.make(OrderID(high: 1, low: 2)) != IBOrderNumber.make(OrderID(high: 1, low: 3)))
    }
}
