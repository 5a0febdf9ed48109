import Foundation
import NIOCore
import Synchronization

/// What the clients saw, counted under one lock (a few hundred thousand messages a second take it uncontended
/// most of the time): latencies in a histogram of 0.1 ms steps, messages per client in the window, clients dropped.
final class Stats: Sendable {
    struct State {
        var measuring = false
        var closing = false
        /// Latency histogram: bucket k holds [k, k+1) × 0.1 ms; the last everything from 10 s.
        var buckets = [Int](repeating: 0, count: 100_001)
        var messages = 0
        var perClient: [Int]
        var dropped = 0
        var errors: [String: Int] = [:]
        var channels: [Channel] = []
        var worst = 0.0
    }
    let state: Mutex<State>

    init(clients: Int) { state = Mutex(State(perClient: [Int](repeating: 0, count: clients))) }

    func opened(_ channel: Channel) { state.withLock { $0.channels.append(channel) } }

    func measuring(_ on: Bool) { state.withLock { $0.measuring = on } }

    /// Quotes and trades client `id` received in one frame, each `latencies` nanoseconds after the server's stamp.
    func received(client id: Int, latencies: [Int64]) {
        guard !latencies.isEmpty else { return }
        state.withLock { s in
            guard s.measuring else { return }
            for latency in latencies {
                let bucket = min(max(Int(latency / 100_000), 0), s.buckets.count - 1)
                s.buckets[bucket] += 1
                s.worst = max(s.worst, Double(latency) / 1e6)
            }
            s.messages += latencies.count
            s.perClient[id] += latencies.count
        }
    }

    /// A connection that ended before the benchmark did, or an error the server sent (`reason`).
    func dropped(client id: Int, _ reason: String) {
        state.withLock { s in
            guard !s.closing else { return }
            s.dropped += 1
            s.errors[reason, default: 0] += 1
        }
    }

    func error(_ reason: String) { state.withLock { $0.errors[reason, default: 0] += 1 } }

    func closing() {
        let channels = state.withLock { s in
            s.closing = true
            return s.channels
        }
        for channel in channels { channel.close(promise: nil) }
    }

    struct Report {
        var p50: String
        var p99: String
        var dropped: Int
        var details: String
    }

    func report(seconds: Double) -> Report {
        state.withLock { s in
            func percentile(_ p: Double) -> Double {
                let target = Int((Double(s.messages) * p).rounded(.up))
                var seen = 0
                for (k, n) in s.buckets.enumerated() {
                    seen += n
                    if seen >= max(target, 1) { return Double(k + 1) / 10 }
                }
                return .nan
            }
            let silent = s.perClient.filter { $0 == 0 }.count
            let sorted = s.perClient.sorted()
            let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
            var lines = [
                String(
                    format: "fanout: %d quotes and trades in %.1f s (%.0f/s), p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, "
                        + "p99.9 %.1f ms, worst %.1f ms",
                    s.messages, seconds, Double(s.messages) / seconds, percentile(0.5), percentile(0.9),
                    percentile(0.99), percentile(0.999), s.worst),
                "fanout: per client in the window: median \(median) messages, \(silent) clients received none",
            ]
            if !s.errors.isEmpty {
                lines.append(
                    "fanout: errors: "
                        + s.errors.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(
                            separator: ", "))
            }
            return Report(
                p50: String(format: "%.1f", percentile(0.5)), p99: String(format: "%.1f", percentile(0.99)),
                dropped: s.dropped, details: lines.joined(separator: "\n"))
        }
    }
}

/// The server's resident memory (peak of the samples) and CPU time, read from /proc.
final class Sampler {
    let pid: Int32?
    var peakMB: Double?
    let cpuAtStart: Double?

    init(pid: Int32?) {
        self.pid = pid
        cpuAtStart = pid.flatMap(Self.cpuSeconds)
        sample()
    }

    func sample() {
        guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").compactMap({ Double($0) }).first
        else { return }
        peakMB = max(peakMB ?? 0, kilobytes / 1024)
    }

    /// The share of one core the server used since this sampler began, over `seconds`.
    func cpuSeconds(over seconds: Double) -> Double? {
        guard let pid, let start = cpuAtStart, let now = Self.cpuSeconds(pid) else { return nil }
        return (now - start) / seconds
    }

    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command's closing parenthesis: state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
