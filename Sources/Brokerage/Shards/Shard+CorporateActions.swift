import MarketData
import TradingCore

extension Shard {
    /// Applies the corporate actions whose ex-dates have come to every account holding (or with open orders in) the
    /// instrument, once per account and ex-date, and tells the owner. An ex-date has come when the feed's session for
    /// the instrument is that day (the simulator switches to it at the session's first minute, so the positions
    /// change together with the prices). Accounts seen for the first time start tracking from the current session;
    /// an account whose last applied day is older (the server was down) is brought up to date.
    func applyCorporateActions() async throws(BrokerageError) {
        let now = clock.now()
        var sessions: [String: MarketQuote] = [:]
        var restated: Set<String> = []
        for id in records.keys.sorted() {
            guard let account = engine.account(id) else { continue }
            // Applied through today's date: no ex-date can have come since (the common case, once a minute).
            let localToday = account.market.calendar.zone.localTime(of: now).date
            if let through = account.corporateActionsThrough, through >= localToday { continue }
            // An option position or order is affected by its underlying's actions.
            let held =
                account.positions.values.filter { !$0.qty.isZero }.map(\.instrument)
                + engine.openOrders(of: id).map(\.instrument)
            let symbols = Set(held.map { engine.instrument($0).option?.underlying ?? engine.instrument($0).symbol })
            var session: CivilDate?
            for symbol in symbols.sorted() {
                if sessions[symbol] == nil, let quote = try? await feed.quote(symbol) { sessions[symbol] = quote }
                if let date = sessions[symbol]?.tradingDate { session = Swift.max(session ?? date, date) }
            }
            let today = session ?? account.market.calendar.zone.localTime(of: now).date
            guard let through = account.corporateActionsThrough else {
                engine.markCorporateActions(through: today, for: id)
                pending.accounts.insert(id)
                continue
            }
            guard through < today else { continue }
            var actions: [CorporateAction] = []
            for symbol in symbols.sorted() {
                let latest = sessions[symbol]?.tradingDate ?? today
                guard latest > through else { continue }
                actions +=
                    (try? await feed.corporateActions(symbol, from: through.adding(days: 1), through: latest)) ?? []
            }
            for action in actions.sorted(by: {
                ($0.exDate, $0.symbol, $0.kind.rawValue) < ($1.exDate, $1.symbol, $1.kind.rawValue)
            }) {
                // The fraction of a share a split leaves is paid at the ex-date's reference price.
                let quote = sessions[action.symbol]
                let reference = quote?.tradingDate == action.exDate ? quote?.previousClose : nil
                if action.kind.changesShares {
                    await adjustOptions(of: id, for: action, referencePrice: reference, at: now)
                }
                guard let entry = engine.applyCorporateAction(action, to: id, referencePrice: reference, at: now),
                    case .corporateAction(let booking) = entry.kind
                else { continue }
                if action.kind.changesShares { restated.insert(action.symbol) }
                notify(id, booking: booking, cash: entry.cashChange, at: now)
            }
            engine.markCorporateActions(through: today, for: id)
            pending.accounts.insert(id)
        }
        // Prices traded before a split are in the old shares: the engine's marks follow the feed's restated ones.
        for symbol in restated.sorted() {
            guard let quote = sessions[symbol], let instrument = engine.instrumentID(for: symbol) else { continue }
            engine.recordLastTrade(quote.last, instrument: instrument)
            engine.apply(
                MarketEvent(instrument: instrument, time: now, kind: .reference(previousClose: quote.previousClose)))
            sessionMarks.markReference(instrument, for: quote.tradingDate)
        }
        try await commit()
    }

