import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import NIOCore
import TradingCore

/// Alpaca's option market data (`/v1beta1/options/…`): snapshots with greeks and implied volatility (by symbol and
/// the chain of an underlying), latest quotes and trades, and the exchange and condition tables — the calls
/// alpaca-py's `OptionHistoricalDataClient` makes. Quotes, greeks and volatility come from the same surface that
/// prices fills.
struct OptionMarketDataController {
    let market: MarketView

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("options/snapshots", use: snapshots)
        group.get("options/snapshots/{underlying_symbol}", use: chain)
        group.get("options/quotes/latest", use: latestQuotes)
        group.get("options/trades/latest", use: latestTrades)
        group.get("options/bars", use: bars)
        group.get("options/trades", use: trades)
        group.get("options/meta/exchanges", use: exchanges)
        group.get("options/meta/conditions/{ticktype}", use: conditions)
    }

    /// Where papertrade's simulated option prints and quotes come from: one venue, Cboe's code.
    static let venue = "C"

    /// A model figure as a JSON number, to four decimals as Alpaca shows greeks; null when not finite (or absurd).
    static func figure(_ value: Double) -> JSONValue {
        guard value.isFinite, abs(value) < 1e12 else { return .null }
        return .number(FixedDecimal(units: Int((value * 10_000).rounded()), exponent: 4))
    }

    static func quote(_ s: OptionSnapshot) -> JSONValue {
        .object([
            "t": .string(s.time.description), "bx": .string(venue), "bp": .number(s.bid), "bs": .int(s.bidSize),
            "ax": .string(venue), "ap": .number(s.ask), "as": .int(s.askSize), "c": .string("A"),
        ])
    }

    static func trade(_ s: OptionSnapshot) -> JSONValue? {
        guard let price = s.last, let time = s.lastTime else { return nil }
        return .object([
            "t": .string(min(time, s.time).description), "x": .string(venue), "p": .number(price),
            "s": .int(max(1, min(s.volume, 10))), "c": .string("I"),
        ])
    }

    static func snapshot(_ s: OptionSnapshot) -> JSONValue {
        var fields: [String: JSONValue] = [
            "latestQuote": quote(s),
            "greeks": .object([
                "delta": figure(s.greeks.delta), "gamma": figure(s.greeks.gamma), "theta": figure(s.greeks.theta),
                "vega": figure(s.greeks.vega), "rho": figure(s.greeks.rho),
            ]),
            "impliedVolatility": figure(s.impliedVolatility),
        ]
        if let trade = trade(s) { fields["latestTrade"] = trade }
        return .object(fields)
    }

    /// The bytes of `{"next_page_token": …, "snapshots": {SYMBOL: snapshot, …}}`, written field by field in chain
    /// order: the same JSON as building `snapshot(_:)` values, at a tenth of the cost (a 1,000-contract page took
    /// ~28 ms as a `JSONValue` tree, almost all of it dictionaries).
    static func snapshotsBytes(_ list: [OptionSnapshot], next: String?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + list.count * 420)
        out.append(contentsOf: #"{"next_page_token":"#.utf8)
        if let next { JSONText.appendQuoted(next, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","snapshots":{"#.utf8)
        for (n, s) in list.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(s.contract.occSymbol, to: &out)
            out.append(UInt8(ascii: ":"))
            appendSnapshot(s, to: &out)
        }
        out.append(contentsOf: "}}".utf8)
        return out
    }

    static func appendFigure(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite, abs(value) < 1e12 else { return out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: FixedDecimal(units: Int((value * 10_000).rounded()), exponent: 4).description.utf8)
    }

    static func appendSnapshot(_ s: OptionSnapshot, to out: inout [UInt8]) {
        let g = s.greeks
        out.append(contentsOf: #"{"greeks":{"delta":"#.utf8)
        appendFigure(g.delta, to: &out)
        out.append(contentsOf: #","gamma":"#.utf8)
        appendFigure(g.gamma, to: &out)
        out.append(contentsOf: #","rho":"#.utf8)
        appendFigure(g.rho, to: &out)
        out.append(contentsOf: #","theta":"#.utf8)
        appendFigure(g.theta, to: &out)
        out.append(contentsOf: #","vega":"#.utf8)
        appendFigure(g.vega, to: &out)
        out.append(contentsOf: #"},"impliedVolatility":"#.utf8)
        appendFigure(s.impliedVolatility, to: &out)
        out.append(contentsOf: #","latestQuote":{"ap":"#.utf8)
        out.append(contentsOf: s.ask.description.utf8)
        out.append(contentsOf: #","as":"#.utf8)
        JSONText.appendInteger(Int64(s.askSize), to: &out)
        out.append(contentsOf: #","ax":"C","bp":"#.utf8)
        out.append(contentsOf: s.bid.description.utf8)
        out.append(contentsOf: #","bs":"#.utf8)
        JSONText.appendInteger(Int64(s.bidSize), to: &out)
        out.append(contentsOf: #","bx":"C","c":"A","t":"#.utf8)
        s.time.appendQuotedRFC3339(to: &out)
        out.append(UInt8(ascii: "}"))
        if let price = s.last, let time = s.lastTime {
            out.append(contentsOf: #","latestTrade":{"c":"I","p":"#.utf8)
            out.append(contentsOf: price.description.utf8)
            out.append(contentsOf: #","s":"#.utf8)
            JSONText.appendInteger(Int64(max(1, min(s.volume, 10))), to: &out)
            out.append(contentsOf: #","t":"#.utf8)
            min(time, s.time).appendQuotedRFC3339(to: &out)
            out.append(contentsOf: #","x":"C"}"#.utf8)
        }
        out.append(UInt8(ascii: "}"))
    }

    static func bytesResponse(_ bytes: [UInt8]) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `feed`: opra or indicative (both served from the one simulated market).
    static func checkFeed(_ request: Request) throws {
        if let feed = request.query("feed"), !["opra", "indicative"].contains(feed.lowercased()) {
            throw APIError.unprocessable("invalid feed \(feed); expected opra or indicative")
        }
    }

    /// `symbols`: 1 to 100 OCC symbols.
    static func symbols(_ request: Request) throws -> [String] {
        let list =
            request.query("symbols")?.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).uppercased()
            }.filter { !$0.isEmpty } ?? []
        guard !list.isEmpty else { throw APIError.unprocessable("symbols is required") }
        guard list.count <= 100 else { throw APIError.unprocessable("at most 100 symbols per request") }
        return list
    }

    /// Snapshots of the listed contracts among `symbols` (unknown ones are left out, as Alpaca does).
    func snapshots(of symbols: [String]) async throws -> [String: OptionSnapshot] {
        var out: [String: OptionSnapshot] = [:]
        for symbol in symbols {
            do throws(FeedError) {
                if let s = try await market.options.snapshot(symbol) { out[s.contract.occSymbol] = s }
            } catch { throw APIError(feed: error) }
        }
        return out
    }

    @Sendable func snapshots(_ request: Request, context: AppContext) async throws -> Response {
        try Self.checkFeed(request)
        _ = try request.integerQuery("limit", in: 1...1000, default: 100)
        let found = try await snapshots(of: try Self.symbols(request))
        return Self.bytesResponse(Self.snapshotsBytes(found.values.sorted { $0.contract < $1.contract }, next: nil))
    }

    /// The chain of an underlying: every active contract (filters: `type`, `strike_price_gte`/`_lte`,
    /// `expiration_date`, `expiration_date_gte`/`_lte`, `root_symbol`), `limit` 1–1,000 (100) per page.
    @Sendable func chain(_ request: Request, context: AppContext) async throws -> Response {
        try Self.checkFeed(request)
        let underlying = (context.parameters.get("underlying_symbol") ?? "").uppercased()
        guard market.options.optionClass(underlying) != nil else {
            throw APIError.notFound("no options are listed on \(underlying)")
        }
        var q = OptionMarket.ContractQuery()
        q.underlyings = [underlying]
        func date(_ name: String) throws -> CivilDate? { try request.dateQuery(name) }
        if let exact = try date("expiration_date") {
            q.expirationFrom = exact
            q.expirationThrough = exact
        } else {
            q.expirationFrom = try date("expiration_date_gte")
            q.expirationThrough = try date("expiration_date_lte")
        }
        if let type = request.query("type") {
            guard let right = OptionRight(rawValue: type.lowercased()) else {
                throw APIError.unprocessable("invalid type \(type); expected call or put")
            }
            q.right = right
        }
        if let root = request.query("root_symbol") { q.root = root.uppercased() }
        q.strikeFrom = try request.decimalQuery("strike_price_gte")
        q.strikeThrough = try request.decimalQuery("strike_price_lte")
        if let since = request.query("updated_since"), RFC3339.parse(since) == nil {
            throw APIError.unprocessable("invalid updated_since \(since); expected RFC 3339")
        }
        let limit = try request.integerQuery("limit", in: 1...1000, default: 100)
        var cursor = OptionMarket.ContractCursor()
        if let token = request.query("page_token") {
            guard let parsed = OptionMarket.ContractCursor(token) else {
                throw APIError.unprocessable("invalid page_token \(token)")
            }
            cursor = parsed
        }
        let options = market.options
        do throws(FeedError) {
            let (page, next) = try await options.contracts(q, from: cursor, limit: limit)
            var snapshots: [OptionSnapshot] = []
            if let chain = page.first?.chain {
                snapshots = try await options.snapshots(page.map(\.contract), of: chain)
            }
            return Self.bytesResponse(Self.snapshotsBytes(snapshots, next: next?.description))
        } catch { throw APIError(feed: error) }
    }

    @Sendable func latestQuotes(_ request: Request, context: AppContext) async throws -> Response {
        try Self.checkFeed(request)
        let found = try await snapshots(of: try Self.symbols(request))
        return JSONValue.object(["quotes": .object(found.mapValues(Self.quote))]).response()
    }

    @Sendable func latestTrades(_ request: Request, context: AppContext) async throws -> Response {
        try Self.checkFeed(request)
        let found = try await snapshots(of: try Self.symbols(request))
        return JSONValue.object(["trades": .object(found.compactMapValues(Self.trade))]).response()
    }

    /// Bars of contracts in symbol then time order (`start`: today's midnight in New York by default; `end`: now,
    /// never later; `limit` 1–10,000, 1,000; `sort`), paged with a token naming the last bar given ("SYMBOL|ns").
    func pagedBars(_ request: Request, timeframe: BarTimeframe) async throws -> ([String: [PriceBar]], String?) {
        let now = market.clock.now()
        let start =
            try request.timeQuery("start", zone: .newYork)
            ?? Timestamp(TradingCalendar.xnys.zone.localTime(of: now).date, in: .newYork)
        let end = min(try request.timeQuery("end", zone: .newYork) ?? now, now)
        guard start <= end else { throw APIError.unprocessable("start must not be after end") }
        let limit = try request.integerQuery("limit", in: 1...10_000, default: 1000)
        let descending = try request.sortsDescending(default: false)
        var after: (symbol: String, time: Int64)?
        if let token = request.query("page_token") {
            let parts = token.split(separator: "|")
            guard parts.count == 2, let ns = Int64(parts[1]) else { throw APIError.unprocessable("invalid page_token") }
            after = (String(parts[0]), ns)
        }
        var out: [String: [PriceBar]] = [:]
        var count = 0
        var last: (symbol: String, time: Timestamp)?
        for symbol in Set(try Self.symbols(request)).sorted() {
            if let after, symbol < after.symbol { continue }
            var bars: [PriceBar]
            do throws(FeedError) {
                bars = try await market.options.bars(symbol, timeframe: timeframe, from: start, to: end)
            } catch { throw APIError(feed: error) }
            if descending { bars.reverse() }
            if let after, symbol == after.symbol {
                bars = bars.filter { descending ? $0.time.nanoseconds < after.time : $0.time.nanoseconds > after.time }
            }
            for bar in bars {
                // Full, and more to come: the next page starts after the last bar given.
                if count == limit, let last { return (out, "\(last.symbol)|\(last.time.nanoseconds)") }
                out[symbol, default: []].append(bar)
                last = (symbol, bar.time)
                count += 1
            }
        }
        return (out, nil)
    }

    /// `GET /v1beta1/options/bars?symbols=&timeframe=` → `{"bars": {SYMBOL: [{t,o,h,l,c,v,n,vw}]}, "next_page_token"}`.
    @Sendable func bars(_ request: Request, context: AppContext) async throws -> Response {
        guard let text = request.query("timeframe") else { throw APIError.unprocessable("timeframe is required") }
        guard let timeframe = BarTimeframe(text) else { throw APIError.unprocessable("invalid timeframe \(text)") }
        let (bars, token) = try await pagedBars(request, timeframe: timeframe)
        return JSONValue.object([
            "bars": .object(bars.mapValues { .array($0.map(MarketDataController.bar)) }),
            "next_page_token": token.map(JSONValue.string) ?? .null,
        ]).response()
    }

    /// `GET /v1beta1/options/trades?symbols=` → `{"trades": {SYMBOL: [{t,x,p,s,c}]}, …}`: the prints behind the
    /// minute bars, one a minute at the minute's close.
    @Sendable func trades(_ request: Request, context: AppContext) async throws -> Response {
        let (bars, token) = try await pagedBars(request, timeframe: .minutes(1))
        return JSONValue.object([
            "trades": .object(
                bars.mapValues { list in
                    .array(
                        list.map { b in
                            .object([
                                "t": .string(b.time.adding(seconds: 59).description), "x": .string(Self.venue),
                                "p": .number(b.close), "s": .number(b.volume), "c": .string("I"),
                            ])
                        })
                }),
            "next_page_token": token.map(JSONValue.string) ?? .null,
        ]).response()
    }

    @Sendable func exchanges(_ request: Request, context: AppContext) async throws -> Response {
        JSONValue.object([
            "A": .string("NYSE American"), "B": .string("BOX Options Exchange"), "C": .string("Cboe Options Exchange"),
            "H": .string("MIAX Pearl"), "I": .string("International Securities Exchange"),
            "N": .string("NYSE Arca Options"), "Q": .string("Nasdaq Options Market"), "X": .string("Nasdaq PHLX"),
            "Z": .string("Cboe BZX Options"),
        ]).response()
    }

    @Sendable func conditions(_ request: Request, context: AppContext) async throws -> Response {
        switch context.parameters.get("ticktype")?.lowercased() {
        case "trade":
            return JSONValue.object([
                "I": .string("Auto-execution"), "S": .string("Spread"), "f": .string("Multi-leg auto-electronic trade"),
            ]).response()
        case "quote":
            return JSONValue.object(["A": .string("Regular"), "F": .string("Non-firm quote")]).response()
        default:
            throw APIError.unprocessable("ticktype must be trade or quote")
        }
    }
}
