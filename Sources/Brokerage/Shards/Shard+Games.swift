import BrokerageModel
import TradingCore

// What games do to the game accounts a shard holds (the games themselves: Games/GameRegistry.swift).
extension Shard {
    /// Opens a player's game account (the game's starting cash, fees, margin terms and rules) and records the player,
    /// in one transaction.
    /// `teamAccountName`: a class team's account, under this name (default: a player's own, "game account: <game>" in the
    /// owner's language).
    func openGameAccount(
        _ accountID: AccountID, game: GameRecord, user: UserID, playerName: String, terms: MarginTerms,
        teamAccountName: String? = nil, teamMembers: [UserID] = [], at now: Timestamp
    ) async throws(BrokerageError) -> GamePlayerRecord {
        let s = game.settings
        do {
            try engine.openAccount(
                accountID, market: game.market, startingCash: s.startingCash,
                fees: GameRules.commissionSchedule(flat: s.commissionPerTrade, percent: s.commissionPercent),
                terms: terms, gameRules: s.rules)
        } catch {
            throw .rejected(error)
        }
        guard let snapshot = engine.snapshot(of: accountID) else { throw .invalid("account could not be opened") }
        let record = AccountRecord(
            id: accountID, userID: user,
            name: teamAccountName ?? Catalogue(languages.language(of: user))("game.account", ["game": game.name]),
            market: game.market,
            accountNumber: "PA" + String(accountID.high % 10_000_000_000).leftPadded(10), createdAt: now,
            snapshot: snapshot, shard: id)
        let player = GamePlayerRecord(
            gameID: game.id, accountID: accountID, userID: user, name: playerName, joinedAt: now,
            team: teamAccountName != nil)
        do {
            try await storage.games.joinGame(player, account: record)
        } catch {
            try? await reload()
            throw .storage(error)
        }
        records[accountID] = record
        if !teamMembers.isEmpty { teams[accountID] = teamMembers }
        return player
    }

    /// Moves a game account's start and end (its game's dates changed), durably.
    func setGameDates(_ account: AccountID, startsAt: Timestamp?, endsAt: Timestamp?) async throws(BrokerageError) {
        guard var rules = engine.account(account)?.gameRules else { return }
        rules.startsAt = startsAt
        rules.endsAt = endsAt
        do { try engine.setGameRules(rules, for: account) } catch { throw .rejected(error) }
        pending.accounts.insert(account)
        try await commit()
    }

    /// A player removed from their game: their open orders are canceled and the account stops trading.
    func removeFromGame(_ account: AccountID) async throws(BrokerageError) {
        if var rules = engine.account(account)?.gameRules {
            rules.removed = true
            do { try engine.setGameRules(rules, for: account) } catch { throw .rejected(error) }
            pending.accounts.insert(account)
        }
        _ = try? engine.cancelAll(account: account, at: clock.now())
        try await commit()
    }

    /// A removed player brought back (a class team disbanded: its members trade their own accounts again): the
    /// account takes orders again under its game's rules.
    func restoreToGame(_ account: AccountID) async throws(BrokerageError) {
        guard var rules = engine.account(account)?.gameRules, rules.removed else { return }
        rules.removed = false
        do { try engine.setGameRules(rules, for: account) } catch { throw .rejected(error) }
        pending.accounts.insert(account)
        try await commit()
    }

    /// The game ended at `end`: the account's open orders are canceled, it takes no more orders, and it is marked
    /// closed (`GameRules.closedAt`) in the same step.
    /// `noticeSent`: the player was already told where they finished (a game made final before accounts were
    /// marked closed).
    func endGame(for account: AccountID, at end: Timestamp, noticeSent: Bool = false) async throws(BrokerageError) {
        if var rules = engine.account(account)?.gameRules,
            rules.closedAt == nil || rules.endsAt.map({ $0 > end }) ?? true
        {
            if rules.endsAt.map({ $0 > end }) ?? true { rules.endsAt = end }
            rules.closedAt = rules.closedAt ?? end
            if noticeSent { rules.finalNoticeSent = true }
            do { try engine.setGameRules(rules, for: account) } catch { throw .rejected(error) }
            pending.accounts.insert(account)
        }
        _ = try? engine.cancelAll(account: account, at: clock.now())
        try await commit()
    }

    /// Tells a player where they finished, once: the notification and the account's mark that it was sent are
    /// journaled in one step.
    func sendFinalNotice(
        _ words: @Sendable (Catalogue) -> (title: String, body: String), to account: AccountID, at now: Timestamp
    ) async throws(BrokerageError) {
        guard var rules = engine.account(account)?.gameRules, rules.finalNoticeSent != true else { return }
        rules.finalNoticeSent = true
        do { try engine.setGameRules(rules, for: account) } catch { throw .rejected(error) }
        pending.accounts.insert(account)
        notify(account, kind: "game_ended", at: now, words)
        try await commit()
    }

    /// A game account's rules as they stand (nil: not a game account here).
    func gameRules(of account: AccountID) -> GameRules? { engine.account(account)?.gameRules }

    /// The last trade this shard's engine saw for a symbol (a mark when the feed cannot answer).
    func mark(_ symbol: String) -> Price? {
        engine.instrumentID(for: symbol).flatMap { engine.mark($0) }
    }
}

extension Shard {
    /// A disbanded team's account is its owner's alone again: its news goes to the owner only.
    func forgetTeam(_ account: AccountID) { teams[account] = nil }

    /// The shard's teams as storage has them (on a cluster a team is formed and disbanded on any node: each node's
    /// pass brings the shards it serves in line, `ClusterNode.pass`). Only the accounts this shard holds are kept.
    func replaceTeams(_ members: [AccountID: [UserID]]) {
        let held = members.filter { records[$0.key] != nil }
        if held != teams { teams = held }
    }
}
