import TradingCore

/// When a strategy's orders may fill.
public enum FillTiming: String, Sendable, CaseIterable {
    /// From the next market event on: the next bar's open for market orders (the default, and the honest one).
    case nextOpen = "next-open"
    /// At the close of the bar that produced the signal — a price the strategy could not have traded at, since it
    /// saw that close first. Offered to compare with tools that do it; the report carries a warning.
    case close
}

/// A backtest's settings: the account, the realism knobs of the engine, and when orders fill.
public struct BacktestSettings: Sendable {
    public var cash: FixedDecimal
    public var fill: FillTiming
    /// The account's fees (nil: the market's real schedule, as live accounts pay).
    public var fees: FeeSchedule?
    /// Adverse slippage in ticks and in basis points on every fill (stops included; at most to the bar's high or
    /// low); the share of a bar's volume orders may take together.
    public var slippageTicks: Int
    public var slippageBasisPoints: Int
    public var volumeParticipation: FixedDecimal

    public init(
        cash: FixedDecimal = 100_000, fill: FillTiming = .nextOpen, fees: FeeSchedule? = nil, slippageTicks: Int = 0,
        slippageBasisPoints: Int = 0, volumeParticipation: FixedDecimal = .one
    ) {
        self.cash = cash
        self.fill = fill
        self.fees = fees
        self.slippageTicks = slippageTicks
        self.slippageBasisPoints = slippageBasisPoints
        self.volumeParticipation = volumeParticipation
    }
}

extension BacktestSettings {
    /// A commission as text: "real" (nil: the market's own fees), "none", a flat amount per order ("4.95"), or a
    /// percentage of each trade's value ("0.1%") — the games' commission rule.
    public static func fees(commission text: String) throws(StrategyProblem) -> FeeSchedule? {
        switch text.lowercased() {
        case "real", "": return nil
        case "none", "0": return .free
        default:
            let percent = text.hasSuffix("%")
            guard let amount = try? FixedDecimal(parsing: percent ? String(text.dropLast()) : text), !amount.isNegative
            else { throw StrategyProblem("commission must be real, none, an amount (4.95) or a percentage (0.1%)") }
            return GameRules.commissionSchedule(flat: percent ? nil : amount, percent: percent ? amount : nil) ?? .free
        }
    }
}

/// Runs a strategy over history through the real `TradingEngine`: the same validation (lots, ticks, buying power,
/// T+1, price limits), the same fill rules for bars (market orders at the open; limits when the bar's range goes
/// through them; stops by the high/low; at most `volumeParticipation` of the bar's volume), the same fees and
/// ledger. Bars of several symbols are merged in time order; the strategy sees each bar after it closed and its
/// orders can only fill at later events.
///
/// The market is "always open" to the engine: the bars say when trading happened, so a daily bar's orders wait for
/// the next bar however the data is stamped. A-share price limits apply from each day's previous close.
public struct Backtester: Sendable {
    public var settings: BacktestSettings

    public init(settings: BacktestSettings = BacktestSettings()) { self.settings = settings }

