import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Alpaca's request limit per API key: `limit` requests per wall-clock minute (Alpaca: 200). Every answer on the
/// /v2 surface carries `X-Ratelimit-Limit`, `X-Ratelimit-Remaining` and `X-Ratelimit-Reset` (unix seconds when the
/// window ends); going over is a 429 `{"code": 42910000, "message": "too many requests"}`, which alpaca-py retries.
final class RateLimiter: Sendable {
    struct Window {
        var start: Int64
        var count: Int
    }

    let limit: Int
    private let windows = Mutex<[String: Window]>([:])

    init(limit: Int) { self.limit = limit }

    /// Counts one request of `key` at `now` (unix seconds): whether it is allowed, what remains, when the window resets.
    func take(_ key: String, now: Int64) -> (allowed: Bool, remaining: Int, reset: Int64) {
        let start = now - now % 60
        return windows.withLock { windows in
            var window = windows[key] ?? Window(start: start, count: 0)
            if window.start != start { window = Window(start: start, count: 0) }
            window.count += 1
            windows[key] = window
            if windows.count > 10_000 { windows = windows.filter { $0.value.start == start } }
            return (window.count <= limit, max(0, limit - window.count), start + 60)
        }
    }

    static let limitHeader = HTTPField.Name.literal("X-Ratelimit-Limit")
    static let remainingHeader = HTTPField.Name.literal("X-Ratelimit-Remaining")
    static let resetHeader = HTTPField.Name.literal("X-Ratelimit-Reset")
}

/// Applies the limiter to requests that carry an API key id; answers keep the headers even when they are errors.
struct RateLimitMiddleware: RouterMiddleware {
    let limiter: RateLimiter

    func handle(
        _ request: Request, context: AppContext,
        next: (Request, AppContext) async throws -> Response
    ) async throws -> Response {
        guard let key = request.headers[HTTPField.Name.alpacaKeyID] else { return try await next(request, context) }
        let state = limiter.take(key, now: Int64(Date().timeIntervalSince1970))
        func stamped(_ response: Response) -> Response {
            var response = response
            response.headers[RateLimiter.limitHeader] = String(limiter.limit)
            response.headers[RateLimiter.remainingHeader] = String(state.remaining)
            response.headers[RateLimiter.resetHeader] = String(state.reset)
            return response
        }
        guard state.allowed else {
            var response = try APIError(.tooManyRequests, code: 42910000, "too many requests").response(
                from: request, context: context)
            response.headers[.retryAfter] = String(max(1, state.reset - Int64(Date().timeIntervalSince1970)))
            return stamped(response)
        }
        do {
            return stamped(try await next(request, context))
        } catch let error as APIError {
            return stamped(try error.response(from: request, context: context))
        }
    }
}
