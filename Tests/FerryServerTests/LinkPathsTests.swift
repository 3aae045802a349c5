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

/// Slugs of several segments and domains with a path prefix, over real sockets: the fast path and the framework's
/// route give the same answers, the association file is built for its host, and the API shows the prefix.
@Suite("Link paths: slugs of several segments and path prefixes", .takesTurns)
struct LinkPathsTests {
    /// The fixture's app, with `example.org` (prefix `/links`) besides its domains, and links on both.
    static func make() async throws -> Fixture {
        let fixture = try await Fixture.make()
        _ = try await fixture.admin.updateApp(id: fixture.app.id) { spec in
            spec.domains.append("example.org")
            spec.pathPrefixes = ["example.org": "/links"]
        }
        let app = try #require(try await fixture.admin.app(id: fixture.app.id))
        for (domain, slug) in [("go.example.com", "promo/spring-26"), ("go.example.com", "summer"), ("example.org", "promo/x"), ("example.org", "summer")] {
            _ = try await fixture.admin.createLink(
                CreateLinkRequest(domain: domain, slug: slug, destination: "https://example.com/\(domain)/\(slug)"), app: app, environment: .live)
        }
        return fixture
    }

    static func request(_ path: String, host: String, method: String = "GET", close: Bool = false) -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: \(UA.desktop)\r\nX-Forwarded-For: 203.0.113.9\r\n"
            + (close ? "Connection: close\r\n" : "") + "\r\n"
    }

    /// (host, path, status, Location) of every case: links of several segments, on a prefixed domain, and paths that
    /// name nothing.
    static let cases: [(host: String, path: String, status: Int, location: String?)] = [
        ("go.example.com", "/promo/spring-26", 302, "https://example.com/go.example.com/promo/spring-26"),
        ("go.example.com", "/Promo/Spring-26/", 302, "https://example.com/go.example.com/promo/spring-26"),
        ("go.example.com", "/link/promo/spring-26?x=1", 302, "https://example.com/go.example.com/promo/spring-26?x=1"),
        ("abc.go.example.com", "/link/promo/spring-26", 302, "https://example.com/go.example.com/promo/spring-26"),
        ("go.example.com", "/summer", 302, "https://example.com/go.example.com/summer"),
        ("example.org", "/links/promo/x", 302, "https://example.com/example.org/promo/x"),
        ("example.org", "/Links/summer/", 302, "https://example.com/example.org/summer"),
        ("example.org", "/links/link/summer", 302, "https://example.com/example.org/summer"),
        ("www.example.org", "/links/link/summer", 302, "https://example.com/example.org/summer"),
        ("go.example.com", "/promo/nothing", 404, nil),
        ("go.example.com", "/promo//spring-26", 404, nil),
        ("go.example.com", "/promo/spring-26/x/y/z", 404, nil),
        ("go.example.com", "/links/promo/spring-26", 404, nil),
        ("example.org", "/summer", 404, nil),
        ("example.org", "/promo/x", 404, nil),
        ("example.org", "/links/nothing/here", 404, nil),
        ("example.org", "/linkssummer", 404, nil),
    ]

    @Test func theFastPathAndTheRouterAnswerEveryPathAlike() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            for (host, path, status, location) in Self.cases {
                // `Connection: close` goes to the router (and fills the cache); the keep-alive request before it is
                // answered from memory.
                let routed = try await EdgeFastPathTests.exchange(port: port, [Self.request(path, host: host, close: true)])
                let before = try await EdgeFastPathTests.fastAnswers(port: port)
                let both = try await EdgeFastPathTests.exchange(port: port, [Self.request(path, host: host), Self.request(path, host: host, close: true)])
                try #require(routed.count == 1 && both.count == 2)
                #expect(both[0].status == status && both[0].header("Location") == location, "\(host)\(path): \(both[0].status)")
                #expect(EdgeFastPathTests.shape(both[0]) == EdgeFastPathTests.shape(both[1]), "\(host)\(path)")
                #expect(EdgeFastPathTests.shape(both[0]) == EdgeFastPathTests.shape(routed[0]), "\(host)\(path)")
                // A path with `//` is the router's to route (it reads `//` as `/`); every other one is answered from memory.
                let fast = path.contains("//") ? 0 : 1
                #expect(try await EdgeFastPathTests.fastAnswers(port: port) == before + fast, "\(host)\(path) from memory: \(fast)")
                // HEAD goes to the router: the same status and headers, no body.
                let head = try await EdgeFastPathTests.exchange(port: port, [Self.request(path, host: host, method: "HEAD", close: true)])
                #expect(head.first?.status == status && head.first?.header("Location") == location && head.first?.body == "", "HEAD \(host)\(path)")
            }
            // The root of the prefixed domain is the domain's root (the router's to answer); `/` on it is too.
            for path in ["/links", "/links/"] {
                let root = try await EdgeFastPathTests.exchange(port: port, [Self.request(path, host: "example.org"), Self.request(path, host: "example.org", close: true)])
                #expect(root.map(\.status) == [302, 302] && root.allSatisfy { $0.header("Location") == "https://example.com/" }, "\(path)")
            }
            // With `link=` the root is a long link, followed on both paths alike (to a host of the app's fallback URL).
            let long = "/links?link=https%3A%2F%2Fexample.com%2Fx"
            let followed = try await EdgeFastPathTests.exchange(port: port, [Self.request(long, host: "example.org"), Self.request(long, host: "example.org", close: true)])
            #expect(followed.map(\.status) == [302, 302] && followed.allSatisfy { $0.header("Location") == "https://example.com/x" })
        }
    }

    @Test func theSameWithTheFastPathOff() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        var configuration = Fixture.configuration
        configuration.edgeFastPath = false
        try await fixture.application(configuration).test(.live) { client in
            let port = try #require(client.port)
            for (host, path, status, location) in Self.cases {
                for method in ["GET", "HEAD"] {
                    let answer = try await onItsOwnThread { try RawHTTPClient.request(port: port, method: method, path: path, host: host) }
                    #expect(answer.status == status && answer.header("Location") == location, "\(method) \(host)\(path): \(answer.status)")
                }
            }
        }
    }

    @Test func theFixedRoutesKeepTheirAnswersOnAPrefixedDomain() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            for host in ["go.example.com", "example.org"] {
                for (path, status) in [("/healthz", 200), ("/.well-known/assetlinks.json", 200), ("/openapi.yaml", 200), ("/v1/links", 401),
                                       ("/api/v1/deferred-deep-link", 404), ("/dashboard/sign-in", 200), ("/v1/nothing/x", 404)] {
                    let answer = try await onItsOwnThread { try RawHTTPClient.request(port: port, path: path, host: host) }
                    #expect(answer.status == status, "\(host)\(path): \(answer.status)")
                }
            }
        }
    }

    @Test func theAppleFileOfEachHostNamesItsOwnPaths() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            func paths(_ host: String) async throws -> [String] {
                let answer = try await onItsOwnThread {
                    try RawHTTPClient.request(port: port, path: "/.well-known/apple-app-site-association", host: host)
                }
                #expect(answer.status == 200)
                let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
                let details = try #require((json["applinks"] as? [String: Any])?["details"] as? [[String: Any]])
                return (details.first?["components"] as? [[String: Any]] ?? []).compactMap { component in
                    component["exclude"] == nil ? component["/"] as? String : nil
                }
            }
            #expect(try await paths("go.example.com") == ["/*"])
            #expect(try await paths("links.example.com") == ["/*"])
            #expect(try await paths("example.org") == ["/links/*"])
            #expect(try await paths("www.example.org") == ["/links/*"])
            let android = try await onItsOwnThread { try RawHTTPClient.request(port: port, path: "/.well-known/assetlinks.json", host: "example.org") }
            #expect(android.body.contains("com.example.android"))
        }
    }

    @Test func unknownPathsOfSeveralSegmentsCountAgainstTheUnknownSlugLimit() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        try await fixture.application(try RateLimitTests.configuration("unknown-slugs=2/min")).test(.live) { client in
            let port = try #require(client.port)
            // The links in the cache first: a link the cache does not know is no read for an address over its limit.
            _ = try await EdgeFastPathTests.exchange(port: port, [
                Self.request("/promo/spring-26", host: "go.example.com"), Self.request("/links/summer", host: "example.org", close: true),
            ])
            let paths = ["/a/b", "/a/c", "/a/d", "/promo/spring-26"]
            let answers = try await EdgeFastPathTests.exchange(port: port, paths.enumerated().map { index, path in
                Self.request(path, host: "go.example.com", close: index == paths.count - 1)
            })
            #expect(answers.map(\.status) == [404, 404, 429, 302])
            // A path that can name no link is no lookup: it costs nothing against the limit.
            let other = try await EdgeFastPathTests.exchange(port: port, [
                Self.request("/summer", host: "example.org"), Self.request("/a//b", host: "example.org"),
                Self.request("/links/summer", host: "example.org", close: true),
            ])
            #expect(other.map(\.status) == [404, 404, 302])
        }
    }

    @Test func theAPIMakesAndResolvesSuchLinks() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let created = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                   body: jsonBody(CreateLinkRequest(domain: "example.org", slug: "Fall/Sale", destination: "https://example.com/f")))
            #expect(created.status == .created)
            let link = try created.decode(LinkResponse.self)
            #expect(link.slug == "fall/sale" && link.url == "https://example.org/links/fall/sale")
            let read = try await client.execute(uri: "/v1/links/\(link.id)", method: .get, headers: headers(key: fixture.secret))
            #expect(try read.decode(LinkResponse.self).url == "https://example.org/links/fall/sale")
            let list = try await client.execute(uri: "/v1/links?limit=100", method: .get, headers: headers(key: fixture.secret))
            let urls = try list.decode(LinkListResponse.self).data.map(\.url)
            #expect(urls.contains("https://go.example.com/promo/spring-26") && urls.contains("https://example.org/links/promo/x"))
            for slug in ["api/x", "a//b", "/a", "a/b/c/d/e", String(repeating: "a", count: 64) + "/" + String(repeating: "b", count: 64)] {
                let refused = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                       body: jsonBody(CreateLinkRequest(slug: slug, destination: "https://example.com/")))
                #expect(refused.status == .badRequest && refused.error?.field == "slug", "\(slug)")
            }
            // Resolving: the slug, or the path the app was opened with, prefix and all.
            for (uri, slug) in [("/v1/links/resolve/promo/spring-26", "promo/spring-26"),
                                ("/v1/links/resolve/Link/Promo/Spring-26?domain=abc.go.example.com", "promo/spring-26"),
                                ("/v1/links/resolve/links/promo/x?domain=example.org", "promo/x"),
                                ("/v1/links/resolve/links/link/promo/x?domain=www.example.org", "promo/x"),
                                ("/v1/links/resolve/promo/x?domain=example.org", "promo/x"),
                                ("/v1/links/resolve/summer", "summer")] {
                let answer = try await client.execute(uri: uri, method: .get, headers: headers(key: fixture.publishable))
                #expect(answer.status == .ok, "\(uri): \(answer.text)")
                #expect((try? answer.decode(ResolveResponse.self))?.link.slug == slug, "\(uri)")
            }
            let resolved = try await client.execute(uri: "/v1/links/resolve/links/promo/x?domain=example.org", method: .get, headers: headers(key: fixture.publishable))
            #expect(try resolved.decode(ResolveResponse.self).link.url == "https://example.org/links/promo/x")
            for uri in ["/v1/links/resolve/promo/nothing", "/v1/links/resolve/promo%2Fspring-26", "/v1/links/resolve/promo//spring-26",
                        "/v1/links/resolve/" + String(repeating: "a/", count: 200)] {
                let answer = try await client.execute(uri: uri, method: .get, headers: headers(key: fixture.publishable))
                #expect(answer.status == .notFound && answer.error?.code == .notFound, "\(uri.prefix(60))")
            }
            let post = try await client.execute(uri: "/v1/links/resolve/promo/spring-26", method: .post, headers: headers(key: fixture.publishable))
            #expect(post.status == .methodNotAllowed && post.headers[.allow] == "GET")
        }
    }

    @Test func theDomainsAPISetsAndRemovesAPrefix() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            func patch(_ domain: String, _ body: String, key: String? = nil) async throws -> TestResponse {
                try await client.execute(uri: "/v1/domains/\(domain)", method: .patch, headers: headers(key: key ?? fixture.secret, json: true), body: jsonBody(body))
            }
            let list = try await client.execute(uri: "/v1/domains", method: .get, headers: headers(key: fixture.secret))
            let domains = try list.decode(DomainListResponse.self).data
            #expect(domains.first { $0.domain == "example.org" }?.pathPrefix == "/links")
            #expect(domains.first { $0.domain == "go.example.com" }?.pathPrefix == nil)
            #expect(!list.text.contains(#""pathPrefix":null"#))

            let set = try await patch("links.example.com", #"{"pathPrefix": "Go/App/"}"#)
            #expect(set.status == .ok)
            #expect(try set.decode(DomainResponse.self) == DomainResponse(domain: "links.example.com", status: .active, pathPrefix: "/go/app"))
            let app = try #require(try await fixture.admin.app(id: fixture.app.id))
            #expect(app.pathPrefixes == ["example.org": "/links", "links.example.com": "/go/app"])
            let removed = try await patch("example.org", #"{"pathPrefix": null}"#)
            #expect(try removed.decode(DomainResponse.self).pathPrefix == nil)
            #expect(try await fixture.admin.app(id: fixture.app.id)?.pathPrefixes == ["links.example.com": "/go/app"])

            for (body, field) in [(#"{"pathPrefix": "/api"}"#, "pathPrefix"), (#"{"pathPrefix": "/a//b"}"#, "pathPrefix"),
                                  (#"{"pathPrefix": "/a/b/c/d"}"#, "pathPrefix"), (#"{"pathPrefix": "/x\r\nSet-Cookie: a"}"#, "pathPrefix"),
                                  (#"{"pathPrefix": "/\#(String(repeating: "a", count: 70))"}"#, "pathPrefix"), (#"{}"#, "pathPrefix"),
                                  (#"{"pathPrefix": 3}"#, "pathPrefix")] {
                let refused = try await patch("go.example.com", body)
                #expect(refused.status == .badRequest && refused.error?.field == field, "\(body): \(refused.text)")
            }
            #expect(try await patch("nobody.example", #"{"pathPrefix": "/x"}"#).status == .notFound)
            #expect(try await patch("other.test", #"{"pathPrefix": "/x"}"#).status == .notFound, "another app's domain")
            #expect(try await patch("go.example.com", #"{"pathPrefix": "/x"}"#, key: fixture.testSecret).status == .forbidden)
            #expect(try await patch("go.example.com", #"{"pathPrefix": "/x"}"#, key: fixture.publishable).status == .forbidden)
            #expect(try await fixture.admin.app(id: fixture.app.id)?.pathPrefixes == ["links.example.com": "/go/app"], "nothing refused was kept")
        }
    }

    @Test func theDashboardShowsAndSetsAPrefix() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let settings = try await client.execute(uri: "/dashboard/settings", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(settings.text.contains("links under /links/") && settings.text.contains(#"name="pathPrefix" value="/links""#))
            let set = try await DashboardTests.post(client, "/dashboard/domains/prefix", cookie: cookie, body: "csrf=\(csrf)&domain=go.example.com&pathPrefix=%2FGo")
            #expect(set.status == .ok && set.text.contains("served under /go/"), "\(set.text.prefix(300))")
            #expect(try await fixture.store.app(id: fixture.app.id)?.pathPrefixes["go.example.com"] == "/go")
            let refused = try await DashboardTests.post(client, "/dashboard/domains/prefix", cookie: cookie, body: "csrf=\(csrf)&domain=go.example.com&pathPrefix=%2Fapi")
            #expect(refused.status == .badRequest && refused.text.contains("cannot begin with"))
            let cleared = try await DashboardTests.post(client, "/dashboard/domains/prefix", cookie: cookie, body: "csrf=\(csrf)&domain=example.org&pathPrefix=")
            #expect(cleared.status == .ok && cleared.text.contains("at /{slug} again"))
            #expect(try await fixture.store.app(id: fixture.app.id)?.pathPrefixes == ["go.example.com": "/go"])
            // The links list shows short URLs with the prefix.
            let links = try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(links.text.contains("https://go.example.com/go/promo/spring-26"), "\(links.text.prefix(200))")
            // A test key sees the prefix and changes nothing.
            let (testCookie, testCSRF) = try #require(try await DashboardTests.signIn(client, key: fixture.testSecret))
            let forbidden = try await DashboardTests.post(client, "/dashboard/domains/prefix", cookie: testCookie, body: "csrf=\(testCSRF)&domain=go.example.com&pathPrefix=")
            #expect(forbidden.status == .forbidden)
            #expect(try await fixture.store.app(id: fixture.app.id)?.pathPrefixes == ["go.example.com": "/go"])
        }
    }

    @Test func theCommandLineSetsAndRemovesPrefixesAndPrintsPrefixedURLs() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        let database = "sqlite:\(fixture.path)"
        let set = try await FerryProcess.run(["app", "update", fixture.app.id, "--database", database, "--path-prefix", "Links.Example.com=/Go/App/",
                                              "--remove-path-prefix", "example.org"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try await fixture.store.app(id: fixture.app.id)?.pathPrefixes == ["links.example.com": "/go/app"])
        let link = try await FerryProcess.run(["link", "create", "--database", database, "--app", fixture.app.id, "--domain", "links.example.com",
                                               "--destination", "https://example.com/f", "--slug", "Fall/Sale"])
        #expect(link.status == 0 && link.stdout == "https://links.example.com/go/app/fall/sale\n", "\(link.stdout) \(link.stderr)")
        let list = try await FerryProcess.run(["link", "list", "--database", database, "--app", fixture.app.id])
        #expect(list.stdout.contains("\thttps://links.example.com/go/app/fall/sale\t"))
        for arguments in [["--path-prefix", "links.example.com"], ["--path-prefix", "links.example.com=/v1"], ["--path-prefix", "nobody.example=/x"],
                          ["--path-prefix", "links.example.com=/a//b"]] {
            let refused = try await FerryProcess.run(["app", "update", fixture.app.id, "--database", database] + arguments)
            #expect(refused.status != 0 && (refused.stderr.contains("pathPrefix") || refused.stderr.contains("path prefix")), "\(arguments): \(refused.stderr)")
        }
        #expect(try await fixture.store.app(id: fixture.app.id)?.pathPrefixes == ["links.example.com": "/go/app"], "a refused change keeps nothing")
    }

    @Test func droppingADomainDropsItsPrefix() async throws {
        let fixture = try await Self.make()
        defer { fixture.remove() }
        let app = try await fixture.admin.updateApp(id: fixture.app.id) { $0.domains.removeAll { $0 == "example.org" } }
        #expect(app.pathPrefixes.isEmpty)
        await #expect(throws: FerryCore.ValidationError.self) {
            try await fixture.admin.updateApp(id: fixture.app.id) { $0.pathPrefixes["nobody.example"] = "/links" }
        }
    }
}
#endif
