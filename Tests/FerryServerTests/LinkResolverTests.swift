#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
@testable import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The steps from a host and a slug to a link (`LinkLookup`), walked by hand over a real SQLite store, and the two
/// ways `LinkResolver` walks them: without waiting (the fast path) and waiting for the database (the router).
@Suite("The link resolver", .takesTurns)
struct LinkResolverTests {
    static func resolver(_ fixture: Fixture, limits: RateLimitSettings = .off, immediate: Bool = true) -> LinkResolver {
        LinkResolver(
            store: fixture.store, cache: LinkCache(capacity: 100), lookups: EdgeLookups(store: fixture.store, timeout: .seconds(15)),
            immediateReader: immediate ? fixture.store : nil,
            // A clock that stands still: a bucket taken stays taken.
            limits: RequestLimits(limiter: RateLimiter(settings: limits, clock: { 0 }), addresses: ClientAddressResolver())
        )
    }

    /// A step as text, to compare.
    static func text(_ step: LinkLookup.Step) -> String {
        switch step {
        case .readApp(let host): "read app of \(host)"
        case .readLink(let domain, let slug): "read link \(domain)/\(slug)"
        case .done(let resolution): text(resolution)
        }
    }

    static func text(_ resolution: LinkResolution?) -> String {
        switch resolution {
        case .app(let app)?: "app \(app?.value.name ?? "none")"
        case .link(let resolved)?: "link \(resolved.link.domain)/\(resolved.link.slug)" + (resolved.isServedHere ? "" : " not served here")
        case .unknown?: "unknown"
        case .retired?: "retired"
        case .tooManyUnknownSlugs(let wait)?: "too many unknown slugs, retry after \(wait)"
        case .unavailable?: "unavailable"
        case nil: "not without waiting"
        }
    }

    /// Walks a lookup to its end, reading the store for each step that needs it; the steps taken.
    static func walk(_ lookup: inout LinkLookup, store: any FerryDatabase) async throws -> [String] {
        var steps: [String] = []
        while true {
            let step = lookup.next()
            steps.append(text(step))
            switch step {
            case .done: return steps
            case .readApp(let host): lookup.found(app: try await LinkResolver.app(serving: host, in: store))
            case .readLink(let domain, let slug): lookup.found(link: try await store.link(domain: domain, slug: slug))
            }
        }
    }

