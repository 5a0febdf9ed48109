import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import MarketData
import Server
import Testing
import TradingCore

@Suite("Corporate actions over a real server and SQLite")
struct CorporateActionAPITests {
    /// The first US stock whose only action from the fixture's morning until 2027-02-10 is of `kind`.
    static func symbol(
        with kind: CorporateAction.Kind, _ f: ServerFixture, where accept: (CorporateAction) -> Bool = { _ in true }
    ) -> (String, CorporateAction)? {
        let market = f.services.market
        for entry in market.directory.entries where entry.instrument.market == .us && entry.instrument.kind == .stock {
            let actions = market.corporateActions(
                entry.symbol, from: CivilDate(2026, 11, 21), through: CivilDate(2027, 2, 10))
            if actions.count == 1, let action = actions.first, action.kind == kind, accept(action) {
                return (entry.symbol, action)
            }
        }
        return nil
    }

    @Test(
        "a split on its ex-date: the position's shares × the ratio at the same cost (the fraction paid in cash), the open order resized and repriced, a FORWARD_SPLIT activity and a notification"
    )
    func split() async throws {
        try await ServerFixture.with { f in
            let brokerage = f.services.brokerage
            // A 3-for-2 split leaves half a share of an odd holding: cash in lieu.
            let found =
                Self.symbol(with: .forwardSplit, f) { $0.newRate == 3 && $0.oldRate == 2 }
                ?? Self.symbol(with: .forwardSplit, f)
            let (symbol, split) = try #require(found)
            let buy = try await brokerage.submit(
                OrderRequest(symbol: symbol, side: .buy, type: .market, timeInForce: .day, qty: 7), account: f.accountID
            )
            #expect(buy.status == .filled)
            let bought = try #require(try await brokerage.summary(f.accountID).positions.first?.position)
            let limit = try #require(bought.averageEntryPrice.times(2).rounded(places: 2, rule: .down) as Price?)
            let sell = try await brokerage.submit(
                OrderRequest(symbol: symbol, side: .sell, type: .limit, timeInForce: .gtc, qty: 3, limitPrice: limit),
                account: f.accountID)
            try await brokerage.applyCorporateActions() // starts tracking this account today
            let cashBefore = try await brokerage.summary(f.accountID).account.cash

            f.services.brokerage.clock.set(Timestamp(split.exDate, hour: 9, minute: 31, in: .newYork))
            let reference = try #require(
                f.services.market.quote(symbol, at: f.services.brokerage.clock.now())?.previousClose)
            try await brokerage.applyCorporateActions()
            try await brokerage.applyCorporateActions() // once per ex-date: a second run changes nothing
            let exact = FixedDecimal(7).multiplied(by: split.ratio, rule: .down)
            let whole = exact.rounded(places: 0, rule: .down)
            let fraction = exact - whole
            let summary = try await brokerage.summary(f.accountID)
            let position = try #require(summary.positions.first?.position)
            let released = (bought.costBasis.multiplied(by: fraction).divided(by: exact, rule: .halfEven))!
            #expect(position.qty == whole && position.costBasis == bought.costBasis - released)
            #expect(summary.account.cash == cashBefore + reference.multiplied(by: fraction, places: 2, rule: .halfUp))
            let order = try #require(try await brokerage.order(sell.id, account: f.accountID))
            let ratio = split.ratio
            #expect(order.qty == FixedDecimal(3).multiplied(by: ratio, rule: .down).rounded(places: 0, rule: .down))
            #expect(order.limitPrice == limit.divided(by: ratio, rule: .halfEven)?.rounded(places: 2, rule: .halfUp))
            try await f.app.test(.router) { client in
                try await client.execute(
                    uri: "/v2/account/activities/FORWARD_SPLIT", method: .get, headers: f.auth
                ) { response in
                    let items = f.json(response).array ?? []
                    #expect(items.count == 1)
                    #expect(items.first?["symbol"]?.string == symbol)
                    #expect(items.first?["qty"]?.string == (whole - FixedDecimal(7)).description)
                }
                try await client.execute(uri: "/v2/positions/\(symbol)", method: .get, headers: f.auth) { response in
                    #expect(f.json(response)["qty"]?.string == whole.description)
                }
            }
            let user = try #require(await brokerage.accountRecord(f.accountID)?.userID)
            let notes = try await brokerage.notifications.recent(user: user).items.filter { $0.kind == "split" }
            #expect(notes.count == 1)
            #expect(notes.first?.body.contains("Your 7 shares of \(symbol) are now \(whole)") == true)
        }
    }

    @Test(
        "a whole-number split adjusts options the OCC way: N contracts at the strike ÷ N for each one held, same cost, listed and worth what the old ones were; open orders on them canceled; OPCA activities and a notification"
    )
    func splitAdjustsOptions() async throws {
        try await ServerFixture.with { f in
            let brokerage = f.services.brokerage
            let market = f.services.market
            // The first optionable stock with a whole-number forward split in the next year.
            var found: (String, CorporateAction, Int)?
            for entry in market.directory.entries where brokerage.options.optionClass(entry.symbol) != nil {
                let splits = market.corporateActions(
                    entry.symbol, from: CivilDate(2026, 11, 23), through: CivilDate(2027, 11, 20)
                ).filter(\.kind.changesShares)
                if let split = splits.first, let factor = OptionAdjustment.wholeSplitFactor(split) {
                    found = (entry.symbol, split, factor)
                    break
                }
            }
            let (symbol, split, factor) = try #require(found)
            let eve = TradingCalendar.xnys.previousTradingDay(before: split.exDate)
            brokerage.clock.set(Timestamp(eve, hour: 10, in: .newYork))
            let spot = try await brokerage.feed.quote(symbol).last
            let chain = try await brokerage.options.chain(symbol)
            let expiration = try #require(
                chain.contracts.map(\.expiration).filter { $0 >= split.exDate.adding(days: 14) }.min())
            let calls = chain.contracts.filter { $0.expiration == expiration && $0.right == .call }
            let call = try #require(calls.min { ($0.strike - spot).magnitude < ($1.strike - spot).magnitude })
            let bought = try await brokerage.submit(
                OrderRequest(symbol: call.occSymbol, side: .buy, type: .market, timeInForce: .day, qty: 2),
                account: f.accountID)
            #expect(bought.status == .filled)
            let resting = try await brokerage.submit(
                OrderRequest(
                    symbol: call.occSymbol, side: .buy, type: .limit, timeInForce: .gtc, qty: 1,
                    limitPrice: FixedDecimal(units: 5, exponent: 2)),
                account: f.accountID)
            #expect(resting.status == .new)
            try await brokerage.applyCorporateActions() // starts tracking this account today
            let cost = try #require(
                try await brokerage.summary(f.accountID).positions.first { $0.position.symbol == call.occSymbol }
            ).position.costBasis
            brokerage.clock.set(Timestamp(eve, hour: 15, minute: 59, in: .newYork))
            let valueBefore = try #require(try await brokerage.options.snapshot(call.occSymbol)).theoreticalValue

            brokerage.clock.set(Timestamp(split.exDate, hour: 9, minute: 31, in: .newYork))
            try await brokerage.applyCorporateActions()
            try await brokerage.applyCorporateActions() // once per ex-date
            let adjusted = try #require(OptionAdjustment.adjusted(call, factor: factor))
            let positions = try await brokerage.summary(f.accountID).positions.map(\.position)
            #expect(!positions.contains { $0.symbol == call.occSymbol })
            let held = try #require(positions.first { $0.symbol == adjusted.occSymbol })
            #expect(held.qty == FixedDecimal(2 * factor) && held.costBasis == cost)
            #expect(adjusted.strike == call.strike.divided(by: FixedDecimal(factor), places: 3, rule: .halfEven))
            #expect(try await brokerage.order(resting.id, account: f.accountID).status == .canceled)
            // Listed the day after, and worth (×N) what the old contract was worth at the eve's close.
            let listed = try await brokerage.options.chain(symbol).contracts
            #expect(listed.contains(adjusted))
            let valueAfter = try #require(try await brokerage.options.snapshot(adjusted.occSymbol)).theoreticalValue
            let ratio = Double(valueAfter.times(factor).description)! / Double(valueBefore.description)!
            #expect(ratio > 0.7 && ratio < 1.4, "\(valueAfter) × \(factor) against \(valueBefore)")
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/account/activities/OPCA", method: .get, headers: f.auth) {
                    response in
                    let items = f.json(response).array ?? []
                    #expect(
                        Set(items.compactMap { $0["symbol"]?.string }) == [call.occSymbol, adjusted.occSymbol])
                    #expect(
                        Set(items.compactMap { $0["qty"]?.string }) == ["-2", FixedDecimal(2 * factor).description])
                }
                try await client.execute(uri: "/v2/positions/\(adjusted.occSymbol)", method: .get, headers: f.auth) {
                    response in
                    #expect(f.json(response)["qty"]?.string == FixedDecimal(2 * factor).description)
                    #expect(f.json(response)["asset_class"]?.string == "us_option")
                }
            }
            let ledger = try await brokerage.activities(f.accountID, limit: 100, ascending: true)
            let replay = LedgerReplay(startingCash: FixedDecimal(100_000), entries: ledger)
            #expect(replay.holdings[adjusted.occSymbol]?.qty == held.qty)
            #expect(replay.holdings[adjusted.occSymbol]?.costBasis == cost)
            let user = try #require(await brokerage.accountRecord(f.accountID)?.userID)
            let notes = try await brokerage.notifications.recent(user: user).items.filter {
                $0.kind == "option_adjustment"
            }
            #expect(notes.count == 1)
            #expect(notes.first?.body.contains("are now \(2 * factor) contracts of \(adjusted.occSymbol)") == true)
        }
    }

    @Test(
        "a split that is not a whole number moves options to an adjusted root the OCC way: same contracts and strike, 100 × the ratio shares delivered; priced, served and exercised as such, and found again after a restart"
    )
    func oddSplitAdjustsDeliverable() async throws {
        try await ServerFixture.with { f in
            let brokerage = f.services.brokerage
            let market = f.services.market
            var found: (String, CorporateAction, Int)?
            search: for year in 2027...2031 {
                for entry in market.directory.entries where brokerage.options.optionClass(entry.symbol) != nil {
                    let splits = market.corporateActions(
                        entry.symbol, from: CivilDate(year, 1, 1), through: CivilDate(year, 12, 31)
                    ).filter(\.kind.changesShares)
                    if splits.count == 1, let split = splits.first,
                        let deliverable = OptionAdjustment.adjustedDeliverable(split)
                    {
                        found = (entry.symbol, split, deliverable)
                        break search
                    }
                }
            }
            let (symbol, split, deliverable) = try #require(found)
            let eve = TradingCalendar.xnys.previousTradingDay(before: split.exDate)
            brokerage.clock.set(Timestamp(eve, hour: 10, in: .newYork))
            let spot = try await brokerage.feed.quote(symbol).last
            let chain = try await brokerage.options.chain(symbol)
            let expiration = try #require(
                chain.contracts.map(\.expiration).filter { $0 >= split.exDate.adding(days: 14) }.min())
            let calls = chain.contracts.filter { $0.expiration == expiration && $0.right == .call && $0.strike < spot }
            let call = try #require(calls.max { $0.strike < $1.strike })
            let bought = try await brokerage.submit(
                OrderRequest(symbol: call.occSymbol, side: .buy, type: .market, timeInForce: .day, qty: 2),
                account: f.accountID)
            #expect(bought.status == .filled)
            try await brokerage.applyCorporateActions()
            let cost = try #require(
                try await brokerage.summary(f.accountID).positions.first { $0.position.symbol == call.occSymbol }
            ).position.costBasis
            brokerage.clock.set(Timestamp(eve, hour: 15, minute: 59, in: .newYork))
            let valueBefore = try #require(try await brokerage.options.snapshot(call.occSymbol)).theoreticalValue

            brokerage.clock.set(Timestamp(split.exDate, hour: 9, minute: 31, in: .newYork))
            try await brokerage.applyCorporateActions()
            try await brokerage.applyCorporateActions()
            let positions = try await brokerage.summary(f.accountID).positions.map(\.position)
            #expect(!positions.contains { $0.symbol == call.occSymbol })
            let held = try #require(positions.first { $0.symbol.hasPrefix(symbol) && $0.multiplier != nil })
            let adjusted = try #require(held.optionContract)
            #expect(adjusted.root == symbol + "1" && adjusted.strike == call.strike)
            #expect(adjusted.deliverable == deliverable && held.qty == 2 && held.costBasis == cost)
            let listed = try await brokerage.options.chain(symbol).contracts
            #expect(listed.contains(adjusted))
            let valueAfter = try #require(try await brokerage.options.snapshot(adjusted.occSymbol)).theoreticalValue
            let ratio = Double(valueAfter.description)! / Double(valueBefore.description)!
            #expect(ratio > 0.7 && ratio < 1.4, "\(valueAfter) against \(valueBefore)")
            try await f.app.test(.router) { client in
                try await client.execute(
                    uri: "/v2/options/contracts/\(adjusted.occSymbol)", method: .get, headers: f.auth
                ) { response in
                    let json = f.json(response)
                    #expect(json["root_symbol"]?.string == adjusted.root)
                    #expect(json["underlying_symbol"]?.string == symbol)
                    #expect(json["deliverables"]?.array?.first?["amount"]?.string == String(deliverable))
                }
            }
            let user = try #require(await brokerage.accountRecord(f.accountID)?.userID)
            let notes = try await brokerage.notifications.recent(user: user).items.filter {
                $0.kind == "option_adjustment"
            }
            #expect(notes.first?.body.contains("each for \(deliverable) shares") == true)

            // After a restart the position is found again with its deliverable; exercising it buys 2 × the
            // deliverable shares for 2 × 100 × the strike.
            await f.services.shutdown()
            let restarted = try await Papertrade.start(
                {
                    var c = ServerConfiguration()
                    c.dataDirectory = f.directory
                    return c
                }(),
                clock: MarketClock(.manual(start: Timestamp(split.exDate, hour: 10, in: .newYork))))
            let cash = try await restarted.brokerage.summary(f.accountID).account.cash
            try await restarted.brokerage.exercise(adjusted.occSymbol, account: f.accountID)
            let after = try await restarted.brokerage.summary(f.accountID)
            #expect(after.account.cash == cash - call.strike.times(200))
            let shares = try #require(after.positions.first { $0.position.symbol == symbol }?.position)
            #expect(shares.qty == FixedDecimal(2 * deliverable))
            #expect(shares.costBasis == call.strike.times(200) + cost)
            await restarted.shutdown()
        }
    }

    @Test(
        "a second reverse split that leaves an adjusted contract less than a share settles it in cash that day, the OCC way: the holder paid the cash in lieu less the aggregate strike, an OPCSH activity, a notification"
    )
    func cashDeliverable() async throws {
        try await ServerFixture.with { f in
            let brokerage = f.services.brokerage
            let market = f.services.market
            // A stock with two share-changing splits within three years, the first leaving a deliverable that the
            // second takes below one share (1:20 twice: 5 shares, then a quarter of one).
            var found: (symbol: String, first: Int, second: CorporateAction, shares: FixedDecimal)?
            search: for entry in market.directory.entries where brokerage.options.optionClass(entry.symbol) != nil {
                let splits = market.corporateActions(
                    entry.symbol, from: CivilDate(2027, 1, 1), through: CivilDate(2032, 12, 31)
                ).filter(\.kind.changesShares)
                for (first, second) in zip(splits, splits.dropFirst())
                where second.exDate < first.exDate.adding(days: 3 * 366) {
                    guard let deliverable = OptionAdjustment.adjustedDeliverable(first),
                        let shares = FixedDecimal(deliverable).multiplied(by: second.newRate)
                            .divided(by: second.oldRate, places: 6, rule: .down),
                        shares < .one
                    else { continue }
                    found = (entry.symbol, deliverable, second, shares)
                    break search
                }
            }
            let (symbol, deliverable, split, shares) = try #require(found)
            let eve = TradingCalendar.xnys.previousTradingDay(before: split.exDate)
            brokerage.clock.set(Timestamp(eve, hour: 10, in: .newYork))
            try await brokerage.applyCorporateActions()
            let spot = try await brokerage.feed.quote(symbol).last
            // An adjusted call deep in the money: its deliverable worth well over its aggregate strike.
            let worth = spot.times(deliverable).multiplied(by: FixedDecimal(units: 8, exponent: 1))
            let adjusted = try await brokerage.options.chain(symbol).contracts.filter {
                $0.root != symbol && $0.deliverable == deliverable && $0.right == .call && $0.expiration > split.exDate
                    && $0.strike.times(100) < worth
            }
            let call = try #require(adjusted.max { $0.strike < $1.strike })
            let bought = try await brokerage.submit(
                OrderRequest(symbol: call.occSymbol, side: .buy, type: .market, timeInForce: .day, qty: 2),
                account: f.accountID)
            #expect(bought.status == .filled)
            let before = try await brokerage.summary(f.accountID).account.cash

            brokerage.clock.set(Timestamp(split.exDate, hour: 9, minute: 31, in: .newYork))
            try await brokerage.applyCorporateActions()
            try await brokerage.applyCorporateActions()
            let reference = try await brokerage.feed.quote(symbol).previousClose
            let cashPerContract = reference.multiplied(by: shares).rounded(places: 2, rule: .halfUp)
            let value = (cashPerContract - call.strike.times(100)).times(2)
            #expect(value.isPositive)
            let after = try await brokerage.summary(f.accountID)
            #expect(!after.positions.contains { $0.position.symbol.hasPrefix(call.root) })
            #expect(after.account.cash == before + value)
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/account/activities/OPCSH", method: .get, headers: f.auth) {
                    response in
                    let item = (f.json(response).array ?? []).first
                    #expect(item?["symbol"]?.string == call.occSymbol && item?["qty"]?.string == "-2")
                    #expect(item?["net_amount"]?.string == value.description)
                }
            }
            let user = try #require(await brokerage.accountRecord(f.accountID)?.userID)
            let notes = try await brokerage.notifications.recent(user: user).items.filter {
                $0.kind == "option_cash_deliverable"
            }
            #expect(notes.count == 1)
            #expect(notes.first?.body.contains("were paid $\(value.formatted(places: 2))") == true, "\(notes)")
        }
    }

    @Test("a cash dividend on its ex-date: cash per share held, exactly; a DIV activity with the per-share amount")
    func dividend() async throws {
        try await ServerFixture.with { f in
            let brokerage = f.services.brokerage
            let (symbol, dividend) = try #require(Self.symbol(with: .cashDividend, f))
            _ = try await brokerage.submit(
                OrderRequest(symbol: symbol, side: .buy, type: .market, timeInForce: .day, qty: 10),
                account: f.accountID)
            try await brokerage.applyCorporateActions()
            let before = try await brokerage.summary(f.accountID)
            f.services.brokerage.clock.set(Timestamp(dividend.exDate, hour: 9, minute: 31, in: .newYork))
            try await brokerage.applyCorporateActions()
            let after = try await brokerage.summary(f.accountID)
            let amount = dividend.cash.multiplied(by: FixedDecimal(10), places: 2, rule: .halfUp)
            #expect(after.account.cash == before.account.cash + amount)
            #expect(after.positions.first?.position.qty == FixedDecimal(10))
            #expect(after.positions.first?.position.costBasis == before.positions.first?.position.costBasis)
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/account/activities/DIV", method: .get, headers: f.auth) { response in
                    let item = (f.json(response).array ?? []).first
                    #expect(item?["net_amount"]?.string == amount.description)
                    #expect(item?["per_share_amount"]?.string == dividend.cash.description)
                    #expect(item?["symbol"]?.string == symbol)
                }
            }
        }
    }
}
