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

@Suite("The click, pages and association files", .takesTurns)
struct EdgeTests {
    func createLink(_ fixture: Fixture, _ request: CreateLinkRequest, environment: APIEnvironment = .live) async throws -> Link {
        try await fixture.admin.createLink(request, app: fixture.app, environment: environment)
    }

    @Test func desktopVisitorsAreRedirectedWithTheirQueryPassedThrough() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await createLink(fixture, CreateLinkRequest(slug: "sale", destination: "https://example.com/sale?ref=ferry&utm_medium=site#top",
                                                            utm: UTMParameters(source: "newsletter", medium: "email")))
        try await fixture.application().test(.router) { client in
            let response = try await client.execute(uri: "/SALE?utm_source=twitter&x=%20y", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(response.status == .found)
            // The destination's own medium stays, the link's source is added, the click's source wins over it.
            #expect(response.headers[.location] == "https://example.com/sale?ref=ferry&utm_medium=site&utm_source=twitter&x=%20y#top")
            #expect(response.headers[.cacheControl] == "no-store")
            let plain = try await client.execute(uri: "/sale", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(plain.headers[.location] == "https://example.com/sale?ref=ferry&utm_medium=site&utm_source=newsletter#top")
        }
    }

    @Test func botsGetPreviewsWithEscapedOpenGraphTags() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await createLink(fixture, CreateLinkRequest(
            slug: "card", destination: "https://example.com/",
            social: SocialMetadata(title: #"Big "sale" <script>alert(1)</script>"#, description: "50% & more", imageURL: "https://example.com/c.png?a=1&b=2")))
        _ = try await createLink(fixture, CreateLinkRequest(slug: "plain", destination: "https://example.com/"))
        try await fixture.application().test(.router) { client in
            for agent in [UA.facebookBot, UA.slackBot] {
                let response = try await client.execute(uri: "/card", method: .get, headers: headers(userAgent: agent))
                #expect(response.status == .ok)
                let html = response.text
                #expect(html.contains(#"<meta property="og:title" content="Big &quot;sale&quot; &lt;script&gt;alert(1)&lt;/script&gt;">"#))
                #expect(html.contains(#"<meta property="og:description" content="50% &amp; more">"#))
                #expect(html.contains(#"<meta property="og:image" content="https://example.com/c.png?a=1&amp;b=2">"#))
                #expect(html.contains(#"<meta name="twitter:card" content="summary_large_image">"#))
                #expect(html.contains(#"<meta property="og:url" content="https://go.example.com/card">"#))
                #expect(!html.contains("<script>alert"))
                #expect(response.headers[.csp]?.contains("script-src 'self'") == true)
            }
            // Without its own preview fields, a link falls back to the app's defaults.
            let fallback = try await client.execute(uri: "/plain", method: .get, headers: headers(userAgent: UA.facebookBot)).text
            #expect(fallback.contains(#"content="Example App""#))
            #expect(fallback.contains(#"content="https://example.com/card.png""#))
        }
    }

    @Test func iPhonesWithoutTheAppGetTheInterstitialToTheAppStore() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await createLink(fixture, CreateLinkRequest(slug: "ios", destination: "https://example.com/", iosURL: "example://promo"))
        try await fixture.application().test(.router) { client in
            let response = try await client.execute(uri: "/ios", method: .get, headers: headers(userAgent: UA.iPhoneSafari))
            #expect(response.status == .ok)
            let html = response.text
            #expect(html.contains(#"data-store="https://apps.apple.com/app/id1234567890""#))
            #expect(html.contains(#"data-auto="1""#))
            #expect(html.contains(#"<script src="/.ferry/interstitial.js" defer></script>"#))
            #expect(html.contains(#"<noscript><meta http-equiv="refresh" content="0;url=https://apps.apple.com/app/id1234567890"></noscript>"#))
            #expect(html.contains("data-click=\"clk_"))
            // No inline script: the CSP forbids it and the page does not need it.
            #expect(html.components(separatedBy: "<script").count == 2)

            let blocked = try await client.execute(uri: "/ios", method: .get, headers: headers(userAgent: UA.iPhoneInstagram)).text
            #expect(blocked.contains(#"data-auto="0""#))
            #expect(blocked.contains(#"href="example://promo""#))
            #expect(blocked.contains("Open in Example"))
            #expect(!blocked.contains("http-equiv=\"refresh\""))

            let script = try await client.execute(uri: "/.ferry/interstitial.js", method: .get, headers: headers())
            #expect(script.status == .ok)
            #expect(script.headers[.contentType]?.hasPrefix("application/javascript") == true)
            #expect(script.text.contains("data-store"))
        }
    }

    @Test func androidGoesToThePlayStoreWithTheClickInTheReferrer() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await createLink(fixture, CreateLinkRequest(slug: "droid", destination: "https://example.com/", utm: UTMParameters(source: "ads")))
        _ = try await createLink(fixture, CreateLinkRequest(slug: "intent", destination: "https://example.com/", androidURL: "example://promo/42"))
        try await fixture.application().test(.router) { client in
            let response = try await client.execute(uri: "/droid", method: .get, headers: headers(userAgent: UA.android))
            #expect(response.status == .found)
            let location = try #require(response.headers[.location])
            #expect(location.hasPrefix("https://play.google.com/store/apps/details?id=com.example.android&referrer=ferry_click_id%3Dclk_"))
            #expect(location.hasSuffix("%26utm_source%3Dads"))
            let intent = try await client.execute(uri: "/intent", method: .get, headers: headers(userAgent: UA.android))
            let intentLocation = try #require(intent.headers[.location])
            #expect(intentLocation.hasPrefix("intent://promo/42#Intent;scheme=example;package=com.example.android;S.browser_fallback_url=https%3A%2F%2Fplay.google.com"))
        }
    }

    @Test func unknownExpiredAndDisabledLinksGetFriendlyPages() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let expiring = try await createLink(fixture, CreateLinkRequest(slug: "old", destination: "https://example.com/", expiresAt: Date().addingTimeInterval(3600)))
        var expired = expiring
        expired.expiresAt = Date().addingTimeInterval(-1)
        #expect(try await fixture.store.updateLink(expired))
        _ = try await createLink(fixture, CreateLinkRequest(slug: "off", destination: "https://example.com/", disabled: true))
        try await fixture.application().test(.router) { client in
            let cases: [(String, String, HTTPResponse.Status, String)] = [
                ("/nope", "go.example.com", .notFound, "Link not found"),
                ("/a/b/c", "go.example.com", .notFound, "Link not found"),
                ("/%3Cscript%3E", "go.example.com", .notFound, "Link not found"),
                ("/old", "go.example.com", .notFound, "expired"),
                ("/off", "go.example.com", .notFound, "no longer available"),
                ("/old", "unknown.example.net", .notFound, "Link not found"),
            ]
            for (path, host, status, text) in cases {
                let response = try await client.execute(uri: path, method: .get, headers: headers(host: host, userAgent: UA.desktop))
                #expect(response.status == status, "\(path)")
                #expect(response.text.contains(text), "\(path)")
            }
        }
        // Visits of dead links are not counted as clicks.
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await fixture.store.clickCount(linkID: expiring.id) == 0)
    }

    @Test func linksAreScopedToTheirDomain() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await createLink(fixture, CreateLinkRequest(domain: "links.example.com", slug: "here", destination: "https://example.com/here"))
        try await fixture.application().test(.router) { client in
            let sameDomain = try await client.execute(uri: "/here", method: .get, headers: headers(host: "LINKS.example.com.", userAgent: UA.desktop))
            let sibling = try await client.execute(uri: "/here", method: .get, headers: headers(host: "go.example.com", userAgent: UA.desktop))
            let otherApp = try await client.execute(uri: "/here", method: .get, headers: headers(host: "other.test", userAgent: UA.desktop))
            #expect(sameDomain.status == .found)
            #expect(sibling.status == .notFound)
            #expect(otherApp.status == .notFound)
        }
    }

    @Test func clicksAreRecordedOffThePathWithHashedAddresses() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await createLink(fixture, CreateLinkRequest(slug: "count", destination: "https://example.com/"))
        try await fixture.application().test(.router) { client in
            for agent in [UA.desktop, UA.iPhoneSafari, UA.android, UA.facebookBot] {
                let fields = headers(userAgent: agent, extra: [(.forwardedFor, "203.0.113.9"), (.referer, "https://news.example/"), (.acceptLanguage, "de-DE,de;q=0.9")])
                _ = try await client.execute(uri: "/count?utm_campaign=x", method: .get, headers: fields)
            }
            _ = try await client.execute(uri: "/count", method: .head, headers: headers(userAgent: UA.desktop))
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) == 4 })
        }
        let rows = try await fixture.store.clickCount(linkID: link.id)
        #expect(rows == 4)
        // The keyed hashes of the forwarded address and its network are what was stored, for every click; an install
        // from that address finds the clicks that can lead to one (the iPhone's and the Android phone's).
        let hasher = AddressHasher(key: Fixture.configuration.ipHashKey!)
        let address = try #require(IPAddress("203.0.113.9"))
        let stored = try await fixture.store.exportClicks(appID: fixture.app.id, environment: .live, from: Date().addingTimeInterval(-3600),
                                                          to: Date().addingTimeInterval(60), after: nil, limit: 10)
        #expect(stored.count == 4)
        #expect(stored.allSatisfy { $0.ipHash == hasher.hash(address) && $0.networkHash == hasher.hashNetwork(address) })
        let install = InstallEvidence(addressHash: hasher.hash(address), networkHash: nil, signals: DeviceSignals(), at: Date())
        let found = try await fixture.store.candidates(CandidateQuery(appID: fixture.app.id, environment: .live, install: install, window: 3600), platform: nil)
        #expect(found.sameAddressClicks == 2)
        #expect(Set(stored.filter { $0.platform == .iOS || $0.platform == .android }.map(\.id)) == Set(found.clicks.map(\.clickID)))
        var text = try String(contentsOfFile: fixture.path, encoding: .isoLatin1)
        text += (try? String(contentsOfFile: fixture.path + "-wal", encoding: .isoLatin1)) ?? ""
        // The address itself is never written, only its keyed hash.
        #expect(!text.contains("203.0.113.9"))
    }

    @Test func aLinkCreatedElsewhereIsServedDespiteAnEarlierMiss() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            #expect(try await client.execute(uri: "/later", method: .get, headers: headers(userAgent: UA.desktop)).status == .notFound)
            // Another process (the CLI) writes to the same file.
            let cli = FerryAdmin(store: try SQLiteStore(path: fixture.path))
            _ = try await cli.createLink(CreateLinkRequest(slug: "later", destination: "https://example.com/later"), app: fixture.app, environment: .live)
            let served = try await fixture.eventually {
                try await client.execute(uri: "/later", method: .get, headers: headers(userAgent: UA.desktop)).status == .found
            }
            #expect(served)
            // A change through the API is seen at once.
            let link = try #require(try await fixture.store.link(domain: "go.example.com", slug: "later"))
            let patch = try await client.execute(uri: "/v1/links/\(link.id)", method: .patch, headers: headers(key: fixture.secret, json: true),
                                                 body: jsonBody(#"{"destination": "https://example.com/changed"}"#))
            #expect(patch.status == .ok)
            let after = try await client.execute(uri: "/later", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(after.headers[.location] == "https://example.com/changed")
            _ = try await client.execute(uri: "/v1/links/\(link.id)", method: .delete, headers: headers(key: fixture.secret))
            #expect(try await client.execute(uri: "/later", method: .get, headers: headers(userAgent: UA.desktop)).status == .notFound)
        }
    }

    @Test func associationFilesComeFromTheAppOfTheHost() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
                let response = try await client.execute(uri: path, method: .get, headers: headers(host: "links.example.com"))
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                let applinks = try #require(json["applinks"] as? [String: Any])
                let details = try #require(applinks["details"] as? [[String: Any]])
                #expect(details.first?["appIDs"] as? [String] == ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.beta"])
                let components = try #require(details.first?["components"] as? [[String: Any]])
                #expect(components.contains { $0["/"] as? String == "/*" && $0["exclude"] == nil })
                #expect(components.contains { $0["/"] as? String == "/.well-known/*" && $0["exclude"] as? Bool == true })
                #expect((json["webcredentials"] as? [String: Any])?["apps"] as? [String] == ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.beta"])
            }
            let assetLinks = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get, headers: headers())
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(buffer: assetLinks.body)) as? [[String: Any]])
            let target = try #require(statements.first?["target"] as? [String: Any])
            #expect(statements.first?["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
            #expect(target["namespace"] as? String == "android_app")
            #expect(target["package_name"] as? String == "com.example.android")
            #expect(target["sha256_cert_fingerprints"] as? [String] == ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"])

            // Another app's host gets that app's (empty) files; an unknown host gets a 404.
            let other = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: headers(host: "other.test"))
            #expect(other.text == #"{"applinks":{"details":[]},"webcredentials":{"apps":[]}}"#)
            let unknown = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get, headers: headers(host: "nobody.example"))
            #expect(unknown.status == .notFound)
        }
    }

    @Test func healthAndReadiness() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
            #expect(health.text == #"{"status":"ok"}"#)
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .ok)
        }
    }

    @Test func theRootOfADomainGoesToTheAppsFallback() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let root = try await client.execute(uri: "/", method: .get, headers: headers())
            #expect(root.status == .found)
            #expect(root.headers[.location] == "https://example.com/")
            #expect(try await client.execute(uri: "/", method: .get, headers: headers(host: "other.test")).status == .notFound)
        }
    }

    @Test func hostileHostHeadersAndPathsGetPagesNotCrashes() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await createLink(fixture, CreateLinkRequest(slug: "ok", destination: "https://example.com/"))
        try await fixture.application().test(.router) { client in
            for host in [":", ":80", ".", ".:", "[", "[::1", "]", String(repeating: "a", count: 5000), "other.example.com:443", "gö.example.com", "%00"] {
                let response = try await client.execute(uri: "/ok", method: .get, headers: headers(host: host, userAgent: UA.desktop))
                #expect(response.status == .notFound, "\(host.prefix(20))")
            }
            for path in ["/%00", "/ok%0d%0aSet-Cookie:x", "/..%2f..%2fetc%2fpasswd", "/" + String(repeating: "a", count: 4000), "/ok/../ok"] {
                let response = try await client.execute(uri: path, method: .get, headers: headers(userAgent: UA.desktop))
                #expect(response.status == .notFound || response.status == .found, "\(path.prefix(30))")
                #expect(response.headers[.setCookie] == nil)
            }
            // A query that could split headers never reaches Location.
            let split = try await client.execute(uri: "/ok?a=%0d%0aX:1&b=\u{7f}", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(split.status == .found)
            #expect(split.headers[.location]?.contains("\r") == false)
        }
    }
}

@Suite("The API description", .takesTurns)
struct OpenAPIDocumentTests {
    @Test func theServerServesTheDocumentedSpecAndItNamesEveryRoute() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/openapi.yaml")
        let documented = try String(contentsOf: file, encoding: .utf8)
        try await fixture.application().test(.router) { client in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get, headers: headers())
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(response.text == documented)
        }
        #expect(documented.hasPrefix("openapi: 3.1"))
        for path in ["/v1/links:", "/v1/links/{id}:", "/v1/links/resolve/{slug}:", "/v1/attribution/match:", "/v1/attribution/user:", "/v1/attribution/user-tokens:",
                     "/v1/sdk/validate:", "/v1/events:", "/.ferry/signals:", "/.well-known/apple-app-site-association:",
                     "/.well-known/assetlinks.json:", "/healthz:", "/readyz:", "/{slug}:", "/link/{slug}:",
                     "/api/v1/app/dynamic_link/{slug}:", "/api/v1/deferred-deep-link:", "/api/v1/stats/event:",
                     "/api/v1/referral-links:", "/api/v1/attributions:"] {
            #expect(documented.contains("\n  \(path)\n"), "\(path) is not described")
        }
    }
}
#endif
