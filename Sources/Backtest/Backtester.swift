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
    /// Adverse slippage in ticks on fills from quotes; share of a bar's volume orders may take together.
    public var slippageTicks: Int
    public var volumeParticipation: FixedDecimal

    public init(
        cash: FixedDecimal = 100_000, fill: FillTiming = .nextOpen, fees: FeeSchedule? = nil, slippageTicks: Int = 0,
        volumeParticipation: FixedDecimal = .one
    ) {
        self.cash = cash
        self.fill = fill
        self.fees = fees
        self.slippageTicks = slippageTicks
        self.volumeParticipation = volumeParticipation
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
    public func run(
        _ series: [BarSeries], instruments: [String: Instrument], strategy: some Strategy,
        progress: ((Double) -> Void)? = nil
    ) throws(Problem) -> BacktestResult {
        var strategy = strategy
        guard !series.isEmpty, series.contains(where: { !$0.bars.isEmpty }) else { throw Problem("no bars to test") }
        var engine = TradingEngine(
            configuration: EngineConfiguration(
                seed: 1, volumeParticipation: settings.volumeParticipation, slippageTicks: settings.slippageTicks,
                sessions: .alwaysOpen, gtcLifetimeDays: 365 * 200))
        var ids: [InstrumentID] = []
        var currency: Currency?
        for s in series {
            guard let instrument = instruments[s.symbol] else { throw Problem("no instrument for \(s.symbol)") }
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
        let zone = market.calendar.zone

        // Every bar of every symbol, in time order (ties by the order the symbols were given).
        var events: [(time: Timestamp, series: Int, index: Int)] = []
        events.reserveCapacity(series.reduce(0) { $0 + $1.bars.count })
        for (s, one) in series.enumerated() {
            for i in one.bars.indices { events.append((one.bars[i].time, s, i)) }
        }
        events.sort { $0.time != $1.time ? $0.time < $1.time : $0.series < $1.series }

        var closes: [[Price]] = series.map { _ in [] }
        for s in series.indices { closes[s].reserveCapacity(series[s].bars.count) }
        var marks: [Price?] = series.map { _ in nil }
        var recorder = TradeRecorder(symbols: series.map(\.symbol))
        var points: [ValuationPoint] = []
        var equityCurve: [(time: Timestamp, equity: FixedDecimal)] = []
        var currentDate: CivilDate?
        var barsInMarket = 0
        var rejections: [String: Int] = [:]
        var lastProgress = -1

        func equity() -> FixedDecimal {
            guard let a = engine.account(account) else { return .zero }
            var total = a.cash
            for (s, id) in ids.enumerated() {
                if let qty = a.positions[id]?.qty, !qty.isZero { total += qty.multiplied(by: marks[s] ?? .zero) }
            }
            return total
        }

        // Orders decided at a bar's close reach the engine at the next moment of the market (the next event
        // later than that bar): validated then (an A-share bought today may be sold tomorrow), filled from then on.
        var pending: [OrderRequest] = []
        var decidedAt = Timestamp.distantPast
        func submitPending(at time: Timestamp) {
            for request in pending {
                do { try engine.submit(request, account: account, at: time) } catch {
                    rejections[error.message, default: 0] += 1
                }
            }
            pending.removeAll(keepingCapacity: true)
        }

        for (n, event) in events.enumerated() {
            let bar = series[event.series].bars[event.index]
            let id = ids[event.series]
            let date = zone.localTime(of: bar.time).date
            if let day = currentDate, date != day {
                points.append(ValuationPoint(date: day, value: equity()))
            }
            currentDate = date
            // The day's reference (A-share price limits) from the previous close.
            if event.index > 0 {
                let previous = series[event.series].bars[event.index - 1]
                if zone.localTime(of: previous.time).date != date {
                    engine.apply(
                        MarketEvent(instrument: id, time: bar.time, kind: .reference(previousClose: previous.close)))
                }
            }
            if !pending.isEmpty, bar.time > decidedAt { submitPending(at: bar.time) }
            engine.apply(MarketEvent(instrument: id, time: bar.time, kind: .bar(bar.engineBar)))
            marks[event.series] = bar.close
            closes[event.series].append(bar.close)
            recorder.drain(&engine, at: bar.time, bars: n)

            let held = engine.account(account)?.positions[id]?.qty ?? .zero
            if !held.isZero { barsInMarket += 1 }
            var orders = OrderBook()
            let cash = engine.account(account)?.cash ?? .zero
            strategy.onBar(
                BarContext(
                    symbol: series[event.series].symbol, bar: bar, closes: closes[event.series][...], position: held,
                    cash: cash, equity: equity()),
                orders: &orders)
            if settings.fill == .close, !orders.requests.isEmpty {
                // At the signal bar's own close (the look-ahead the report warns about).
                pending = orders.requests
                submitPending(at: bar.time)
                engine.apply(
                    MarketEvent(
                        instrument: id, time: bar.time, kind: .trade(price: bar.close, size: max(bar.volume, .one))))
            } else if !orders.requests.isEmpty {
                pending += orders.requests
                decidedAt = bar.time
            }
            recorder.drain(&engine, at: bar.time, bars: n)
            if equityCurve.last?.time == bar.time { equityCurve.removeLast() }
            equityCurve.append((bar.time, equity()))
            if let progress, events.count >= 100 {
                let percent = n * 100 / events.count
                if percent != lastProgress {
                    lastProgress = percent
                    progress(Double(n) / Double(events.count))
                }
            }
        }
        if let day = currentDate { points.append(ValuationPoint(date: day, value: equity())) }
        progress?(1)

        let first = series.compactMap { $0.bars.first?.time }.min()!
        let last = series.compactMap { $0.bars.last?.time }.max()!
        let holdReturns = series.compactMap { s -> FixedDecimal? in
            guard let open = s.bars.first?.close, let close = s.bars.last?.close else { return nil }
            return (close - open).divided(by: open, places: 6, rule: .halfEven)
        }
        let buyAndHold =
            holdReturns.isEmpty
            ? nil
            : holdReturns.reduce(.zero, +).divided(by: FixedDecimal(holdReturns.count), places: 6, rule: .halfEven)
        return BacktestResult(
            symbols: series.map(\.symbol), currency: currency ?? .usd, frequency: series[0].frequency,
            start: first, end: last, bars: events.count, startingCash: settings.cash, finalEquity: equity(),
            points: points, equityCurve: equityCurve, trades: recorder.closed, openTrades: recorder.open,
            fees: engine.account(account)?.totalFees ?? .zero, exposureBars: barsInMarket, rejections: rejections,
            buyAndHoldReturn: buyAndHold, fill: settings.fill)
    }
}

/// Round trips from the engine's fills: a trade opens when a symbol's position leaves zero and closes when it
/// returns to it (entry and exit prices are the averages of the fills each way).
struct TradeRecorder {
    var symbols: [String]
    var open: [BacktestTrade] = []
    var closed: [BacktestTrade] = []
    var positions: [String: Quantity] = [:]
    var feesSeen: [OrderID: FixedDecimal] = [:]

    init(symbols: [String]) { self.symbols = symbols }

    /// Takes the engine's new events (so its outbox never grows) and books their fills.
    mutating func drain(_ engine: inout TradingEngine, at time: Timestamp, bars: Int) {
        guard !engine.outbox.isEmpty else { return }
        let events = engine.outbox
        engine.outbox.removeAll(keepingCapacity: true)
        for case .order(let update) in events {
            let order = update.order
            let fee = order.fees - (feesSeen[order.id] ?? .zero)
            if order.status.isOpen { feesSeen[order.id] = order.fees } else { feesSeen[order.id] = nil }
            guard let fill = update.fill else { continue }
            book(
                symbol: order.symbol, side: order.side, qty: fill.qty, price: fill.price, value: fill.value, fee: fee,
                at: time, bar: bars)
        }
    }

    mutating func book(
        symbol: String, side: OrderSide, qty: Quantity, price: Price, value: FixedDecimal, fee: FixedDecimal,
        at time: Timestamp, bar: Int
    ) {
        let before = positions[symbol] ?? .zero
        let signed = side == .buy ? qty : .zero - qty
        let after = before + signed
        positions[symbol] = after
        var index = open.firstIndex { $0.symbol == symbol }
        if index == nil {
            open.append(
                BacktestTrade(
                    symbol: symbol, side: side == .buy ? .long : .short, entryTime: time, entryBar: bar, exitTime: nil,
                    exitBar: nil, qty: .zero, entryValue: .zero, entryQty: .zero, exitValue: .zero, exitQty: .zero,
                    fees: .zero))
            index = open.count - 1
        }
        guard let i = index else { return }
        let opening = (open[i].side == .long) == (side == .buy)
        if opening {
            open[i].entryQty += qty
            open[i].entryValue += value
            open[i].qty = max(open[i].qty, after.magnitude)
        } else {
            open[i].exitQty += qty
            open[i].exitValue += value
        }
        open[i].fees += fee
        if after.isZero {
            var trade = open.remove(at: i)
            trade.exitTime = time
            trade.exitBar = bar
            closed.append(trade)
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

    public var entryPrice: Price { entryValue.divided(by: entryQty, places: 4, rule: .halfEven) ?? .zero }
    public var exitPrice: Price? {
        exitQty.isZero ? nil : exitValue.divided(by: exitQty, places: 4, rule: .halfEven)
    }
    /// Profit after fees (a closed trade's).
    public var pnl: FixedDecimal {
        (side == .long ? exitValue - entryValue : entryValue - exitValue) - fees
    }
    /// P&L as a fraction of what was put in.
    public var returnFraction: FixedDecimal {
        entryValue.isZero ? .zero : pnl.divided(by: entryValue, places: 6, rule: .halfEven) ?? .zero
    }
}
