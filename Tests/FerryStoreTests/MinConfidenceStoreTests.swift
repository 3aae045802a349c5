#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// An app's default minimum confidence of probabilistic matches, on each store: through every read and write of apps,
/// and held to a confidence by the schema.
@Suite("Store conformance: minimum confidence", .takesTurns)
struct MinConfidenceStoreTests {
    @Test(arguments: StoreBackend.available) func anAppsDefaultRoundTripsChangesAndClears(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            var app = makeApp()
            app.attribution = AttributionSettings(window: 7200, copyToOpen: true, minConfidence: 0.65)
            try await store.createApp(app)
            try await store.createApp(makeApp(id: "app_2", domains: ["other.example.com"]))
            #expect(try await store.app(id: "app_1") == app)
            #expect(try await store.app(forDomain: "go.example.com")?.attribution.minConfidence == 0.65)
            #expect(try await store.listApps().map(\.attribution.minConfidence) == [0.65, nil])
            for minimum in [0.4, 1, nil] as [Double?] {
                app.attribution.minConfidence = minimum
                #expect(try await store.updateApp(app))
                #expect(try await store.app(id: "app_1") == app, "\(String(describing: minimum))")
                #expect(try await store.app(forDomain: "go.example.com")?.attribution == AttributionSettings(window: 7200, copyToOpen: true, minConfidence: minimum))
            }
            #expect(try await store.app(id: "app_2")?.attribution == AttributionSettings(), "another app's stays as it was")
        }
    }

    /// What is not a confidence never reaches the table, even from a caller that skipped the rules.
    @Test(arguments: StoreBackend.available) func theSchemaRefusesWhatIsNotAConfidence(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            var app = makeApp()
            try await store.createApp(app)
            for minimum in [1.5, -0.1] {
                app.attribution.minConfidence = minimum
                await #expect(throws: (any Error).self, "\(minimum)") { try await store.updateApp(app) }
                await #expect(throws: (any Error).self, "\(minimum)") {
                    try await StoreConformanceTests.execute(["UPDATE apps SET min_confidence = \(minimum) WHERE id = 'app_1'"], in: store)
                }
            }
            #expect(try await store.app(id: "app_1")?.attribution.minConfidence == nil)
        }
    }
}
#endif
