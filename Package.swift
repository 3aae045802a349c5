// swift-tools-version:6.1
import PackageDescription

// The products are the SDK: FerryKit, and FerryLimeLink (the LimeLink SDK's calls on FerryKit, for apps moving from
// it). An iOS app that adds this repository builds the product it names and nothing of the server: FerryKit alone
// builds nothing of FerryLimeLink.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

// The server runs on macOS and Linux. Its targets (FerryStore, FerryServer, ferry, FerryBench and their tests) are
// built on every platform the package declares, as SwiftPM builds every target everywhere, but each of their files is
// wrapped in `#if os(macOS) || os(Linux)`: elsewhere they compile to nothing, and need none of their dependencies.
let serverPlatforms: [Platform] = [.macOS, .linux]

/// A product only the server's targets use, built only where the server runs.
func serverProduct(_ name: String, _ package: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(platforms: serverPlatforms))
}

let package = Package(
    name: "Ferry",
    // FerryKit's floors: where URLSession's async data(for:) arrived (it needs macOS 12). macOS says 15 for the server,
    // whose shared state uses Synchronization's Mutex and Atomic; FerryKit uses neither, and its other floors do not
    // move for the server, whose targets compile to nothing on those platforms (see serverPlatforms above).
    platforms: [.macOS(.v15), .iOS(.v15), .macCatalyst(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "FerryKit", targets: ["FerryKit"]),
        .library(name: "FerryLimeLink", targets: ["FerryLimeLink"]),
    ],
    dependencies: [
        // The edge's fast path (Sources/FerryServer/EdgeFastPath.swift) answers clicks ahead of Hummingbird and relies on
        // how HummingbirdCore's HTTP1Channel builds each connection's pipeline with NIOHTTP1's
        // configureHTTPServerPipeline: the order of the handlers, the request decoder's type, where NIO's decoder says a
        // request ends, how the encoder pairs answers with requests. Both are held to the minor version that was
        // checked; before raising either, go through "The fast path and the framework versions it was checked
        // against" in docs/design-notes.md.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", .upToNextMinor(from: "2.28.1")),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", .upToNextMinor(from: "2.101.3")),  // see hummingbird above
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.0"),
        // Observability: metrics through swift-metrics, answered on /metrics by swift-prometheus; spans through
        // swift-distributed-tracing, exported by swift-otel over OTLP/HTTP only (its gRPC exporter would bring gRPC).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .target(name: "FerryAPI", swiftSettings: strict),
        .target(name: "FerryKit", dependencies: ["FerryAPI"], resources: [.copy("PrivacyInfo.xcprivacy")], swiftSettings: strict),
        .target(name: "FerryLimeLink", dependencies: ["FerryKit"], swiftSettings: strict),
        .target(
            name: "FerryCore",
            dependencies: ["FerryAPI"],
            swiftSettings: strict
        ),
        .target(
            name: "FerryStore",
            dependencies: [
                "FerryCore",
                serverProduct("GRDB", "GRDB.swift"),
                serverProduct("GRDBSQLite", "GRDB.swift"),
                serverProduct("PostgresNIO", "postgres-nio"),
                serverProduct("_ConnectionPoolModule", "postgres-nio"),
                serverProduct("ServiceLifecycle", "swift-service-lifecycle"),
                serverProduct("Crypto", "swift-crypto"),
                serverProduct("Logging", "swift-log"),
                serverProduct("CoreMetrics", "swift-metrics"),
                serverProduct("Tracing", "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        // CRC-32C and SHA-256 on the processor's own instructions, for the click journal's records and the address hashes.
        .target(name: "CFerryHashing"),
        .target(
            name: "FerryServer",
            dependencies: [
                "FerryCore", "FerryStore",
                .target(name: "CFerryHashing", condition: .when(platforms: serverPlatforms)),
                serverProduct("Hummingbird", "hummingbird"),
                serverProduct("HummingbirdCore", "hummingbird"),
                serverProduct("Logging", "swift-log"),
                serverProduct("ServiceLifecycle", "swift-service-lifecycle"),
                serverProduct("Crypto", "swift-crypto"),
                serverProduct("NIOCore", "swift-nio"),
                serverProduct("NIOHTTP1", "swift-nio"),
                serverProduct("NIOPosix", "swift-nio"),
                serverProduct("NIOSSL", "swift-nio-ssl"),
                serverProduct("HTTPTypes", "swift-http-types"),
                serverProduct("Mustache", "swift-mustache"),
                serverProduct("_CryptoExtras", "swift-crypto"),
                serverProduct("CoreMetrics", "swift-metrics"),
                serverProduct("Prometheus", "swift-prometheus"),
                serverProduct("Tracing", "swift-distributed-tracing"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/public_suffix_list.dat"), .copy("Resources/common-passwords.txt")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "ferry",
            dependencies: [
                "FerryServer", "FerryStore",
                serverProduct("ArgumentParser", "swift-argument-parser"),
                serverProduct("OTel", "swift-otel"),
                serverProduct("Tracing", "swift-distributed-tracing"),
                serverProduct("Logging", "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The attribution simulator's model, population and report, which its tests use (the executable is below).
        .target(name: "AttributionSimulation", dependencies: ["FerryCore"], path: "Benchmarks/AttributionSimulation", swiftSettings: strict),
        // What the tests share: starting programs without Foundation's Process (ChildProcess), turns (TakesTurns), and
        // computing off the cooperative pool (BackgroundWork).
        .target(name: "FerryTestSupport", path: "Tests/FerryTestSupport", swiftSettings: strict),
        .testTarget(name: "FerryAPITests", dependencies: ["FerryAPI", "FerryTestSupport"], swiftSettings: strict),
        .testTarget(name: "AttributionSimulatorTests", dependencies: ["AttributionSimulation", "FerryCore", "FerryTestSupport"], swiftSettings: strict),
        .testTarget(name: "FerryKitTests", dependencies: ["FerryKit", "FerryTestSupport"], swiftSettings: strict),
        .testTarget(name: "FerryCoreTests", dependencies: ["FerryCore", "FerryTestSupport"], swiftSettings: strict),
        .testTarget(name: "FerryStoreTests", dependencies: ["FerryStore", "FerryTestSupport", serverProduct("GRDB", "GRDB.swift")], swiftSettings: strict),
        // The real FerryKit over URLSession against the real server on a real port.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "FerryKit", "FerryLimeLink", "FerryServer", "FerryStore", "FerryTestSupport",
                serverProduct("HummingbirdTesting", "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FerryServerTests",
            dependencies: [
                "FerryServer", "FerryStore", "FerryTestSupport",
                serverProduct("GRDB", "GRDB.swift"),
                serverProduct("HummingbirdCore", "hummingbird"),
                serverProduct("HummingbirdTesting", "hummingbird"),
                serverProduct("NIOCore", "swift-nio"),
                serverProduct("NIOHTTP1", "swift-nio"),
                serverProduct("NIOPosix", "swift-nio"),
                serverProduct("NIOEmbedded", "swift-nio"),
                serverProduct("NIOSSL", "swift-nio-ssl"),
                serverProduct("Crypto", "swift-crypto"),
            ],
            swiftSettings: strict
        ),
    ]
)

// The benchmark tools are in the package only when FERRY_BENCHMARKS is set (Benchmarks/lib.sh sets it), so that a plain
// `swift build` or `swift test` compiles neither: `FERRY_BENCHMARKS=1 swift run -c release AttributionSimulator` (see
// docs/attribution.md), and FerryBench, which seeds the scripts' databases and measures the store's click ingestion.
if let benchmarks = Context.environment["FERRY_BENCHMARKS"], !benchmarks.isEmpty, benchmarks != "0" {
    package.targets += [
        .executableTarget(name: "AttributionSimulator", dependencies: ["AttributionSimulation"], path: "Benchmarks/AttributionSimulator", swiftSettings: strict),
        .executableTarget(name: "UserAgentBench", dependencies: ["FerryCore"], path: "Benchmarks/UserAgentBench", swiftSettings: strict),
        .executableTarget(
            name: "FerryBench",
            dependencies: [
                "FerryServer", "FerryStore", serverProduct("ArgumentParser", "swift-argument-parser"), serverProduct("Logging", "swift-log"),
                serverProduct("NIOCore", "swift-nio"),
            ],
            path: "Benchmarks/FerryBench", swiftSettings: strict
        ),
    ]
}
