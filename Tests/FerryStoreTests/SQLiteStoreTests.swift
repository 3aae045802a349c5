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
