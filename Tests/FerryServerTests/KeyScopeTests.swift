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

/// Secret keys limited to scopes: every route a secret key may use names the scope that covers it, a key outside it
/// gets 403 `missing_scope` naming the scope, and keys made without scopes keep every right.
@Suite("Key scopes", .takesTurns)
struct KeyScopeTests {
    /// One request of a secret key and the scope it needs.
    struct Call: Sendable, CustomStringConvertible {
        var method: HTTPRequest.Method
        var uri: String
        var body: String?
        var scope: APIKeyScope

        var description: String { "\(method) \(uri)" }
    }

    static func calls(link: Link) -> [Call] {
        [
            Call(method: .get, uri: "/v1/links", scope: .linksRead),
            Call(method: .get, uri: FerryRoutes.link(id: link.id), scope: .linksRead),
            Call(method: .get, uri: FerryRoutes.linkDebug(id: link.id), scope: .linksRead),
            Call(method: .get, uri: FerryRoutes.linkQR(id: link.id), scope: .linksRead),
            Call(method: .get, uri: FerryRoutes.resolve(slug: link.slug) + "?domain=go.example.com", scope: .linksRead),
            Call(method: .post, uri: "/v1/links", body: #"{"destination": "https://example.com/new"}"#, scope: .linksWrite),
            Call(method: .patch, uri: FerryRoutes.link(id: link.id), body: #"{"campaign": "autumn"}"#, scope: .linksWrite),
            Call(method: .delete, uri: "/v1/links?createdInApp=true", scope: .linksWrite),
            Call(method: .post, uri: "/v1/shortLinks", body: #"{"longDynamicLink": "https://go.example.com/?link=https://example.com/fdl"}"#, scope: .linksWrite),
            Call(method: .post, uri: "/api/v1/referral-links", body: #"{"referrer": "ana"}"#, scope: .linksWrite),
            Call(method: .get, uri: "/api/v1/app/dynamic_link/\(link.slug)", scope: .linksRead),
            Call(method: .get, uri: "/api/v1/deferred-deep-link", scope: .attributionWrite),
            Call(method: .post, uri: "/api/v1/attributions", body: #"{"userId": "user-1"}"#, scope: .attributionWrite),
            Call(method: .get, uri: "/v1/stats", scope: .statsRead),
            Call(method: .get, uri: FerryRoutes.linkStats(id: link.id), scope: .statsRead),
            Call(method: .get, uri: "/v1/exports/clicks", scope: .statsRead),
            Call(method: .get, uri: "/v1/exports/attributions", scope: .statsRead),
            Call(method: .get, uri: "/v1/webhooks", scope: .webhooksRead),
            Call(method: .post, uri: "/v1/webhooks", body: #"{"url": "https://hooks.example.com/ferry", "events": ["click"]}"#, scope: .webhooksWrite),
            Call(method: .get, uri: "/v1/domains", scope: .settingsRead),
            Call(method: .post, uri: "/v1/domains", body: #"{"domain": "l.example.org"}"#, scope: .settingsWrite),
            Call(method: .post, uri: FerryRoutes.attributionUserTokens, body: #"{"userID": "user-1"}"#, scope: .attributionWrite),
            Call(method: .post, uri: FerryRoutes.attributionUser, body: #"{"installID": "IDFV-1", "userID": "user-1"}"#, scope: .attributionWrite),
            Call(method: .post, uri: FerryRoutes.events, body: #"{"events": [{"name": "open", "installID": "IDFV-1"}]}"#, scope: .attributionWrite),
        ]
    }

    static func send(_ call: Call, key: String, to client: some TestClientProtocol) async throws -> TestResponse {
        try await client.execute(uri: call.uri, method: call.method, headers: headers(key: key, json: call.body != nil),
                                 body: call.body.map { ByteBuffer(string: $0) })
    }

    @Test func aKeyOutsideItsScopesIsRefusedNamingTheScopeItNeeds() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"),
                                                      app: fixture.app, environment: .live)
        var keys: [APIKeyScope: String] = [:]
        for scope in APIKeyScope.allCases {
            keys[scope] = try await fixture.admin.createKey(appID: fixture.app.id, kind: .secret, environment: .live, scopes: [scope]).key
        }
        let scopedKeys = keys
        try await fixture.application().test(.router) { client in
            for call in Self.calls(link: link) {
                // Every key whose scopes do not cover the call is refused before anything is read or changed.
                for (scope, key) in scopedKeys where !call.scope.isGranted(by: [scope]) {
                    let response = try await Self.send(call, key: key, to: client)
                    #expect(response.status == .forbidden, "\(call) with \(scope.rawValue): \(response.text)")
                    // Ferry's shape, or the shape of the platform a compatible route speaks for, with Ferry's message.
                    let body = try #require(try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any])
                    let error = try #require(body["error"] as? [String: Any], "\(call): \(response.text)")
                    let message = try #require(error["message"] as? String)
                    if let code = error["code"] as? String { #expect(code == "missing_scope", "\(call)") }
                    #expect(message.contains("'\(call.scope.rawValue)'"), "\(call): \(message)")
                    #expect(message.contains(scope.rawValue), "the refusal says what the key holds: \(message)")
                }
                // The key of the call's own scope gets past the check (what the route then answers is its own business).
                let allowed = try await Self.send(call, key: try #require(scopedKeys[call.scope]), to: client)
                #expect(allowed.status.code < 400 || (try? allowed.decode(ErrorResponse.self).error.code) != .missingScope, "\(call): \(allowed.text)")
                #expect(allowed.status != .unauthorized, "\(call)")
            }
        }
    }

    @Test func aScopeThatWritesAlsoReadsAndKeysWithoutScopesKeepEveryRight() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"),
                                                      app: fixture.app, environment: .live)
        let writer = try await fixture.admin.createKey(appID: fixture.app.id, kind: .secret, environment: .live, scopes: [.linksWrite, .statsRead]).key
        try await fixture.application().test(.router) { client in
            let listed = try await client.execute(uri: "/v1/links", method: .get, headers: headers(key: writer))
            #expect(listed.status == .ok)
            #expect(try listed.decode(LinkListResponse.self).data.map(\.id) == [link.id])
            let created = try await client.execute(uri: "/v1/links", method: .post, headers: headers(key: writer, json: true),
                                                   body: jsonBody(#"{"slug": "made-by-a-scoped-key", "destination": "https://example.com/scoped"}"#))
            #expect(created.status == .created, "\(created.text)")
            let stats = try await client.execute(uri: FerryRoutes.linkStats(id: link.id), method: .get, headers: headers(key: writer))
            #expect(stats.status == .ok)
            let webhooks = try await client.execute(uri: "/v1/webhooks", method: .get, headers: headers(key: writer))
            #expect(try webhooks.decode(ErrorResponse.self).error.message == "this key lacks the scope 'webhooks:read' (its scopes: links:write stats:read)")
            // The fixture's key was made without scopes: every route as before.
            for call in Self.calls(link: link) {
                let response = try await Self.send(call, key: fixture.secret, to: client)
                #expect((try? response.decode(ErrorResponse.self).error.code) != .missingScope, "\(call)")
                #expect(response.status != .forbidden || call.uri.hasPrefix("/v1/domains"), "\(call): \(response.text)")
            }
        }
        #expect(try await fixture.store.link(domain: "go.example.com", slug: "made-by-a-scoped-key") != nil)
    }

    @Test func onlySecretKeysTakeScopesAndAnEmptyListIsRefused() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        await #expect(throws: ValidationError.self) {
            _ = try await fixture.admin.createKey(appID: fixture.app.id, kind: .publishable, environment: .live, scopes: [.linksRead])
        }
        await #expect(throws: ValidationError.self) {
            _ = try await fixture.admin.createKey(appID: fixture.app.id, kind: .secret, environment: .live, scopes: [])
        }
        let before = try await fixture.store.keys(appID: fixture.app.id).count
        #expect(before == 3, "nothing was stored by the refused requests")
        let made = try await fixture.admin.createKey(appID: fixture.app.id, kind: .secret, environment: .test, scopes: [.statsRead, .linksRead])
        #expect(try await fixture.store.key(hash: made.record.hash)?.scopes == [.statsRead, .linksRead])
    }

    @Test func aScopedKeyCannotSignInToTheDashboard() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let scoped = try await fixture.admin.createKey(appID: fixture.app.id, kind: .secret, environment: .live, scopes: [.linksWrite]).key
        try await fixture.application().test(.router) { client in
            #expect(try await DashboardTests.signIn(client, key: scoped) == nil, "no session for a scoped key")
            let form = try await client.execute(uri: "/dashboard/sign-in", method: .get, headers: headers())
            let nonce = try #require(form.headers[values: .setCookie].first { $0.hasPrefix("ferry_signin=") }?.dropFirst(13).prefix { $0 != ";" })
            let token = try #require(DashboardTests.field("csrf", in: form.text))
            let refused = try await client.execute(
                uri: "/dashboard/sign-in", method: .post,
                headers: headers(extra: [(.contentType, "application/x-www-form-urlencoded"), (.cookie, "ferry_signin=\(nonce)"),
                                         (HTTPField.Name("Origin")!, DashboardTests.origin)]),
                body: ByteBuffer(string: "csrf=\(token)&key=\(scoped)"))
            #expect(refused.text.contains("That key is limited to scopes"), "\(refused.status) \(refused.text.prefix(300))")
            #expect(try await DashboardTests.signIn(client, key: fixture.secret) != nil, "a key without scopes still signs in")
        }
    }
}
#endif
