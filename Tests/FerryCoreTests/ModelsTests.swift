import FerryAPI
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

@Suite("Models", .takesTurns)
struct ModelsTests {
    @Test func linkStatus() {
        let now = Fixtures.now
        #expect(Fixtures.link().status(at: now) == .active)
        #expect(Fixtures.link(expiresAt: now.addingTimeInterval(1)).status(at: now) == .active)
        #expect(Fixtures.link(expiresAt: now).status(at: now) == .expired)
        #expect(Fixtures.link(expiresAt: now.addingTimeInterval(-1)).status(at: now) == .expired)
        #expect(Fixtures.link(disabled: true).status(at: now) == .disabled)
        #expect(Fixtures.link(expiresAt: now.addingTimeInterval(-1), disabled: true).status(at: now) == .disabled)
    }

    @Test(arguments: [
        ("go.example.com", "https"),
        ("go.example.com:8443", "https"),
        ("localhost", "http"),
        ("localhost:8080", "http"),
        ("links.localhost:8080", "http"),
        ("127.0.0.1:8080", "http"),
        ("[::1]:8080", "http"),
        ("localhost.example.com", "https"),
        ("127example.com", "https"),
        ("127.example.com", "https"),
        ("127.0.0.2", "http"),
        ("10.0.0.1:8080", "https"),
        ("[::1]", "http"),
        ("[2001:db8::1]:8080", "https"),
    ])
    func shortURLScheme(domain: String, scheme: String) {
        #expect(ShortURL.scheme(forDomain: domain) == scheme)
        #expect(ShortURL.make(domain: domain, slug: "abc") == "\(scheme)://\(domain)/abc")
    }

    @Test func linkResponseCarriesEveryField() {
        let link = Fixtures.link(androidURL: "acme://a", social: SocialMetadata(title: "T"), expiresAt: Fixtures.now.addingTimeInterval(60))
        let response = link.response
        #expect(response.id == link.id)
        #expect(response.url == "https://go.acme.com/summer")
        #expect(response.domain == link.domain)
        #expect(response.slug == link.slug)
        #expect(response.environment == link.environment)
        #expect(response.destination == link.destination)
        #expect(response.iosURL == link.iosURL)
        #expect(response.androidURL == "acme://a")
        #expect(response.params == link.params)
        #expect(response.utm == link.utm)
        #expect(response.campaign == link.campaign)
        #expect(response.referrer == link.referrer)
        #expect(response.social == SocialMetadata(title: "T"))
        #expect(response.expiresAt == link.expiresAt)
        #expect(response.disabled == link.disabled)
        #expect(response.createdAt == link.createdAt)
        #expect(response.updatedAt == link.updatedAt)
    }

    @Test func iOSSettingsDeriveAppIDsAndStoreURL() {
        let settings = IOSSettings(teamID: "ABCDE12345", bundleIDs: ["com.a.app", "com.a.clip"], appStoreID: "123")
        #expect(settings.appIDs == ["ABCDE12345.com.a.app", "ABCDE12345.com.a.clip"])
        #expect(settings.appStoreURL == "https://apps.apple.com/app/id123")
        #expect(IOSSettings(bundleIDs: ["com.a.app"]).appIDs.isEmpty)
        #expect(IOSSettings().appStoreURL == nil)
    }

    @Test func validationErrorDescription() {
        #expect(ValidationError(field: "slug", "bad").description == "slug: bad")
        #expect(ValidationError(field: nil, "bad").description == "bad")
        #expect(ValidationError(field: nil, "x").code == .invalidField)
        #expect(ValidationError(code: .conflict, field: "slug", "taken").code == .conflict)
    }
}

@Suite("Identifiers", .takesTurns)
struct IdentifiersTests {
    @Test func idsHaveThePrefixAnd22Alphanumerics() {
        var generator = SeededGenerator(seed: 1)
        for _ in 0..<100 {
            let id = Identifiers.make(prefix: "lnk", using: &generator)
            #expect(id.hasPrefix("lnk_"))
            let random = id.dropFirst(4)
            #expect(random.count == 22)
            #expect(random.utf8.allSatisfy { Identifiers.alphanumerics.contains($0) })
        }
    }

