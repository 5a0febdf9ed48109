import JSON
import MarketData
import TradingCore

/// The precautions IB's gateway asks a person to confirm before an order goes out ("reply" questions), with IB's
/// message ids and wording — clients recognise a question by its text, so the wording is IB's, word for word.
///
/// Which precautions apply, and their limits, are settings of each account (`Settings`, kept with the account's
/// configuration); a session can silence message ids with `/iserver/questions/suppress`.
enum IBQuestions {
    struct Question: Sendable, Equatable {
        var messageID: String
        var text: String
    }

    /// An account's precautionary settings. Defaults are IB's for a new paper account.
    struct Settings: Sendable, Equatable {
        /// Ask (o163) when a limit or stop price is more than this percentage away from the last price.
        var pricePercent: FixedDecimal? = FixedDecimal(3)
        /// Ask (o383) when an order is for more shares than this.
        var sizeLimit: Quantity? = FixedDecimal(500)
        /// Ask (o451) when an order's estimated value is above this, in the account's currency.
        var valueLimit: FixedDecimal? = FixedDecimal(100_000)
        /// Ask (o10151) before every market order.
        var marketOrderWarning = true
        /// Ask (o403) when a stop order's trigger is already crossed, so it would fill at once.
        var immediateFillWarning = true

        static let keys = [
            "price_percent", "size_limit", "value_limit", "market_order_warning", "immediate_fill_warning",
        ]

        var json: JSONValue {
            .object([
                "price_percent": .decimal(pricePercent), "size_limit": .decimal(sizeLimit),
                "value_limit": .decimal(valueLimit), "market_order_warning": .bool(marketOrderWarning),
                "immediate_fill_warning": .bool(immediateFillWarning),
            ])
        }

        /// Applies the fields of `object` (null turns a limit off); a message for a bad value.
        mutating func apply(_ object: [String: JSONValue]) throws(IBError) {
            for (key, value) in object {
                switch key {
                case "price_percent", "size_limit", "value_limit":
                    var limit: FixedDecimal?
                    if !value.isNull {
                        guard let number = value.decimal, number.isPositive else {
                            throw IBError(.badRequest, "\(key) must be a positive number or null")
                        }
                        limit = number
                    }
                    if key == "price_percent" {
                        pricePercent = limit
                    } else if key == "size_limit" {
                        sizeLimit = limit
                    } else {
                        valueLimit = limit
                    }
                case "market_order_warning", "immediate_fill_warning":
                    guard let flag = value.bool else { throw IBError(.badRequest, "\(key) must be true or false") }
                    if key == "market_order_warning" { marketOrderWarning = flag } else { immediateFillWarning = flag }
                default:
                    throw IBError(
                        .badRequest, "unknown setting \(key); expected one of \(Self.keys.joined(separator: ", "))")
                }
            }
        }
    }

