import Brokerage
import Logging
import MarketData
import ServiceLifecycle
import TradingCore

/// How one channel sends a delivery: a webhook POST (`WebhookSender`), a Web Push message (`PushSender`).
protocol DeliverySender: Sendable {
    var channel: Delivery.Channel { get }
    /// The waits (seconds) before the second, third… attempts of a delivery that may be retried; after the last
    /// of them fails too, the delivery fails for good.
    var retryDelays: [Int64] { get }
    /// Attempts one delivery now.
    func send(_ item: DueDelivery, at now: Timestamp) async -> DeliveryOutcome
    /// Called once a `.gone` outcome is recorded (the destination said it no longer exists).
    func gone(_ item: DueDelivery, httpStatus: Int) async throws
}

/// What one attempt came to.
enum DeliveryOutcome: Sendable {
    /// A 2xx answer.
    case delivered(Int)
    /// No answer, or one worth trying again (retried while `retryDelays` lasts).
    case retry(Int?, String)
    /// An answer that trying again would not change.
    case failed(Int?, String)
    /// The destination is gone (a push subscription the browser dropped): fails, and the sender is told.
    case gone(Int, String)
}

/// Sends what the outbox holds for one channel: polls for due deliveries until graceful shutdown, attempts them a
/// few at a time, and records each attempt (status, HTTP status, error, next attempt) — the one retry bookkeeping
/// every channel shares. Deliveries are rows written with their notifications, so a stop between attempts loses
/// nothing, and an attempt cut short by a stop is simply retried (receivers de-duplicate by the delivery id).
public struct DeliveryDispatcher: Service {
    let sender: any DeliverySender
    let outbox: DeliveryOutbox
    let clock: MarketClock
    let logger: Logger
    /// Attempts running at once.
    let concurrency = 8

    init(
        _ sender: any DeliverySender, outbox: DeliveryOutbox, clock: MarketClock, leads: @escaping @Sendable () -> Bool,
        logger: Logger
    ) {
        self.sender = sender
        self.outbox = outbox
        self.clock = clock
        self.leads = leads
        self.logger = logger
    }

    /// Whether this node delivers (on a cluster one node does: `Brokerage.leadsCluster`).
    let leads: @Sendable () -> Bool

    /// Attempts due deliveries until graceful shutdown (or cancellation), pausing half a second when none is due.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let attempted = leads() ? (try? await runOnce()) ?? 0 : 0
                if attempted == 0 { try? await Task.sleep(for: .milliseconds(500)) }
            }
        }
    }

    /// Attempts every due delivery once (up to `concurrency` at a time); returns how many were attempted.
    @discardableResult
    public func runOnce() async throws -> Int {
        let due = try await outbox.due(sender.channel, limit: 32)
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for item in due {
                if running == concurrency {
                    await group.next()
                    running -= 1
                }
                group.addTask { await attempt(item) }
                running += 1
            }
        }
        return due.count
    }

    func attempt(_ item: DueDelivery) async {
        let delivery = item.delivery
        let now = clock.now()
        let outcome = await sender.send(item, at: now)
        let attempts = delivery.attempts + 1
        var status = Delivery.Status.failed
        var delay: Int64 = 0
        let httpStatus: Int?
        var failure: String?
        switch outcome {
        case .delivered(let code):
            status = .delivered
            httpStatus = code
        case .retry(let code, let why):
            httpStatus = code
            failure = why
            if attempts <= sender.retryDelays.count {
                status = .pending
                delay = sender.retryDelays[attempts - 1]
            }
        case .failed(let code, let why):
            httpStatus = code
            failure = why
        case .gone(let code, let why):
            httpStatus = code
            failure = why
        }
        if let failure {
            logger.info("\(sender.channel.rawValue) delivery \(delivery.id) attempt \(attempts): \(failure)")
        }
        do {
            try await outbox.recordAttempt(
                id: delivery.id, status: status, attempts: attempts, nextAttempt: now.adding(seconds: delay),
                httpStatus: httpStatus, error: failure)
            if case .gone(let code, _) = outcome { try await sender.gone(item, httpStatus: code) }
        } catch {
            logger.error("could not record \(sender.channel.rawValue) attempt \(delivery.id): \(error)")
        }
    }
}