    /// The fixture, with `home` on go.example.com and `deep` on links.example.com, a domain its app then dropped.
    static func fixtureWithADroppedDomain() async throws -> Fixture {
        let fixture = try await Fixture.make()
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "home", destination: "https://example.com/home"), app: fixture.app, environment: .live)
        _ = try await fixture.admin.createLink(CreateLinkRequest(domain: "links.example.com", slug: "deep", destination: "https://example.com/deep"),
                                               app: fixture.app, environment: .live)
        _ = try await fixture.admin.updateApp(id: fixture.app.id) { $0.domains.removeAll { $0 == "links.example.com" } }
        return fixture
    }

    @Test func aWalkReadsOnlyWhatTheCacheDoesNotKnow() async throws {
        let fixture = try await Self.fixtureWithADroppedDomain()
        defer { fixture.remove() }
        let resolver = Self.resolver(fixture)
        // A subdomain with a port belongs to the app of go.example.com, whose links live on go.example.com.
        var first = resolver.lookup(.click, host: "abc.go.example.com:8080", slug: "home", asker: .subject(nil), countingMisses: true)
        #expect(try await Self.walk(&first, store: fixture.store) == [
            "read app of abc.go.example.com:8080", "read link go.example.com/home", "link go.example.com/home",
        ])
        var again = resolver.lookup(.click, host: "abc.go.example.com:8080", slug: "home", asker: .subject(nil), countingMisses: true)
        #expect(try await Self.walk(&again, store: fixture.store) == ["link go.example.com/home"], "all from the cache")
        var other = resolver.lookup(.click, host: "abc.go.example.com:8080", slug: "nothing", asker: .subject(nil), countingMisses: true)
        #expect(try await Self.walk(&other, store: fixture.store) == ["read link go.example.com/nothing", "unknown"])
        var app = resolver.lookup(.app, host: "go.example.com", slug: "", asker: .subject(nil), countingMisses: true)
        #expect(try await Self.walk(&app, store: fixture.store) == ["read app of go.example.com", "app Example"])
    }

    @Test func onAHostNoAppServesOnlyAClickAsksForALinkMadeThere() async throws {
        let fixture = try await Self.fixtureWithADroppedDomain()
        defer { fixture.remove() }
        let resolver = Self.resolver(fixture)
        var click = resolver.lookup(.click, host: "links.example.com", slug: "deep", asker: .subject(nil), countingMisses: true)
        #expect(try await Self.walk(&click, store: fixture.store) == ["read app of links.example.com", "read link links.example.com/deep", "retired"])
        var unknown = resolver.lookup(.click, host: "links.example.com", slug: "home", asker: .subject(nil), countingMisses: true)
        #expect(try await Self.walk(&unknown, store: fixture.store) == ["read link links.example.com/home", "unknown"])
        var link = resolver.lookup(.link, host: "links.example.com", slug: "deep", asker: .subject(nil), countingMisses: true)
        #expect(try await Self.walk(&link, store: fixture.store) == ["unknown"], "the API asks for a link of the host's app: there is none")
        var app = resolver.lookup(.app, host: "links.example.com", slug: "", asker: .subject(nil), countingMisses: true)
        #expect(try await Self.walk(&app, store: fixture.store) == ["app none"])
    }

    @Test func whileTheDatabaseIsAwayWhatTheCacheKnewBeforeStandsIn() async throws {
        let fixture = try await Self.fixtureWithADroppedDomain()
        defer { fixture.remove() }
        let resolver = Self.resolver(fixture)
        let away = DatabaseUnavailable(message: "away")
        for (host, slug) in [("go.example.com", "home"), ("go.example.com", "nothing")] {
            var lookup = resolver.lookup(.click, host: host, slug: slug, asker: .subject(nil), countingMisses: true)
            _ = try await Self.walk(&lookup, store: fixture.store)
        }
        resolver.cache.removeAll()
        func failing(_ host: String, _ slug: String) -> [String] {
            var lookup = resolver.lookup(.click, host: host, slug: slug, asker: .subject(nil), countingMisses: true)
            var steps: [String] = []
            while true {
                let step = lookup.next()
                steps.append(Self.text(step))
                if case .done = step { return steps }
                lookup.readFailed(away)
            }
        }
        #expect(failing("go.example.com", "home") == ["read app of go.example.com", "read link go.example.com/home", "link go.example.com/home"])
        #expect(failing("go.example.com", "nothing") == ["read app of go.example.com", "read link go.example.com/nothing", "unknown"])
        #expect(failing("go.example.com", "never-seen") == ["read app of go.example.com", "read link go.example.com/never-seen", "unavailable"])
        #expect(failing("other.test", "x") == ["read app of other.test", "unavailable"])
        // On a host no app serves (as the cache knew it), a link that cannot be read is taken as unknown.
        var noApp = resolver.lookup(.click, host: "nobody.test", slug: "x", asker: .subject(nil), countingMisses: true)
        _ = try await Self.walk(&noApp, store: fixture.store)
        resolver.cache.removeAll()
        #expect(failing("nobody.test", "y") == ["read app of nobody.test", "read link nobody.test/y", "unknown"])
    }

    @Test func anAddressOverItsLimitOfUnknownSlugsIsRefusedBeforeAnyRead() async throws {
        let fixture = try await Self.fixtureWithADroppedDomain()
        defer { fixture.remove() }
        let resolver = Self.resolver(fixture, limits: try RateLimitSettings(parsing: "unknown-slugs=2/min"))
        let origin = ClickOrigin(peer: "198.51.100.7", forwardedFor: [])
        func click(_ slug: String, from origin: ClickOrigin) async throws -> [String] {
            var lookup = resolver.lookup(.click, host: "go.example.com", slug: slug, asker: .origin(origin), countingMisses: true)
            return try await Self.walk(&lookup, store: fixture.store)
        }
        #expect(try await click("a", from: origin).last == "unknown")
        #expect(try await click("home", from: origin).last == "link go.example.com/home", "a link that exists costs nothing")
        #expect(try await click("b", from: origin).last == "unknown")
        #expect(try await click("c", from: origin) == ["too many unknown slugs, retry after 30"], "no read for a third unknown slug")
        #expect(try await click("a", from: origin) == ["unknown"], "a slug known to be missing is answered from the cache")
        #expect(try await click("home", from: origin) == ["link go.example.com/home"])
        #expect(try await click("c", from: ClickOrigin(peer: "198.51.100.8", forwardedFor: [])).last == "unknown", "another address has its own")
        // The API's lookups count against no address.
        var api = resolver.lookup(.link, host: "go.example.com", slug: "d", asker: .subject(nil), countingMisses: true)
        #expect(try await Self.walk(&api, store: fixture.store).last == "unknown")
    }

    @Test(arguments: [true, false])
    func withoutWaitingAndWaitingTheResolverComesToTheSameAnswers(immediateReader: Bool) async throws {
        let fixture = try await Self.fixtureWithADroppedDomain()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "off", destination: "https://example.com/off", disabled: true),
                                               app: fixture.app, environment: .live)
        let fast = Self.resolver(fixture, immediate: immediateReader)
        let router = Self.resolver(fixture, immediate: immediateReader)
        let origin = ClickOrigin(peer: "203.0.113.9", forwardedFor: [])
        let hosts = ["go.example.com", "abc.go.example.com", "go.example.com:8080", "links.example.com", "other.test", "nobody.test", "localhost"]
        for host in hosts {
            for slug in ["home", "deep", "off", "nothing"] {
                let waited = Self.text(try await router.resolve(.click, host: host, slug: slug, asker: .origin(origin)))
                let missesBefore = fast.cache.statistics.misses
                var now = fast.resolveNow(host: host, slug: slug, origin: origin)
                if now == nil {
                    // Without waiting the resolver gives up only before it knows the host, or, with no reader that
                    // does not wait, the link; what it gave up it did not count as a miss.
                    #expect(fast.cache.statistics.misses == missesBefore, "\(host)/\(slug)")
                    _ = try await fast.resolve(.click, host: host, slug: slug, asker: .origin(origin))
                    now = fast.resolveNow(host: host, slug: slug, origin: origin)
                }
                #expect(Self.text(now) == waited, "\(host)/\(slug)")
            }
        }
        #expect(fast.cache.statistics.misses == router.cache.statistics.misses, "each miss counted once, whichever way it was read")
    }
}
#endif
