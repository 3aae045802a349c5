#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `?d=1` on a link (the debug page, never a click) and `GET /v1/links/{id}/debug`, over real sockets.
@Suite("The debug view of a link", .takesTurns)
struct LinkDebugTests {
    static let robotsTag = HTTPField.Name("X-Robots-Tag")!

    /// A link with an iPad app and fallback, and its fixture.
    static func fixtureWithPromo() async throws -> (Fixture, Link) {
        let fixture = try await Fixture.make()
        let link = try await fixture.admin.createLink(
            CreateLinkRequest(slug: "promo", destination: "https://example.com/promo", iosURL: "example://promo", params: ["screen": "promo"],
                              routing: LinkRouting(ipadFallbackURL: "https://example.com/ipad", ipadBundleID: "com.example.ipad", iosMinimumVersion: "2.1")),
            app: fixture.app, environment: .live)
        return (fixture, link)
    }

    /// The link's stored clicks once the recorder has stored a click made after the requests a test checks (it writes
    /// clicks in the order they were made, so any click of those requests is stored by then).
    static func clicksAfterASentinel(_ client: some TestClientProtocol, _ fixture: Fixture, link: Link) async throws -> Int {
        let sentinel = try await client.execute(uri: "/\(link.slug)?sentinel=1", method: .get, headers: headers(userAgent: UA.desktop))
        #expect(sentinel.status == .found)
        var clicks: [Click] = []
        #expect(try await fixture.eventually {
            clicks = try await fixture.store.exportClicks(
                appID: fixture.app.id, environment: .live, from: Date(timeIntervalSinceNow: -3600), to: Date(timeIntervalSinceNow: 3600),
                after: nil, limit: 1000)
            return clicks.contains { $0.query == "sentinel=1" }
        })
        return clicks.filter { $0.linkID == link.id }.count
    }

    static func checkDebugPage(_ page: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(page.status == .ok, sourceLocation: sourceLocation)
        #expect(page.headers[.contentType] == "text/html; charset=utf-8", sourceLocation: sourceLocation)
        #expect(page.headers[.csp] == HTML.contentSecurityPolicy, sourceLocation: sourceLocation)
        #expect(page.headers[.cacheControl] == "no-store", sourceLocation: sourceLocation)
        #expect(page.headers[robotsTag] == "noindex, nofollow", sourceLocation: sourceLocation)
        #expect(page.headers[.location] == nil, sourceLocation: sourceLocation)
        #expect(page.text.contains("<h1>Debug view</h1>"), sourceLocation: sourceLocation)
        #expect(page.text.contains("noindex"), sourceLocation: sourceLocation)
        #expect(!page.text.contains("data-click") && !page.text.contains("<script"), "no click id, no script", sourceLocation: sourceLocation)
        for visitor in LinkDebugReport.Visitor.allCases {
            #expect(page.text.contains("id=\"case-\(visitor.rawValue)\""), "\(visitor)", sourceLocation: sourceLocation)
        }
    }

    @Test func theDebugViewIsAPageAndNeverAClick() async throws {
        let (fixture, link) = try await Self.fixtureWithPromo()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            for path in ["/promo?d=1", "/link/promo?d=1", "/PROMO?d=1", "/promo?utm_source=x&d=1"] {
                for agent in [UA.iPhoneSafari, UA.android, UA.desktop, UA.facebookBot] {
                    let page = try await client.execute(uri: path, method: .get, headers: headers(userAgent: agent))
                    Self.checkDebugPage(page)
                    #expect(page.text.contains("https://go.example.com/promo"), "\(path)")
                    // What the app is handed, and the iPad app the association file names.
                    #expect(page.text.contains("ABCDE12345.com.example.ipad"), "\(path)")
                    #expect(page.text.contains("iosMinimumVersion <code>2.1</code>"), "\(path)")
                    #expect(page.text.contains("data-code=\"ipad_desktop_user_agent\""), "\(path)")
                }
            }
            let get = try await client.execute(uri: "/promo?d=1", method: .get, headers: headers(userAgent: UA.iPhoneSafari))
            let head = try await client.execute(uri: "/promo?d=1", method: .head, headers: headers(userAgent: UA.iPhoneSafari))
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == String(get.body.readableBytes))
            #expect(head.headers[.csp] == HTML.contentSecurityPolicy && head.headers[Self.robotsTag] == "noindex, nofollow")
            // Only the sentinel's click is stored: none of the debug views above.
            #expect(try await Self.clicksAfterASentinel(client, fixture, link: link) == 1)
            let stats = try await client.execute(uri: "/v1/links/\(link.id)/stats", method: .get, headers: headers(key: fixture.secret))
            #expect(try stats.decode(StatsReport.self).totals.clicks == 1)
        }
    }

    @Test func otherValuesOfDAreOrdinaryClicks() async throws {
        let (fixture, link) = try await Self.fixtureWithPromo()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            for query in ["d=0", "d=2", "d=10", "D=1", "d=%31", "dd=1"] {
                let click = try await client.execute(uri: "/promo?\(query)", method: .get, headers: headers(userAgent: UA.desktop))
                #expect(click.status == .found, "\(query)")
                #expect(click.headers[.location] == "https://example.com/promo?\(query)", "the click's query goes on: \(query)")
            }
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) == 6 })
        }
    }

    @Test func hostileSlugsAndQueriesGetNothingBack() async throws {
        let (fixture, link) = try await Self.fixtureWithPromo()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            let notFound = try await client.execute(uri: "/nothing-here", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(notFound.status == .notFound)
            for path in ["/nothing-here?d=1", "/%3Cscript%3E?d=1", "/link/%3Cscript%3E?d=1", "/a%0D%0ASet-Cookie:x?d=1",
                         "/\(String(repeating: "a", count: 300))?d=1"] {
                let page = try await client.execute(uri: path, method: .get, headers: headers(userAgent: UA.desktop))
                #expect(page.status == .notFound, "\(path)")
                #expect(page.text == notFound.text, "the ordinary 404 page: \(path)")
                #expect(page.headers[HTTPField.Name("Set-Cookie")!] == nil)
            }
            for query in ["d=1&x=%3Cscript%3Ealert(1)%3C/script%3E", "d=1&x=%0D%0ASet-Cookie:%20a=b", "x=%22%3E%3Cimg%20src=x%3E&d=1",
                          "d=1&" + String(repeating: "x", count: 5000)] {
                let page = try await client.execute(uri: "/promo?\(query)", method: .get, headers: headers(userAgent: UA.iPhoneSafari))
                Self.checkDebugPage(page)
                #expect(!page.text.contains("alert") && !page.text.contains("Set-Cookie") && !page.text.contains("<img"), "\(query)")
                #expect(page.headers[HTTPField.Name("Set-Cookie")!] == nil)
            }
            #expect(try await Self.clicksAfterASentinel(client, fixture, link: link) == 1)
        }
    }

    @Test func aDisabledLinksDebugViewShowsThatItAnswers404() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(
            CreateLinkRequest(slug: "off", destination: "http://example.com/off", disabled: true), app: fixture.app, environment: .live)
        try await fixture.application().testLive { client in
            let click = try await client.execute(uri: "/off", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(click.status == .notFound)
            let page = try await client.execute(uri: "/off?d=1", method: .get, headers: headers(userAgent: UA.desktop))
            Self.checkDebugPage(page)
            #expect(page.text.contains("<strong id=\"ferry-status\">disabled</strong>"))
            #expect(page.text.contains("<td>404 page</td>"))
            #expect(page.text.contains("data-code=\"link_disabled\""))
            #expect(page.text.contains("data-code=\"insecure_url\""))
        }
    }

    @Test func theFastPathLeavesTheDebugViewToTheRouter() async throws {
        let (fixture, _) = try await Self.fixtureWithPromo()
        defer { fixture.remove() }
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            // The first click reads the link into the cache; the next ones are the fast path's.
            _ = try await EdgeFastPathTests.exchange(port: port, [EdgeFastPathTests.get("/promo", close: true)])
            var before = try await EdgeFastPathTests.fastAnswers(port: port)
            let ordinary = try await EdgeFastPathTests.exchange(port: port, [EdgeFastPathTests.get("/promo?d=2"), EdgeFastPathTests.get("/promo", close: true)])
            #expect(ordinary.first?.status == 302 && ordinary.first?.header("Location") == "https://example.com/promo?d=2")
            #expect(try await EdgeFastPathTests.fastAnswers(port: port) == before + 1, "the cached link is the fast path's")

            before = try await EdgeFastPathTests.fastAnswers(port: port)
            let debug = try await EdgeFastPathTests.exchange(port: port, [
                EdgeFastPathTests.get("/promo?d=1"), EdgeFastPathTests.get("/link/promo?x=<script>&d=1"),
                "HEAD /promo?d=1 HTTP/1.1\r\nHost: go.example.com\r\n\r\n", EdgeFastPathTests.get("/promo?d=1&x=%0D%0A", close: true),
            ])
            #expect(try await EdgeFastPathTests.fastAnswers(port: port) == before, "none of them answered from memory")
            #expect(debug.map(\.status) == [200, 200, 200, 200])
            for (index, page) in debug.enumerated() where index != 2 {
                #expect(page.body.contains("<h1>Debug view</h1>") && !page.body.contains("<script"), "\(index)")
                #expect(page.header("X-Robots-Tag") == "noindex, nofollow")
                #expect(page.header("Strict-Transport-Security") != nil, "the router's pages carry what the fast path's do")
            }
            #expect(debug[2].body.isEmpty && debug[2].header("Content-Length") == String(debug[0].body.utf8.count))
            #expect(EdgeFastPathTests.shape(debug[0]) == EdgeFastPathTests.shape(debug[3]))
        }
    }

    @Test func withoutTheFastPathTheRouterAnswersTheSame() async throws {
        let (fixture, link) = try await Self.fixtureWithPromo()
        defer { fixture.remove() }
        var configuration = Fixture.configuration
        configuration.edgeFastPath = false
        try await fixture.application(configuration).testLive { client in
            for _ in 0..<2 {  // read from the store, then from the cache
                Self.checkDebugPage(try await client.execute(uri: "/promo?d=1", method: .get, headers: headers(userAgent: UA.android)))
            }
            #expect(try await Self.clicksAfterASentinel(client, fixture, link: link) == 1)
        }
    }

    @Test func theAPIAnswersTheReportToItsAppsSecretKeyOnly() async throws {
        let (fixture, link) = try await Self.fixtureWithPromo()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            let path = FerryRoutes.linkDebug(id: link.id)
            let answer = try await client.execute(uri: path, method: .get, headers: headers(key: fixture.secret))
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType]?.hasPrefix("application/json") == true)
            let report = try answer.decode(LinkDebugResponse.self)
            #expect(report.linkID == link.id && report.url == "https://go.example.com/promo" && report.status == "active")
            #expect(report.cases.map(\.id) == LinkDebugReport.Visitor.allCases.map(\.rawValue))
            #expect(report.warnings.map(\.code) == ["ipad_desktop_user_agent"])
            let iPadApp = try #require(report.cases.first { $0.id == "ipad-with-app" })
            #expect(iPadApp.answer == .app && iPadApp.app?.appIDs == ["ABCDE12345.com.example.ipad"])
            #expect(iPadApp.app?.deepLink == "example://promo" && iPadApp.app?.params == ["screen": "promo"] && iPadApp.app?.iosMinimumVersion == "2.1")

            // The report says what a real click gets.
            let iPhone = try await client.execute(uri: "/promo", method: .get, headers: headers(userAgent: UA.iPhoneSafari))
            #expect(report.cases.first { $0.id == "iphone-without-app" }?.url == interstitialStoreURL(iPhone.text))
            let iPad = try await client.execute(uri: "/promo", method: .get, headers: headers(userAgent: UA.iPadSafari))
            #expect(report.cases.first { $0.id == "ipad-without-app" }?.url == interstitialStoreURL(iPad.text))
            let android = try await client.execute(uri: "/promo", method: .get, headers: headers(userAgent: UA.android))
            let location = try #require(android.headers[.location])
            #expect(report.cases.first { $0.id == "android-without-app" }?.url
                == location.replacing(/clk_[0-9A-Za-z]+/, with: LinkDebugReport.clickIDPlaceholder))

            // The raw JSON carries every key.
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: Any])
            let first = try #require((json["cases"] as? [[String: Any]])?.first)
            #expect(first["case"] as? String == "iphone-with-app" && first["httpStatus"] is NSNull && first["answer"] as? String == "app")

            #expect(try await client.execute(uri: path, method: .get, headers: headers()).status == .unauthorized)
            let publishable = try await client.execute(uri: path, method: .get, headers: headers(key: fixture.publishable))
            #expect(publishable.status == .forbidden && publishable.error?.code == .forbidden)
            let otherApp = try await client.execute(uri: path, method: .get, headers: headers(key: fixture.otherSecret))
            #expect(otherApp.status == .notFound && otherApp.error?.code == .notFound)
            #expect(try await client.execute(uri: path, method: .get, headers: headers(key: fixture.testSecret)).status == .notFound,
                    "a test key does not see live links")
            for id in ["lnk_nothing", "%3Cscript%3E", String(repeating: "x", count: 500)] {
                let missing = try await client.execute(uri: FerryRoutes.linkDebug(id: id), method: .get, headers: headers(key: fixture.secret))
                #expect(missing.status == .notFound && !missing.text.contains("<script"), "\(id.prefix(20))")
            }
            for method in [HTTPRequest.Method.post, .put, .patch, .delete] {
                let refused = try await client.execute(uri: path, method: method, headers: headers(key: fixture.secret))
                #expect(refused.status == .methodNotAllowed, "\(method)")
                #expect(refused.headers[.allow] == "GET", "\(method)")
            }
            let head = try await client.execute(uri: path, method: .head, headers: headers(key: fixture.secret))
            #expect(head.status == .ok && head.body.readableBytes == 0)
            // Reading the report is not a click either.
            #expect(try await Self.clicksAfterASentinel(client, fixture, link: link) == 4, "the three clicks above and the sentinel")
        }
    }

    @Test func anExpiredLinkIsReportedThroughTheAPI() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(
            CreateLinkRequest(slug: "late", destination: "https://example.com/late", expiresAt: Date(timeIntervalSinceNow: -60)),
            app: fixture.app, environment: .live)
        try await fixture.application().testLive { client in
            let report = try await client.execute(uri: FerryRoutes.linkDebug(id: link.id), method: .get, headers: headers(key: fixture.secret))
                .decode(LinkDebugResponse.self)
            #expect(report.status == "expired")
            #expect(report.warnings.map(\.code) == ["link_expired"])
            #expect(report.cases.allSatisfy { $0.answer == .status && $0.httpStatus == 404 })
        }
    }
}
#endif
