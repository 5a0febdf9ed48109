import TradingCore

/// An alert's trigger in words, in the user's language ("AAPL crossed up through $150.00 and is at $150.20.",
/// "AAPL 向上突破 $150.00，现价 $150.20。").
struct AlertWording {
    let text: Catalogue
    let currency: Currency
    /// The coin a coin pair's prices are in (USDT for BTC/USDT): "97,500.00 USDT" rather than dollars.
    var coin: String? = nil

    func money(_ p: Price) -> String {
        guard let coin else { return MoneyText.text(p, symbol: currency.symbol) }
        return MoneyText.text(p, symbol: "") + " " + coin
    }

    func title(_ alert: PriceAlert) -> String { text("alert.title", ["symbol": alert.symbol]) }

    func body(_ alert: PriceAlert, price: Price, level: Price?) -> String {
        var values: [String: String] = [:]
        switch alert.condition {
        case .crossing(let o), .crossingUp(let o), .crossingDown(let o), .greaterThan(let o), .lessThan(let o):
            values["level"] = operand(o, level: level)
        case .enteringChannel(let l, let u), .exitingChannel(let l, let u), .insideChannel(let l, let u),
            .outsideChannel(let l, let u):
            values["lower"] = money(l)
            values["upper"] = money(u)
        case .movingUp(let a, let w), .movingDown(let a, let w):
            values["amount"] = money(a)
            values["window"] = window(w, alert.timeframe)
        case .movingUpPercent(let p, let w), .movingDownPercent(let p, let w):
            values["amount"] = p.description
            values["window"] = window(w, alert.timeframe)
        }
        if alert.condition.movement != nil {
            let up: Bool
            switch alert.condition {
            case .movingUp, .movingUpPercent: up = true
            default: up = false
            }
            values["from"] = level.map { text(up ? "alert.from_low" : "alert.from_high", ["price": money($0)]) } ?? ""
        }
        let what = text("alert." + alert.condition.name, values)
        var body = text("alert.body", ["symbol": alert.symbol, "what": what, "price": money(price)])
        if let message = alert.message { body += " \(message)" }
        return body
    }

    func operand(_ o: AlertOperand, level: Price?) -> String {
        switch o {
        case .value(let v): return money(v)
        case .movingAverage(let n):
            return level.map { text("alert.moving_average.value", ["n": String(n), "price": money($0)]) }
                ?? text("alert.moving_average", ["n": String(n)])
        }
    }

    /// "5 minutes", "2 hours", "3 bars of 15 minutes", "10 trading days".
    func window(_ w: AlertWindow, _ timeframe: AlertTimeframe) -> String {
        switch w {
        case .seconds(let s): return duration(s)
        case .bars(let n) where timeframe == .day: return text.count("window.trading_days", n)
        case .bars(let n): return text.count("window.bars", n, ["length": duration(timeframe.seconds)])
        }
    }

    func duration(_ seconds: Int64) -> String {
        for (unit, name) in [(Int64(86_400), "days"), (3_600, "hours"), (60, "minutes")] where seconds % unit == 0 {
            return text.count("window." + name, Int(seconds / unit))
        }
        return text.count("window.seconds", Int(seconds))
    }
}
