import BrokerageModel
import MarketData
import TradingCore

/// Moving money between two accounts of one user, converted at the live rate when their currencies differ (a US
/// account's dollars and an A-share account's yuan convert at USD.CNH). The front prices the transfer, has the
/// source's shard debit it (the transfer's record commits with the debit, pending) and the destination's shard credit
/// it (the record completed and one credit row commit with the credit). When the destination is served by another
/// node, or the credit fails, the transfer stays pending and the destination's owner credits it on its next pass
/// (`creditPending`): a node killed between the two steps loses and doubles nothing.
public struct Transfers: Sendable {
    let router: ShardRouter
    let market: SharedMarket
    let accounts: any AccountRepository
    let storage: any TransferRepository
    let clock: MarketClock
    let displayName: @Sendable (AccountRecord) -> String

    /// What a transfer would debit and credit now, at what rate: what the app shows before the user confirms.
    public func quote(user: UserID, from: AccountID, to: AccountID, amount: FixedDecimal, currency: Currency?)
        async throws(BrokerageError) -> TransferQuote
    {
        guard from != to else { throw .invalid("from_account and to_account must be two different accounts") }
        let source = try await ownAccount(from, user: user)
        let destination = try await ownAccount(to, user: user)
        for record in [source, destination] where record.snapshot.account.gameRules != nil {
            throw .rejected(
                OrderRejection(
                    .gameRule,
                    "\(displayName(record)) plays in a game: money cannot move in or out of it (every player starts with the same cash)",
                    facts: .init("game.transfer", [:])))
        }
        let (fromCurrency, toCurrency) = (source.market.currency, destination.market.currency)
        let named = currency ?? fromCurrency
        guard named == fromCurrency || named == toCurrency else {
            throw .invalid(
                "currency must be \(fromCurrency.rawValue) or \(toCurrency.rawValue), the currency of one of the two accounts"
            )
        }
        guard amount.isPositive, amount.isMultiple(of: named.minorUnit), amount <= TradingEngine.maximumBalance else {
            throw .invalid(
                "amount must be a positive amount of \(named.rawValue) in whole \(named.minorUnitDigits == 0 ? "units" : "cents") (at most \(TradingEngine.maximumBalance))"
            )
        }
        var quote = TransferQuote(
            fromAccount: source, toAccount: destination, fromAmount: amount, fromCurrency: fromCurrency,
            toAmount: amount, toCurrency: toCurrency, pricing: .none, time: clock.now())
        if fromCurrency != toCurrency {
            let conversion = try await convert(amount, named: named, from: fromCurrency, to: toCurrency)
            quote.fromAmount = conversion.fromAmount
            quote.toAmount = conversion.toAmount
            quote.pricing = conversion.pricing
        }
        guard destination.snapshot.account.cash + quote.toAmount <= TradingEngine.maximumBalance else {
            throw .invalid("this transfer would take \(displayName(destination))'s cash above the maximum balance")
        }
        return quote
    }

    /// Moves the money: the debit is durable before this returns; the credit too (status `completed`) unless the
    /// destination's shard is served elsewhere or its commit failed (status `pending`: its owner credits it within a
    /// pass). A `clientTransferID` makes a retry safe: the transfer made under it before is answered as it stands
    /// (`made` false), never made twice; the same id for a different transfer is a conflict.
    public func transfer(
        user: UserID, from: AccountID, to: AccountID, amount: FixedDecimal, currency: Currency?,
        clientTransferID: String? = nil
    ) async throws(BrokerageError) -> (record: TransferRecord, made: Bool) {
        if let client = clientTransferID {
            guard (1...64).contains(client.count),
                client.allSatisfy({ !$0.isNewline && $0.asciiValue.map { $0 >= 32 } ?? true })
            else { throw .invalid("client_transfer_id must be 1 to 64 characters") }
            let made: TransferRecord?
            do { made = try await storage.transfer(clientTransferID: client, from: from) } catch {
                throw .storage(error)
            }
            if let made {
                guard made.userID == user else { throw .notFound("account \(from) not found") }
                return (try Self.replayed(made, to: to, amount: amount, currency: currency), false)
            }
        }
        let quote = try await quote(user: user, from: from, to: to, amount: amount, currency: currency)
        let source = try await router.route(from)
        var generator = SystemRandomNumberGenerator()
        let record = TransferRecord(
            id: TransferID(Identifier.random(using: &generator)), userID: user, clientTransferID: clientTransferID,
            from: TransferSide(
                account: from, name: displayName(quote.fromAccount), amount: quote.fromAmount,
                currency: quote.fromCurrency),
            to: TransferSide(
                account: to, name: displayName(quote.toAccount), amount: quote.toAmount, currency: quote.toCurrency),
            toShard: quote.toAccount.shard.index, pricing: quote.pricing, status: .pending, createdAt: quote.time)
        let debited = try await source.debitTransfer(record)
        guard debited.made else {
            return (try Self.replayed(debited.record, to: to, amount: amount, currency: currency), false)
        }
        do {
            let destination = try await router.route(to)
            _ = try await destination.creditTransfer(record)
        } catch {
            // Pending: the destination's owner credits it on its next pass.
            return (record, true)
        }
        return ((try? await storage.transfer(record.id)) ?? record, true)
    }

