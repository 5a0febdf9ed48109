/// A crypto pair priced in another coin, as Alpaca lists them: `BTC/USDT` is bitcoin priced in tether, `ETH/BTC`
/// ether priced in bitcoin. Nothing is held of the pair itself: a purchase pays with the quote coin and receives the
/// base coin, a sale the reverse, and each coin is held as the position of its dollar pair (`BTC/USD`, `USDT/USD`) —
/// Alpaca lists one BTC position however it was bought. A pair priced in dollars (`BTC/USD`) is not one.
public struct CoinPair: Sendable, Hashable, CustomStringConvertible {
    /// The coin bought and sold (`BTC`).
    public var base: String
    /// The coin it is priced in and paid with (`USDT`).
    public var quote: String

    public init(base: String, quote: String) {
        self.base = base
        self.quote = quote
    }

    /// A pair written as Alpaca writes it (`BTC/USDT`); nil for a pair priced in dollars or anything else.
    public init?(symbol: String) {
        let parts = symbol.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[1] != "USD", parts[0] != parts[1] else {
            return nil
        }
        self.init(base: String(parts[0]), quote: String(parts[1]))
    }

    public var description: String { "\(base)/\(quote)" }

    /// The dollar pair whose position holds the base coin (`BTC/USD`).
    public var baseLeg: String { "\(base)/USD" }
    /// The dollar pair whose position holds the quote coin (`USDT/USD`).
    public var quoteLeg: String { "\(quote)/USD" }

    /// The leg an order pays from: the quote coin for a purchase, the base coin for a sale.
    public func paidLeg(_ side: OrderSide) -> String { side == .buy ? quoteLeg : baseLeg }
    /// The leg an order receives into.
    public func receivedLeg(_ side: OrderSide) -> String { side == .buy ? baseLeg : quoteLeg }
}

extension Instrument {
    /// A crypto pair's two coins when it is priced in another coin (`BTC/USDT`), nil for anything else (`BTC/USD`).
    public var coinPair: CoinPair? {
        // (Asked on every crypto fill: a dollar pair is told by its suffix before any parsing.)
        kind == .crypto && !symbol.hasSuffix("/USD") ? CoinPair(symbol: symbol) : nil
    }
}
