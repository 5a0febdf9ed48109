import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Server
import Testing
import TradingCore

@Suite("Operations: request ids and Prometheus metrics")
struct ObservabilityTests {
    static let requestID = HTTPField.Name("X-Request-ID")!

    /// The value of one sample line (`name{labels} value`) in the exposition text; nil when absent.
    static func sample(_ text: String, _ prefix: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { $0.split(separator: " ").last }.flatMap {
            Double($0)
        }
    }

    @Test(
        "every answer carries a request id: the client's own when it sends one, a fresh one otherwise, errors included")
    func requestIDs() async throws {
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let first = try await client.execute(uri: "/healthz", method: .get) { $0.headers[Self.requestID] }
                let second = try await client.execute(uri: "/healthz", method: .get) { $0.headers[Self.requestID] }
                #expect(first != nil && second != nil && first != second)
                try await client.execute(
                    uri: "/v2/orders/not-an-id", method: .get, headers: f.auth.merging([Self.requestID: "trace-42"])
                ) {
                    #expect($0.status == .notFound)
                    #expect($0.headers[Self.requestID] == "trace-42")
                }
                try await client.execute(uri: "/healthz", method: .get, headers: [Self.requestID: "bad\u{7F}"]) {
                    #expect($0.headers[Self.requestID] != "bad\u{7F}", "an id with control characters is not echoed")
                }
            }
        }
    }

    @Test("/metrics reports the process's memory: resident pages, the heap in use, and what the allocator holds for it")
    func memoryGauges() async throws {
        PrometheusExport.bootstrap()
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                // 64 MB held (and written, so its pages are resident) while /metrics is read.
                let held = [UInt8](repeating: 7, count: 64 << 20)
                try await client.execute(uri: "/metrics", method: .get) { response in
                    let text = String(buffer: response.body)
                    let resident = Self.sample(text, "process_resident_memory_bytes") ?? 0
                    let inUse = Self.sample(text, "papertrade_heap_in_use_bytes") ?? 0
                    let heldByAllocator = Self.sample(text, "papertrade_heap_held_bytes") ?? 0
                    #expect(inUse >= Double(held.count), "the 64 MB allocation is in the heap in use")
                    #expect(heldByAllocator >= inUse, "the allocator holds at least what is in use")
                    #expect(resident >= Double(held.count), "its written pages are resident")
                }
                #expect(held.last == 7)
            }
        }
    }

    @Test("The server fixes glibc's allocator thresholds at start unless the operator set glibc's own")
    func allocatorThresholds() {
        for chosen in [
            ["MALLOC_MMAP_THRESHOLD_": "65536"], ["MALLOC_TRIM_THRESHOLD_": "0"],
            ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=0"],
        ] {
            #expect(!AllocatorThresholds.fix(environment: chosen), "the operator's \(chosen) wins")
        }
        #if os(Linux)
            #expect(AllocatorThresholds.fix(environment: ["GLIBC_TUNABLES": "glibc.rtld.nns=2"]))
        #endif
    }

    @Test("/metrics counts orders placed and rejected, journal commits, and requests by route")
    func metrics() async throws {
        PrometheusExport.bootstrap()
        try await ServerFixture.with { f in
            try await f.app.test(.router) { client in
                let before = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
                let order =
                    #"{"symbol":"KO","qty":"1","side":"buy","type":"limit","limit_price":"1.00","time_in_force":"gtc"}"#
                try await client.execute(uri: "/v2/orders", method: .post, headers: f.auth, body: body(order)) {
                    #expect($0.status == .ok)
                }
                let tooBig =
                    #"{"symbol":"KO","qty":"1000000","side":"buy","type":"limit","limit_price":"50.00","time_in_force":"gtc"}"#
                try await client.execute(uri: "/v2/orders", method: .post, headers: f.auth, body: body(tooBig)) {
                    #expect($0.status == .forbidden)
                }
                try await client.execute(uri: "/metrics", method: .get) { response in
                    #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                    let text = String(buffer: response.body)
                    let placed = "papertrade_orders_placed_total"
                    #expect((Self.sample(text, placed) ?? 0) >= (Self.sample(before, placed) ?? 0) + 1)
                    #expect(
                        Self.sample(text, #"papertrade_orders_rejected_total{reason="insufficient_buying_power"}"#) ?? 0
                            >= 1)
                    #expect(Self.sample(text, "papertrade_journal_commit_seconds_count") ?? 0 >= 1)
                    #expect(Self.sample(text, "papertrade_journal_group_size_count") ?? 0 >= 1)
                    #expect(
                        text.contains(#"http_requests_total{route="/v2/orders",method="POST",status="200"}"#),
                        "requests are counted by route")
                    #expect(
                        text.contains(
                            #"http_server_request_duration_seconds_bucket{route="/v2/orders",method="POST",status="403""#
                        ))
                }
            }
        }
    }
}

extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var merged = self
        for field in other { merged[field.name] = field.value }
        return merged
    }
}
