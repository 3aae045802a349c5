// swift-tools-version:6.1
import PackageDescription

// Only FerryKit is a product: an iOS app that adds this repository links the SDK
// and resolves none of the server's dependencies.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Ferry",
    // macOS 15: the server's shared state uses Synchronization's Mutex and Atomic, which arrived with it. iOS stays at
    // 15 for FerryKit, which uses neither (the server does not build for iOS, and an app links FerryKit only).
    platforms: [.macOS(.v15), .iOS(.v15)],
    products: [
        .library(name: "FerryKit", targets: ["FerryKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.0"),
    ],
    targets: [
        .target(name: "FerryAPI", swiftSettings: strict),
        .target(name: "FerryKit", dependencies: ["FerryAPI"], resources: [.copy("PrivacyInfo.xcprivacy")], swiftSettings: strict),
        .target(
            name: "FerryCore",
            dependencies: ["FerryAPI"],
            swiftSettings: strict
        ),
        .target(
            name: "FerryStore",
            dependencies: [
                "FerryCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "FerryServer",
            dependencies: [
                "FerryCore", "FerryStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/public_suffix_list.dat")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "ferry",
            dependencies: [
                "FerryServer", "FerryStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // The attribution simulator: `swift run -c release AttributionSimulator` (see docs/attribution.md).
        .executableTarget(name: "AttributionSimulator", dependencies: ["FerryCore"], path: "Benchmarks/AttributionSimulator", swiftSettings: strict),
        // Seeds databases for the benchmark scripts in Benchmarks/ and measures the store's click ingestion.
        .executableTarget(
            name: "FerryBench",
            dependencies: ["FerryServer", "FerryStore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/FerryBench", swiftSettings: strict
        ),
        // Starting programs from the tests without Foundation's Process (see ChildProcess).
        .target(name: "FerryTestSupport", path: "Tests/FerryTestSupport", swiftSettings: strict),
        .testTarget(name: "FerryAPITests", dependencies: ["FerryAPI"], swiftSettings: strict),
        .testTarget(name: "AttributionSimulatorTests", dependencies: ["AttributionSimulator", "FerryCore"], swiftSettings: strict),
        .testTarget(name: "FerryKitTests", dependencies: ["FerryKit"], swiftSettings: strict),
        .testTarget(name: "FerryCoreTests", dependencies: ["FerryCore", "FerryTestSupport"], swiftSettings: strict),
        .testTarget(name: "FerryStoreTests", dependencies: ["FerryStore", .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: strict),
        // The real FerryKit over URLSession against the real server on a real port.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "FerryKit", "FerryServer", "FerryStore", "FerryTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FerryServerTests",
            dependencies: [
                "FerryServer", "FerryStore", "FerryTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
    ]
)
