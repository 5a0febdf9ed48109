import Brokerage
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Server
import Testing
import TradingCore

@Suite("Margin accounts over a real server and SQLite")
struct MarginAccountTests {
    @Test(
        "a margin account borrows, pays a weekend's interest, gets a margin call at the close and is sold out when the call is still unmet on its due day; every step is in /v2/account and its activities"
    )
    func marginCallLifecycle() async throws {
        try await ServerFixture.with(cash: 10_000) { f in
            let brokerage = f.services.brokerage
            // A strict house: 90% maintenance, so buying on margin calls for more equity at once.
            var policy = MarginPolicy()
            policy.rates.maintenance = FixedDecimal(units: 9, exponent: 1)
            await brokerage.setMarginPolicy(policy)
            let friday = CivilDate(2026, 11, 20)
            let ask = try #require(f.services.market.quote("KO", at: ServerFixture.morning)?.asks.best?.price)
            let qty = (FixedDecimal(19_900).divided(by: ask, places: 0, rule: .down))!
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/account", method: .get, headers: f.auth) { response in
                    let a = f.json(response)
                    #expect(a["multiplier"]?.string == "2" && a["buying_power"]?.string == "20000")
                    #expect(a["regt_buying_power"]?.string == "20000")
                }
                try await client.execute(
                    uri: "/v2/orders", method: .post, headers: f.auth,
                    body: body(
                        #"{"symbol":"KO","qty":"\#(qty)","side":"buy","type":"limit","limit_price":"\#(ask)","time_in_force":"day"}"#
                    )
                ) { #expect($0.status == .ok) }
            }
            // What filled now (the displayed size limits it; the rest rests) was paid with borrowed cash.
            let bought = try #require(try await brokerage.summary(f.accountID).positions.first?.position.costBasis)
            let borrowed = -(try await brokerage.summary(f.accountID).account.cash)
            #expect(borrowed.isPositive && borrowed == bought - FixedDecimal(10_000))

            // Friday's close: three nights of 7% a year on what is borrowed, and a margin call for the shortfall.
            f.services.clock.set(Timestamp(friday, hour: 16, minute: 1, in: .newYork))
            try await brokerage.closeMarginDay(friday)
            let interest = (borrowed.multiplied(by: FixedDecimal(units: 7, exponent: 2)).times(3))
                .divided(by: FixedDecimal(360), places: 2, rule: .halfUp)!
            let summary = try await brokerage.summary(f.accountID)
            #expect(summary.account.cash == -borrowed - interest)
            let equity = summary.account.cash + summary.marketValue
            let maintenance = summary.marketValue.multiplied(by: FixedDecimal(units: 9, exponent: 1))
            #expect(summary.margin.maintenanceMargin == maintenance.rounded(places: 2, rule: .up))
            let call = try #require(summary.account.marginCall)
            #expect(call.amount == (maintenance - equity).rounded(places: 2, rule: .up))
            #expect(call.due == CivilDate(2026, 11, 24)) // two trading days: Monday, Tuesday
            // Closing again changes nothing: the night is charged once and the call stays as it was.
            try await brokerage.closeMarginDay(friday)
            #expect(try await brokerage.summary(f.accountID).account.cash == summary.account.cash)

            // Monday's close: one more night; the call is still open (not yet due).
            let monday = CivilDate(2026, 11, 23)
            f.services.clock.set(Timestamp(monday, hour: 16, minute: 1, in: .newYork))
            try await brokerage.closeMarginDay(monday)
            #expect(try await brokerage.summary(f.accountID).account.marginCall == call)

            // Tuesday's close: due and unmet: open orders canceled, shares sold at market for the shortfall.
            let tuesday = CivilDate(2026, 11, 24)
            f.services.clock.set(Timestamp(tuesday, hour: 16, minute: 1, in: .newYork))
            let before = try await brokerage.summary(f.accountID)
            let position = try #require(before.positions.first)
            let deficit = before.margin.deficit
            try await brokerage.closeMarginDay(tuesday)
            let after = try await brokerage.summary(f.accountID)
            #expect(after.account.marginCall == nil)
            let sells = try await brokerage.orders(account: f.accountID, OrderQuery()).filter { $0.side == .sell }
            let sell = try #require(sells.first)
            let perShare = position.current.multiplied(by: FixedDecimal(units: 9, exponent: 1))
            let needed = deficit.divided(by: perShare, places: 0, rule: .up)!
            #expect(sell.type == .market && sell.qty == min(needed, position.position.qty))

            // The steps are the account's activities: INT for each close's interest, MISC for the call's steps.
            try await f.app.test(.router) { client in
                try await client.execute(
                    uri: "/v2/account/activities?activity_types=INT,MISC&direction=asc", method: .get, headers: f.auth
                ) { response in
                    let items = f.json(response).array ?? []
                    #expect(items.map { $0["activity_type"]?.string } == ["INT", "MISC", "INT", "INT", "MISC"])
                    #expect(items.first?["net_amount"]?.string == (-interest).description)
                    #expect(items[1]["description"]?.string?.hasPrefix("margin call: equity is") == true)
                    #expect(items.last?["description"]?.string?.hasPrefix("margin call not met") == true)
                }
            }
            let user = try #require(await brokerage.accountRecord(f.accountID)?.userID)
            let kinds = try await brokerage.notifications.recent(user: user).items.map(\.kind)
            #expect(kinds.contains("margin_call") && kinds.contains("margin_liquidation"))
        }
    }

    @Test("cash accounts stay cash: no borrowing, max_margin_multiplier stays 1; margin accounts take 1, 2 or 4")
    func configurations() async throws {
        try await ServerFixture.with(cash: 10_000, type: .cash) { f in
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/account", method: .get, headers: f.auth) { response in
                    #expect(f.json(response)["multiplier"]?.string == "1")
                    #expect(f.json(response)["buying_power"]?.string == "10000")
                }
                try await client.execute(
                    uri: "/v2/account/configurations", method: .patch, headers: f.auth,
                    body: body(#"{"max_margin_multiplier":"2"}"#)
                ) { #expect($0.status == .forbidden) }
            }
        }
        try await ServerFixture.with(cash: 50_000) { f in
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/account/configurations", method: .get, headers: f.auth) {
                    #expect(f.json($0)["max_margin_multiplier"]?.string == "4")
                }
                try await client.execute(
                    uri: "/v2/account/configurations", method: .patch, headers: f.auth,
                    body: body(#"{"max_margin_multiplier":"1"}"#)
                ) { #expect(f.json($0)["max_margin_multiplier"]?.string == "1") }
                try await client.execute(uri: "/v2/account", method: .get, headers: f.auth) { response in
                    #expect(f.json(response)["multiplier"]?.string == "1")
                    #expect(f.json(response)["buying_power"]?.string == "50000")
                }
                try await client.execute(
                    uri: "/v2/account/configurations", method: .patch, headers: f.auth,
                    body: body(#"{"max_margin_multiplier":"3"}"#)
                ) { #expect($0.status == .unprocessableContent) }
            }
        }
    }
}
