import PropertyBased
import Testing
import TradingCore

/// Random sequences of commands and market events, checked against the ledger invariants after every step.
@Suite("Ledger invariants over random sequences")
struct LedgerPropertyTests {
    /// Plays a sequence of steps (each an integer decoded into a command or event) and checks invariants.
    struct Simulation {
        var f: Fixture
        var time: [InstrumentID: Timestamp] = [:]
        var price: [InstrumentID: FixedDecimal] = [:]
        var low: [InstrumentID: FixedDecimal] = [:]
        var high: [InstrumentID: FixedDecimal] = [:]
        var now: Timestamp
        var problems: [String] = []
        /// Each order's last published status, and how much of the outbox `check` has read.
        var statuses: [OrderID: OrderStatus] = [:]
        var checkedEvents = 0
        /// The US account is a margin account: it borrows cash, sells short and covers.
        let margin: Bool

        init(alwaysOpen: Bool, cash: FixedDecimal, margin: Bool = false) {
            f = Fixture(
                configuration: EngineConfiguration(
                    seed: 7, volumeParticipation: d("0.5"), sessions: alwaysOpen ? .alwaysOpen : .exchangeCalendars),
                usCash: cash, cnCash: cash.times(10))
            self.margin = margin
            if margin { try! f.engine.setMarginTerms(.margin, for: f.us) }
            // Start in Shanghai's morning session; New York opens later the same UTC day.
            now = Timestamp(CivilDate(2026, 11, 19), hour: 9, minute: 31, in: .shanghai)
            price = [f.aapl: d("100.00"), f.moutai: d("50.00"), f.star: d("20.00")]
            for id in price.keys { seen(id, price[id]!) }
            for id in [f.moutai, f.star] {
                f.engine.apply(MarketEvent(instrument: id, time: now, kind: .reference(previousClose: price[id]!)))
            }
        }

        mutating func seen(_ id: InstrumentID, _ p: FixedDecimal) {
            low[id] = Swift.min(low[id] ?? p, p)
            high[id] = Swift.max(high[id] ?? p, p)
        }

        var symbols: [(InstrumentID, String, AccountID)] {
            [(f.aapl, "AAPL", f.us), (f.moutai, "600519", f.cn), (f.star, "688981", f.cn)]
        }

        mutating func step(_ n: Int) {
            var r = SeededGenerator(seed: UInt64(truncatingIfNeeded: n))
            now = now.adding(nanoseconds: Int64(r.next() % 1800) * Duration64.second)
            let (id, symbol, account) = symbols[Int(r.next() % 3)]
            let tick = d("0.01") // AAPL above $1 and both A-shares quote in cents
            let base = price[id]!
            switch r.next() % 12 {
            case 0...3: // quote with a little depth, after a random walk
                let move = FixedDecimal(Int(r.next() % 41) - 20).multiplied(by: tick)
                var mid = Swift.max(base + move, d("1.00"))
                if let band = f.engine.priceBand(id) {
                    mid = Swift.min(Swift.max(mid, band.limitDown + tick), band.limitUp - tick)
                }
                price[id] = mid
                let bid = mid, ask = mid + tick
                let quote = Quote(
                    bids: BookSide([(bid, FixedDecimal(Int(r.next() % 500) + 1)), (bid - tick, 300)]),
                    asks: BookSide([(ask, FixedDecimal(Int(r.next() % 500) + 1)), (ask + tick, 300)]))
                seen(id, bid - tick)
                seen(id, ask + tick)
                f.engine.apply(MarketEvent(instrument: id, time: now, kind: .quote(quote)))
            case 4: // trade
                seen(id, base)
                f.engine.apply(.trade(id, at: now, price: base, size: FixedDecimal(Int(r.next() % 1000) + 1)))
            case 5: // bar around the price
                let lo = Swift.max(base - tick.times(5), d("1.00")), hi = base + tick.times(5)
                seen(id, lo)
                seen(id, hi)
                f.engine.apply(
                    MarketEvent(
                        instrument: id, time: now,
                        kind: .bar(Bar(open: base, high: hi, low: lo, close: base, volume: 2000))))
            case 6, 7: // buy (covering at most the short, if there is one)
                var qty = FixedDecimal(id == f.aapl ? Int(r.next() % 50) + 1 : 100 * (Int(r.next() % 5) + 1))
                let held = f.engine.account(account)?.positions[id]?.qty ?? .zero
                if held.isNegative { qty = Swift.min(qty, held.magnitude) }
                let type: OrderType = [.market, .limit, .limit, .stop][Int(r.next() % 4)]
                let offset = FixedDecimal(Int(r.next() % 11) - 5).multiplied(by: tick)
                var request = OrderRequest(
                    symbol: symbol, side: .buy, type: type, timeInForce: r.next() % 2 == 0 ? .day : .gtc, qty: qty)
                if type == .limit { request.limitPrice = base + offset }
                if type == .stop { request.stopPrice = base + tick.times(3) }
                _ = try? f.engine.submit(request, account: account, at: now)
            case 8, 9: // sell part of the position, or (margin accounts) sell short
                let held = f.engine.account(account)?.positions[id]?.qty ?? .zero
                let shorts = margin && account == f.us && !held.isPositive
                guard held.isPositive || shorts else { return }
                let qty =
                    shorts
                    ? FixedDecimal(Int(r.next() % 50) + 1)
                    : id == f.aapl ? Swift.max(held.rounded(toMultipleOf: 1, rule: .down), 1) : held
                let type: OrderType = [.market, .limit, .trailingStop][Int(r.next() % 3)]
                var request = OrderRequest(symbol: symbol, side: .sell, type: type, qty: qty)
                if type == .limit {
                    request.limitPrice = base + FixedDecimal(Int(r.next() % 7) - 3).multiplied(by: tick)
                }
                if type == .trailingStop { request.trailPercent = d("1") }
                _ = try? f.engine.submit(request, account: account, at: now)
            case 10: // cancel something
                if let order = f.engine.openOrders(of: account).first {
                    _ = try? f.engine.cancel(order.id, account: account, at: now)
                }
            default: // move cash
                if r.next() % 2 == 0 {
                    _ = try? f.engine.deposit(
                        FixedDecimal(Int(r.next() % 1000) + 1), to: account, method: .bank, at: now)
                } else {
                    _ = try? f.engine.withdraw(FixedDecimal(Int(r.next() % 5000) + 1), from: account, at: now)
                }
            }
            check()
        }

