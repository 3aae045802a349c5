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

/// Firebase Dynamic Links' REST API on Ferry, called with the requests FDL's REST documentation shows (the project's
/// key in `?key=`, the bodies as written there), and the answers read as FDL's clients read them.
@Suite("Firebase REST API", .takesTurns)
struct FirebaseRESTTests {
    /// The answer of `POST /v1/shortLinks`, as FDL's clients read it.
    struct ShortLink: Decodable {
        struct Warning: Decodable {
            var warningCode: String
            var warningMessage: String
        }

        var shortLink: String
        var previewLink: String
        var warning: [Warning]?
    }

    /// Google's error shape.
    struct GoogleError: Decodable {
        struct Detail: Decodable {
            var code: Int
            var message: String
            var status: String
        }

        var error: Detail
    }

    struct Stats: Decodable {
        struct Stat: Decodable, Hashable {
            var platform: String
            var count: String
            var event: String
        }

        var linkEventStats: [Stat]
    }

    static func post(_ client: some TestClientProtocol, key: String?, _ body: String, from address: String = "198.51.100.1") async throws -> TestResponse {
        let uri = key.map { "/v1/shortLinks?key=\($0)" } ?? "/v1/shortLinks"
        return try await client.execute(uri: uri, method: .post, headers: headers(json: true, extra: [(.forwardedFor, address)]), body: jsonBody(body))
    }

    func slug(of shortLink: String) -> String { String(shortLink.dropFirst("https://go.example.com/".count)) }

