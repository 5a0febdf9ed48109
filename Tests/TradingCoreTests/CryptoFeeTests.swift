import Testing
import TradingCore

/// Crypto's maker/taker fees as Alpaca charges them: a rate of the trade by the account's 30-day crypto volume,
/// taken in the asset the trade receives (coins out of a purchase, dollars out of a sale), one CFEE entry a fill.
@Suite("Crypto fees: maker and taker, by 30-day volume, in the asset received")
struct CryptoFeeTests {
    // The US default schedule: Alpaca's crypto tiers (and the securities' fees on stocks).
    var f = Fixture(usCash: 1_000_000)
    let btc: InstrumentID
    /// Saturday 2026-11-21, 00:00 UTC.
    static let saturday = Timestamp(CivilDate(2026, 11, 21), in: .utc)

    init() {
        btc = f.engine.register(
            .cryptoPair(
                "BTC/USD", name: "Bitcoin", minimumOrder: d("0.0001"), increment: d("0.0001"), priceIncrement: d("1")))
    }

    func fees(_ account: AccountID) -> [(entry: LedgerEntry, fee: CryptoFeeBooking)] {
        f.ledger(account).compactMap { if case .cryptoFee(let fee) = $0.kind { ($0, fee) } else { nil } }
    }

    @Test("Alpaca's table: each 30-day volume finds its row, the boundaries included")
    func table() {
        let tiers = CryptoFeeTiers.alpaca
        let cases: [(String, String, String)] = [
            ("0", "0.0015", "0.0025"), ("99999.99", "0.0015", "0.0025"), ("100000", "0.0012", "0.0022"),
            ("500000", "0.001", "0.002"), ("999999.99", "0.001", "0.002"), ("1000000", "0.0008", "0.0018"),
            ("10000000", "0.0005", "0.0015"), ("25000000", "0.0002", "0.0013"), ("50000000", "0.0002", "0.0012"),
            ("100000000", "0", "0.001"), ("5000000000", "0", "0.001"),
        ]
        for (volume, maker, taker) in cases {
            let tier = tiers.tier(forVolume: d(volume))
            #expect(tier.maker == d(maker) && tier.taker == d(taker), "volume \(volume)")
        }
    }

    @Test("a market buy of 0.1 BTC pays the taker's 25 bps in bitcoin: 0.09975 BTC held, the dollars spent unchanged")
    mutating func takerBuy() throws {
        let t = Self.saturday
        f.quote(btc, bid: "91000", ask: "91001", size: 5, at: t)
        let order = try #require(f.place(buy("BTC/USD", "0.1", tif: .gtc), at: t).order)
        #expect(order.status == .filled && order.filledQty == d("0.1") && order.fees == .zero)
        #expect(f.cash(f.us) == d("1000000") - d("9100.10"))
        let position = try #require(f.position(f.us, btc))
        #expect(position.qty == d("0.09975"))
        // The coins left carry the whole cost: each cost more than the price paid.
        #expect(position.costBasis == d("9100.1"))
        let charged = fees(f.us)
        #expect(charged.count == 1)
        let (entry, fee) = try #require(charged.first)
        #expect(entry.cashChange == .zero && fee.side == .buy && fee.role == .taker && fee.rate == d("0.0025"))
        // 0.00025 BTC at $91,001 is worth $22.75025: $22.75 of fees paid.
        #expect(fee.qty == d("0.00025") && fee.price == d("91001") && fee.value == d("22.75"))
        #expect(f.engine.account(f.us)?.totalFees == d("22.75"))
    }

