import Testing
import TradingCore

/// Pairs priced in another coin (BTC/USDT): paid with the quote coin's position, received into the base coin's, each
/// coin valued in dollars at the quote coin's dollar price, the fee in the coin received — and a ledger that replays
/// to the same positions and the same cash (which such trades never move).
@Suite("Coin pairs: BTC/USDT paid in tether, held as BTC/USD and USDT/USD positions")
struct CoinPairTests {
    var f = Fixture(usCash: 1_000_000)
    let btc: InstrumentID
    let usdt: InstrumentID
    let btcUSDT: InstrumentID
    /// Saturday 2026-11-21, 00:00 UTC: crypto trades, stocks do not.
    static let saturday = Timestamp(CivilDate(2026, 11, 21), in: .utc)
    let t = Self.saturday

    init() {
        btc = f.engine.register(
            .cryptoPair(
                "BTC/USD", name: "Bitcoin", minimumOrder: d("0.0001"), increment: d("0.0001"), priceIncrement: d("1")))
        usdt = f.engine.register(
            .cryptoPair(
                "USDT/USD", name: "Tether", minimumOrder: d("1"), increment: d("0.01"), priceIncrement: d("0.0001")))
        btcUSDT = f.engine.register(
            .cryptoPair(
                "BTC/USDT", name: "Bitcoin / Tether", minimumOrder: d("0.0001"), increment: d("0.0001"),
                priceIncrement: d("0.1")))
    }

    /// Tether at $0.9998 bid / $1.0000 ask, bitcoin at 91,000.0 / 91,001.0 tether.
    mutating func quotes(at time: Timestamp) {
        f.quote(usdt, bid: "0.9998", ask: "1.0000", size: 1_000_000, at: time)
        f.quote(btcUSDT, bid: "91000.0", ask: "91001.0", size: 5, at: time)
    }

    /// Buys `qty` tether with dollars (taker fee in tether).
    mutating func buyTether(_ qty: String) throws {
        let order = try #require(f.place(buy("USDT/USD", qty, tif: .gtc), at: t).order)
        #expect(order.status == .filled)
    }

    func replay() -> LedgerReplay { LedgerReplay(startingCash: d("1000000"), entries: f.ledger(f.us)) }

    @Test("a purchase pays tether and receives bitcoin: two positions move, cash does not, the ledger replays to both")
    mutating func purchase() throws {
        quotes(at: t)
        try buyTether("20000")
        // 20,000 at $1.0000, 25 bps of it in tether: 19,950 USDT held.
        #expect(f.position(f.us, usdt)?.qty == d("19950"))
        let cash = f.cash(f.us)
        let order = try #require(f.place(buy("BTC/USDT", "0.1", tif: .gtc), at: t).order)
        #expect(order.status == .filled && order.filledAvgPrice == d("91001") && order.filledQty == d("0.1"))
        #expect(f.cash(f.us) == cash, "a coin pair pays in coins")
        // 9,100.10 tether paid; 0.1 BTC less the 25 bps taker fee received.
        #expect(f.position(f.us, usdt)?.qty == d("10849.9"))
        let bitcoin = try #require(f.position(f.us, btc))
        #expect(bitcoin.qty == d("0.09975") && bitcoin.symbol == "BTC/USD")
        // Its cost in dollars: 0.1 BTC at 91,001 tether of $0.9998 each (tether's mark: its bid, no trade printed yet).
        #expect(bitcoin.costBasis == d("9098.27998"))
        #expect(f.position(f.us, btcUSDT) == nil, "nothing is held of the pair itself")
        // The ledger: a fill per coin (their cash changes cancel) and the fee in bitcoin.
        let entries = f.ledger(f.us).suffix(3)
        let fills = entries.compactMap { if case .fill(let fill) = $0.kind { fill } else { nil } }
        #expect(fills.map(\.symbol) == ["BTC/USD", "USDT/USD"] && fills.map(\.side) == [.buy, .sell])
        #expect(fills.allSatisfy { $0.orderID == order.id } && fills.map(\.value) == [d("9098.28"), d("9098.28")])
        #expect(entries.map(\.cashChange).reduce(.zero, +) == .zero)
        let fee = try #require(entries.compactMap { if case .cryptoFee(let fee) = $0.kind { fee } else { nil } }.first)
        #expect(fee.symbol == "BTC/USD" && fee.qty == d("0.00025") && fee.rate == d("0.0025"))
        let replayed = replay()
        #expect(replayed.cash == f.cash(f.us))
        for (symbol, id) in [("BTC/USD", btc), ("USDT/USD", usdt)] {
            #expect(replayed.holdings[symbol]?.qty == f.position(f.us, id)?.qty, "\(symbol)")
            #expect(replayed.holdings[symbol]?.costBasis == f.position(f.us, id)?.costBasis, "\(symbol)")
        }
        // The order's update speaks of the pair, in tether.
        let update = try #require(f.updates(order.id).last)
        #expect(update.fill?.symbol == "BTC/USDT" && update.fill?.price == d("91001"))
    }

