import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Testing

/// A fresh database file in its own temporary folder, removed at the end.
struct TemporaryDatabase {
    let directory: URL
    var path: String { directory.appendingPathComponent("ferry.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

let epoch = Date(timeIntervalSince1970: 1_800_000_000)

func makeApp(id: String = "app_1", domains: [String] = ["go.example.com"]) -> App {
    App(
        id: id, name: "Example", domains: domains,
        ios: IOSSettings(teamID: "ABCDE12345", bundleIDs: ["com.example.app"], appStoreID: "123456789", urlScheme: "example"),
        android: AndroidSettings(packageName: "com.example.app", sha256Fingerprints: ["AA:BB"]),
        fallbackURL: "https://example.com", social: SocialMetadata(title: "Example", description: "An app", imageURL: "https://example.com/i.png"),
        createdAt: epoch
    )
}

func makeLink(id: String, appID: String = "app_1", slug: String, domain: String = "go.example.com", environment: APIEnvironment = .live, seconds: Double = 0) -> Link {
    Link(
        id: id, appID: appID, environment: environment, domain: domain, slug: slug, destination: "https://example.com/\(slug)",
        iosURL: "example://\(slug)", androidURL: nil, params: ["screen": "promo", "ünïcode": "värde"],
        utm: UTMParameters(source: "newsletter", medium: "email", campaign: "spring", content: nil, term: nil),
        campaign: "spring", referrer: "user-42", social: SocialMetadata(title: "T", description: nil, imageURL: nil),
        expiresAt: epoch.addingTimeInterval(86_400), disabled: false,
        createdAt: epoch.addingTimeInterval(seconds), updatedAt: epoch.addingTimeInterval(seconds)
    )
}

@Suite("SQLite store on real files")
struct SQLiteStoreTests {
    @Test func appsRoundTripWithDomainsInOrder() async throws {
        let db = try TemporaryDatabase()
        defer { db.remove() }
        let store = try SQLiteStore(path: db.path)
        let app = makeApp(domains: ["go.example.com", "links.example.com"])
        try await store.createApp(app)
        #expect(try await store.app(id: "app_1") == app)
        #expect(try await store.app(forDomain: "links.example.com") == app)
        #expect(try await store.app(forDomain: "other.example.com") == nil)
        #expect(try await store.listApps() == [app])
    }

    @Test func aDomainBelongsToOneApp() async throws {
        let store = try SQLiteStore()
        try await store.createApp(makeApp())
        await #expect(throws: StoreConflict.self) {
            try await store.createApp(makeApp(id: "app_2", domains: ["go.example.com"]))
        }
        // The refused app left nothing behind.
        #expect(try await store.app(id: "app_2") == nil)
        #expect(try await store.listApps().count == 1)
    }

    @Test func updatingAnAppReplacesItsDomains() async throws {
        let store = try SQLiteStore()
        var app = makeApp()
        try await store.createApp(app)
        app.domains = ["new.example.com"]
        app.name = "Renamed"
        #expect(try await store.updateApp(app))
        #expect(try await store.app(forDomain: "go.example.com") == nil)
        #expect(try await store.app(forDomain: "new.example.com")?.name == "Renamed")
        #expect(try await store.updateApp(makeApp(id: "app_missing", domains: ["x.example.com"])) == false)
    }

    @Test func keysAreFoundByHashAndRevokedOnce() async throws {
        let store = try SQLiteStore()
        try await store.createApp(makeApp())
        let key = APIKeyRecord(id: "key_1", appID: "app_1", kind: .secret, environment: .test, hash: "abc123", hint: "fs_test_AbCd…", createdAt: epoch)
        try await store.createKey(key)
        #expect(try await store.key(hash: "abc123") == key)
        #expect(try await store.key(hash: "abc124") == nil)
        #expect(try await store.revokeKey(id: "key_1", at: epoch.addingTimeInterval(5)))
        #expect(try await store.revokeKey(id: "key_1", at: epoch.addingTimeInterval(6)) == false)
        #expect(try await store.key(hash: "abc123")?.revokedAt == epoch.addingTimeInterval(5))
        #expect(try await store.keys(appID: "app_1").count == 1)
    }

    @Test func linksRoundTripEveryField() async throws {
        let store = try SQLiteStore()
        try await store.createApp(makeApp())
        let link = makeLink(id: "lnk_1", slug: "spring")
        try await store.createLink(link)
        #expect(try await store.link(id: "lnk_1", appID: "app_1") == link)
        #expect(try await store.link(domain: "go.example.com", slug: "spring") == link)
        #expect(try await store.link(id: "lnk_1", appID: "app_other") == nil)
    }

    @Test func aTakenSlugIsAConflictAndChangesNothing() async throws {
        let store = try SQLiteStore()
        try await store.createApp(makeApp())
        try await store.createLink(makeLink(id: "lnk_1", slug: "spring"))
        let error = await #expect(throws: StoreConflict.self) {
            try await store.createLink(makeLink(id: "lnk_2", slug: "spring"))
        }
        #expect(error?.field == "slug")
        #expect(try await store.link(domain: "go.example.com", slug: "spring")?.id == "lnk_1")
        #expect(try await store.link(id: "lnk_2", appID: "app_1") == nil)
    }

    @Test func theSchemaRefusesWhatTheRulesRefuse() async throws {
        let store = try SQLiteStore()
        try await store.createApp(makeApp())
        // Upper-case slugs and links of unknown apps never reach the table, even if a caller skipped validation.
        await #expect(throws: (any Error).self) { try await store.createLink(makeLink(id: "lnk_u", slug: "UPPER")) }
        await #expect(throws: (any Error).self) { try await store.createLink(makeLink(id: "lnk_x", appID: "app_none", slug: "orphan")) }
    }

    @Test func updateAndDeleteAreScopedToTheApp() async throws {
        let store = try SQLiteStore()
        try await store.createApp(makeApp())
        try await store.createApp(makeApp(id: "app_2", domains: ["other.example.com"]))
        var link = makeLink(id: "lnk_1", slug: "spring")
        try await store.createLink(link)
        link.destination = "https://example.com/changed"
        link.disabled = true
        link.params = [:]
        link.expiresAt = nil
        #expect(try await store.updateLink(link))
        #expect(try await store.link(id: "lnk_1", appID: "app_1") == link)
        #expect(try await store.deleteLink(id: "lnk_1", appID: "app_2") == false)
        #expect(try await store.deleteLink(id: "lnk_1", appID: "app_1"))
        #expect(try await store.link(domain: "go.example.com", slug: "spring") == nil)
    }

    @Test func listingPagesNewestFirstWithinOneEnvironment() async throws {
        let store = try SQLiteStore()
        try await store.createApp(makeApp())
        for index in 0..<25 {
            try await store.createLink(makeLink(id: "lnk_\(index)", slug: "s\(index)", seconds: Double(index)))
        }
        try await store.createLink(makeLink(id: "lnk_test", slug: "t", environment: .test))
        var seen: [String] = []
        var cursor: Int64?
        repeat {
            let page = try await store.listLinks(appID: "app_1", environment: .live, limit: 10, after: cursor)
            seen += page.links.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen == (0..<25).reversed().map { "lnk_\($0)" })
        let test = try await store.listLinks(appID: "app_1", environment: .test, limit: 10, after: nil)
        #expect(test.links.map(\.id) == ["lnk_test"])
        #expect(test.nextCursor == nil)
    }

    @Test func clicksAreWrittenInBatchesAndReadBack() async throws {
        let store = try SQLiteStore()
        let clicks = (0..<500).map { index in
            Click(
                id: "clk_\(index)", linkID: index.isMultiple(of: 2) ? "lnk_a" : "lnk_b", appID: "app_1", environment: .live,
                createdAt: epoch, ipHash: "h\(index)", networkHash: "n", userAgent: "UA", platform: .iOS, referer: nil,
                query: "utm_source=x", acceptLanguage: "en-US"
            )
        }
        try await store.recordClicks(clicks)
        // Writing the same batch again (a retry after a timeout) does not double count.
        try await store.recordClicks(clicks)
        #expect(try await store.clickCount(linkID: "lnk_a") == 250)
        #expect(try await store.click(id: "clk_7") == clicks[7])
    }

    @Test func theChangeCounterMovesOnEveryWriteThatMatters() async throws {
        let store = try SQLiteStore()
        let start = try await store.changeEpoch()
        try await store.createApp(makeApp())
        let afterApp = try await store.changeEpoch()
        #expect(afterApp > start)
        try await store.createLink(makeLink(id: "lnk_1", slug: "a"))
        let afterLink = try await store.changeEpoch()
        #expect(afterLink > afterApp)
        try await store.recordClicks([Click(id: "clk", linkID: "lnk_1", appID: "app_1", environment: .live, createdAt: epoch, ipHash: nil, networkHash: nil, userAgent: nil, platform: .desktop, referer: nil, query: nil, acceptLanguage: nil)])
        #expect(try await store.changeEpoch() == afterLink)
    }

    @Test func settingsAreSetOnce() async throws {
        let store = try SQLiteStore()
        #expect(try await store.setting("ip_hash_key") == nil)
        #expect(try await store.insertSettingIfAbsent("ip_hash_key", value: "first") == "first")
        #expect(try await store.insertSettingIfAbsent("ip_hash_key", value: "second") == "first")
    }

    @Test func dataSurvivesReopeningTheFileAndAnotherProcessSeesIt() async throws {
        let db = try TemporaryDatabase()
        defer { db.remove() }
        do {
            let store = try SQLiteStore(path: db.path)
            try await store.createApp(makeApp())
            try await store.createLink(makeLink(id: "lnk_1", slug: "kept"))
            // A second store on the same file (as the CLI would open it) sees the write and bumps the same counter.
            let other = try SQLiteStore(path: db.path)
            let before = try await store.changeEpoch()
            try await other.createLink(makeLink(id: "lnk_2", slug: "other"))
            #expect(try await store.changeEpoch() > before)
            #expect(try await store.link(domain: "go.example.com", slug: "other")?.id == "lnk_2")
            try await other.close()
            try await store.close()
        }
        let reopened = try SQLiteStore(path: db.path)
        #expect(try await reopened.link(id: "lnk_1", appID: "app_1")?.slug == "kept")
        #expect(try await reopened.listApps().count == 1)
    }

    @Test func theFileIsInWALMode() async throws {
        let db = try TemporaryDatabase()
        defer { db.remove() }
        let store = try SQLiteStore(path: db.path)
        try await store.createApp(makeApp())
        #expect(FileManager.default.fileExists(atPath: db.path + "-wal"))
    }
}

@Suite("SQLite attribution store")
struct SQLiteAttributionStoreTests {
    func click(_ id: String, address: String?, network: String?, seconds: Double) -> Click {
        Click(id: id, linkID: "lnk_1", appID: "app_1", environment: .live, createdAt: epoch.addingTimeInterval(seconds), ipHash: address, networkHash: network,
              userAgent: "UA", platform: .iOS, referer: nil, query: nil, acceptLanguage: "fr-FR,fr;q=0.9,en;q=0.8", osVersion: "18.1", appleDevice: "iphone")
    }

