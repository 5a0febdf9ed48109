import TradingCore

extension BacktestResult {
    /// The report as one self-contained HTML page in English (`papertrade backtest --report html`).
    public var html: String { html(.english) }

    /// The report as one self-contained HTML page in `words`' language: the figures, equity and drawdown charts as
    /// inline SVG, monthly returns and the trade list; `warnings` in that language too (the result's own, English,
    /// when nil). No scripts, no external files; chart coordinates are computed in decimals like every figure.
    public func html(_ words: ReportWords, warnings localized: [String]? = nil) -> String {
        let f = figures
        let title = words("title", ["symbols": symbols.joined(separator: ", ")])
        func percent(_ v: FixedDecimal?, signed: Bool = true) -> String {
            guard let v else { return "—" }
            let p = v.times(100).rounded(places: 2, rule: .halfEven)
            return (signed && p.isPositive ? "+" : "") + p.formatted(minimumPlaces: 2) + "%"
        }
        func money(_ v: FixedDecimal) -> String {
            (v.isNegative ? "-" : "") + currency.symbol
                + v.magnitude.rounded(places: 2, rule: .halfEven).formatted(minimumPlaces: 2)
        }
        func number(_ v: FixedDecimal?) -> String {
            v.map { $0.rounded(places: 2, rule: .halfEven).formatted(minimumPlaces: 2) } ?? "—"
        }
        func tone(_ v: FixedDecimal?) -> String { v.map { $0.isNegative ? "down" : $0.isPositive ? "up" : "" } ?? "" }

        let rows: [(String, String, String)] = [
            (words("final_equity"), money(finalEquity), ""), (words("return"), percent(totalReturn), tone(totalReturn)),
            (words("buy_and_hold"), percent(buyAndHoldReturn), tone(buyAndHoldReturn)),
            (index?.name ?? words("index"), percent(index?.return), tone(index?.return)),
            (words("cagr"), percent(cagr), tone(cagr)), (words("sharpe"), number(f?.sharpe), ""),
            (words("sortino"), number(f?.sortino), ""), (words("calmar"), number(calmar), ""),
            (words("volatility"), percent(f?.volatility, signed: false), ""),
            (words("max_drawdown"), percent(f?.maxDrawdown?.depth), "down"),
            (words("round_trips"), String(trades.count), ""), (words("win_rate"), percent(winRate, signed: false), ""),
            (words("profit_factor"), number(profitFactor), ""),
            (words("expectancy"), expectancy.map(money) ?? "—", tone(expectancy)), (words("sqn"), number(sqn), ""),
            (words("exposure"), percent(exposure, signed: false), ""), (words("fees"), money(fees), ""),
            (words("bar_count"), String(bars), ""), (words("peak_equity"), money(peakEquity), ""),
        ]
        var page = """
            <!doctype html>
            <html lang="\(words.htmlLanguage)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Self.escape(title))</title>
            <style>
            body{font:15px/1.45 system-ui,sans-serif;margin:0;padding:1rem;color:#111;background:#f6f7f9}
            main{max-width:64rem;margin:0 auto}section{background:#fff;border:1px solid #e3e5e8;border-radius:10px;padding:1rem;margin:0 0 1rem}
            h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.05rem;margin:0 0 .6rem}.sub{color:#666}
            dl{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.6rem 1rem;margin:0}
            dt{color:#666;font-size:.8rem}dd{margin:0;font-weight:700;font-variant-numeric:tabular-nums}
            .up{color:#0a7f4f}.down{color:#c0392b}.warn{color:#8a5a00}
            svg{width:100%;height:auto;display:block}polyline{fill:none;stroke-width:1.5}
            table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:.85rem}
            th,td{padding:.25rem .4rem;text-align:right;border-bottom:1px solid #eee;white-space:nowrap}th:first-child,td:first-child{text-align:left}
            .scroll{overflow-x:auto}
            @media (prefers-color-scheme:dark){body{background:#0f1115;color:#e8e8e8}section{background:#171a21;border-color:#2a2f3a}th,td{border-color:#2a2f3a}}
            </style></head><body><main>
            <h1>\(Self.escape(title))</h1>
            <p class="sub">\(words("bars", ["frequency": frequency.description])) · \(start.minuteText) → \(end.minuteText) UTC · \(words("days", ["days": String(days)])) · \(words(fill == .nextOpen ? "fill.next_open" : "fill.close")) · \(words("starting_cash", ["cash": money(startingCash)]))</p>

            """
        for warning in localized ?? warnings {
            page += "<p class=\"warn\">\(Self.escape(words("warning", ["text": warning])))</p>\n"
        }
        page += "<section><h2>\(words("figures"))</h2><dl>"
        for (name, value, style) in rows {
            page += "<div><dt>\(Self.escape(name))</dt><dd class=\"\(style)\">\(Self.escape(value))</dd></div>"
        }
        page += "</dl></section>\n"
        let values = pointsWithStart.map(\.value)
        page += "<section><h2>\(words("equity"))</h2>\(Self.chart(values, color: "#2962ff"))</section>\n"
        if let drawdowns = f?.drawdowns {
            page += "<section><h2>\(words("drawdown"))</h2>\(Self.chart(drawdowns, color: "#c0392b"))</section>\n"
        }
        if let monthly = f?.monthly, !monthly.isEmpty {
            page += "<section><h2>\(words("monthly"))</h2><div class=\"scroll\"><table><thead><tr><th></th>"
            for m in 1...12 { page += "<th>\(m)</th>" }
            page += "</tr></thead><tbody>"
            for year in Set(monthly.map(\.year)).sorted() {
                page += "<tr><th>\(year)</th>"
                for m in 1...12 {
                    let r = monthly.first { $0.year == year && $0.month == m }?.twr
                    page += "<td class=\"\(tone(r))\">\(r.map { percent($0) } ?? "")</td>"
                }
                page += "</tr>"
            }
            page += "</tbody></table></div></section>\n"
        }
        let columns = ["symbol", "side", "entry", "price", "exit", "price", "shares", "pnl", "return", "fees"]
        page += "<section><h2>\(words("trades"))</h2><div class=\"scroll\"><table><thead><tr>"
        page += columns.map { "<th>\(Self.escape(words("col." + $0)))</th>" }.joined() + "</tr></thead><tbody>"
        for t in trades + openTrades {
            page +=
                "<tr><td>\(Self.escape(t.symbol))</td><td>\(words("side." + t.side.rawValue))</td><td>\(t.entryTime.minuteText)</td><td>\(number(t.entryPrice))</td>"
            page +=
                "<td>\(t.exitTime?.minuteText ?? words("open"))</td><td>\(number(t.exitPrice))</td><td>\(t.qty.formatted(minimumPlaces: 0))</td>"
            page +=
                "<td class=\"\(tone(t.pnl))\">\(money(t.pnl))</td><td class=\"\(tone(t.pnl))\">\(percent(t.returnFraction))</td><td>\(money(t.fees))</td></tr>"
        }
        page += "</tbody></table></div></section>\n</main></body></html>\n"
        return page
    }