    @Test func aShortLinkFromParametersAsFirebasesDocumentationWritesIt() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let body = """
            {
              "dynamicLinkInfo": {
                "domainUriPrefix": "https://go.example.com",
                "link": "https://example.com/item?id=42",
                "androidInfo": {"androidPackageName": "com.example.android", "androidFallbackLink": "https://example.com/android",
                                "androidMinPackageVersionCode": "312"},
                "iosInfo": {"iosBundleId": "com.example.app", "iosFallbackLink": "https://example.com/ios", "iosIpadFallbackLink": "https://example.com/ipad",
                            "iosAppStoreId": "1234567890", "iosMinimumVersion": "2.1"},
                "navigationInfo": {"enableForcedRedirect": true},
                "analyticsInfo": {
                  "googlePlayAnalytics": {"utmSource": "newsletter", "utmMedium": "email", "utmCampaign": "spring", "gclid": "abc123"},
                  "itunesConnectAnalytics": {"at": "1010l", "ct": "spring", "pt": "98765"}
                },
                "socialMetaTagInfo": {"socialTitle": "Item 42", "socialDescription": "The best item", "socialImageLink": "https://example.com/42.png"},
                "desktopInfo": {"desktopFallbackLink": "https://example.com/desktop"}
              }
            }
            """
        try await fixture.application().testLive { client in
            let response = try await Self.post(client, key: fixture.secret, body)
            #expect(response.status == .ok)
            let answer = try response.decode(ShortLink.self)
            #expect(answer.warning == nil)
            // UNGUESSABLE, the default: 17 characters.
            #expect(answer.shortLink.hasPrefix("https://go.example.com/") && slug(of: answer.shortLink).count == 17)
            #expect(answer.previewLink == answer.shortLink + "?d=1")
            let link = try #require(try await fixture.store.link(domain: "go.example.com", slug: slug(of: answer.shortLink)))
            #expect(link.destination == "https://example.com/item?id=42" && !link.createdInApp && link.longLink == nil)
            #expect(link.routing == LinkRouting(
                iosFallbackURL: "https://example.com/ios", ipadFallbackURL: "https://example.com/ipad", appStoreID: "1234567890",
                iosMinimumVersion: "2.1", androidFallbackURL: "https://example.com/android", androidMinimumVersionCode: 312,
                otherPlatformFallbackURL: "https://example.com/desktop", skipPreviewPage: true,
                appStoreAnalytics: AppStoreAnalytics(affiliateToken: "1010l", campaignToken: "spring", providerToken: "98765")
            ))
            #expect(link.utm == UTMParameters(source: "newsletter", medium: "email", campaign: "spring"))
            #expect(link.params == ["gclid": "abc123"])
            #expect(link.social == SocialMetadata(title: "Item 42", description: "The best item", imageURL: "https://example.com/42.png"))
            // The same request answers the same short link, as FDL did.
            #expect(try await Self.post(client, key: fixture.secret, body).decode(ShortLink.self).shortLink == answer.shortLink)
            // It answers visitors like any link: desktops go to the desktop fallback.
            let click = try await client.execute(uri: "/\(slug(of: answer.shortLink))", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(click.status == .found && click.headers[.location] == "https://example.com/desktop")
            let preview = try await client.execute(uri: "/\(slug(of: answer.shortLink))?d=1", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(preview.status == .ok)
        }
    }

    @Test func aShortLinkFromALongLinkWithTheSuffixAskedFor() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let long = "https://go.example.com/?link=https%3A%2F%2Fexample.com%2Foffer&apn=com.example.android&ibi=com.example.app&utm_source=sms&efr=1&custom=1"
            let response = try await Self.post(client, key: fixture.secret, #"{"longDynamicLink": "\#(long)", "suffix": {"option": "SHORT"}}"#)
            #expect(response.status == .ok)
            let answer = try response.decode(ShortLink.self)
            #expect(slug(of: answer.shortLink).count == Slug.generatedLength)
            #expect(answer.warning?.map(\.warningCode) == ["UNRECOGNIZED_PARAM"])
            #expect(answer.warning?.first?.warningMessage.contains("custom") == true)
            let link = try #require(try await fixture.store.link(domain: "go.example.com", slug: slug(of: answer.shortLink)))
            #expect(link.destination == "https://example.com/offer" && link.utm.source == "sms" && link.routing.skipPreviewPage == true)

            // A custom suffix, with a secret key; the Android deep link; fields Ferry does not know, and a URL scheme
            // other than the app's, are warnings.
            let custom = try await Self.post(client, key: fixture.secret, """
                {"dynamicLinkInfo": {"domainUriPrefix": "https://go.example.com/", "link": "https://example.com/sale",
                  "androidInfo": {"androidPackageName": "com.example.android", "androidLink": "example://sale", "androidMinPackageVersionCode": 7},
                  "iosInfo": {"iosBundleId": "com.example.app", "iosCustomScheme": "legacy"},
                  "otherPlatformInfo": {"fallbackUrl": "https://example.com/"}},
                 "suffix": {"option": "CUSTOM", "customSuffix": "Spring-Sale"}, "sdkVersion": "10.1.0"}
                """)
            #expect(custom.status == .ok)
            let customAnswer = try custom.decode(ShortLink.self)
            #expect(customAnswer.shortLink == "https://go.example.com/spring-sale")
            #expect(Set(customAnswer.warning?.map(\.warningCode) ?? []) == ["UNRECOGNIZED_PARAM", "UNNECESSARY_IOS_URL_SCHEME"])
            let sale = try #require(try await fixture.store.link(domain: "go.example.com", slug: "spring-sale"))
            #expect(sale.androidURL == "example://sale" && sale.routing.androidMinimumVersionCode == 7)
        }
    }

    /// What FDL's clients get wrong, and what Ferry refuses, in Google's error shape; nothing is stored.
    @Test func refusalsComeInGooglesShape() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let info = #""domainUriPrefix": "https://go.example.com", "link": "https://example.com/""#
        let cases: [(key: String?, body: String, status: Int, google: String, says: String)] = [
            (nil, "{\"dynamicLinkInfo\": {\(info)}}", 401, "UNAUTHENTICATED", "key"),
            ("AIzaSyNotAFerryKey", "{\"dynamicLinkInfo\": {\(info)}}", 401, "UNAUTHENTICATED", "not a Ferry key"),
            (fixture.publishable, "{\"dynamicLinkInfo\": {\(info)}}", 403, "PERMISSION_DENIED", "client links on"),
            (fixture.secret, #"{"dynamicLinkInfo": {"domainUriPrefix": "https://other.test", "link": "https://example.com/"}}"#, 404, "NOT_FOUND",
             "Your project does not own Dynamic Links domain: https://other.test"),
            (fixture.secret, #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.example.com/links", "link": "https://example.com/"}}"#, 404,
             "NOT_FOUND", "does not own"),
            (fixture.secret, "{}", 400, "INVALID_ARGUMENT", "either longDynamicLink or dynamicLinkInfo"),
            (fixture.secret, "{\"longDynamicLink\": \"https://go.example.com/?link=https://example.com/\", \"dynamicLinkInfo\": {\(info)}}", 400,
             "INVALID_ARGUMENT", "not both"),
            (fixture.secret, #"{"longDynamicLink": "go.example.com"}"#, 400, "INVALID_ARGUMENT", "Long link is not parsable"),
            (fixture.secret, #"{"dynamicLinkInfo": {"link": "https://example.com/"}}"#, 400, "INVALID_ARGUMENT", "domainUriPrefix"),
            (fixture.secret, #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.example.com"}}"#, 400, "INVALID_ARGUMENT", "link is required"),
            (fixture.secret, "{\"dynamicLinkInfo\": {\(info)}, \"suffix\": {\"option\": \"short\"}}", 400, "INVALID_ARGUMENT", "suffix.option"),
            (fixture.secret, "{\"dynamicLinkInfo\": {\(info), \"androidInfo\": {\"androidPackageName\": \"com.other.app\"}}}", 400, "INVALID_ARGUMENT", "apn"),
            (fixture.secret, "{\"dynamicLinkInfo\": {\(info), \"iosInfo\": \"com.example.app\"}}", 400, "INVALID_ARGUMENT", "iosInfo must be an object"),
            (fixture.secret, "{\"dynamicLinkInfo\": {\(info), \"navigationInfo\": {\"enableForcedRedirect\": 2}}}", 400, "INVALID_ARGUMENT", "boolean"),
            (fixture.secret, #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.example.com", "link": "javascript:alert(1)"}}"#, 400,
             "INVALID_ARGUMENT", "http or https"),
            (fixture.secret, "{\"dynamicLinkInfo\": {\(info)}, \"suffix\": {\"option\": \"CUSTOM\", \"customSuffix\": \"v1\"}}", 400, "INVALID_ARGUMENT", "reserved"),
            (fixture.secret, "[1, 2]", 400, "INVALID_ARGUMENT", "JSON object"),
            (fixture.secret, "{\"dynamicLinkInfo\": ", 400, "INVALID_ARGUMENT", "JSON"),
        ]
        try await fixture.application().test(.router) { client in
            for (key, body, status, google, says) in cases {
                let response = try await Self.post(client, key: key, body)
                #expect(Int(response.status.code) == status, "\(body.prefix(100))")
                let error = try response.decode(GoogleError.self).error
                #expect(error.code == status && error.status == google, "\(body.prefix(100))")
                #expect(error.message.contains(says), "\(error.message) for \(body.prefix(100))")
            }
            // A taken custom suffix is a conflict.
            let first = try await Self.post(client, key: fixture.secret, "{\"dynamicLinkInfo\": {\(info)}, \"suffix\": {\"option\": \"CUSTOM\", \"customSuffix\": \"taken\"}}")
            #expect(first.status == .ok)
            let second = try await Self.post(client, key: fixture.secret, #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.example.com", "link": "https://example.com/other"}, "suffix": {"option": "CUSTOM", "customSuffix": "taken"}}"#)
            #expect(try second.status == .conflict && second.decode(GoogleError.self).error.status == "ALREADY_EXISTS")
        }
        #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 10, after: nil).links.map(\.slug) == ["taken"])
    }

    /// With an app's publishable key, the REST API makes share links under the same rules as `POST /v1/links`.
    @Test func aPublishableKeyMakesShareLinksUnderTheAppsRules() async throws {
        let fixture = try await ClientLinksTests.fixture()
        defer { fixture.remove() }
        let configuration = try RateLimitTests.configuration("client-links=4/min")
        try await fixture.application(configuration).test(.router) { client in
            let share = #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.example.com", "link": "https://example.com/posts/42"}, "suffix": {"option": "SHORT"}}"#
            let made = try await Self.post(client, key: fixture.publishable, share)
            #expect(made.status == .ok)
            let link = try #require(try await fixture.store.link(domain: "go.example.com", slug: slug(of: try made.decode(ShortLink.self).shortLink)))
            #expect(link.createdInApp)
            #expect(try await Self.post(client, key: fixture.publishable, share).decode(ShortLink.self).shortLink == (try made.decode(ShortLink.self).shortLink))

            let elsewhere = try await Self.post(client, key: fixture.publishable,
                                                #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.example.com", "link": "https://evil.example.net/"}}"#)
            #expect(elsewhere.status == .badRequest)
            let error = try elsewhere.decode(GoogleError.self).error
            #expect(error.status == "INVALID_ARGUMENT" && error.message.contains("destination"))
            let custom = try await Self.post(client, key: fixture.publishable,
                                             #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.example.com", "link": "https://example.com/"}, "suffix": {"option": "CUSTOM", "customSuffix": "mine"}}"#)
            #expect(try custom.status == .badRequest && custom.decode(GoogleError.self).error.message.contains("secret key"))
            // The fifth request from the address is over its limit: 429 in Google's shape, with Retry-After.
            let limited = try await Self.post(client, key: fixture.publishable, share)
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] != nil)
            #expect(try limited.decode(GoogleError.self).error.status == "RESOURCE_EXHAUSTED")
        }
        #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 10, after: nil).links.count == 1)
    }

    @Test func linkStatsAnswerFirebasesEvents() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "stats", destination: "https://example.com/"), app: fixture.app, environment: .live)
        let encoded = "https%3A%2F%2Fgo.example.com%2Fstats"
        try await fixture.application().testLive { client async throws in
            for agent in [UA.iPhoneSafari, UA.iPhoneSafari, UA.android, UA.desktop, UA.windowsChrome, UA.slackBot] {
                _ = try await client.execute(uri: "/stats", method: .get, headers: headers(userAgent: agent))
            }
            let events = EventsRequest(events: [SDKEvent(name: "link_open", installID: "install-1", linkID: link.id)])
            let accepted = try await client.execute(uri: "/v1/events", method: .post, headers: headers(key: fixture.publishable, json: true), body: jsonBody(events))
            #expect(accepted.status == .ok || accepted.status == .accepted)
            #expect(try await fixture.eventually { try await fixture.store.clickCount(linkID: link.id) == 6 })

            func stats(_ path: String, key: String? = nil) async throws -> TestResponse {
                try await client.execute(uri: path, method: .get, headers: headers(key: key))
            }
            var answer = Stats(linkEventStats: [])
            _ = try await fixture.eventually {
                answer = try await stats("/v1/\(encoded)/linkStats?durationDays=7", key: fixture.secret).decode(Stats.self)
                return answer.linkEventStats.contains { $0.event == "APP_RE_OPEN" }
            }
            #expect(Set(answer.linkEventStats) == [
                .init(platform: "IOS", count: "2", event: "CLICK"), .init(platform: "IOS", count: "2", event: "REDIRECT"),
                .init(platform: "ANDROID", count: "1", event: "CLICK"), .init(platform: "ANDROID", count: "1", event: "REDIRECT"),
                .init(platform: "DESKTOP", count: "2", event: "CLICK"), .init(platform: "DESKTOP", count: "2", event: "REDIRECT"),
                // Slack's preview fetcher is no one's click.
                .init(platform: "DYNAMIC_LINK_PLATFORM_UNSPECIFIED", count: "1", event: "APP_RE_OPEN"),
            ])
            // The key in the query as FDL's clients sent it, the segment encoded twice, and no durationDays: the same.
            let twice = try await stats("/v1/https%253A%252F%252Fgo.example.com%252Fstats/linkStats?key=\(fixture.secret)")
            #expect(Set(try twice.decode(Stats.self).linkEventStats) == Set(answer.linkEventStats))
            // A link the app does not have has no events; another app's domain is not this key's to ask about.
            #expect(try await stats("/v1/https%3A%2F%2Fgo.example.com%2Fnone/linkStats", key: fixture.secret).decode(Stats.self).linkEventStats.isEmpty)
            let foreign = try await stats("/v1/https%3A%2F%2Fother.test%2Fstats/linkStats", key: fixture.secret)
            #expect(try foreign.status == .forbidden && foreign.decode(GoogleError.self).error.status == "PERMISSION_DENIED")
            for (path, status) in [("/v1/\(encoded)/linkStats?durationDays=0", 400), ("/v1/\(encoded)/linkStats?durationDays=800", 400),
                                   ("/v1/\(encoded)/linkStats?durationDays=7d", 400), ("/v1/stats/linkStats", 400)] {
                #expect(Int(try await stats(path, key: fixture.secret).status.code) == status, "\(path)")
            }
            #expect(try await stats("/v1/\(encoded)/linkStats").status == .unauthorized)
            #expect(try await stats("/v1/\(encoded)/linkStats", key: fixture.publishable).status == .forbidden)
            let post = try await client.execute(uri: "/v1/\(encoded)/linkStats", method: .post, headers: headers(key: fixture.secret))
            #expect(post.status == .methodNotAllowed && post.headers[.allow] == "GET")
            // Other unknown API paths are still unknown.
            let unknown = try await stats("/v1/nothing/here", key: fixture.secret)
            #expect(unknown.status == .notFound && unknown.error?.message == "no such API route")
        }
    }
}
#endif
