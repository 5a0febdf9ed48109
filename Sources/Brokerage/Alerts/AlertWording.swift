import TradingCore

/// An alert's condition in words, for its notification ("AAPL crossed up through $150.00 and is at $150.20").
enum AlertWording {
    static func title(_ alert: PriceAlert, price: Price, currency: Currency) -> String {
        "\(alert.symbol) alert"
    }

    static func body(_ alert: PriceAlert, price: Price, level: Price?, currency: Currency) -> String {
        let money = { (p: Price) in "\(currency.symbol)\(p.formatted(minimumPlaces: 2))" }
        let what: String
        switch alert.condition {
        case .crossing(let o): what = "crossed \(operand(o, level: level, money: money))"
        case .crossingUp(let o): what = "crossed up through \(operand(o, level: level, money: money))"
        case .crossingDown(let o): what = "crossed down through \(operand(o, level: level, money: money))"
        case .greaterThan(let o): what = "is above \(operand(o, level: level, money: money))"
        case .lessThan(let o): what = "is below \(operand(o, level: level, money: money))"
        case .enteringChannel(let l, let u): what = "entered the channel \(money(l))–\(money(u))"
        case .exitingChannel(let l, let u): what = "left the channel \(money(l))–\(money(u))"
        case .insideChannel(let l, let u): what = "is inside the channel \(money(l))–\(money(u))"
        case .outsideChannel(let l, let u): what = "is outside the channel \(money(l))–\(money(u))"
        case .movingUp(let a, let w):
            what = "rose \(money(a)) or more within \(window(w, alert.timeframe))" + from("low", level, money)
        case .movingDown(let a, let w):
            what = "fell \(money(a)) or more within \(window(w, alert.timeframe))" + from("high", level, money)
        case .movingUpPercent(let p, let w):
            what = "rose \(p)% or more within \(window(w, alert.timeframe))" + from("low", level, money)
        case .movingDownPercent(let p, let w):
            what = "fell \(p)% or more within \(window(w, alert.timeframe))" + from("high", level, money)
        }
        var text = "\(alert.symbol) \(what) and is at \(money(price))."
        if let message = alert.message { text += " \(message)" }
        return text
    }

    static func operand(_ o: AlertOperand, level: Price?, money: (Price) -> String) -> String {
        switch o {
        case .value(let v): return money(v)
        case .movingAverage(let n): return "its \(n)-day moving average" + (level.map { " (\(money($0)))" } ?? "")
        }
    }

    static func from(_ extreme: String, _ level: Price?, _ money: (Price) -> String) -> String {
        level.map { " (from a \(extreme) of \(money($0)))" } ?? ""
    }

    /// "5 minutes", "2 hours", "3 bars of 15 minutes", "10 trading days".
    static func window(_ w: AlertWindow, _ timeframe: AlertTimeframe) -> String {
        switch w {
        case .seconds(let s): return duration(s)
        case .bars(let n) where timeframe == .day: return n == 1 ? "1 trading day" : "\(n) trading days"
        case .bars(let n): return "\(n) \(n == 1 ? "bar" : "bars") of \(duration(timeframe.seconds))"
        }
    }

    static func duration(_ seconds: Int64) -> String {
        for (unit, name) in [(Int64(86_400), "day"), (3_600, "hour"), (60, "minute")] where seconds % unit == 0 {
            let n = seconds / unit
            return "\(n) \(name)\(n == 1 ? "" : "s")"
        }
        return "\(seconds) second\(seconds == 1 ? "" : "s")"
    }
}
