import MarketData
import ServiceLifecycle
import TradingCore

/// Feeds the market into the engine every `interval` of market time: quotes of every instrument with working
/// orders or queued rules, the day's auctions, day-order expiry. A service of the application: it starts with
/// the server (and with tests that run the application) and stops at graceful shutdown, finishing the pump it
/// is in. On a manual clock it pumps when the clock is moved past the next tick.
public struct MarketPump: Service {
    let brokerage: Brokerage
    let interval: Int64

    public init(brokerage: Brokerage, interval: Int64 = Duration64.second) {
        self.brokerage = brokerage
        self.interval = interval
    }

    public func run() async throws {
        let clock = brokerage.clock
        await cancelWhenGracefulShutdown {
            var next = clock.now()
            while !Task.isCancelled {
                try? await brokerage.pumpMarket()
                // A clock that jumped ahead (a manual clock set forward, a suspended VM) gets one pump, not one
                // per missed tick.
                next = Swift.max(next.adding(nanoseconds: interval), clock.now())
                await clock.sleep(until: next)
            }
        }
    }
}

/// At graceful shutdown, waits until every engine step already acknowledged or queued is durable, so the
/// process can close the database with nothing in flight. Listed first among the application's services, it
/// stops last: after the HTTP server has answered its last request and the other services have stopped.
public struct JournalFlush: Service {
    let brokerage: Brokerage

    public init(brokerage: Brokerage) { self.brokerage = brokerage }

    public func run() async throws {
        try? await gracefulShutdown()
        await brokerage.flush()
    }
}