    public struct Problem: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Runs `strategy` over `series`, with each symbol traded as `instruments[symbol]`. `progress` is called with the
    /// share of bars done (0…1) every 1% or so.
    ///
    /// `actions` are the symbols' corporate actions (where the data has them, as the simulated market does: its bars
    /// are raw prices, so a split is a price jump that the position must follow). On each ex-date, at the symbol's
    /// first bar, a dividend is credited and a split or bonus issue multiplies the shares, as live accounts get them.
    public func run(
        _ series: [BarSeries], instruments: [String: Instrument], strategy: some Strategy,
        actions: [String: [CorporateAction]] = [:], progress: ((Double) -> Void)? = nil
    ) throws(Problem) -> BacktestResult {
        var strategy = strategy
        guard !series.isEmpty, series.contains(where: { !$0.bars.isEmpty }) else { throw Problem("no bars to test") }
        var configuration = EngineConfiguration(
            seed: 1, volumeParticipation: settings.volumeParticipation, slippageTicks: settings.slippageTicks,
            sessions: .alwaysOpen, gtcLifetimeDays: 365 * 200)
        configuration.slippageBasisPoints = settings.slippageBasisPoints
        configuration.publishesOrderUpdates = false // (the trades are read from the ledger)
        var engine = TradingEngine(configuration: configuration)
        var ids: [InstrumentID] = []
        var currency: Currency?
        for s in series {
            guard let instrument = instruments[s.symbol] else { throw Problem("no instrument for \(s.symbol)") }
            // A pair priced in dollars is bought with the account's dollars; one priced in another currency (USD.JPY)
            // would be bought with yen a dollar account does not hold.
            if let pair = instrument.currencyPair, pair.quote != .usd {
                throw Problem(
                    "\(s.symbol) is priced in \(pair.quote.rawValue): a backtest's dollar account has none to buy it with — backtest a pair priced in dollars (EUR.USD, GBP.USD, AUD.USD, NZD.USD)"
                )
            }
            // A coin pair (BTC/USDT) is paid in a coin a backtest's dollar account does not hold.
            if let pair = instrument.coinPair {
                throw Problem(
                    "\(s.symbol) is priced in \(pair.quote): a backtest's dollar account holds none to buy it with — backtest \(pair.baseLeg)"
                )
            }
            if let currency, instrument.currency != currency {
                throw Problem("one backtest trades one currency: \(s.symbol) trades in \(instrument.currency.rawValue)")
            }
            currency = instrument.currency
            ids.append(engine.register(instrument))
        }
        let market: Market = currency == .cny ? .cn : .us
        let account = AccountID(high: 0, low: 1)
        do {
            try engine.openAccount(account, market: market, startingCash: settings.cash, fees: settings.fees)
        } catch {
            throw Problem(error.message)
        }
        // Crypto alone trades every day: its days are UTC days (a stock's are its exchange's, a mix's New York's).
        let aroundTheClock = series.allSatisfy { instruments[$0.symbol]?.kind == .crypto }
        let zone = aroundTheClock ? TradingCalendar.crypto.zone : market.calendar.zone

        let total = series.reduce(0) { $0 + $1.bars.count }
        // Several symbols: every bar in time order (ties by the order the symbols were given). One symbol: as it is.
        var merged: [(series: Int32, index: Int32)] = []
        if series.count > 1 {
            merged.reserveCapacity(total)
            for (s, one) in series.enumerated() {
                for i in one.bars.indices { merged.append((Int32(s), Int32(i))) }
            }
            merged.sort {
                let (a, b) = (
                    series[Int($0.series)].bars[Int($0.index)].time, series[Int($1.series)].bars[Int($1.index)].time
                )
                return a != b ? a < b : $0.series < $1.series
            }
        }

        // One strategy context per symbol, moved on in place; the one of the symbol being worked on is held apart
        // (reading it from the array would copy it, its bars retained and released, on every bar).
        var contexts = series.indices.map { BarContext(symbol: series[$0].symbol, series: $0, bars: series[$0].bars) }
        var context = contexts[0]
        // What the loop keeps per symbol, in arrays indexed like `series` (no hashing per bar).
        var marks = [Price](repeating: .zero, count: series.count)
        var held = [Quantity](repeating: .zero, count: series.count)
        let limited = ids.map { engine.instrument($0).priceLimit != .none }
        var nextReference = [Timestamp](repeating: .distantPast, count: series.count)
        // Per symbol: its trading date, the close before it, and that day's price limits.
        var barDate = [CivilDate](repeating: CivilDate(1970, 1, 1), count: series.count)
        var previousClose = [Price?](repeating: nil, count: series.count)
        var bands = [PriceBand?](repeating: nil, count: series.count)
        let instrumentsOfSeries = ids.map { engine.instrument($0) }
        let actionsOfSeries = series.map { (actions[$0.symbol] ?? []).sorted { $0.exDate < $1.exDate } }
        var nextAction = [Int](repeating: 0, count: series.count)
        var cash = settings.cash
        var recorder = TradeRecorder(symbols: series.map(\.symbol), instruments: ids)
        var points: [ValuationPoint] = []
        var day = CivilDate(1970, 1, 1)
        var nextDay = Timestamp.distantPast
        var barsInMarket = 0
        // The first series' smallest gap between bars, for the report's frequency (`BarSeries.frequency`, measured
        // on the way instead of in a second pass over the bars).
        var smallestGap = Int64.max
        var refusals = BacktestResult.Refusals()
        var peak = settings.cash
        let step = max(1, total / 100)
        var nextProgress = progress == nil ? Int.max : 0

        func equity() -> FixedDecimal {
            var value = cash
            for s in held.indices where !held[s].isZero { value += held[s].multiplied(by: marks[s]) }
            return value
        }
        /// Books the engine's new events (fills) and reads the account again, only when there were any.
        func settle(bar n: Int, at time: Timestamp) {
            guard !engine.outbox.isEmpty else { return }
            recorder.drain(&engine, at: time, bars: n)
            engine.pruneClosedOrders()
            // (The closures return what they read: one that assigned these captured variables would have each
            // access checked at run time.)
            guard let balance = engine.readAccount(account, { $0.cash }) else { return }
            cash = balance
            for (s, id) in ids.enumerated() {
                // (A pair's holding is the account's balance of its base currency: euros for EUR.USD.)
                held[s] =
                    engine.readAccount(account) { a in
                        a.positions[id]?.qty
                            ?? (a.balances.isEmpty ? .zero : a.balances.values.first { $0.pair == id }?.amount ?? .zero)
                    } ?? .zero
            }
        }

        // Orders decided at a bar's close reach the engine at the next moment of the market (the next event
        // later than that bar): validated then (an A-share bought today may be sold tomorrow), filled from then on.
        var pending: [OrderRequest] = []
        // What the strategy places at a bar (one buffer for the run, emptied once its orders are taken).
        var orders = OrderBook()
        var decidedAt = Timestamp.distantPast
        func submitPending(at time: Timestamp) {
            for request in pending {
                do { try engine.submit(request, account: account, at: time) } catch {
                    refusals.add(error)
                }
            }
            pending.removeAll(keepingCapacity: true)
        }

        for n in 0..<total {
            let (s, i) = merged.isEmpty ? (0, n) : (Int(merged[n].series), Int(merged[n].index))
            let bar = series[s].bars[i]
            let id = ids[s]
            if context.series != s {
                contexts[context.series] = context
                context = contexts[s]
            }
            if bar.time >= nextDay {
                if n > 0 { points.append(ValuationPoint(date: day, value: equity())) }
                day = zone.localTime(of: bar.time).date
                nextDay = Timestamp(day.adding(days: 1), in: zone)
            }
            // A symbol's new day: the previous close is its reference (A-share price limits come from it).
            if bar.time >= nextReference[s] {
                barDate[s] = zone.localTime(of: bar.time).date
                // Ex-dates up to today: book them, and restate the reference as the market does (the last close
                // divided by a split's ratio, less a dividend).
                var restate: (ratio: FixedDecimal, cash: FixedDecimal) = (.one, .zero)
                while nextAction[s] < actionsOfSeries[s].count, actionsOfSeries[s][nextAction[s]].exDate <= barDate[s] {
                    let action = actionsOfSeries[s][nextAction[s]]
                    nextAction[s] += 1
                    guard i > 0 else { continue } // before the data starts: nothing held, prices already after it
                    engine.applyCorporateAction(action, to: account, referencePrice: nil, at: bar.time)
                    if action.kind.changesShares {
                        restate.ratio = restate.ratio.multiplied(by: action.ratio)
                        recorder.restate(symbol: action.symbol, ratio: action.ratio)
                    } else {
                        restate.cash += action.cash
                    }
                    settle(bar: n, at: bar.time)
                }
                if i > 0 {
                    var reference = series[s].bars[i - 1].close
                    if restate.ratio != .one || restate.cash.isPositive {
                        let places = instrumentsOfSeries[s].tick.places(at: reference)
                        reference =
                            (reference - restate.cash).divided(by: restate.ratio, places: places, rule: .halfUp)
                            ?? reference
                    }
                    previousClose[s] = reference
                    if limited[s] {
                        let instrument = instrumentsOfSeries[s]
                        bands[s] = instrument.priceLimit.band(previousClose: reference, tick: instrument.tick)
                        engine.apply(
                            MarketEvent(instrument: id, time: bar.time, kind: .reference(previousClose: reference)))
                    }
                }
                nextReference[s] = Timestamp(barDate[s].adding(days: 1), in: zone)
                context.startDay(barDate[s], previousClose: previousClose[s], band: bands[s])
            }
            if !pending.isEmpty, bar.time > decidedAt {
                submitPending(at: bar.time)
                settle(bar: n, at: bar.time)
            }
            engine.apply(bar: bar.engineBar, instrument: id, at: bar.time)
            if s == 0, i > 0 {
                smallestGap = min(smallestGap, bar.time.nanoseconds - series[0].bars[i - 1].time.nanoseconds)
            }
            marks[s] = bar.close
            settle(bar: n, at: bar.time)

            if !held[s].isZero { barsInMarket += 1 }
            let value = equity()
            if value > peak { peak = value }
            context.move(to: i, position: held[s], cash: cash, equity: value)
            strategy.onBar(context, orders: &orders)
            if !orders.requests.isEmpty {
                if settings.fill == .close {
                    // At the signal bar's own close (the look-ahead the report warns about).
                    pending = orders.requests
                    submitPending(at: bar.time)
                    engine.apply(
                        MarketEvent(
                            instrument: id, time: bar.time, kind: .trade(price: bar.close, size: max(bar.volume, .one)))
                    )
                    settle(bar: n, at: bar.time)
                } else {
                    pending += orders.requests
                    decidedAt = bar.time
                }
                orders.requests.removeAll(keepingCapacity: true)
            }
            if n >= nextProgress {
                progress?(Double(n) / Double(total))
                nextProgress = n + step
            }
        }
        points.append(ValuationPoint(date: day, value: equity()))
        progress?(1)
        // Open trades are valued at the last close.
        for (k, s) in recorder.openSeries.enumerated() {
            recorder.open[k].openValue = held[s].magnitude.multiplied(by: marks[s])
        }

        // (Some series has bars: checked before the run.)
        let first = series.compactMap { $0.bars.first?.time }.min() ?? .distantPast
        let last = series.compactMap { $0.bars.last?.time }.max() ?? .distantPast
        let holdReturns = series.compactMap { s -> FixedDecimal? in
            guard let open = s.bars.first?.close, let close = s.bars.last?.close else { return nil }
            return (close - open).divided(by: open, places: 6, rule: .halfEven)
        }
        let buyAndHold =
            holdReturns.isEmpty
            ? nil
            : holdReturns.reduce(.zero, +).divided(by: FixedDecimal(holdReturns.count), places: 6, rule: .halfEven)
        return BacktestResult(
            symbols: series.map(\.symbol), currency: currency ?? .usd,
            frequency: BarFrequency(smallestGap: smallestGap),
            start: first, end: last, bars: total, startingCash: settings.cash, finalEquity: equity(),
            points: points, peakEquity: max(peak, equity()), trades: recorder.closed, openTrades: recorder.open,
            fees: engine.accounts[account]?.totalFees ?? .zero, exposureBars: barsInMarket, refusals: refusals.list,
            buyAndHoldReturn: buyAndHold, index: nil, fill: settings.fill, aroundTheClock: aroundTheClock)
    }
}