    /// Carries the account's contracts on a split's underlying that expire on or after its ex-date through the
    /// split, the OCC way (`TradingEngine.adjustOptionPosition`): after a whole-number split N contracts at the strike
    /// ÷ N for each one; after another ratio the same contracts under the adjusted root its chain lists, delivering
    /// 100 × the ratio shares. Contracts already on an adjusted root move, whatever the ratio, to the root the chain
    /// gives them at this split, delivering what they did × the ratio — or, when that is less than a share, settle in
    /// cash that day (`TradingEngine.settleOptionInCash`): the fraction of a share at the ex-date's reference price
    /// (`referencePrice`, else the underlying's last close) is what each contract delivers. Open orders on them are
    /// canceled. The owner is told, in their language.
    func adjustOptions(
        of id: AccountID, for action: CorporateAction, referencePrice: Price?, at now: Timestamp
    ) async {
        guard let account = engine.account(id), let optionClass = market.options.optionClass(action.symbol) else {
            return
        }
        let affected = Set(
            account.positions.values.filter { !$0.qty.isZero }.map(\.instrument)
                + engine.openOrders(of: id).map(\.instrument)
        ).filter { instrument in
            guard let contract = engine.instrument(instrument).option else { return false }
            return contract.underlying == action.symbol && contract.expiration >= action.exDate
        }
        guard !affected.isEmpty else { return }
        let factor = OptionAdjustment.wholeSplitFactor(action)
        let split = try? await market.options.chain(action.symbol, on: action.exDate).history.splits.last {
            $0.exDate == action.exDate
        }
        let deliverable = OptionAdjustment.adjustedDeliverable(action)
        for old in affected.sorted(by: { engine.instrument($0).symbol < engine.instrument($1).symbol }) {
            guard let contract = engine.instrument(old).option else { continue }
            if let cashOnly = split?.cashSettled.first(where: { $0.root == contract.root }) {
                let close = try? await market.options.chain(action.symbol, on: action.exDate).history.lastClosePrice
                guard let price = referencePrice ?? close else { continue }
                settleInCash(id, option: old, cashOnly, price: price, action: action, at: now)
                continue
            }
            let adjusted: OptionContract?
            var contracts = factor ?? 1
            if contract.root != contract.underlying {
                // Already adjusted: the same contracts move on to the root this split gives theirs.
                contracts = 1
                adjusted = split?.readjusted.first { $0.from == contract.root }.flatMap {
                    contract.adjusted(root: $0.root, deliverable: $0.deliverable)
                }
            } else if let factor {
                adjusted = OptionAdjustment.adjusted(contract, factor: factor)
            } else if let adjustedRoot = split?.adjustedRoot, let deliverable {
                adjusted = contract.adjusted(root: adjustedRoot, deliverable: deliverable)
            } else {
                adjusted = nil
            }
            guard let adjusted else { continue }
            let new = engine.register(optionClass.instrument(adjusted))
            guard
                let entries = engine.adjustOptionPosition(id, option: old, to: new, factor: contracts, at: now),
                entries.count == 2, case .optionEvent(let out) = entries[0].kind,
                case .optionEvent(let into) = entries[1].kind
            else { continue }
            let values = [
                "underlying": action.symbol, "ratio": "\(action.newRate)-for-\(action.oldRate)",
                "before": out.qty.magnitude.description, "old": out.symbol, "after": into.qty.magnitude.description,
                "new": into.symbol, "shares": String(adjusted.deliverable),
                "strike": MoneyText.text(adjusted.strike, symbol: "$", minimumPlaces: 2),
            ]
            notify(id, kind: "option_adjustment", at: now) { text in
                (
                    text("option.adjusted.title", values),
                    text(out.qty.isPositive ? "option.adjusted.written.body" : "option.adjusted.body", values)
                )
            }
        }
    }

    /// Settles the account's contracts whose deliverable a split made cash only, and tells the owner what was paid.
    func settleInCash(
        _ id: AccountID, option: InstrumentID, _ settlement: UnderlyingHistory.Split.CashSettlement, price: Price,
        action: CorporateAction, at now: Timestamp
    ) {
        let currency = engine.account(id)?.currency ?? .usd
        let cashPerContract = currency.round(price.multiplied(by: settlement.shares), .halfUp)
        guard
            let entry = engine.settleOptionInCash(
                id, option: option, cashPerContract: cashPerContract, underlyingPrice: price, at: now),
            case .optionEvent(let event) = entry.kind
        else { return }
        notify(id, kind: "option_cash_deliverable", at: now) { text in
            let values = [
                "underlying": action.symbol, "ratio": "\(action.newRate)-for-\(action.oldRate)",
                "contracts": event.qty.magnitude.description, "symbol": text.instrumentName(event.symbol),
                "shares": settlement.shares.description,
                "cash": MoneyText.text(cashPerContract, symbol: currency.symbol, minimumPlaces: 2),
                "amount": MoneyText.text(entry.cashChange.magnitude, symbol: currency.symbol, minimumPlaces: 2),
            ]
            return (
                text("option.cash_deliverable.title", values),
                text(
                    entry.cashChange.isZero
                        ? "option.cash_deliverable.worthless.body"
                        : event.qty.isPositive
                            ? "option.cash_deliverable.written.body" : "option.cash_deliverable.body",
                    values)
            )
        }
    }

    /// Tells the account's owner (and a team's members) of a dividend or split booked to it
    /// (`CorporateActionWording`).
    func notify(_ id: AccountID, booking: CorporateActionBooking, cash: FixedDecimal, at now: Timestamp) {
        let currency = engine.account(id)?.currency ?? .usd
        notify(id, kind: CorporateActionWording.kind(of: booking), at: now) { text in
            let (_, title, body) = CorporateActionWording(text: text, currency: currency).booked(booking, cash: cash)
            return (title, body)
        }
    }
}
