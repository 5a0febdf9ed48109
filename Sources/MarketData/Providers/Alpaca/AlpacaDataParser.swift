import JSON
import TradingCore

/// Reads Alpaca Market Data v2 (data.alpaca.markets) responses.
public enum AlpacaDataParser {
    static let provider = "Alpaca"

    public static func error(status: Int, body: [UInt8]) -> FeedError? {
        guard !(200..<300).contains(status) else { return nil }
        let message =
            (try? JSONValue(parsing: body))?["message"]?.string ?? String(decoding: body.prefix(200), as: UTF8.self)
        switch status {
        case 401, 403: return .unauthorized(provider: provider, message: message)
        case 429: return .rateLimited(provider: provider, retryAfterSeconds: nil)
        default: return .http(provider: provider, status: status, message: message)
        }
    }

    /// /v2/stocks/bars → {"bars": {"AAPL": [{t, o, h, l, c, v, n, vw}]}, "next_page_token"}; also the
    /// single-symbol form {"bars": [...], "symbol", "next_page_token"}.
    public static func bars(_ body: [UInt8]) throws(FeedError) -> (bars: [String: [PriceBar]], nextPageToken: String?) {
        let json: JSONValue
        do { json = try JSONValue(parsing: body) } catch {
            throw .malformed(provider: provider, detail: error.description)
        }
        let token = json["next_page_token"]?.string
        var out: [String: [PriceBar]] = [:]
        if let list = json["bars"]?.array {
            out[json["symbol"]?.string ?? ""] = try list.map(bar)
        } else if let bySymbol = json["bars"]?.object {
            for (symbol, list) in bySymbol { out[symbol] = try (list.array ?? []).map(bar) }
        } else if json["bars"] == nil || json["bars"]?.isNull == true {
            // An empty result is {} or null bars.
        } else {
            throw .malformed(provider: provider, detail: "bars is neither a list nor an object")
        }
        return (out, token)
    }

    /// Every page of a bars request: `page(token)` fetches the page after `token` (nil: the first); `symbol`'s bars
    /// are gathered until no `next_page_token` is left (or a million bars).
    static func allBars(
        of symbol: String?, page: (String?) async throws(FeedError) -> [UInt8]
    ) async throws(FeedError) -> [PriceBar] {
        var all: [PriceBar] = []
        var token: String?
        repeat {
            let next = try bars(try await page(token))
            all += symbol.map { next.bars[$0] ?? [] } ?? next.bars.values.flatMap { $0 }
            token = next.nextPageToken
        } while token != nil && all.count < 1_000_000
        return all
    }

    static func bar(_ b: JSONValue) throws(FeedError) -> PriceBar {
        guard let t = b["t"]?.string, let time = RFC3339.parse(t), let o = b["o"]?.decimal, let h = b["h"]?.decimal,
            let l = b["l"]?.decimal, let c = b["c"]?.decimal, let v = b["v"]?.decimal
        else {
            throw .malformed(provider: provider, detail: "bar without t/o/h/l/c/v")
        }
        let vw = b["vw"]?.decimal ?? c
        return PriceBar(
            time: time, open: o, high: h, low: l, close: c, volume: v, tradeCount: b["n"]?.int ?? 0,
            vwap: vw, turnover: v.multiplied(by: vw, places: 2, rule: .halfUp))
    }
}

/// RFC 3339 timestamps ("2024-01-02T14:30:00Z", "2022-04-29T09:30:00-04:00", fractions to nanoseconds).
public enum RFC3339 {
    public static func parse(_ text: String) -> Timestamp? {
        let b = Array(text.utf8)
        guard b.count >= 20, let date = CivilDate(String(decoding: b[0..<10], as: UTF8.self)),
            b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " ")
        else { return nil }
        func num(_ r: Range<Int>) -> Int? { Int(String(decoding: b[r], as: UTF8.self)) }
        guard let h = num(11..<13), let m = num(14..<16), let s = num(17..<19), h < 24, m < 60, s < 61 else {
            return nil
        }
        var i = 19
        var nanos: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, (48...57).contains(b[i]) {
                if digits < 9 {
                    nanos = nanos * 10 + Int64(b[i] - 48)
                    digits += 1
                }
                i += 1
            }
            while digits < 9 {
                nanos *= 10
                digits += 1
            }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"), i + 6 <= b.count,
            let oh = num((i + 1)..<(i + 3)), let om = num((i + 4)..<(i + 6))
        {
            offset = (oh * 3600 + om * 60) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let seconds = Int64(date.daysSinceEpoch) * 86_400 + Int64(h * 3600 + m * 60 + s) - Int64(offset)
        return Timestamp(nanoseconds: seconds * 1_000_000_000 + nanos)
    }
}