    /// The questions an order raises, in the order IB asks them, leaving out suppressed message ids.
    static func questions(
        for order: IBOrderTicket, quote: MarketQuote?, settings: Settings, suppressed: Set<String>
    ) -> [Question] {
        let description = order.description
        var out: [Question] = []
        // A combo's price is a net of its legs: no one quote to hold it against, and a stop it cannot have.
        if order.combo != nil {
            if let limit = settings.sizeLimit, order.quantity > limit {
                out.append(sizeQuestion(description, limit))
            }
            if let limit = settings.valueLimit, let price = order.limitPrice {
                let value = order.quantity.multiplied(by: order.instrument.multiplier).multiplied(
                    by: price.magnitude, places: 2, rule: .halfUp)
                if value > limit { out.append(valueQuestion(description, value, limit, order.currency)) }
            }
            if settings.marketOrderWarning, order.type == .market { out.append(marketQuestion) }
            return out.filter { !suppressed.contains($0.messageID) }
        }
        guard let quote else {
            out.append(
                Question(
                    messageID: "o354",
                    text:
                        "You are submitting an order without market data. We strongly recommend against this as it may result in erroneous and unexpected trades. Are you sure you want to submit this order?"
                ))
            return out.filter { !suppressed.contains($0.messageID) }
        }
        let last = quote.last
        if let percent = settings.pricePercent, last.isPositive {
            let price = order.limitPrice ?? order.stopPrice
            if let price, let away = (price - last).magnitude.times(100).divided(by: last, places: 4, rule: .halfUp),
                away > percent
            {
                out.append(
                    Question(
                        messageID: "o163",
                        text:
                            "The following order \"\(description)\" price exceeds the Percentage constraint of \(percent.formatted(minimumPlaces: 0))%.\nAre you sure you want to submit this order?"
                    ))
            }
        }
        if let limit = settings.sizeLimit, order.quantity > limit {
            out.append(sizeQuestion(description, limit))
        }
        if let limit = settings.valueLimit {
            let price = order.limitPrice ?? order.stopPrice ?? last
            let value = order.quantity.multiplied(by: order.instrument.multiplier).multiplied(
                by: price, places: 2, rule: .halfUp)
            if value > limit { out.append(valueQuestion(description, value, limit, order.currency)) }
        }
        if settings.immediateFillWarning, let stop = order.stopPrice {
            let crossed =
                order.side == .buy
                ? (quote.asks.best?.price ?? last) >= stop
                : (quote.bids.best?.price ?? last) <= stop
            if crossed {
                out.append(
                    Question(
                        messageID: "o403",
                        text:
                            "This order will most likely trigger and fill immediately.\nAre you sure you want to submit this order?"
                    ))
            }
        }
        if settings.marketOrderWarning, order.type == .market { out.append(marketQuestion) }
        if order.expressedInMoney { out += cashQuantityQuestions }
        return out.filter { !suppressed.contains($0.messageID) }
    }

    /// What IB asks of an order sized by an amount of money (`cashQty`, or a conversion's `fxQty`).
    static let cashQuantityQuestions = [
        Question(
            messageID: "o10164",
            text:
                "Traders are responsible for understanding cash quantity details, which are provided on a best efforts basis only."
        ),
        Question(
            messageID: "o10223",
            text:
                "<h4>Cash Quantity Order Confirmation</h4>Orders that express size using a monetary value (cash quantity) are provided on a non-guaranteed basis. The system simulates the order by cancelling it once the specified amount is spent (for buy orders) or collected (for sell orders). In addition to the monetary value, the order uses a maximum size that is calculated using the Cash Quantity Estimate Factor, which you can modify in Presets."
        ),
    ]

    static func sizeQuestion(_ description: String, _ limit: Quantity) -> Question {
        Question(
            messageID: "o383",
            text:
                "The following order \"\(description)\" size exceeds the Size Limit of \(limit.formatted(minimumPlaces: 0)).\nAre you sure you want to submit this order?"
        )
    }

    static func valueQuestion(_ description: String, _ value: FixedDecimal, _ limit: FixedDecimal, _ currency: String)
        -> Question
    {
        Question(
            messageID: "o451",
            text:
                "The following order \"\(description)\" value estimate of \(grouped(value, places: 2)) \(currency) exceeds the Total Value Limit of \(grouped(limit)) \(currency).\nAre you sure you want to submit this order?"
        )
    }

    static let marketQuestion = Question(
        messageID: "o10151",
        text:
            "A Market Order is an instruction to trade your order at any available price, which may be far from the last price shown. Are you sure you want to submit this order?"
    )

    /// 124995 → "124,995.00" with two places; without, whole numbers as "100,000".
    static func grouped(_ value: FixedDecimal, places: Int? = nil) -> String {
        let text =
            places.map { value.formatted(places: $0) }
            ?? (value.isInteger ? value.rounded(places: 0, rule: .halfUp).description : value.formatted(places: 2))
        let negative = text.hasPrefix("-")
        let digits = negative ? String(text.dropFirst()) : text
        let parts = digits.split(separator: ".", maxSplits: 1)
        var integer = String(parts[0])
        var groups: [String] = []
        while integer.count > 3 {
            groups.insert(String(integer.suffix(3)), at: 0)
            integer.removeLast(3)
        }
        groups.insert(integer, at: 0)
        let joined = groups.joined(separator: ",") + (parts.count > 1 ? "." + parts[1] : "")
        return (negative ? "-" : "") + joined
    }
}