    @Test("a resting limit the market comes to pays the maker's 15 bps; its sale pays in dollars out of the proceeds")
    mutating func makerBothSides() throws {
        let t = Self.saturday
        f.quote(btc, bid: "91000", ask: "91001", size: 5, at: t)
        let bid = try #require(f.place(buy("BTC/USD", "0.1", .limit, limit: "90000", tif: .gtc), at: t).order)
        #expect(bid.status == .new)
        f.quote(btc, bid: "89998", ask: "89999", size: 5, at: t.adding(seconds: 60))
        #expect(f.engine.order(bid.id)?.status == .filled)
        #expect(f.position(f.us, btc)?.qty == d("0.09985"))
        let ask = try #require(
            f.place(sell("BTC/USD", "0.09985", .limit, limit: "95000", tif: .gtc), at: t.adding(seconds: 120)).order)
        #expect(ask.status == .new)
        let cashBefore = f.cash(f.us)
        f.quote(btc, bid: "95500", ask: "95501", size: 5, at: t.adding(seconds: 180))
        let sold = try #require(f.engine.order(ask.id))
        // 0.09985 × $95,500 = $9,535.675 → $9,535.68; 15 bps of it is $14.30352 → $14.30.
        #expect(sold.status == .filled && sold.fees == d("14.30"))
        #expect(f.cash(f.us) - cashBefore == d("9535.68") - d("14.30"))
        #expect(f.position(f.us, btc) == nil)
        let charged = fees(f.us)
        #expect(charged.map(\.fee.role) == [.maker, .maker])
        #expect(charged.last?.entry.cashChange == d("-14.30") && charged.last?.fee.qty == .zero)
    }

    @Test("a limit that crosses on arrival, and a stop-limit as its trigger fills it, take liquidity: the taker's rate")
    mutating func takersWithLimits() throws {
        let t = Self.saturday
        f.quote(btc, bid: "91000", ask: "91001", size: 5, at: t)
        _ = try #require(f.place(buy("BTC/USD", "0.01", .limit, limit: "91500", tif: .gtc), at: t).order)
        let stop = try #require(
            f.place(buy("BTC/USD", "0.01", .stopLimit, limit: "93000", stop: "92000", tif: .gtc), at: t).order)
        #expect(stop.status == .new)
        f.quote(btc, bid: "92100", ask: "92101", size: 5, at: t.adding(seconds: 30))
        #expect(f.engine.order(stop.id)?.status == .filled)
        #expect(fees(f.us).map(\.fee.role) == [.taker, .taker])
        #expect(f.position(f.us, btc)?.qty == d("0.01995"))
    }

    @Test("a day's volume past $100k moves the account to 12/22 bps from the next UTC day; 30 days on it is back")
    mutating func tiers() throws {
        // Stocks do not count: $120,000 of Apple on Friday leaves Saturday's crypto at the first tier.
        f.quote(f.aapl, bid: "199.99", ask: "200.00", size: 10_000, at: Fixture.usMorning)
        #expect(try #require(f.place(buy("AAPL", "600"), at: Fixture.usMorning).order).status == .filled)
        var t = Self.saturday
        f.quote(btc, bid: "91000", ask: "91001", size: 50, at: t)
        _ = try #require(f.place(buy("BTC/USD", "1.1", tif: .gtc), at: t).order) // $100,101.10
        _ = try #require(f.place(buy("BTC/USD", "0.01", tif: .gtc), at: t.adding(seconds: 3_600)).order)
        t = t.adding(seconds: 86_400) // Sunday: Saturday's volume counts
        f.quote(btc, bid: "91000", ask: "91001", size: 50, at: t)
        _ = try #require(f.place(buy("BTC/USD", "0.01", tif: .gtc), at: t).order)
        t = t.adding(seconds: 30 * 86_400) // 31 days after Saturday: it no longer does
        f.quote(btc, bid: "91000", ask: "91001", size: 50, at: t)
        _ = try #require(f.place(buy("BTC/USD", "0.01", tif: .gtc), at: t).order)
        #expect(fees(f.us).map(\.fee.rate) == [d("0.0025"), d("0.0025"), d("0.0022"), d("0.0025")])
    }

    @Test("a coin bought and sold the same day on a US cash account is no day trade, and the rest can be sold whole")
    mutating func noDayTrades() throws {
        let t = Self.saturday
        f.quote(btc, bid: "91000", ask: "91001", size: 5, at: t)
        for k in 0..<5 {
            let at = t.adding(seconds: Int64(k) * 60)
            _ = try #require(f.place(buy("BTC/USD", "0.0101", tif: .gtc), at: at).order)
            let held = try #require(f.position(f.us, btc)).qty
            // 0.0101 less its fee is off the pair's 0.0001 step: all of it may still be sold.
            let sold = f.place(sell("BTC/USD", held.description, tif: .ioc), at: at.adding(seconds: 1))
            #expect(sold.order?.status == .filled, "\(sold.message ?? "")")
        }
        #expect(f.engine.account(f.us)?.dayTrades.isEmpty == true)
    }

    @Test("a reset forgets the 30-day volume with everything else")
    mutating func resetForgetsVolume() throws {
        let t = Self.saturday
        f.quote(btc, bid: "91000", ask: "91001", size: 50, at: t)
        _ = try #require(f.place(buy("BTC/USD", "1.2", tif: .gtc), at: t).order)
        try f.engine.reset(f.us, at: t.adding(seconds: 60))
        let next = t.adding(seconds: 86_400)
        f.quote(btc, bid: "91000", ask: "91001", size: 50, at: next)
        _ = try #require(f.place(buy("BTC/USD", "0.01", tif: .gtc), at: next).order)
        #expect(fees(f.us).last?.fee.rate == d("0.0025"))
    }

    @Test(
        "random crypto trades over weeks on many seeds: every fee is its rate of the fill at the tier its volume earned, and the ledger reconciles exactly",
        arguments: 1...24)
    func reconciles(seed: UInt64) throws {
        var f = Fixture(usCash: 2_000_000)
        let btc = f.engine.register(
            .cryptoPair(
                "BTC/USD", name: "Bitcoin", minimumOrder: d("0.0001"), increment: d("0.0001"), priceIncrement: d("1")))
        var rng = SeededGenerator(seed: seed)
        var t = Self.saturday.adding(seconds: Int64(rng.next() % 86_400))
        for _ in 0..<80 {
            t = t.adding(seconds: Int64(rng.next() % 40_000))
            let mid = FixedDecimal(Int(60_000 + rng.next() % 40_000))
            f.quote(btc, bid: (mid - FixedDecimal(1)).description, ask: mid.description, size: 100, at: t)
            let held = f.position(f.us, btc)?.qty ?? .zero
            let qty = d("0.0001").times(Int(1 + rng.next() % 20_000))
            let limit = rng.next() % 2 == 0
            if rng.next() % 3 == 0, held.isPositive {
                let amount = rng.next() % 2 == 0 ? held : min(qty, held.rounded(places: 4, rule: .down))
                guard amount.isPositive else { continue }
                let price = (mid + FixedDecimal(Int(rng.next() % 200)) - FixedDecimal(100)).description
                _ = f.place(
                    sell(
                        "BTC/USD", amount.description, limit ? .limit : .market,
                        limit: limit ? price : nil, tif: .gtc), at: t)
            } else {
                let price = (mid + FixedDecimal(Int(rng.next() % 200)) - FixedDecimal(150)).description
                _ = f.place(
                    buy("BTC/USD", qty.description, limit ? .limit : .market, limit: limit ? price : nil, tif: .gtc),
                    at: t)
            }
        }
        // Each fee against the fill before it and the volume of the 30 UTC days before its own.
        var volumeByDay: [Int: FixedDecimal] = [:]
        var lastFill: Fill?
        var bought = FixedDecimal.zero
        var sold = FixedDecimal.zero
        var coinFees = FixedDecimal.zero
        var feeWorth = FixedDecimal.zero
        var fills = 0
        for entry in f.ledger(f.us) {
            let day = ExchangeTimeZone.utc.localTime(of: entry.time).date.daysSinceEpoch
            switch entry.kind {
            case .fill(let fill):
                if fill.side == .buy { bought += fill.qty } else { sold += fill.qty }
                lastFill = fill
                fills += 1
            case .cryptoFee(let fee):
                let fill = try #require(lastFill)
                let trailing = volumeByDay.filter { $0.key < day && $0.key >= day - 30 }.values.reduce(.zero, +)
                let rate = CryptoFeeTiers.alpaca.tier(forVolume: trailing).rate(fee.role)
                #expect(fee.rate == rate && fee.orderID == fill.orderID && fee.price == fill.price)
                if fee.side == .buy {
                    #expect(fee.qty == fill.qty.multiplied(by: rate, places: 9, rule: .halfUp))
                    #expect(entry.cashChange == .zero)
                    coinFees += fee.qty
                } else {
                    #expect(-entry.cashChange == fill.value.multiplied(by: rate, places: 2, rule: .halfUp))
                }
                feeWorth += fee.value
                volumeByDay[day, default: .zero] += fill.value
                lastFill = nil
            default:
                break
            }
        }
        #expect(fills > 20)
        let held = f.position(f.us, btc)?.qty ?? .zero
        #expect(held == bought - sold - coinFees)
        let replay = LedgerReplay(startingCash: d("2000000"), entries: f.ledger(f.us))
        #expect(replay.cash == f.cash(f.us))
        #expect((replay.holdings["BTC/USD"]?.qty ?? .zero) == held)
        #expect(replay.totalFees == feeWorth && f.engine.account(f.us)?.totalFees == feeWorth)
        #expect(
            replay.holdings["BTC/USD"]?.realizedPnL ?? .zero == f.position(f.us, btc)?.realizedPnL ?? .zero
                || held.isZero)
    }
}
