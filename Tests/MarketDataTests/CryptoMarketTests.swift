import Testing
import TradingCore

@testable import MarketData

/// The simulated crypto market: every minute of every day, no gap at midnight, and moves calibrated to published
/// figures (`CryptoCalibration.published`) on every seed, not one.
@Suite("Simulated crypto market")
struct CryptoMarketTests {
    static let directory = try! SymbolDirectory.bundled()
    static let coins = directory.entries.filter { $0.instrument.kind == .crypto }

    @Test("the directory lists at least 20 USD pairs with Alpaca's fields; BTCUSD finds BTC/USD; search finds 比特币")
    func directory() throws {
        #expect(Self.coins.count >= 20)
        let btc = try #require(Self.directory.entry("BTC/USD"))
        #expect(btc.instrument.kind == .crypto && btc.instrument.exchange == .crypto)
        #expect(btc.instrument.lot == .fractional(minimum: FixedDecimal("0.0001")!, increment: FixedDecimal("0.0001")!))
        #expect(btc.instrument.tick.tick(at: 88_000) == 1)
        #expect(Self.directory.entry("BTCUSD")?.symbol == "BTC/USD")
        #expect(Self.directory.entry("btc/usd")?.symbol == "BTC/USD")
        #expect(Self.directory.search("比特币").first?.symbol == "BTC/USD")
        #expect(Self.directory.search("bitcoin").first?.symbol == "BTC/USD")
        #expect(Self.directory.search("ETH").first?.symbol == "ETH/USD")
        #expect(Self.directory.search("eth/usd").first?.symbol == "ETH/USD")
        #expect(Self.directory.search("AAPL").first?.symbol == "AAPL")
        for symbol in [
            "ETH/USD", "SOL/USD", "XRP/USD", "DOGE/USD", "LTC/USD", "LINK/USD", "AVAX/USD", "DOT/USD",
            "UNI/USD", "AAVE/USD", "BCH/USD", "SHIB/USD", "USDC/USD", "USDT/USD",
        ] {
            #expect(Self.directory.entry(symbol)?.instrument.calendar == .crypto, "\(symbol)")
        }
    }

    @Test(
        "every hour of a week, weekend included, every pair has a two-sided quote on its price step", arguments: [1, 7])
    func quotesAroundTheClock(seed: UInt64) throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: seed))
        let monday = Timestamp(CivilDate(2026, 11, 16), in: .utc)
        for entry in Self.coins {
            for hour in stride(from: 0, to: 7 * 24, by: 5) {
                let t = monday.adding(seconds: Int64(hour) * 3_600 + 1_234)
                let q = try #require(market.quote(entry.symbol, at: t), "\(entry.symbol) at \(t)")
                #expect(q.phase == .continuous)
                let bid = try #require(q.bids.best), ask = try #require(q.asks.best)
                #expect(bid.price < ask.price && bid.price.isPositive, "\(entry.symbol) at \(t)")
                #expect(entry.instrument.tick.isValid(q.last) && entry.instrument.tick.isValid(ask.price))
                #expect(q.tradingDate == ExchangeTimeZone.utc.localTime(of: t).date)
            }
        }
    }

    @Test("a Saturday has 1,440 minute bars, and each UTC day opens where the day before closed", arguments: [1, 2, 3])
    func minutesAndMidnight(seed: UInt64) throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: seed))
        for symbol in ["BTC/USD", "ETH/USD", "DOGE/USD", "SHIB/USD"] {
            let tick = try #require(Self.directory.entry(symbol)).instrument.tick
            var previous: [PriceBar]?
            for day in 20...23 { // Friday to Monday
                let bars = try #require(market.minuteBars(symbol, on: CivilDate(2026, 11, day)))
                #expect(bars.count == 1_440, "\(symbol) on the \(day)th")
                #expect(bars.first?.time == Timestamp(CivilDate(2026, 11, day), in: .utc))
                if let last = previous?.last, let first = bars.first {
                    // No overnight gap: the first minute opens within a step or two of the last close.
                    let step = tick.tick(at: last.close)
                    #expect((first.open - last.close).magnitude <= step.times(2), "\(symbol) at midnight")
                }
                previous = bars
            }
        }
    }

    @Test(
        "five years of daily returns: bitcoin 50–60% a year, altcoins wilder, large coins correlated 0.5–0.8, fat tails, stablecoins at a dollar",
        arguments: [1, 2, 3])
    func calibration(seed: UInt64) throws {
        let market = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: seed))
        let published = CryptoStatistics.published
        let s = CryptoStatistics(market: market, from: CivilDate(2021, 1, 1), through: CivilDate(2025, 12, 31))
        #expect(s.days >= 5 * 365 - 2, "a daily bar for every day of five years: \(s)")
        // A fat-tailed walk with storms that last months measures its own volatility over five years only to within
        // a tenth or so: each seed's bitcoin within that of the published range, the altcoins' median inside it.
        #expect(s.bitcoinVolatility >= published.bitcoinVolatility.lowerBound - 0.1, "\(s)")
        #expect(s.bitcoinVolatility <= published.bitcoinVolatility.upperBound + 0.1, "\(s)")
        #expect(published.altcoinVolatility.contains(s.medianAltcoinVolatility), "\(s)")
        #expect(s.medianAltcoinVolatility > s.bitcoinVolatility, "altcoins are wilder than bitcoin: \(s)")
        #expect(published.correlation.contains(s.medianCorrelation), "\(s)")
        // (A coin's own storm can loosen its tie for years.)
        #expect(s.correlations.first! > 0.2 && s.correlations.last! < 0.9, "\(s)")
        // Fat tails: more days beyond four standard deviations than a normal walk's 0.006%.
        #expect(s.bitcoinTailDays >= 2, "\(s)")
        #expect(published.stablecoinBand.contains(s.stablecoinRange.lowerBound), "\(s)")
        #expect(published.stablecoinBand.contains(s.stablecoinRange.upperBound), "\(s)")
    }

    @Test("deterministic: the same seed gives the same coin quotes in any market; another seed, others")
    func determinism() {
        let t = Timestamp(CivilDate(2026, 11, 21), hour: 3, minute: 17, in: .utc)
        let a = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
        let b = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 42))
        let c = SimulatedMarket(directory: Self.directory, configuration: SimulatorConfiguration(seed: 43))
        #expect(a.quote("BTC/USD", at: t) == b.quote("BTC/USD", at: t))
        #expect(a.quote("BTC/USD", at: t)?.last != c.quote("BTC/USD", at: t)?.last)
    }
}
