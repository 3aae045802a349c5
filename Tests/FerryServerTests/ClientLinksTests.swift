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
import Synchronization
import Testing

/// Share links made in the app: what a publishable key may create, what it is refused (with the answer each abuse
/// gets, and nothing stored), the same request answered with the same link, and the owner's view of such links.
@Suite("Client links", .takesTurns)
struct ClientLinksTests {
    /// The fixture's app with client links on, allowing its own site and one partner's pages.
    static func fixture(clientLinks: Bool = true) async throws -> Fixture {
        let fixture = try await Fixture.make()
        _ = try await fixture.admin.updateApp(id: fixture.app.id) { spec in
            spec.clientLinks = clientLinks
            spec.allowedURLPatterns = [#"^https://example\.com/.*$"#, #"^https://partner\.example\.org/posts/[0-9]+$"#]
        }
        return fixture
    }

    static let share = #"{"destination": "https://example.com/posts/42", "iosURL": "example://posts/42", "params": {"post": "42"}, "referrer": "user-7", "social": {"title": "A post"}}"#

    func links(_ fixture: Fixture) async throws -> [Link] {
        try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 100, after: nil).links
    }

    @Test func aPublishableKeyMakesAShareLinkAndTheSameRequestGetsItAgain() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            let created = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                   body: jsonBody(Self.share))
            #expect(created.status == .created)
            let link = try created.decode(LinkResponse.self)
            #expect(link.createdInApp && link.slug.count == Slug.generatedLength && link.params == ["post": "42"])
            #expect(link.url == "https://go.example.com/\(link.slug)")
            // Tapped again, retried or replayed: the same link, 200, nothing stored.
            for _ in 0..<3 {
                let again = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                     body: jsonBody(Self.share))
                #expect(again.status == .ok)
                #expect(try again.decode(LinkResponse.self) == link)
            }
            // Another referrer is another request.
            let other = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                 body: jsonBody(Self.share.replacingOccurrences(of: "user-7", with: "user-8")))
            let otherID = try other.decode(LinkResponse.self).id
            #expect(other.status == .created && otherID != link.id)
            // The link works for visitors like any other.
            let click = try await client.execute(uri: "/\(link.slug)", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(click.status == .found && click.headers[.location] == "https://example.com/posts/42")
            // The secret key sees it marked, and can list only the links made in the app.
            let page = try await client.execute(uri: "/v1/links?createdInApp=true", method: .get, headers: headers(key: fixture.secret))
            #expect(try page.decode(LinkListResponse.self).data.map(\.createdInApp) == [true, true])
            let rest = try await client.execute(uri: "/v1/links?createdInApp=false", method: .get, headers: headers(key: fixture.secret))
            #expect(try rest.decode(LinkListResponse.self).data.isEmpty)
            let wrong = try await client.execute(uri: "/v1/links?createdInApp=yes", method: .get, headers: headers(key: fixture.secret))
            #expect(wrong.status == .badRequest && wrong.error?.field == "createdInApp")
        }
        #expect(try await links(fixture).count == 2)
    }

    @Test func anAppWithoutClientLinksRefusesItsPublishableKey() async throws {
        let fixture = try await Self.fixture(clientLinks: false)
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let refused = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                   body: jsonBody(Self.share))
            #expect(refused.status == .forbidden)
            #expect(refused.error?.code == .clientLinksOff)
            #expect(refused.error?.message.contains("--client-links on") == true)
            // A secret key is unaffected.
            let secret = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                  body: jsonBody(Self.share))
            let secretLink = try secret.decode(LinkResponse.self)
            #expect(secret.status == .created && !secretLink.createdInApp)
        }
        #expect(try await links(fixture).count == 1)
    }

    /// Every abuse a publishable key could try gets its own 4xx naming the problem, and stores nothing.
    @Test func whatAPublishableKeyMayNotMakeIsRefusedAndNothingIsStored() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        let cases: [(body: String, status: HTTPResponse.Status, code: APIErrorCode, field: String?)] = [
            (#"{"destination": "https://evil.example.net/phish"}"#, .badRequest, .urlNotAllowed, "destination"),
            (#"{"destination": "https://partner.example.org/posts/7?next=https://evil.example.net"}"#, .badRequest, .urlNotAllowed, "destination"),
            (#"{"destination": "https://example.com/", "iosURL": "https://evil.example.net/"}"#, .badRequest, .urlNotAllowed, "iosURL"),
            (#"{"destination": "https://example.com/", "androidURL": "otherapp://take"}"#, .badRequest, .urlNotAllowed, "androidURL"),
            (#"{"destination": "https://example.com/", "routing": {"iosFallbackURL": "https://evil.example.net/"}}"#, .badRequest, .urlNotAllowed, "routing.iosFallbackURL"),
            (#"{"destination": "https://example.com/", "routing": {"otherPlatformFallbackURL": "http://evil.example.net/"}}"#, .badRequest, .urlNotAllowed, "routing.otherPlatformFallbackURL"),
            (#"{"destination": "javascript:alert(1)"}"#, .badRequest, .invalidField, "destination"),
            (#"{"destination": "data:text/html,<script>alert(1)</script>"}"#, .badRequest, .invalidField, "destination"),
            (#"{"destination": "https://example.com/", "iosURL": "javascript:alert(1)"}"#, .badRequest, .invalidField, "iosURL"),
            (#"{"destination": "https://example.com/", "androidURL": "data:text/html,x"}"#, .badRequest, .invalidField, "androidURL"),
            (#"{"destination": "https://example.com/", "routing": {"androidFallbackURL": "javascript:alert(1)"}}"#, .badRequest, .invalidField, "routing.androidFallbackURL"),
            (#"{"destination": "https://example.com/", "social": {"imageURL": "data:image/png;base64,AAAA"}}"#, .badRequest, .invalidField, "social.imageURL"),
            (#"{"destination": "https://example.com/", "slug": "chosen"}"#, .badRequest, .invalidField, "slug"),
            (#"{"destination": "https://example.com/", "disabled": false}"#, .badRequest, .invalidField, "disabled"),
            (#"{"destination": "https://example.com/", "domain": "other.test"}"#, .notFound, .notFound, "domain"),
            (#"{"destination": "https://example.com/", "routing": {"ipadBundleID": "com.evil.app"}}"#, .badRequest, .invalidField, "routing.ipadBundleID"),
            (#"{"destination": "https://example.com/", "routing": {"appStoreID": "999999999"}}"#, .badRequest, .invalidField, "routing.appStoreID"),
            (#"{"destination": "https://example.com/", "utm": {"source": "\#(String(repeating: "s", count: 129))"}}"#, .badRequest, .invalidField, "utm.source"),
            (#"{"destination": "https://example.com/", "social": {"title": "\#(String(repeating: "t", count: 201))"}}"#, .badRequest, .invalidField, "social.title"),
            (#"{"destination": "https://example.com/", "params": {"p": "\#(String(repeating: "v", count: 513))"}}"#, .badRequest, .invalidField, "params.p"),
            (#"{"destination": "https://example.com/\#(String(repeating: "a", count: 2100))"}"#, .badRequest, .invalidField, "destination"),
            (#"{"destination": "https://example.com/", "params": {\#((0..<21).map { "\"k\($0)\": \"v\"" }.joined(separator: ", "))}}"#, .badRequest, .invalidField, "params"),
            (#"{"destination": "https://example.com/", "referrer": "line\nbreak"}"#, .badRequest, .invalidField, "referrer"),
            (#"{"destination": "https://example.com/", "campaign": "\#(String(repeating: "c", count: 20_000))"}"#, .contentTooLarge, .bodyTooLarge, nil),
        ]
        try await fixture.application().test(.router) { client in
            for (body, status, code, field) in cases {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                        body: jsonBody(body))
                #expect(response.status == status, "\(body.prefix(120))")
                #expect(response.error?.code == code, "\(body.prefix(120))")
                #expect(response.error?.field == field, "\(body.prefix(120))")
            }
            // The app's own URL scheme, and a page its patterns allow, are fine.
            let own = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                               body: jsonBody(#"{"destination": "https://partner.example.org/posts/7", "androidURL": "EXAMPLE://posts/7", "routing": {"appStoreID": "1234567890", "ipadBundleID": "com.example.app"}}"#))
            #expect(own.status == .created)
        }
        #expect(try await links(fixture).map(\.destination) == ["https://partner.example.org/posts/7"])
    }

    /// Without patterns, a share link may lead only to the app's own hosts: its link domains and its fallback's.
    @Test func withoutPatternsOnlyTheAppsOwnHostsAreAllowed() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.updateApp(id: fixture.app.id) { $0.clientLinks = true }
        try await fixture.application().test(.router) { client in
            for (destination, status) in [("https://example.com/a", HTTPResponse.Status.created), ("https://links.example.com/b", .created),
                                          ("https://shop.example.com/c", .badRequest), ("https://example.org/", .badRequest)] {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                        body: jsonBody(#"{"destination": "\#(destination)"}"#))
                #expect(response.status == status, "\(destination)")
                if status == .badRequest { #expect(response.error?.message.contains("--allow-url-pattern") == true) }
            }
        }
    }

    @Test func aPublishableKeyNeverReadsListsChangesOrDeletesLinks() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "kept", destination: "https://example.com/"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let attempts: [(HTTPRequest.Method, String, ByteBuffer?)] = [
                (.get, "/v1/links", nil), (.get, "/v1/links/\(link.id)", nil), (.patch, "/v1/links/\(link.id)", jsonBody(#"{"destination": "https://example.com/x"}"#)),
                (.delete, "/v1/links/\(link.id)", nil), (.delete, "/v1/links?createdInApp=true", nil), (.get, "/v1/links/\(link.id)/stats", nil),
            ]
            for (method, uri, body) in attempts {
                let response = try await client.execute(uri: uri, method: method, headers: headers(key: fixture.publishable, json: body != nil), body: body)
                #expect(response.status == .forbidden, "\(method) \(uri)")
                #expect(response.error?.code == .forbidden, "\(method) \(uri)")
            }
        }
        #expect(try await fixture.store.link(id: link.id, appID: fixture.app.id) == link)
    }

    @Test func aFloodFromOneAddressOrFromManyOnOneKeyIsLimitedAndStoresNothing() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        // Per hour, so that a busy machine's slow requests do not give tokens back during the test.
        let configuration = try RateLimitTests.configuration("client-links=3/h,client-links-key=5/h,links=1000/min")
        try await fixture.application(configuration).test(.router) { client in
            func share(_ index: Int, from address: String, key: String? = nil) async throws -> TestResponse {
                try await client.execute(uri: "/v1/links", method: .post,
                                         headers: headers(key: key ?? fixture.publishable, json: true, extra: [(.forwardedFor, address)]),
                                         body: jsonBody(#"{"destination": "https://example.com/posts/\#(index)"}"#))
            }
            for index in 0..<3 { #expect(try await share(index, from: "203.0.113.1").status == .created) }
            let limited = try await share(3, from: "203.0.113.1")
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] != nil)
            #expect(limited.error?.message.contains("links made in the app from this address") == true)
            // Other addresses go on until the key has used its five; then every address is held back.
            #expect(try await share(4, from: "203.0.113.2").status == .created)
            #expect(try await share(5, from: "203.0.113.3").status == .created)
            let keyLimited = try await share(6, from: "203.0.113.4")
            #expect(keyLimited.status == .tooManyRequests)
            #expect(keyLimited.error?.message.contains("links made in the app with this API key") == true)
            // The secret key's creations have their own rules.
            let secret = try await share(7, from: "203.0.113.1", key: fixture.secret)
            #expect(secret.status == .created)
        }
        #expect(try await links(fixture).filter(\.createdInApp).map(\.destination).sorted()
            == (0..<3).map { "https://example.com/posts/\($0)" } + ["https://example.com/posts/4", "https://example.com/posts/5"])
    }

    /// Minutes and hours after a share, the same request gets the same link; a day later, a new one.
    @Test func theSameRequestIsOneLinkForADay() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        let clock = TestClock(Date(timeIntervalSince1970: 1_780_000_000))
        let admin = FerryAdmin(store: fixture.store, now: clock.now)
        let app = try #require(try await fixture.store.app(id: fixture.app.id))
        let request = CreateLinkRequest(destination: "https://example.com/posts/9", referrer: "user-1")
        let first = try await admin.createClientLink(request, app: app, environment: .live)
        #expect(first.created)
        for minutes: Double in [2, 45, 6 * 60, 23 * 60 + 59] {
            clock.set(first.link.createdAt.addingTimeInterval(minutes * 60))
            let again = try await admin.createClientLink(request, app: app, environment: .live)
            #expect(!again.created && again.link == first.link, "\(minutes) min later")
        }
        // The test environment and another slug length are other requests.
        #expect(try await admin.createClientLink(request, app: app, environment: .test).created)
        #expect(try await admin.createClientLink(request, app: app, environment: .live, slugLength: 17).created)
        clock.set(first.link.createdAt.addingTimeInterval(24 * 3600 + 60))
        let nextDay = try await admin.createClientLink(request, app: app, environment: .live)
        #expect(nextDay.created && nextDay.link.id != first.link.id)
        clock.set(first.link.createdAt.addingTimeInterval(30 * 3600))
        #expect(try await admin.createClientLink(request, app: app, environment: .live).link == nextDay.link)
        // The first link is still there, still answering.
        #expect(try await fixture.store.link(id: first.link.id, appID: app.id) == first.link)
    }

    @Test func theOwnerDeletesTheLinksMadeInTheAppInBulk() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        try await fixture.application().testLive { client in
            var made: [LinkResponse] = []
            for index in 0..<4 {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                        body: jsonBody(#"{"destination": "https://example.com/posts/\#(index)"}"#))
                made.append(try response.decode(LinkResponse.self))
            }
            let kept = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                body: jsonBody(#"{"slug": "campaign", "destination": "https://example.com/"}"#))
            #expect(kept.status == .created)
            // Cached by a click, then deleted: the next click is a 404 at once.
            #expect(try await client.execute(uri: "/\(made[0].slug)", method: .get, headers: headers(userAgent: UA.desktop)).status == .found)

            let refused = try await client.execute(uri: "/v1/links", method: .delete, headers: headers(key: fixture.secret))
            #expect(refused.status == .badRequest && refused.error?.field == "createdInApp")
            let badDate = try await client.execute(uri: "/v1/links?createdInApp=true&createdBefore=yesterday", method: .delete, headers: headers(key: fixture.secret))
            #expect(badDate.status == .badRequest && badDate.error?.field == "createdBefore")
            let none = try await client.execute(uri: "/v1/links?createdInApp=true&createdBefore=2020-01-01T00:00:00Z", method: .delete,
                                                headers: headers(key: fixture.secret))
            #expect(try none.decode(DeletedLinksResponse.self).deleted == 0)
            let deleted = try await client.execute(uri: "/v1/links?createdInApp=true", method: .delete, headers: headers(key: fixture.secret))
            #expect(deleted.status == .ok)
            #expect(try deleted.decode(DeletedLinksResponse.self).deleted == 4)
            #expect(try await client.execute(uri: "/\(made[0].slug)", method: .get, headers: headers(userAgent: UA.desktop)).status == .notFound)
            #expect(try await client.execute(uri: "/campaign", method: .get, headers: headers(userAgent: UA.desktop)).status == .found)
        }
        #expect(try await links(fixture).map(\.slug) == ["campaign"])
    }
}

/// A clock a test sets by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date) { current = Mutex(start) }
    func set(_ date: Date) { current.withLock { $0 = date } }
    var now: @Sendable () -> Date { { self.current.withLock { $0 } } }
}
#endif
