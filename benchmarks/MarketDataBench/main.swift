// MarketData benchmark and calibration report: prints figures, asserts nothing.
//
//   bash scripts/bench.sh     (or: swift run -c release MarketDataBench [path/to/shared/data])
//   MarketDataBench --options (section 4 only: benchmarks/options/run.sh)
//   MarketDataBench --calibration (section 3 only)
//
// 1. Symbol search latency over the whole directory (autocomplete keystrokes).
// 2. Quotes/s generated for live subscriptions; 5 years of daily bars for 500 symbols, cold and warm.
// 3. Calibration: daily volatility, excess kurtosis and autocorrelation of |returns| of the simulated market
//    against the real daily series in ../shared/data; crypto's volatilities and correlations against published
//    figures.
// 4. Options: one underlying's whole chain (every expiration and strike) priced with greeks, warm; goal ≤ 5 ms.
import Foundation
import MarketData
import TradingCore

let clock = ContinuousClock()
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
func fmt(_ x: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", x) }

let loadStart = clock.now
let directory = try SymbolDirectory.bundled()
print("directory: \(directory.count) instruments loaded in \(fmt(seconds(clock.now - loadStart) * 1000)) ms")

// MARK: 4. Options (first, so that `--options` can stop after it: the options benchmark and profiling)

let calibrationOnly = CommandLine.arguments.contains("--calibration")
if !calibrationOnly {
    let now = Timestamp(CivilDate(2026, 11, 20), hour: 11, in: .newYork)
    let optionClock = MarketClock(.manual(start: now))
    let market = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: 1))
    let options = OptionMarket(
        feed: SimulatedFeed(market: market, clock: optionClock), directory: directory, clock: optionClock, seed: 0)
    do {
        // What a server does in the background as it starts (the movers' profiles, the benchmarks' last year, the
        // option-listed indices' four years), and SPY's chain after it.
        let warmed = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: 1))
        var t = clock.now
        warmed.warm(through: now)
        let warmTime = seconds(clock.now - t)
        let warmedOptions = OptionMarket(
            feed: SimulatedFeed(market: warmed, clock: optionClock), directory: directory, clock: optionClock, seed: 0)
        t = clock.now
        let chain = try await warmedOptions.chain("SPY")
        _ = try await warmedOptions.snapshots(chain.contracts, of: chain)
        print(
            "options: the server's warm-up takes \(fmt(warmTime, 2)) s on one core; after it SPY's chain opens in \(fmt(seconds(clock.now - t) * 1000)) ms, priced (goal ≤ 50 ms)"
        )
    }
    for symbol in ["SPY", "AAPL", "NVDA", "KO"] {
        // The first request of the day, in parts, each on a market of its own so each part is cold: the feed's four
        // years of daily bars, eight years of corporate actions and five of earnings dates (what the chain's history
        // reads), then the chain itself and its first pricing on the benchmark's market.
        let parts = SimulatedFeed(
            market: SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: 1)),
            clock: optionClock)
        let day = CivilDate(2026, 11, 20)
        var t = clock.now
        _ = try await parts.bars(
            symbol, timeframe: .day, from: Timestamp(day.adding(days: -4 * 366), in: .newYork),
            to: Timestamp(day, in: .newYork))
        let barsTime = seconds(clock.now - t) * 1000
        t = clock.now
        _ = try? await parts.corporateActions(symbol, from: day.adding(days: -8 * 366), through: day)
        let actionsTime = seconds(clock.now - t) * 1000
        t = clock.now
        _ = try? await parts.earningsCalendar(
            from: day.adding(days: -2 * 366), through: day.adding(days: 40 * 31), symbols: [symbol])
        let earningsTime = seconds(clock.now - t) * 1000
        let t0 = clock.now
        let chain = try await options.chain(symbol)
        let cold = seconds(clock.now - t0) * 1000
        t = clock.now
        _ = try await options.snapshots(chain.contracts, of: chain)
        let firstPricing = seconds(clock.now - t) * 1000
        print(
            "options \(symbol) cold: the chain \(fmt(cold)) ms + its first pricing \(fmt(firstPricing)) ms = \(fmt(cold + firstPricing)) ms (goal ≤ 50 ms); alone, on a cold market: 4 years of daily bars \(fmt(barsTime)) ms, 8 years of corporate actions \(fmt(actionsTime)) ms, 5 years of earnings dates \(fmt(earningsTime)) ms"
        )
        var times: [Double] = []
        for _ in 0..<40 {
            let t = clock.now
            let snapshots = try await options.snapshots(chain.contracts, of: chain)
            precondition(snapshots.count == chain.contracts.count)
            times.append(seconds(clock.now - t) * 1000)
        }
        times.sort()
        let expirations = Set(chain.contracts.map(\.expiration)).count
        print(
            "options \(symbol): \(chain.contracts.count) contracts over \(expirations) expirations; chain made cold in \(fmt(cold)) ms; priced with greeks and quotes: p50 \(fmt(times[times.count / 2], 2)) ms, max \(fmt(times.last ?? 0, 2)) ms = \(fmt(times[times.count / 2] * 1000 / Double(max(chain.contracts.count, 1)), 2)) µs a contract (goal ≤ 5 ms a chain)"
        )
    }
}
if CommandLine.arguments.contains("--options") { exit(0) }

