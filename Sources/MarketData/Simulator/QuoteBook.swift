import TradingCore

/// Five levels a side around the last price; empty asks at limit-up and empty bids at limit-down, with the
/// queue showing on the other side, as A-share quotes do.
enum QuoteBook {
    static func make(profile: SimulatedProfile, last: Price, band: PriceBand?, time: Timestamp, open: Bool) -> Quote {
        guard !profile.isIndex else { return Quote(bids: .empty, asks: .empty) }
        let tick = profile.tick.tick(at: last)
        let second = UInt64(bitPattern: time.seconds)
        func size(_ side: UInt64, _ level: Int) -> Quantity {
            let u = CounterRandom.uniform(
                CounterRandom.hash(profile.path.key, 0xB00C, second, side * 8 + UInt64(level)))
            let lots =
                profile.market == .cn ? 1 + Int(u * Double(60 * (level + 1))) : 1 + Int(u * Double(8 * (level + 1)))
            return profile.bookLot.times(lots)
        }
        var bidLevels: [(Price, Quantity)] = []
        var askLevels: [(Price, Quantity)] = []
        let pinnedUp = band.map { last >= $0.limitUp } ?? false
        let pinnedDown = band.map { last <= $0.limitDown } ?? false
        let bestBid = pinnedDown ? nil : Optional(last)
        let bestAsk = pinnedUp ? nil : Optional(last + tick.times(max(profile.spreadTicks, 1)))
        for level in 0..<BookSide.capacity {
            if let bid = bestBid {
                let price = bid - tick.times(level)
                if price.isPositive, band.map({ price >= $0.limitDown }) ?? true {
                    // The queue at limit-up is deep.
                    let queue = pinnedUp && level == 0 ? FixedDecimal(500).multiplied(by: size(0, 4)) : size(0, level)
                    bidLevels.append((price, queue))
                }
            }
            if let ask = bestAsk {
                let price = ask + tick.times(level)
                if band.map({ price <= $0.limitUp }) ?? true {
                    let queue = pinnedDown && level == 0 ? FixedDecimal(500).multiplied(by: size(1, 4)) : size(1, level)
                    askLevels.append((price, queue))
                }
            }
        }
        if pinnedDown, let down = band?.limitDown {
            askLevels.insert((down, FixedDecimal(500).multiplied(by: size(1, 4))), at: 0)
        }
        return Quote(bids: BookSide(bidLevels), asks: BookSide(Array(askLevels.prefix(BookSide.capacity))))
    }
}
