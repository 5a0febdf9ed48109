import Brokerage
import JSON
import MarketData
import TradingCore

/// IB's market-data field ids (`/iserver/marketdata/snapshot` and the WebSocket's `smd` topic) from a papertrade
/// quote. Values are strings as IB sends them; prices carry the instrument's tick places. Field 31 (last) is
/// prefixed "C" when the market is closed (the price is a close, not a live trade) and "H" when trading is halted.
enum IBMarketFields {
    /// What the snapshot needs besides the quote: the instrument, the account's position, the 52-week range.
    struct Context: Sendable {
        var entry: DirectoryEntry
        var position: PositionSummary?
        var yearRange: (high: Price, low: Price)?
    }

    /// The fields papertrade answers, in id order; anything else a client asks for is left out (as IB leaves out
    /// fields it has no value for).
    static let supported: [String] = [
        "31", "55", "70", "71", "73", "74", "75", "76", "77", "78", "79", "80", "82", "83", "84", "85", "86", "87",
        "88",
        "6004", "6008", "6070", "6509", "7051", "7059", "7094", "7184", "7219", "7220", "7221", "7280", "7281",
        "7289", "7292", "7293", "7294", "7295", "7296", "7635", "7682", "7741", "7762", "7768", "7920", "7921",
    ]

    /// The requested fields' values (every supported field when `requested` is empty).
    static func values(_ quote: MarketQuote, _ context: Context, requested: [String]) -> [(String, String)] {
        let wanted = requested.isEmpty ? supported : requested
        var out: [(String, String)] = []
        out.reserveCapacity(wanted.count)
        for id in wanted {
            if let value = value(id, quote, context) { out.append((id, value)) }
        }
        return out
    }

    static func value(_ id: String, _ q: MarketQuote, _ c: Context) -> String? {
        let instrument = c.entry.instrument
        let places = max(2, instrument.tick.places(at: q.last))
        func price(_ p: Price?) -> String? { p.map { $0.formatted(places: places) } }
        func money(_ m: FixedDecimal?) -> String? { m.map { $0.formatted(places: 2) } }
        let held = c.position.flatMap { $0.position.qty.isZero ? nil : $0 }
        switch id {
        case "31":
            // C: the last session's close; H: halted (IB's prefixes).
            let prefix = q.phase == .closed ? "C" : q.isHalted ? "H" : ""
            return prefix + q.last.formatted(places: places)
        case "55": return instrument.symbol
        case "70": return price(q.high)
        case "71": return price(q.low)
        case "82": return signed(q.change.formatted(places: places))
        case "83": return signed(q.changePercent.formatted(places: 2))
        case "84": return price(q.bids.best?.price)
        case "86": return price(q.asks.best?.price)
        case "88": return q.bids.best.map { displaySize($0.size, instrument) }
        case "85": return q.asks.best.map { displaySize($0.size, instrument) }
        case "87": return formattedVolume(q.volume)
        case "7762": return q.volume.rounded(places: 0, rule: .down).description
        case "7059": return instrument.market == .us ? "100" : String(instrument.lot.roundLot)
        case "7295": return price(q.open)
        case "7296": return q.phase == .closed ? price(q.last) : nil
        case "7741": return price(q.previousClose)
        case "7682": return q.open.map { signed(($0 == .zero ? .zero : q.last - $0).formatted(places: places)) }
        case "7635": return price(mark(q))
        case "7051": return instrument.name
        case "6004", "7221": return listingExchange(instrument)
        case "6008": return String(IBConid.conid(instrument))
        case "6070": return "STK"
        case "7094": return "\(IBConid.conid(instrument))@\(listingExchange(instrument))"
        case "7219", "7220": return "\(instrument.symbol) \(listingExchange(instrument))"
        case "7280": return c.entry.sector.isEmpty ? nil : c.entry.sector
        case "7281": return c.entry.industry.isEmpty ? nil : c.entry.industry
        case "7289": return nil
        case "6509": return availability(q)
        case "7184", "7768": return "1"
        case "7293": return price(c.yearRange?.high)
        case "7294": return price(c.yearRange?.low)
        case "73": return money(held?.valuation.marketValue)
        case "74": return held.map { $0.position.averageEntryPrice.formatted(places: max(places, 4)) }
        case "75": return money(held?.valuation.unrealizedPnL)
        case "76": return held.map { $0.position.qty.description }
        case "77": return money(held?.valuation.unrealizedPnL)
        case "78", "7920": return money(held.map { $0.dayProfit ?? $0.valuation.dayChange })
        case "79": return money(c.position.map { $0.position.realizedPnL })
        case "80":
            return held.map { ($0.valuation.unrealizedPnLPercent.times(100)).formatted(places: 2) }
        case "7292", "7921": return money(held?.position.costBasis)
        default: return nil
        }
    }