    /// A polyline through `values` in a 1000 × 240 box (at most 2,000 points: longer series are sampled evenly).
    static func chart(_ values: [FixedDecimal], color: String) -> String {
        guard values.count >= 2, let low = values.min(), let high = values.max() else {
            return "<svg viewBox=\"0 0 1000 240\"></svg>"
        }
        let step = max(1, values.count / 2000)
        let picked = stride(from: 0, to: values.count, by: step).map { values[$0] } + [values[values.count - 1]]
        let span = high - low
        var points: [String] = []
        points.reserveCapacity(picked.count)
        for (i, v) in picked.enumerated() {
            let x =
                FixedDecimal(10 + i * 980).divided(by: FixedDecimal(picked.count - 1), places: 1, rule: .halfEven)
                ?? .zero
            let y =
                span.isZero
                ? FixedDecimal(120)
                : FixedDecimal(10) + ((high - v).times(220).divided(by: span, places: 1, rule: .halfEven) ?? .zero)
            points.append("\(x.formatted(minimumPlaces: 0)),\(y.formatted(minimumPlaces: 0))")
        }
        return
            "<svg viewBox=\"0 0 1000 240\" role=\"img\"><polyline stroke=\"\(color)\" points=\"\(points.joined(separator: " "))\"/></svg>"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