/// Round trips from the engine's fills: a trade opens when a symbol's position leaves zero and closes when it
/// returns to it (entry and exit prices are the averages of the fills each way). Read from the ledger entries the
/// engine publishes (a fill, then its fees), with symbols by their place in the run (no text hashed per fill).
struct TradeRecorder {
    var symbols: [String]
    /// Open trades in the order they opened, and the series of each.
    var open: [BacktestTrade] = []
    var openSeries: [Int] = []
    var closed: [BacktestTrade] = []
    /// Per series: the position the fills add up to, and its last closed trade (a closing fill's fees follow it).
    var positions: [Quantity]
    var lastClosed: [Int?]
    /// The series of each engine instrument (by its index).
    var seriesOfInstrument: [Int] = []
    var events: [EngineEvent] = []

    init(symbols: [String], instruments: [InstrumentID]) {
        self.symbols = symbols
        positions = Array(repeating: .zero, count: symbols.count)
        lastClosed = Array(repeating: nil, count: symbols.count)
        for (s, id) in instruments.enumerated() {
            let index = Int(id.index)
            if index >= seriesOfInstrument.count {
                seriesOfInstrument += Array(repeating: -1, count: index + 1 - seriesOfInstrument.count)
            }
            seriesOfInstrument[index] = s
        }
    }

