@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing

@Suite("Path params and what counts as a Ferry link", .takesTurns)
struct PathParamsTests {
    @Test(arguments: [
        ("https://go.example.com/link/product/42", "product", "42", ["42"]),
        ("https://abc.go.example.com/link/Product/AbC9/reviews", "product", "AbC9", ["AbC9", "reviews"]),
        ("myapp://product/42?x=1", "product", "42", ["42"]),
        ("https://go.example.com/summer", "summer", nil, []),
        ("https://go.example.com/", "", nil, []),
        ("https://go.example.com/link", "link", nil, []),
        ("myapp://", "", nil, []),
    ] as [(String, String, String?, [String])])
    func mainAndSubPath(url: String, main: String, sub: String?, rest: [String]) throws {
        let params = Ferry.parsePathParams(from: try #require(URL(string: url)))
        #expect(params.mainPath == main)
        #expect(params.subPath == sub)
        #expect(params.remainingSegments == rest)
    }

    @Test func classificationFollowsDomainsSchemesAndTheSlugAlphabet() throws {
        let domains: Set<String> = ["go.example.com", "localhost:8080"], schemes: Set<String> = ["myapp"]
        func kind(_ text: String) throws -> LinkURL { LinkURL(try #require(URL(string: text)), domains: domains, schemes: schemes) }
        #expect(try kind("https://go.example.com/Summer") == .shortLink(domain: "go.example.com", slug: "summer"))
        #expect(try kind("https://GO.EXAMPLE.COM./summer_2-b") == .shortLink(domain: "go.example.com", slug: "summer_2-b"))
        #expect(try kind("https://x.y.go.example.com/LINK/summer") == .shortLink(domain: "go.example.com", slug: "summer"))
        #expect(try kind("http://localhost:8080/link/a") == .shortLink(domain: "localhost:8080", slug: "a"))
        #expect(try kind("MYAPP://anything") == .customScheme)
        #expect(try kind("https://go.example.com/summer!") == .notFerry)
        #expect(try kind("https://go.example.com/link/") == .shortLink(domain: "go.example.com", slug: "link"))
        #expect(try kind("https://example.com/summer") == .notFerry)
        #expect(try kind("javascript:alert(1)") == .notFerry)
        #expect(LinkURL.normalizeDomain(" HTTPS://Go.Example.com./path ") == "go.example.com")
        #expect(LinkURL.normalizeDomain("   ") == nil)
    }
}