// MARK: 1. Search

if !calibrationOnly {
    let queries = [
        "a", "ap", "app", "appl", "apple", "m", "mi", "mic", "micro", "microsoft", "t", "ts", "tsl", "tesla",
        "茅", "茅台", "平安", "600", "6005", "600519", "300", "bank", "ban", "etf", "spy", "nvda", "goo", "amaz",
        "中国", "银行", "x", "zz", "q", "semi", "ener", "gold", "bitc", "阿", "000", "688",
    ]
    var times: [Double] = []
    var slowest: [String: Double] = [:]
    var results = 0
    for _ in 0..<25 {
        for q in queries {
            let t0 = clock.now
            results += directory.search(q).count
            let t = seconds(clock.now - t0) * 1e6
            times.append(t)
            slowest[q] = max(slowest[q] ?? 0, t)
        }
    }
    times.sort()
    let mean = times.reduce(0, +) / Double(times.count)
    print(
        "search: \(times.count) queries over \(directory.count) instruments: mean \(fmt(mean)) µs, p50 \(fmt(times[times.count / 2])) µs, p99 \(fmt(times[times.count * 99 / 100])) µs, max \(fmt(times.last!)) µs (goal ≤ 1000 µs)"
    )
    print(
        "  slowest queries: "
            + slowest.sorted { $0.value > $1.value }.prefix(4).map { "\"\($0.key)\" \(fmt($0.value)) µs" }.joined(
                separator: ", "))
}

// MARK: 2. Quotes and bars

let market = SimulatedMarket(directory: directory)
if !calibrationOnly {
    let symbols = directory.entries.filter { $0.instrument.market == .us && $0.instrument.exchange != .otc }.prefix(100)
        .map(\.symbol)
    let start = Timestamp(CivilDate(2026, 11, 20), hour: 9, minute: 30, in: .newYork)
    var n = 0
    // Warm: the first quote of a symbol-day builds that day (cold cost printed separately).
    let t0 = clock.now
    for s in symbols { _ = market.quote(s, at: start) }
    let cold = seconds(clock.now - t0)
    print(
        "quotes: first quote of a symbol-day (builds its 390 minutes): \(fmt(cold / Double(symbols.count) * 1e6)) µs each"
    )
    let t1 = clock.now
    for second in stride(from: 0, to: 3600, by: 1) {
        let t = start.adding(seconds: Int64(second))
        for s in symbols { if market.quote(s, at: t) != nil { n += 1 } }
    }
    let elapsed = seconds(clock.now - t1)
    print(
        "quotes: \(n) live quotes (100 symbols × 1 per second for an hour): \(fmt(Double(n) / elapsed / 1000)) k quotes/s, \(fmt(elapsed / Double(n) * 1e6, 2)) µs each"
    )
}