    /// A split or bonus issue: the position and the open trade's shares follow it (the money put in does not
    /// change, so the entry price falls by the ratio).
    mutating func restate(symbol: String, ratio: FixedDecimal) {
        guard let s = symbols.firstIndex(of: symbol), !positions[s].isZero else { return }
        positions[s] = positions[s].multiplied(by: ratio).rounded(places: 0, rule: .down)
        if let i = openSeries.firstIndex(of: s) {
            open[i].entryQty = open[i].entryQty.multiplied(by: ratio).rounded(places: 0, rule: .down)
            open[i].exitQty = open[i].exitQty.multiplied(by: ratio).rounded(places: 0, rule: .down)
            open[i].qty = open[i].qty.multiplied(by: ratio).rounded(places: 0, rule: .down)
        }
    }

    /// Takes the engine's new events (so its outbox never grows) and books their fills and fees.
    mutating func drain(_ engine: inout TradingEngine, at time: Timestamp, bars: Int) {
        guard !engine.outbox.isEmpty else { return }
        // The outbox and this spare buffer trade places, so neither is reallocated per drain.
        swap(&events, &engine.outbox)
        defer { events.removeAll(keepingCapacity: true) }
        for k in events.indices {
            guard case .ledger(let entry) = events[k] else { continue }
            switch entry.kind {
            case .fill(let fill):
                guard let s = series(of: fill.instrument) else { continue }
                book(series: s, side: fill.side, qty: fill.qty, value: fill.value, at: time, bar: bars)
            case .fee(_, _, let symbol):
                guard let s = symbols.firstIndex(of: symbol) else { continue }
                charge(-entry.cashChange, series: s)
            case .cryptoFee(let fee):
                guard let s = symbols.firstIndex(of: fee.symbol) else { continue }
                // Coins a purchase paid in leave the position smaller: the trade closes when what is left is sold.
                if fee.side == .buy { positions[s] -= fee.qty }
                charge(fee.value, series: s)
            default:
                continue
            }
        }
    }

