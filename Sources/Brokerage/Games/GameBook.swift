import Synchronization
import TradingCore

/// Every game and player in memory, written through to storage by the game calls (Games/GameRegistry.swift).
/// Behind a lock: reads take a snapshot (copy-on-write dictionaries, so a copy costs nothing until a write).
final class GameBook: Sendable {
    private let state = Mutex<(games: [GameID: GameRecord], players: [AccountID: GamePlayerRecord])>(([:], [:]))

    var games: [GameID: GameRecord] { state.withLock { $0.games } }
    var players: [AccountID: GamePlayerRecord] { state.withLock { $0.players } }

    func replace(games: [GameRecord], players: [GamePlayerRecord]) {
        let games = Dictionary(games.map { ($0.id, $0) }) { _, last in last }
        let players = Dictionary(players.map { ($0.accountID, $0) }) { _, last in last }
        state.withLock { $0 = (games, players) }
    }

    func set(_ game: GameRecord) { state.withLock { $0.games[game.id] = game } }
    func set(_ player: GamePlayerRecord) { state.withLock { $0.players[player.accountID] = player } }
}