    /// IB shows US sizes in round lots (hundreds) and other markets' in shares.
    static func displaySize(_ size: Quantity, _ instrument: Instrument) -> String {
        guard instrument.market == .us else { return size.rounded(places: 0, rule: .down).description }
        return (size.divided(by: FixedDecimal(100), places: 2, rule: .down) ?? .zero).description
    }

    /// Field 87: the day's volume with K or M, as IB formats it ("1.23M", "456K", "789").
    static func formattedVolume(_ volume: Quantity) -> String {
        let million = FixedDecimal(1_000_000)
        let thousand = FixedDecimal(1_000)
        if volume >= million {
            return (volume.divided(by: million, places: 2, rule: .halfUp) ?? .zero).formatted(minimumPlaces: 0) + "M"
        }
        if volume >= thousand {
            return (volume.divided(by: thousand, places: 1, rule: .halfUp) ?? .zero).formatted(minimumPlaces: 0) + "K"
        }
        return volume.rounded(places: 0, rule: .down).description
    }

    /// Field 6509: R(eal-time), p (consolidated), B (book); D when a provider's quote is over 15 minutes old in a
    /// trading session (delayed data).
    static func availability(_ q: MarketQuote, now: Timestamp? = nil) -> String {
        if let now, q.phase != .closed, now.nanoseconds - q.time.nanoseconds > 15 * 60 * 1_000_000_000 {
            return "DpB"
        }
        return "RpB"
    }

    /// Field 7635: the ask when it is below the last, the bid when above, otherwise the last.
    static func mark(_ q: MarketQuote) -> Price {
        if let ask = q.asks.best?.price, ask < q.last { return ask }
        if let bid = q.bids.best?.price, bid > q.last { return bid }
        return q.last
    }

    /// IB's security type of an instrument: CASH for a currency pair, OPT for an option, CRYPTO for a coin pair, STK
    /// for the rest.
    static func secType(_ instrument: Instrument) -> String {
        switch instrument.kind {
        case .forex: return "CASH"
        case .option: return "OPT"
        case .crypto: return "CRYPTO"
        default: return "STK"
        }
    }

    static func listingExchange(_ instrument: Instrument) -> String {
        switch instrument.exchange {
        case .nasdaq: return "NASDAQ"
        case .nyse: return "NYSE"
        case .arca: return "ARCA"
        case .amex: return "AMEX"
        case .bats: return "BATS"
        case .otc: return "PINK"
        case .sse: return "SEHKNTL"
        case .szse: return "SEHKSZSE"
        case .bse: return "BSE"
        case .opra: return "SMART"
        // IB clears its clients' crypto through Paxos.
        case .crypto: return "PAXOS"
        case .idealpro: return "IDEALPRO"
        }
    }

    static func signed(_ text: String) -> String { text.hasPrefix("-") || text == "0.00" ? text : "+" + text }

    /// One snapshot entry: `{conid, conidEx, _updated, server_id, 6119, "31": …}`.
    static func snapshot(_ quote: MarketQuote, _ context: Context, requested: [String], updated: Timestamp)
        -> JSONValue
    {
        let conid = IBConid.conid(context.entry.instrument)
        var object: [String: JSONValue] = [
            "conid": .int(conid), "conidEx": .string(String(conid)),
            "_updated": .int(Int(updated.nanoseconds / 1_000_000)), "server_id": .string("q\(conid % 1000)"),
            "6119": .string("q\(conid % 1000)"),
        ]
        for (id, value) in values(quote, context, requested: requested) { object[id] = .string(value) }
        return .object(object)
    }
}
