import Brokerage
import Hummingbird
import JSON
import MarketData
import TradingCore

/// What the stock page shows beyond the quote: company profile, peers, 52-week range and, when the feed has them,
/// news, recommendation trends and earnings surprises (null when the feed does not provide them, so the app hides
/// those sections). Public, like quotes.
struct StockController {
    let market: MarketView

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("stocks/{symbol}/profile", use: profile)
    }

    /// A feed's optional extra: nil when unsupported or failing (the page then hides the section).
    func optional<T>(_ load: () async throws(FeedError) -> T) async -> T? {
        do { return try await load() } catch { return nil }
    }

    /// A pair's steps, as its trade sheet and page show them (null for anything else): the smallest order, the step of
    /// a quantity and of a price, and the coin a coin pair is priced in.
    static func cryptoSteps(_ instrument: Instrument) -> JSONValue {
        guard instrument.kind == .crypto, case .fractional(let minimum, let increment) = instrument.lot else {
            return .null
        }
        return .object([
            "coin": .string(String(instrument.symbol.prefix { $0 != "/" })),
            "min_order_size": .decimal(minimum), "min_trade_increment": .decimal(increment),
            "price_increment": .decimal(instrument.tick.tick(at: .one)),
            // A pair priced in another coin (BTC/USDT): prices are in that coin, and it pays.
            "quote_coin": .text(instrument.coinPair?.quote),
        ])
    }

    @Sendable func profile(_ request: Request, context: AppContext) async throws -> Response {
        let symbol = try context.pathSymbol()
        guard let entry = market.directory.entry(symbol) else { throw APIError.notFound("unknown symbol \(symbol)") }
        let feed = market.feed
        let instrument = entry.instrument
        let profile = await optional { () throws(FeedError) in try await feed.profile(entry.symbol) }
        let peers = await optional { () throws(FeedError) in try await feed.peers(entry.symbol) } ?? []
        let now = market.clock.now()
        let year = await feed.yearRange(entry.symbol, now: now)
        let today = instrument.calendar.zone.localTime(of: now).date
        let news = await optional { () throws(FeedError) in
            try await feed.news(entry.symbol, from: today.adding(days: -7), to: today)
        }
        let recommendations = await optional { () throws(FeedError) in try await feed.recommendations(entry.symbol) }
        let earnings = await optional { () throws(FeedError) in try await feed.earnings(entry.symbol) }
        // The next report: today's too until it is out (the open for a report before it, the close otherwise).
        let upcoming = await optional { () throws(FeedError) in
            try await feed.earningsCalendar(from: today, through: today.adding(days: 120), symbols: [entry.symbol])
        }
        let session = instrument.calendar.schedule(on: today)
        let next = upcoming?.first { report in
            guard report.date == today else { return report.date > today }
            guard let session else { return true }
            return now < (report.time == .beforeOpen ? session.open : session.close)
        }

        let body: JSONValue = .object([
            "symbol": .string(entry.symbol), "name": .string(profile?.name ?? entry.name),
            "exchange": .string(instrument.exchange.rawValue), "market": .string(instrument.market.rawValue),
            "currency": .string(instrument.currency.rawValue), "kind": .string(instrument.kind.rawValue),
            "sector": entry.sector.isEmpty ? .null : .string(entry.sector),
            "industry": .text(profile?.industry ?? (entry.industry.isEmpty ? nil : entry.industry)),
            "listing_date": .text((profile?.ipoDate ?? instrument.listingDate)?.description),
            "website": .text(profile?.website), "logo": .text(profile?.logo), "country": .text(profile?.country),
            "market_cap_millions": .decimal(profile?.marketCapitalizationMillions),
            "round_lot": .int(entry.roundLot), "time_zone": .string(instrument.calendar.zone.identifier),
            "week52_high": .decimal(year?.high), "week52_low": .decimal(year?.low),
            "peers": .array(
                peers.compactMap { market.directory.entry($0) }.map { peer in
                    .object(["symbol": .string(peer.symbol), "name": .string(peer.name)])
                }),
            "news": news.map { items in
                .array(
                    items.prefix(10).map { n in
                        .object([
                            "time": .string(n.time.description), "headline": .string(n.headline),
                            "summary": .string(n.summary),
                            "source": .string(n.source), "url": .string(n.url), "image": .text(n.image),
                        ])
                    })
            } ?? .null,
            "recommendations": recommendations.map { list in
                .array(
                    list.prefix(4).map { r in
                        .object([
                            "period": .string(r.period.description), "strong_buy": .int(r.strongBuy),
                            "buy": .int(r.buy),
                            "hold": .int(r.hold), "sell": .int(r.sell), "strong_sell": .int(r.strongSell),
                        ])
                    })
            } ?? .null,
            "earnings": earnings.map { list in
                .array(
                    list.prefix(4).map { e in
                        .object([
                            "period": .string(e.period.description), "actual": .decimal(e.actual),
                            "estimate": .decimal(e.estimate),
                            "surprise": .decimal(e.surprise), "surprise_percent": .decimal(e.surprisePercent),
                        ])
                    })
            } ?? .null,
            "next_earnings": next.map { r in
                .object([
                    "date": .string(r.date.description), "time": .text(r.time?.rawValue),
                    "days": .int(r.date.daysSinceEpoch - today.daysSinceEpoch), "fiscal_year": .int(r.fiscalYear),
                    "fiscal_quarter": r.fiscalQuarter > 0 ? .int(r.fiscalQuarter) : .null,
                ])
            } ?? .null,
            "data_source": .object(["name": .string(feed.name), "url": .text(feed.attributionURL)]),
            "crypto": Self.cryptoSteps(instrument),
        ])
        return body.response(headers: [.cacheControl: "private, max-age=60"])
    }
}
