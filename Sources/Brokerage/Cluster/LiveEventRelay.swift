import BrokerageModel
import Logging
import TradingCore

/// On a cluster node: publishes to this node's streams the order updates and notifications that other nodes commit,
/// so a client's `trade_updates`, app socket and event stream carry every event of its accounts whichever node it
/// is connected to — and keep doing so when a shard changes owner, because the events come from the commits
/// themselves (`LiveEventRepository`), not from the node that made them.
///
/// The node's own events reach its streams straight from its journal writer; here only other nodes' are
/// published. It polls: every `listening` interval while anyone listens on this node (the delay an event from another
/// node may take), every `idle` interval otherwise, reading only where each shard's events stand to keep its place. (Signalling each commit with
/// NOTIFY instead serialized every node's commits in PostgreSQL: see `Storage+LiveEvents.swift`.)
struct LiveEventRelay: Sendable {
    let node: String
    let brokerage: Brokerage
    let logger: Logger
    var listening: Duration = .milliseconds(50)
    var idle: Duration = .seconds(1)
    /// How long events are kept (the node serving shard 0 deletes older ones every `pruneEvery`).
    var retention: Int64 = 10 * 60 * Duration64.second
    var pruneEvery: Duration = .seconds(60)
    static let batch = 1_000

    var repository: any LiveEventRepository { brokerage.repositories.liveEvents }

    func run() async {
        var marks: [ShardID: Int64]
        while true {
            do {
                marks = try await repository.liveEventMarks()
                break
            } catch {
                logger.warning("live events: cannot read where they stand: \(error)")
                try? await Task.sleep(for: idle)
                if Task.isCancelled { return }
            }
        }
        var lastPrune = ContinuousClock.now
        var lastRead = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: listening)
            // Idle: a read a second keeps the marks current, so the first listener misses nothing after it arrives.
            guard brokerage.streams.hasSubscribers || ContinuousClock.now - lastRead >= idle else { continue }
            lastRead = .now
            if brokerage.streams.hasSubscribers {
                await read(&marks)
            } else {
                await skip(&marks)
            }
            if ContinuousClock.now - lastPrune > pruneEvery {
                lastPrune = .now
                await prune()
            }
        }
    }

    /// Reads every event after `marks` and publishes other nodes' (when anyone here listens).
    func read(_ marks: inout [ShardID: Int64]) async {
        do {
            while !Task.isCancelled {
                let payloads = brokerage.streams.hasSubscribers
                let events = try await repository.liveEvents(
                    after: marks, node: node, payloads: payloads, limit: Self.batch)
                for event in events {
                    marks[event.shard] = max(marks[event.shard] ?? 0, event.id)
                    guard event.node != node else { continue }
                    switch event.payload {
                    case .order(let update):
                        brokerage.streams.publish(update)
                        brokerage.metrics.relayedEvents.increment()
                    case .notification(let notification):
                        brokerage.streams.publish(notification)
                        brokerage.metrics.relayedEvents.increment()
                    case nil: break
                    }
                }
                if events.count < Self.batch { return }
            }
        } catch {
            logger.warning("live events: read failed: \(error)")
        }
    }

    /// Moves the marks to each shard's newest event without reading the events (no one here listens: one index
    /// probe per shard, where reading them took a read per thousand events).
    func skip(_ marks: inout [ShardID: Int64]) async {
        do {
            marks.merge(try await repository.liveEventMarks()) { Swift.max($0, $1) }
        } catch {
            logger.warning("live events: cannot read where they stand: \(error)")
        }
    }

    /// Deletes old events, on the node serving shard 0 (once per cluster).
    func prune() async {
        guard brokerage.router.servedShards()[ShardID(0)] != nil else { return }
        do {
            try await repository.pruneLiveEvents(olderThan: retention)
        } catch {
            logger.warning("live events: could not delete old ones: \(error)")
        }
    }
}
