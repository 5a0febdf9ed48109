import Foundation
import JSON
import TradingCore

/// Reads Sina's quote strings (hq.sinajs.cn) and K-line JSON. Bodies are GB18030 (GBK) unless the
/// Content-Type says otherwise.
public enum SinaParser {
    static let provider = "Sina"

    /// Sina's symbol for an A-share code or index: sh600519, sz000001, bj920001.
    public static func sinaSymbol(_ code: String) -> String {
        if code.hasPrefix("sh") || code.hasPrefix("sz") || code.hasPrefix("bj") { return code }
        if code.hasPrefix("43") || code.hasPrefix("83") || code.hasPrefix("87") || code.hasPrefix("92") {
            return "bj" + code
        }
        if code.hasPrefix("5") || code.hasPrefix("6") || code.hasPrefix("7") || code.hasPrefix("9") {
            return "sh" + code
        }
        return "sz" + code
    }

    /// Decodes a body by the charset in `contentType`, GB18030 by default, UTF-8 as the fallback.
    public static func decode(_ body: [UInt8], contentType: String?) throws(FeedError) -> String {
        let charset =
            contentType?.lowercased().components(separatedBy: "charset=").dropFirst().first?
            .trimmingCharacters(in: .whitespaces) ?? "gb18030"
        if charset.hasPrefix("utf-8") || charset.hasPrefix("utf8") {
            if let text = String(validating: body, as: UTF8.self) { return text }
        }
        let gb18030 = String.Encoding(rawValue: 0x8000_0632) // kCFStringEncodingGB_18030_2000
        if let text = String(data: Data(body), encoding: gb18030) { return text }
        if let text = String(validating: body, as: UTF8.self) { return text }
        throw .malformed(provider: provider, detail: "body is neither GB18030 nor UTF-8")
    }

    /// Parses every `var hq_str_X="…";` line. Unknown codes (empty strings) are returned as `.unknownSymbol`
    /// entries; the body "Kinsoku jikou desu!" (request without Referer) is an error.
    public static func quotes(_ text: String) throws(FeedError) -> [String: Result<MarketQuote, FeedError>] {
        if text.contains("Kinsoku jikou desu") {
            throw .http(
                provider: provider, status: 403,
                message: "Kinsoku jikou desu! (request refused: Referer header missing)")
        }
        var out: [String: Result<MarketQuote, FeedError>] = [:]
        var sawLine = false
        for line in text.split(whereSeparator: \.isNewline) {
            guard let start = line.range(of: "var hq_str_"), let eq = line.range(of: "=\"") else { continue }
            sawLine = true
            let sinaCode = String(line[start.upperBound..<eq.lowerBound])
            guard let close = line.range(of: "\"", range: eq.upperBound..<line.endIndex) else {
                out[sinaCode] = .failure(.malformed(provider: provider, detail: "unterminated quote for \(sinaCode)"))
                continue
            }
            let fields = line[eq.upperBound..<close.lowerBound].split(separator: ",", omittingEmptySubsequences: false)
                .map(String.init)
            let code = sinaCode.hasPrefix("s_") ? String(sinaCode.dropFirst(2)) : sinaCode
            let plain = code.count == 8 ? String(code.dropFirst(2)) : code
            if fields.count <= 1 && (fields.first ?? "").isEmpty {
                out[plain] = .failure(.unknownSymbol(plain))
            } else if sinaCode.hasPrefix("s_") {
                out[plain] = indexQuote(fields, symbol: code)
            } else {
                out[plain] = aShareQuote(fields, symbol: plain)
            }
        }
        guard sawLine else { throw .malformed(provider: provider, detail: "no hq_str lines in the body") }
        return out
    }

