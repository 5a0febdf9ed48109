import Foundation
import NIOCore
import NIOPosix
import TradingCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The quote fan-out benchmark's load client (`bash benchmarks/fanout/run.sh N`): opens N WebSocket connections to a
// running papertrade — half to Alpaca's market-data stream (/v2/iex, MessagePack, five connections per API key as the
// server allows), half to the web app's socket (/api/v1/ws, a session cookie) —, subscribes each to a watchlist as
// people and bots keep them, and measures every quote and trade's delivery latency from the server's stamp (the
// message's `t` or `time`: the instant the server read the quote) to its arrival here. Prints the figures and a last
// line `fanout: N clients, p50 X ms, p99 Y ms, dropped Z, server RSS W MB`.
//
//     FanoutBench --url http://127.0.0.1:8080 --clients 10000 [--seconds 30] [--server-pid PID] [--app-share 0.5]

struct Options {
    var url = URL(string: "http://127.0.0.1:8080")!
    var clients = 1_000
    var seconds = 30
    var serverPID: Int32?
    var appShare = 0.5

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var i = 1
        func value() -> String {
            i += 1
            guard i < arguments.count else {
                FileHandle.standardError.write(Data("missing value after \(arguments[i - 1])\n".utf8))
                exit(2)
            }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--url": options.url = URL(string: value()) ?? options.url
            case "--clients": options.clients = Int(value()) ?? options.clients
            case "--seconds": options.seconds = Int(value()) ?? options.seconds
            case "--server-pid": options.serverPID = Int32(value())
            case "--app-share": options.appShare = Double(value()) ?? options.appShare
            default:
                FileHandle.standardError.write(Data("unknown option \(arguments[i])\n".utf8))
                exit(2)
            }
            i += 1
        }
        return options
    }
}

let options = Options.parse(CommandLine.arguments)
let host = options.url.host ?? "127.0.0.1"
let port = options.url.port ?? 80
let appClients = Int((Double(options.clients) * options.appShare).rounded())
let alpacaClients = options.clients - appClients

// Set-up over HTTP: a user (its session for the app's sockets) and the API keys of its US account.
let setup = try await Setup.make(base: options.url, keys: (alpacaClients + 4) / 5)
print("fanout: set up a user and \(setup.keys.count) API keys")

let stats = Stats(clients: options.clients)
let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
var random = SeededGenerator(seed: 20_261_205)
var plans: [ClientPlan] = []
for n in 0..<options.clients {
    let alpaca = n < alpacaClients
    let symbols = Watchlists.pick(&random, alpaca: alpaca)
    plans.append(
        alpaca
            ? .alpaca(id: n, key: setup.keys[n / 5], symbols: symbols, bars: Int.random(in: 0..<4, using: &random) == 0)
            : .app(id: n, cookie: setup.cookie, symbols: symbols))
}

// Connect in waves (a few hundred handshakes at a time, as phones arrive over a minute), waiting for each client's
// subscription to be acknowledged.
let started = Date()
var failedToConnect = 0
for wave in stride(from: 0, to: plans.count, by: 250) {
    var pending: [EventLoopFuture<Void>] = []
    for plan in plans[wave..<min(wave + 250, plans.count)] {
        let loop = group.next()
        let subscribed = loop.makePromise(of: Void.self)
        let connection = WebSocketConnection.connect(
            plan, host: host, port: port, on: loop, stats: stats, subscribed: subscribed)
        connection.whenFailure { subscribed.fail($0) }
        pending.append(subscribed.futureResult)
    }
    for future in pending {
        do { try await future.get() } catch { failedToConnect += 1 }
    }
}
let connectSeconds = Date().timeIntervalSince(started)
print(
    "fanout: \(options.clients - failedToConnect) of \(options.clients) clients subscribed in "
        + String(format: "%.1f s", connectSeconds)
        + " (\(alpacaClients) on /v2/iex, \(appClients) on /api/v1/ws)")

// Let the first rounds after the last subscription pass, then measure.
try await Task.sleep(for: .seconds(3))
stats.measuring(true)
let window = Date()
let clientCPUAtStart = Sampler.cpuSeconds(getpid())
let rssDuring = Sampler(pid: options.serverPID)
for _ in 0..<options.seconds {
    try await Task.sleep(for: .seconds(1))
    rssDuring.sample()
}
stats.measuring(false)
let measured = Date().timeIntervalSince(window)
let report = stats.report(seconds: measured)
print(report.details)
let rss = rssDuring.peakMB.map { String(format: "%.0f MB", $0) } ?? "n/a"
let cpu = rssDuring.cpuSeconds(over: measured).map { String(format: " (server CPU %.0f%% of a core)", $0 * 100) } ?? ""
let clientCPU =
    zip(clientCPUAtStart.map { [$0] } ?? [], [Sampler.cpuSeconds(getpid()) ?? 0]).map { ($1 - $0) / measured }
    .first.map { String(format: "; this client %.0f%%", $0 * 100) } ?? ""
print("fanout: server RSS peak \(rss)\(cpu)\(clientCPU)")
print(
    "fanout: \(options.clients) clients, p50 \(report.p50) ms, p99 \(report.p99) ms, dropped \(report.dropped + failedToConnect), server RSS \(rss)"
)
stats.closing()
try? await group.shutdownGracefully()