    func series(of instrument: InstrumentID) -> Int? {
        let index = Int(instrument.index)
        guard index >= 0, index < seriesOfInstrument.count, seriesOfInstrument[index] >= 0 else { return nil }
        return seriesOfInstrument[index]
    }

    mutating func book(series s: Int, side: OrderSide, qty: Quantity, value: FixedDecimal, at time: Timestamp, bar: Int)
    {
        let after = positions[s] + (side == .buy ? qty : .zero - qty)
        positions[s] = after
        var index = openSeries.firstIndex(of: s)
        if index == nil {
            open.append(
                BacktestTrade(
                    symbol: symbols[s], side: side == .buy ? .long : .short, entryTime: time, entryBar: bar,
                    exitTime: nil, exitBar: nil, qty: .zero, entryValue: .zero, entryQty: .zero, exitValue: .zero,
                    exitQty: .zero, fees: .zero, openValue: nil))
            openSeries.append(s)
            index = open.count - 1
        }
        guard let i = index else { return }
        if (open[i].side == .long) == (side == .buy) {
            open[i].entryQty += qty
            open[i].entryValue += value
            open[i].qty = max(open[i].qty, after.magnitude)
        } else {
            open[i].exitQty += qty
            open[i].exitValue += value
        }
        if after.isZero {
            var trade = open.remove(at: i)
            openSeries.remove(at: i)
            trade.exitTime = time
            trade.exitBar = bar
            // Grown four-fold rather than doubled: at tens of thousands of trades (~200 bytes each) every growth is a
            // fresh block whose pages fault in as the trades are moved over (~5% of a minute-bar backtest's time
            // when doubling); the untouched end of a larger block costs nothing.
            if closed.count == closed.capacity { closed.reserveCapacity(Swift.max(64, closed.capacity * 4)) }
            closed.append(trade)
            lastClosed[s] = closed.count - 1
        }
    }

    /// A fill's fee: its symbol's open trade pays it, or the trade that fill just closed.
    mutating func charge(_ fee: FixedDecimal, series s: Int) {
        if let i = openSeries.firstIndex(of: s) {
            open[i].fees += fee
        } else if let k = lastClosed[s] {
            closed[k].fees += fee
        }
    }
}

/// One round trip.
public struct BacktestTrade: Sendable, Hashable {
    public enum Side: String, Sendable { case long, short }
    public var symbol: String
    public var side: Side
    public var entryTime: Timestamp
    public var entryBar: Int
    public var exitTime: Timestamp?
    public var exitBar: Int?
    /// The largest position of the trade.
    public var qty: Quantity
    public var entryValue: FixedDecimal
    public var entryQty: Quantity
    public var exitValue: FixedDecimal
    public var exitQty: Quantity
    public var fees: FixedDecimal
    /// An open trade's shares still held, valued at the last close (nil once closed).
    public var openValue: FixedDecimal?

    public var entryPrice: Price { entryValue.divided(by: entryQty, places: 4, rule: .halfEven) ?? .zero }
    public var exitPrice: Price? {
        exitQty.isZero ? nil : exitValue.divided(by: exitQty, places: 4, rule: .halfEven)
    }
    /// Profit after fees; an open trade's counts its shares still held at the last close.
    public var pnl: FixedDecimal {
        let out = exitValue + (openValue ?? .zero)
        return (side == .long ? out - entryValue : entryValue - out) - fees
    }
    /// P&L as a fraction of what was put in.
    public var returnFraction: FixedDecimal {
        entryValue.isZero ? .zero : pnl.divided(by: entryValue, places: 6, rule: .halfEven) ?? .zero
    }
}