    @Test func candidatesComeByAddressNetworkAndFingerprintAndConsumedOnesLeave() async throws {
        let store = try SQLiteStore()
        try await store.createApp(makeApp())
        try await store.createLink(makeLink(id: "lnk_1", slug: "a"))
        try await store.recordClicks([
            click("clk_address", address: "A", network: "N", seconds: 0),
            click("clk_network", address: "B", network: "N", seconds: 10),
            click("clk_print", address: "C", network: "M", seconds: 20),
            click("clk_other", address: "D", network: "O", seconds: 30),
            click("clk_old", address: "A", network: "N", seconds: -200_000),
        ])
        try await store.recordClickSignals(ClickSignalsRecord(clickID: "clk_print", appID: "app_1",
            signals: DeviceSignals(screenWidth: 393, screenHeight: 852, screenScale: 3, timeZone: "Europe/Paris", languages: ["fr-FR"]), receivedAt: epoch.addingTimeInterval(21)))
        let install = InstallEvidence(addressHash: "A", networkHash: "N",
            signals: DeviceSignals(screenWidth: 852, screenHeight: 393, screenScale: 3, timeZone: "Europe/Paris"), at: epoch.addingTimeInterval(600))
        let query = CandidateQuery(appID: "app_1", environment: .live, install: install, window: 86400)
        let set = try await store.candidates(query, platform: .iOS)
        #expect(Set(set.clicks.map(\.clickID)) == ["clk_address", "clk_network", "clk_print"])
        #expect(set.clicksInWindow == 4)
        #expect(set.sameAddressClicks == 1)
        #expect(set.sameNetworkClicks == 2)
        let print = try #require(set.clicks.first { $0.clickID == "clk_print" })
        #expect(print.screenWidth == 393 && print.timeZone == "Europe/Paris" && print.languages == ["fr-FR"])
        // Without a page report, languages come from Accept-Language in order of preference.
        #expect(set.clicks.first { $0.clickID == "clk_address" }?.languages == ["fr-FR", "fr", "en"])
        #expect(try await store.candidates(query, platform: .android).clicks.isEmpty)

        try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i1", clickID: "clk_address", linkID: "lnk_1",
                                                            matchType: .probabilistic, confidence: 0.9, createdAt: epoch))
        #expect(try await !store.candidates(query, platform: .iOS).clicks.contains { $0.clickID == "clk_address" })
        #expect(try await store.unconsumedClick(id: "clk_address", appID: "app_1", environment: .live, since: epoch) == nil)
        #expect(try await store.unconsumedClick(id: "clk_network", appID: "app_1", environment: .live, since: epoch)?.linkID == "lnk_1")
        #expect(try await store.unconsumedClick(id: "clk_network", appID: "app_2", environment: .live, since: epoch) == nil)

