// swift-tools-version: 6.1
import PackageDescription

// Module map: ../shared/DESIGN.md. TradingCore has no dependencies on purpose: it is where correctness
// lives and its tests must build in seconds from a clean clone.
let package = Package(
    name: "papertrade",
    // iOS, tvOS, watchOS and visionOS are for PapertradeKit (and its example view): apps add only that product.
    platforms: [.macOS(.v15), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "TradingCore", targets: ["TradingCore"]),
        .library(name: "MarketData", targets: ["MarketData"]),
        // Strategies over history through the real engine: users depend on it from their own package.
        .library(name: "Backtest", targets: ["Backtest"]),
        // The Swift SDK for apps, bots and tools: the native API over URLSession (Foundation only).
        .library(name: "PapertradeKit", targets: ["PapertradeKit"]),
        .executable(name: "papertrade", targets: ["papertrade"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // The MCP server (`papertrade mcp`, /mcp): tools over PapertradeKit.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
        // `swift package generate-documentation --target PapertradeKit`: the SDK's DocC documentation.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        .target(name: "TradingCore"),
        // The client SDK depends on nothing but Foundation, so an iOS or macOS app adds it without the server.
        .target(name: "PapertradeKit"),
        // The MCP server's tools over PapertradeKit (`papertrade mcp` on stdio, /mcp on the server).
        .target(
            name: "PapertradeMCP",
            dependencies: [
                "PapertradeKit", "JSON", .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // A SwiftUI watchlist row on PapertradeKit (Apple platforms; on Linux the file compiles to nothing).
        .target(name: "PapertradeKitExamples", dependencies: ["PapertradeKit"], path: "Examples/PapertradeKitExamples"),
        // JSON's one home: the value type (parsed numbers stay exact text), the byte writers and the streaming
        // encoder. It knows the core's value types (ids, times, decimals) and nothing else.
        .target(name: "JSON", dependencies: ["TradingCore"]),
        .target(
            name: "MarketData",
            dependencies: ["TradingCore", "JSON"],
            resources: [
                .copy("Resources/symbols.tsv"), .copy("Resources/names-zh.tsv"), .copy("Resources/names-pinyin.tsv"),
                .copy("Resources/names-en.tsv"), .copy("Resources/history-daily.csv"),
                .copy("Resources/history-000338-5min.csv"), .copy("Resources/crypto-pairs.tsv"),
                .copy("Resources/forex-pairs.tsv"),
                .copy("Resources/DATA-SOURCES.md"),
            ]
        ),
        // Backtests: the engine replayed over bars, strategies, the report (figures from TradingCore's metrics).
        .target(name: "Backtest", dependencies: ["TradingCore", "JSON"]),
        .executableTarget(
            name: "TradingCoreBench",
            dependencies: ["TradingCore"],
            path: "benchmarks/TradingCoreBench"
        ),
        // The brokerage's records (users, accounts, keys, watchlists, notifications and deliveries, rules, alerts,
        // games, the journal) and a repository protocol per aggregate: the brokerage uses them, Storage implements
        // them, the surfaces read the records — none of them names the database.
        .target(name: "BrokerageModel", dependencies: ["TradingCore"]),
        .target(
            name: "Storage",
            dependencies: [
                "BrokerageModel", "TradingCore", "JSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "Brokerage",
            dependencies: [
                "BrokerageModel", "TradingCore", "MarketData", "Storage", "Backtest",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Server",
            dependencies: [
                "Brokerage", "MarketData", "TradingCore", "JSON", "Backtest", "PapertradeKit", "PapertradeMCP",
                "HeapInfo",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Web")]
        ),
        .executableTarget(
            name: "papertrade",
            dependencies: [
                "Server", "Brokerage", "MarketData", "TradingCore", "JSON", "Backtest", "PapertradeKit",
                "PapertradeMCP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "BacktestBench", dependencies: ["Backtest", "TradingCore"], path: "benchmarks/BacktestBench"),
        .executableTarget(
            name: "MarketDataBench", dependencies: ["MarketData", "JSON"], path: "benchmarks/MarketDataBench"),
        .executableTarget(
            name: "PerformanceBench", dependencies: ["Brokerage", "MarketData", "TradingCore"],
            path: "benchmarks/PerformanceBench"),
        // The quote fan-out benchmark's load client (benchmarks/fanout/run.sh): SwiftNIO WebSocket clients by the
        // thousand against a running server.
        .executableTarget(
            name: "FanoutBench",
            dependencies: [
                "TradingCore",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "benchmarks/FanoutBench"),
        .executableTarget(
            name: "MemoryBench", dependencies: ["Brokerage", "MarketData", "TradingCore", "HeapInfo"],
            path: "benchmarks/MemoryBench"),
        .target(name: "HeapInfo", path: "Sources/HeapInfo"),
        .executableTarget(
            name: "ShardBench", dependencies: ["Brokerage", "MarketData", "TradingCore"],
            path: "benchmarks/ShardBench"),
        .executableTarget(name: "market-demo", dependencies: ["MarketData"], path: "Examples/market-demo"),
        // The parsers' fuzz target (scripts/fuzz.sh): libFuzzer with -sanitize=fuzzer, or a replay of fuzz/corpus.
        .executableTarget(
            name: "ParserFuzz", dependencies: ["Backtest", "JSON", "MarketData", "TradingCore"],
            path: "fuzz/ParserFuzz"),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TradingCore"]),
        .testTarget(name: "BacktestTests", dependencies: ["Backtest", "TradingCore", "JSON"]),
        .testTarget(name: "MarketDataTests", dependencies: ["MarketData"]),
        .testTarget(name: "PapertradeMCPTests", dependencies: ["PapertradeMCP"]),
        .testTarget(
            name: "StorageTests",
            dependencies: [
                "BrokerageModel", "Storage", "TradingCore", "JSON", .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
        .testTarget(
            name: "BrokerageTests",
            dependencies: [
                "Brokerage", "BrokerageModel", "Storage", "MarketData", "TradingCore", "Backtest",
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "Brokerage", "MarketData", "TradingCore", "JSON",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PapertradeKitTests",
            dependencies: [
                "PapertradeKit", "Server", "Brokerage", "MarketData", "TradingCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TradingCoreTests",
            dependencies: [
                "TradingCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
