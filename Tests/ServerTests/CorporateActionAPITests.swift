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
