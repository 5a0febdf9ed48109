import ServiceLifecycle

/// What the webhook and push dispatchers share: poll for due deliveries until graceful shutdown, attempting a
/// batch a few at a time. Deliveries are rows in the database, so a stop between attempts loses nothing.
enum DeliveryLoop {
    /// Calls `runOnce` until graceful shutdown (or cancellation), pausing `idle` when it found nothing to do.
    static func run(idle: Duration = .milliseconds(500), _ runOnce: @escaping @Sendable () async throws -> Int) async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let attempted = (try? await runOnce()) ?? 0
                if attempted == 0 { try? await Task.sleep(for: idle) }
            }
        }
    }

    /// Attempts every item, at most `concurrency` at a time.
    static func attempt<Item: Sendable>(
        _ items: [Item], concurrency: Int = 8, _ attempt: @escaping @Sendable (Item) async -> Void
    ) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for item in items {
                if running == concurrency {
                    await group.next()
                    running -= 1
                }
                group.addTask { await attempt(item) }
                running += 1
            }
        }
    }
}