if !calibrationOnly {
    let symbols = ["AAPL", "MSFT", "600519", "000001", "NVDA", "300750", "SPY", "IBM", "KO", "601318"]
    let to = Timestamp(CivilDate(2026, 11, 20), hour: 16, in: .newYork)
    let from5y = Timestamp(CivilDate(2021, 11, 20), in: .newYork)
    let fresh = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: 7))
    // A universe: the first 250 US and 250 A-share primary listings of the directory.
    let universe =
        directory.entries.filter { $0.instrument.market == .us && $0.isBenchmarkCandidate }.prefix(250).map(\.symbol)
        + directory.entries.filter { $0.instrument.market == .cn && $0.isBenchmarkCandidate }.prefix(250).map(\.symbol)
    var bars = 0
    let t0 = clock.now
    for s in universe { bars += fresh.bars(s, timeframe: .day, from: from5y, to: to).count }
    let daily = seconds(clock.now - t0)
    print(
        "bars: 5 years of daily bars for \(universe.count) symbols, cold (day outlines, no minutes drawn): \(bars) bars in \(fmt(daily, 2)) s, \(fmt(Double(bars) / daily / 1000)) k daily bars/s (goal ≤ 10 s)"
    )
    // Warm: the same request again is served from the daily-bar cache.
    var again = 0
    let tw = clock.now
    for s in universe { again += fresh.bars(s, timeframe: .day, from: from5y, to: to).count }
    let warmDaily = seconds(clock.now - tw)
    print("bars: the same 5 years again, warm (daily-bar cache): \(again) bars in \(fmt(warmDaily, 2)) s (goal ≤ 1 s)")
    var minuteBars = 0
    let t1 = clock.now
    let dayFrom = Timestamp(CivilDate(2026, 11, 20), in: .newYork)
    for s in symbols { minuteBars += fresh.bars(s, timeframe: .minutes(1), from: dayFrom, to: to).count }
    let warm = seconds(clock.now - t1)
    print(
        "bars: one day of 1-minute bars for \(symbols.count) symbols, cached: \(minuteBars) bars in \(fmt(warm * 1000, 2)) ms"
    )
    let t2 = clock.now
    let overview = market.overview(at: to)
    let movers = market.movers(.us, kind: .gainers, at: to, limit: 20)
    print(
        "overview (\(overview.count) indices) + US gainers over the universe: \(fmt(seconds(clock.now - t2) * 1000)) ms (top: \(movers.first.map { "\($0.symbol) \($0.changePercent)%" } ?? "-"))"
    )
    let t3 = clock.now
    _ = market.overview(at: to.adding(seconds: -600))
    _ = market.movers(.us, kind: .gainers, at: to.adding(seconds: -600), limit: 20)
    print(
        "overview + US gainers again, ten minutes earlier (profiles known): \(fmt(seconds(clock.now - t3) * 1000)) ms")
}

// MARK: 3. Calibration

/// Reads a gzip CSV through the system's gzip (the data is gzipped in ../shared/data).
func gunzip(_ path: String) -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-dc", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return [] }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
}

func logReturns(_ closes: [Double]) -> [Double] {
    zip(closes, closes.dropFirst()).compactMap { $0 > 0 && $1 > 0 ? log($1 / $0) : nil }
}

let dataDir =
    CommandLine.arguments.dropFirst().first(where: { !$0.hasPrefix("--") })
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/data")
    .standardized.path
