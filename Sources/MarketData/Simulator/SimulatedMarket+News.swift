import TradingCore

extension SimulatedMarket {
    /// The simulated market's news: each corporate action's announcement, on its declaration day before the open, and
    /// each earnings report's date (two weeks ahead) and the report itself, in the words a company's release or an
    /// exchange notice would use (A-shares in Chinese, as 权益分派实施公告 are). Newest first.
    public func news(_ symbol: String, from: CivilDate, through: CivilDate) -> [NewsItem] {
        guard let entry = directory.entry(symbol), from <= through else { return [] }
        let zone = entry.instrument.calendar.zone
        // Declarations come up to six weeks before their ex-dates.
        let actions = corporateActions(symbol, from: from, through: through.adding(days: 45))
            .filter { $0.declarationDate >= from && $0.declarationDate <= through }
            .map { action in
                let (headline, summary) = Self.announcement(action, name: entry.name, market: entry.instrument.market)
                return NewsItem(
                    id: Self.newsID(action.id), time: Timestamp(action.declarationDate, hour: 8, in: zone),
                    headline: headline, summary: summary, source: Self.newsSource, url: "", image: nil)
            }
        // Each report's date is announced two weeks ahead; the report itself is news when it comes out.
        var reports: [NewsItem] = []
        let market = entry.instrument.market
        for report in earnings(from: from, through: through.adding(days: Self.reportNotice), symbols: [symbol]) {
            let notice = report.date.adding(days: -Self.reportNotice)
            if notice >= from && notice <= through {
                let (headline, summary) = Self.reportNotice(report, name: entry.name, market: market)
                reports.append(
                    NewsItem(
                        id: Self.newsID("earnings-date-\(symbol)-\(report.date)"),
                        time: Timestamp(notice, hour: 8, in: zone), headline: headline, summary: summary,
                        source: Self.newsSource, url: "", image: nil))
            }
            if report.date >= from && report.date <= through {
                let (headline, summary) = Self.reportOut(report, name: entry.name, market: market)
                let hour = market == .cn ? 17 : report.time == .beforeOpen ? 7 : 16
                reports.append(
                    NewsItem(
                        id: Self.newsID("earnings-\(symbol)-\(report.date)"),
                        time: Timestamp(report.date, hour: hour, minute: 5, in: zone), headline: headline,
                        summary: summary, source: Self.newsSource, url: "", image: nil))
            }
        }
        return (actions + reports).sorted { ($0.time, $0.id) > ($1.time, $1.id) }
    }

    static let newsSource = "papertrade simulated market"
    /// Days between a report date's announcement and the report.
    static let reportNotice = 14

    /// The period a report covers, as its headline names it.
    static func period(_ r: EarningsReport, market: Market) -> String {
        if market == .cn {
            switch r.fiscalQuarter {
            case 1: return "\(r.fiscalYear)年第一季度报告"
            case 2: return "\(r.fiscalYear)年半年度报告"
            case 3: return "\(r.fiscalYear)年第三季度报告"
            default: return "\(r.fiscalYear)年年度报告"
            }
        }
        let ordinal = ["first", "second", "third", "fourth"][min(max(r.fiscalQuarter, 1), 4) - 1]
        return "\(ordinal)-quarter \(r.fiscalYear)"
    }

    static func reportNotice(_ r: EarningsReport, name: String, market: Market) -> (String, String) {
        let period = period(r, market: market)
        if market == .cn {
            return ("\(name)：\(period)预约披露日为\(r.date)", "\(name)（\(r.symbol)）将于\(r.date)收盘后披露\(period)。")
        }
        let when = r.time == .beforeOpen ? "before the market opens" : "after the market closes"
        return (
            "\(name) to report \(period) results on \(r.date)",
            "\(name) (\(r.symbol)) will publish its \(period) results on \(r.date), \(when)."
        )
    }

    static func reportOut(_ r: EarningsReport, name: String, market: Market) -> (String, String) {
        let period = period(r, market: market)
        if market == .cn {
            return ("\(name)：\(period)", "\(name)（\(r.symbol)）发布\(period)。")
        }
        let when = r.time == .beforeOpen ? "before the market opened" : "after the market closed"
        return (
            "\(name) reports \(period) results",
            "\(name) (\(r.symbol)) published its \(period) results on \(r.date), \(when); the shares trade on "
                + "them from the next open."
        )
    }

    /// A stable positive id (53 bits, exact in every JSON reader) from the action's id.
    static func newsID(_ text: String) -> Int {
        Int(CounterRandom.key(text) & 0x1F_FFFF_FFFF_FFFF)
    }

    static func announcement(_ a: CorporateAction, name: String, market: Market) -> (String, String) {
        if market == .cn {
            let plan: String
            switch a.kind {
            case .cashDividend:
                plan = "每10股派\((a.cash.times(10)).formatted(places: 2))元（含税）"
            default:
                let bonus = a.newRate - a.oldRate
                plan = "每10股送转\(bonus.formatted(places: 0))股"
            }
            return (
                "\(name)：权益分派实施公告（\(plan)）",
                "\(name)（\(a.symbol)）权益分派方案：\(plan)。股权登记日 \(a.recordDate)，除权除息日 \(a.exDate)。"
            )
        }
        switch a.kind {
        case .cashDividend:
            return (
                "\(name) declares quarterly dividend of $\(a.cash.formatted(places: 2)) per share",
                "\(name) (\(a.symbol)) declared a quarterly cash dividend of $\(a.cash.formatted(places: 2)) per share, payable on \(a.payableDate) to shareholders of record on \(a.recordDate). The shares trade ex-dividend from \(a.exDate)."
            )
        case .forwardSplit:
            return (
                "\(name) announces \(a.newRate.formatted(places: 0))-for-\(a.oldRate.formatted(places: 0)) stock split",
                "\(name) (\(a.symbol)) will split its shares \(a.newRate.formatted(places: 0))-for-\(a.oldRate.formatted(places: 0)); the shares begin trading on a split-adjusted basis on \(a.exDate)."
            )
        case .reverseSplit:
            return (
                "\(name) announces 1-for-\(a.oldRate.formatted(places: 0)) reverse stock split",
                "\(name) (\(a.symbol)) will combine every \(a.oldRate.formatted(places: 0)) shares into one; the shares begin trading on a split-adjusted basis on \(a.exDate). Fractions of a share are paid in cash."
            )
        case .stockDividend:
            return (
                "\(name) declares a stock dividend",
                "\(name) (\(a.symbol)) will distribute \((a.newRate - a.oldRate).formatted(places: 0)) shares for every \(a.oldRate.formatted(places: 0)) held, from \(a.exDate)."
            )
        }
    }
}
