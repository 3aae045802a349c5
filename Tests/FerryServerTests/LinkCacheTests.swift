#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import Testing

/// The edge's cache and how it asks the database what the cache does not know.
@Suite("Link cache", .takesTurns)
struct LinkCacheTests {
    static func link(_ slug: String, to destination: String) -> Link {
        Link(id: "lnk_\(slug)", appID: "app_1", environment: .live, domain: "go.example.com", slug: slug, destination: destination,
             createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func emptyingKeepsWhatItHeldAsStaleAndAWriteHereForgetsIt() {
        let cache = LinkCache(capacity: 10)
        let app = App(id: "app_1", name: "Example", domains: ["go.example.com"], createdAt: Date(timeIntervalSince1970: 0))
        cache.store(.found(Self.link("promo", to: "https://example.com/a")), domain: "go.example.com", slug: "promo", generation: cache.generation)
        cache.store(.missing, domain: "go.example.com", slug: "nope", generation: cache.generation)
        cache.store(.found(app), host: "go.example.com", generation: cache.generation)
        #expect(cache.staleLink(domain: "go.example.com", slug: "promo") == nil, "nothing is stale before an emptying")

        cache.removeAll()
        #expect(cache.link(domain: "go.example.com", slug: "promo") == nil, "an emptied cache answers nothing fresh")
        guard case .found(let stale)? = cache.staleLink(domain: "go.example.com", slug: "promo") else {
            Issue.record("the emptied link was not kept as stale")
            return
        }
        #expect(stale.value.destination == "https://example.com/a")
        guard case .missing? = cache.staleLink(domain: "go.example.com", slug: "nope") else {
            Issue.record("a known absence was not kept as stale")
            return
        }
        guard case .found(let staleApp)? = cache.staleApp(host: "go.example.com") else {
            Issue.record("the emptied app was not kept as stale")
            return
        }
        #expect(staleApp.value.id == "app_1")

        // A second emptying (an outage may bring several) keeps the first one's stale entries.
        cache.removeAll()
        #expect(cache.staleLink(domain: "go.example.com", slug: "promo") != nil)

        // A change made through this process is authoritative: the stale copy goes too.
        cache.invalidate(domain: "go.example.com", slug: "promo")
        #expect(cache.staleLink(domain: "go.example.com", slug: "promo") == nil)
    }

    @Test func anAnswerReadBeforeAnEmptyingIsKeptOnlyAsStale() {
        let cache = LinkCache(capacity: 10)
        let generation = cache.generation
        cache.removeAll()  // a change notice arrives while the lookup was reading the database
        cache.store(.found(Self.link("promo", to: "https://example.com/a")), domain: "go.example.com", slug: "promo", generation: generation)
        #expect(cache.link(domain: "go.example.com", slug: "promo") == nil, "a possibly outdated answer is not served as fresh")
        #expect(cache.staleLink(domain: "go.example.com", slug: "promo") != nil, "but it is there for an outage")
    }

    @Test func staleEntriesStayWithinTheCapacity() {
        let cache = LinkCache(capacity: 3)
        for round in 0..<5 {
            for index in 0..<3 {
                let slug = "r\(round)i\(index)"
                cache.store(.found(Self.link(slug, to: "https://example.com/\(slug)")), domain: "go.example.com", slug: slug, generation: cache.generation)
            }
            cache.removeAll()
        }
        let kept = (0..<5).flatMap { round in (0..<3).map { "r\(round)i\($0)" } }
            .filter { cache.staleLink(domain: "go.example.com", slug: $0) != nil }
        #expect(kept.count <= 3 * 2, "stale entries are bounded by the capacity (this round's and at most one before)")
        #expect(kept.contains("r4i0") && kept.contains("r4i2"), "the latest emptying is always kept")
    }

    @Test func aHostInUseSurvivesAFloodOfMadeUpHostsAndTheLeastRecentlyUsedMakeRoom() {
        let cache = LinkCache(capacity: 10)
        let app = App(id: "app_1", name: "Example", domains: ["go.example.com"], createdAt: Date(timeIntervalSince1970: 0))
        cache.store(.found(app), host: "go.example.com", generation: cache.generation)
        cache.store(.missing, host: "unused.example", generation: cache.generation)
        cache.store(.missing, host: "known-missing.example", generation: cache.generation)
        // Random Host names, three times the 10,000 hosts the cache holds, while real clicks keep using two hosts.
        let held = 10_000
        let flood = 3 * held
        for index in 0..<flood {
            if index % 1000 == 0 {
                _ = cache.app(host: "go.example.com")
                _ = cache.app(host: "known-missing.example")
            }
            cache.store(.missing, host: "h\(index).flood.example", generation: cache.generation)
        }
        guard case .found(let kept)? = cache.app(host: "go.example.com") else {
            Issue.record("a host in use lost its entry to the flood")
            return
        }
        #expect(kept.value.id == "app_1")
        guard case .missing? = cache.app(host: "known-missing.example") else {
            Issue.record("a host known to have no app, in use, lost its entry to the flood")
            return
        }
        #expect(cache.app(host: "unused.example") == nil, "a host nobody used made room")
        #expect(cache.app(host: "h0.flood.example") == nil, "the oldest of the flood made room")
        let newest = (flood - held + 2)..<flood
        #expect(newest.allSatisfy { cache.app(host: "h\($0).flood.example") != nil }, "the latest hosts fill the rest of the cache")

        // An emptying keeps what the hosts knew as stale entries, as before.
        cache.removeAll()
        #expect(cache.app(host: "go.example.com") == nil)
        guard case .found? = cache.staleApp(host: "go.example.com") else {
            Issue.record("the host's app was not kept as stale")
            return
        }
    }

    @Test func aLookupPastItsDeadlineSaysTheDatabaseIsAwayAndOtherErrorsPassThrough() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-lookups-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("ferry.sqlite").path)
        let lookups = EdgeLookups(store: store, timeout: .milliseconds(100))

        #expect(try await lookups.run { 7 } == 7)
        let started = ContinuousClock.now
        await #expect(throws: DatabaseUnavailable.self, "a lookup past its deadline says the database is away") {
            try await lookups.run { () async throws -> Int in
                try await Task.sleep(for: .seconds(30))
                return 0
            }
        }
        #expect(ContinuousClock.now - started < .seconds(30), "the caller did not wait for the stuck lookup")
        struct Wrong: Error {}
        await #expect(throws: Wrong.self, "an error that is not an outage stays what it is") {
            try await lookups.run { () async throws -> Int in throw Wrong() }
        }
        #expect(try await lookups.run { 8 } == 8)
    }
}

