/// What a game ranks its players by.
public enum GameRanking: String, Sendable, Codable, Hashable, CaseIterable {
    /// Total return. Game accounts take no deposits or withdrawals, so the time-weighted return is equity ÷
    /// starting cash − 1 (a reset starts the player over from the starting cash).
    case totalReturn = "return"
    /// Sharpe ratio of the player's daily returns since the game started (`PerformanceMetrics`); until a player
    /// has 20 daily returns there is none, and players without one rank below those with one, by return.
    case sharpe
    /// Return minus the market index's return over the same time (S&P 500, SSE Composite).
    case excessReturn = "excess_return"
}

/// One player's line on a leaderboard.
public struct Standing: Sendable, Codable, Hashable {
    /// 1 for the best; players with the same figure share a rank (1, 2, 2, 4).
    public var rank: Int
    public var accountID: AccountID
    public var player: String
    /// Equity ÷ starting cash − 1, a fraction to 6 places (0.0525 = +5.25%).
    public var totalReturn: FixedDecimal
    public var equity: FixedDecimal
    /// Σ over positions of shares × (mark − previous close).
    public var dayChange: FixedDecimal
    /// Orders that traded since the player joined.
    public var trades: Int
    public var sharpe: FixedDecimal?
    /// Return minus the index's return (when the game knows it).
    public var excessReturn: FixedDecimal?

    public init(
        rank: Int, accountID: AccountID, player: String, totalReturn: FixedDecimal, equity: FixedDecimal,
        dayChange: FixedDecimal, trades: Int, sharpe: FixedDecimal? = nil, excessReturn: FixedDecimal? = nil
    ) {
        self.rank = rank
        self.accountID = accountID
        self.player = player
        self.totalReturn = totalReturn
        self.equity = equity
        self.dayChange = dayChange
        self.trades = trades
        self.sharpe = sharpe
        self.excessReturn = excessReturn
    }
}

/// Ranks a game's players at current marks. Pure and allocation-light: 10,000 players of 10 positions each rank in
/// a few milliseconds (`TradingCoreBench leaderboard`), so a board can be recomputed on every price update.
public enum Leaderboard {
    public struct Player: Sendable {
        public var accountID: AccountID
        public var name: String
        public var account: Account
        /// The player's Sharpe ratio since the game started, when there is one (ranking by Sharpe only).
        public var sharpe: FixedDecimal?

        public init(accountID: AccountID, name: String, account: Account, sharpe: FixedDecimal? = nil) {
            self.accountID = accountID
            self.name = name
            self.account = account
            self.sharpe = sharpe
        }
    }

    /// An instrument's price now and at the previous close.
    public struct Mark: Sendable, Hashable {
        public var last: Price
        public var previousClose: Price?

        public init(last: Price, previousClose: Price?) {
            self.last = last
            self.previousClose = previousClose
        }
    }

    /// The players ranked by `ranking`, best first; players with equal figures share a rank and are listed by name.
    /// Marks are by symbol (every shard's engine numbers instruments its own way); holdings without a mark count at cost. `benchmarkReturn` is the index's return since the game started.
    public static func standings(
        _ players: [Player], marks: [String: Mark], ranking: GameRanking, benchmarkReturn: FixedDecimal?
    ) -> [Standing] {
        var lines: [Standing] = []
        lines.reserveCapacity(players.count)
        for player in players {
            let account = player.account
            var equity = account.cash
            var dayChange = FixedDecimal.zero
            for position in account.positions.values where !position.qty.isZero {
                guard let mark = marks[position.symbol] else {
                    equity += position.costBasis
                    continue
                }
                equity += position.value(at: mark.last)
                if let previous = mark.previousClose { dayChange += position.value(at: mark.last - previous) }
            }
            // Other currencies at their pairs' marks (in games that allow them).
            let places = account.currency.minorUnitDigits
            for balance in account.balances.values where !balance.amount.isZero {
                let mark = marks[balance.pairSymbol]
                let value = balance.value(at: mark?.last, places: places)
                equity += value
                if let previous = mark?.previousClose {
                    dayChange += value - balance.value(at: previous, places: places)
                }
            }
            let start = account.startingCash
            let totalReturn =
                start.isPositive ? (equity - start).divided(by: start, places: 6, rule: .halfEven) ?? .zero : .zero
            lines.append(
                Standing(
                    rank: 0, accountID: player.accountID, player: player.name, totalReturn: totalReturn,
                    equity: equity, dayChange: dayChange, trades: account.gameActivity?.trades ?? 0,
                    sharpe: player.sharpe, excessReturn: benchmarkReturn.map { totalReturn - $0 }))
        }
        let key: (Standing) -> (FixedDecimal, FixedDecimal) =
            switch ranking {
            case .totalReturn: { ($0.totalReturn, .zero) }
            case .excessReturn: { ($0.excessReturn ?? $0.totalReturn, .zero) }
            // No Sharpe yet ranks below any Sharpe, then by return.
            case .sharpe: { ($0.sharpe ?? FixedDecimal(raw: .min), $0.totalReturn) }
            }
        lines.sort { a, b in
            let (ka, kb) = (key(a), key(b))
            if ka != kb { return ka > kb }
            return a.player < b.player
        }
        for i in lines.indices {
            lines[i].rank = i > 0 && key(lines[i]) == key(lines[i - 1]) ? lines[i - 1].rank : i + 1
        }
        return lines
    }
}
