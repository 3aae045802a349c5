#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The dashboard's guards, request by request: sessions, CSRF, origins, tenants, escaping.
@Suite("Dashboard", .takesTurns)
struct DashboardTests {
    static let origin = "http://go.example.com"

    /// Signs in with a key through the form; returns the session cookie's value and a CSRF token of the session.
    static func signIn(_ client: some TestClientProtocol, key: String) async throws -> (cookie: String, csrf: String)? {
        let form = try await client.execute(uri: "/dashboard/sign-in", method: .get, headers: headers())
        let nonce = try #require(form.headers[values: .setCookie].first { $0.hasPrefix("ferry_signin=") }?.dropFirst(13).prefix { $0 != ";" })
        let token = try #require(Self.field("csrf", in: form.text))
        let response = try await client.execute(
            uri: "/dashboard/sign-in", method: .post,
            headers: headers(extra: [(.contentType, "application/x-www-form-urlencoded"), (.cookie, "ferry_signin=\(nonce)"), (HTTPField.Name("Origin")!, origin)]),
            body: ByteBuffer(string: "csrf=\(token)&key=\(key)"))
        guard response.status == .seeOther, let cookie = response.headers[values: .setCookie].first(where: { $0.hasPrefix("ferry_session=") }) else { return nil }
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/dashboard"))
        let value = String(cookie.dropFirst(14).prefix { $0 != ";" })
        let page = try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(value)")]))
        return (value, try #require(Self.field("csrf", in: page.text)))
    }

    static func field(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func post(_ client: some TestClientProtocol, _ uri: String, cookie: String, body: String, origin: String? = DashboardTests.origin) async throws -> TestResponse {
        var extra: [(HTTPField.Name, String)] = [(.contentType, "application/x-www-form-urlencoded"), (.cookie, "ferry_session=\(cookie)")]
        if let origin { extra.append((HTTPField.Name("Origin")!, origin)) }
        return try await client.execute(uri: uri, method: .post, headers: headers(extra: extra), body: ByteBuffer(string: body))
    }

    @Test func sessionsNeedASecretKeyAndEndWhenItIsRevoked() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let anonymous = try await client.execute(uri: "/dashboard", method: .get, headers: headers())
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/dashboard/sign-in")
            let signIn = try await client.execute(uri: "/dashboard/sign-in", method: .get, headers: headers())
            #expect(signIn.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'none'") == true)
            #expect(try await Self.signIn(client, key: fixture.publishable) == nil, "a publishable key cannot sign in")
            #expect(try await Self.signIn(client, key: "fs_live_" + String(repeating: "a", count: 32)) == nil)
            // A sign-in without the form's token (another site posting a key) is refused.
            let forged = try await client.execute(uri: "/dashboard/sign-in", method: .post,
                                                  headers: headers(extra: [(.contentType, "application/x-www-form-urlencoded"), (HTTPField.Name("Origin")!, Self.origin)]),
                                                  body: ByteBuffer(string: "key=\(fixture.secret)"))
            #expect(forged.status == .unauthorized && forged.headers[values: .setCookie].allSatisfy { !$0.hasPrefix("ferry_session=") })

            let (cookie, _) = try #require(try await Self.signIn(client, key: fixture.secret))
            #expect(try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")])).status == .ok)
            // A tampered cookie is nobody's.
            let tampered = String(cookie.dropLast()) + (cookie.hasSuffix("a") ? "b" : "a")
            #expect(try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(tampered)")])).status == .seeOther)
            // Revoking the key ends the session at once.
            let record = try #require(try await fixture.store.keys(appID: fixture.app.id).first { $0.kind == .secret && $0.environment == .live })
            #expect(try await fixture.store.revokeKey(id: record.id, at: Date()))
            #expect(try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")])).status == .seeOther)
        }
    }