    static func aShareQuote(_ f: [String], symbol: String) -> Result<MarketQuote, FeedError> {
        guard f.count >= 32 else {
            return .failure(.malformed(provider: provider, detail: "\(symbol): \(f.count) fields, expected 33"))
        }
        func dec(_ i: Int) -> FixedDecimal? { FixedDecimal(f[i]) }
        guard let prev = dec(2), let price = dec(3), let open = dec(1), let high = dec(4), let low = dec(5),
            let volume = dec(8), let amount = dec(9),
            let date = CivilDate(f[30])
        else {
            return .failure(.malformed(provider: provider, detail: "\(symbol): non-numeric fields"))
        }
        let clock = f[31].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else {
            return .failure(.malformed(provider: provider, detail: "\(symbol): bad time \(f[31])"))
        }
        let time = Timestamp(date, hour: clock[0], minute: clock[1], second: clock[2], in: .shanghai)
        var bids: [(Price, Quantity)] = [], asks: [(Price, Quantity)] = []
        for level in 0..<5 {
            if let v = dec(10 + 2 * level), let p = dec(11 + 2 * level) { bids.append((p, v)) }
            if let v = dec(20 + 2 * level), let p = dec(21 + 2 * level) { asks.append((p, v)) }
        }
        // No trade yet today: price, open, high and low are 0.
        let traded = price.isPositive
        let instrument = Instrument.aShare(symbol, name: f[0])
        let band = instrument.flatMap { $0.priceLimit.band(previousClose: prev, tick: $0.tick) }
        return .success(
            MarketQuote(
                symbol: symbol, time: time, last: traded ? price : prev, open: traded ? open : nil,
                high: traded ? high : nil, low: traded ? low : nil, previousClose: prev, volume: volume,
                turnover: amount,
                bids: BookSide(bids), asks: BookSide(asks), limitUp: band?.limitUp, limitDown: band?.limitDown,
                phase: TradingCalendar.xshg.phase(at: time), tradingDate: date))
    }

    /// `s_sh000001`: name, price, change, change %, volume (lots), amount (10,000 CNY).
    static func indexQuote(_ f: [String], symbol: String) -> Result<MarketQuote, FeedError> {
        guard f.count >= 6, let price = FixedDecimal(f[1]), let change = FixedDecimal(f[2]),
            let volume = FixedDecimal(f[4]), let amount = FixedDecimal(f[5])
        else {
            return .failure(.malformed(provider: provider, detail: "\(symbol): bad index fields"))
        }
        let now = Timestamp(seconds: 0)
        return .success(
            MarketQuote(
                symbol: symbol, time: now, last: price, open: nil, high: nil, low: nil,
                previousClose: price - change, volume: volume,
                turnover: amount.multiplied(by: FixedDecimal(10_000)), bids: .empty, asks: .empty,
                limitUp: nil, limitDown: nil, phase: .closed, tradingDate: CivilDate(1970, 1, 1)))
    }

    /// K-line JSON (or its JSONP wrapper): [{"day", "open", "high", "low", "close", "volume"}]. Intraday `day`
    /// is the bar's end time; bars are relabelled by their start, as Alpaca does. `scaleMinutes` 240 = daily.
    public static func kline(_ text: String, scaleMinutes: Int) throws(FeedError) -> [PriceBar] {
        var body = Substring(text)
        if let end = body.range(of: "*/") { body = body[end.upperBound...] }
        if let open = body.firstIndex(of: "("), let close = body.lastIndex(of: ")"), open < close,
            body[..<open].contains("=")
        {
            body = body[body.index(after: open)..<close]
        }
        let json: JSONValue
        do { json = try JSONValue(parsing: String(body)) } catch {
            throw .malformed(provider: provider, detail: error.description)
        }
        if json.isNull { return [] }
        guard let rows = json.array else { throw .malformed(provider: provider, detail: "K-line is not a list") }
        var bars: [PriceBar] = []
        for row in rows {
            guard let day = row["day"]?.string, let o = row["open"]?.decimal, let h = row["high"]?.decimal,
                let l = row["low"]?.decimal, let c = row["close"]?.decimal, let v = row["volume"]?.decimal
            else {
                throw .malformed(provider: provider, detail: "K-line row without day/open/high/low/close/volume")
            }
            let parts = day.split(separator: " ")
            guard let date = parts.first.flatMap({ CivilDate(String($0)) }) else {
                throw .malformed(provider: provider, detail: "K-line day \(day)")
            }
            var time = Timestamp(date, in: .shanghai)
            if scaleMinutes < 240, parts.count == 2 {
                let hms = parts[1].split(separator: ":").compactMap { Int($0) }
                guard hms.count >= 2 else { throw .malformed(provider: provider, detail: "K-line time \(day)") }
                time = Timestamp(date, hour: hms[0], minute: hms[1], in: .shanghai).adding(
                    seconds: -Int64(scaleMinutes * 60))
            }
            bars.append(
                PriceBar(
                    time: time, open: o, high: h, low: l, close: c, volume: v, tradeCount: 0, vwap: c,
                    turnover: v.multiplied(by: c, places: 2, rule: .halfUp)))
        }
        return bars
    }
}
