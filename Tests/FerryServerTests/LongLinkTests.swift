#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Firebase Dynamic Links long links (`https://DOMAIN/?link=…`) over real sockets: routed like short links for each
/// kind of visitor, recorded and attributable, and refused with a 400 page when they would lead where the app does
/// not allow.
@Suite("Long links", .takesTurns)
struct LongLinkTests {
    /// A fixture whose app allows long links to example.com and its subdomains.
    static func fixture(patterns: [String] = [#"^https://([a-z]+\.)?example\.com/.*$"#]) async throws -> Fixture {
        let fixture = try await Fixture.make()
        _ = try await fixture.admin.updateApp(id: fixture.app.id) { $0.allowedURLPatterns = patterns }
        return fixture
    }

    static func query(_ pairs: KeyValuePairs<String, String>) -> String {
        pairs.map { "\($0.key)=\(QueryString.encode($0.value))" }.joined(separator: "&")
    }

    static let full = query([
        "link": "https://example.com/item?id=7", "apn": "com.example.android", "ibi": "com.example.app", "isi": "1234567890",
        "ifl": "https://example.com/ios", "ipfl": "https://example.com/ipad", "ofl": "https://example.com/desktop",
        "st": "Item 7", "sd": "A fine item", "si": "https://example.com/7.png", "utm_source": "mail", "utm_campaign": "spring",
        "gclid": "abc123", "imv": "2.1", "amv": "42", "ct": "launch", "pt": "118", "mt": "8",
    ])

    static func get(_ client: some TestClientProtocol, _ path: String, _ agent: String, address: String = "198.51.100.7") async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: headers(userAgent: agent, extra: [(.forwardedFor, address)]))
    }

    @Test func aLongLinkIsRoutedForEveryVisitorAndStoredOnce() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        try await fixture.application().testLive { client async throws in
            let path = "/?" + Self.full
            for agent in [UA.iPhoneSafari, UA.iPhoneFacebook, UA.iPhoneInstagram] {
                let page = try await Self.get(client, path, agent)
                #expect(page.status == .ok, "\(agent)")
                #expect(interstitialStoreURL(page.text) == "https://example.com/ios", "\(agent)")
            }
            #expect(interstitialStoreURL(try await Self.get(client, path, UA.iPadSafari).text) == "https://example.com/ipad")
            let chrome = try await Self.get(client, path, UA.android)
            #expect(chrome.status == .found)
            let play = try #require(chrome.headers[.location])
            #expect(play.hasPrefix("https://play.google.com/store/apps/details?id=com.example.android&referrer=ferry_click_id%3Dclk_"))
            #expect(play.contains("utm_source%3Dmail"))
            for agent in [UA.androidFacebook, UA.androidInstagram] {
                let intent = try #require(try await Self.get(client, path, agent).headers[.location])
                #expect(intent.hasPrefix("intent://go.example.com/?link=https%3A%2F%2Fexample.com%2Fitem%3Fid%3D7&apn=com.example.android"), "\(agent)")
                #expect(intent.contains("#Intent;scheme=https;package=com.example.android;S.browser_fallback_url=https%3A%2F%2Fplay.google.com"), "\(agent)")
            }
            for agent in UA.desktops {
                #expect(try await Self.get(client, path, agent).headers[.location] == "https://example.com/desktop", "\(agent)")
            }
            for agent in UA.bots {
                let preview = try await Self.get(client, path, agent)
                #expect(preview.status == .ok, "\(agent)")
                #expect(preview.text.contains(#"content="Item 7""#), "\(agent)")
                #expect(preview.text.contains("https://example.com/7.png"), "\(agent)")
            }
            // HEAD is GET without the body.
            let head = try await client.execute(uri: path, method: .head, headers: headers(userAgent: UA.desktop))
            #expect(head.status == .found)
            #expect(head.headers[.location] == "https://example.com/desktop")

            // Stored once, with every parameter in its field, whatever order the parameters came in.
            let reordered = "/?" + Self.full.split(separator: "&").reversed().joined(separator: "&") + "&unknown=1"
            #expect(try await Self.get(client, reordered, UA.desktop).headers[.location] == "https://example.com/desktop")
            var stored: LinkResponse?
            #expect(try await fixture.eventually {
                let list = try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: fixture.secret)).decode(LinkListResponse.self)
                stored = list.data.first(where: \.isLongLink)
                return stored != nil && list.data.count == 1
            })
            let link = try #require(stored)
            let order = { (pair: Substring) -> Int in LongLink.parameters.firstIndex(of: String(pair.prefix { $0 != "=" })) ?? -1 }
            let canonical: [Substring] = Self.full.split(separator: "&").sorted { order($0) < order($1) }
            #expect(link.url == "https://go.example.com/?" + canonical.joined(separator: "&"))
            #expect(link.slug.hasPrefix("_fdl_"))
            #expect(link.destination == "https://example.com/item?id=7")
            #expect(link.params == ["gclid": "abc123"])
            #expect(link.utm == UTMParameters(source: "mail", campaign: "spring"))
            #expect(link.social == SocialMetadata(title: "Item 7", description: "A fine item", imageURL: "https://example.com/7.png"))
            #expect(link.routing == LinkRouting(
                iosFallbackURL: "https://example.com/ios", ipadFallbackURL: "https://example.com/ipad", appStoreID: "1234567890",
                iosMinimumVersion: "2.1", androidMinimumVersionCode: 42, otherPlatformFallbackURL: "https://example.com/desktop",
                appStoreAnalytics: AppStoreAnalytics(campaignToken: "launch", mediaType: "8", providerToken: "118")
            ))
            // Its clicks are counted like a short link's: every GET above but the bots' previews.
            #expect(try await fixture.eventually {
                let stats = try await client.execute(uri: "/v1/links/\(link.id)/stats", method: .get, headers: headers(key: fixture.secret))
                let clicks = (try? stats.decode(StatsReport.self))?.totals.clicks ?? 0
                return clicks >= 12
            })
            // Its owner can turn it off like any link.
            let off = try await client.execute(uri: "/v1/links/\(link.id)", method: .patch, headers: headers(key: fixture.secret, json: true),
                                               body: jsonBody(#"{"disabled": true}"#))
            #expect(off.status == .ok)
            #expect(try await fixture.eventually { try await Self.get(client, path, UA.desktop).status == .notFound })
        }
    }

    @Test func aLongLinksDebugViewShowsEachVisitorAndStoresNothing() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        try await fixture.application().testLive { client async throws in
            let page = try await Self.get(client, "/?" + Self.full + "&d=1", UA.desktop)
            #expect(page.status == .ok)
            #expect(page.text.contains("https://example.com/ios") && page.text.contains("https://example.com/desktop"))
            let refused = try await Self.get(client, "/?link=javascript%3Aalert(1)&d=1", UA.desktop)
            #expect(refused.status == .badRequest)
            // Not a click: no link is stored for it, even once a click's would have been.
            _ = try await Self.get(client, "/?link=https%3A%2F%2Fexample.com%2Fsentinel", UA.desktop)
            #expect(try await fixture.eventually {
                try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: fixture.secret)).decode(LinkListResponse.self).data.count == 1
            })
            let links = try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: fixture.secret)).decode(LinkListResponse.self)
            #expect(links.data.map(\.destination) == ["https://example.com/sentinel"])
        }
    }

    @Test func aLongLinkIsFollowedAtTheRootOfADomainWithAPathPrefix() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        _ = try await fixture.admin.updateApp(id: fixture.app.id) { $0.pathPrefixes = ["links.example.com": "/links"] }
        try await fixture.application().testLive { client async throws in
            for path in ["/links/?" + Self.full, "/links?" + Self.full] {
                let desktop = try await client.execute(uri: path, method: .get, headers: headers(host: "links.example.com", userAgent: UA.desktop))
                #expect(desktop.headers[.location] == "https://example.com/desktop", "\(path)")
            }
            let intent = try await client.execute(uri: "/links/?" + Self.full, method: .get, headers: headers(host: "links.example.com", userAgent: UA.androidFacebook))
            #expect(intent.headers[.location]?.hasPrefix("intent://links.example.com/links/?link=https%3A%2F%2Fexample.com") == true)
            // Outside the prefix the team's site answers, not Ferry: a long link there is no link.
            let outside = try await client.execute(uri: "/other/?" + Self.full, method: .get, headers: headers(host: "links.example.com", userAgent: UA.desktop))
            #expect(outside.status == .notFound)
            // The app resolves it with its whole URL.
            let resolved = try await client.execute(
                uri: "/v1/links/resolve?url=" + QueryString.encode("https://links.example.com/links/?" + Self.full),
                method: .get, headers: headers(key: fixture.publishable))
            #expect(resolved.status == .ok)
            let data = try resolved.decode(ResolveResponse.self).link
            #expect(data.destination == "https://example.com/item?id=7" && data.url.hasPrefix("https://links.example.com/links/?link="))
        }
    }

    @Test func withoutItsAppOnAPlatformALongLinkSendsThatPlatformToTheWebAsFirebaseDid() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        try await fixture.application().testLive { client async throws in
            let path = "/?" + Self.query(["link": "https://example.com/article", "afl": "https://m.example.com/article"])
            #expect(interstitialStoreURL(try await Self.get(client, path, UA.iPhoneSafari).text) == "https://example.com/article")
            #expect(try await Self.get(client, path, UA.android).headers[.location] == "https://m.example.com/article")
            #expect(try await Self.get(client, path, UA.desktop).headers[.location] == "https://example.com/article")
            // efr=1 skips the page before the store and the bots' preview.
            let direct = "/?" + Self.query(["link": "https://example.com/direct", "ibi": "com.example.app", "isi": "1234567890", "efr": "1"])
            #expect(try await Self.get(client, direct, UA.iPhoneSafari).headers[.location] == "https://apps.apple.com/app/id1234567890")
            #expect(try await Self.get(client, direct, UA.slackBot).headers[.location] == "https://example.com/direct")
        }
    }

    @Test func aLongLinkClickIsAttributedToTheInstallWithItsDeepLink() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        try await fixture.application().testLive { client async throws in
            let clickID = try await clickOnIPhone(client, slug: "", address: "203.0.113.10", path: "/?" + Self.full)
            #expect(try await fixture.eventually { try await fixture.store.click(id: clickID) != nil })
            #expect(try await fixture.eventually {
                try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: fixture.secret))
                    .decode(LinkListResponse.self).data.contains(where: \.isLongLink)
            })
            let response = try await client.execute(
                uri: "/v1/attribution/match", method: .post, headers: headers(key: fixture.publishable, json: true, extra: [(.forwardedFor, "192.0.2.50")]),
                body: jsonBody(MatchRequest(installID: "IDFV-LONG", signals: iPhoneSignals, clickToken: "ferry:\(clickID)")))
            let answer = try response.decode(MatchResponse.self)
            #expect(answer.matched)
            #expect(answer.matchType == .deterministic)
            #expect(answer.link?.destination == "https://example.com/item?id=7")
            #expect(answer.link?.params == ["gclid": "abc123"])
            #expect(answer.link?.utm == UTMParameters(source: "mail", campaign: "spring"))
            #expect(answer.link?.iosMinimumVersion == "2.1")
            #expect(answer.link?.androidMinimumVersionCode == 42)
        }
    }

    @Test func theAppResolvesAWholeURLAndBadURLsAreNamed() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        let testPublishable = try await fixture.admin.createKey(appID: fixture.app.id, kind: .publishable, environment: .test).key
        try await fixture.application().test(.router) { client async throws in
            func resolve(_ url: String?, key: String? = nil) async throws -> TestResponse {
                let query = url.map { "?url=" + QueryString.encode($0) + "&installID=install-1" } ?? ""
                return try await client.execute(uri: "/v1/links/resolve" + query, method: .get, headers: headers(key: key ?? fixture.publishable))
            }
            let long = try await resolve("https://go.example.com/?" + Self.full)
            #expect(long.status == .ok)
            let data = try long.decode(ResolveResponse.self).link
            #expect(data.destination == "https://example.com/item?id=7" && data.slug.hasPrefix("_fdl_") && data.iosMinimumVersion == "2.1")
            // The same long link again is the same link, once the cache has learnt of the stored row too.
            try await Task.sleep(for: .milliseconds(400))
            let again = try await resolve("https://go.example.com/?" + Self.full)
            #expect(again.status == .ok, "\(again.text)")
            #expect(try again.decode(ResolveResponse.self).link.id == data.id)
            let promo = try await resolve("https://go.example.com/promo")
            #expect(promo.status == .ok, "\(promo.text)")
            #expect(try promo.decode(ResolveResponse.self).link.destination == "https://example.com/promo")
            #expect(try await resolve("https://go.example.com/link/promo").status == .ok)

            for (url, status, field) in [
                (nil, HTTPResponse.Status.badRequest, "url"),
                ("javascript:alert(1)", .badRequest, "url"),
                ("not a url", .badRequest, "url"),
                ("https://go.example.com/?link=https%3A%2F%2Fevil.example.net%2F", .badRequest, "url"),
                ("https://go.example.com/?" + String(repeating: "a", count: 30_000), .badRequest, "url"),
                ("https://other.test/?" + Self.full, .notFound, "url"),
                ("https://go.example.com/?" + Self.full + "&link=x", .badRequest, "url"),
            ] as [(String?, HTTPResponse.Status, String)] {
                let response = try await resolve(url)
                #expect(response.status == status, "\(url ?? "nil")")
                #expect(response.error?.field == field, "\(url ?? "nil")")
            }
            // Long links are live links.
            #expect(try await resolve("https://go.example.com/?" + Self.full, key: testPublishable).status == .notFound)
            #expect(try await client.execute(uri: "/v1/links/resolve?url=x", method: .get, headers: headers()).status == .unauthorized)
        }
    }

    /// Hostile or foreign long links: a 400 HTML page, never a redirect, never a 5xx, nothing stored.
    @Test(arguments: [
        (["link": "javascript:alert(1)"], "link"),
        (["link": "data:text/html,<script>alert(1)</script>"], "link"),
        (["link": "myapp://open"], "link"),
        (["link": "//evil.example.net/"], "link"),
        (["link": "https://evil.example.net/phish"], "link"),
        (["link": "https://example.com.evil.net/"], "link"),
        (["link": "https://user:pass@example.com/"], "link"),
        (["link": "https://example.com/\r\nSet-Cookie: a=b"], "link"),
        (["link": "https://example.com/a", "ifl": "https://evil.example.net/"], "ifl"),
        (["link": "https://example.com/a", "afl": "javascript:alert(1)"], "afl"),
        (["link": "https://example.com/a", "ofl": "http://evil.example.net/"], "ofl"),
        (["link": "https://example.com/a", "ipfl": "https://evil.example.net/"], "ipfl"),
        (["link": "https://example.com/a", "apn": "com.attacker.app"], "apn"),
        (["link": "https://example.com/a", "ibi": "com.attacker.app"], "ibi"),
        (["link": "https://example.com/a", "ibi": "com.example.app", "ipbi": "com.attacker.ipad"], "ipbi"),
        (["link": "https://example.com/a", "isi": "<script>"], "isi"),
        (["link": "https://example.com/a", "amv": "many"], "amv"),
        (["link": "https://example.com/a", "imv": "1.0\"><script>"], "imv"),
        (["link": "https://example.com/a", "si": "javascript:alert(1)"], "si"),
        (["link": "https://example.com/a", "st": String(repeating: "x", count: 301)], "st"),
        (["link": "https://example.com/a", "utm_source": String(repeating: "y", count: 3000)], "utm_source"),
        (["link": "https://example.com/" + String(repeating: "z", count: 20_000)], "link"),
        (["efr": "1"], "link"),
    ] as [([String: String], String)])
    func aLongLinkThatWouldLeadElsewhereIsA400Page(parameters: [String: String], parameter: String) async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        try await fixture.application().testLive { client async throws in
            var query = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\(QueryString.encode($0.value))" }.joined(separator: "&")
            if parameters["link"] == nil { query = "link=&" + query }
            for agent in [UA.iPhoneSafari, UA.android, UA.desktop, UA.slackBot, UA.androidFacebook] {
                let response = try await Self.get(client, "/?" + query, agent)
                #expect(response.status == .badRequest, "\(parameter) \(agent)")
                #expect(response.headers[.location] == nil)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.text.contains("This link cannot be opened"))
                #expect(!response.text.contains("<script>"))
            }
            let list = try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: fixture.secret)).decode(LinkListResponse.self)
            #expect(list.data.isEmpty)
        }
    }

    @Test func aRepeatedParameterAndOtherHostsAreRefusedAndAnAppWithoutPatternsKeepsToItsOwnHosts() async throws {
        let fixture = try await Self.fixture(patterns: [])
        defer { fixture.remove() }
        try await fixture.application().testLive { client async throws in
            // The app's fallback URL is on example.com: with no patterns, that host and the link domains are allowed.
            #expect(try await Self.get(client, "/?link=https%3A%2F%2Fexample.com%2Fok", UA.desktop).headers[.location] == "https://example.com/ok")
            #expect(try await Self.get(client, "/?link=https%3A%2F%2Fgo.example.com%2Fpage", UA.desktop).status == .found)
            let foreign = try await Self.get(client, "/?link=https%3A%2F%2Fshop.example.org%2F", UA.desktop)
            #expect(foreign.status == .badRequest)
            #expect(foreign.text.contains("no URL patterns"))
            let twice = try await Self.get(client, "/?link=https%3A%2F%2Fexample.com%2Fa&link=https%3A%2F%2Fevil.example.net%2F", UA.desktop)
            #expect(twice.status == .badRequest)
            // On a host no app serves, a long link is the ordinary 404 page.
            let nowhere = try await client.execute(uri: "/?link=https%3A%2F%2Fexample.com%2Fa", method: .get, headers: headers(host: "nobody.example.net", userAgent: UA.desktop))
            #expect(nowhere.status == .notFound)
            // The root without a long link is still the app's fallback.
            #expect(try await Self.get(client, "/", UA.desktop).headers[.location] == "https://example.com/")
            #expect(try await Self.get(client, "/?utm_source=x", UA.desktop).headers[.location] == "https://example.com/")
        }
    }
}
#endif
