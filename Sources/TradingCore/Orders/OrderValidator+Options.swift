/// Alpaca's rules for an order on an option contract, checked before the stock rules that still apply to it (ticks,
/// buying power, contracts held): whole contracts, no notional, market, limit, stop or stop-limit orders good for the
/// day or until canceled, regular hours only, simple orders, a `position_intent` that matches the position, and the
/// account's options trading level.
///
/// Where Alpaca's sources disagree (options.md §1.2), the newest documentation is followed: stop and stop-limit orders
/// and `gtc` are accepted.
extension OrderValidator {
    func validateOption(_ r: OrderRequest, contract: OptionContract) throws(OrderRejection) {
        let symbol = instrument.symbol
        if r.notional != nil {
            throw OrderRejection(
                .invalidInput, "notional orders are not available for options: give qty in whole contracts",
                facts: .init("option.notional", ["symbol": symbol]))
        }
        if let qty = r.qty, !qty.isInteger {
            throw OrderRejection(
                .lotSize, "qty \(qty) must be a whole number of contracts for \(symbol)",
                facts: .init("option.whole_contracts", ["qty": qty.description, "symbol": symbol]))
        }
        if r.type == .trailingStop {
            throw OrderRejection(
                .invalidInput,
                "trailing_stop orders are not available for options: use market, limit, stop or stop_limit",
                facts: .init("option.order_type", ["type": r.type.rawValue]))
        }
        guard r.timeInForce == .day || r.timeInForce == .gtc else {
            throw OrderRejection(
                .invalidInput, "options orders must have time_in_force day or gtc, not \(r.timeInForce.rawValue)",
                facts: .init("option.time_in_force", ["tif": r.timeInForce.rawValue]))
        }
        if r.extendedHours {
            throw OrderRejection(
                .invalidInput, "options trade in regular hours only: extended_hours must be false",
                facts: .init("option.extended_hours", [:]))
        }
        guard r.orderClass == .simple else {
            throw OrderRejection(
                .invalidInput,
                "\(r.orderClass.rawValue) orders are not available for options: place simple orders",
                facts: .init("option.order_class", ["class": r.orderClass.rawValue]))
        }
        if contract.expiration < market.tradingDate {
            throw OrderRejection(
                .invalidInput, "\(symbol) expired on \(contract.expiration) and no longer trades",
                facts: .init("option.expired", ["symbol": symbol, "date": contract.expiration.description]))
        }
        if let stated = r.positionIntent, stated != intent {
            let held = account.positions[instrumentID]?.qty ?? .zero
            throw OrderRejection(
                .invalidInput,
                "position_intent \(stated.rawValue) does not match the position: you hold \(held) contracts of \(symbol), so this \(r.side.rawValue) is \(intent.rawValue)",
                facts: .init(
                    "option.intent_mismatch",
                    [
                        "stated": stated.rawValue, "intent": intent.rawValue, "held": held.description,
                        "symbol": symbol,
                    ]))
        }
        let level = account.optionsTradingLevel
        switch intent {
        case .buyToOpen where level < .longOptions:
            throw OrderRejection(
                .optionsLevel,
                "buying options needs options trading level 2; this account's level is \(level.rawValue)",
                facts: .init("option.level", ["needed": "2", "level": String(level.rawValue)]))
        case .sellToOpen where level < .coveredWriting:
            throw OrderRejection(
                .optionsLevel,
                "writing covered calls and cash-secured puts needs options trading level 1; this account's level is \(level.rawValue) (you hold no \(symbol) contracts to sell)",
                facts: .init("option.level.write", ["needed": "1", "level": String(level.rawValue)]))
        default:
            break
        }
    }
}
