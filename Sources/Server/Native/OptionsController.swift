import Brokerage
import Foundation
import Hummingbird
import JSON
import MarketData
import TradingCore

/// The option chain for the web app's stock page (public, like quotes): an underlying's expirations, and one
/// expiration's calls and puts side by side by strike with quotes, volume, open interest, implied volatility and
/// greeks. Decimals are strings, as everywhere in the native API; greeks and volatility to four places.
struct OptionsController {
    let market: MarketView

    func addRoutes(to group: RouterGroup<AppContext>) {
        group.get("options/{underlying}", use: expirations)
        group.get("options/{underlying}/chain", use: chain)
        group.get("options/contracts/{symbol}", use: contract)
    }

    static func figure(_ value: Double) -> JSONValue {
        guard value.isFinite, abs(value) < 1e12 else { return .null }
        return .string(FixedDecimal(units: Int((value * 10_000).rounded()), exponent: 4).formatted(places: 4))
    }

    /// One contract's market. `mid` is halfway between the bid and the ask rounded half-up onto the contract's tick:
    /// a limit price an order can carry as it is (the trade sheet starts there).
    static func side(_ s: OptionSnapshot, tick: TickRule) -> JSONValue {
        .object([
            "symbol": .string(s.contract.occSymbol), "bid": .decimal(s.bid), "ask": .decimal(s.ask),
            "bid_size": .int(s.bidSize), "ask_size": .int(s.askSize), "mid": .decimal(tick.round(s.mid, .halfUp)),
            "last": .decimal(s.last), "volume": .int(s.volume),
            "open_interest": .int(s.openInterest), "implied_volatility": figure(s.impliedVolatility),
            "delta": figure(s.greeks.delta), "gamma": figure(s.greeks.gamma), "theta": figure(s.greeks.theta),
            "vega": figure(s.greeks.vega), "rho": figure(s.greeks.rho),
            "in_the_money": .bool(s.contract.intrinsicValue(at: s.underlyingPrice).isPositive),
            "probability_itm": figure(s.probabilityInTheMoney), "strike": .decimal(s.contract.strike),
            "expiration": .string(s.contract.expiration.description), "right": .string(s.contract.right.rawValue),
            "name": .string(s.contract.name),
        ])
    }

    func optionClass(_ context: AppContext) throws -> OptionClass {
        let underlying = try context.parameters.require("underlying").uppercased()
        guard market.directory.entry(underlying) != nil else {
            throw APIError.notFound("unknown symbol \(underlying)")
        }
        guard let optionClass = market.options.optionClass(underlying) else {
            throw APIError.notFound("no options are listed on \(underlying)")
        }
        return optionClass
    }

    /// `GET /api/v1/options/{underlying}` → `{underlying, multiplier, expirations: [{date, kind, days}]}`.
    /// A listed stock with no options (a right, a unit, a small company) has no expirations: an empty list, so the
    /// stock page asks without an error.
    /// The date in New York now: what "in 3 days" counts from. (The listing's day, `OptionMarket.today()`, is the
    /// next trading day's after the close: counted from it, an expiration on Friday the 4th read "in 2 days" on
    /// Tuesday the 1st's evening.)
    static func calendarToday(_ clock: MarketClock) -> CivilDate {
        TradingCalendar.xnys.zone.localTime(of: clock.now()).date
    }

    @Sendable func expirations(_ request: Request, context: AppContext) async throws -> Response {
        let underlying = try context.parameters.require("underlying").uppercased()
        guard let entry = market.directory.entry(underlying) else {
            throw APIError.notFound("unknown symbol \(underlying)")
        }
        guard let optionClass = market.options.optionClass(entry.symbol) else {
            return JSONValue.object([
                "underlying": .string(entry.symbol), "multiplier": .int(100), "expirations": .array([]),
            ]).response(headers: [.cacheControl: "no-store"])
        }
        let today = market.options.today()
        let calendarToday = Self.calendarToday(market.clock)
        return JSONValue.object([
            "underlying": .string(optionClass.underlying), "multiplier": .int(100),
            "expirations": .array(
                optionClass.expirations.listed(on: today).map { date in
                    .object([
                        "date": .string(date.description),
                        "kind": .string(optionClass.expirations.kind(of: date)?.rawValue ?? "weekly"),
                        "days": .int(date.daysSinceEpoch - calendarToday.daysSinceEpoch),
                    ])
                }),
        ]).response(headers: [.cacheControl: "no-store"])
    }

