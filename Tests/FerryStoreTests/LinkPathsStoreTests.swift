#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryStore
import FerryTestSupport
import Foundation
import GRDB
import Testing

/// Path prefixes of link domains and slugs of several segments, stored and read back by each store.
@Suite("Store conformance: link paths", .takesTurns)
struct LinkPathsStoreTests {
    @Test(arguments: StoreBackend.available) func pathPrefixesAndLongSlugsRoundTrip(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            var app = makeApp(domains: ["go.example.com", "example.org"])
            app.pathPrefixes = ["example.org": "/links", "go.example.com": "/go/app"]
            try await store.createApp(app)
            #expect(try await store.app(id: "app_1") == app)
            #expect(try await store.app(forDomain: "example.org")?.pathPrefixes == app.pathPrefixes)
            app.pathPrefixes = ["example.org": "/l"]
            #expect(try await store.updateApp(app))
            #expect(try await store.app(id: "app_1") == app)
            app.pathPrefixes = [:]
            #expect(try await store.updateApp(app))
            #expect(try await store.listApps() == [app])

            // A slug of four segments and 128 bytes, the longest there is.
            let longest = [String(repeating: "a", count: 64), "b", "c", String(repeating: "d", count: 59)].joined(separator: "/")
            #expect(longest.utf8.count == Slug.maxPathLength && Slug.normalize(longest) == longest)
            for (id, slug) in [("lnk_1", "promo/spring-26"), ("lnk_2", longest)] {
                let link = makeLink(id: id, slug: slug)
                try await store.createLink(link)
                #expect(try await store.link(domain: "go.example.com", slug: slug) == link)
                #expect(try await store.link(id: id, appID: "app_1") == link)
            }
            // One longer, or upper-case, never reaches the table.
            await #expect(throws: (any Error).self) { try await store.createLink(makeLink(id: "lnk_3", slug: longest + "e")) }
            await #expect(throws: (any Error).self) { try await store.createLink(makeLink(id: "lnk_4", slug: "Promo/X")) }
        }
    }

    /// A database made before slugs could have several segments keeps its links, their order and their change log
    /// through the migration that builds `links` again, and takes long slugs after it.
    @Test func upgradingSQLiteKeepsEveryLinkAndItsTriggers() async throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        do {
            let queue = try DatabaseQueue(path: database.path)
            try SQLiteStore.migrator.migrate(queue, upTo: "v12-binding-authority")
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO apps (id, name, created_at) VALUES ('app_1', 'Example', 0)")
                try db.execute(sql: "INSERT INTO domains (host, app_id, position) VALUES ('go.example.com', 'app_1', 0)")
                for (seq, slug) in [(1, "first"), (2, "second"), (3, "gone")] {
                    try db.execute(sql: """
                        INSERT INTO links (seq, id, app_id, environment, domain, slug, destination, created_at, updated_at)
                        VALUES (?, ?, 'app_1', 'live', 'go.example.com', ?, 'https://example.com/', 0, 0)
                        """, arguments: [seq, "lnk_\(slug)", slug])
                }
                try db.execute(sql: "DELETE FROM links WHERE slug = 'gone'")
                let tooLong = String(repeating: "a", count: 64) + "/b"
                #expect(throws: (any Error).self) {
                    try db.execute(sql: "UPDATE links SET slug = ? WHERE slug = 'first'", arguments: [tooLong])
                }
            }
        }
        let store = try SQLiteStore(path: database.path)
        #expect(try await store.app(id: "app_1")?.pathPrefixes == [:])
        let page = try await store.listLinks(appID: "app_1", environment: .live, limit: 10, after: nil)
        #expect(page.links.map(\.slug) == ["second", "first"])
        let mark = try await store.linkChanges(since: nil)
        // A new link gets a place after every link the table ever had (the AUTOINCREMENT counter came along), and the
        // triggers still log changes.
        let long = String(repeating: "a", count: 64) + "/" + String(repeating: "b", count: 63)
        try await store.createLink(makeLink(id: "lnk_long", slug: long))
        #expect(try await store.link(domain: "go.example.com", slug: long)?.id == "lnk_long")
        let seq = try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT seq FROM links WHERE id = 'lnk_long'") }
        #expect(seq == 4)
        let changes = try await store.linkChanges(since: mark.mark)
        #expect(changes.places?.contains(LinkChanges.Place(domain: "go.example.com", slug: long)) == true, "\(changes)")
        let indexes = try await store.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE tbl_name = 'links' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY name")
        }
        #expect(indexes == ["links_app_env_seq", "links_app_routed", "links_created_in_app", "links_delete_change", "links_insert_change", "links_request_digest", "links_update_change"])
    }
}
#endif
