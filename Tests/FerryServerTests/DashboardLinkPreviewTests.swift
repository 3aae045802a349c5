#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The link form's preview: the card bots will build and where each kind of visitor goes, before anything is saved.
@Suite("Dashboard: link preview", .takesTurns)
struct DashboardLinkPreviewTests {
    static let csp = HTTPField.Name("Content-Security-Policy")!

    /// The preview section of a page, or "" without one.
    static func section(_ html: String) -> String {
        guard let start = html.range(of: #"<section id="link-preview""#) else { return "" }
        let rest = html[start.lowerBound...]
        return String(rest[..<(rest.range(of: "</section>")?.upperBound ?? rest.endIndex)])
    }

    @Test func aNewLinkIsPreviewedWithoutBeingMade() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let form = "csrf=\(csrf)&preview=1&slug=spring&domain=links.example.com&destination=https%3A%2F%2Fshop.example.com%2Fspring"
                + "&title=Spring+%3Csale%3E&description=Half+price&imageURL=https%3A%2F%2Fcdn.example.com%3A8443%2Fcards%2Fspring.png"
                + "&otherPlatformFallbackURL=https%3A%2F%2Fexample.com%2Fdesktop"
            let page = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie, body: form)
            #expect(page.status == .ok)
            let preview = Self.section(page.text)
            #expect(preview.contains(#"<strong class="card-title">Spring &lt;sale&gt;</strong>"#) && preview.contains("Half price"))
            #expect(preview.contains(#"<img src="https://cdn.example.com:8443/cards/spring.png" alt="" referrerpolicy="no-referrer""#))
            #expect(preview.contains("<code>https://links.example.com/spring</code>") && preview.contains(">shop.example.com<"))
            // The card's picture, and only its origin, may load; scripts still may not.
            let policy = try #require(page.headers[Self.csp])
            #expect(policy.contains("img-src 'self' data: https://cdn.example.com:8443;") && policy.contains("default-src 'none'"))
            // Each kind of visitor, as the edge would answer it.
            #expect(preview.contains("<td>iPhone without the app (Safari)</td>") && preview.contains("apps.apple.com/app/id1234567890"))
            #expect(preview.contains("<td>Desktop browser</td><td>redirect</td><td class=\"clip\">https://example.com/desktop</td>"))
            #expect(preview.contains("<td>Link-unfurling bot (Facebook, Slack, iMessage…)</td><td>preview page</td>"))
            // The form keeps what was typed; nothing was stored.
            #expect(page.text.contains(#"value="https://shop.example.com/spring""#) && page.text.contains(#"id="slug" value="spring""#))
            #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 5, after: nil).links.isEmpty)
            #expect(try await fixture.store.auditEvents(AuditQuery(appID: fixture.app.id, objectType: "link")).isEmpty)

            // Without a title, description or image of its own, the app's; a generated slug is not known yet.
            let bare = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie,
                                                     body: "csrf=\(csrf)&preview=1&destination=https%3A%2F%2Fexample.com%2Fa")
            let card = Self.section(bare.text)
            #expect(card.contains(#"<strong class="card-title">Example App</strong>"#) && card.contains("The example app"))
            #expect(card.contains(#"<img src="https://example.com/card.png""#) && card.contains("<code>https://go.example.com/…</code>"))
            #expect(bare.headers[Self.csp]?.contains("img-src 'self' data: https://example.com;") == true)

            // What saving would refuse, previewing refuses the same way, and shows no card.
            let refused = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie,
                                                        body: "csrf=\(csrf)&preview=1&destination=javascript%3Aalert(1)&imageURL=https%3A%2F%2Fcdn.example.com%2Fx.png")
            #expect(refused.status == .badRequest && Self.section(refused.text).isEmpty && refused.text.contains("destination"))
            #expect(refused.headers[Self.csp]?.contains("cdn.example.com") == false)
            let taken = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie,
                                                      body: "csrf=\(csrf)&preview=1&domain=elsewhere.example.net&destination=https%3A%2F%2Fexample.com%2F")
            #expect(taken.status == .badRequest && taken.text.contains("is not one of this app"))
            let forged = try await DashboardTests.post(client, "/dashboard/links", cookie: cookie, body: "csrf=forged&preview=1&destination=https%3A%2F%2Fexample.com%2F")
            #expect(forged.status == .forbidden)
        }
    }

    @Test func anEditIsPreviewedAndTheStoredLinkStaysAsItWas() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        var request = CreateLinkRequest(slug: "promo", destination: "https://example.com/promo", campaign: "spring",
                                        social: SocialMetadata(title: "Stored title", description: nil, imageURL: nil))
        request.disabled = true
        let link = try await fixture.admin.createLink(request, app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            // The edit page previews the link as it is: disabled, so every visitor gets the status page.
            let edit = try await client.execute(uri: "/dashboard/links/\(link.id)/edit", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            let stored = Self.section(edit.text)
            #expect(stored.contains(#"<strong class="card-title">Stored title</strong>"#) && stored.contains("<td>Desktop browser</td><td>status page</td>"))
            #expect(stored.contains(#"id="preview-warnings""#))
            let changed = try await DashboardTests.post(client, "/dashboard/links/\(link.id)", cookie: cookie,
                                                        body: "csrf=\(csrf)&preview=1&destination=https%3A%2F%2Fexample.com%2Fnew&title=New+title&iosURL=example%3A%2F%2Fpromo")
            #expect(changed.status == .ok && Self.section(changed.text).contains(#"<strong class="card-title">New title</strong>"#))
            #expect(try await fixture.store.link(id: link.id, appID: fixture.app.id) == link)
        }
    }

    @Test func onlyAPlainWebOriginGoesIntoThePolicy() {
        #expect(DashboardController.imageOrigin("https://CDN.example.com/a.png?x=1") == "https://cdn.example.com")
        #expect(DashboardController.imageOrigin("http://cdn.example.com:8080/a.png") == "http://cdn.example.com:8080")
        for hostile in ["https://cdn.example.com;script-src *", "https://cdn.example.com%3Bscript-src/a.png", "javascript:alert(1)", "data:image/png;base64,AA",
                        "https://user:pass@cdn.example.com/a.png'", "//cdn.example.com/a.png", "https://[::1]/a.png", "https:///a.png"] {
            let origin = DashboardController.imageOrigin(hostile)
            #expect(origin == nil || origin == "https://cdn.example.com", "\(hostile): \(origin ?? "nil")")
            #expect(origin.map { !$0.contains(";") && !$0.contains(" ") && !$0.contains("'") } ?? true)
        }
    }
}
#endif