print("\ncalibration (daily log returns; real series from \(dataDir)):")
// Real series: closes by symbol and date (US: adjusted close; A-shares: forward-adjusted closes).
var realCloses: [String: [(date: String, close: Double)]] = [:]
for (file, dateColumn, closeColumn) in [("cn-daily-2005-2020.csv.gz", 2, 6), ("us-daily-2000-2013.csv.gz", 1, 7)] {
    for line in gunzip(dataDir + "/" + file).dropFirst() {
        let f = line.split(separator: ",", omittingEmptySubsequences: false)
        guard f.count > closeColumn, let close = Double(f[closeColumn]) else { continue }
        realCloses[String(f[0]), default: []].append((String(f[dateColumn].prefix(10)), close))
    }
}
let usReal: Set = ["AAPL", "IBM", "MSFT", "GOOG", "FB"]
var realStats: [(String, ReturnStatistics)] = []
for (symbol, series) in realCloses.sorted(by: { $0.key < $1.key }) where series.count > 1000 {
    realStats.append(("real " + symbol, ReturnStatistics(returns: logReturns(series.map(\.close)))))
}
if realStats.isEmpty { print("  (real data not found; pass the path to shared/data)") }
let simFrom = CivilDate(2008, 1, 1), simTo = CivilDate(2019, 12, 31)
var simulatedStats: [(String, ReturnStatistics)] = []
for symbol in ["000001", "000338", "601318", "300027", "000778", "002572", "AAPL", "IBM", "MSFT", "GOOGL"] {
    let tier = market.sizeTier(symbol).map { " (\($0.rawValue))" } ?? ""
    simulatedStats.append(
        ("sim  " + symbol + tier, ReturnStatistics(returns: market.dailyReturns(symbol, from: simFrom, through: simTo)))
    )
}
for (name, stats) in realStats + simulatedStats {
    print("  \(name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(stats)")
}
func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? 0 : s[s.count / 2]
}
/// The group's median of each stylized fact, printed on one line: vol, kurtosis, acf|r| 1/5/20, |r|>5%, |r|>10%,
/// max/yr.
@discardableResult
func medians(_ label: String, _ group: [ReturnStatistics]) -> [Double] {
    guard !group.isEmpty else { return [] }
    let figures = [
        median(group.map(\.volatility)), median(group.map(\.excessKurtosis)),
        median(group.map { $0.absoluteAutocorrelation[0] }), median(group.map { $0.absoluteAutocorrelation[1] }),
        median(group.map { $0.absoluteAutocorrelation[2] }), median(group.map(\.shareAbove5)),
        median(group.map(\.shareAbove10)), median(group.map(\.maxMovePerYear)),
    ]
    print(
        "  median \(label.padding(toLength: 16, withPad: " ", startingAt: 0)): vol \(fmt(figures[0] * 100, 2))%, kurtosis \(fmt(figures[1], 2)), acf|r| \(fmt(figures[2], 3)) \(fmt(figures[3], 3)) \(fmt(figures[4], 3)), |r|>5% \(fmt(figures[5] * 100, 2))%, |r|>10% \(fmt(figures[6] * 100, 2))%, max/yr \(fmt(figures[7] * 100, 1))%"
    )
    return figures
}
/// Each simulated figure against the real one: its ratio, and whether it is within the 25% the calibration aims at.
func within25(_ label: String, real: [Double], simulated: [Double]) {
    guard real.count == simulated.count, !real.isEmpty else { return }
    let names = ["vol", "kurtosis", "acf1", "acf5", "acf20", ">5%", ">10%", "max/yr"]
    let parts = zip(names, zip(real, simulated)).map { name, pair in
        let ratio = pair.0 != 0 ? pair.1 / pair.0 : 0
        return "\(name) \(fmt(ratio, 2))\(abs(ratio - 1) <= 0.25 ? " ✓" : " ✗")"
    }
    print("  \(label) simulated ÷ real: " + parts.joined(separator: ", "))
}
let realUS = medians("real US large", realStats.filter { usReal.contains(String($0.0.dropFirst(5))) }.map(\.1))
let simUS = medians(
    "sim US large",
    simulatedStats.filter { $0.0.contains("(large)") || $0.0.contains("(mega)") }.filter {
        !$0.0.contains("sim  0") && !$0.0.contains("sim  3") && !$0.0.contains("sim  6")
    }.map(\.1))
let realCN = medians("real A-shares", realStats.filter { !usReal.contains(String($0.0.dropFirst(5))) }.map(\.1))
let simCN = medians(
    "sim A-shares",
    simulatedStats.filter { $0.0.first(where: \.isNumber) != nil && $0.0.dropFirst(5).first?.isNumber == true }.map(\.1)
)
within25("US large caps", real: realUS, simulated: simUS)
within25("A-shares", real: realCN, simulated: simCN)

