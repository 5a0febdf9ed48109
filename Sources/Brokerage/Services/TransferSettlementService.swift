import ServiceLifecycle

/// Credits the transfers still pending whose destination this process serves (`Transfers.creditPending`): at start —
/// a transfer debited just before a crash is credited as the server comes back — and every `interval` of wall time
/// after, so on a cluster a transfer debited on one node is credited by the node that serves its destination, and
/// one whose node died between debit and credit by the shard's next owner. A pass with nothing pending is one
/// indexed query.
public struct TransferSettlementService: Service {
    let brokerage: Brokerage
    let interval: Duration

    public init(brokerage: Brokerage, interval: Duration = .milliseconds(500)) {
        self.brokerage = brokerage
        self.interval = interval
    }

    public func run() async throws {
        let transfers = brokerage.transfers
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await transfers.creditPending()
                try? await Task.sleep(for: interval)
            }
        }
    }
}
