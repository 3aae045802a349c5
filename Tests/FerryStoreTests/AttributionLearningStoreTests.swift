#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryTestSupport
import Foundation
import GRDB
import Testing
@testable import FerryStore

/// What learning each app's model keeps, on each store: observations by app, environment and age; model versions with
/// one active per app and environment; the purge; the clicks value frequencies are counted on; and the upgrade of a
/// database made before all this.
@Suite("Store conformance: attribution learning", .takesTurns)
struct AttributionLearningStoreTests {
    /// An anonymised observation of an install `seconds` after `epoch`, with one candidate click.
    static func observation(seconds: Double, label kind: LearningObservation.Label.Kind = .unlabelled, app: String = "app_1",
                            environment: APIEnvironment = .live) -> AttributionObservationRecord {
        let at = epoch.addingTimeInterval(seconds)
        let click = ClickEvidence(clickID: "clk_\(Int(seconds))", linkID: "lnk_1", createdAt: at.addingTimeInterval(-321.5), addressHash: "A", networkHash: "N",
                                  osVersion: "18.1", appleDevice: "iphone", screenWidth: 393, screenHeight: 852, screenScale: 3,
                                  timeZone: "Europe/Paris", timeZoneOffsetSeconds: 3600, languages: ["fr-FR", "en"])
        let install = InstallEvidence(addressHash: "A", networkHash: "N", signals: DeviceSignals(platform: "ios", osVersion: "18.1.1", model: "iPhone16,1",
                                                                                                 screenWidth: 393, screenHeight: 852, screenScale: 3,
                                                                                                 timeZone: "Europe/Paris", timeZoneOffsetSeconds: 3600, languages: ["fr-FR"]),
                                      at: at)
        let label: LearningObservation.Label = switch kind {
        case .click: .click(click)
        case .organic: .organic
        case .unlabelled: .unlabelled
        }
        let observation = LearningObservation(install: install, candidates: CandidateSet(clicks: [click], clicksInWindow: 42, sameAddressClicks: 1,
                                                                                         sameNetworkClicks: 3),
                                              window: 86_400, label: label).anonymised()
        return AttributionObservationRecord(appID: app, environment: environment, observedAt: at, observation: observation)
    }

    static func summary(_ count: Int) -> AttributionModelSummary {
        AttributionModelSummary(model: AttributionLearner.defaultPrior, observations: (0..<count).map { observation(seconds: Double($0)).observation },
                                window: 86_400)
    }

