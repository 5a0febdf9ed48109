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
            // The market's next moment (a pump at the same instant: the book shows its size again) fills more of it.
            // What filled (the displayed size limits each pass; the rest rests) was paid with borrowed cash.
            try await brokerage.pumpMarket()
            let bought = try #require(try await brokerage.summary(f.accountID).positions.first?.position.costBasis)
            let borrowed = -(try await brokerage.summary(f.accountID).account.cash)
            #expect(borrowed.isPositive && borrowed == bought - FixedDecimal(10_000))

            // Friday's close: three nights of 7% a year on what is borrowed, and a margin call for the shortfall.
            f.services.brokerage.clock.set(Timestamp(friday, hour: 16, minute: 1, in: .newYork))
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
            f.services.brokerage.clock.set(Timestamp(monday, hour: 16, minute: 1, in: .newYork))
            try await brokerage.closeMarginDay(monday)
            #expect(try await brokerage.summary(f.accountID).account.marginCall == call)

            // Tuesday's close: due and unmet: open orders canceled, shares sold at market for the shortfall.
            let tuesday = CivilDate(2026, 11, 24)
            f.services.brokerage.clock.set(Timestamp(tuesday, hour: 16, minute: 1, in: .newYork))
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

@Suite("Short selling and day trades over a real server and SQLite")
struct ShortSellingAPITests {
    @Test(
        "a short sale through /v2/orders: a short position, short_market_value and buying power in /v2/account, a hard-to-borrow fee at the close (FEE), covered by DELETE /v2/positions"
    )
    func shortLifecycle() async throws {
        try await ServerFixture.with(cash: 50_000) { f in
            let brokerage = f.services.brokerage
            let bid = try #require(f.services.market.quote("KO", at: ServerFixture.morning)?.bids.best?.price)
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/assets/KO", method: .get, headers: f.auth) { response in
                    let asset = f.json(response)
                    #expect(asset["shortable"]?.bool == true && asset["easy_to_borrow"]?.bool == false)
                    #expect(asset["marginable"]?.bool == true)
                }
                try await client.execute(uri: "/v2/assets/PLTR", method: .get, headers: f.auth) {
                    #expect(f.json($0)["shortable"]?.bool == false)
                }
                try await client.execute(
                    uri: "/v2/orders", method: .post, headers: f.auth,
                    body: body(#"{"symbol":"PLTR","qty":"10","side":"sell","type":"market","time_in_force":"day"}"#)
                ) { response in
                    #expect(response.status == .unprocessableContent)
                    #expect(f.json(response)["message"]?.string?.hasPrefix("asset PLTR is not shortable") == true)
                }
                // Sold short at or under the bid: the displayed size may fill part of it at once.
                try await client.execute(
                    uri: "/v2/orders", method: .post, headers: f.auth,
                    body: body(
                        #"{"symbol":"KO","qty":"100","side":"sell","type":"limit","limit_price":"\#(bid)","time_in_force":"day"}"#
                    )
                ) { response in
                    #expect(response.status == .ok)
                    #expect(f.json(response)["position_intent"]?.string == "sell_to_open")
                }
            }
            let summary = try await brokerage.summary(f.accountID)
            let short = try #require(summary.positions.first)
            #expect(short.position.qty.isNegative && short.position.symbol == "KO")
            let shortQty = short.position.qty.magnitude
            #expect(
                summary.account.cash == FixedDecimal(50_000) + shortQty.multiplied(by: bid) - summary.account.totalFees)
            try await f.app.test(.router) { client in
                try await client.execute(uri: "/v2/positions/KO", method: .get, headers: f.auth) { response in
                    let p = f.json(response)
                    #expect(p["side"]?.string == "short" && p["qty"]?.string == (-shortQty).description)
                    #expect(p["market_value"]?.string == short.valuation.marketValue.description)
                }
                try await client.execute(uri: "/v2/account", method: .get, headers: f.auth) { response in
                    let a = f.json(response)
                    #expect(a["shorting_enabled"]?.bool == true)
                    #expect(a["short_market_value"]?.string == summary.margin.shortMarketValue.description)
                    #expect(a["long_market_value"]?.string == "0")
                    #expect(a["initial_margin"]?.string == summary.margin.initialMargin.description)
                    // Reg T buying power: twice the equity above initial margin (the short's 50%).
                    let regt = (summary.margin.equity - summary.margin.initialMargin).rounded(places: 2, rule: .down)
                        .times(2)
                    #expect(a["regt_buying_power"]?.string == regt.description)
                }
            }

