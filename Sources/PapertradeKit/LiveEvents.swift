import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One thing that happened, as the server's live stream reports it.
public enum LiveEvent: Sendable, Hashable {
    /// A subscribed symbol's quote changed (at most once a second per symbol).
    case quote(Quote)
    /// An order of the client's accounts was accepted, filled, canceled, expired, rejected or replaced.
    case order(OrderUpdate)
    /// A notification for the user (with an API key: about its account).
    case notification(AppNotification)
}

extension PapertradeClient {
    /// Live quotes of `symbols`, order updates and notifications, until the task reading it is canceled or the
    /// connection ends (the sequence then throws ``PapertradeError/transport(_:)``; start a new one to go on).
    ///
    /// Transport: the server's event stream (`GET /api/v1/events`, server-sent events) read with a
    /// `URLSessionDataDelegate`. The app's WebSocket (`/api/v1/ws`) carries the same events, but Foundation on Linux
    /// has no WebSocket client (its libcurl is built without one), so the kit uses the stream that works on every
    /// platform.
    public func events(symbols: [String] = []) -> AsyncThrowingStream<LiveEvent, any Error> {
        let query = symbols.isEmpty ? [] : [URLQueryItem(name: "symbols", value: symbols.joined(separator: ","))]
        let request: URLRequest
        do {
            var built = try self.request("GET", "events", query: query, body: nil)
            built.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            built.timeoutInterval = 24 * 3600
            request = built
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        return AsyncThrowingStream { continuation in
            let reader = EventStreamReader(continuation: continuation)
            // A copy: the shared session's configuration stays as it is.
            let configuration =
                (urlSession.configuration.copy() as? URLSessionConfiguration) ?? URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 60 // the server sends a keep-alive every 5 s
            let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }

    /// Live quotes of `symbols`.
    public func quoteUpdates(_ symbols: [String]) -> AsyncThrowingCompactMapSequence<
        AsyncThrowingStream<LiveEvent, any Error>, Quote
    > {
        events(symbols: symbols).compactMap { if case .quote(let q) = $0 { q } else { nil } }
    }

    /// Order updates of the client's accounts.
    public func orderUpdates() -> AsyncThrowingCompactMapSequence<
        AsyncThrowingStream<LiveEvent, any Error>, OrderUpdate
    > {
        events().compactMap { if case .order(let u) = $0 { u } else { nil } }
    }

    /// Notifications as they arrive.
    public func notificationUpdates() -> AsyncThrowingCompactMapSequence<
        AsyncThrowingStream<LiveEvent, any Error>, AppNotification
    > {
        events().compactMap { if case .notification(let n) = $0 { n } else { nil } }
    }
}

/// Reads server-sent events ("event: …\ndata: …\n\n") from a streaming response into the sequence.
final class EventStreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<LiveEvent, any Error>.Continuation
    // Touched only from the session's serial delegate queue.
    private var buffer = Data()
    private var status = 0
    private var errorBody = Data()

    init(continuation: AsyncThrowingStream<LiveEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard status == 200 else {
            errorBody.append(data)
            return
        }
        buffer.append(data)
        while let end = Self.eventEnd(in: buffer) {
            let block = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex..<end.upperBound)
            if let event = Self.event(block) { continuation.yield(event) }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if status != 200, status != 0 {
            continuation.finish(throwing: PapertradeClient.error(status: status, body: errorBody))
        } else if let error {
            continuation.finish(throwing: PapertradeError.transport(error.localizedDescription))
        } else {
            continuation.finish(throwing: PapertradeError.transport("the server closed the event stream"))
        }
        session.finishTasksAndInvalidate()
    }

    /// The blank line that ends the next event.
    static func eventEnd(in data: Data) -> Range<Data.Index>? {
        data.range(of: Data("\n\n".utf8)) ?? data.range(of: Data("\r\n\r\n".utf8))
    }

    /// One event block; comments (keep-alives) and unknown event types are nil.
    static func event(_ block: String) -> LiveEvent? {
        var type = "message"
        var data = ""
        for line in block.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            if line.hasPrefix(":") { continue }
            if line.hasPrefix("event:") {
                type = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
            } else if line.hasPrefix("data:") {
                data += (data.isEmpty ? "" : "\n") + line.dropFirst(5).trimmingCharacters(in: .whitespaces)
            }
        }
        let decoder = PapertradeJSON.decoder()
        let bytes = Data(data.utf8)
        switch type {
        case "quote": return (try? decoder.decode(Quote.self, from: bytes)).map(LiveEvent.quote)
        case "order": return (try? decoder.decode(OrderUpdate.self, from: bytes)).map(LiveEvent.order)
        case "notification": return (try? decoder.decode(AppNotification.self, from: bytes)).map(LiveEvent.notification)
        default: return nil
        }
    }
}
