#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The dashboard's side of share links made in the app: the settings switch, the mark and filter in the links list,
/// and the owner's bulk deletion, each through the forms with their session token.
@Suite("Dashboard: client links", .takesTurns)
struct DashboardClientLinksTests {
    @Test func theOwnerTurnsClientLinksOnSeesThemAndDeletesThemInBulk() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            func page(_ uri: String) async throws -> String {
                try await client.execute(uri: uri, method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")])).text
            }
            #expect(try await page("/dashboard/settings").contains(#"id="client-links" value="on">"#))
            let settings = "csrf=\(csrf)&name=Example&attributionWindow=24&teamID=ABCDE12345&bundleIDs=com.example.app&urlScheme=example"
                + "&fallbackURL=https%3A%2F%2Fexample.com%2F"
            // A refused save keeps the box as it was sent.
            let refused = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: settings + "&clientLinks=on&allowedURLPatterns=%5Bunclosed")
            #expect(refused.status == .badRequest && refused.text.contains(#"id="client-links" value="on" checked>"#))
            #expect(try await fixture.store.app(id: fixture.app.id)?.clientLinks == false)
            let saved = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: settings + "&clientLinks=on")
            #expect(saved.status == .ok)
            let app = try #require(try await fixture.store.app(id: fixture.app.id))
            #expect(app.clientLinks)

            for post in 1...3 {
                _ = try await fixture.admin.createClientLink(CreateLinkRequest(destination: "https://example.com/posts/\(post)"), app: app, environment: .live)
            }
            _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "campaign", destination: "https://example.com/"), app: app, environment: .live)
            let all = try await page("/dashboard")
            #expect(all.components(separatedBy: #"class="badge""#).count - 1 == 3)
            #expect(all.contains("/campaign") && all.contains(#"id="made-in-app""#))
            let madeInApp = try await page("/dashboard?made=app")
            #expect(!madeInApp.contains("/campaign") && madeInApp.contains("posts/3") && madeInApp.contains(#"id="delete-made-in-app""#))
            let linkID = try #require(try await fixture.store.listLinks(appID: app.id, environment: .live, createdInApp: true, limit: 1, after: nil).links.first?.id)
            #expect(try await page("/dashboard/links/\(linkID)").contains("A share link made in the app"))

            // Without the session's token nothing is deleted; a bad number of days is refused; then all go.
            let forged = try await DashboardTests.post(client, "/dashboard/links/delete-made-in-app", cookie: cookie, body: "csrf=wrong")
            #expect(forged.status == .forbidden)
            let bad = try await DashboardTests.post(client, "/dashboard/links/delete-made-in-app", cookie: cookie, body: "csrf=\(csrf)&days=-4")
            #expect(bad.status == .badRequest)
            let none = try await DashboardTests.post(client, "/dashboard/links/delete-made-in-app", cookie: cookie, body: "csrf=\(csrf)&days=30")
            #expect(none.status == .seeOther && none.headers[.location] == "/dashboard?made=app&deleted=0")
            #expect(try await fixture.store.listLinks(appID: app.id, environment: .live, limit: 10, after: nil).links.count == 4)
            let deleted = try await DashboardTests.post(client, "/dashboard/links/delete-made-in-app", cookie: cookie, body: "csrf=\(csrf)&days=")
            #expect(deleted.headers[.location] == "/dashboard?made=app&deleted=3")
            #expect(try await page("/dashboard?made=app&deleted=3").contains("3 links made in the app were deleted."))
        }
        #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 10, after: nil).links.map(\.slug) == ["campaign"])
    }
}
#endif
