import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// Alpaca's news (/v1beta1/news) from the feed: a provider's company news, or the simulated market's announcements
/// of its corporate actions. Without `symbols`, the news of the feed's 100 most active US stocks.
struct NewsController {
    let market: MarketView

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("news", use: news)
    }

    /// `symbols`, `start` and `end` (RFC 3339 or YYYY-MM-DD; the last 30 days by default), `limit` (1–50, 10),
    /// `sort` (desc, the default, or asc), `include_content`, `exclude_contentless`, `page_token`.
    @Sendable func news(_ request: Request, context: AppContext) async throws -> Response {
        let now = market.clock.now()
        let end = min(try request.timeQuery("end", zone: .newYork) ?? now, now)
        let start = try request.timeQuery("start", zone: .newYork) ?? end.adding(seconds: -30 * 86_400)
        guard start <= end else { throw APIError.unprocessable("start must not be after end") }
        let limit = try request.integerQuery("limit", in: 1...50, default: 10)
        let ascending = try !request.sortsDescending(default: true)
        let includeContent = try request.boolQuery("include_content") ?? false
        let excludeContentless = try request.boolQuery("exclude_contentless") ?? false
        var symbols =
            request.query("symbols")?.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).uppercased()
            }.filter { !$0.isEmpty } ?? []
        if symbols.isEmpty {
            symbols = ((try? await market.feed.movers(.us, kind: .active, limit: 100)) ?? []).map(\.symbol)
        }
        var items: [Int: (item: NewsItem, symbols: [String])] = [:]
        for symbol in symbols {
            guard let entry = market.directory.entry(symbol) else { continue }
            let zone = entry.instrument.calendar.zone
            let found =
                (try? await market.feed.news(
                    entry.symbol, from: zone.localTime(of: start).date, to: zone.localTime(of: end).date)) ?? []
            for item in found where item.time >= start && item.time <= end {
                items[item.id, default: (item, [])].symbols.append(entry.symbol)
            }
        }
        var sorted = items.values.sorted { ($0.item.time, $0.item.id) > ($1.item.time, $1.item.id) }
        if ascending { sorted.reverse() }
        if excludeContentless { sorted = sorted.filter { !$0.item.summary.isEmpty } }
        let offset = try request.pageOffset(count: sorted.count)
        let page = sorted[offset..<min(sorted.count, offset + limit)]
        return JSONValue.object([
            "news": .array(
                page.map { entry in
                    let n = entry.item
                    return .object([
                        "id": .int(n.id), "headline": .string(n.headline), "author": .string(n.source),
                        "created_at": .string(n.time.description), "updated_at": .string(n.time.description),
                        "summary": .string(n.summary), "content": .string(includeContent ? n.summary : ""),
                        "url": n.url.isEmpty ? .null : .string(n.url),
                        "images": .array(
                            n.image.map { [.object(["size": .string("thumb"), "url": .string($0)])] } ?? []),
                        "symbols": .array(entry.symbols.sorted().map(JSONValue.string)), "source": .string(n.source),
                    ])
                }),
            "next_page_token": offset + limit < sorted.count ? .string(String(offset + limit)) : .null,
        ]).response()
    }
}
