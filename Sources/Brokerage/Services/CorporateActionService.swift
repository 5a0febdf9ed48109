import ServiceLifecycle
import TradingCore

/// Applies corporate actions as their ex-dates come (`Brokerage.applyCorporateActions`): at start (catching up on
/// any missed while the server was down), then every `interval`. Each account is looked at once per trading day;
/// the rest of the time a run only compares dates.
public struct CorporateActionService: Service {
    let brokerage: Brokerage
    let interval: Int64

    public init(brokerage: Brokerage, interval: Int64 = Duration64.minute) {
        self.brokerage = brokerage
        self.interval = interval
    }

    public func run() async throws {
        let clock = brokerage.clock
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await brokerage.applyCorporateActions()
                await clock.sleep(until: clock.now().adding(nanoseconds: interval))
            }
        }
    }
}
