/// The realism knobs of the fill engine. Defaults aim at "what would really have happened", conservatively.
public struct EngineConfiguration: Sendable, Codable, Hashable {
    /// Seeds order ids and execution ids: same seed, same ids.
    public var seed: UInt64
    /// Share of each quoted level our orders together may take per quote (1 = the whole displayed size).
    public var quoteParticipation: FixedDecimal
    /// Share of traded volume (trades, bars, auction prints) our orders together may take (0.1 = 10%).
    public var volumeParticipation: FixedDecimal
    /// Adverse slippage in ticks, never beyond the worst price quoted in the event (so a fill is always at a
    /// price that was quoted or traded).
    public var slippageTicks: Int
    /// Further adverse slippage in basis points of the price (rounded up to the tick), on quote and bar fills; bar
    /// fills (stops included) slip at most to the bar's high (buys) or low (sells), so a fill still lies in the range
    /// that traded.
    public var slippageBasisPoints: Int = 0
    /// Nanoseconds after submission before an order can fill (0 = against the current quote at once).
    public var fillLatency: Int64
    /// Extra buying power a market buy holds back above the current ask (0.03 = 3%), as Alpaca does.
    public var marketBuyCushion: FixedDecimal
    /// Whether the market follows exchange calendars or is always open (demos, tests).
    public var sessions: SessionPolicy
    /// GTC orders expire this many days after submission (Alpaca: 90).
    public var gtcLifetimeDays: Int
    /// The largest quantity and price any order may name, whatever the instrument.
    public var maximumQty: Quantity
    public var maximumPrice: Price
    /// Margin accounts' initial and maintenance requirements.
    public var margin = MarginRates()
    /// Whether order lifecycle events (`EngineEvent.order`, Alpaca's trade_updates) go to the outbox. Ledger entries
    /// always do. A backtest reads only the ledger's fills and fees: building an update it drops (the order looked
    /// up again, the position read) was ~5% of its time.
    public var publishesOrderUpdates = true

    public enum SessionPolicy: String, Sendable, Codable, Hashable {
        case exchangeCalendars = "exchange_calendars"
        case alwaysOpen = "always_open"

        /// The trading date of `calendar`'s market at `time` as the engine dates fills under this policy (what T+1,
        /// day trades and day orders count by): the exchange's session date, or, on an always-open market, the local
        /// calendar date (a weekend included).
        public func tradingDate(_ calendar: TradingCalendar, at time: Timestamp) -> CivilDate {
            switch self {
            case .alwaysOpen: calendar.zone.localTime(of: time).date
            case .exchangeCalendars: calendar.tradingDate(at: time)
            }
        }
    }

    public init(
        seed: UInt64 = 1, quoteParticipation: FixedDecimal = .one,
        volumeParticipation: FixedDecimal = FixedDecimal(units: 1, exponent: 1), slippageTicks: Int = 0,
        fillLatency: Int64 = 0, marketBuyCushion: FixedDecimal = FixedDecimal(units: 3, exponent: 2),
        sessions: SessionPolicy = .exchangeCalendars, gtcLifetimeDays: Int = 90,
        maximumQty: Quantity = FixedDecimal(1_000_000_000), maximumPrice: Price = FixedDecimal(1_000_000_000)
    ) {
        self.seed = seed
        self.quoteParticipation = quoteParticipation
        self.volumeParticipation = volumeParticipation
        self.slippageTicks = slippageTicks
        self.fillLatency = fillLatency
        self.marketBuyCushion = marketBuyCushion
        self.sessions = sessions
        self.gtcLifetimeDays = gtcLifetimeDays
        self.maximumQty = maximumQty
        self.maximumPrice = maximumPrice
    }
}