    /// `GET /api/v1/options/{underlying}/chain?expiration=YYYY-MM-DD` (the first expiration a week or more away
    /// when absent) → the strikes' rows, calls and puts side by side, with the strike nearest the money.
    @Sendable func chain(_ request: Request, context: AppContext) async throws -> Response {
        let optionClass = try optionClass(context)
        let options = market.options
        let today = options.today()
        let listed = optionClass.expirations.listed(on: today)
        let expiration: CivilDate
        if let date = try request.dateQuery("expiration") {
            guard listed.contains(date) else {
                throw APIError.notFound("\(optionClass.underlying) has no options expiring on \(date)")
            }
            expiration = date
        } else {
            guard let first = listed.first(where: { $0.daysSinceEpoch - today.daysSinceEpoch >= 7 }) ?? listed.last
            else {
                throw APIError.notFound("no options are listed on \(optionClass.underlying)")
            }
            expiration = first
        }
        let snapshots: [OptionSnapshot]
        do throws(FeedError) {
            let chain = try await options.chain(optionClass.underlying, on: today)
            // Standard contracts: one row per strike (adjusted ones are served by symbol and held as positions).
            snapshots = try await options.snapshots(
                chain.contracts.filter { $0.expiration == expiration && !$0.isAdjusted }, of: chain)
        } catch { throw APIError(feed: error) }
        var rows: [Price: (call: OptionSnapshot?, put: OptionSnapshot?)] = [:]
        for s in snapshots {
            if s.contract.right == .call {
                rows[s.contract.strike, default: (nil, nil)].call = s
            } else {
                rows[s.contract.strike, default: (nil, nil)].put = s
            }
        }
        let price = snapshots.first?.underlyingPrice
        let strikes = rows.keys.sorted()
        let atTheMoney = price.flatMap { p in strikes.min { ($0 - p).magnitude < ($1 - p).magnitude } }
        return JSONValue.object([
            "underlying": .string(optionClass.underlying), "price": .decimal(price),
            "expiration": .string(expiration.description),
            "days": .int(expiration.daysSinceEpoch - Self.calendarToday(market.clock).daysSinceEpoch),
            "multiplier": .int(100),
            "at_the_money": .decimal(atTheMoney),
            "rows": .array(
                strikes.map { strike in
                    let row = rows[strike]
                    return .object([
                        "strike": .decimal(strike),
                        "call": row?.call.map { Self.side($0, tick: optionClass.tickRule) } ?? .null,
                        "put": row?.put.map { Self.side($0, tick: optionClass.tickRule) } ?? .null,
                    ])
                }),
        ]).response(headers: [.cacheControl: "no-store"])
    }

    /// `GET /api/v1/options/contracts/{symbol}`: one contract by OCC symbol, with its terms and market.
    @Sendable func contract(_ request: Request, context: AppContext) async throws -> Response {
        let symbol = try context.parameters.require("symbol")
        let found: OptionSnapshot?
        do throws(FeedError) { found = try await market.options.snapshot(symbol) } catch {
            throw APIError(feed: error)
        }
        guard let s = found else { throw APIError.notFound("option contract \(symbol) not found") }
        let tick = market.options.optionClass(s.contract.underlying)?.tickRule ?? .usOption
        var body = Self.side(s, tick: tick).object ?? [:]
        body["underlying"] = .string(s.contract.underlying)
        body["type"] = .string(s.contract.right.rawValue)
        body["multiplier"] = .int(s.contract.multiplier)
        body["style"] = .string(s.contract.style.rawValue)
        body["underlying_price"] = .decimal(s.underlyingPrice)
        body["expired"] = .bool(s.expired)
        return JSONValue.object(body).response(headers: [.cacheControl: "no-store"])
    }
}
