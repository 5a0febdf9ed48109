// swift-tools-version: 6.1
import PackageDescription

// Module map: ../shared/DESIGN.md. TradingCore has no dependencies on purpose: it is where correctness
// lives and its tests must build in seconds from a clean clone.
let package = Package(
    name: "papertrade",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TradingCore", targets: ["TradingCore"]),
        .library(name: "MarketData", targets: ["MarketData"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        .target(name: "TradingCore"),
        .target(
            name: "MarketData",
            dependencies: ["TradingCore"],
            resources: [.copy("Resources/symbols.tsv"), .copy("Resources/DATA-SOURCES.md")]
        ),
        .executableTarget(
            name: "TradingCoreBench",
            dependencies: ["TradingCore"],
            path: "benchmarks/TradingCoreBench"
        ),
        .executableTarget(name: "MarketDataBench", dependencies: ["MarketData"], path: "benchmarks/MarketDataBench"),
        .executableTarget(name: "market-demo", dependencies: ["MarketData"], path: "Examples/market-demo"),
        .testTarget(name: "MarketDataTests", dependencies: ["MarketData"]),
        .testTarget(
            name: "TradingCoreTests",
            dependencies: [
                "TradingCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ]
)
