#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The links listing filtered by state, campaign, domain, creation time and text, page by page, on each store.
@Suite("Store conformance: link filters", .takesTurns)
struct LinkFilterStoreTests {
    @Test(arguments: StoreBackend.available) func eachFilterKeepsItsLinksAndTheyCombine(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp(domains: ["go.example.com", "links.example.com"]))
            // Made an hour apart: live ones, an expired one, a disabled one (also expired), one on the other domain,
            // one filed only under its UTM campaign, one with a LIKE wildcard in its slug, and a test-environment one.
            func link(_ id: String, _ slug: String, hour: Double, change: (inout Link) -> Void = { _ in }) async throws {
                var link = makeLink(id: id, slug: slug, seconds: hour * 3600)
                link.expiresAt = nil
                change(&link)
                try await store.createLink(link)
            }
            try await link("lnk_a", "alpha", hour: 0)
            try await link("lnk_b", "bravo", hour: 1) { $0.campaign = "autumn" }
            try await link("lnk_c", "charlie", hour: 2) { $0.expiresAt = epoch.addingTimeInterval(2.5 * 3600) }
            try await link("lnk_d", "delta", hour: 3) { $0.disabled = true; $0.expiresAt = epoch }
            try await link("lnk_e", "echo", hour: 4) { $0.domain = "links.example.com" }
            try await link("lnk_f", "foxtrot", hour: 5) { $0.campaign = nil; $0.utm.campaign = "winter" }
            try await link("lnk_g", "g_100%", hour: 6) { $0.destination = "https://example.com/sale" }
            var test = makeLink(id: "lnk_t", slug: "tango", environment: .test)
            test.expiresAt = nil
            try await store.createLink(test)

            let now = epoch.addingTimeInterval(10 * 3600)
            func slugs(_ filter: LinkFilter, limit: Int = 50) async throws -> [String] {
                var found: [String] = []
                var cursor: Int64?
                repeat {
                    let page = try await store.listLinks(appID: "app_1", environment: .live, filter: filter, limit: limit, after: cursor)
                    found += page.links.map(\.slug)
                    cursor = page.nextCursor
                } while cursor != nil
                return found
            }
            #expect(try await slugs(LinkFilter(now: now)) == ["g_100%", "foxtrot", "echo", "delta", "charlie", "bravo", "alpha"])
            #expect(try await slugs(LinkFilter(now: now), limit: 2) == ["g_100%", "foxtrot", "echo", "delta", "charlie", "bravo", "alpha"],
                    "the same links page by page")
            #expect(try await slugs(LinkFilter(status: .active, now: now)) == ["g_100%", "foxtrot", "echo", "bravo", "alpha"])
            #expect(try await slugs(LinkFilter(status: .expired, now: now)) == ["charlie"], "a disabled link counts as disabled")
            #expect(try await slugs(LinkFilter(status: .disabled, now: now)) == ["delta"])
            #expect(try await slugs(LinkFilter(status: .active, now: epoch.addingTimeInterval(2 * 3600))).contains("charlie"),
                    "before its expiry a link is active")
            #expect(try await slugs(LinkFilter(campaign: "spring", now: now)) == ["g_100%", "echo", "delta", "charlie", "alpha"])
            #expect(try await slugs(LinkFilter(campaign: "winter", now: now)) == ["foxtrot"], "a link without its own campaign is filed under its UTM one")
            #expect(try await slugs(LinkFilter(campaign: "autumn", now: now)) == ["bravo"])
            #expect(try await slugs(LinkFilter(domain: "LINKS.example.com", now: now)) == ["echo"])
            #expect(try await slugs(LinkFilter(createdFrom: epoch.addingTimeInterval(2 * 3600), createdBefore: epoch.addingTimeInterval(4 * 3600),
                                               now: now)) == ["delta", "charlie"], "from inclusive, before exclusive")
            #expect(try await slugs(LinkFilter(text: "SALE", now: now)) == ["g_100%"])
            #expect(try await slugs(LinkFilter(text: "winter", now: now)) == ["foxtrot"], "the text is looked for in the UTM campaign too")
            #expect(try await slugs(LinkFilter(text: "_1", now: now)) == ["g_100%"], "LIKE's wildcards are taken literally")
            #expect(try await slugs(LinkFilter(text: "%", now: now)) == ["g_100%"])
            #expect(try await slugs(LinkFilter(status: .active, campaign: "spring", domain: "go.example.com", now: now)) == ["g_100%", "alpha"])
            #expect(try await slugs(LinkFilter(createdInApp: true, now: now)).isEmpty)
            #expect(try await store.listLinks(appID: "app_1", environment: .test, filter: LinkFilter(text: "tango", now: now), limit: 10, after: nil)
                .links.map(\.slug) == ["tango"])
            #expect(try await slugs(LinkFilter(text: "tango", now: now)).isEmpty, "another environment's links stay out")
        }
    }
}
#endif
