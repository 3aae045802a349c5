import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

/// Slugs of several segments, path prefixes, and what a request path names on a link domain.
@Suite("Link paths", .takesTurns)
struct LinkPathTests {
    // MARK: Slugs of several segments

    @Test(arguments: [
        ("promo/spring-26", "promo/spring-26"),
        ("Promo/Spring-26", "promo/spring-26"),
        ("a/b", "a/b"),
        ("a/b/c/d", "a/b/c/d"),
        ("x/api", "x/api"),
        ("x/link/y", "x/link/y"),
    ])
    func slugsOfSeveralSegmentsAreSlugs(text: String, expected: String) throws {
        #expect(Slug.normalize(text) == expected)
        #expect(try Slug.validateCustom(text) == expected)
    }

    @Test(arguments: [
        "a//b", "/a", "a/", "/", "//", "a/b/c/d/e", "a/./b", "a/../b", "..", "a/%2F/b", "a%2Fb", "a/b c", "a\\b", "a/é", "a/\u{FF0F}b",
        "a/\u{2215}b", "a/b\n", "a/\u{0}",
    ])
    func pathsThatAreNoSlugAreRefused(text: String) {
        #expect(Slug.normalize(text) == nil)
        #expect(validationError { try Slug.validateCustom(text) }?.field == "slug")
    }

    @Test func eachSegmentHas64CharactersAtMostAndTheSlug128() throws {
        let segment = String(repeating: "a", count: 64)
        #expect(Slug.maxPathLength == 128)
        #expect(Slug.normalize("\(segment)/\(String(repeating: "b", count: 63))")?.utf8.count == 128)
        #expect(Slug.normalize("\(segment)/\(segment)") == nil, "129 bytes")
        #expect(Slug.normalize("\(segment)a/b") == nil, "a segment of 65")
        #expect(Slug.normalize(String(repeating: "a/", count: 5_000)) == nil)
        #expect(Slug.normalize(String(repeating: "a", count: 10_000)) == nil)
        let tooLong = validationError { try Slug.validateCustom("\(segment)/\(segment)") }
        #expect(tooLong?.message.contains("128") == true)
        let longSegment = validationError { try Slug.validateCustom("\(segment)a/b") }
        #expect(longSegment?.message.contains("64") == true)
        let five = validationError { try Slug.validateCustom("a/b/c/d/e") }
        #expect(five?.message.contains("at most 4 segments") == true)
        let empty = validationError { try Slug.validateCustom("a//b") }
        #expect(empty?.message.contains("empty") == true)
    }

    @Test(arguments: ["api/x", "V1/links", "link/x", "links/x", "well-known/x", "dashboard/a/b/c", "apple-app-site-association/x"])
    func aReservedFirstSegmentIsRefused(text: String) {
        let error = validationError { try Slug.validateCustom(text) }
        #expect(error?.field == "slug")
        #expect(error?.message.contains("reserved") == true, "\(error?.message ?? "")")
        #expect(Slug.reservedFirstSegment(of: text.lowercased()) != nil)
    }

    // MARK: Path prefixes

    @Test(arguments: [
        ("/links", "/links"), ("links", "/links"), ("/Links/", "/links"), ("/go/app", "/go/app"), ("/a/b/c", "/a/b/c"), ("/l", "/l"),
    ])
    func prefixesAreNormalised(text: String, expected: String) throws {
        #expect(try LinkPath.validatePrefix(text) == expected)
    }

    @Test(arguments: [
        "", "/", "//", "/a//b", "/a/b/c/d", "/a b", "/a.b", "/../x", "/%2e%2e", "/é", "/api", "/v1/x", "/link", "/well-known",
        "/dashboard", "/healthz", "/a?x", "/a#x", "\r\n", "/" + String(repeating: "a", count: 64), String(repeating: "a/", count: 10_000),
    ])
    func badPrefixesAreRefused(text: String) {
        #expect(validationError { try LinkPath.validatePrefix(text) }?.field == "pathPrefix", "\(text.prefix(20).debugDescription)")
    }

    @Test func aPrefixHas64BytesAtMost() throws {
        let longest = "/" + String(repeating: "a", count: 63)
        #expect(try LinkPath.validatePrefix(longest) == longest)
    }

    // MARK: What a path names

    static func app(prefixes: [String: String] = [:]) -> App {
        App(id: "app_1", name: "Acme", domains: ["go.acme.com", "acme.com"], pathPrefixes: prefixes, createdAt: Fixtures.now)
    }

    @Test(arguments: [
        ("/summer", LinkPath.slug("summer")), ("/Summer", .slug("summer")), ("/summer/", .slug("summer")),
        ("/promo/spring-26", .slug("promo/spring-26")), ("/Promo/Spring-26/", .slug("promo/spring-26")),
        ("/link/promo/spring-26", .slug("promo/spring-26")), ("/LINK/summer", .slug("summer")), ("/summer?utm_source=x", .slug("summer")),
        ("/a/b/c/d", .slug("a/b/c/d")), ("/", .root), ("/?link=https://acme.com", .root),
    ] as [(String, LinkPath)])
    func pathsOnADomainWithoutAPrefix(path: String, expected: LinkPath) {
        #expect(LinkPath.parse(path: path, host: "go.acme.com", app: Self.app()) == expected)
        #expect(LinkPath.parse(path: path, prefix: nil) == expected)
    }