            // Friday's close: three nights of KO's hard-to-borrow fee on the short's closing value.
            let friday = CivilDate(2026, 11, 20)
            f.services.brokerage.clock.set(Timestamp(friday, hour: 16, minute: 1, in: .newYork))
            let atClose = try await brokerage.summary(f.accountID)
            let cashBefore = atClose.account.cash
            try await brokerage.closeMarginDay(friday)
            let mark = try #require(atClose.positions.first?.current)
            let value = shortQty.multiplied(by: mark).rounded(places: 0, rule: .up)
            let rate = Instrument.usEquity("KO", name: "").borrow.feeRate
            let fee = value.multiplied(by: rate).times(3).divided(by: FixedDecimal(360), places: 2, rule: .halfUp)!
            #expect(fee.isPositive)
            #expect(try await brokerage.summary(f.accountID).account.cash == cashBefore - fee)
            try await f.app.test(.router) { client in
                try await client.execute(
                    uri: "/v2/account/activities/FEE", method: .get, headers: f.auth
                ) { response in
                    let items = f.json(response).array ?? []
                    let borrow = items.first { $0["description"]?.string?.hasPrefix("HTB fee") == true }
                    #expect(borrow?["net_amount"]?.string == (-fee).description)
                    #expect(borrow?["symbol"]?.string == "KO" && borrow?["qty"]?.string == (-shortQty).description)
                }
                // Monday morning: closing the position buys the short back.
                f.services.brokerage.clock.set(Timestamp(CivilDate(2026, 11, 23), hour: 10, in: .newYork))
                try await client.execute(uri: "/v2/positions/KO", method: .delete, headers: f.auth) { response in
                    let o = f.json(response)
                    #expect(o["side"]?.string == "buy" && o["qty"]?.string == shortQty.description)
                    #expect(o["position_intent"]?.string == "buy_to_close")
                }
            }
        }
    }

    @Test("a short far below maintenance is bought back during the session, as a loan of cash would be sold")
    func shortLiquidation() async throws {
        try await ServerFixture.with(cash: 10_000) { f in
            let brokerage = f.services.brokerage
            // A strict house: 100% maintenance on shorts and liquidation below 90% of it.
            var policy = MarginPolicy()
            policy.rates.maintenance = .one
            policy.liquidationThreshold = FixedDecimal(units: 9, exponent: 1)
            await brokerage.setMarginPolicy(policy)
            let bid = try #require(f.services.market.quote("NVDA", at: ServerFixture.morning)?.bids.best?.price)
            let qty = FixedDecimal(15_000).divided(by: bid, places: 0, rule: .down)!
            let short = try await brokerage.submit(
                OrderRequest(symbol: "NVDA", side: .sell, type: .market, timeInForce: .day, qty: qty),
                account: f.accountID)
            #expect(short.positionIntent == .sellToOpen)
            let summary = try await brokerage.summary(f.accountID)
            #expect(summary.account.cash.isPositive) // a short's proceeds: nothing borrowed in cash
            let sold = try #require(summary.positions.first?.position.qty.magnitude)
            #expect(
                summary.margin.equity < summary.margin.maintenanceMargin.multiplied(by: policy.liquidationThreshold))
            try await brokerage.checkMarginThreshold()
            var all = OrderQuery()
            all.status = .all
            let covers = try await brokerage.orders(account: f.accountID, all).filter {
                $0.side == .buy && $0.positionIntent == .buyToClose
            }
            let cover = try #require(covers.first)
            #expect(cover.type == .market && cover.qty.map { $0 > .zero && $0 <= sold } == true)
            let user = try #require(await brokerage.accountRecord(f.accountID)?.userID)
            let kinds = try await brokerage.notifications.recent(user: user).items.map(\.kind)
            #expect(kinds.contains("margin_liquidation"))
        }
    }

    @Test(
        "day trades count in /v2/account; with pdt_protection on, an account under $25,000 is refused its fourth with Alpaca's 403"
    )
    func patternDayTrader() async throws {
        try await ServerFixture.with(cash: 20_000) { f in
            try await f.app.test(.router) { client in
                try await client.execute(
                    uri: "/v2/account/configurations", method: .patch, headers: f.auth,
                    body: body(#"{"pdt_protection":true,"pdt_check":"both"}"#)
                ) { response in
                    #expect(f.json(response)["pdt_check"]?.string == "both")
                    #expect(f.json(response)["pdt_protection"]?.bool == true)
                }
                func market(_ side: String) -> ByteBuffer {
                    body(#"{"symbol":"AAPL","qty":"1","side":"\#(side)","type":"market","time_in_force":"day"}"#)
                }
                for _ in 0..<3 {
                    for side in ["buy", "sell"] {
                        try await client.execute(uri: "/v2/orders", method: .post, headers: f.auth, body: market(side))
                        {
                            #expect($0.status == .ok)
                        }
                    }
                }
                try await client.execute(uri: "/v2/account", method: .get, headers: f.auth) { response in
                    #expect(f.json(response)["daytrade_count"]?.int == 3)
                    #expect(f.json(response)["pattern_day_trader"]?.bool == false)
                }
                try await client.execute(uri: "/v2/orders", method: .post, headers: f.auth, body: market("buy")) {
                    response in
                    #expect(response.status == .forbidden)
                    #expect(f.json(response)["code"]?.int == 40310100)
                    #expect(
                        f.json(response)["message"]?.string?.hasPrefix(
                            "trade denied due to pattern day trading protection") == true)
                }
                try await client.execute(
                    uri: "/v2/account/configurations", method: .patch, headers: f.auth,
                    body: body(#"{"pdt_check":"sometimes"}"#)
                ) { #expect($0.status == .unprocessableContent) }
            }
        }
    }
}