    @Test("a sale pays bitcoin and receives tether less the fee; the bitcoin's profit is in dollars")
    mutating func sale() throws {
        quotes(at: t)
        try buyTether("20000")
        _ = try #require(f.place(buy("BTC/USDT", "0.2", tif: .gtc), at: t).order)
        let later = t.adding(seconds: 3600)
        f.quote(usdt, bid: "1.0001", ask: "1.0002", size: 1_000_000, at: later)
        f.quote(btcUSDT, bid: "95000.0", ask: "95001.0", size: 5, at: later)
        let tether = try #require(f.position(f.us, usdt)).qty
        let sold = try #require(f.place(sell("BTC/USDT", "0.1", tif: .gtc), at: later).order)
        #expect(sold.status == .filled && sold.filledAvgPrice == d("95000"))
        // 9,500 tether, less 25 bps in tether: 9,476.25 received.
        #expect(try #require(f.position(f.us, usdt)).qty - tether == d("9476.25"))
        #expect(f.position(f.us, btc)?.qty == d("0.0995"))
        // Half the bitcoin's cost released against $9,500.95 (9,500 tether at $1.0001): a profit in dollars.
        let bitcoin = try #require(f.position(f.us, btc))
        #expect(bitcoin.realizedPnL.isPositive)
        let replayed = replay()
        #expect(replayed.cash == f.cash(f.us))
        #expect(replayed.holdings["BTC/USD"]?.realizedPnL == bitcoin.realizedPnL)
        #expect(replayed.holdings["USDT/USD"]?.qty == f.position(f.us, usdt)?.qty)
    }

