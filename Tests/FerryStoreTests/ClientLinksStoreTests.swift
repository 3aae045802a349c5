#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// Links made in the app: the app's switch, the mark on each link, one link per request digest within the reuse
/// period, the filtered listing and the bulk deletion, on each store.
@Suite("Store conformance: client links", .takesTurns)
struct ClientLinksStoreTests {
    func madeInApp(_ id: String, slug: String, seconds: Double, environment: APIEnvironment = .live) -> Link {
        var link = makeLink(id: id, slug: slug, environment: environment, seconds: seconds)
        link.createdInApp = true
        return link
    }

    @Test(arguments: StoreBackend.available) func theAppSwitchAndTheMarkRoundTrip(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            var app = makeApp()
            try await store.createApp(app)
            #expect(try await store.app(id: "app_1")?.clientLinks == false)
            app.clientLinks = true
            #expect(try await store.updateApp(app))
            #expect(try await store.app(id: "app_1") == app)
            #expect(try await store.app(forDomain: "go.example.com")?.clientLinks == true)

            let link = madeInApp("lnk_1", slug: "abc1234", seconds: 0)
            let made = try await store.createLink(link, requestDigest: "d1", reusingSince: epoch.addingTimeInterval(-86_400))
            #expect(made.created && made.link == link)
            #expect(try await store.link(id: "lnk_1", appID: "app_1")?.createdInApp == true)
            #expect(try await store.link(domain: "go.example.com", slug: "abc1234") == link)
        }
    }

    @Test(arguments: StoreBackend.available) func oneRequestMakesOneLinkUntilItsReuseEnds(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createApp(makeApp(id: "app_2", domains: ["other.example.com"]))
            let first = madeInApp("lnk_1", slug: "first01", seconds: 0)
            #expect(try await store.createLink(first, requestDigest: "same", reusingSince: epoch.addingTimeInterval(-86_400)).created)
            // Five hours later the same request gets the same link, and nothing is stored.
            let again = madeInApp("lnk_2", slug: "second2", seconds: 5 * 3600)
            let repeated = try await store.createLink(again, requestDigest: "same", reusingSince: again.createdAt.addingTimeInterval(-86_400))
            #expect(!repeated.created && repeated.link == first)
            #expect(try await store.link(id: "lnk_2", appID: "app_1") == nil)
            // The same digest in another app is another request.
            var elsewhere = madeInApp("lnk_3", slug: "third03", seconds: 5 * 3600)
            elsewhere.appID = "app_2"
            elsewhere.domain = "other.example.com"
            #expect(try await store.createLink(elsewhere, requestDigest: "same", reusingSince: epoch).created)
            // A day and an hour later it makes a new link; the old one stays, and the next repeat gets the new one.
            let later = madeInApp("lnk_4", slug: "fourth4", seconds: 25 * 3600)
            #expect(try await store.createLink(later, requestDigest: "same", reusingSince: later.createdAt.addingTimeInterval(-86_400)).created)
            #expect(try await store.link(id: "lnk_1", appID: "app_1") == first)
            let next = madeInApp("lnk_5", slug: "fifth05", seconds: 26 * 3600)
            #expect(try await store.createLink(next, requestDigest: "same", reusingSince: next.createdAt.addingTimeInterval(-86_400)).link == later)
            // A taken slug is a conflict, as for any link, and leaves nothing behind.
            await #expect(throws: StoreConflict.self) {
                try await store.createLink(madeInApp("lnk_6", slug: "first01", seconds: 26 * 3600), requestDigest: "other", reusingSince: epoch)
            }
            #expect(try await store.link(id: "lnk_6", appID: "app_1") == nil)
        }
    }

    @Test(arguments: StoreBackend.available) func concurrentIdenticalRequestsMakeOneLink(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            let results = try await withThrowingTaskGroup(of: (link: Link, created: Bool).self) { group in
                for index in 0..<8 {
                    let link = madeInApp("lnk_\(index)", slug: "race\(index)00", seconds: 60)
                    group.addTask { try await store.createLink(link, requestDigest: "tap", reusingSince: epoch) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter(\.created).count == 1)
            #expect(Set(results.map(\.link.id)).count == 1)
            #expect(try await store.listLinks(appID: "app_1", environment: .live, limit: 20, after: nil).links.count == 1)
        }
    }

    @Test(arguments: StoreBackend.available) func theListingFiltersAndTheBulkDeletionTakesOnlyAppMadeLinks(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            for index in 0..<5 {
                try await store.createLink(madeInApp("lnk_app\(index)", slug: "app\(index)", seconds: Double(index) * 3600))
            }
            try await store.createLink(madeInApp("lnk_test", slug: "apptest", seconds: 0, environment: .test))
            for index in 0..<3 { try await store.createLink(makeLink(id: "lnk_api\(index)", slug: "api\(index)", seconds: Double(index))) }

            let inApp = try await store.listLinks(appID: "app_1", environment: .live, createdInApp: true, limit: 3, after: nil)
            #expect(inApp.links.map(\.slug) == ["app4", "app3", "app2"])
            let rest = try await store.listLinks(appID: "app_1", environment: .live, createdInApp: true, limit: 3, after: inApp.nextCursor)
            #expect(rest.links.map(\.slug) == ["app1", "app0"] && rest.nextCursor == nil)
            let others = try await store.listLinks(appID: "app_1", environment: .live, createdInApp: false, limit: 10, after: nil)
            #expect(others.links.map(\.slug) == ["api2", "api1", "api0"])
            #expect(try await store.listLinks(appID: "app_1", environment: .live, limit: 20, after: nil).links.count == 8)

            // Made before 2 h 30 min: app0, app1 and app2, oldest first, two at a time.
            let cutoff = epoch.addingTimeInterval(2.5 * 3600)
            let firstBatch = try await store.deleteLinksCreatedInApp(appID: "app_1", environment: .live, createdBefore: cutoff, limit: 2)
            #expect(firstBatch == [LinkChanges.Place(domain: "go.example.com", slug: "app0"), LinkChanges.Place(domain: "go.example.com", slug: "app1")])
            let secondBatch = try await store.deleteLinksCreatedInApp(appID: "app_1", environment: .live, createdBefore: cutoff, limit: 2)
            #expect(secondBatch == [LinkChanges.Place(domain: "go.example.com", slug: "app2")])
            #expect(try await store.deleteLinksCreatedInApp(appID: "app_1", environment: .live, createdBefore: cutoff, limit: 2).isEmpty)
            #expect(try await store.deleteLinksCreatedInApp(appID: "app_2", environment: .live, createdBefore: .distantFuture, limit: 100).isEmpty)
            let left = try await store.listLinks(appID: "app_1", environment: .live, limit: 20, after: nil).links.map(\.slug)
            #expect(left == ["api2", "api1", "api0", "app4", "app3"])
            #expect(try await store.link(id: "lnk_test", appID: "app_1") != nil)
        }
    }
}
#endif
