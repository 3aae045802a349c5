@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing

/// Universal Links with a slug of several segments or under a domain's path prefix, which FerryKit does not know: the
/// path goes to the server as it is (lowercased), and today's one-segment forms are read exactly as before.
@Suite("What counts as a Ferry link: paths", .takesTurns)
struct LinkURLPathsTests {
    static func kind(_ text: String) throws -> LinkURL {
        LinkURL(try #require(URL(string: text)), domains: ["go.example.com", "example.org"], schemes: ["myapp"])
    }

    @Test(arguments: [
        ("https://go.example.com/Promo/Spring-26", "promo/spring-26"),
        ("https://go.example.com/promo/spring-26/", "promo/spring-26"),
        ("https://go.example.com/link/promo/spring-26", "promo/spring-26"),
        ("https://abc.go.example.com/link/promo/spring-26", "promo/spring-26"),
        ("https://example.org/links/promo", "links/promo"),
        ("https://example.org/Links/Link/Promo", "links/link/promo"),
        ("https://www.example.org/links/link/promo", "links/link/promo"),
        ("https://go.example.com/a/b/c/d/e/f/g/h", "a/b/c/d/e/f/g/h"),
    ])
    func pathsOfSeveralSegmentsAreSentAsTheyAre(text: String, path: String) throws {
        #expect(try Self.kind(text) == .shortLink(domain: text.contains("example.org") ? "example.org" : "go.example.com", slug: path))
    }

    @Test(arguments: [
        "https://go.example.com/a/b/c/d/e/f/g/h/i", "https://go.example.com/a/b%20c", "https://go.example.com/a/b.c", "https://abc.go.example.com/promo/x",
        "https://www.example.org/links/promo", "https://go.example.com/a/" + String(repeating: "b", count: 65),
        "https://go.example.com/" + Array(repeating: String(repeating: "a", count: 60), count: 4).joined(separator: "/"),
    ])
    func otherPathsAreNotFerrys(text: String) throws {
        #expect(try Self.kind(text) == .notFerry)
    }
}
