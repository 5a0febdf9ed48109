import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// HTTP/1.1 to the other nodes of a cluster, for `ClusterForwarding`: keep-alive connections kept per node and
/// reused, one request at a time on each. Foundation's URLSession (libcurl) cost more per forward than the order it
/// carried (536 against 1,844 orders/s on two cores, benchmarks/cluster); this is a thin SwiftNIO pipeline instead.
final class NodeClient: Sendable {
    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: ByteBuffer
    }

    enum Failure: Error {
        case closed, badURL
        /// No connection could be made: the request was not sent.
        case unreachable(any Error)
    }

    /// One connection and the handler that collects its answers.
    struct Connection: Sendable {
        let channel: any Channel
        let collector: NIOLoopBound<Collector>
        /// When it went back to the pool.
        var parked = ContinuousClock.now
    }

    private let group: any EventLoopGroup
    /// Idle connections by "host:port".
    private let idle = Mutex<[String: [Connection]]>([:])
    /// Idle connections kept per node.
    static let keepPerNode = 32
    /// How long an idle connection is reused: well inside the other node's own idle limit
    /// (`ConnectionLimits.headTimeout`, 30 s), so a request is never sent on a connection it is closing.
    static let reuseWithin = Duration.seconds(15)

    init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) { self.group = group }

    /// Sends one request to `host:port` and returns the whole answer.
    func send(host: String, port: Int, head: HTTPRequestHead, body: ByteBuffer?) async throws -> Answer {
        let key = "\(host):\(port)"
        let connection: Connection
        var reused = idle.withLock { $0[key]?.popLast() }
        if let stale = reused, !stale.channel.isActive || ContinuousClock.now - stale.parked >= Self.reuseWithin {
            stale.channel.close(promise: nil)
            reused = nil
        }
        if let reused {
            connection = reused
        } else {
            do {
                connection = try await connect(host: host, port: port)
            } catch {
                throw Failure.unreachable(error)
            }
        }
        let answer = try await exchange(connection, head: head, body: body)
        if connection.channel.isActive, answer.keepAlive {
            var connection = connection
            connection.parked = .now
            let kept = idle.withLock { pool -> Bool in
                guard pool[key, default: []].count < Self.keepPerNode else { return false }
                pool[key, default: []].append(connection)
                return true
            }
            if !kept { connection.channel.close(promise: nil) }
        } else {
            connection.channel.close(promise: nil)
        }
        return answer.answer
    }

    private func connect(host: String, port: Int) async throws -> Connection {
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port).get()
        let collector = try await channel.eventLoop.submit { () -> NIOLoopBound<Collector> in
            let collector = Collector()
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            try channel.pipeline.syncOperations.addHandler(collector)
            return NIOLoopBound(collector, eventLoop: channel.eventLoop)
        }.get()
        return Connection(channel: channel, collector: collector)
    }

    private func exchange(_ connection: Connection, head: HTTPRequestHead, body: ByteBuffer?) async throws
        -> (answer: Answer, keepAlive: Bool)
    {
        let channel = connection.channel
        let promise = channel.eventLoop.makePromise(of: (Answer, Bool).self)
        channel.eventLoop.execute {
            connection.collector.value.start(promise)
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        let (answer, keepAlive) = try await promise.futureResult.get()
        return (answer, keepAlive)
    }

    /// Collects one answer at a time (head, body parts, end) and completes the waiting request.
    final class Collector: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        private var promise: EventLoopPromise<(Answer, Bool)>?
        private var head: HTTPResponseHead?
        private var body = ByteBuffer()

        func start(_ promise: EventLoopPromise<(Answer, Bool)>) {
            self.promise = promise
            head = nil
            body.clear()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body(var part): body.writeBuffer(&part)
            case .end:
                guard let head, let promise else { return }
                self.promise = nil
                let headers = head.headers.map { ($0.name, $0.value) }
                promise.succeed((Answer(status: Int(head.status.code), headers: headers, body: body), head.isKeepAlive))
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise?.fail(error)
            promise = nil
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise?.fail(Failure.closed)
            promise = nil
            context.fireChannelInactive()
        }
    }
}
