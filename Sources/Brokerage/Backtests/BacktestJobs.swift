import Backtest
import MarketData
import ServiceLifecycle
import Synchronization
import TradingCore

/// Backtests run as jobs for the native API and the web app: a request names symbols, dates, a strategy (built in,
/// or queue rules — given, or an account's queued ones), the bars' timeframe (daily, or intraday down to one minute) and
/// the realism settings; the job fetches the bars from the market-data feed (the simulated market, or the configured
/// provider), runs `Backtester` and keeps its progress and report. Jobs are computations, not account state: they
/// live in memory (the last 20 per user, 500 in all) and a restart forgets them.
///
/// A service of the application: `start` checks a request and queues its job; `run` works the queue, `workers`
/// backtests at a time, until graceful shutdown (the backtests it is running finish first; queued ones fail with
/// "the server stopped").
public actor BacktestJobs: Service {
    public enum Status: String, Sendable { case running, done, failed }

    /// What to test.
    public struct Request: Sendable {
        public var symbols: [String]
        public var from: CivilDate
        public var to: CivilDate
        public var strategy: String
        public var parameters: [String: String]
        public var qty: Quantity
        public var cash: FixedDecimal
        public var fill: FillTiming
        /// nil: the market's real fees.
        public var fees: FeeSchedule?
        /// For `queue-rules`: the rules to replay.
        public var rules: [QueueRuleStrategy.Rule]
        /// Test on the bundled real history (`BundledHistory`: daily; 5-minute for `fiveMinuteSymbols`) instead of the
        /// feed's bars.
        public var realHistory = false
        /// The bars the strategy sees: `.day`, or an intraday timeframe (minutes or hours; a year at most).
        public var timeframe: BarTimeframe = .day

        public init(
            symbols: [String], from: CivilDate, to: CivilDate, strategy: String, parameters: [String: String] = [:],
            qty: Quantity = .one, cash: FixedDecimal = 100_000, fill: FillTiming = .nextOpen, fees: FeeSchedule? = nil,
            rules: [QueueRuleStrategy.Rule] = []
        ) {
            self.symbols = symbols
            self.from = from
            self.to = to
            self.strategy = strategy
            self.parameters = parameters
            self.qty = qty
            self.cash = cash
            self.fill = fill
            self.fees = fees
            self.rules = rules
        }
    }

    public struct Job: Sendable {
        public var id: String
        public var userID: UserID
        public var request: Request
        public var status: Status
        public var createdAt: Timestamp
        public var finishedAt: Timestamp?
        public var error: String?
        public var result: BacktestResult?
        let progress: ProgressBox

        /// The share of bars done, 0…1.
        public var done: Double { status == .running ? progress.value.withLock { $0 } : 1 }
    }

    final class ProgressBox: Sendable {
        let value = Mutex<Double>(0)
    }

    /// A checked request waiting for a worker.
    struct Work: Sendable {
        var id: String
        var request: Request
        var strategy: any Strategy
        var instruments: [String: Instrument]
        var progress: ProgressBox
    }

    let feed: any MarketDataFeed
    let directory: SymbolDirectory
    let clock: MarketClock
    var jobs: [String: Job] = [:]
    static let keptPerUser = 20
    /// Finished jobs kept for all users together, the oldest forgotten past it: a report holds its equity points and
    /// trades (megabytes for a year of minute bars), and twenty for each of 50,000 users would not fit in memory.
    static let keptInAll = 500
    static let runningPerUser = 2
    /// Backtests computed at once (each holds a core while it runs).
    let workers: Int
    private let queue: AsyncStream<Work>
    private let enqueue: AsyncStream<Work>.Continuation

    init(feed: any MarketDataFeed, directory: SymbolDirectory, clock: MarketClock, workers: Int = 2) {
        self.feed = feed
        self.directory = directory
        self.clock = clock
        self.workers = max(1, workers)
        (queue, enqueue) = AsyncStream.makeStream()
    }

    /// Works the queue until graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await work in self.queue {
                    if running == self.workers {
                        await group.next()
                        running -= 1
                    }
                    group.addTask {
                        let outcome = await Self.compute(work, feed: self.feed)
                        await self.finish(work.id, outcome)
                    }
                    running += 1
                }
            }
        }
        failQueued("the server stopped before this backtest ran")
    }

    public func job(_ id: String, user: UserID) -> Job? {
        guard let job = jobs[id], job.userID == user else { return nil }
        return job
    }

    /// The user's jobs, newest first.
    public func jobs(user: UserID) -> [Job] {
        jobs.values.filter { $0.userID == user }.sorted { $0.createdAt > $1.createdAt }
    }

    /// Checks a request and starts its job; the answer comes at once, the work continues in the background.
    public func start(_ request: Request, user: UserID) throws(BrokerageError) -> Job {
        let strategy = try Self.strategy(request)
        guard !request.symbols.isEmpty, request.symbols.count <= 50 else {
            throw .invalid("give between 1 and 50 symbols")
        }
        guard request.from <= request.to else { throw .invalid("from must not be after to") }
        guard request.to.daysSinceEpoch - request.from.daysSinceEpoch <= 366 * 20 else {
            throw .invalid("a backtest covers at most 20 years")
        }
        var instruments: [String: Instrument] = [:]
        var symbols: [String] = []
        for text in request.symbols {
            if request.realHistory {
                let symbol = text.uppercased()
                guard BundledHistory.symbols.contains(symbol) else {
                    throw .invalid(
                        "no bundled real history for \(symbol); it has \(BundledHistory.symbols.sorted().joined(separator: ", "))"
                    )
                }
                guard request.timeframe == .day || BundledHistory.fiveMinuteSymbols.contains(symbol) else {
                    throw .invalid(
                        "no bundled 5-minute history for \(symbol); it has \(BundledHistory.fiveMinuteSymbols.sorted().joined(separator: ", "))"
                    )
                }
                instruments[symbol] =
                    directory.entry(symbol)?.instrument ?? Instrument.aShare(symbol, name: symbol)
                    ?? .usEquity(symbol, name: symbol)
                symbols.append(symbol)
                continue
            }
            guard let entry = directory.entry(text) else { throw .notFound("asset not found for \(text)") }
            instruments[entry.symbol] = entry.instrument
            symbols.append(entry.symbol)
        }
        guard Set(instruments.values.map(\.currency)).count == 1 else {
            throw .invalid("one backtest trades one currency: give US stocks or A-shares, not both")
        }
        guard jobs.values.filter({ $0.userID == user && $0.status == .running }).count < Self.runningPerUser else {
            throw .conflict("\(Self.runningPerUser) of your backtests are still running; wait for one to finish")
        }
        var generator = SystemRandomNumberGenerator()
        let id = Identifier.random(using: &generator).description
        var request = request
        request.symbols = symbols
        let job = Job(
            id: id, userID: user, request: request, status: .running, createdAt: clock.now(), finishedAt: nil,
            error: nil, result: nil, progress: ProgressBox())
        jobs[id] = job
        forgetOldJobs(of: user)
        enqueue.yield(
            Work(id: id, request: request, strategy: strategy, instruments: instruments, progress: job.progress))
        return job
    }

    /// Runs one backtest: the bundled real history, or the feed's bars with their corporate actions, and the
    /// benchmark index's return over the same days.
    static func compute(_ work: Work, feed: any MarketDataFeed) async -> Result<BacktestResult, BrokerageError> {
        let request = work.request
        let backtester = Backtester(
            settings: BacktestSettings(cash: request.cash, fill: request.fill, fees: request.fees))
        let progress = work.progress
        do {
            // The run itself computes for up to seconds: on the compute lane, not the cooperative pool the
            // server answers on.
            if request.realHistory {
                return .success(
                    try await ComputeLane.run {
                        try backtester.run(
                            try bundledBars(request.symbols, request: request), instruments: work.instruments,
                            strategy: work.strategy
                        ) { done in progress.value.withLock { $0 = done } }
                    })
            }
            let series = try await bars(request.symbols, instruments: work.instruments, request: request, feed: feed)
            // The feed's bars are raw prices: their splits and dividends come with them.
            var actions: [String: [CorporateAction]] = [:]
            for symbol in request.symbols {
                actions[symbol] =
                    (try? await feed.corporateActions(symbol, from: request.from, through: request.to)) ?? []
            }
            let settled = actions
            var result = try await ComputeLane.run {
                try backtester.run(
                    series, instruments: work.instruments, strategy: work.strategy, actions: settled
                ) { done in progress.value.withLock { $0 = done } }
            }
            // A stock index says nothing of a run of coins alone.
            if !result.aroundTheClock {
                let index: MarketIndex = result.currency == .cny ? .sseComposite : .sp500
                let closes =
                    (try? await feed.indexBars(
                        index, timeframe: .day, from: result.start.adding(seconds: -86_400), to: result.end))?.map(
                        \.close)
                result.index = closes.flatMap { BacktestResult.indexReturn(closes: $0) }.map { (index.name, $0) }
            }
            return .success(result)
        } catch let error as BrokerageError {
            return .failure(error)
        } catch let error as Backtester.Problem {
            return .failure(.invalid(error.description))
        } catch {
            return .failure(.unavailable("\(error)"))
        }
    }

    /// Jobs still queued when the service stops.
    private func failQueued(_ reason: String) {
        for (id, job) in jobs where job.status == .running { finish(id, .failure(.unavailable(reason))) }
    }

    func finish(_ id: String, _ outcome: Result<BacktestResult, BrokerageError>) {
        guard var job = jobs[id] else { return }
        job.finishedAt = clock.now()
        switch outcome {
        case .success(let result):
            job.status = .done
            job.result = result
        case .failure(let error):
            job.status = .failed
            job.error = error.message
        }
        jobs[id] = job
    }

    func forgetOldJobs(of user: UserID) {
        for id in Self.forgotten(Array(jobs.values), after: user) { jobs[id] = nil }
    }

    /// The finished jobs to forget once `user` has started one: theirs past the newest `perUser`, then everyone's
    /// oldest past `inAll` (running jobs are never forgotten).
    static func forgotten(
        _ jobs: [Job], after user: UserID, perUser: Int = keptPerUser, inAll: Int = keptInAll
    ) -> [String] {
        let finished = jobs.filter { $0.status != .running }.sorted { $0.createdAt > $1.createdAt }
        let theirs = finished.filter { $0.userID == user }.dropFirst(perUser).map(\.id)
        let gone = Set(theirs)
        let rest = finished.filter { !gone.contains($0.id) }
        return theirs + rest.dropFirst(inAll).map(\.id)
    }

    static func strategy(_ request: Request) throws(BrokerageError) -> any Strategy {
        if request.strategy == "queue-rules" {
            guard !request.rules.isEmpty else {
                throw .invalid("queue-rules needs rules: give them, or an account_id whose queued rules to replay")
            }
            return QueueRuleStrategy(rules: request.rules)
        }
        do { return try BuiltInStrategy.make(request.strategy, parameters: request.parameters, qty: request.qty) } catch
        {
            throw .invalid(error.description)
        }
    }

    /// The bundled real history of the symbols between the request's dates (already adjusted: no actions): daily, or
    /// 5-minute bars (`BundledHistory.fiveMinuteSymbols`).
    static func bundledBars(_ symbols: [String], request: Request) throws(BrokerageError) -> [BarSeries] {
        var all: [BarSeries] = []
        do {
            if request.timeframe == .day {
                all = try CSVBars.parseByMarket(try BundledHistory.dailyCSV(), wanted: symbols)
            } else {
                for symbol in symbols {
                    guard let text = try BundledHistory.fiveMinuteCSV(symbol) else {
                        throw BrokerageError.invalid("no bundled 5-minute history for \(symbol)")
                    }
                    all += try CSVBars.parse(text, symbol: symbol, zone: .shanghai, closeHour: 15)
                }
            }
        } catch let error as BrokerageError {
            throw error
        } catch let error as CSVBars.Problem {
            throw .unavailable(error.description)
        } catch {
            throw .unavailable("the bundled history cannot be read")
        }
        let series = all.map { s in
            let zone: ExchangeTimeZone = s.symbol.count == 6 ? .shanghai : .newYork
            return BarSeries(
                symbol: s.symbol,
                bars: s.bars.filter {
                    let day = zone.localTime(of: $0.time).date
                    return day >= request.from && day <= request.to
                })
        }.filter { !$0.bars.isEmpty }
        guard !series.isEmpty else {
            throw .notFound(
                "the bundled history has no bars of these symbols between \(request.from) and \(request.to)")
        }
        return series
    }

    /// Each symbol's bars from the feed, stamped when they end (daily bars at the market's close), which is when the
    /// strategy sees them.
    static func bars(
        _ symbols: [String], instruments: [String: Instrument], request: Request, feed: any MarketDataFeed
    ) async throws(BrokerageError) -> [BarSeries] {
        var out: [BarSeries] = []
        for symbol in symbols {
            guard let instrument = instruments[symbol] else { continue }
            let zone = instrument.calendar.zone
            let close = instrument.dailyBarEnd
            let timeframe = request.timeframe
            let bars: [PriceBar]
            do {
                bars = try await feed.bars(
                    symbol, timeframe: timeframe, from: Timestamp(request.from, in: zone),
                    to: Timestamp(request.to.adding(days: 1), in: zone))
            } catch {
                throw .feed(error)
            }
            guard !bars.isEmpty else {
                throw .notFound("no \(timeframe) bars for \(symbol) between \(request.from) and \(request.to)")
            }
            out.append(
                BarSeries(
                    symbol: symbol,
                    bars: bars.map {
                        let end =
                            timeframe.isIntraday
                            ? $0.time.adding(seconds: Int64(timeframe.minutes) * 60)
                            : Timestamp(
                                zone.localTime(of: $0.time).date, hour: close.hour, minute: close.minute, in: zone)
                        return HistoricalBar(
                            time: end, open: $0.open, high: $0.high, low: $0.low, close: $0.close, volume: $0.volume)
                    }))
        }
        return out
    }
}
