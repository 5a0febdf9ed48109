import Backtest
import BrokerageModel
import Foundation
import MarketData
import Storage
import Testing
import TradingCore

@testable import Brokerage

@Suite("Server texts in English and Chinese")
struct CatalogueTests {
    static func placeholders(_ template: String) -> Set<String> {
        var names = Set<String>()
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    @Test("every key is in both catalogues, with the same placeholders")
    func sameKeys() {
        let en = Catalogue.strings(.en)
        let zh = Catalogue.strings(.zhHans)
        #expect(Set(en.keys).subtracting(zh.keys).sorted() == [], "missing in zh-Hans")
        #expect(Set(zh.keys).subtracting(en.keys).sorted() == [], "missing in en")
        for (key, english) in en {
            #expect(Self.placeholders(english) == Self.placeholders(zh[key] ?? ""), "\(key)")
        }
        let untranslated = zh.filter { key, text in text == en[key] && key != "push.test.title" }
        #expect(untranslated.isEmpty, "\(untranslated.keys.sorted())")
    }

    @Test(
        "a user who chose Chinese gets fills, automatic orders, the empty queue and alerts in Chinese, after a restart too"
    )
    func chineseNotifications() async throws {
        let f = try await BrokerageFixture.make()
        try await f.brokerage.users.setLanguage(.zhHans, user: f.userID)
        await f.brokerage.shutdown()
        let brokerage = try await f.reopen()
        _ = try await brokerage.submit(
            OrderRequest(symbol: "AAPL", side: .buy, type: .market, timeInForce: .day, qty: 2), account: f.account)
        _ = try await brokerage.addRule(
            account: f.account, symbol: "KO", condition: .priceAtLeast(FixedDecimal("0.01")!),
            action: RuleAction(side: .buy, qty: 1), lifetime: nil)
        _ = try await brokerage.addAlert(
            user: f.userID, symbol: "AAPL", condition: .greaterThan(.value(FixedDecimal("0.01")!)), frequency: .once,
            timeframe: .day, expiresAt: nil, message: nil)
        try await brokerage.pumpMarket()
        let items = try await brokerage.notifications.recent(user: f.userID).items
        let byKind = Dictionary(items.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byKind["fill"]?.title == "买入 KO" || byKind["fill"]?.title == "买入 AAPL")
        let aapl = try #require(items.first { $0.kind == "fill" && $0.title == "买入 AAPL" })
        #expect(aapl.body.hasPrefix("您已成功买入 AAPL 2 股，成交均价 $"))
        #expect(byKind["order_placed_automatically"]?.title == "自动下单成功")
        #expect(byKind["order_placed_automatically"]?.body.hasPrefix("您排队的订单（买入 KO 1 股）已在价格达到 $") == true)
        #expect(byKind["queue_empty"]?.title == "队列已空")
        #expect(byKind["alert"]?.title == "AAPL 价格提醒")
        #expect(byKind["alert"]?.body.hasPrefix("AAPL 高于 $0.01，现价 $") == true)
        await brokerage.shutdown()
    }

    @Test(
        "notifications name an option contract in the reader's language, never by its OCC code; a stock by its symbol")
    func contractNames() {
        #expect(Catalogue(.en).instrumentName("AAPL261218C00250000") == "AAPL Dec 18 2026 250 Call")
        #expect(Catalogue(.zhHans).instrumentName("AAPL261218C00250000") == "AAPL 2026年12月18日 250 看涨")
        #expect(Catalogue(.zhHans).instrumentName("SPY270115P00412500") == "SPY 2027年1月15日 412.5 看跌")
        #expect(Catalogue(.zhHans).instrumentName("600519") == "600519")
        #expect(Catalogue(.en).instrumentName("AAPL") == "AAPL")
    }

    @Test("alert wording fills every placeholder in both languages")
    func alertWording() {
        let conditions: [AlertCondition] = [
            .crossing(.value(FixedDecimal(150))), .crossingUp(.movingAverage(bars: 20)),
            .crossingDown(.value(FixedDecimal(150))), .greaterThan(.value(FixedDecimal(1))),
            .lessThan(.movingAverage(bars: 5)), .enteringChannel(lower: FixedDecimal(1), upper: FixedDecimal(2)),
            .exitingChannel(lower: FixedDecimal(1), upper: FixedDecimal(2)),
            .insideChannel(lower: FixedDecimal(1), upper: FixedDecimal(2)),
            .outsideChannel(lower: FixedDecimal(1), upper: FixedDecimal(2)),
            .movingUp(FixedDecimal(2), within: .seconds(900)), .movingDown(FixedDecimal(2), within: .bars(3)),
            .movingUpPercent(FixedDecimal(5), within: .bars(1)),
            .movingDownPercent(FixedDecimal(5), within: .seconds(7)),
        ]
        for language in Language.allCases {
            let wording = AlertWording(text: Catalogue(language), currency: .usd)
            for condition in conditions {
                let alert = PriceAlert(
                    id: AlertID(high: 1, low: 1), symbol: "AAPL", condition: condition, timeframe: .fifteenMinutes,
                    createdAt: Timestamp(seconds: 0))
                let body = wording.body(alert, price: FixedDecimal(151), level: FixedDecimal(149))
                #expect(!body.contains("{") && !body.contains("}"), "\(language) \(condition.name): \(body)")
            }
        }
        let up = PriceAlert(
            id: AlertID(high: 1, low: 1), symbol: "AAPL", condition: .movingUp(FixedDecimal(2), within: .bars(3)),
            timeframe: .fifteenMinutes, createdAt: Timestamp(seconds: 0))
        #expect(
            AlertWording(text: Catalogue(.en), currency: .usd).body(
                up, price: FixedDecimal(151), level: FixedDecimal(149))
                == "AAPL rose $2.00 or more within 3 bars of 15 minutes (from a low of $149.00) and is at $151.00.")
        #expect(
            AlertWording(text: Catalogue(.zhHans), currency: .usd).body(
                up, price: FixedDecimal(151), level: FixedDecimal(149))
                == "AAPL 在 3 根 15 分钟 K 线 内上涨 $2.00 或以上（自低点 $149.00），现价 $151.00。")
        // A coin pair's prices are in its quote coin, not dollars.
        let tether = PriceAlert(
            id: AlertID(high: 1, low: 2), symbol: "BTC/USDT", condition: .greaterThan(.value(FixedDecimal(97_500))),
            timeframe: .minute, createdAt: Timestamp(seconds: 0))
        let tetherBody = AlertWording(text: Catalogue(.en), currency: .usd, coin: "USDT").body(
            tether, price: FixedDecimal(97_612), level: nil)
        #expect(tetherBody.contains("97,500.00 USDT") && tetherBody.contains("97,612.00 USDT"), "\(tetherBody)")
        #expect(!tetherBody.contains("$"), "\(tetherBody)")
    }

    @Test("browser language tags map to the languages papertrade has")
    func tags() {
        #expect(Language(tag: "zh-CN") == .zhHans)
        #expect(Language(tag: "zh-Hans-SG") == .zhHans)
        #expect(Language(tag: "zh") == .zhHans)
        #expect(Language(tag: "en-GB") == .en)
        #expect(Language(tag: "zh-TW") == nil)
        #expect(Language(tag: "fr") == nil)
    }

    @Test("amounts in notifications are grouped by thousands with their currency's sign, exactly")
    func money() {
        #expect(MoneyText.text(FixedDecimal("1544.78")!, symbol: "¥") == "¥1,544.78")
        #expect(MoneyText.text(FixedDecimal(25_000), symbol: "$") == "$25,000.00")
        #expect(MoneyText.text(FixedDecimal("-1234567.125")!, symbol: "$") == "$-1,234,567.125")
        #expect(MoneyText.text(FixedDecimal("999.5")!, symbol: "$") == "$999.50")
        #expect(MoneyText.text(FixedDecimal("0.24")!, symbol: "$", minimumPlaces: 0) == "$0.24")
        #expect(MoneyText.text(FixedDecimal(100), symbol: "¥", minimumPlaces: 0) == "¥100")
    }

    /// Buys a lot at every bar, whatever the cash.
    struct BuyEveryBar: Strategy {
        mutating func onBar(_ bar: BarContext, orders: inout OrderBook) { orders.market(bar.symbol, .buy, qty: 100) }
    }

    @Test("a backtest's refusals are counted and worded in the user's language; the CLI's English agrees")
    func backtestWarnings() throws {
        let moutai = try #require(Instrument.aShare("600519", name: "贵州茅台"))
        /// Three daily bars of 600519 at ¥1,500 from `day`.
        func bars(from day: CivilDate) -> [HistoricalBar] {
            (0..<3).map { i in
                HistoricalBar(
                    time: Timestamp(day.adding(days: i), hour: 15, in: .shanghai), open: 1_500, high: 1_510,
                    low: 1_490, close: 1_500, volume: 10_000)
            }
        }
        // ¥100,000 cannot buy a lot of 600519 at ¥1,500: each of the first two bars' orders is refused.
        let result = try Backtester(settings: BacktestSettings(cash: 100_000)).run(
            [BarSeries(symbol: "600519", bars: bars(from: CivilDate(2024, 1, 2)))], instruments: ["600519": moutai],
            strategy: BuyEveryBar())
        #expect(result.trades.isEmpty)
        let chinese = result.warnings(in: .zhHans)
        #expect(chinese.count == 1 && chinese[0].hasPrefix("2 笔委托被拒绝：可用资金不足（需要 "), "\(chinese)")
        #expect(result.warnings(in: .en) == result.warnings, "the CLI's English and the app's agree")
        #expect(result.warnings.first?.hasPrefix("2 orders were refused: ") == true)

        // Bars on a weekend (the always-open clock's market trades every day): said in both languages.
        let everyDay = try Backtester(settings: BacktestSettings(cash: 1_000_000)).run(
            [BarSeries(symbol: "600519", bars: bars(from: CivilDate(2024, 1, 5)))], instruments: ["600519": moutai],
            strategy: BuyEveryBar())
        #expect(everyDay.warnings(in: .zhHans).contains { $0.contains("包含周末") }, "\(everyDay.warnings(in: .zhHans))")
        #expect(everyDay.warnings(in: .en) == everyDay.warnings)
        #expect(everyDay.warnings.contains { $0.contains("include weekends") })
        #expect(!result.warnings.contains { $0.contains("weekends") }, "2024-01-02…04 are weekdays")
    }
}
