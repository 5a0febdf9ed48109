import ServiceLifecycle
import TradingCore

/// Ends games on time: it sleeps until the earliest end of a running game (looking again at least once a minute,
/// for games created or moved meanwhile) and freezes the standings of every game whose end has passed
/// (`GameRegistry.endDue`). At start it ends the games whose end passed while the server was down.
public struct GameService: Service {
    let brokerage: Brokerage
    let interval: Int64

    public init(brokerage: Brokerage, interval: Int64 = Duration64.minute) {
        self.brokerage = brokerage
        self.interval = interval
    }

    public func run() async throws {
        let clock = brokerage.clock
        let games = brokerage.games
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if brokerage.leadsCluster { await games.endDue() }
                let now = clock.now()
                let next = games.nextEnd() ?? now.adding(nanoseconds: interval)
                await clock.sleep(until: min(next, now.adding(nanoseconds: interval)))
            }
        }
    }
}