    @Test(arguments: StoreBackend.available) func observationsRoundTripNewestFirstByAppAndEnvironment(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createApp(makeApp(id: "app_2", domains: ["other.example.com"]))
            let records = [Self.observation(seconds: 0, label: .click), Self.observation(seconds: 60), Self.observation(seconds: 120, label: .organic),
                           Self.observation(seconds: 180)]
            for record in records { try await store.recordObservation(record) }
            try await store.recordObservation(Self.observation(seconds: 90, environment: .test))
            try await store.recordObservation(Self.observation(seconds: 90, app: "app_2"))

            let all = try await store.observations(appID: "app_1", environment: .live, since: epoch, limit: 100)
            #expect(all == Array(records.reversed()))
            #expect(try await store.observations(appID: "app_1", environment: .live, since: epoch.addingTimeInterval(60), limit: 100) == Array(records[1...].reversed()))
            #expect(try await store.observations(appID: "app_1", environment: .live, since: epoch, limit: 2) == [records[3], records[2]])
            #expect(try await store.observations(appID: "app_1", environment: .test, since: epoch, limit: 100).map(\.observedAt) == [epoch.addingTimeInterval(90)])
            #expect(try await store.observations(appID: "app_2", environment: .live, since: epoch, limit: 100).count == 1)
            #expect(try await store.observations(appID: "app_3", environment: .live, since: epoch, limit: 100).isEmpty)
            // The times, hashes' tokens and signals come back to the last bit.
            let labelled = try #require(all.last)
            #expect(labelled.observation.install.addressHash == "a0")
            #expect(labelled.observation.label == .click(labelled.observation.candidates.clicks[0]))
            #expect(labelled.observation.candidates.clicks[0].createdAt == epoch.addingTimeInterval(-321.5))

            // A weight that is not a number cannot be stored, and nothing is.
            var broken = Self.observation(seconds: 240)
            broken.observation.weight = .nan
            await #expect(throws: (any Error).self) { try await store.recordObservation(broken) }
            #expect(try await store.observations(appID: "app_1", environment: .live, since: epoch, limit: 100).count == 4)
            // Nor one of an app that does not exist.
            await #expect(throws: (any Error).self) { try await store.recordObservation(Self.observation(seconds: 10, app: "app_missing")) }
        }
    }

    @Test(arguments: StoreBackend.available) func eachNewModelIsTheOneActiveVersion(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            #expect(try await store.activeModel(appID: "app_1", environment: .live) == nil)
            #expect(try await store.modelVersions(appID: "app_1", environment: .live, limit: 10).isEmpty)

            var first = AttributionLearner.defaultPrior
            first.clickedShareByAddress = [[0.1, 0.9, 0.8, 0.5, 0.3, 0.2], [0.02, 0.4, 0.3, 0.2, 0.1, 0.05]]
            var frequencies = ValueFrequencies()
            frequencies.add(Self.observation(seconds: 0).observation.candidates.clicks[0])
            first.frequencies = frequencies
            let one = try await store.insertModel(appID: "app_1", environment: .live, model: first, summary: Self.summary(3), createdAt: epoch)
            #expect(one.version == 1 && one.status == .active)
            let active = try #require(try await store.activeModel(appID: "app_1", environment: .live))
            #expect(active.version == one && active.model == first)

            var second = first
            second.clickedShare = 0.123_456_789_012_345_67
            let two = try await store.insertModel(appID: "app_1", environment: .live, model: second, summary: Self.summary(5),
                                                  createdAt: epoch.addingTimeInterval(3600))
            #expect(two.version == 2)
            #expect(try await store.activeModel(appID: "app_1", environment: .live)?.model == second)
            let versions = try await store.modelVersions(appID: "app_1", environment: .live, limit: 10)
            #expect(versions.map(\.version) == [2, 1] && versions.map(\.status) == [.active, .superseded])
            #expect(versions[1].summary == Self.summary(3) && versions[1].createdAt == epoch)
            #expect(try await store.modelVersions(appID: "app_1", environment: .live, limit: 1).map(\.version) == [2])
            // The test environment has versions of its own.
            #expect(try await store.activeModel(appID: "app_1", environment: .test) == nil)
            #expect(try await store.insertModel(appID: "app_1", environment: .test, model: first, summary: Self.summary(1), createdAt: epoch).version == 1)

            // Stored at once, the versions still follow each other and one stays active.
            let shared = second
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        try await store.insertModel(appID: "app_1", environment: .live, model: shared, summary: Self.summary(index),
                                                    createdAt: epoch.addingTimeInterval(7200)).version
                    }
                }
                var made: [Int] = []
                for try await version in group { made.append(version) }
                #expect(made.sorted() == Array(3...8))
            }
            let after = try await store.modelVersions(appID: "app_1", environment: .live, limit: 100)
            #expect(after.map(\.version) == Array((1...8).reversed()))
            #expect(after.filter { $0.status == .active }.map(\.version) == [8])

            // Nor is there a model of an app that does not exist.
            await #expect(throws: (any Error).self) {
                try await store.insertModel(appID: "app_missing", environment: .live, model: first, summary: Self.summary(1), createdAt: epoch)
            }
        }
    }

    @Test(arguments: StoreBackend.available) func thePurgeForgetsOldObservationsAndOldSupersededModels(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            for seconds: Double in [0, 86_400, 2 * 86_400] { try await store.recordObservation(Self.observation(seconds: seconds)) }
            for day in 0..<3 {
                _ = try await store.insertModel(appID: "app_1", environment: .live, model: AttributionLearner.defaultPrior, summary: Self.summary(1),
                                                createdAt: epoch.addingTimeInterval(Double(day) * 86_400))
            }
            // Everything before noon of the first day: one observation and one superseded model.
            #expect(try await store.purgeAttributionLearning(before: epoch.addingTimeInterval(0.5 * 86_400)) == 2)
            #expect(try await store.observations(appID: "app_1", environment: .live, since: .distantPast, limit: 10).map(\.observedAt)
                == [epoch.addingTimeInterval(2 * 86_400), epoch.addingTimeInterval(86_400)])
            #expect(try await store.modelVersions(appID: "app_1", environment: .live, limit: 10).map(\.version) == [3, 2])
            // The active model stays, however old.
            #expect(try await store.purgeAttributionLearning(before: epoch.addingTimeInterval(100 * 86_400)) == 3)
            #expect(try await store.modelVersions(appID: "app_1", environment: .live, limit: 10).map(\.version) == [3])
            #expect(try await store.activeModel(appID: "app_1", environment: .live)?.version.version == 3)
        }
    }

    @Test(arguments: StoreBackend.available) func clickEvidenceIsTheWindowsAttributableClicksNewestFirst(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createLink(makeLink(id: "lnk_1", slug: "a"))
            var desktop = click("clk_desktop", address: "D", network: "N", seconds: 50)
            desktop.platform = .desktop
            var test = click("clk_test", address: "T", network: "N", seconds: 60)
            test.environment = .test
            try await store.recordClicks([click("clk_old", address: "A", network: "N", seconds: -100), click("clk_1", address: "A", network: "N", seconds: 10),
                                          click("clk_2", address: "B", network: "M", seconds: 20), desktop, test])
            try await store.recordClickSignals(ClickSignalsRecord(clickID: "clk_2", appID: "app_1",
                signals: DeviceSignals(screenWidth: 393, screenHeight: 852, screenScale: 3, timeZone: "Europe/Paris", languages: ["fr-FR"]),
                receivedAt: epoch.addingTimeInterval(21)))
            // A consumed click counts too: value frequencies describe every click.
            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i1", clickID: "clk_1", linkID: "lnk_1",
                                                                matchType: .probabilistic, confidence: 0.9, createdAt: epoch))
            let evidence = try await store.clickEvidence(appID: "app_1", environment: .live, since: epoch, limit: 10)
            #expect(evidence.map(\.clickID) == ["clk_2", "clk_1"])
            #expect(evidence[0].screenWidth == 393 && evidence[0].timeZone == "Europe/Paris" && evidence[0].languages == ["fr-FR"])
            #expect(evidence[1].languages == ["fr-FR", "fr", "en"] && evidence[1].osVersion == "18.1")
            #expect(try await store.clickEvidence(appID: "app_1", environment: .live, since: epoch, limit: 1).map(\.clickID) == ["clk_2"])
            #expect(try await store.clickEvidence(appID: "app_1", environment: .test, since: epoch, limit: 10).map(\.clickID) == ["clk_test"])
        }
    }

    @Test(arguments: StoreBackend.available) func userClicksAreThePersonsOnThePlatformInTheRangeNewestFirst(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createLink(makeLink(id: "lnk_1", slug: "a"))
            let token = "fu_" + String(repeating: "a1", count: 16), other = "fu_" + String(repeating: "b2", count: 16)
            func carrying(_ id: String, _ user: String?, seconds: Double, platform: ClientPlatform = .iOS, environment: APIEnvironment = .live) -> Click {
                var made = click(id, address: "A", network: "N", seconds: seconds)
                made.userToken = user
                made.platform = platform
                made.environment = environment
                return made
            }
            try await store.recordClicks([
                carrying("clk_early", token, seconds: -10), carrying("clk_1", token, seconds: 10), carrying("clk_2", token, seconds: 20),
                carrying("clk_none", nil, seconds: 25), carrying("clk_other", other, seconds: 30), carrying("clk_android", token, seconds: 35, platform: .android),
                carrying("clk_test", token, seconds: 40, environment: .test), carrying("clk_late", token, seconds: 500),
            ])
            // Taken by an install or not: the person's clicks are theirs.
            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i1", clickID: "clk_2", linkID: "lnk_1",
                                                                matchType: .probabilistic, confidence: 0.9, createdAt: epoch))
            func ids(_ user: String, _ platform: ClientPlatform = .iOS, _ environment: APIEnvironment = .live, limit: Int = 10) async throws -> [String] {
                try await store.userClicks(appID: "app_1", environment: environment, userToken: user, platform: platform, from: epoch,
                                           to: epoch.addingTimeInterval(100), limit: limit).map(\.clickID)
            }
            #expect(try await ids(token) == ["clk_2", "clk_1"])
            #expect(try await ids(token, limit: 1) == ["clk_2"])
            #expect(try await ids(other) == ["clk_other"])
            #expect(try await ids(token, .android) == ["clk_android"])
            #expect(try await ids(token, .iOS, .test) == ["clk_test"])
            #expect(try await ids("fu_" + String(repeating: "c3", count: 16)).isEmpty)
            // The click reads back with its token, and its query without it.
            #expect(try await store.click(id: "clk_1")?.userToken == token)
            #expect(try await store.click(id: "clk_none")?.userToken == nil)
            let evidence = try #require(try await store.userClicks(appID: "app_1", environment: .live, userToken: token, platform: .iOS, from: epoch,
                                                                   to: epoch.addingTimeInterval(15), limit: 1).first)
            #expect(evidence.clickID == "clk_1" && evidence.addressHash == "A" && evidence.osVersion == "18.1")
        }
    }

    @Test(arguments: StoreBackend.available) func aPendingObservationIsLabelledOnceAndForgottenAfterItsHorizon(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            // The raw form beside the anonymised one, under the install's key.
            func pending(seconds: Double, key: String?, environment: APIEnvironment = .live) -> AttributionObservationRecord {
                var record = Self.observation(seconds: seconds, environment: environment)
                let raw = LearningObservation(install: InstallEvidence(addressHash: "203.0.113.7#", networkHash: "net#",
                                                                       signals: DeviceSignals(platform: "ios"), at: record.observedAt),
                                              candidates: CandidateSet(clicks: [], clicksInWindow: 3, sameAddressClicks: 0, sameNetworkClicks: 0),
                                              window: 86_400, label: .unlabelled)
                record.installKey = key
                record.pending = key == nil ? nil : raw
                return record
            }
            try await store.recordObservation(pending(seconds: 0, key: "k1"))
            try await store.recordObservation(pending(seconds: 60, key: "k1"))
            try await store.recordObservation(pending(seconds: 90, key: "k1", environment: .test))
            try await store.recordObservation(pending(seconds: 120, key: "k2"))
            try await store.recordObservation(pending(seconds: 180, key: nil))

            let found = try #require(try await store.pendingObservation(appID: "app_1", environment: .live, installKey: "k1"))
            #expect(found.observedAt == epoch.addingTimeInterval(60))
            #expect(found.observation.install.addressHash == "203.0.113.7#" && found.observation.candidates.clicksInWindow == 3)
            #expect(try await store.pendingObservation(appID: "app_1", environment: .live, installKey: "k3") == nil)
            #expect(try await store.pendingObservation(appID: "app_2", environment: .live, installKey: "k1") == nil)

            // Labelled once: the row now holds the labelled observation, and is pending no more.
            var labelled = Self.observation(seconds: 60, label: .click).observation
            labelled.weight = 0.5
            #expect(try await store.labelObservation(id: found.id, observation: labelled))
            #expect(try await !store.labelObservation(id: found.id, observation: labelled))
            let stored = try await store.observations(appID: "app_1", environment: .live, since: epoch, limit: 10)
            #expect(stored.map(\.observation.label.kind) == [.unlabelled, .unlabelled, .click, .unlabelled])
            #expect(stored[2].observation == labelled && stored[2].observedAt == epoch.addingTimeInterval(60))
            // The earlier one of the same install is the pending one now; the other environment keeps its own.
            #expect(try await store.pendingObservation(appID: "app_1", environment: .live, installKey: "k1")?.observedAt == epoch)
            #expect(try await store.pendingObservation(appID: "app_1", environment: .test, installKey: "k1")?.observedAt == epoch.addingTimeInterval(90))

            // Past the horizon, the raw forms go; the anonymised observations stay.
            #expect(try await store.forgetPendingObservations(before: epoch.addingTimeInterval(100)) == 2)
            #expect(try await store.pendingObservation(appID: "app_1", environment: .live, installKey: "k1") == nil)
            #expect(try await store.pendingObservation(appID: "app_1", environment: .live, installKey: "k2") != nil)
            #expect(try await store.forgetPendingObservations(before: epoch.addingTimeInterval(1000)) == 1)
            #expect(try await store.observations(appID: "app_1", environment: .live, since: epoch, limit: 10).count == 4)
        }
    }

    @Test(arguments: StoreBackend.available) func theModelChoiceRoundTripsWithTheApp(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            var app = makeApp()
            try await store.createApp(app)
            #expect(try await store.app(id: "app_1")?.attribution.model == .fixed)
            app.attribution.model = .learned
            #expect(try await store.updateApp(app))
            #expect(try await store.app(id: "app_1") == app)
            #expect(try await store.app(forDomain: "go.example.com")?.attribution.model == .learned)
            var created = makeApp(id: "app_2", domains: ["learns.example.com"])
            created.attribution = AttributionSettings(window: 7200, copyToOpen: true, model: .learned)
            try await store.createApp(created)
            #expect(try await store.listApps().map(\.attribution.model) == [.learned, .learned])
        }
    }

    @Test(arguments: StoreBackend.available) func refitsTakeTurns(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            let ran = try await store.whileRefitting(appID: "app_1", environment: .live) { 7 }
            #expect(ran == 7)
            guard backend == .postgres else { return }
            // While one refit runs, another of the same app and environment does not; one of another environment does.
            let inner = try await store.whileRefitting(appID: "app_1", environment: .live) { () -> [Int?] in
                [try await store.whileRefitting(appID: "app_1", environment: .live) { 1 },
                 try await store.whileRefitting(appID: "app_1", environment: .test) { 2 }]
            }
            #expect(inner == [nil, 2])
            #expect(try await store.whileRefitting(appID: "app_1", environment: .live) { 3 } == 3)
        }
    }

    /// A SQLite database made before models were learnt keeps its apps, which answer with the fixed model, and takes
    /// observations and models after the upgrade.
    @Test func upgradingSQLiteAddsTheTablesAndKeepsEveryAppOnTheFixedModel() async throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        do {
            let queue = try DatabaseQueue(path: database.path)
            try SQLiteStore.migrator.migrate(queue, upTo: "v15-client-links")
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO apps (id, name, attribution_window, copy_to_open, created_at) VALUES ('app_1', 'Example', 7200, 1, 0)")
                try db.execute(sql: "INSERT INTO domains (host, app_id, position) VALUES ('go.example.com', 'app_1', 0)")
            }
        }
        let store = try SQLiteStore(path: database.path)
        try await Self.expectUpgraded(store)
        try await store.close()
    }

    /// The same on PostgreSQL: a schema as it was before (its tables and column dropped, its migration forgotten)
    /// migrates when the store opens.
    @Test(.enabled(if: StoreBackend.available.contains(.postgres))) func upgradingPostgreSQLAddsTheTablesAndKeepsEveryAppOnTheFixedModel() async throws {
        let base = try #require(ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"])
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let url = base + (base.contains("?") ? "&" : "?") + "search_path=" + schema
        let before = try await PostgresStore(url: url)
        try await before.execute("DROP TABLE attribution_observations")
        try await before.execute("DROP TABLE attribution_models")
        try await before.execute("ALTER TABLE apps DROP COLUMN attribution_model")
        try await before.execute("ALTER TABLE clicks DROP COLUMN user_token")
        try await before.execute("DELETE FROM ferry_migrations WHERE name IN ('v13-attribution-learning', 'v14-user-clicks')")
        try await before.execute("INSERT INTO apps (id, name, attribution_window, copy_to_open, created_at) VALUES ('app_1', 'Example', 7200, TRUE, 0)")
        try await before.execute("INSERT INTO domains (host, app_id, position) VALUES ('go.example.com', 'app_1', 0)")
        try await before.close()
        let store = try await PostgresStore(url: url)
        try await Self.expectUpgraded(store)
        try await store.close()
    }

    static func expectUpgraded(_ store: any FerryDatabase) async throws {
        var app = try #require(try await store.app(id: "app_1"))
        #expect(app.attribution == AttributionSettings(window: 7200, copyToOpen: true, model: .fixed))
        app.attribution.model = .learned
        #expect(try await store.updateApp(app))
        #expect(try await store.app(forDomain: "go.example.com")?.attribution.model == .learned)
        try await store.recordObservation(observation(seconds: 5))
        #expect(try await store.observations(appID: "app_1", environment: .live, since: epoch, limit: 5).count == 1)
        #expect(try await store.insertModel(appID: "app_1", environment: .live, model: MatchModel(), summary: summary(1), createdAt: epoch).version == 1)
        #expect(try await store.activeModel(appID: "app_1", environment: .live)?.model == MatchModel())
    }
}
#endif