// Stylized facts by size tier: 40 US stocks of each tier over ten years.
print("\ncalibration by size tier (simulated, 2010–2019; average daily volume in shares and dollars):")
do {
    var byTier: [SizeTier: [String]] = [:]
    for entry in directory.entries where entry.instrument.market == .us && entry.isBenchmarkCandidate {
        guard let tier = market.sizeTier(entry.symbol), (byTier[tier]?.count ?? 0) < 40 else { continue }
        byTier[tier, default: []].append(entry.symbol)
    }
    let day = Timestamp(CivilDate(2026, 11, 20), hour: 16, in: .newYork)
    for tier in SizeTier.allCases {
        let symbols = byTier[tier] ?? []
        let stats = symbols.map {
            ReturnStatistics(
                returns: market.dailyReturns($0, from: CivilDate(2010, 1, 1), through: CivilDate(2019, 12, 31)))
        }
        var shares = 0.0, dollars = 0.0
        for s in symbols {
            let bars = market.bars(s, timeframe: .day, from: day.adding(seconds: -86_400 * 90), to: day)
            let v = bars.map { Double($0.volume.description) ?? 0 }.reduce(0, +) / Double(max(bars.count, 1))
            shares += v
            dollars += v * (Double(bars.last?.close.description ?? "") ?? 0)
        }
        medians("\(tier.rawValue) (\(symbols.count))", stats)
        print(
            "    average daily volume \(fmt(shares / Double(max(symbols.count, 1)) / 1e6, 2))M shares, $\(fmt(dollars / Double(max(symbols.count, 1)) / 1e6, 1))M"
        )
    }
    // Real average daily volumes (2025, millions of shares; the issue's figures and exchange statistics).
    let real: [String: String] = ["AAPL": "~50M", "NVDA": "~200M", "SPY": "~70M", "MSFT": "~20M"]
    for symbol in ["AAPL", "NVDA", "SPY", "MSFT", "600519", "000001"] {
        let bars = market.bars(symbol, timeframe: .day, from: day.adding(seconds: -86_400 * 90), to: day)
        let v = bars.map { Double($0.volume.description) ?? 0 }
        if let r = real[symbol] { print("    \(symbol) real: \(r) shares a day") }
        print(
            "    \(symbol): daily volume \(fmt((v.min() ?? 0) / 1e6, 1))M–\(fmt((v.max() ?? 0) / 1e6, 1))M shares over 90 days"
        )
    }
}

// Cross-section: how stocks move together, and the index against its members.
print("\ncalibration across stocks (one year of daily returns, 2025):")
do {
    let from = CivilDate(2025, 1, 1), through = CivilDate(2025, 12, 31)
    let members = directory.entries.filter {
        $0.instrument.market == .us && !$0.sector.isEmpty && $0.isBenchmarkCandidate
    }
    let sample = stride(from: 0, to: members.count, by: max(members.count / 200, 1)).prefix(200).map { members[$0] }
    let t0 = clock.now
    let returns = sample.map { market.dailyReturns($0.symbol, from: from, through: through) }
    let stats = CrossSectionStatistics(returns: returns, sectors: sample.map(\.sector))
    print("  simulated S&P 500 sample: \(stats) (\(fmt(seconds(clock.now - t0), 2)) s)")
    for year in 2016...2024 {
        let r = sample.map {
            market.dailyReturns($0.symbol, from: CivilDate(year, 1, 1), through: CivilDate(year, 12, 31))
        }
        let spx = ReturnStatistics(
            returns: market.dailyReturns(.sp500, from: CivilDate(year, 1, 1), through: CivilDate(year, 12, 31)))
        print(
            "    \(year): \(CrossSectionStatistics(returns: r, sectors: sample.map(\.sector))); S&P 500 vol \(fmt(spx.volatility * 100, 2))%"
        )
    }
    print(
        "  real S&P 500 (the issue's figures): correlation ~0.5–0.6 within sectors, ~0.2–0.4 across; equal-weighted basket ~1% a day"
    )
    let spx = ReturnStatistics(returns: market.dailyReturns(.sp500, from: from, through: through))
    let spy = ReturnStatistics(returns: market.dailyReturns("SPY", from: from, through: through))
    print("  simulated S&P 500 index: \(spx)")
    print("  simulated SPY:           \(spy)")
    for index in [MarketIndex.dowJones, .nasdaqComposite, .sseComposite, .szseComponent] {
        print(
            "  simulated \(index.name): \(ReturnStatistics(returns: market.dailyReturns(index, from: from, through: through)))"
        )
    }
    // Real: the pairwise correlation of the real US series over their common days, and of the real A-shares.
    for (label, symbols) in [
        ("US", ["AAPL", "IBM", "MSFT", "GOOG"]),
        ("A-shares", ["000001", "000338", "000778", "002572", "300027", "601318"]),
    ] {
        let series = symbols.compactMap { realCloses[$0] }
        var common = Set(series.first?.map(\.date) ?? [])
        for s in series.dropFirst() { common.formIntersection(s.map(\.date)) }
        let aligned = series.map { logReturns($0.filter { common.contains($0.date) }.map(\.close)) }
        let real = CrossSectionStatistics(returns: aligned, sectors: symbols.map { _ in "-" })
        print(
            "  real \(label) series \(symbols.joined(separator: ",")): mean pairwise correlation \(fmt(real.withinSectorCorrelation, 3)) over \(real.days) days"
        )
    }
}

