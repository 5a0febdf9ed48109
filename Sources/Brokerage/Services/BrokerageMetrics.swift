import Metrics
import TradingCore

/// What the brokerage counts (exported at /metrics once the process installs a metrics backend; see the server's
/// `PrometheusExport`). Made with the brokerage, so a backend installed before it is the one they report to.
struct BrokerageMetrics: Sendable {
    let placed = Counter(label: "papertrade_orders_placed_total")
    let filled = Counter(label: "papertrade_orders_filled_total")
    let rulesEvaluated = Counter(label: "papertrade_queue_rules_evaluated_total")
    let rulesFired = Counter(label: "papertrade_queue_rules_fired_total")
    let alertsEvaluated = Counter(label: "papertrade_alerts_evaluated_total")
    let alertsTriggered = Counter(label: "papertrade_alerts_triggered_total")
    /// Cluster: shards this node serves, shards it took over, journal commits refused by the lease fence.
    let shardsOwned = Gauge(label: "papertrade_cluster_shards_owned")
    let takeovers = Counter(label: "papertrade_cluster_takeovers_total")
    let fencedCommits = Counter(label: "papertrade_cluster_fenced_commits_total")
    /// Shards that went stale: a write failed and storage could not be read to reload (the database was down).
    let staleShards = Counter(label: "papertrade_shards_stale_total")
    /// Cluster: other nodes' order updates and notifications published to this node's streams.
    let relayedEvents = Counter(label: "papertrade_cluster_live_events_relayed_total")

    /// A refused order, by reason (a handful of values: the label stays small).
    func rejected(_ reason: OrderRejection.Reason) {
        Counter(label: "papertrade_orders_rejected_total", dimensions: [("reason", reason.rawValue)]).increment()
    }
}
