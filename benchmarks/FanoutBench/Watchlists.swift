import TradingCore

/// What each client follows. People in a class watch their teacher's list (twenty lists of ten), a third keep their
/// own (5–20 symbols, the popular ones most often); bots follow one of ten strategy universes (20–30 symbols) or a
/// handful of their own. So the server meets both many clients on the same set and many sets.
enum Watchlists {
    /// Popular US stocks and funds first (they are picked most), then the A-shares the app's Chinese users watch.
    static let us = [
        "AAPL", "NVDA", "TSLA", "MSFT", "AMZN", "META", "GOOGL", "SPY", "QQQ", "AMD", "NFLX", "PLTR", "COIN", "JPM",
        "V", "UNH", "XOM", "JNJ", "WMT", "MA", "PG", "AVGO", "HD", "CVX", "MRK", "ABBV", "KO", "PEP", "COST", "ADBE",
        "CRM", "INTC", "CSCO", "ORCL", "TMO", "ACN", "MCD", "ABT", "DHR", "LIN", "WFC", "DIS", "TXN", "VZ", "NKE", "PM",
        "NEE", "CMCSA", "BMY", "RTX", "UPS", "QCOM", "HON", "LOW", "SPGI", "INTU", "IBM", "AMGN", "CAT", "GS", "SBUX",
        "BA", "DE", "PLD", "MDT", "BLK", "AMAT", "ISRG", "GE", "ADP", "GILD", "CVS", "TJX", "MDLZ", "ADI", "SYK", "LMT",
        "BKNG", "C", "VRTX", "REGN", "NOW", "ZTS", "SCHW", "MO", "PGR", "CB", "ETN", "SO", "DUK", "BSX", "CI", "EOG",
        "SLB", "IWM", "DIA", "UBER", "SHOP",
    ]
    static let cn = [
        "600519", "000001", "300750", "601318", "000858", "600036", "002594", "601012", "600900", "000333",
    ]

    static let classLists: [[String]] = {
        var random = SeededGenerator(seed: 7)
        return (0..<20).map { _ in draw(&random, count: 10, from: us + cn) }
    }()
    static let universes: [[String]] = {
        var random = SeededGenerator(seed: 11)
        return (0..<10).map { _ in draw(&random, count: 20 + Int.random(in: 0..<11, using: &random), from: us) }
    }()

    static func pick(_ random: inout SeededGenerator, alpaca: Bool) -> [String] {
        if alpaca {
            return Int.random(in: 0..<2, using: &random) == 0
                ? universes[zipf(&random, count: universes.count)]
                : draw(&random, count: 1 + Int.random(in: 0..<10, using: &random), from: us)
        }
        return Int.random(in: 0..<3, using: &random) < 2
            ? classLists[zipf(&random, count: classLists.count)]
            : draw(&random, count: 5 + Int.random(in: 0..<16, using: &random), from: us + cn)
    }

    /// `count` different symbols of `pool`, the first ones of the pool most likely.
    static func draw(_ random: inout SeededGenerator, count: Int, from pool: [String]) -> [String] {
        var chosen: [String] = []
        while chosen.count < min(count, pool.count) {
            let symbol = pool[zipf(&random, count: pool.count)]
            if !chosen.contains(symbol) { chosen.append(symbol) }
        }
        return chosen
    }

    /// An index below `count`, k chosen with weight 1/(k+1).
    static func zipf(_ random: inout SeededGenerator, count: Int) -> Int {
        let total = (1...count).reduce(0.0) { $0 + 1 / Double($1) }
        var u = Double.random(in: 0..<total, using: &random)
        for k in 0..<count {
            u -= 1 / Double(k + 1)
            if u <= 0 { return k }
        }
        return count - 1
    }
}
