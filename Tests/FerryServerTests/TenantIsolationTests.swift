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

/// Two apps on one server, each with a secret and a publishable key in each environment, and a link, clicks and a
/// webhook in each environment: what a key of one may reach of the other's, route by route.
@Suite("Tenant isolation", .takesTurns)
struct TenantIsolationTests {
    /// The databases the tests run on: SQLite always, PostgreSQL when `FERRY_TEST_POSTGRES_URL` names one.
    static let backends: [String] = ["sqlite"] + (MultiNodeTests.postgresURL != nil ? ["postgres"] : [])

    /// Opens `count` stores on one fresh database (each like a node of its own); `close` removes what is left.
    static func open(_ backend: String, count: Int) async throws -> (stores: [any FerryDatabase], close: @Sendable () async -> Void) {
        if backend == "postgres" {
            let url = try MultiNodeTests.schemaURL()
            var stores: [any FerryDatabase] = []
            for _ in 0..<count { stores.append(try await PostgresStore(url: url)) }
            let opened = stores
            return (opened, { for store in opened { try? await store.close() } })
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-tenants-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("ferry.sqlite").path
        var stores: [any FerryDatabase] = []
        for _ in 0..<count { stores.append(try SQLiteStore(path: path)) }
        let opened = stores
        return (opened, {
            for store in opened { try? await store.close() }
            try? FileManager.default.removeItem(at: directory)
        })
    }

    /// One app with its four keys, a link in each environment and what was made of them.
    struct Tenant: Sendable {
        var app: App
        var host: String
        var keys: [String: String]
        var keyIDs: [String: String]
        var links: [APIEnvironment: Link] = [:]
        var clicks: [APIEnvironment: [String]] = [:]
        var webhooks: [APIEnvironment: String] = [:]
        var addresses: [APIEnvironment: String] = [:]

        func key(_ kind: APIKeyKind, _ environment: APIEnvironment) -> String { keys["\(kind.rawValue)/\(environment.rawValue)"]! }
        func keyID(_ kind: APIKeyKind, _ environment: APIEnvironment) -> String { keyIDs["\(kind.rawValue)/\(environment.rawValue)"]! }

        static func make(_ admin: FerryAdmin, name: String, host: String, slugPrefix: String) async throws -> Tenant {
            var spec = FerryAdmin.AppSpec(name: name, domains: [host])
            spec.teamID = "ABCDE12345"
            spec.bundleIDs = ["com.\(slugPrefix).app"]
            spec.appStoreID = slugPrefix == "a" ? "1111111111" : "2222222222"
            spec.urlScheme = "\(slugPrefix)app"
            spec.androidPackage = "com.\(slugPrefix).android"
            spec.fallbackURL = "https://www.example.com/\(slugPrefix)"
            let app = try await admin.createApp(spec)
            var tenant = Tenant(app: app, host: host, keys: [:], keyIDs: [:])
            for kind in [APIKeyKind.secret, .publishable] {
                for environment in [APIEnvironment.live, .test] {
                    let (record, key) = try await admin.createKey(appID: app.id, kind: kind, environment: environment)
                    tenant.keys["\(kind.rawValue)/\(environment.rawValue)"] = key
                    tenant.keyIDs["\(kind.rawValue)/\(environment.rawValue)"] = record.id
                }
            }
            for environment in [APIEnvironment.live, .test] {
                tenant.links[environment] = try await admin.createLink(
                    CreateLinkRequest(slug: "\(slugPrefix)-\(environment.rawValue)", destination: "https://example.com/\(slugPrefix)/\(environment.rawValue)",
                                      iosURL: "\(slugPrefix)app://\(environment.rawValue)", params: ["owner": "\(slugPrefix)-\(environment.rawValue)"],
                                      campaign: "\(slugPrefix)-campaign"),
                    app: app, environment: environment)
            }
            return tenant
        }
    }

    /// Two tenants with clicks (from an iPhone that reported its screen, and a desktop), a webhook and an answered
    /// install in each environment.
    static func populate(_ client: some TestClientProtocol, _ admin: FerryAdmin, store: any FerryDatabase) async throws -> (Tenant, Tenant) {
        var a = try await Tenant.make(admin, name: "Alpha", host: "go.example.com", slugPrefix: "a")
        var b = try await Tenant.make(admin, name: "Beta", host: "other.test", slugPrefix: "b")
        var octet = 10
        for index in 0..<2 {
            var tenant = index == 0 ? a : b
            for environment in [APIEnvironment.live, .test] {
                // The webhook first, so that it hears of the clicks.
                let webhook = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: tenant.key(.secret, environment), json: true),
                                                       body: jsonBody(CreateWebhookRequest(url: "https://hooks.example.com/\(tenant.app.name)/\(environment.rawValue)")))
                #expect(webhook.status == .created)
                tenant.webhooks[environment] = try webhook.decode(WebhookResponse.self).id
                let link = try #require(tenant.links[environment])
                octet += 1
                let address = "203.0.113.\(octet)"
                let clickID = try await clickOnIPhone(client, slug: link.slug, address: address, host: tenant.host)
                let desktop = try await client.execute(uri: "/\(link.slug)", method: .get,
                                                       headers: headers(host: tenant.host, userAgent: UA.desktop, extra: [(.forwardedFor, "198.51.100.\(octet)")]))
                #expect(desktop.status == .found)
                tenant.clicks[environment] = [clickID]
                tenant.addresses[environment] = address
            }
            if index == 0 { a = tenant } else { b = tenant }
        }
        for tenant in [a, b] {
            for environment in [APIEnvironment.live, .test] {
                let link = try #require(tenant.links[environment])
                #expect(try await eventually { try await store.clickCount(linkID: link.id) == 2 }, "clicks on \(link.slug) stored")
            }
        }
        // B's installs are answered from its own clicks, deterministically, in each environment.
        for environment in [APIEnvironment.live, .test] {
            let clickID = try #require(b.clicks[environment]?.first)
            let match = try await client.execute(uri: "/v1/attribution/match", method: .post,
                                                 headers: headers(key: b.key(.publishable, environment), json: true, extra: [(.forwardedFor, "192.0.2.77")]),
                                                 body: jsonBody(MatchRequest(installID: "b-install-\(environment.rawValue)", signals: iPhoneSignals, clickToken: "ferry:\(clickID)")))
            let answer = try match.decode(MatchResponse.self)
            #expect(answer.matched && answer.link?.slug == b.links[environment]?.slug)
            let user = try await client.execute(uri: "/v1/attribution/user", method: .post, headers: headers(key: b.key(.publishable, environment), json: true),
                                                body: jsonBody(AttributeUserRequest(installID: "b-install-\(environment.rawValue)", userID: "shared-user")))
            #expect(try user.decode(AttributeUserResponse.self).attributed)
        }
        return (a, b)
    }

    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<250 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    static func configuration() -> FerryConfiguration {
        var configuration = Fixture.configuration
        configuration.webhookPollInterval = .seconds(3600)  // deliveries stay queued, to be read back
        configuration.webhookDelivery.resolver = ScriptedResolver([:])  // no name resolves: no proof file is read off this machine
        return configuration
    }

    @Test(arguments: backends)
    func aKeyReachesNothingOfAnotherAppOrEnvironment(backend: String) async throws {
        let (stores, close) = try await Self.open(backend, count: 1)
        let store = stores[0]
        let admin = FerryAdmin(store: store)
        let server = try await buildApplication(Self.configuration(), store: store)
        try await server.testLive { client in
            let (a, b) = try await Self.populate(client, admin, store: store)
            for environment in [APIEnvironment.live, .test] {
                let other: APIEnvironment = environment == .live ? .test : .live
                let own = try #require(a.links[environment])
                // What A's keys of this environment must never reach: all of B's, and A's own of the other environment.
                let foreignLinks = [b.links[.live]!, b.links[.test]!, a.links[other]!]
                let foreignClicks = (b.clicks[.live] ?? []) + (b.clicks[.test] ?? []) + (a.clicks[other] ?? [])
                let foreignWebhooks = [b.webhooks[.live]!, b.webhooks[.test]!, a.webhooks[other]!]
                let secret = a.key(.secret, environment), publishable = a.key(.publishable, environment)
                let what = "A's \(environment.rawValue) keys"

                // Links: read, change, delete, stats and QR of another's id are simply not found.
                for link in foreignLinks {
                    for (method, path, body) in [(HTTPRequest.Method.get, "/v1/links/\(link.id)", nil), (.patch, "/v1/links/\(link.id)", #"{"destination": "https://evil.example/"}"#),
                                                 (.delete, "/v1/links/\(link.id)", nil), (.get, "/v1/links/\(link.id)/stats", nil), (.get, "/v1/links/\(link.id)/qr", nil)] {
                        let response = try await client.execute(uri: path, method: method, headers: headers(key: secret, json: body != nil), body: body.map { jsonBody($0) })
                        #expect(response.status == .notFound, "\(what): \(method) \(path) of \(link.slug) → \(response.status)")
                        #expect(!response.text.contains(link.destination) && !response.text.contains(link.params["owner"] ?? "-"), "\(what): \(path) tells of \(link.slug)")
                    }
                    // A publishable key is refused the secret routes whatever the id.
                    let publishableRead = try await client.execute(uri: "/v1/links/\(link.id)", method: .get, headers: headers(key: publishable))
                    #expect(publishableRead.status == .forbidden)
                    // Resolving another's slug, on one's own domain or naming the other's.
                    for key in [secret, publishable] {
                        let resolve = try await client.execute(uri: "/v1/links/resolve/\(link.slug)", method: .get, headers: headers(key: key))
                        #expect(resolve.status == .notFound, "\(what): resolve \(link.slug) → \(resolve.status)")
                        let named = try await client.execute(uri: "/v1/links/resolve/\(link.slug)?domain=\(link.domain)", method: .get, headers: headers(key: key))
                        #expect([.notFound, .badRequest].contains(named.status), "\(what): resolve \(link.slug) on \(link.domain) → \(named.status)")
                        #expect(!named.text.contains(link.destination))
                    }
                    // Events naming another's link are refused: the link is not found, as reading it is not.
                    let events = try await client.execute(uri: "/v1/events", method: .post, headers: headers(key: publishable, json: true),
                                                          body: jsonBody(EventsRequest(events: [SDKEvent(name: "purchase", installID: "a-device", linkID: link.id)])))
                    #expect(events.status == .notFound, "\(what): an event on \(link.slug) → \(events.status)")
                    // The compatibility routes, with the key in a header or in the body.
                    let dynamic = try await client.execute(uri: "/api/v1/app/dynamic_link/\(link.slug)", method: .get, headers: headers(key: publishable))
                    #expect(dynamic.status == .notFound, "\(what): dynamic_link \(link.slug) → \(dynamic.status)")
                    let fullURL = QueryString.encode(link.shortURL + "?x=1")
                    let dynamicOnItsHost = try await client.execute(uri: "/api/v1/app/dynamic_link/\(link.slug)?full_request_url=\(fullURL)", method: .get,
                                                                    headers: headers(key: publishable))
                    #expect(dynamicOnItsHost.status == .notFound, "\(what): dynamic_link \(link.slug) named by its URL → \(dynamicOnItsHost.status)")
                    #expect(!dynamicOnItsHost.text.contains(link.iosURL ?? "-"))
                    let statsEvent = try await client.execute(uri: "/api/v1/stats/event", method: .post, headers: headers(json: true),
                                                              body: jsonBody(#"{"private_key": "\#(publishable)", "suffix": "\#(link.slug)", "event_type": "rerun"}"#))
                    #expect(statsEvent.status == .notFound, "\(what): stats event on \(link.slug) → \(statsEvent.status)")
                }
                // Lists, statistics and exports hold one's own and nothing else.
                let list = try await client.execute(uri: "/v1/links?limit=100", method: .get, headers: headers(key: secret))
                #expect(try list.decode(LinkListResponse.self).data.map(\.id) == [own.id], "\(what) list \(list.text)")
                let stats = try await client.execute(uri: "/v1/stats", method: .get, headers: headers(key: secret))
                let report = try stats.decode(StatsReport.self)
                #expect(report.totals.clicks == 2, "\(what): \(report.totals.clicks) clicks in the app's statistics")
                #expect(report.totals.installs == 0, "\(what): another's installs are counted")
                let ownStats = try await client.execute(uri: "/v1/links/\(own.id)/stats", method: .get, headers: headers(key: secret))
                #expect(try ownStats.decode(StatsReport.self).totals.clicks == 2)
                let clicks = try await client.execute(uri: "/v1/exports/clicks", method: .get, headers: headers(key: secret))
                let clickRows = clicks.text.split(whereSeparator: \.isNewline).dropFirst()
                #expect(clickRows.count == 2 && clickRows.allSatisfy { $0.contains(own.id) }, "\(what) exported \(clicks.text)")
                for id in foreignClicks + foreignLinks.map(\.id) { #expect(!clicks.text.contains(id), "\(what) exported \(id)") }
                let attributions = try await client.execute(uri: "/v1/exports/attributions", method: .get, headers: headers(key: secret))
                #expect(attributions.status == .ok && attributions.text.split(whereSeparator: \.isNewline).count == 1, "\(what) exported \(attributions.text)")
                #expect(!attributions.text.contains("b-install"))

                // Matches: another's click token, or the very device and network another's click came from, match nothing.
                for (index, clickID) in foreignClicks.enumerated() {
                    let token = try await client.execute(uri: "/v1/attribution/match", method: .post,
                                                         headers: headers(key: publishable, json: true, extra: [(.forwardedFor, "192.0.2.\(100 + index)")]),
                                                         body: jsonBody(MatchRequest(installID: "a-token-\(environment.rawValue)-\(index)", signals: iPhoneSignals, clickToken: "ferry:\(clickID)")))
                    // The token is not A's: it is ignored, and the install is matched by its signals alone, as one
                    // without a token is. A's own click of this environment came from an iPhone with these very
                    // signals, so A may match it (how likely depends on how long after the click the test gets
                    // here): never by the token, and never anything else.
                    let answer = try token.decode(MatchResponse.self)
                    #expect(answer == .notMatched || (answer.matchType == .probabilistic && answer.link?.slug == own.slug),
                            "\(what) matched \(clickID) by its token: \(token.text)")
                }
                for (index, address) in [b.addresses[.live]!, b.addresses[.test]!, a.addresses[other]!].enumerated() {
                    let probable = try await client.execute(uri: "/v1/attribution/match", method: .post,
                                                            headers: headers(key: publishable, json: true, extra: [(.forwardedFor, address)]),
                                                            body: jsonBody(MatchRequest(installID: "a-probable-\(environment.rawValue)-\(index)", signals: iPhoneSignals)))
                    // Every address here shares its /24 network with A's own click of this environment, which A may
                    // match (how likely depends on how long after the click the test gets here): never anything else.
                    let answer = try probable.decode(MatchResponse.self)
                    #expect(answer == .notMatched || answer.link?.slug == own.slug, "\(what) matched a click from \(address): \(probable.text)")
                    let deferred = try await client.execute(uri: "/api/v1/deferred-deep-link?width=393&height=852&user_agent=iOS%2018_1", method: .get,
                                                            headers: headers(key: publishable, extra: [(.forwardedFor, address)]))
                    #expect(deferred.status == .notFound || (deferred.status == .ok && deferred.text.contains(#""suffix":"\#(own.slug)""#)),
                            "\(what): deferred link from \(address) → \(deferred.status) \(deferred.text)")
                }
                // Another's install and user ids bind to nothing of theirs.
                for installID in ["b-install-live", "b-install-test", "b-install-\(other.rawValue)"] {
                    let user = try await client.execute(uri: "/v1/attribution/user", method: .post, headers: headers(key: publishable, json: true),
                                                        body: jsonBody(AttributeUserRequest(installID: installID, userID: "a-user-\(installID)")))
                    let answer = try user.decode(AttributeUserResponse.self)
                    #expect(!answer.attributed && answer.link == nil, "\(what): \(installID) → \(user.text)")
                }
                let linkTrace = try await client.execute(uri: "/api/v1/attributions", method: .post, headers: headers(key: publishable, json: true),
                                                         body: jsonBody(#"{"userId": "shared-user"}"#))
                #expect(linkTrace.status == .ok && linkTrace.text.contains(#""attributed":false"#), "\(what): \(linkTrace.text)")

                // Webhooks: another's are not listed, cannot be removed, and their deliveries cannot be read.
                let hooks = try await client.execute(uri: "/v1/webhooks", method: .get, headers: headers(key: secret))
                #expect(try hooks.decode(WebhookListResponse.self).data.map(\.id) == [a.webhooks[environment]!], "\(what): \(hooks.text)")
                for id in foreignWebhooks {
                    let deliveries = try await client.execute(uri: "/v1/webhooks/\(id)/deliveries", method: .get, headers: headers(key: secret))
                    #expect(deliveries.status == .notFound, "\(what): deliveries of \(id) → \(deliveries.status)")
                    let delete = try await client.execute(uri: "/v1/webhooks/\(id)", method: .delete, headers: headers(key: secret))
                    #expect(delete.status == .notFound, "\(what): DELETE \(id) → \(delete.status)")
                }
                // Its own webhook was told of its own clicks only.
                let ownHook = try #require(a.webhooks[environment])
                #expect(try await Self.eventually { try await store.deliveries(webhookID: ownHook, appID: a.app.id, limit: 50).count >= 2 })
                let deliveries = try await store.deliveries(webhookID: ownHook, appID: a.app.id, limit: 50)
                for delivery in deliveries {
                    let payload = try FerryJSON.makeDecoder().decode(WebhookPayload.self, from: Data(delivery.payload.utf8))
                    #expect(payload.environment == environment && payload.data.linkID == own.id, "\(what)'s webhook was told \(delivery.payload)")
                }
                let ownDeliveries = try await client.execute(uri: "/v1/webhooks/\(ownHook)/deliveries", method: .get, headers: headers(key: secret))
                #expect(try ownDeliveries.decode(WebhookDeliveryListResponse.self).data.count == deliveries.count)
            }
            // Nothing of B's changed through all this.
            for environment in [APIEnvironment.live, .test] {
                let link = try #require(b.links[environment])
                let read = try await client.execute(uri: "/v1/links/\(link.id)", method: .get, headers: headers(key: b.key(.secret, environment)))
                #expect(try read.decode(LinkResponse.self).destination == link.destination)
                let hooks = try await client.execute(uri: "/v1/webhooks", method: .get, headers: headers(key: b.key(.secret, environment)))
                #expect(try hooks.decode(WebhookListResponse.self).data.map(\.id) == [b.webhooks[environment]!])
                let stats = try await client.execute(uri: "/v1/stats", method: .get, headers: headers(key: b.key(.secret, environment)))
                #expect(try stats.decode(StatsReport.self).totals.installs == 1)
                let exported = try await client.execute(uri: "/v1/exports/attributions", method: .get, headers: headers(key: b.key(.secret, environment)))
                let rows = exported.text.split(whereSeparator: \.isNewline).dropFirst()
                #expect(rows.count == 1 && rows.first?.hasPrefix("b-install-\(environment.rawValue),") == true, "B's own export: \(exported.text)")
            }
        }
        await close()
    }

    @Test(arguments: backends)
    func theDashboardShowsOneAppAndOneEnvironment(backend: String) async throws {
        let (stores, close) = try await Self.open(backend, count: 1)
        let store = stores[0]
        let admin = FerryAdmin(store: store)
        let server = try await buildApplication(Self.configuration(), store: store)
        try await server.testLive { client in
            let (a, b) = try await Self.populate(client, admin, store: store)
            for environment in [APIEnvironment.live, .test] {
                let other: APIEnvironment = environment == .live ? .test : .live
                let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: a.key(.secret, environment)))
                let session = [(HTTPField.Name.cookie, "ferry_session=\(cookie)")]
                let own = try #require(a.links[environment])
                let foreign = [b.links[.live]!, b.links[.test]!, a.links[other]!]
                let list = try await client.execute(uri: "/dashboard", method: .get, headers: headers(extra: session))
                #expect(list.text.contains(own.shortURL))
                let searched = try await client.execute(uri: "/dashboard?q=campaign", method: .get, headers: headers(extra: session))
                #expect(searched.text.contains(own.shortURL))
                for link in foreign {
                    #expect(!list.text.contains(link.shortURL) && !searched.text.contains(link.shortURL), "the \(environment.rawValue) dashboard lists \(link.slug)")
                    for path in ["/dashboard/links/\(link.id)", "/dashboard/links/\(link.id)/edit", "/dashboard/links/\(link.id)/qr.svg", "/dashboard/links/\(link.id)/qr.png"] {
                        let page = try await client.execute(uri: path, method: .get, headers: headers(extra: session))
                        #expect(page.status == .notFound, "\(path) → \(page.status)")
                        #expect(!page.text.contains(link.destination))
                    }
                    for path in ["/dashboard/links/\(link.id)/disable", "/dashboard/links/\(link.id)"] {
                        let post = try await DashboardTests.post(client, path, cookie: cookie, body: "csrf=\(csrf)&destination=https%3A%2F%2Fevil.example%2F")
                        #expect(post.status == .notFound, "POST \(path) → \(post.status)")
                    }
                    let stored = try await store.link(id: link.id, appID: link.appID)
                    #expect(stored?.disabled == false && stored?.destination == link.destination)
                }
                let settings = try await client.execute(uri: "/dashboard/settings", method: .get, headers: headers(extra: session))
                #expect(!settings.text.contains("Beta"))
                let webhooks = try await client.execute(uri: "/dashboard/webhooks", method: .get, headers: headers(extra: session))
                #expect(webhooks.text.contains("hooks.example.com/Alpha/\(environment.rawValue)"))
                #expect(!webhooks.text.contains("Beta") && !webhooks.text.contains("hooks.example.com/Alpha/\(other.rawValue)"))
                for id in [b.webhooks[.live]!, b.webhooks[.test]!, a.webhooks[other]!] {
                    _ = try await DashboardTests.post(client, "/dashboard/webhooks/\(id)/delete", cookie: cookie, body: "csrf=\(csrf)")
                }
                #expect(try await store.webhooks(appID: b.app.id, environment: .live).map(\.id) == [b.webhooks[.live]!])
                #expect(try await store.webhooks(appID: b.app.id, environment: .test).map(\.id) == [b.webhooks[.test]!])
                #expect(try await store.webhooks(appID: a.app.id, environment: other).map(\.id) == [a.webhooks[other]!])
            }
        }
        await close()
    }

    @Test(arguments: backends)
    func aRevokedKeyStopsAtOnceOnEveryNode(backend: String) async throws {
        let (stores, close) = try await Self.open(backend, count: 2)
        let admin = FerryAdmin(store: stores[0])
        let tenant = try await Tenant.make(admin, name: "Alpha", host: "go.example.com", slugPrefix: "a")
        // Any cache a node keeps would be filled by now: each node has answered the keys many times.
        var configuration = Self.configuration()
        configuration.cacheRefreshInterval = .seconds(3600)
        let nodeA = try await buildApplication(configuration, store: stores[0])
        let nodeB = try await buildApplication(configuration, store: stores[1])
        try await nodeA.testLive { a in
            try await nodeB.testLive { b in
                let link = try #require(tenant.links[.live])
                let session = try #require(try await DashboardTests.signIn(b, key: tenant.key(.secret, .live)))
                let requests: [(String, HTTPRequest.Method, String, String?)] = [
                    (tenant.key(.secret, .live), .get, "/v1/links", nil),
                    (tenant.key(.secret, .live), .get, "/v1/links/\(link.id)", nil),
                    (tenant.key(.secret, .live), .get, "/v1/stats", nil),
                    (tenant.key(.secret, .live), .get, "/v1/webhooks", nil),
                    (tenant.key(.secret, .live), .post, "/v1/links", #"{"destination": "https://example.com/after"}"#),
                    (tenant.key(.publishable, .live), .get, "/v1/links/resolve/\(link.slug)", nil),
                    (tenant.key(.publishable, .live), .post, "/v1/sdk/validate", "{}"),
                    (tenant.key(.publishable, .live), .post, "/v1/attribution/match", #"{"installID": "revoked-1", "signals": {"platform": "ios"}}"#),
                    (tenant.key(.publishable, .live), .post, "/v1/events", #"{"events": [{"name": "open", "installID": "revoked-1"}]}"#),
                ]
                for _ in 0..<3 {
                    for (key, method, path, body) in requests {
                        for node in [a, b] as [any TestClientProtocol] {
                            let response = try await node.execute(uri: path, method: method, headers: headers(key: key, json: body != nil), body: body.map { jsonBody($0) })
                            #expect((200..<300).contains(response.status.code), "before revoking: \(method) \(path) → \(response.status)")
                        }
                    }
                }
                // Revoked through one node's store (as `ferry key revoke` does), refused by both at the next request.
                #expect(try await stores[0].revokeKey(id: tenant.keyID(.secret, .live), at: Date()))
                #expect(try await stores[0].revokeKey(id: tenant.keyID(.publishable, .live), at: Date()))
                for (key, method, path, body) in requests {
                    for (name, node) in [("A", a), ("B", b)] as [(String, any TestClientProtocol)] {
                        let response = try await node.execute(uri: path, method: method, headers: headers(key: key, json: body != nil), body: body.map { jsonBody($0) })
                        #expect(response.status == .unauthorized, "node \(name) after revoking: \(method) \(path) → \(response.status)")
                        #expect(response.error?.message.contains("revoked") == true)
                    }
                }
                let signedIn = try await b.execute(uri: "/dashboard", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(session.cookie)")]))
                #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/dashboard/sign-in", "a session of the revoked key")
                let compat = try await a.execute(uri: "/api/v1/stats/event", method: .post, headers: headers(json: true),
                                                 body: jsonBody(#"{"private_key": "\#(tenant.key(.publishable, .live))", "suffix": "\#(link.slug)", "event_type": "rerun"}"#))
                #expect(compat.status == .unauthorized)
                // The app's other keys still work.
                for node in [a, b] as [any TestClientProtocol] {
                    let test = try await node.execute(uri: "/v1/links", method: .get, headers: headers(key: tenant.key(.secret, .test)))
                    #expect(test.status == .ok)
                }
            }
        }
        await close()
    }
}
#endif
