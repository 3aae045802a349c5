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
import NIOCore
import Synchronization
import Testing

/// Limits per client address and per API key: the buckets themselves, their settings, and every limited route
/// answering 429 with `Retry-After` while other clients go on.
@Suite("Rate limits", .takesTurns)
struct RateLimitTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        let nanoseconds = Atomic<UInt64>(1_000_000_000)
        func advance(seconds: Double) { nanoseconds.add(UInt64(seconds * 1e9), ordering: .relaxed) }
        var read: @Sendable () -> UInt64 { { self.nanoseconds.load(ordering: .relaxed) } }
    }

    static func configuration(_ limits: String) throws -> FerryConfiguration {
        var configuration = Fixture.configuration
        configuration.rateLimits = try RateLimitSettings(parsing: limits)
        return configuration
    }

    @Test func aBucketAllowsItsBurstThenRefillsEvenly() {
        let clock = ManualClock()
        let limiter = RateLimiter(settings: RateLimitSettings(limits: [.matchAddress: RateLimit(3, per: 60)]), clock: clock.read)
        let device = RateLimitSubject.address(of: IPAddress("203.0.113.7")!)
        let neighbour = RateLimitSubject.address(of: IPAddress("203.0.113.8")!)
        for _ in 0..<3 { #expect(limiter.take(.matchAddress, for: device) == .allowed) }
        // One token comes back every 20 seconds.
        #expect(limiter.take(.matchAddress, for: device) == .limited(retryAfter: 20))
        #expect(limiter.take(.matchAddress, for: neighbour) == .allowed)
        clock.advance(seconds: 5)
        #expect(limiter.check(.matchAddress, for: device) == .limited(retryAfter: 15))
        clock.advance(seconds: 15)
        // Looking does not take.
        #expect(limiter.check(.matchAddress, for: device) == .allowed)
        #expect(limiter.take(.matchAddress, for: device) == .allowed)
        #expect(limiter.take(.matchAddress, for: device) == .limited(retryAfter: 20))
        // A rule without a limit never refuses.
        for _ in 0..<100 { #expect(limiter.take(.eventsAddress, for: device) == .allowed) }
        #expect(limiter.limitedTotals.first { $0.rule == .matchAddress }?.count == 3)
    }

    @Test func anIPv6SubscriberIsOneSubjectAcrossItsSlash64() {
        let limiter = RateLimiter(settings: RateLimitSettings(limits: [.signIn: RateLimit(2, per: 60)]))
        #expect(limiter.take(.signIn, for: .address(of: IPAddress("2001:db8:1:2::1")!)) == .allowed)
        #expect(limiter.take(.signIn, for: .address(of: IPAddress("2001:db8:1:2:ffff::9")!)) == .allowed)
        guard case .limited = limiter.take(.signIn, for: .address(of: IPAddress("2001:db8:1:2:abcd::")!)) else {
            Issue.record("a third address of the same /64 was let through")
            return
        }
        #expect(limiter.take(.signIn, for: .address(of: IPAddress("2001:db8:1:3::1")!)) == .allowed)
        // IPv4 and its mapped form are the same client.
        #expect(limiter.take(.signIn, for: .address(of: IPAddress("198.51.100.4")!)) == .allowed)
        #expect(limiter.take(.signIn, for: .address(of: IPAddress("::ffff:198.51.100.4")!)) == .allowed)
        #expect(limiter.take(.signIn, for: .address(of: IPAddress("198.51.100.4")!)) != .allowed)
    }

    @Test func aFloodOfDistinctAddressesKeepsTheTableBounded() {
        let limiter = RateLimiter(settings: RateLimitSettings(limits: [.unknownSlugs: RateLimit(5, per: 60)]), capacity: 1600)
        for value in 0..<50_000 as Range<UInt32> {
            _ = limiter.take(.unknownSlugs, for: .address(of: .v4(0x0A00_0000 | value)))
        }
        #expect(limiter.bucketCount <= 1600)
        #expect(limiter.bucketCount > 0)
    }

    @Test func settingsReadOffOverridesAndRejectNonsense() throws {
        #expect(try RateLimitSettings(parsing: "off") == .off)
        let custom = try RateLimitSettings(parsing: "match=5/min, sign-in=off,unknown-slugs=100/30")
        #expect(custom.limits[.matchAddress] == RateLimit(5, per: 60))
        #expect(custom.limits[.signIn] == nil)
        #expect(custom.limits[.unknownSlugs] == RateLimit(100, per: 30))
        #expect(custom.limits[.eventsKey] == RateLimitRule.eventsKey.defaultLimit)
        #expect(RateLimit(parsing: "10/s") == RateLimit(10, per: 1))
        #expect(RateLimit(parsing: "1000/h") == RateLimit(1000, per: 3600))
        #expect(RateLimit(parsing: "10/5min") == RateLimit(10, per: 300))
        #expect(RateLimit(parsing: "10/5min")?.description == "10/5min")
        for bad in ["0/min", "-1/min", "ten/min", "5/fortnight", "5", "5/min/extra", "5/0", "5/2d", "5/90000", "5/-3s"] { #expect(RateLimit(parsing: bad) == nil, "\(bad)") }
        #expect(throws: ConfigurationError.self) { try RateLimitSettings(parsing: "matches=5/min") }
        #expect(throws: ConfigurationError.self) { try RateLimitSettings(parsing: "match=lots") }
        var configuration = FerryConfiguration()
        #expect(configuration.rateLimits == .defaults)
        try configuration.apply(environment: ["FERRY_RATE_LIMITS": "resolve=7/s"])
        #expect(configuration.rateLimits.limits[.resolveAddress] == RateLimit(7, per: 1))
        do {
            try configuration.apply(environment: ["FERRY_RATE_LIMITS": "resolv=7/s"])
            Issue.record("a misspelt rule was accepted")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("resolv=7/s") && error.description.contains("unknown-slugs"))
        }
    }

    @Test func matchesAreLimitedPerAddressAndPerKeyWithRetryAfter() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let otherPublishable = try await fixture.admin.createKey(appID: fixture.otherApp.id, kind: .publishable, environment: .live).key
        // Per hour, so that a busy machine's slow requests do not give tokens back during the test.
        try await fixture.application(Self.configuration("match=3/h,match-key=5/h")).test(.router) { client in
            let publishable = fixture.publishable
            func match(_ address: String, key: String? = nil) async throws -> TestResponse {
                try await client.execute(uri: "/v1/attribution/match", method: .post,
                                         headers: headers(key: key ?? publishable, json: true, extra: [(.forwardedFor, address)]),
                                         body: jsonBody(MatchRequest(installID: "install-\(UUID())", signals: iPhoneSignals)))
            }
            for _ in 0..<3 { #expect(try await match("203.0.113.1").status == .ok) }
            let limited = try await match("203.0.113.1")
            #expect(limited.status == .tooManyRequests)
            // A token comes back every 20 minutes; some of that has passed since the first request.
            #expect(Int(limited.headers[.retryAfter] ?? "").map { (1140...1200).contains($0) } == true)
            let error = try limited.decode(ErrorResponse.self).error
            #expect(error.code == .rateLimited)
            #expect(error.message.contains("install matches from this address"))
            // Other addresses go on, until the key itself has used its five.
            #expect(try await match("203.0.113.2").status == .ok)
            #expect(try await match("203.0.113.3").status == .ok)
            let keyLimited = try await match("203.0.113.4")
            #expect(keyLimited.status == .tooManyRequests)
            #expect(try keyLimited.decode(ErrorResponse.self).error.message.contains("with this API key"))
            // Another app's key, from a fresh address, is not held back by this one's.
            #expect(try await match("203.0.113.9", key: otherPublishable).status == .ok)
        }
    }

    @Test func compatibleRoutesAreLimitedInTheirOwnShape() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        // Per hour, so that a busy machine's slow requests do not give a token back during the test.
        try await fixture.application(Self.configuration("match=1/h,links=1/h")).test(.router) { client in
            let body = #"{"device": {"platform": "ios", "screenWidth": 393, "screenHeight": 852}}"#
            func attribute() async throws -> TestResponse {
                try await client.execute(uri: "/api/v1/attributions", method: .post,
                                         headers: headers(key: fixture.publishable, json: true, extra: [(.forwardedFor, "198.51.100.20")]), body: jsonBody(body))
            }
            #expect(try await attribute().status != .tooManyRequests)
            let limited = try await attribute()
            #expect(limited.status == .tooManyRequests)
            #expect(Int(limited.headers[.retryAfter] ?? "").map { (3540...3600).contains($0) } == true)
            #expect(limited.text.contains(#""success":false"#) && limited.text.contains(#""code":"rate_limited""#))
            // The deferred-deep-link route of the other style shares the match limit of its address.
            let deferred = try await client.execute(uri: "/api/v1/deferred-deep-link", method: .get,
                                                    headers: headers(key: fixture.publishable, extra: [(.forwardedFor, "198.51.100.20")]))
            #expect(deferred.status == .tooManyRequests)
        }
    }

    @Test func linkCreationStopsAtTheLimitAndNothingIsCreatedPastIt() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application(Self.configuration("links=2/min")).test(.router) { client in
            func create(_ slug: String, _ path: String = "/v1/links") async throws -> TestResponse {
                try await client.execute(uri: path, method: .post, headers: headers(key: fixture.secret, json: true, extra: [(.forwardedFor, "192.0.2.50")]),
                                         body: jsonBody(CreateLinkRequest(slug: slug, destination: "https://example.com/\(slug)")))
            }
            #expect(try await create("first").status == .created)
            #expect(try await create("second/").status == .badRequest)  // a bad slug still counts: it is a request
            let refused = try await create("third", "/v1/links/")
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.decode(ErrorResponse.self).error.message.contains("link creations"))
            #expect(try await fixture.store.link(domain: "go.example.com", slug: "third") == nil)
            // Reading is not limited.
            let list = try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: fixture.secret, extra: [(.forwardedFor, "192.0.2.50")]))
            #expect(list.status == .ok)
        }
    }

    @Test func failedSignInsLockTheAddressOutButNotOthers() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application(Self.configuration("sign-in=3/5min")).test(.router) { client in
            func signIn(_ key: String, from address: String) async throws -> TestResponse {
                try await Self.signIn(client, key: key, from: address)
            }
            let guess = "fs_live_" + String(repeating: "a", count: 32)
            for _ in 0..<3 { #expect(try await signIn(guess, from: "203.0.113.66").status == .unauthorized) }
            let locked = try await signIn(fixture.secret, from: "203.0.113.66")
            #expect(locked.status == .tooManyRequests)
            #expect(Int(locked.headers[.retryAfter] ?? "").map { (90...100).contains($0) } == true)
            #expect(locked.text.contains("Too many failed sign-ins"))
            #expect(!locked.headers[values: .setCookie].contains { $0.hasPrefix("ferry_session=") })
            // A successful sign-in elsewhere does not count against anyone.
            #expect(try await signIn(fixture.secret, from: "203.0.113.67").status == .seeOther)
            #expect(try await signIn(fixture.secret, from: "203.0.113.67").status == .seeOther)
        }
    }

    /// Each unknown slug costs a database read until the cache knows it is missing; an address over its limit gets
    /// a 429 page instead of a read, on the fast path and on the framework's path alike, while known links go on.
    @Test func aFloodOfUnknownSlugsStopsReachingTheDatabase() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "known", destination: "https://example.com/known"), app: fixture.app, environment: .live)
        try await fixture.application(Self.configuration("unknown-slugs=4/min")).test(.live) { client in
            let port = try #require(client.port)
            func get(_ path: String, from address: String, close: Bool) -> String {
                "GET \(path) HTTP/1.1\r\nHost: go.example.com\r\nUser-Agent: \(UA.desktop)\r\nX-Forwarded-For: \(address)\r\n"
                    + (close ? "Connection: close\r\n" : "") + "\r\n"
            }
            // Keep-alive requests go through the fast path, the last one (`Connection: close`) through the router.
            func burst(_ paths: [String], from address: String) async throws -> [RawHTTPClient.Response] {
                let text = paths.enumerated().map { get($1, from: address, close: $0 == paths.count - 1) }.joined()
                return try await onItsOwnThread { try RawHTTPClient.parseAll(try RawHTTPClient.exchange(port: port, bytes: Array(text.utf8))) }
            }
            _ = try await burst(["/known"], from: "192.0.2.1")  // the app and the link in the cache
            let first = try await burst(["/nope-1", "/nope-2", "/nope-3", "/nope-4", "/nope-5", "/nope-1", "/known", "/nope-6"], from: "203.0.113.99")
            #expect(first.map(\.status) == [404, 404, 404, 404, 429, 404, 302, 429])
            #expect(first[4].header("Retry-After").flatMap(Int.init).map { (1...15).contains($0) } == true)
            #expect(first[4].body.contains("Too many requests"))
            #expect(first[7].header("Retry-After") != nil)
            // A link written behind the cache's back: the flooding address is not let near the database to find it,
            // anyone else is.
            _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "fresh", destination: "https://example.com/fresh"), app: fixture.app, environment: .live)
            #expect(try await burst(["/fresh", "/fresh"], from: "203.0.113.99").map(\.status) == [429, 429])
            #expect(try await burst(["/fresh", "/nope-7"], from: "198.51.100.3").map(\.status) == [302, 404])
            let metrics = try await onItsOwnThread { try RawHTTPClient.request(port: port, path: "/metrics") }
            #expect(metrics.body.contains(#"ferry_rate_limited_total{rule="unknown-slugs"} 4"#))
        }
    }

    /// Posts the dashboard's sign-in form with a key, from a client address.
    static func signIn(_ client: some TestClientProtocol, key: String, from address: String) async throws -> TestResponse {
        let form = try await client.execute(uri: "/dashboard/sign-in", method: .get, headers: headers())
        let nonce = try #require(form.headers[values: .setCookie].first { $0.hasPrefix("ferry_signin=") }?.dropFirst(13).prefix { $0 != ";" })
        let token = try #require(DashboardTests.field("csrf", in: form.text))
        return try await client.execute(
            uri: "/dashboard/sign-in", method: .post,
            headers: headers(extra: [(.contentType, "application/x-www-form-urlencoded"), (.cookie, "ferry_signin=\(nonce)"),
                                     (HTTPField.Name("Origin")!, DashboardTests.origin), (.forwardedFor, address)]),
            body: ByteBuffer(string: "csrf=\(token)&key=\(key)"))
    }

    /// A link's data looked up by slug is limited however it is asked for: GET or HEAD, Ferry's route or the compatible one.
    @Test func resolvesAreLimitedWhicheverMethodAsks() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/p"), app: fixture.app, environment: .live)
        try await fixture.application(Self.configuration("resolve=2/min")).test(.router) { client in
            let from = [(HTTPField.Name.forwardedFor, "198.51.100.30")]
            #expect(try await client.execute(uri: "/v1/links/resolve/promo", method: .get, headers: headers(key: fixture.publishable, extra: from)).status == .ok)
            #expect(try await client.execute(uri: "/v1/links/resolve/promo", method: .head, headers: headers(key: fixture.publishable, extra: from)).status == .ok)
            for method in [HTTPRequest.Method.head, .get] {
                let refused = try await client.execute(uri: "/api/v1/app/dynamic_link/promo", method: method, headers: headers(key: fixture.publishable, extra: from))
                #expect(refused.status == .tooManyRequests, "\(method)")
                #expect(refused.headers[.retryAfter] != nil)
            }
        }
    }

    /// With the limits off, what the defaults would refuse (the eleventh failed sign-in from one address) goes through.
    @Test func limitsOffLetEverythingThrough() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let guess = "fs_live_" + String(repeating: "b", count: 32)
        for (limits, refusedAtLast) in [("match=120/min", true), ("off", false)] {
            try await fixture.application(Self.configuration(limits)).test(.router) { client in
                var statuses: [HTTPResponse.Status] = []
                for _ in 0..<12 { statuses.append(try await Self.signIn(client, key: guess, from: "192.0.2.77").status) }
                #expect(statuses.prefix(10).allSatisfy { $0 == .unauthorized }, "\(limits)")
                #expect((statuses.last == .tooManyRequests) == refusedAtLast, "\(limits): \(statuses)")
            }
        }
    }
}
#endif