        mutating func check() {
            for account in [f.us, f.cn] {
                let live = f.engine.account(account)!
                if live.cash.isNegative, live.terms.type == .cash { problems.append("cash \(live.cash) < 0") }
                let replay = LedgerReplay(startingCash: live.startingCash, entries: f.ledger(account))
                if replay.cash != live.cash { problems.append("replayed cash \(replay.cash) ≠ live \(live.cash)") }
                for (symbol, holding) in replay.holdings where !holding.qty.isZero {
                    let p = live.positions.values.first { $0.symbol == symbol }
                    if p?.qty != holding.qty || p?.costBasis != holding.costBasis
                        || p?.realizedPnL != holding.realizedPnL
                    {
                        problems.append("replayed position \(symbol) \(holding) ≠ live \(String(describing: p))")
                    }
                }
                for (id, p) in live.positions where !p.qty.isZero && replay.holdings[p.symbol]?.qty != p.qty {
                    problems.append("live position \(id) not in the replay")
                }
            }
            for event in f.engine.outbox[checkedEvents...] {
                guard case .order(let update) = event else { continue }
                let status = update.order.status
                if let previous = statuses[update.order.id], previous.after(update.event) != status {
                    problems.append(
                        "order \(update.order.id) went \(previous) → \(status) on \(update.event), outside the transition table"
                    )
                }
                statuses[update.order.id] = status
            }
            checkedEvents = f.engine.outbox.count
            var netFills: [InstrumentID: FixedDecimal] = [:]
            for event in f.engine.outbox {
                guard case .order(let update) = event else { continue }
                let o = update.order
                if let qty = o.qty, o.filledQty > qty {
                    problems.append("order \(o.id) filled \(o.filledQty) > qty \(qty)")
                }
                guard let fill = update.fill else { continue }
                netFills[fill.instrument, default: .zero] += fill.side == .buy ? fill.qty : -fill.qty
                if fill.price < low[fill.instrument]! || fill.price > high[fill.instrument]! {
                    problems.append(
                        "fill at \(fill.price) outside [\(low[fill.instrument]!), \(high[fill.instrument]!)]")
                }
            }
            for (id, net) in netFills {
                let held =
                    (f.engine.account(f.us)!.positions[id]?.qty ?? .zero)
                    + (f.engine.account(f.cn)!.positions[id]?.qty ?? .zero)
                if held != net { problems.append("position \(id) qty \(held) ≠ Σ fills \(net)") }
            }
        }
    }

    static let steps = Gen.int(in: 0...Int.max).array(of: 1...120)

    /// Exchange calendars with room to trade, an always-open market with little cash (rejections, partial fills cut
    /// short by buying power), and a margin account that borrows and sells short.
    static let worlds: [(alwaysOpen: Bool, cash: FixedDecimal, margin: Bool)] = [
        (false, 20_000, false), (true, 3_000, false), (false, 20_000, true),
    ]

    @Test(
        "ledger replay equals live balances; cash ≥ 0 on cash accounts; filled ≤ qty; position = Σ fills; fills inside the prices seen; statuses follow the transition table",
        arguments: worlds.indices)
    func invariants(world: Int) async {
        let (alwaysOpen, cash, margin) = Self.worlds[world]
        await propertyCheck(count: 300, input: Self.steps) { steps in
            var sim = Simulation(alwaysOpen: alwaysOpen, cash: cash, margin: margin)
            for n in steps where sim.problems.isEmpty { sim.step(n) }
            #expect(sim.problems.isEmpty, "\(sim.problems.prefix(3))")
        }
    }

    @Test("the engine is deterministic: the same sequence gives the same events")
    func determinism() async {
        await propertyCheck(count: 20, input: Self.steps) { steps in
            var a = Simulation(alwaysOpen: false, cash: 20_000)
            var b = Simulation(alwaysOpen: false, cash: 20_000)
            for n in steps {
                a.step(n)
                b.step(n)
            }
            #expect(a.f.engine.outbox == b.f.engine.outbox)
        }
    }
}