    @Test func formsNeedTheSessionsTokenFromThisSiteAndSeeOnlyTheirAppsLinks() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let foreign = try await fixture.admin.createLink(CreateLinkRequest(slug: "theirs", destination: "https://other.test/"), app: fixture.otherApp, environment: .live)
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await Self.signIn(client, key: fixture.secret))
            let body = "csrf=\(csrf)&slug=promo&domain=go.example.com&destination=https%3A%2F%2Fexample.com%2Fp&campaign=%3Cimg+src%3Dx+onerror%3Dalert(1)%3E"
            #expect(try await Self.post(client, "/dashboard/links", cookie: cookie, body: body.replacingOccurrences(of: "csrf=\(csrf)", with: "csrf=wrong")).status == .forbidden)
            #expect(try await Self.post(client, "/dashboard/links", cookie: cookie, body: body, origin: "https://evil.example").status == .forbidden)
            #expect(try await Self.post(client, "/dashboard/links", cookie: cookie, body: body, origin: nil).status == .forbidden)
            #expect(try await fixture.store.link(domain: "go.example.com", slug: "promo") == nil, "refused forms changed nothing")

            let created = try await Self.post(client, "/dashboard/links", cookie: cookie, body: body)
            #expect(created.status == .seeOther)
            let link = try #require(try await fixture.store.link(domain: "go.example.com", slug: "promo"))
            let page = try await client.execute(uri: "/dashboard/links/\(link.id)", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(page.text.contains("&lt;img src=x onerror=alert(1)&gt;") && !page.text.contains("<img src=x"), "user text is escaped")

            // Bad input comes back as the form with the message, and nothing is stored.
            let bad = try await Self.post(client, "/dashboard/links", cookie: cookie, body: "csrf=\(csrf)&slug=x2&destination=javascript%3Aalert(1)")
            #expect(bad.status == .badRequest && bad.text.contains("destination"))
            #expect(try await fixture.store.link(domain: "go.example.com", slug: "x2") == nil)

            // Another app's link is not found, and cannot be disabled.
            #expect(try await client.execute(uri: "/dashboard/links/\(foreign.id)", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")])).status == .notFound)
            #expect(try await Self.post(client, "/dashboard/links/\(foreign.id)/disable", cookie: cookie, body: "csrf=\(csrf)").status == .notFound)
            #expect(try await fixture.store.link(id: foreign.id, appID: fixture.otherApp.id)?.disabled == false)

            // Search finds by slug, destination or campaign, and treats % literally.
            let search = try await client.execute(uri: "/dashboard?q=PROMO", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(search.text.contains("/dashboard/links/\(link.id)"))
            let none = try await client.execute(uri: "/dashboard?q=%25%25", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(!none.text.contains("/dashboard/links/\(link.id)"))
        }
    }

    @Test func aLinksRoutingAndTheAppsURLPatternsAreEditedThroughForms() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await Self.signIn(client, key: fixture.secret))
            let session = headers(extra: [(.cookie, "ferry_session=\(cookie)")])
            let routing = "iosFallbackURL=https%3A%2F%2Fexample.com%2Fios&ipadFallbackURL=https%3A%2F%2Fexample.com%2Fipad&ipadBundleID=com.example.ipad"
                + "&appStoreID=id555&iosMinimumVersion=2.1&androidFallbackURL=https%3A%2F%2Fexample.com%2Fandroid&androidMinimumVersionCode=42"
                + "&otherPlatformFallbackURL=https%3A%2F%2Fexample.com%2Fdesktop&skipPreviewPage=1"
            let created = try await Self.post(client, "/dashboard/links", cookie: cookie,
                                              body: "csrf=\(csrf)&slug=routed&destination=https%3A%2F%2Fexample.com%2Fp&\(routing)")
            #expect(created.status == .seeOther)
            let link = try #require(try await fixture.store.link(domain: "go.example.com", slug: "routed"))
            #expect(link.routing == LinkRouting(
                iosFallbackURL: "https://example.com/ios", ipadFallbackURL: "https://example.com/ipad", ipadBundleID: "com.example.ipad",
                appStoreID: "555", iosMinimumVersion: "2.1", androidFallbackURL: "https://example.com/android", androidMinimumVersionCode: 42,
                otherPlatformFallbackURL: "https://example.com/desktop", skipPreviewPage: true
            ))
            let page = try await client.execute(uri: "/dashboard/links/\(link.id)", method: .get, headers: session).text
            #expect(page.contains("iPad without the app: <span class=\"clip\">https://example.com/ipad</span>") && page.contains("Preview page: <span class=\"clip\">skipped</span>"))
            let form = try await client.execute(uri: "/dashboard/links/\(link.id)/edit", method: .get, headers: session).text
            #expect(Self.field("androidMinimumVersionCode", in: form) == "42" && form.contains(#"name="skipPreviewPage" value="1" checked"#))
            // Emptying the fields returns the link to the app's settings.
            let cleared = try await Self.post(client, "/dashboard/links/\(link.id)", cookie: cookie, body: "csrf=\(csrf)&destination=https%3A%2F%2Fexample.com%2Fp")
            #expect(cleared.status == .seeOther)
            #expect(try await fixture.store.link(id: link.id, appID: fixture.app.id)?.routing == LinkRouting())
            for bad in ["androidMinimumVersionCode=many", "iosFallbackURL=javascript%3Aalert(1)", "ipadBundleID=%3Cscript%3E"] {
                let refused = try await Self.post(client, "/dashboard/links", cookie: cookie, body: "csrf=\(csrf)&slug=bad&destination=https%3A%2F%2Fexample.com%2Fp&\(bad)")
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(!refused.text.contains("<script>"))
            }
            #expect(try await fixture.store.link(domain: "go.example.com", slug: "bad") == nil)

            let settings = "csrf=\(csrf)&name=Example&attributionWindow=24&teamID=ABCDE12345&bundleIDs=com.example.app"
            let badPattern = try await Self.post(client, "/dashboard/settings", cookie: cookie, body: settings + "&allowedURLPatterns=%5Bunclosed")
            #expect(badPattern.status == .badRequest && badPattern.text.contains("not a valid regular expression"))
            let saved = try await Self.post(client, "/dashboard/settings", cookie: cookie,
                                            body: settings + "&allowedURLPatterns=%5Ehttps%3A%2F%2Fexample%5C.com%2F.*%24%0D%0A%5Ehttps%3A%2F%2Fshop%5C.example%5C.com%2F.*%24")
            #expect(saved.status == .ok)
            #expect(try await fixture.store.app(id: fixture.app.id)?.allowedURLPatterns == [#"^https://example\.com/.*$"#, #"^https://shop\.example\.com/.*$"#])
        }
    }

    @Test func settingsAndWebhooksAreEditedThroughForms() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await Self.signIn(client, key: fixture.secret))
            let saved = try await Self.post(client, "/dashboard/settings", cookie: cookie,
                                            body: "csrf=\(csrf)&name=Renamed&attributionWindow=48&teamID=ABCDE12345&bundleIDs=com.example.app&appStoreID=1234567890&urlScheme=example")
            #expect(saved.status == .ok && saved.text.contains("Settings saved."))
            let app = try #require(try await fixture.store.app(id: fixture.app.id))
            #expect(app.name == "Renamed" && app.domains == ["go.example.com", "links.example.com"] && app.attribution.window == 48 * 3600)
            // Domains have forms of their own: the default is chosen, and one is dropped.
            let chosen = try await Self.post(client, "/dashboard/domains/default", cookie: cookie, body: "csrf=\(csrf)&domain=links.example.com")
            #expect(chosen.status == .ok && chosen.text.contains("New links go on links.example.com"))
            let dropped = try await Self.post(client, "/dashboard/domains/remove", cookie: cookie, body: "csrf=\(csrf)&domain=go.example.com")
            #expect(dropped.status == .ok)
            #expect(try await fixture.store.app(id: fixture.app.id)?.domains == ["links.example.com"])
            let last = try await Self.post(client, "/dashboard/domains/remove", cookie: cookie, body: "csrf=\(csrf)&domain=links.example.com")
            #expect(last.status == .conflict && last.text.contains("at least one link domain"))
            let refused = try await Self.post(client, "/dashboard/settings", cookie: cookie, body: "csrf=\(csrf)&name=X&attributionWindow=1000&domains=go.example.com")
            #expect(refused.status == .badRequest && refused.text.contains("attribution window"))
            #expect(try await fixture.store.app(id: fixture.app.id)?.name == "Renamed", "a refused form changes nothing")

            let added = try await Self.post(client, "/dashboard/webhooks", cookie: cookie, body: "csrf=\(csrf)&url=https%3A%2F%2Fhooks.example.com%2Fa&install.attributed=on")
            #expect(added.text.contains("whsec_"))
            let webhooks = try await fixture.store.webhooks(appID: fixture.app.id, environment: .live)
            #expect(webhooks.map(\.events) == [[.installAttributed]])
            // The webhooks page lists the latest deliveries with what came of each.
            // In 2030, so that the dispatcher takes none of them while the test reads the page.
            let queued = Date(timeIntervalSince1970: 1_893_456_000)
            try await fixture.store.enqueueDeliveries(["dlv_ok", "dlv_retry", "dlv_gone", "dlv_new"].map { id in
                WebhookDelivery(id: id, webhookID: webhooks[0].id, appID: fixture.app.id, event: .installAttributed, payload: "{}",
                                nextAttemptAt: queued.addingTimeInterval(3600), createdAt: queued)
            })
            try await fixture.store.recordAttempt(deliveryID: "dlv_ok", status: 204, error: nil, deliveredAt: queued.addingTimeInterval(1), nextAttemptAt: nil, failedAt: nil)
            try await fixture.store.recordAttempt(deliveryID: "dlv_retry", status: 500, error: "answered 500", deliveredAt: nil,
                                                  nextAttemptAt: queued.addingTimeInterval(1800), failedAt: nil)
            try await fixture.store.recordAttempt(deliveryID: "dlv_gone", status: nil, error: "connection refused", deliveredAt: nil, nextAttemptAt: nil,
                                                  failedAt: queued.addingTimeInterval(7200))
            let page = try await client.execute(uri: "/dashboard/webhooks", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(page.status == .ok)
            for shown in ["delivered 2030-01-01 00:00 UTC", "next try 2030-01-01 00:30 UTC", "given up 2030-01-01 02:00 UTC", ">waiting<",
                          "answered 500", "connection refused", ">204<", ">500<", "hooks.example.com/a"] {
                #expect(page.text.contains(shown), "\(shown) on the webhooks page")
            }
            #expect(!page.text.contains("whsec_"), "the secret is shown once, when the webhook is made")
            _ = try await Self.post(client, "/dashboard/webhooks/\(webhooks[0].id)/delete", cookie: cookie, body: "csrf=\(csrf)")
            #expect(try await fixture.store.webhooks(appID: fixture.app.id, environment: .live).isEmpty)
        }
    }
}
#endif
