import MarketData
import ServiceLifecycle

/// Gives back the memory of simulated days nobody reads any more: every `interval` (two minutes of wall time — this
/// is about the process's memory, not the market's clock) it drops the days not read since its last pass
/// (`SimulatedMarket.shedIdleDays`). A market-data client that followed a thousand symbols and left takes its days
/// with it within two passes; a symbol someone follows is read every second and stays.
public struct MarketMemoryService: Service {
    let market: SimulatedMarket
    let interval: Duration

    public init(market: SimulatedMarket, interval: Duration = .seconds(120)) {
        self.market = market
        self.interval = interval
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                let market = market
                await ComputeLane.run { market.shedIdleDays() }
            }
        }
    }
}