// Crypto quotes: each pair's book (five levels a side) and last trade once a second, as the crypto stream and the
// coin pages read them, on a Saturday: the cost of 40 pairs at one update a second each, as a share of a core.
if !calibrationOnly {
    let pairs = directory.entries.filter { $0.instrument.kind == .crypto }.map(\.symbol)
    let start = Timestamp(CivilDate(2026, 11, 21), hour: 12, in: .utc)
    for s in pairs { _ = market.quote(s, at: start) } // each pair-day built once (as a running server has it)
    var n = 0
    var levels = 0
    let t0 = clock.now
    for second in 1...3600 {
        let t = start.adding(seconds: Int64(second))
        for s in pairs {
            guard let q = market.quote(s, at: t) else { continue }
            n += 1
            levels += q.bids.count + q.asks.count
        }
    }
    let elapsed = seconds(clock.now - t0)
    let each = elapsed / Double(max(n, 1))
    print(
        "crypto quotes: \(n) quotes of \(pairs.count) pairs (each second of an hour, \(levels / max(n, 1)) book levels each): \(fmt(each * 1e6, 2)) µs each → 40 pairs at 1 update/s cost \(fmt(40 * each * 100, 3))% of a core (goal < 5%)"
    )
}

// Crypto: 24/7 daily (UTC) returns against the published figures the calibration aims at, on several seeds.
print("\ncalibration of crypto (daily UTC returns, 2021–2025):")
for seed in UInt64(1)...5 {
    let t0 = clock.now
    let crypto = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: seed))
    let stats = CryptoStatistics(market: crypto, from: CivilDate(2021, 1, 1), through: CivilDate(2025, 12, 31))
    print("  seed \(seed): \(stats) (\(fmt(seconds(clock.now - t0), 2)) s)")
}

// Currencies: daily returns of the forex days against the published figures, on several seeds.
print("\ncalibration of currency pairs (daily returns of the forex days, 2021–2025):")
for seed in UInt64(1)...5 {
    let t0 = clock.now
    let forex = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: seed))
    let stats = ForexStatistics(market: forex, from: CivilDate(2021, 1, 4), through: CivilDate(2025, 12, 31))
    print("  seed \(seed): \(stats) (\(fmt(seconds(clock.now - t0), 2)) s)")
}

extension DirectoryEntry {
    /// Common stocks on a primary venue (what a backtest universe is made of).
    var isBenchmarkCandidate: Bool {
        instrument.kind == .stock && instrument.exchange != .otc && symbol.allSatisfy { $0.isLetter || $0.isNumber }
    }
}
