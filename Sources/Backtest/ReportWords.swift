/// The words of the HTML report (`BacktestResult.html(_:warnings:)`) in one language: English for the CLI and for
/// English readers, Simplified Chinese for users who read papertrade in Chinese. Figures and dates are the same in
/// both; `{name}` in a text is filled by the report.
public struct ReportWords: Sendable {
    /// The page's `lang`.
    public let htmlLanguage: String
    let texts: [String: String]

    /// The text for `key`, with `{name}` placeholders filled (English when this language lacks it).
    func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        var text = texts[key] ?? Self.english.texts[key] ?? key
        for (name, value) in values { text = text.replacing("{\(name)}", with: value) }
        return text
    }

    public static let english = ReportWords(
        htmlLanguage: "en",
        texts: [
            "title": "Backtest of {symbols}", "bars": "{frequency} bars", "days": "{days} days",
            "fill.next_open": "orders fill at the next bar's open",
            "fill.close": "orders fill at the signal bar's close",
            "starting_cash": "starting cash {cash}", "warning": "Warning: {text}", "figures": "Figures",
            "final_equity": "Final equity", "return": "Return", "buy_and_hold": "Buy and hold", "index": "Index",
            "cagr": "CAGR", "sharpe": "Sharpe", "sortino": "Sortino", "calmar": "Calmar", "volatility": "Volatility",
            "max_drawdown": "Max drawdown", "round_trips": "Round trips", "win_rate": "Win rate",
            "profit_factor": "Profit factor", "expectancy": "Expectancy", "sqn": "SQN", "exposure": "Exposure",
            "fees": "Fees", "bar_count": "Bars", "peak_equity": "Peak equity", "equity": "Equity",
            "drawdown": "Drawdown", "monthly": "Monthly returns", "trades": "Trades", "col.symbol": "Symbol",
            "col.side": "Side", "col.entry": "Entry", "col.price": "Price", "col.exit": "Exit", "col.shares": "Shares",
            "col.pnl": "P&L", "col.return": "Return", "col.fees": "Fees", "open": "open", "side.long": "long",
            "side.short": "short",
        ])

    public static let simplifiedChinese = ReportWords(
        htmlLanguage: "zh-Hans",
        texts: [
            "title": "{symbols} 回测报告", "bars": "{frequency} K 线", "days": "{days} 天",
            "fill.next_open": "委托以下一根 K 线开盘价成交", "fill.close": "委托以信号 K 线收盘价成交",
            "starting_cash": "初始资金 {cash}", "warning": "注意：{text}", "figures": "指标",
            "final_equity": "期末权益", "return": "收益率", "buy_and_hold": "买入持有", "index": "指数",
            "cagr": "年化复合增长率", "sharpe": "夏普比率", "sortino": "索提诺比率", "calmar": "卡玛比率",
            "volatility": "波动率", "max_drawdown": "最大回撤", "round_trips": "来回交易次数", "win_rate": "胜率",
            "profit_factor": "盈亏比", "expectancy": "每笔期望收益", "sqn": "系统质量数（SQN）", "exposure": "持仓时间占比",
            "fees": "费用", "bar_count": "K 线数", "peak_equity": "权益峰值", "equity": "权益", "drawdown": "回撤",
            "monthly": "月度收益", "trades": "交易明细", "col.symbol": "代码", "col.side": "方向", "col.entry": "开仓",
            "col.price": "价格", "col.exit": "平仓", "col.shares": "股数", "col.pnl": "盈亏", "col.return": "收益率",
            "col.fees": "费用", "open": "持仓中", "side.long": "做多", "side.short": "做空",
        ])
}
