import ArgumentParser
import Backtest
import Foundation
import JSON
import MarketData
import TradingCore

/// `papertrade backtest`: a strategy over history through the real engine, from a CSV file or the simulated market,
/// reported as text or JSON. Runs offline, in this process (no server needed).
struct BacktestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backtest",
        abstract: "Test a strategy on history: the real engine's fills, fees, lots, T+1 and price limits.",
        discussion: """
            Data: --data FILE.csv (a header with date/datetime/timestamp, open, high, low, close[, volume] — the layout \
            pandas, yfinance and backtrader write; a symbol/ticker/code column for several symbols), or --symbols with \
            --from/--to for the simulated market's daily bars, or --symbols with --source real for the bundled real \
            daily history (AAPL, IBM, MSFT, GOOG, FB 2000–2013 adjusted; eight A-shares 2005–2020 forward-adjusted), \
            and --timeframe 5Min for 000338's real 5-minute bars (2007–2020).
            Strategies: buy-and-hold; sma-cross (--param fast=10 --param slow=30); queue-rules (--rules FILE.json: \
            queue purchase rules, each re-armed every day: e.g. [{"side": "buy", "qty": "100", "condition": \
            {"type": "within_percent_of_limit_up", "value": "1"}, "order_type": "limit_up"}, {"side": "sell", \
            "qty": "100", "condition": {"type": "change_percent_at_most", "value": "-3"}}]).
            Orders fill at the next bar's open (--fill next-open); --fill close fills at the signal bar's close, which \
            a real trader could not do (the report warns).
            Example: papertrade backtest --symbols AAPL,MSFT --from 2021-01-01 --to 2025-12-31 --strategy sma-cross \
            --param fast=10 --param slow=30 --qty 10 --report json
            """)

    @Option(help: "A CSV file of bars.") var data: String?
    @Option(help: "Symbols (comma-separated): from the simulated market, or which of the CSV's to test.")
    var symbols: String?
    @Option(help: "First day (YYYY-MM-DD).") var from: String?
    @Option(help: "Last day (YYYY-MM-DD).") var to: String?
    @Option(help: "buy-and-hold, sma-cross or queue-rules (with --rules).") var strategy = "sma-cross"
    @Option(
        name: .customLong("rules"),
        help: "queue-rules: a JSON array of queue rules, as POST /api/v1/accounts/{id}/queue takes them.")
    var rulesFile: String?
    @Option(name: .customLong("param"), help: "A strategy parameter, k=v (repeatable).") var parameters: [String] = []
    @Option(help: "Starting cash.") var cash = "100000"
    @Option(help: "Shares per order.") var qty = "1"
    @Option(help: "next-open (default) or close.") var fill = "next-open"
    @Option(help: "real (the market's fees, default), none, a flat amount per order (4.95) or a percentage (0.1%).")
    var commission = "real"
    @Option(name: .customLong("slippage-bps"), help: "Adverse slippage in basis points on every fill, stops included.")
    var slippageBasisPoints = 0
    @Option(name: .customLong("slippage-ticks"), help: "Adverse slippage in ticks on every fill, stops included.")
    var slippageTicks =
        0
    @Option(
        name: .customLong("volume-cap"),
        help: "Most of a bar's volume the orders may take, as a fraction (default 1 = all of it).")
    var volumeCap = "1"
    @Option(help: "CSV times without an offset are in: America/New_York, Asia/Shanghai or UTC (default: by symbol).")
    var timezone: String?
    @Option(help: "text (default), json, or html (one self-contained page with charts; use --out).") var report = "text"
    @Option(help: "Write the report to this file instead of printing it.") var out: String?
    @Option(help: "The simulated market's seed.") var seed: UInt64 = 1
    @Option(
        help: "With --symbols: simulated (the simulated market, default) or real (the bundled real daily history).")
    var source = "simulated"
    @Option(help: "With --source real: 1Day (default) or 5Min (000338's real 5-minute bars, 2007–2020).")
    var timeframe = "1Day"
    @Option(
        parsing: .upToNextOption,
        help:
            "Sweep parameters over a grid, on every core: name=first..last[:step] or name=a,b,c, e.g. fast=5..50 slow=20..200."
    )
    var sweep: [String] = []
    @Option(help: "With --sweep: how many of the best points the table shows (JSON lists them all).") var top = 20
    @Option(help: "With --sweep: how many backtests run at once (default: one per core).") var workers: Int?

    func run() async throws {
        guard let timing = FillTiming(rawValue: fill) else {
            throw ValidationError("--fill must be next-open or close")
        }
        guard ["text", "json", "html"].contains(report) else {
            throw ValidationError("--report must be text, json or html")
        }
        guard let quantity = try? FixedDecimal(parsing: qty), quantity.isPositive else {
            throw ValidationError("--qty must be a positive number")
        }
        guard let startingCash = try? FixedDecimal(parsing: cash), startingCash.isPositive else {
            throw ValidationError("--cash must be a positive amount")
        }
        guard slippageTicks >= 0, slippageBasisPoints >= 0 else {
            throw ValidationError("--slippage-ticks and --slippage-bps must not be negative")
        }
        guard let cap = try? FixedDecimal(parsing: volumeCap), cap.isPositive, cap <= .one else {
            throw ValidationError("--volume-cap must be above 0 and at most 1")
        }
        var params: [String: String] = [:]
        for item in parameters {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("--param takes k=v: \(item)") }
            params[parts[0]] = parts[1]
        }
        var grid: ParameterGrid?
        if !sweep.isEmpty {
            guard strategy != "queue-rules", strategy != "buy-and-hold" else {
                throw ValidationError("--sweep is for a strategy with parameters: sma-cross")
            }
            guard report != "html" else { throw ValidationError("a sweep reports text or json") }
            guard top > 0, (workers ?? 1) > 0 else { throw ValidationError("--top and --workers must be positive") }
            do { grid = try ParameterGrid(parsing: sweep) } catch { throw ValidationError("--sweep: \(error)") }
            if let clash = grid?.axes.first(where: { params[$0.name] != nil }) {
                throw ValidationError("\(clash.name) is both swept and set with --param")
            }
        }
        let chosen: any Strategy
        if grid != nil {
            chosen = BuyAndHold(qty: quantity) // (each point makes its own)
        } else if strategy == "queue-rules" {
            guard let rulesFile else { throw ValidationError("--strategy queue-rules needs --rules FILE.json") }
            let bytes: [UInt8]
            do { bytes = Array(try Data(contentsOf: URL(fileURLWithPath: rulesFile))) } catch {
                throw CLIError("cannot read \(rulesFile): \(error.localizedDescription)")
            }
            do {
                chosen = QueueRuleStrategy(rules: try QueueRuleStrategy.rules(try JSONValue(parsing: bytes)))
            } catch let error as QueueRuleJSON.Problem {
                throw CLIError("\(rulesFile): \(error.description)")
            } catch {
                throw CLIError("\(rulesFile): \(error)")
            }
        } else {
            do { chosen = try BuiltInStrategy.make(strategy, parameters: params, qty: quantity) } catch {
                throw ValidationError(error.description)
            }
        }
        let directory = try SymbolDirectory.bundled()
        let wanted = symbols.map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
        }
        var series: [BarSeries]
        // The simulated market's bars are raw prices: its splits and dividends come with them. CSV files carry none
        // (they are usually adjusted already).
        var actions: [String: [CorporateAction]] = [:]
        if source == "real" {
            guard let wanted, !wanted.isEmpty else {
                throw ValidationError(
                    "--source real needs --symbols, of: \(BundledHistory.symbols.sorted().joined(separator: ", "))")
            }
            series = try bundled(wanted)
        } else if timeframe != "1Day" {
            throw ValidationError(
                "--timeframe is for --source real; a CSV file's bars are as the file has them, the simulated market's daily"
            )
        } else if let data {
            series = try loadCSV(data, wanted: wanted, directory: directory)
        } else {
            guard let wanted, !wanted.isEmpty else { throw ValidationError("give --data FILE.csv or --symbols") }
            (series, actions) = try simulated(wanted, directory: directory)
        }
        let (start, end) = try range()
        if start != nil || end != nil {
            series = series.map { s in
                BarSeries(
                    symbol: s.symbol,
                    bars: s.bars.filter { bar in
                        let day = Self.zone(for: s.symbol, directory: directory).localTime(of: bar.time).date
                        return (start.map { day >= $0 } ?? true) && (end.map { day <= $0 } ?? true)
                    })
            }.filter { !$0.bars.isEmpty }
        }
        var instruments: [String: Instrument] = [:]
        // A series named as the directory knows it under another name (BTCUSD, BTC-USD) is tested as its pair.
        series = series.map { s in
            directory.entry(s.symbol).map { BarSeries(symbol: $0.symbol, bars: s.bars) } ?? s
        }
        for s in series {
            if let entry = directory.entry(s.symbol) {
                instruments[s.symbol] = entry.instrument
            } else if let share = Instrument.aShare(s.symbol, name: s.symbol) {
                instruments[s.symbol] = share
            } else {
                instruments[s.symbol] = .usEquity(s.symbol, name: s.symbol)
            }
        }
        let market: Market = instruments.values.first?.currency == .cny ? .cn : .us
        let settings = BacktestSettings(
            cash: startingCash, fill: timing, fees: try fees(market), slippageTicks: slippageTicks,
            slippageBasisPoints: slippageBasisPoints, volumeParticipation: cap)
        if let grid {
            try await runSweep(
                grid, fixed: params, quantity: quantity, settings: settings, series: series, instruments: instruments,
                actions: actions)
            return
        }
        let total = series.reduce(0) { $0 + $1.bars.count }
        let showProgress = total >= 200_000 && isatty(STDERR_FILENO) != 0
        var result: BacktestResult
        do {
            result = try Backtester(settings: settings).run(
                series, instruments: instruments, strategy: chosen, actions: actions,
                progress: showProgress ? { Self.progressBar($0) } : nil)
        } catch {
            throw CLIError(error.description)
        }
        if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
        if data == nil, source != "real", !result.aroundTheClock {
            // The simulated market's index of the same market over the same dates (real data has none bundled).
            let index: MarketIndex = market == .cn ? .sseComposite : .sp500
            let closes = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: seed))
                .indexBars(index, timeframe: .day, from: result.start.adding(seconds: -86_400), to: result.end)
                .map(\.close)
            result.index = BacktestResult.indexReturn(closes: closes).map { (index.name, $0) }
        }
        let text =
            switch report {
            case "json": String(decoding: result.json.serializedBytes, as: UTF8.self)
            case "html": result.html
            default: result.text
            }
        if let out {
            try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: out))
        } else {
            print(text)
        }
    }

    /// `--sweep`: a backtest at every point of the grid on every core, then the best points as a table (or every
    /// point as JSON).
    func runSweep(
        _ grid: ParameterGrid, fixed: [String: String], quantity: Quantity, settings: BacktestSettings,
        series: [BarSeries], instruments: [String: Instrument], actions: [String: [CorporateAction]]
    ) async throws {
        let name = strategy
        let started = ContinuousClock.now
        let cores = workers ?? ProcessInfo.processInfo.activeProcessorCount
        let rows = await ParameterSweep.run(
            grid, settings: settings, series: series, instruments: instruments, actions: actions, workers: cores
        ) { point throws(StrategyProblem) in
            try BuiltInStrategy.make(name, parameters: fixed.merging(point) { _, swept in swept }, qty: quantity)
        }
        let elapsed = ContinuousClock.now - started
        let skipped = rows.filter { $0.skipped != nil }
        guard skipped.count < rows.count else {
            throw CLIError("no point of the sweep could run: \(skipped.first?.skipped ?? "")")
        }
        let text: String
        if report == "json" {
            text = String(decoding: ParameterSweep.json(rows).serializedBytes, as: UTF8.self)
        } else {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            var lines = [
                "Sweep of \(name) over \(series.map(\.symbol).joined(separator: ", ")): \(rows.count) points "
                    + "(\(grid.axes.map { "\($0.name) \($0.values.count)" }.joined(separator: " × "))), "
                    + String(format: "%.2f s on %d cores", seconds, cores)
                    + (skipped.isEmpty ? "" : "; \(skipped.count) skipped (\(skipped[0].skipped ?? ""))"),
                "Best \(min(top, rows.count - skipped.count)) by return:", "",
            ]
            lines.append(ParameterSweep.table(rows, axes: grid.axes.map(\.name), top: top))
            text = lines.joined(separator: "\n")
        }
        if let out {
            try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: out))
        } else {
            print(text)
        }
    }

    static func progressBar(_ done: Double) {
        let width = 40
        let filled = Int(done * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(Int(done * 100))%".utf8))
    }

    func range() throws -> (CivilDate?, CivilDate?) {
        func date(_ text: String?, _ name: String) throws -> CivilDate? {
            guard let text else { return nil }
            guard let d = CivilDate(text) else { throw ValidationError("--\(name) must be a date YYYY-MM-DD") }
            return d
        }
        return (try date(from, "from"), try date(to, "to"))
    }

    func fees(_ market: Market) throws -> FeeSchedule? {
        do { return try BacktestSettings.fees(commission: commission) } catch {
            throw ValidationError("--\(error.description)")
        }
    }

    /// The time zone of a symbol's days: its instrument's calendar's (UTC for a crypto pair), or by its form.
    static func zone(for symbol: String, directory: SymbolDirectory) -> ExchangeTimeZone {
        if let entry = directory.entry(symbol) { return entry.instrument.calendar.zone }
        return symbol.count == 6 && symbol.allSatisfy(\.isNumber) ? .shanghai : .newYork
    }

    func loadCSV(_ path: String, wanted: [String]?, directory: SymbolDirectory) throws -> [BarSeries] {
        // Read as bytes and parsed in place: a String of a million-row file was a copy and a validation pass, ~0.06 s.
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CLIError("cannot read \(path): \(error.localizedDescription)")
        }
        let fallback =
            wanted?.first ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.uppercased()
        let zone: ExchangeTimeZone
        if let timezone {
            guard let z = ExchangeTimeZone(rawValue: timezone) else {
                throw ValidationError("--timezone must be America/New_York, Asia/Shanghai or UTC")
            }
            zone = z
        } else {
            zone = Self.zone(for: fallback, directory: directory)
        }
        // A date-only row is stamped when its day's bar ends: the close, or a crypto pair's end of the UTC day.
        let close: (hour: Int, minute: Int) =
            directory.entry(fallback)?.instrument.dailyBarEnd
            ?? (zone == .shanghai ? (15, 0) : zone == .utc ? (23, 59) : (16, 0))
        var series: [BarSeries]
        do {
            series = try data.withUnsafeBytes { raw throws(CSVBars.Problem) in
                try CSVBars.parse(
                    bytes: raw.bindMemory(to: UInt8.self), symbol: fallback, zone: zone, closeHour: close.hour,
                    closeMinute: close.minute)
            }
        } catch {
            throw CLIError("\(path): \((error as? CSVBars.Problem)?.description ?? "\(error)")")
        }
        if let wanted, series.count > 1 {
            series = series.filter { wanted.contains($0.symbol) }
            guard !series.isEmpty else { throw CLIError("\(path) has none of \(wanted.joined(separator: ", "))") }
        }
        return series
    }

    /// The bundled real daily history of the wanted symbols (US dates stamped at the New York close, A-shares at
    /// Shanghai's).
    func bundled(_ wanted: [String]) throws -> [BarSeries] {
        let unknown = wanted.filter { !BundledHistory.symbols.contains($0) }
        guard unknown.isEmpty else {
            throw ValidationError(
                "no bundled history for \(unknown.joined(separator: ", ")); it has \(BundledHistory.symbols.sorted().joined(separator: ", "))"
            )
        }
        do {
            switch timeframe {
            case "1Day": return try CSVBars.parseByMarket(try BundledHistory.dailyCSV(), wanted: wanted)
            case "5Min":
                return try wanted.flatMap { symbol in
                    guard let text = try BundledHistory.fiveMinuteCSV(symbol) else {
                        throw ValidationError(
                            "no bundled 5-minute history for \(symbol); it has \(BundledHistory.fiveMinuteSymbols.sorted().joined(separator: ", "))"
                        )
                    }
                    return try CSVBars.parse(text, symbol: symbol, zone: .shanghai, closeHour: 15)
                }
            default: throw ValidationError("--timeframe must be 1Day or 5Min")
            }
        } catch let error as CSVBars.Problem {
            throw CLIError("bundled history: \(error.description)")
        }
    }

    func simulated(_ wanted: [String], directory: SymbolDirectory) throws -> (
        [BarSeries], [String: [CorporateAction]]
    ) {
        let market = SimulatedMarket(directory: directory, configuration: SimulatorConfiguration(seed: seed))
        let (start, end) = try range()
        let today = TradingCalendar.xnys.zone.localTime(of: Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
            .date
        let last = end ?? today.adding(days: -1)
        let first = start ?? last.adding(days: -365)
        var actions: [String: [CorporateAction]] = [:]
        let series = try wanted.map { symbol in
            guard let entry = directory.entry(symbol) else { throw CLIError("unknown symbol \(symbol)") }
            actions[entry.symbol] = market.corporateActions(entry.symbol, from: first, through: last)
            let zone = entry.instrument.calendar.zone
            let close = entry.instrument.dailyBarEnd
            let bars = market.bars(
                symbol, timeframe: .day, from: Timestamp(first, in: zone), to: Timestamp(last.adding(days: 1), in: zone)
            ).map { bar in
                HistoricalBar(
                    time: Timestamp(
                        zone.localTime(of: bar.time).date, hour: close.hour, minute: close.minute, in: zone),
                    open: bar.open,
                    high: bar.high, low: bar.low, close: bar.close, volume: bar.volume)
            }
            return BarSeries(symbol: entry.symbol, bars: bars)
        }
        return (series, actions)
    }
}
