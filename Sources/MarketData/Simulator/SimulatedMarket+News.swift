import TradingCore

extension SimulatedMarket {
    /// The simulated market's news: each corporate action's announcement, on its declaration day before the open, in
    /// the words a company's release or an exchange notice would use (A-shares in Chinese, as 权益分派实施公告 are).
    /// Newest first.
    public func news(_ symbol: String, from: CivilDate, through: CivilDate) -> [NewsItem] {
        guard let entry = directory.entry(symbol), from <= through else { return [] }
        let zone = entry.instrument.calendar.zone
        // Declarations come up to six weeks before their ex-dates.
        return corporateActions(symbol, from: from, through: through.adding(days: 45))
            .filter { $0.declarationDate >= from && $0.declarationDate <= through }
            .map { action in
                let (headline, summary) = Self.announcement(action, name: entry.name, market: entry.instrument.market)
                return NewsItem(
                    id: Self.newsID(action.id), time: Timestamp(action.declarationDate, hour: 8, in: zone),
                    headline: headline, summary: summary, source: "papertrade simulated market", url: "", image: nil)
            }
            .sorted { ($0.time, $0.id) > ($1.time, $1.id) }
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
