import TradingCore

/// A small world for engine tests: one US and one A-share account, a few instruments, and times inside
/// their sessions.
struct Fixture {
    var engine: TradingEngine
    let us = AccountID(high: 1, low: 1)
    let cn = AccountID(high: 2, low: 2)
    let aapl: InstrumentID
    let moutai: InstrumentID // 600519, SSE main board
    let star: InstrumentID // 688981, STAR
    let penny: InstrumentID

    /// Friday 2026-11-20, 10:00 New York (regular session).
    static let usMorning = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .newYork)
    /// Friday 2026-11-20, 10:00 Shanghai (continuous trading).
    static let cnMorning = Timestamp(CivilDate(2026, 11, 20), hour: 10, in: .shanghai)

    init(
        configuration: EngineConfiguration = EngineConfiguration(), usCash: FixedDecimal = 100_000,
        cnCash: FixedDecimal = 1_000_000, usFees: FeeSchedule? = nil
    ) {
        engine = TradingEngine(configuration: configuration)
        aapl = engine.register(.usEquity("AAPL", name: "Apple Inc."))
        penny = engine.register(.usEquity("PNNY", name: "Penny Corp", exchange: .otc))
        moutai = engine.register(Instrument.aShare("600519", name: "贵州茅台")!)
        star = engine.register(Instrument.aShare("688981", name: "中芯国际")!)
        try! engine.openAccount(us, market: .us, startingCash: usCash, fees: usFees)
        try! engine.openAccount(cn, market: .cn, startingCash: cnCash)
    }

    /// A one-level quote.
    mutating func quote(_ id: InstrumentID, bid: String, ask: String, size: Int = 1000, at time: Timestamp) {
        engine.apply(
            .quote(id, at: time, bid: d(bid), bidSize: FixedDecimal(size), ask: d(ask), askSize: FixedDecimal(size)))
    }

    mutating func trade(_ id: InstrumentID, _ price: String, size: Int = 10_000, at time: Timestamp) {
        engine.apply(.trade(id, at: time, price: d(price), size: FixedDecimal(size)))
    }

    mutating func reference(_ id: InstrumentID, previousClose: String, at time: Timestamp) {
        engine.apply(MarketEvent(instrument: id, time: time, kind: .reference(previousClose: d(previousClose))))
    }

    /// Places an order; the rejection's message if it is refused.
    @discardableResult
    mutating func place(_ request: OrderRequest, account: AccountID? = nil, at time: Timestamp) -> Result<
        Order, OrderRejection
    > {
        do throws(OrderRejection) {
            return .success(
                try engine.submit(
                    request, account: account ?? (request.symbol.first?.isNumber == true ? cn : us), at: time))
        } catch {
            return .failure(error)
        }
    }

    func cash(_ account: AccountID) -> FixedDecimal { engine.account(account)!.cash }
    func position(_ account: AccountID, _ id: InstrumentID) -> Position? { engine.account(account)!.positions[id] }

    /// Ledger entries published since the engine started (the outbox is never drained in tests).
    func ledger(_ account: AccountID) -> [LedgerEntry] {
        engine.outbox.compactMap {
            if case .ledger(let e) = $0, e.accountID == account { return e } else { return nil }
        }
    }

    func updates(_ id: OrderID) -> [OrderUpdate] {
        engine.outbox.compactMap { if case .order(let u) = $0, u.order.id == id { return u } else { return nil } }
    }
}

func d(_ text: String) -> FixedDecimal { FixedDecimal(text)! }

extension Result where Failure == OrderRejection {
    var order: Success? { try? get() }
    var message: String? { if case .failure(let e) = self { return e.message } else { return nil } }
    var rejection: OrderRejection? { if case .failure(let e) = self { return e } else { return nil } }
}

func buy(
    _ symbol: String, _ qty: String, _ type: OrderType = .market, limit: String? = nil, stop: String? = nil,
    tif: TimeInForce = .day
) -> OrderRequest {
    OrderRequest(
        symbol: symbol, side: .buy, type: type, timeInForce: tif, qty: d(qty),
        limitPrice: limit.map(d), stopPrice: stop.map(d))
}

func sell(
    _ symbol: String, _ qty: String, _ type: OrderType = .market, limit: String? = nil, stop: String? = nil,
    tif: TimeInForce = .day
) -> OrderRequest {
    OrderRequest(
        symbol: symbol, side: .sell, type: type, timeInForce: tif, qty: d(qty),
        limitPrice: limit.map(d), stopPrice: stop.map(d))
}
