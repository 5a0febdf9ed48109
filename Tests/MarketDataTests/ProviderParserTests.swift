import Foundation
import MarketData
import Testing
import TradingCore

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
private let gb18030 = String.Encoding(rawValue: 0x8000_0632)

@Suite("Provider adapters parse recorded payloads")
struct ProviderParserTests {
    @Test("Finnhub quote, profile, search, news, recommendations, earnings, peers, candles")
    func finnhub() throws {
        let quote = try FinnhubParser.quote(
            bytes(#"{"c":189.84,"d":-1.35,"dp":-0.7061,"h":191.05,"l":189.2,"o":190.36,"pc":191.19,"t":1701205200}"#),
            symbol: "AAPL")
        #expect(quote.last == FixedDecimal("189.84"))
        #expect(quote.previousClose == FixedDecimal("191.19"))
        #expect(quote.change == FixedDecimal("-1.35"))
        #expect(quote.time == Timestamp(seconds: 1_701_205_200))
        #expect(throws: FeedError.unknownSymbol("ZZZZ")) {
            try FinnhubParser.quote(
                bytes(#"{"c":0,"d":null,"dp":null,"h":0,"l":0,"o":0,"pc":0,"t":0}"#), symbol: "ZZZZ")
        }
        let profile = try FinnhubParser.profile(
            bytes(
                #"{"country":"US","currency":"USD","exchange":"NASDAQ NMS - GLOBAL MARKET","finnhubIndustry":"Technology","ipo":"1980-12-12","logo":"https://static2.finnhub.io/file/publicdatany/finnhubimage/stock_logo/AAPL.png","marketCapitalization":2952070.5,"name":"Apple Inc","phone":"14089961010","shareOutstanding":15552.75,"ticker":"AAPL","weburl":"https://www.apple.com/"}"#
            ), symbol: "AAPL")
        #expect(profile.name == "Apple Inc")
        #expect(profile.ipoDate == CivilDate(1980, 12, 12))
        #expect(profile.marketCapitalizationMillions == FixedDecimal("2952070.5"))
        #expect(throws: FeedError.unknownSymbol("ZZZZ")) { try FinnhubParser.profile(bytes("{}"), symbol: "ZZZZ") }
        let search = try FinnhubParser.search(
            bytes(
                #"{"count":2,"result":[{"description":"APPLE INC","displaySymbol":"AAPL","symbol":"AAPL","type":"Common Stock"},{"description":"","displaySymbol":"","symbol":"","type":""}]}"#
            ))
        #expect(search.map(\.symbol) == ["AAPL"])
        let news = try FinnhubParser.news(
            bytes(
                #"[{"category":"company","datetime":1701200000,"headline":"Apple unveils","id":123,"image":"","related":"AAPL","source":"Reuters","summary":"…","url":"https://example.com/a"}]"#
            ))
        #expect(news.first?.headline == "Apple unveils")
        #expect(news.first?.image == nil)
        let trends = try FinnhubParser.recommendations(
            bytes(
                #"[{"buy":24,"hold":7,"period":"2023-11-01","sell":1,"strongBuy":13,"strongSell":0,"symbol":"AAPL"}]"#))
        #expect(trends.first?.strongBuy == 13)
        let earnings = try FinnhubParser.earnings(
            bytes(
                #"[{"actual":1.46,"estimate":1.39,"period":"2023-09-30","quarter":4,"surprise":0.07,"surprisePercent":5.0360,"symbol":"AAPL","year":2023}]"#
            ))
        #expect(earnings.first?.surprisePercent == FixedDecimal("5.036"))
        #expect(try FinnhubParser.peers(bytes(#"["AAPL","DELL","HPQ"]"#)) == ["AAPL", "DELL", "HPQ"])
        let candles = try FinnhubParser.candles(
            bytes(
                #"{"c":[217.68,221.03],"h":[222.49,221.5],"l":[217.19,217.14],"o":[221.03,218.55],"s":"ok","t":[1569297600,1569384000],"v":[33463820,24018876]}"#
            ))
        #expect(candles.count == 2 && candles[1].close == FixedDecimal("221.03"))
        #expect(try FinnhubParser.candles(bytes(#"{"s":"no_data"}"#)).isEmpty)
        #expect(throws: FeedError.self) {
            try FinnhubParser.candles(bytes(#"{"c":[1],"h":[],"l":[1],"o":[1],"s":"ok","t":[1],"v":[1]}"#))
        }
    }

    @Test("Finnhub errors: free key without candles access, bad key, rate limit, truncated body")
    func finnhubErrors() {
        #expect(
            FinnhubParser.error(status: 403, body: bytes(#"{"error":"You don't have access to this resource."}"#))
                == .notEntitled(provider: "Finnhub", message: "You don't have access to this resource."))
        #expect(
            FinnhubParser.error(status: 401, body: bytes(#"{"error":"Invalid API key"}"#))
                == .unauthorized(provider: "Finnhub", message: "Invalid API key"))
        #expect(
            FinnhubParser.error(status: 429, body: bytes(#"{"error":"API limit reached. Please try again later."}"#))
                == .rateLimited(provider: "Finnhub", retryAfterSeconds: nil))
        #expect(FinnhubParser.error(status: 200, body: []) == nil)
        #expect(throws: FeedError.self) { try FinnhubParser.quote(bytes(#"{"c":189.84,"d":-1.3"#), symbol: "AAPL") }
        #expect(throws: FeedError.self) { try FinnhubParser.quote([], symbol: "AAPL") }
    }

    @Test("Sina: GB18030 quote lines with 5-level depth, unknown codes, STAR trailing comma, no trade yet, limit-up")
    func sina() throws {
        let text = """
            var hq_str_sh600519="贵州茅台,1761.000,1763.000,1769.040,1774.880,1756.000,1769.000,1769.040,2042961,3604003960.000,100,1769.000,200,1768.990,300,1768.500,100,1768.000,400,1767.000,1200,1769.040,100,1769.050,300,1769.500,200,1770.000,100,1771.000,2023-11-28,15:00:00,00";
            var hq_str_sz000000="";
            var hq_str_sh688981="中芯国际,0.000,52.100,0.000,0.000,0.000,52.090,52.100,0,0.000,800,52.090,500,52.080,300,52.070,200,52.060,100,52.050,900,52.100,600,52.110,400,52.120,200,52.130,100,52.140,2023-11-28,09:20:03,00,";
            var hq_str_sz002594="比亚迪,239.000,239.000,262.900,262.900,238.500,262.900,0.000,29345678,7520000000.000,51234500,262.900,1200,262.890,300,262.880,200,262.870,100,262.860,0,0.000,0,0.000,0,0.000,0,0.000,0,0.000,2023-11-28,15:00:00,00";
            """
        let body = try #require(text.data(using: gb18030))
        let decoded = try SinaParser.decode(Array(body), contentType: "application/javascript; charset=GB18030")
        let quotes = try SinaParser.quotes(decoded)
        let moutai = try quotes["600519"]!.get()
        #expect(moutai.last == FixedDecimal("1769.04"))
        #expect(moutai.previousClose == FixedDecimal("1763"))
        #expect(moutai.bids.count == 5 && moutai.asks.count == 5)
        #expect(moutai.bids[0].price == FixedDecimal("1769") && moutai.bids[0].size == 100)
        #expect(moutai.asks[4].price == FixedDecimal("1771"))
        #expect(moutai.time == Timestamp(CivilDate(2023, 11, 28), hour: 15, in: .shanghai))
        #expect(moutai.limitUp == FixedDecimal("1939.3"))
        #expect(moutai.turnover == FixedDecimal("3604003960"))
        #expect(throws: FeedError.unknownSymbol("000000")) { try quotes["000000"]!.get() }
        let star = try quotes["688981"]!.get() // pre-open: no trade yet, trailing comma
        #expect(star.open == nil && star.last == FixedDecimal("52.1"))
        let byd = try quotes["002594"]!.get() // limit-up: ask side all zeros
        #expect(byd.asks.isEmpty)
        #expect(byd.last == byd.limitUp)
    }

    @Test("Sina: missing Referer, wrong encoding, truncated and empty bodies are errors")
    func sinaErrors() {
        #expect(
            throws: FeedError.http(
                provider: "Sina", status: 403, message: "Kinsoku jikou desu! (request refused: Referer header missing)")
        ) {
            try SinaParser.quotes("Kinsoku jikou desu!")
        }
        #expect(throws: FeedError.self) { try SinaParser.quotes("") }
        let truncated = try? SinaParser.quotes(#"var hq_str_sh600519="贵州茅台,1761.000,1763.000"#)
        #expect((try? truncated?["600519"]?.get()) == nil)
        let short = try? SinaParser.quotes(#"var hq_str_sh600519="贵州茅台,1761.000,1763.000";"#)
        #expect(throws: FeedError.self) { try short?["600519"]?.get() }
        // Bytes that are valid in neither GB18030 nor UTF-8 are reported, not crashed on.
        #expect(throws: FeedError.self) {
            try SinaParser.decode([0x81, 0x20, 0xFF, 0xFF, 0x80], contentType: "text/html; charset=utf-8")
        }
        #expect(SinaParser.sinaSymbol("600519") == "sh600519")
        #expect(SinaParser.sinaSymbol("000001") == "sz000001")
        #expect(SinaParser.sinaSymbol("920001") == "bj920001")
    }

    @Test("Sina index short form and K-line JSON (plain and JSONP)")
    func sinaIndexAndKline() throws {
        let index = try SinaParser.quotes(#"var hq_str_s_sh000001="上证指数,3858.2450,44.0472,1.15,5048794,103131214";"#)
        let sse = try index["000001"]!.get()
        #expect(sse.last == FixedDecimal("3858.245"))
        #expect(sse.previousClose == FixedDecimal("3814.1978"))
        let daily = try SinaParser.kline(
            #"[{"day":"2026-04-21","open":"1.91","high":"1.92","low":"1.86","close":"1.87","volume":"210949622"}]"#,
            scaleMinutes: 240)
        #expect(daily.first?.time == Timestamp(CivilDate(2026, 4, 21), in: .shanghai))
        #expect(daily.first?.volume == 210_949_622)
        let jsonp =
            #"/*<script>location.href='//sina.com';</script>*/var _=([{"day":"2026-04-21 09:35:00","open":"1.91","high":"1.92","low":"1.90","close":"1.91","volume":"1000"}]);"#
        let five = try SinaParser.kline(jsonp, scaleMinutes: 5)
        #expect(five.first?.time == Timestamp(CivilDate(2026, 4, 21), hour: 9, minute: 30, in: .shanghai))
        #expect(try SinaParser.kline("null", scaleMinutes: 240).isEmpty)
        #expect(throws: FeedError.self) {
            try SinaParser.kline(#"[{"day":"2026-04-21","open":"x"}]"#, scaleMinutes: 240)
        }
    }

    @Test("Yahoo chart (nulls skipped, float artefacts rounded), not-found error, search without symbols dropped")
    func yahoo() throws {
        let body =
            #"{"chart":{"result":[{"meta":{"currency":"USD","symbol":"AAPL","exchangeName":"NMS","regularMarketPrice":189.97,"regularMarketTime":1701205200,"chartPreviousClose":191.31,"exchangeTimezoneName":"America/New_York"},"timestamp":[1701181800,1701182100,1701182400],"indicators":{"quote":[{"open":[189.9199981689453,null,190.1],"high":[190.6699981689453,null,190.2],"low":[189.5,null,189.9],"close":[190.0500030517578,null,190.0],"volume":[2345678,null,1000]}]}}],"error":null}}"#
        let chart = try YahooParser.chart(bytes(body), symbol: "AAPL")
        #expect(chart.bars.count == 2)
        #expect(chart.bars[0].open == FixedDecimal("189.92"))
        #expect(chart.quote?.last == FixedDecimal("189.97"))
        #expect(chart.quote?.previousClose == FixedDecimal("191.31"))
        #expect(throws: FeedError.unknownSymbol("NOPE")) {
            try YahooParser.chart(
                bytes(
                    #"{"chart":{"result":null,"error":{"code":"Not Found","description":"No data found, symbol may be delisted"}}}"#
                ), symbol: "NOPE")
        }
        let search = try YahooParser.search(
            bytes(
                #"{"quotes":[{"exchange":"NMS","shortname":"Apple Inc.","quoteType":"EQUITY","symbol":"AAPL","longname":"Apple Inc."},{"exchange":"NYQ","shortname":"x"}],"news":[]}"#
            ))
        #expect(search.map(\.symbol) == ["AAPL"])
        #expect(search.first?.exchange == .nasdaq)
    }

    @Test("Alpaca bars (multi and single symbol, pagination token, empty {}), RFC 3339 times")
    func alpaca() throws {
        let multi = try AlpacaDataParser.bars(
            bytes(
                #"{"bars":{"AAPL":[{"t":"2024-01-02T14:30:00Z","o":187.15,"h":188.44,"l":183.885,"c":185.64,"v":82488674,"n":1009074,"vw":185.8766}]},"next_page_token":"QUFQTHxNfDIwMjQ="}"#
            ))
        #expect(multi.bars["AAPL"]?.first?.low == FixedDecimal("183.885"))
        #expect(multi.bars["AAPL"]?.first?.tradeCount == 1_009_074)
        #expect(multi.nextPageToken == "QUFQTHxNfDIwMjQ=")
        let single = try AlpacaDataParser.bars(
            bytes(
                #"{"bars":[{"t":"2024-01-02T09:30:00-05:00","o":1,"h":1,"l":1,"c":1,"v":1}],"symbol":"X","next_page_token":null}"#
            ))
        #expect(single.bars["X"]?.first?.time == Timestamp(CivilDate(2024, 1, 2), hour: 9, minute: 30, in: .newYork))
        #expect(single.nextPageToken == nil)
        #expect(try AlpacaDataParser.bars(bytes("{}")).bars.isEmpty)
        #expect(
            AlpacaDataParser.error(status: 403, body: bytes(#"{"message":"forbidden"}"#))
                == .unauthorized(provider: "Alpaca", message: "forbidden"))
        #expect(
            RFC3339.parse("2024-01-02T14:30:00.123456789Z")?.nanoseconds == Timestamp(
                CivilDate(2024, 1, 2), hour: 14, minute: 30, in: .utc
            ).nanoseconds + 123_456_789)
        #expect(RFC3339.parse("2024-01-02") == nil)
        #expect(RFC3339.parse("2024-13-02T00:00:00Z") == nil)
    }
}