    @Test func clickIDsSortByTimeAndStayUnguessable() {
        var generator = SeededGenerator(seed: 4)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        var previous = ""
        var tails = Set<Substring>()
        for step in 0..<2000 {
            let id = Identifiers.makeTimeOrdered(prefix: "clk", at: start.addingTimeInterval(Double(step) * 0.0007), using: &generator)
            #expect(AttributionRules.isClickID(id), "\(id)")
            // A later click sorts after (within one millisecond, the random part decides).
            #expect(previous.prefix(12) <= id.prefix(12), "\(previous) then \(id)")
            previous = id
            tails.insert(id.dropFirst(12))
        }
        #expect(tails.count == 2000, "the random part differs for every click")
        // Far dates keep the shape; the year 1970 is the smallest.
        #expect(Identifiers.makeTimeOrdered(prefix: "clk", at: Date(timeIntervalSince1970: 0), using: &generator).hasPrefix("clk_00000000"))
        #expect(AttributionRules.isClickID(Identifiers.makeTimeOrdered(prefix: "clk", at: Date(timeIntervalSince1970: 4_000_000_000), using: &generator)))
    }

    @Test func everySymbolIsEquallyLikely() {
        var generator = SeededGenerator(seed: 5)
        let text = Identifiers.random(count: 62 * 2000, from: Identifiers.alphanumerics, using: &generator)
        var counts: [UInt8: Int] = [:]
        for byte in text.utf8 { counts[byte, default: 0] += 1 }
        #expect(counts.count == 62)
        // 2000 expected per symbol; a fair draw stays well within ±15%.
        #expect(counts.values.allSatisfy { (1700...2300).contains($0) }, "\(counts.values.sorted())")
    }

    @Test func generatedSlugsAreValidLowercaseSlugs() {
        var generator = SeededGenerator(seed: 2)
        for _ in 0..<200 {
            let slug = Identifiers.slug(length: Slug.generatedLength, using: &generator)
            #expect(slug.count == 7)
            #expect(Slug.normalize(slug) == slug)
        }
    }

    @Test func apiKeySecretsMakeWellFormedKeys() {
        var generator = SeededGenerator(seed: 3)
        for kind in APIKeyKind.allCases {
            for environment in APIEnvironment.allCases {
                let format = APIKeyFormat(kind: kind, environment: environment)
                let key = format.prefix + Identifiers.apiKeySecret(using: &generator)
                #expect(APIKeyFormat(parsing: key) == format)
            }
        }
    }

    @Test func sameSeedSameValuesDifferentSeedDifferentValues() {
        var a = SeededGenerator(seed: 42)
        var b = SeededGenerator(seed: 42)
        var c = SeededGenerator(seed: 43)
        let first = Identifiers.make(prefix: "clk", using: &a)
        #expect(first == Identifiers.make(prefix: "clk", using: &b))
        #expect(first != Identifiers.make(prefix: "clk", using: &c))
        #expect(Identifiers.make(prefix: "clk", using: &a) != first)
    }

    @Test func drawsFromTheWholeAlphabet() {
        var generator = SeededGenerator(seed: 4)
        let text = Identifiers.random(count: 20_000, from: Identifiers.base36, using: &generator)
        #expect(Set(text.utf8) == Set(Identifiers.base36))
    }
}

@Suite("App.linkDomain", .takesTurns)
struct AppLinkDomainTests {
    @Test func aHostStandsForTheAppsDomainWithOrWithoutItsPort() {
        let app = App(id: "app_1", name: "A", domains: ["go.example.com", "localhost:8080", "localhost"], createdAt: Date())
        #expect(app.linkDomain(forHost: "go.example.com") == "go.example.com")
        #expect(app.linkDomain(forHost: "go.example.com:443") == "go.example.com")
        #expect(app.linkDomain(forHost: "localhost:8080") == "localhost:8080")
        #expect(app.linkDomain(forHost: "localhost:9999") == "localhost")
        #expect(app.linkDomain(forHost: "other.example.com") == nil)
    }
}
