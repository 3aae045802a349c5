#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Links API", .takesTurns)
struct LinksAPITests {
    @Test func createReturns201WithEveryField() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let request = CreateLinkRequest(
            domain: "links.example.com", slug: "Spring-Sale", destination: "https://example.com/sale?ref=1", iosURL: "example://sale",
            androidURL: "example://sale", params: ["screen": "sale", "id": "42"],
            utm: UTMParameters(source: "newsletter", medium: "email", campaign: "spring", content: "hero", term: "shoes"),
            campaign: "spring-2026", referrer: "user-7",
            social: SocialMetadata(title: "Spring sale", description: "Half price", imageURL: "https://example.com/s.png"),
            expiresAt: Date(timeIntervalSince1970: 4_000_000_000), disabled: false
        )
        try await fixture.application().test(.router) { client in
            let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true), body: try jsonBody(request))
            #expect(response.status == .created)
            let link = try response.decode(LinkResponse.self)
            #expect(response.headers[.location] == "/v1/links/\(link.id)")
            #expect(link.id.hasPrefix("lnk_"))
            #expect(link.url == "https://links.example.com/spring-sale")
            #expect(link.slug == "spring-sale")
            #expect(link.environment == .live)
            #expect(link.destination == request.destination)
            #expect(link.iosURL == "example://sale")
            #expect(link.androidURL == "example://sale")
            #expect(link.params == ["screen": "sale", "id": "42"])
            #expect(link.utm == request.utm)
            #expect(link.campaign == "spring-2026")
            #expect(link.referrer == "user-7")
            #expect(link.social == request.social)
            #expect(link.expiresAt == request.expiresAt)
            #expect(link.disabled == false)
            #expect(link.createdAt == link.updatedAt)
            // Every key is present, unset ones as null.
            let raw = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            #expect(raw?.keys.count == 20)

            let read = try await client.execute(uri: "/v1/links/\(link.id)", method: .get, headers: headers(key: fixture.secret))
            #expect(read.status == .ok)
            #expect(try read.decode(LinkResponse.self) == link)
        }
        // It is really stored.
        #expect(try await fixture.store.link(domain: "links.example.com", slug: "spring-sale")?.referrer == "user-7")
    }

    @Test func generatedSlugsAreRandomLowercaseBase36() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            var slugs = Set<String>()
            for _ in 0..<20 {
                let response = try await client.execute(
                    uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                    body: jsonBody(#"{"destination": "https://example.com/"}"#))
                #expect(response.status == .created)
                let link = try response.decode(LinkResponse.self)
                #expect(link.slug.count >= 7)
                #expect(link.slug.allSatisfy { $0.isLowercase || $0.isNumber })
                #expect(link.domain == "go.example.com")
                slugs.insert(link.slug)
            }
            #expect(slugs.count == 20)
        }
    }

    @Test func keysAreRequiredAndChecked() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let (revokedRecord, revoked) = try await fixture.admin.createKey(appID: fixture.app.id, kind: .secret, environment: .live)
        #expect(try await fixture.store.revokeKey(id: revokedRecord.id, at: Date()))
        try await fixture.application().test(.router) { client in
            let cases: [(HTTPFields, HTTPResponse.Status, String)] = [
                (headers(), .unauthorized, "send an API key"),
                (headers(key: "not-a-key"), .unauthorized, "not a Ferry key"),
                (headers(key: "fs_live_" + String(repeating: "a", count: 32)), .unauthorized, "not valid"),
                (headers(key: revoked), .unauthorized, "revoked"),
                (headers(key: fixture.publishable), .forbidden, "secret key"),
            ]
            for (fields, status, message) in cases {
                let response = try await client.execute(uri: "/v1/links", method: .get, headers: fields)
                #expect(response.status == status)
                #expect(response.error?.message.contains(message) == true, "\(response.text)")
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            }
            // The x-api-key header works as well as Authorization.
            var fields = headers()
            fields[.apiKey] = fixture.secret
            #expect(try await client.execute(uri: "/v1/links", method: .get, headers: fields).status == .ok)
            // A publishable key cannot create either, and nothing is stored.
            let create = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.publishable, json: true),
                                                  body: jsonBody(#"{"destination": "https://example.com/"}"#))
            #expect(create.status == .forbidden)
        }
        #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 10, after: nil).links.isEmpty)
    }

    @Test func appsAndEnvironmentsNeverSeeEachOthersLinks() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let created = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                   body: jsonBody(#"{"slug": "mine", "destination": "https://example.com/"}"#))
            let link = try created.decode(LinkResponse.self)
            for key in [fixture.otherSecret, fixture.testSecret] {
                for method in [HTTPRequest.Method.get, .delete] {
                    let response = try await client.execute(uri: "/v1/links/\(link.id)", method: method, headers: headers(key: key))
                    #expect(response.status == .notFound)
                }
                let patch = try await client.execute(uri: "/v1/links/\(link.id)", method: .patch, headers: headers(key: key, json: true),
                                                     body: jsonBody(#"{"destination": "https://evil.example/"}"#))
                #expect(patch.status == .notFound)
                let list = try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: key))
                #expect(try list.decode(LinkListResponse.self).data.isEmpty)
            }
            // Another app cannot put a link on this app's domain.
            let foreign = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.otherSecret, json: true),
                                                   body: jsonBody(#"{"domain": "go.example.com", "slug": "steal", "destination": "https://evil.example/"}"#))
            #expect(foreign.status == .notFound)
            #expect(foreign.error?.field == "domain" && foreign.error?.code == .notFound)
            // A malformed domain is a bad request, whoever's it would be.
            for domain in ["not a host", "go.example.com:0", "\u{212A}.example.com", "-go.example.com"] {
                let malformed = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                         body: jsonBody(CreateLinkRequest(domain: domain, destination: "https://example.com/")))
                #expect(malformed.status == .badRequest, "\(domain)")
                #expect(malformed.error?.field == "domain", "\(domain)")
            }
            // A test key's links live apart from live ones.
            let test = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.testSecret, json: true),
                                                body: jsonBody(#"{"slug": "trial", "destination": "https://example.com/"}"#))
            #expect(try test.decode(LinkResponse.self).environment == .test)
            let live = try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: fixture.secret))
            #expect(try live.decode(LinkListResponse.self).data.map(\.slug) == ["mine"])
        }
        #expect(try await fixture.store.link(id: (fixture.store.link(domain: "go.example.com", slug: "mine"))!.id, appID: fixture.app.id)?.destination == "https://example.com/")
    }

    /// An expiry in the past makes a link that is expired from the start, as a PATCH to such an expiry does.
    @Test func aLinkMayBeCreatedAlreadyExpired() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let created = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                   body: jsonBody(#"{"slug": "over", "destination": "https://example.com/", "expiresAt": "2001-01-01T00:00:00Z"}"#))
            #expect(created.status == .created, "\(created.text)")
            #expect(try created.decode(LinkResponse.self).expiresAt == Date(timeIntervalSince1970: 978_307_200))
            let resolved = try await client.execute(uri: "/v1/links/resolve/over", method: .get, headers: headers(key: fixture.publishable))
            #expect(resolved.status == .notFound && resolved.error?.code == .gone)
            let click = try await client.execute(uri: "/over", method: .get, headers: headers(userAgent: UA.desktop))
            #expect(click.status == .notFound && click.text.contains("This link has expired"))
        }
    }

    @Test func listingUsesCursors() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            for index in 0..<7 {
                _ = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                             body: jsonBody(#"{"slug": "p\#(index)", "destination": "https://example.com/\#(index)"}"#))
            }
            var slugs: [String] = []
            var uri = "/v1/links?limit=3"
            while true {
                let page = try await client.execute(uri: uri, method: .get, headers: headers(key: fixture.secret)).decode(LinkListResponse.self)
                slugs += page.data.map(\.slug)
                guard let next = page.nextCursor else { break }
                uri = "/v1/links?limit=3&cursor=\(next)"
            }
            #expect(slugs == (0..<7).reversed().map { "p\($0)" })
            for bad in ["limit=0", "limit=101", "limit=abc", "limit=+5", "limit=", "cursor=-1", "cursor=+5", "cursor=xyz", "cursor=12345678901234567890",
                        "cursor=99999999999999999999999", "cursor=%EF%BC%95"] {
                let response = try await client.execute(uri: "/v1/links?\(bad)", method: .get, headers: headers(key: fixture.secret))
                #expect(response.status == .badRequest, "\(bad)")
                #expect(response.error?.field != nil)
            }
            // Any position is a cursor: before every link, after every link (19 digits, beyond the largest there is).
            for (cursor, count) in [("0", 0), ("00", 0), ("9999999999999999999", 7), ("", 7)] {
                let page = try await client.execute(uri: "/v1/links?limit=100&cursor=\(cursor)", method: .get, headers: headers(key: fixture.secret))
                #expect(page.status == .ok, "\(cursor)")
                #expect(try page.decode(LinkListResponse.self).data.count == count, "\(cursor)")
            }
        }
    }

    @Test func patchIsAMergePatchAndDeleteRemoves() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let created = try await client.execute(
                uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                body: jsonBody(#"{"slug": "edit", "destination": "https://example.com/a", "campaign": "c1", "referrer": "r1", "params": {"a": "1"}}"#))
            let link = try created.decode(LinkResponse.self)
            let patched = try await client.execute(
                uri: "/v1/links/\(link.id)", method: .patch, headers: headers(key: fixture.secret, json: true),
                body: jsonBody(#"{"destination": "https://example.com/b", "campaign": null, "disabled": true}"#))
            #expect(patched.status == .ok)
            let after = try patched.decode(LinkResponse.self)
            #expect(after.destination == "https://example.com/b")
            #expect(after.campaign == nil)
            #expect(after.referrer == "r1")
            #expect(after.params == ["a": "1"])
            #expect(after.disabled)
            #expect(after.updatedAt >= link.updatedAt)

            for (body, field) in [(#"{"slug": "other"}"#, "slug"), (#"{"domain": "links.example.com"}"#, "domain"),
                                  (#"{"destination": null}"#, "destination"), (#"{"destination": "javascript:alert(1)"}"#, "destination")] {
                let refused = try await client.execute(uri: "/v1/links/\(link.id)", method: .patch, headers: headers(key: fixture.secret, json: true), body: jsonBody(body))
                #expect(refused.status == .badRequest)
                #expect(refused.error?.field == field)
            }
            let unchanged = try await client.execute(uri: "/v1/links/\(link.id)", method: .get, headers: headers(key: fixture.secret)).decode(LinkResponse.self)
            #expect(unchanged == after)

            let deleted = try await client.execute(uri: "/v1/links/\(link.id)", method: .delete, headers: headers(key: fixture.secret))
            #expect(deleted.status == .noContent)
            #expect(try await client.execute(uri: "/v1/links/\(link.id)", method: .get, headers: headers(key: fixture.secret)).status == .notFound)
            #expect(try await client.execute(uri: "/v1/links/\(link.id)", method: .delete, headers: headers(key: fixture.secret)).status == .notFound)
        }
    }

    @Test func routingIsCreatedReplacedAndClearedAndBadRoutingIsRefused() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let created = try await client.execute(
                uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                body: jsonBody(#"{"slug": "routed", "destination": "https://example.com/a", "routing": {"iosFallbackURL": "https://example.com/ios", "appStoreID": "id987654321", "androidMinimumVersionCode": 7, "iosMinimumVersion": "2.1", "skipPreviewPage": true, "appStoreAnalytics": {"campaignToken": "spring"}}}"#))
            #expect(created.status == .created)
            let link = try created.decode(LinkResponse.self)
            #expect(link.routing == LinkRouting(
                iosFallbackURL: "https://example.com/ios", appStoreID: "987654321", iosMinimumVersion: "2.1", androidMinimumVersionCode: 7,
                skipPreviewPage: true, appStoreAnalytics: AppStoreAnalytics(campaignToken: "spring")
            ))
            #expect(link.isLongLink == false)
            // Every routing key is in the answer, unset ones null.
            let raw = try JSONSerialization.jsonObject(with: Data(buffer: created.body)) as? [String: Any]
            let routing = raw?["routing"] as? [String: Any]
            #expect(routing?.count == 10)
            #expect(routing?["ipadFallbackURL"] is NSNull)

            let replaced = try await client.execute(
                uri: "/v1/links/\(link.id)", method: .patch, headers: headers(key: fixture.secret, json: true),
                body: jsonBody(#"{"routing": {"otherPlatformFallbackURL": "https://example.com/desktop"}}"#))
            #expect(try replaced.decode(LinkResponse.self).routing == LinkRouting(otherPlatformFallbackURL: "https://example.com/desktop"))
            let cleared = try await client.execute(
                uri: "/v1/links/\(link.id)", method: .patch, headers: headers(key: fixture.secret, json: true), body: jsonBody(#"{"routing": null}"#))
            #expect(try cleared.decode(LinkResponse.self).routing == LinkRouting())

            for (routing, field) in [
                (#"{"iosFallbackURL": "javascript:alert(1)"}"#, "routing.iosFallbackURL"),
                (#"{"androidFallbackURL": "https://example.com/\r\nSet-Cookie: a=b"}"#, "routing.androidFallbackURL"),
                (#"{"otherPlatformFallbackURL": "myapp://x"}"#, "routing.otherPlatformFallbackURL"),
                (#"{"ipadBundleID": "not a bundle"}"#, "routing.ipadBundleID"),
                (#"{"appStoreID": "12ab"}"#, "routing.appStoreID"),
                (#"{"iosMinimumVersion": "<script>"}"#, "routing.iosMinimumVersion"),
                (#"{"androidMinimumVersionCode": -1}"#, "routing.androidMinimumVersionCode"),
                (#"{"appStoreAnalytics": {"providerToken": "a\u0000b"}}"#, "routing.appStoreAnalytics.providerToken"),
            ] {
                let refused = try await client.execute(
                    uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                    body: jsonBody(#"{"destination": "https://example.com/a", "routing": \#(routing)}"#))
                #expect(refused.status == .badRequest, "\(routing)")
                #expect(refused.error?.field == field, "\(routing)")
            }
            // Nothing refused was stored.
            let list = try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: fixture.secret)).decode(LinkListResponse.self)
            #expect(list.data.map(\.slug) == ["routed"])
        }
    }

    /// Bad input: a 4xx with `{"error": {"code", "message", "field"}}`, and nothing stored.
    @Test(arguments: [
        (#"{"destination": "javascript:alert(1)"}"#, "destination"),
        (#"{"destination": "data:text/html,<script>alert(1)</script>"}"#, "destination"),
        (#"{"destination": "/relative/path"}"#, "destination"),
        (#"{"destination": "//evil.com"}"#, "destination"),
        (#"{"destination": "https://user:pass@evil.com/"}"#, "destination"),
        (#"{"destination": "https://example.com/\r\nSet-Cookie: a=b"}"#, "destination"),
        (#"{"destination": "https://exаmple.com/"}"#, "destination"),
        (#"{"destination": 42}"#, "destination"),
        (#"{}"#, "destination"),
        (#"{"destination": null}"#, "destination"),
        (#"{"destination": "https://example.com", "iosURL": "javascript:alert(1)"}"#, "iosURL"),
        (#"{"destination": "https://example.com", "androidURL": "http://example.com"}"#, "androidURL"),
        (#"{"destination": "https://example.com", "slug": "has space"}"#, "slug"),
        (#"{"destination": "https://example.com", "slug": "../etc"}"#, "slug"),
        (#"{"destination": "https://example.com", "slug": "v1"}"#, "slug"),
        (#"{"destination": "https://example.com", "slug": ""}"#, "slug"),
        (#"{"destination": "https://example.com", "slug": 7}"#, "slug"),
        (#"{"destination": "https://example.com", "params": {"a": 1}}"#, "params.a"),
        (#"{"destination": "https://example.com", "params": ["a"]}"#, "params"),
        (#"{"destination": "https://example.com", "utm": {"source": ["x"]}}"#, "utm.source"),
        (#"{"destination": "https://example.com", "social": {"imageURL": "javascript:x"}}"#, "social.imageURL"),
        (#"{"destination": "https://example.com", "expiresAt": "tomorrow"}"#, "expiresAt"),
        (#"{"destination": "https://example.com", "expiresAt": "2026-01-01T00:00:00+18:30"}"#, "expiresAt"),
        (#"{"destination": "https://example.com", "disabled": "yes"}"#, "disabled"),
        (#"{"destination": "https://example.com", "domain": "not a domain"}"#, "domain"),
    ])
    func badInputIsRefusedByField(body: String, field: String) async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true), body: jsonBody(body))
            #expect(response.status == .badRequest, "\(response.text)")
            let error = try #require(response.error)
            #expect(error.field == field)
            #expect(!error.message.isEmpty)
        }
        #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 10, after: nil).links.isEmpty)
    }

    @Test func malformedAndOversizedBodiesAreRefused() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let longURL = "https://example.com/" + String(repeating: "a", count: 4100)
        let manyParams = "{" + (0..<51).map { "\"k\($0)\": \"v\"" }.joined(separator: ",") + "}"
        let bigValue = String(repeating: "x", count: 1025)
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        try await fixture.application().test(.router) { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("{not json", .badRequest, "invalid_json"),
                ("", .badRequest, "invalid_json"),
                ("[]", .badRequest, "invalid_field"),
                (deep, .badRequest, "invalid_json"),
                (#"{"destination": "\#(longURL)"}"#, .badRequest, "invalid_field"),
                (#"{"destination": "https://example.com", "params": \#(manyParams)}"#, .badRequest, "invalid_field"),
                (#"{"destination": "https://example.com", "params": {"k": "\#(bigValue)"}}"#, .badRequest, "invalid_field"),
                (#"{"destination": "https://example.com", "campaign": "\#(String(repeating: "c", count: 70_000))"}"#, .contentTooLarge, "body_too_large"),
            ]
            for (body, status, code) in cases {
                let response = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true), body: jsonBody(body))
                #expect(response.status == status, "\(body.prefix(60))")
                #expect(response.error?.code.rawValue == code, "\(response.text.prefix(200))")
            }
            var form = headers(key: fixture.secret)
            form[.contentType] = "application/x-www-form-urlencoded"
            let wrongType = try await client.execute(uri: "/v1/links", method: .post, headers: form, body: jsonBody("destination=https://example.com"))
            #expect(wrongType.status == .unsupportedMediaType)
            let unknownRoute = try await client.execute(uri: "/v1/nothing/here", method: .get, headers: headers(key: fixture.secret))
            #expect(unknownRoute.status == .notFound)
            #expect(unknownRoute.error?.code == .notFound)
        }
        #expect(try await fixture.store.listLinks(appID: fixture.app.id, environment: .live, limit: 10, after: nil).links.isEmpty)
    }

    @Test func aDuplicateSlugIs409AndTheFirstLinkIsUntouched() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let first = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                 body: jsonBody(#"{"slug": "taken", "destination": "https://example.com/first"}"#))
            #expect(first.status == .created)
            // Slugs are case-insensitive: TAKEN is taken too; the test environment shares the domain's slugs.
            for key in [fixture.secret, fixture.testSecret] {
                let second = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: key, json: true),
                                                      body: jsonBody(#"{"slug": "TAKEN", "destination": "https://example.com/second"}"#))
                #expect(second.status == .conflict)
                #expect(second.error?.field == "slug")
            }
            // The same slug on another domain of the app is fine.
            let other = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: fixture.secret, json: true),
                                                 body: jsonBody(#"{"slug": "taken", "domain": "links.example.com", "destination": "https://example.com/third"}"#))
            #expect(other.status == .created)
        }
        #expect(try await fixture.store.link(domain: "go.example.com", slug: "taken")?.destination == "https://example.com/first")
    }

    @Test func headIsGetWithoutItsBodyWhereGetIsAllowed() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "headed", destination: "https://example.com/h"), app: fixture.app, environment: .live)
        try await fixture.application().test(.live) { client in
            let port = try #require(client.port)
            for path in ["/v1/links", "/v1/stats", "/healthz"] {
                let get = try await onItsOwnThread {
                    try RawHTTPClient.request(port: port, path: path, host: "go.example.com", headers: [("x-api-key", fixture.secret)])
                }
                let head = try await onItsOwnThread {
                    try RawHTTPClient.parseAll(try RawHTTPClient.exchange(port: port, bytes: Array(
                        "HEAD \(path) HTTP/1.1\r\nHost: go.example.com\r\nx-api-key: \(fixture.secret)\r\nConnection: close\r\n\r\n".utf8)), bodiless: [0])
                }
                #expect(get.status == 200 && head.count == 1 && head[0].status == 200, "\(path)")
                #expect(head.first?.body.isEmpty == true, "\(path)")
                #expect(head.first?.header("Content-Type") == get.header("Content-Type"), "\(path)")
            }
            // Where GET is not allowed, neither is HEAD.
            let match = try await onItsOwnThread {
                try RawHTTPClient.parseAll(try RawHTTPClient.exchange(port: port, bytes: Array(
                    "HEAD /v1/attribution/match HTTP/1.1\r\nHost: go.example.com\r\nConnection: close\r\n\r\n".utf8)), bodiless: [0])
            }
            #expect(match.first?.status == 405 && match.first?.header("Allow") == "POST")
        }
    }

    @Test func wrongMethodsAre405() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let cases: [(HTTPRequest.Method, String, String)] = [
                (.put, "/v1/links", "GET, POST, DELETE"), (.patch, "/v1/links", "GET, POST, DELETE"), (.post, "/v1/links/lnk_x", "GET, PATCH, DELETE"),
                (.put, "/v1/links/lnk_x", "GET, PATCH, DELETE"), (.put, "/v1/attribution/match", "POST"), (.get, "/v1/sdk/validate", "POST"),
                (.delete, "/v1/events", "POST"), (.post, "/v1/links/resolve/abc", "GET"), (.get, "/v1/attribution/user", "POST"),
                // TRACE and OPTIONS name a route that exists too: not a 404 as if it did not.
                (.trace, "/v1/links", "GET, POST, DELETE"), (.options, "/v1/links/lnk_x", "GET, PATCH, DELETE"), (.trace, "/v1/attribution/match", "POST"),
                (.options, "/v1/webhooks", "GET, POST"), (.trace, "/api/v1/deferred-deep-link", "GET"), (HTTPRequest.Method("QUERY")!, "/v1/stats", "GET"),
                // The probes are JSON routes as well, not a link domain's 404 page.
                (.post, "/healthz", "GET"), (.trace, "/readyz", "GET"),
            ]
            for (method, uri, allowed) in cases {
                let response = try await client.execute(uri: uri, method: method, headers: headers(key: fixture.secret, json: true), body: jsonBody("{}"))
                #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                #expect(response.error?.code == .methodNotAllowed)
                #expect(response.headers[.allow] == allowed)
            }
        }
    }

    @Test func keyHeadersAndJSONMediaTypesAreReadAsPeopleSendThem() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            // A proxy's Basic credentials do not hide the x-api-key.
            var fields = headers(extra: [(.apiKey, fixture.secret)])
            fields[.authorization] = "Basic dXNlcjpwYXNz"
            fields[.contentType] = "application/json; charset=utf-8"
            let created = try await client.execute(uri: "/v1/links", method: .post, headers: fields, body: jsonBody(#"{"slug": "media", "destination": "https://example.com/"}"#))
            #expect(created.status == .created)
            let link = try created.decode(LinkResponse.self)
            fields[.contentType] = "application/merge-patch+json"
            let patched = try await client.execute(uri: "/v1/links/\(link.id)", method: .patch, headers: fields, body: jsonBody(#"{"campaign": "merge"}"#))
            #expect(patched.status == .ok)
            #expect(try patched.decode(LinkResponse.self).campaign == "merge")
            // The last page says so with an explicit null.
            let list = try await client.execute(uri: "/v1/links", method: .get, headers: fields)
            #expect(list.text.contains(#""nextCursor":null"#))
        }
    }
}
#endif
