import TradingCore

/// A stretch of a session in which one stock does not trade: its quote shows the last price with no bids or offers,
/// orders rest, and trading resumes with a reopening print at wherever the price has got to.
public struct TradingHalt: Sendable, Hashable {
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The company's news is being disseminated (a report day that opens late; code T1).
        case newsPending = "news_pending"
        /// A Limit Up–Limit Down trading pause: the price ran past its band (code LUDP, five minutes).
        case volatilityPause = "volatility_pause"

        /// The code exchanges and data feeds print (Alpaca's trading status reason code).
        public var code: String {
            switch self {
            case .newsPending: "T1"
            case .volatilityPause: "LUDP"
            }
        }
    }

    public var symbol: String
    public var reason: Reason
    /// The first halted minute's start, and the reopening: the start of the first minute that trades again.
    public var start: Timestamp
    public var end: Timestamp

    public init(symbol: String, reason: Reason, start: Timestamp, end: Timestamp) {
        self.symbol = symbol
        self.reason = reason
        self.start = start
        self.end = end
    }

    /// Whether the stock is halted at `time`.
    public func covers(_ time: Timestamp) -> Bool { time >= start && time < end }
}

/// The US market's halts as the simulator applies them to one stock (Regulation NMS's Limit Up–Limit Down plan, and
/// news-pending halts on a few report days). A-shares have none: their daily limits do that work.
///
/// Bands: 5% for tier 1 (S&P 500 and Russell 1000 stocks, ETFs), 10% for tier 2, 20% for either under $3 (the
/// lesser of $0.15 and 75% under $0.75), doubled in the session's first 15 and last 25 minutes. The plan measures
/// the band around the average price of the last five minutes, so only a sudden move breaks it; the simulated
/// minutes have no jumps inside the session, so the simulator measures from the open (or the last reopening) and
/// pauses a stock when it has run a band from there (tier 1: one and a half) — which happens on the days that move
/// most, most often to small and micro caps and in stormy markets, as on the real market. A pause lasts five minutes and never reaches the close.
struct HaltRule: Sendable {
    /// LULD tier 1.
    let tier1: Bool
    /// The chance that a report day opens halted for news pending.
    let newsHaltChance: Double

    /// A pause: five minutes.
    static let pauseMinutes = 5
    /// How far past the open (in bands) the price runs before a pause: one band for tier 2; one and a half for
    /// tier 1, whose 5% band is narrower than a large company's range on a stormy day — a range the plan's
    /// five-minute reference follows, so the real market pauses them rarely.
    var pauseDistance: Double { tier1 ? 1.5 : 1.0 }

    static func newsHaltChance(_ tier: SizeTier) -> Double {
        switch tier {
        case .micro: 0.15
        case .small: 0.08
        case .mid: 0.02
        case .large, .mega: 0
        }
    }

    /// The band as a fraction of the reference price, at minute `k` of a session of `minutes`.
    func band(price: Double, minute k: Int, of minutes: Int) -> Double {
        var fraction: Double
        if price >= 3 {
            fraction = tier1 ? 0.05 : 0.10
        } else if price >= 0.75 {
            fraction = 0.20
        } else {
            fraction = min(0.15 / max(price, 0.0001), 0.75)
        }
        // Doubled from 9:30 to 9:45 and from 15:35 to the close (the last 25 minutes of any session).
        if k < 15 || k >= minutes - 25 { fraction *= 2 }
        return fraction
    }

    /// How many minutes a report day opens halted for news pending (0: it opens on time): 20 to 89 on a few report
    /// days of smaller companies, never on a short session.
    /// (`isReportDay` is asked last: it is the costly part, and most days are settled before.)
    func openingHalt(key: UInt64, day: Int, minutes: Int, isReportDay: () -> Bool) -> Int {
        guard newsHaltChance > 0, minutes >= 180 else { return 0 }
        let h = CounterRandom.hash(key, 0x4A17, UInt64(bitPattern: Int64(day)))
        guard CounterRandom.uniform(h) < newsHaltChance, isReportDay() else { return 0 }
        return 20 + Int(CounterRandom.uniform(h ^ 0x5EED) * 70)
    }

    /// The volatility pauses of a session's minute path: `closes[k]` is minute k's close (the levels before the
    /// minutes are stretched to the day's range), trading starting at minute `first`. A pause starts after the
    /// minute that ran past the band and lasts `pauseMinutes`; it starts early enough to reopen before the close.
    func pauses(closes: [Double], reopenings: (Int) -> Double, first: Int) -> [Range<Int>] {
        let n = closes.count
        guard first < n else { return [] }
        var out: [Range<Int>] = []
        var reference = reopenings(first)
        var k = first
        while k + Self.pauseMinutes + 1 < n {
            let band = self.band(price: reference, minute: k, of: n) * pauseDistance
            if reference > 0, abs(closes[k] / reference - 1) > band {
                let paused = (k + 1)..<(k + 1 + Self.pauseMinutes)
                out.append(paused)
                k = paused.upperBound
                reference = reopenings(k)
            } else {
                k += 1
            }
        }
        return out
    }
}