/// The cache kept in step with changes made by another process on the same database.
@Suite("Cache refresher", .takesTurns)
struct CacheRefresherTests {
    @Test func anotherProcessChangingOneLinkMakesTheCacheForgetThatLinkAloneAndAnAppChangeEverything() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let kept = try await fixture.admin.createLink(CreateLinkRequest(slug: "kept", destination: "https://example.com/kept"), app: fixture.app, environment: .live)
        var changed = try await fixture.admin.createLink(CreateLinkRequest(slug: "changed", destination: "https://example.com/a"), app: fixture.app, environment: .live)
        let cache = LinkCache(capacity: 100)
        let refresher = CacheRefresher(cache: cache, store: fixture.store, interval: .seconds(3600), logger: Logger(label: "test"))
        var position = CacheRefresher.Position()
        await refresher.look(&position)

        cache.store(.found(kept), domain: kept.domain, slug: kept.slug, generation: cache.generation)
        cache.store(.found(changed), domain: changed.domain, slug: changed.slug, generation: cache.generation)
        cache.store(.missing, domain: kept.domain, slug: "soon", generation: cache.generation)

        // The CLI, on the same file: a new destination, and a link where the cache knew there was none.
        let other = try SQLiteStore(path: fixture.path)
        changed.destination = "https://example.com/b"
        #expect(try await other.updateLink(changed))
        _ = try await FerryAdmin(store: other).createLink(CreateLinkRequest(slug: "soon", destination: "https://example.com/soon"), app: fixture.app, environment: .live)
        await refresher.look(&position)
        #expect(cache.link(domain: changed.domain, slug: changed.slug) == nil, "the changed link is forgotten")
        #expect(cache.link(domain: kept.domain, slug: "soon") == nil, "the absence that is no longer true is forgotten")
        guard case .found(let still)? = cache.link(domain: kept.domain, slug: kept.slug) else {
            Issue.record("a link nobody changed was dropped from the cache")
            return
        }
        #expect(still.value.destination == "https://example.com/kept")

        // Nothing changed: nothing forgotten.
        await refresher.look(&position)
        #expect(cache.link(domain: kept.domain, slug: kept.slug) != nil)

        // An app's settings reach every one of its links: the whole cache goes.
        var app = fixture.app
        app.fallbackURL = "https://example.com/elsewhere"
        #expect(try await other.updateApp(app))
        await refresher.look(&position)
        #expect(cache.link(domain: kept.domain, slug: kept.slug) == nil)
        try await other.close()
    }
}
#endif
