#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The attribution page's distribution of the confidence probable matches stated, on each store.
@Suite("Store conformance: match confidences", .takesTurns)
struct MatchConfidenceStoreTests {
    @Test(arguments: StoreBackend.available) func probableMatchesAreCountedByTenthsWithinTheRange(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createApp(makeApp(id: "app_2", domains: ["other.example.com"]))
            let from = epoch, to = epoch.addingTimeInterval(6 * 3600)
            var serial = 0
            func answer(_ type: MatchType?, _ confidence: Double?, minutes: Double, app: String = "app_1", environment: APIEnvironment = .live) async throws {
                serial += 1
                try await store.insertAttribution(AttributionRecord(
                    appID: app, environment: environment, installID: "ins_\(serial)", clickID: type == nil ? nil : "clk_\(serial)",
                    linkID: type == nil ? nil : "lnk_1", matchType: type, confidence: confidence, createdAt: from.addingTimeInterval(minutes * 60)))
            }
            // Installs 20 minutes to five hours into the range, a band's lower edge in that band, 1 in the last.
            try await answer(.probabilistic, 0.05, minutes: 20)
            try await answer(.probabilistic, 0.4, minutes: 45)
            try await answer(.probabilistic, 0.45, minutes: 90)
            try await answer(.probabilistic, 0.999, minutes: 180)
            try await answer(.probabilistic, 1, minutes: 300)
            try await answer(.probabilistic, 0.62, minutes: 0)  // at the start: in
            // Not counted: certain matches, organic answers, before or at the end of the range, another environment or app.
            try await answer(.deterministic, 1, minutes: 30)
            try await answer(nil, nil, minutes: 40)
            try await answer(.probabilistic, 0.7, minutes: -1)
            try await answer(.probabilistic, 0.7, minutes: 360)
            try await answer(.probabilistic, 0.7, minutes: 60, environment: .test)
            try await answer(.probabilistic, 0.7, minutes: 60, app: "app_2")
            let counts = try await store.matchConfidences(appID: "app_1", environment: .live, from: from, to: to)
            #expect(counts == [1, 0, 0, 0, 2, 0, 1, 0, 0, 2])
            #expect(try await store.matchConfidences(appID: "app_1", environment: .test, from: from, to: to) == [0, 0, 0, 0, 0, 0, 0, 1, 0, 0])
            #expect(try await store.matchConfidences(appID: "app_9", environment: .live, from: from, to: to) == Array(repeating: 0, count: 10))
        }
    }
}
#endif
