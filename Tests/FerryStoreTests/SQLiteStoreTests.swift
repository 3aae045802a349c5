#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import GRDB
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

@Suite("SQLite store on real files", .takesTurns)
struct SQLiteStoreTests {

    @Test func dataSurvivesReopeningTheFileAndAnotherProcessSeesIt() async throws {
        let db = try TemporaryDatabase()
        defer { db.remove() }
        do {
            let store = try SQLiteStore(path: db.path)
            try await store.createApp(makeApp())
            try await store.createLink(makeLink(id: "lnk_1", slug: "kept"))
            // A second store on the same file (as the CLI would open it) sees the write in the same log of changes.
            let other = try SQLiteStore(path: db.path)
            let before = try await store.linkChanges(since: nil)
            try await other.createLink(makeLink(id: "lnk_2", slug: "other"))
            #expect(try await store.linkChanges(since: before.mark).places == [.init(domain: "go.example.com", slug: "other")])
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

    @Test func readsLeaveNoSnapshotHeldBehind() async throws {
        let db = try TemporaryDatabase()
        defer { db.remove() }
        let store = try SQLiteStore(path: db.path)
        try await store.createApp(makeApp())
        try await store.createLink(makeLink(id: "lnk_1", slug: "one"))
        try await store.createLink(makeLink(id: "lnk_2", slug: "two"))
        // Reads that stop at their first row, or read them all, on the immediate readers and on the pool.
        #expect(try store.linkImmediately(domain: "go.example.com", slug: "one")?.id == "lnk_1")
        #expect(try await store.link(id: "lnk_2", appID: "app_1")?.slug == "two")
        #expect(try await store.listLinks(appID: "app_1", environment: .live, limit: 1, after: nil).links.count == 1)
        try await store.createLink(makeLink(id: "lnk_3", slug: "three"))
        // The whole log can be copied back and emptied only if no connection still holds a snapshot from before the
        // last write (a statement left standing on a row holds one until it is reset).
        var configuration = Configuration()
        configuration.busyMode = .timeout(0.2)
        let checker = try DatabaseQueue(path: db.path, configuration: configuration)
        var busy = 1
        // The store's own checkpointer may be at work at that moment: a few tries.
        for _ in 0..<10 where busy != 0 {
            busy = (try? await checker.writeWithoutTransaction { db in
                try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)").map { $0[0] as Int }
            }) ?? 1
            if busy != 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(busy == 0, "a reader still holds an old snapshot")
        try checker.close()
        try await store.close()
    }

    @Test func theLogIsCopiedBackBesideTheWriterAndEmptiedOnClose() async throws {
        let db = try TemporaryDatabase()
        defer { db.remove() }
        let store = try SQLiteStore(path: db.path)
        try await store.createApp(makeApp())
        try await store.createLink(makeLink(id: "lnk_1", slug: "one"))
        try await store.recordClicks((0..<2000).map { click("clk_\($0)", address: "a\($0)", network: "n", seconds: Double($0)) })
        // Nothing, or an empty file: no log.
        func logSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: db.path + "-wal"))?[.size] as? Int) ?? 0 }
        #expect(logSize() > 0)
        // Within a couple of seconds the checkpointing thread has copied the log into the file, without a write.
        let file = db.path
        let deadline = ContinuousClock.now + .seconds(5)
        var copied = false
        while ContinuousClock.now < deadline, !copied {
            try await Task.sleep(for: .milliseconds(100))
            let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            copied = size > 64 * 1024
        }
        #expect(copied, "the database file grew from the log")
        try await store.close()
        #expect(logSize() == 0, "a closed store leaves no log to read back at the next start")
        let reopened = try SQLiteStore(path: db.path)
        #expect(try await reopened.clickCount(linkID: "lnk_1") == 2000)
        try await reopened.close()
    }
}
#endif