    @Test("refusals name the coin: not enough tether, no bitcoin to sell, a notional, a pair without a tether price")
    mutating func refusals() throws {
        quotes(at: t)
        try buyTether("1000")
        // A market purchase holds the ask and the market cushion (3%), as a dollar purchase holds buying power.
        let short = f.place(buy("BTC/USDT", "0.1", tif: .gtc), at: t)
        #expect(short.message == "insufficient balance for USDT (requested: 9373.103, available: 997.5)")
        let none = f.place(sell("BTC/USDT", "0.1", tif: .gtc), at: t)
        #expect(none.message?.hasPrefix("insufficient balance for BTC") == true)
        var notional = buy("BTC/USDT", "1", tif: .gtc)
        notional.qty = nil
        notional.notional = d("100")
        #expect(f.place(notional, at: t).message?.contains("give qty (in BTC) instead of notional") == true)
        #expect(f.place(buy("BTC/USDT", "0.01", tif: .day), at: t).message == "invalid crypto time_in_force")
        #expect(f.place(buy("BTC/USDT", "0.00001", tif: .gtc), at: t).order == nil, "below the pair's minimum")
        #expect(f.cash(f.us) == d("1000000") - d("1000"), "nothing moved")
        // Without a dollar price for tether, no coin-pair order can be valued.
        var fresh = CoinPairTests()
        fresh.f.quote(fresh.btcUSDT, bid: "91000.0", ask: "91001.0", size: 5, at: t)
        #expect(
            fresh.f.place(buy("BTC/USDT", "0.1", tif: .gtc), at: t).message
                == "no market price for USDT/USD yet; try again in a moment")
    }

    @Test("a resting purchase holds the tether it may pay: a sale of that tether is refused until it is canceled")
    mutating func holds() throws {
        quotes(at: t)
        try buyTether("10000")
        let bid = try #require(f.place(buy("BTC/USDT", "0.1", .limit, limit: "90000", tif: .gtc), at: t).order)
        #expect(bid.status == .new)
        // 0.1 × 90,000 = 9,000 tether held of 9,975.
        #expect(f.position(f.us, usdt)?.reservedForSale == d("9000"))
        let spend = f.place(sell("USDT/USD", "9975", tif: .gtc), at: t)
        #expect(spend.message?.contains("available: 975") == true, "\(spend.message ?? "")")
        let second = f.place(buy("BTC/USDT", "0.02", .limit, limit: "90000", tif: .gtc), at: t)
        #expect(second.message == "insufficient balance for USDT (requested: 1800, available: 975)")
        _ = try f.engine.cancel(bid.id, account: f.us, at: t.adding(seconds: 1))
        #expect(f.position(f.us, usdt)?.reservedForSale == .zero)
        // The market comes down to a new resting bid: it fills as a maker, and the hold is spent, not left behind.
        let again = try #require(f.place(buy("BTC/USDT", "0.1", .limit, limit: "90000", tif: .gtc), at: t).order)
        f.quote(btcUSDT, bid: "89990.0", ask: "89999.0", size: 5, at: t.adding(seconds: 60))
        #expect(f.engine.order(again.id)?.status == .filled && f.engine.order(again.id)?.filledAvgPrice == d("89999"))
        let tether = try #require(f.position(f.us, usdt))
        #expect(tether.qty == d("9975") - d("8999.9") && tether.reservedForSale == .zero)
        #expect(f.position(f.us, btc)?.qty == d("0.1") - d("0.00015"), "the maker's 15 bps")
    }

    @Test(
        "many seeds of trades on BTC/USDT, BTC/USD and USDT/USD at moving prices: the ledger replays to every position and the cash",
        arguments: 1...40)
    mutating func replaysExactly(seed: UInt64) throws {
        var random = CoinRandom(seed: seed)
        var time = t
        quotes(at: time)
        try buyTether("300000")
        for _ in 0..<60 {
            time = time.adding(seconds: 61)
            let tether = 9_990 + random.next(20)
            let bitcoin = 80_000 + random.next(20_000)
            f.quote(
                usdt, bid: "0.\(tether)", ask: "\(tether + 1 >= 10_000 ? "1.0000" : "0.\(tether + 1)")",
                size: 1_000_000, at: time)
            f.quote(btcUSDT, bid: "\(bitcoin).0", ask: "\(bitcoin + 1).5", size: 3, at: time)
            f.quote(btc, bid: "\(bitcoin)", ask: "\(bitcoin + 2)", size: 3, at: time)
            let qty = "0.\(String(format: "%04d", 1 + random.next(3_000)))"
            let requests = [
                buy("BTC/USDT", qty, tif: .gtc), sell("BTC/USDT", qty, tif: .gtc), buy("BTC/USD", qty, tif: .gtc),
                sell("BTC/USD", qty, tif: .ioc), buy("USDT/USD", "\(1 + random.next(5_000))", tif: .gtc),
                buy("BTC/USDT", qty, .limit, limit: "\(bitcoin - random.next(50)).0", tif: .gtc),
            ]
            _ = f.place(requests[random.next(requests.count)], at: time)
        }
        let replayed = replay()
        #expect(replayed.cash == f.cash(f.us), "seed \(seed)")
        for (symbol, id) in [("BTC/USD", btc), ("USDT/USD", usdt)] {
            let live = f.position(f.us, id)
            #expect((replayed.holdings[symbol]?.qty ?? .zero) == (live?.qty ?? .zero), "seed \(seed) \(symbol)")
            if let live {
                #expect(replayed.holdings[symbol]?.costBasis == live.costBasis, "seed \(seed) \(symbol)")
                #expect(replayed.holdings[symbol]?.realizedPnL == live.realizedPnL, "seed \(seed) \(symbol)")
            }
            #expect((live?.qty ?? .zero) >= .zero && (live?.reservedForSale ?? .zero) <= (live?.qty ?? .zero))
        }
    }
}

/// A small deterministic generator for the property test's seeds.
private struct CoinRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
