import Brokerage
import Foundation
import HummingbirdWebSocket
import JSON
import MarketData
import NIOCore
import Synchronization
import TradingCore

/// Alpaca's `trade_updates` stream at ws://HOST/stream: authenticate, listen, then every committed order event
/// of the key's account. Frames are binary JSON, as Alpaca's paper endpoint sends them. On a cluster any node
/// carries it: other nodes' events arrive through the brokerage's live-event relay.
enum TradeUpdatesStream {
    static func handle(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, orderService: any OrderService,
        access: UserAccess
    )
        async throws
    {
        var messages = inbound.messages(maxSize: ConnectionLimits.webSocketMessageBytes).makeAsyncIterator()
        func json(_ message: WebSocketMessage) -> JSONValue? {
            switch message {
            case .text(let s): return try? JSONValue(parsing: s)
            case .binary(let b): return try? JSONValue(parsing: Array(b.readableBytesView))
            }
        }
        @Sendable func send(_ value: JSONValue) async throws {
            try await outbound.write(.binary(ByteBuffer(string: value.serialized)))
        }

        guard let first = try await messages.next(), let auth = json(first), auth["action"]?.string == "authenticate",
            let key = auth["data"]?["key_id"]?.string, let secret = auth["data"]?["secret_key"]?.string,
            let account = try await access.authenticate(keyID: key, secret: secret, loading: false)
        else {
            try await send(authorization("unauthorized", message: "access key verification failed"))
            return
        }
        try await send(authorization("authorized"))

        let listening = Flag()
        let updates = orderService.orderUpdates(account: account)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await update in updates where listening.value {
                    try await send(event(update))
                }
            }
            // A revoked key's stream ends: told as a refused authentication.
            group.addTask {
                try await access.watch.closeSocket(outbound, when: .apiKey(key)) {
                    try await send(authorization("unauthorized", message: "access key revoked"))
                }
            }
            // This task reads the client; when it leaves, forwarding stops.
            while let message = try await messages.next() {
                guard let request = json(message), request["action"]?.string == "listen" else { continue }
                let streams = request["data"]?["streams"]?.array?.compactMap(\.string) ?? []
                listening.value = streams.contains("trade_updates")
                try await send(
                    .object([
                        "stream": .string("listening"),
                        "data": .object([
                            "streams": .array(streams.filter { $0 == "trade_updates" }.map(JSONValue.string))
                        ]),
                    ]))
            }
            group.cancelAll()
        }
    }

    /// The answer to an authentication: "authorized", or "unauthorized" with why.
    static func authorization(_ status: String, message: String? = nil) -> JSONValue {
        var data: [String: JSONValue] = ["action": .string("authenticate"), "status": .string(status)]
        if let message { data["message"] = .string(message) }
        return .object(["stream": .string("authorization"), "data": .object(data)])
    }

    /// A Sendable boolean shared between the reading and the forwarding task.
    final class Flag: Sendable {
        private let state = Mutex(false)
        var value: Bool {
            get { state.withLock { $0 } }
            set { state.withLock { $0 = newValue } }
        }
    }

    static func event(_ update: OrderUpdate) -> JSONValue {
        let name: String
        switch update.event {
        case .held: name = "new"
        default: name = update.event.rawValue
        }
        var data: [String: JSONValue] = [
            "event": .string(name), "order": AlpacaEncoding.order(update.order),
            "timestamp": .string(update.time.description),
            "position_qty": .decimal(update.positionQty),
        ]
        if let fill = update.fill {
            data["execution_id"] = .string(fill.executionID.description)
            data["price"] = .decimal(fill.price)
            data["qty"] = .decimal(fill.qty)
        }
        return .object(["stream": .string("trade_updates"), "data": .object(data)])
    }
}