    /// A transfer made before under the client's id, if it is the one asked for again; a conflict otherwise.
    static func replayed(_ made: TransferRecord, to: AccountID, amount: FixedDecimal, currency: Currency?)
        throws(BrokerageError) -> TransferRecord
    {
        let named = currency ?? made.from.currency
        let same =
            made.to.account == to
            && (named == made.from.currency && made.from.amount == amount
                || named == made.to.currency && made.to.amount == amount && named != made.from.currency)
        guard same else {
            throw .conflict(
                "client_transfer_id \(made.clientTransferID ?? "") names another transfer (\(made.from.amount) \(made.from.currency.rawValue) to account \(made.to.account))"
            )
        }
        return made
    }

    /// A user's transfers, newest first.
    public func list(user: UserID, limit: Int) async throws(BrokerageError) -> [TransferRecord] {
        do { return try await storage.transfers(user: user, limit: limit) } catch { throw .storage(error) }
    }

    /// One of the user's transfers.
    public func transfer(_ id: TransferID, user: UserID) async throws(BrokerageError) -> TransferRecord {
        let found: TransferRecord?
        do { found = try await storage.transfer(id) } catch { throw .storage(error) }
        guard let found, found.userID == user else { throw .notFound("transfer not found") }
        return found
    }

    /// Credits every pending transfer whose destination this process serves; returns how many it credited. Runs
    /// at start and on every settlement pass (`TransferSettlementService`), so a transfer debited by a node that died
    /// before crediting it, or whose destination another node serves, is credited by the destination's owner.
    @discardableResult
    public func creditPending() async -> Int {
        let served = Array(router.servedShards().keys)
        guard let pending = try? await storage.pendingTransfers(shards: served) else { return 0 }
        var credited = 0
        for record in pending {
            guard let shard = try? await router.route(record.to.account),
                (try? await shard.creditTransfer(record)) == true
            else { continue }
            credited += 1
        }
        return credited
    }

    /// The stored record of one of the user's accounts (from storage: another node may serve it).
    func ownAccount(_ id: AccountID, user: UserID) async throws(BrokerageError) -> AccountRecord {
        let stored: AccountRecord?
        do { stored = try await accounts.account(id) } catch { throw .storage(error) }
        guard let stored, stored.userID == user else { throw .notFound("account \(id) not found") }
        return stored
    }

    /// Prices a conversion on the currency pair that joins the two currencies, at its live bid or ask.
    func convert(_ amount: FixedDecimal, named: Currency, from: Currency, to: Currency)
        async throws(BrokerageError) -> (fromAmount: FixedDecimal, toAmount: FixedDecimal, pricing: TransferPricing)
    {
        let (f, t) = (CurrencyConversion.pairCurrency(from), CurrencyConversion.pairCurrency(to))
        guard let entry = market.directory.currencyPair(f, t), let pair = entry.instrument.currencyPair else {
            throw .invalid("no currency pair converts \(from.rawValue) to \(to.rawValue)")
        }
        let quote: MarketQuote
        do { quote = try await market.quote(entry.symbol, reuse: false) } catch { throw .feed(error) }
        guard quote.phase == .continuous else {
            throw .rejected(
                OrderRejection(
                    .marketClosed,
                    "currencies convert while the forex market is open, Sunday 17:00 to Friday 17:00 New York time; \(entry.symbol) is closed now (transfers between accounts of one currency are open at all times)",
                    facts: .init("market_closed.forex", ["symbol": entry.symbol])))
        }
        guard let bid = quote.bids.best?.price, let ask = quote.asks.best?.price else {
            throw .unavailable("\(entry.symbol) has no bid and ask to convert at; try again in a moment")
        }
        // The base currency's worth in dollars, for IDEALPRO's minimum.
        let usdPerBase: FixedDecimal =
            pair.base == .usd || pair.quote != .usd ? .one : (bid + ask).divided(by: FixedDecimal(2)) ?? bid
        guard
            let conversion = CurrencyConversion.convert(
                named == from ? .debit(amount) : .credit(amount), from: from, to: to, pair: pair, bid: bid, ask: ask,
                tick: entry.instrument.tick.tick(at: bid), usdPerBase: usdPerBase)
        else {
            throw .invalid(
                "\(amount) \(named.rawValue) is too small to convert at \(entry.symbol) \(bid)/\(ask): it converts to nothing"
            )
        }
        return (
            conversion.fromAmount, conversion.toAmount,
            TransferPricing(
                rate: conversion.rate, midRate: conversion.midRate, pair: entry.symbol, pairPrice: conversion.pairPrice,
                spreadCost: conversion.spreadCost, fee: .zero, oddLot: conversion.oddLot)
        )
    }
}

/// What a transfer would move now (`Transfers.quote`).
public struct TransferQuote: Sendable {
    public var fromAccount: AccountRecord
    public var toAccount: AccountRecord
    public var fromAmount: FixedDecimal
    public var fromCurrency: Currency
    public var toAmount: FixedDecimal
    public var toCurrency: Currency
    public var pricing: TransferPricing
    public var time: Timestamp
}

extension Brokerage {
    /// Transfers between a user's accounts (`Transfers`).
    public var transfers: Transfers {
        Transfers(
            router: router, market: market, accounts: repositories.accounts, storage: repositories.transfers,
            clock: clock, displayName: { [self] record in self.displayName(of: record) })
    }
}
