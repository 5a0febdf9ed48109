import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Alpaca's stock screener (/v1beta1/screener/stocks): the most active stocks and the day's movers, from the
/// feed's movers (the simulated market's by default; a real provider's when it has them). US stocks only, as
/// Alpaca's screener.
struct ScreenerController {
    let market: MarketView

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("screener/stocks/most-actives", use: mostActives)
        group.get("screener/stocks/movers", use: movers)
    }

    func top(_ request: Request, default value: Int, max: Int) throws -> Int {
        guard let text = request.query("top") else { return value }
        guard let n = Int(text), (1...max).contains(n) else { throw APIError.unprocessable("top must be 1 to \(max)") }
        return n
    }

    var lastUpdated: JSONValue { .string(market.clock.now().description) }

    func movers(_ kind: MoverKind, limit: Int) async throws -> [Mover] {
        do throws(FeedError) { return try await market.feed.movers(.us, kind: kind, limit: limit) } catch {
            throw APIError(feed: error)
        }
    }

    /// `by=volume` (the default) or `by=trades`, ranked among the feed's 100 most active stocks (by value traded);
    /// trade counts come from each stock's daily bar.
    @Sendable func mostActives(_ request: Request, context: AppContext) async throws -> Response {
        let byTrades: Bool
        switch request.query("by")?.lowercased() {
        case nil, "volume": byTrades = false
        case "trades": byTrades = true
        case let other?: throw APIError.unprocessable("invalid by \(other); expected volume or trades")
        }
        let top = try top(request, default: 10, max: 100)
        let now = market.clock.now()
        var rows: [(symbol: String, volume: Quantity, trades: Int)] = []
        for mover in try await movers(.active, limit: 100) {
            let day = try? await market.feed.bars(
                mover.symbol, timeframe: .day, from: now.adding(seconds: -5 * 86_400), to: now.adding(seconds: 1)
            ).last
            rows.append((mover.symbol, mover.volume, day?.tradeCount ?? 0))
        }
        if byTrades {
            rows.sort { ($0.trades, $1.symbol) > ($1.trades, $0.symbol) }
        } else {
            rows.sort { ($0.volume, $1.symbol) > ($1.volume, $0.symbol) }
        }
        return JSONValue.object([
            "most_actives": .array(
                rows.prefix(top).map { row in
                    .object([
                        "symbol": .string(row.symbol), "volume": .number(row.volume), "trade_count": .int(row.trades),
                    ])
                }),
            "last_updated": lastUpdated,
        ]).response()
    }

    @Sendable func movers(_ request: Request, context: AppContext) async throws -> Response {
        let top = try top(request, default: 10, max: 50)
        func rows(_ kind: MoverKind) async throws -> JSONValue {
            .array(
                try await movers(kind, limit: top).map { m in
                    .object([
                        "symbol": .string(m.symbol), "percent_change": .number(m.changePercent),
                        "change": .number(m.change), "price": .number(m.last),
                    ])
                })
        }
        return JSONValue.object([
            "gainers": try await rows(.gainers), "losers": try await rows(.losers), "market_type": .string("stocks"),
            "last_updated": lastUpdated,
        ]).response()
    }
}