    @Test(arguments: [
        "", "summer", "//summer", "/a//b", "/summer//", "/a/b/c/d/e", "/link", "/link/", "/link//x", "/api/x", "/v1/links", "/.well-known/x",
        "/healthz", "/links/x", "/%2e%2e/x", "/a%2Fb", "/a/../b", "/caf\u{E9}", "/summer#top", "/" + String(repeating: "a", count: 10_000),
        "/" + String(repeating: "a/", count: 5_000),
    ])
    func pathsThatNameNothingOnADomainWithoutAPrefix(path: String) {
        #expect(LinkPath.parse(path: path, host: "go.acme.com", app: Self.app()) == nil, "\(path.prefix(30).debugDescription)")
    }

    @Test func aPrefixedDomainServesItsLinksUnderThePrefixOnly() {
        let app = Self.app(prefixes: ["acme.com": "/links"])
        func parse(_ path: String, _ host: String = "acme.com") -> LinkPath? { LinkPath.parse(path: path, host: host, app: app) }
        #expect(parse("/links/summer") == .slug("summer"))
        #expect(parse("/Links/Promo/Spring-26/") == .slug("promo/spring-26"))
        #expect(parse("/links/link/summer") == .slug("summer"))
        #expect(parse("/links/summer?x=1") == .slug("summer"))
        #expect(parse("/links") == .root)
        #expect(parse("/links/") == .root)
        #expect(parse("/links?link=https://acme.com/x") == .root)
        #expect(parse("/links/?link=https://acme.com/x") == .root)
        // The rest of the domain is the team's own.
        for path in ["/summer", "/", "/linksummer", "/links2/summer", "/link/summer", "/links//summer", "/links/api/x", "/x/links/summer"] {
            #expect(parse(path) == nil, "\(path)")
        }
        // The prefix is the domain's, for its subdomains too; the app's other domain has none.
        #expect(parse("/links/summer", "abc.acme.com") == .slug("summer"))
        #expect(parse("/links/summer", "acme.com:8443") == .slug("summer"))
        #expect(parse("/summer", "go.acme.com") == .slug("summer"))
        #expect(parse("/links/summer", "go.acme.com") == nil)
        // A host no app serves has no prefix.
        #expect(LinkPath.parse(path: "/summer", host: "old.example", app: nil) == .slug("summer"))
    }

    @Test func aPrefixOfSeveralSegments() {
        #expect(LinkPath.parse(path: "/go/app/promo/x", prefix: "/go/app") == .slug("promo/x"))
        #expect(LinkPath.parse(path: "/go/app", prefix: "/go/app") == .root)
        #expect(LinkPath.parse(path: "/go/promo", prefix: "/go/app") == nil)
        #expect(LinkPath.parse(path: "/go", prefix: "/go/app") == nil)
    }

    @Test func theLongestLinkPathFitsTheRequestPathLimit() {
        let prefix = "/" + String(repeating: "p", count: 63)
        let slug = String(repeating: "a", count: 64) + "/" + String(repeating: "b", count: 63)
        let path = prefix + "/link/" + slug + "/"
        #expect(path.utf8.count == LinkPath.maxRequestPathLength)
        #expect(LinkPath.parse(path: path, prefix: prefix) == .slug(slug))
    }

    // MARK: Short URLs and association files

    @Test func shortURLsCarryTheDomainsPrefix() {
        let app = Self.app(prefixes: ["acme.com": "/links"])
        var link = Fixtures.link()
        link.slug = "promo/spring-26"
        #expect(link.shortURL(in: app) == "https://go.acme.com/promo/spring-26")
        link.domain = "acme.com"
        #expect(link.shortURL(in: app) == "https://acme.com/links/promo/spring-26")
        #expect(link.response(in: app).url == "https://acme.com/links/promo/spring-26")
        #expect(link.data(in: app).url == "https://acme.com/links/promo/spring-26")
        #expect(link.shortURL == "https://acme.com/promo/spring-26")
    }

    @Test func theAppleFileNamesThePrefixedPathsOnAPrefixedHost() throws {
        var app = Fixtures.app(domains: ["go.acme.com", "acme.com", "acme.link"])
        app.pathPrefixes = ["acme.com": "/links", "acme.link": "/go/app"]
        func components(_ host: String?) throws -> [[String: Any]] {
            let data = AssociationFiles.appleAppSiteAssociation(for: app, host: host)
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let details = try #require((json["applinks"] as? [String: Any])?["details"] as? [[String: Any]])
            return try #require(details.first?["components"] as? [[String: Any]])
        }
        let plain = try components("go.acme.com")
        #expect(plain.contains { $0["/"] as? String == "/*" && $0["exclude"] == nil })
        #expect(plain.contains { $0["/"] as? String == "/.well-known/*" && $0["exclude"] as? Bool == true })
        #expect(try components(nil).count == plain.count)
        let prefixed = try components("acme.com")
        #expect(prefixed.map { $0["/"] as? String } == ["/links/*"])
        #expect(try components("www.acme.com").map { $0["/"] as? String } == ["/links/*"])
        #expect(try components("acme.link").map { $0["/"] as? String } == ["/go/app/*"])
    }
}