        // One click, one install; one install, one answer.
        let taken = await #expect(throws: StoreConflict.self) {
            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i2", clickID: "clk_address", linkID: "lnk_1",
                                                                matchType: .probabilistic, confidence: 0.9, createdAt: epoch))
        }
        #expect(taken?.field == "clickID")
        let again = await #expect(throws: StoreConflict.self) {
            try await store.insertAttribution(AttributionRecord(appID: "app_1", environment: .live, installID: "i1", clickID: nil, linkID: nil,
                                                                matchType: nil, confidence: nil, createdAt: epoch))
        }
        #expect(again?.field == "installID")
    }

    @Test func purgingForgetsSignalsAndHashesPastTheWindow() async throws {
        let store = try SQLiteStore()
        try await store.createApp(makeApp())
        try await store.recordClicks([click("clk_old", address: "A", network: "N", seconds: 0), click("clk_new", address: "B", network: "N", seconds: 90_000)])
        for (id, seconds) in [("clk_old", 0.0), ("clk_new", 90_000)] {
            try await store.recordClickSignals(ClickSignalsRecord(clickID: id, appID: "app_1", signals: DeviceSignals(screenWidth: 1), receivedAt: epoch.addingTimeInterval(seconds)))
        }
        let touched = try await store.purgeAttributionSignals(now: epoch.addingTimeInterval(100_000))
        #expect(touched == 2)
        #expect(try await store.click(id: "clk_old")?.ipHash == nil)
        #expect(try await store.click(id: "clk_old")?.userAgent == nil)
        #expect(try await store.click(id: "clk_new")?.ipHash == "B")
    }
}
