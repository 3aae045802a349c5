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

/// What one app's keys could once do to another app or to the server's settings, each refused now: domains, test
/// keys, dashboard sessions, user bindings and the interstitial's reports. Every test runs on a real server over a
/// real socket, on SQLite and, when one is given, on PostgreSQL.
@Suite("Tenancy", .takesTurns)
struct TenancyTests {
    static let backends = TenantIsolationTests.backends

    /// A server over a fresh database with two tenants, A on `go.example.com` and B on `other.test`.
    static func withTenants(_ backend: String, configure: (inout FerryConfiguration) -> Void = { _ in },
                            _ body: @escaping @Sendable (any TestClientProtocol, FerryAdmin, TenantIsolationTests.Tenant, TenantIsolationTests.Tenant) async throws -> Void)
        async throws {
        let (stores, close) = try await TenantIsolationTests.open(backend, count: 1)
        let store = stores[0]
        let admin = FerryAdmin(store: store)
        let a = try await TenantIsolationTests.Tenant.make(admin, name: "Alpha", host: "go.example.com", slugPrefix: "a")
        let b = try await TenantIsolationTests.Tenant.make(admin, name: "Beta", host: "other.test", slugPrefix: "b")
        var configuration = TenantIsolationTests.configuration()
        configure(&configuration)
        do {
            try await buildApplication(configuration, store: store).testLive { client in try await body(client, admin, a, b) }
        } catch {
            await close()
            throw error
        }
        await close()
    }

    static func desktopClick(_ client: some TestClientProtocol, host: String, slug: String) async throws -> TestResponse {
        try await client.execute(uri: "/\(slug)", method: .get, headers: headers(host: host, userAgent: UA.desktop))
    }

    // MARK: Domains

    @Test(arguments: backends)
    func anAppCannotTakeADomainUnderOrOverAnotherAppsDomain(backend: String) async throws {
        try await Self.withTenants(backend) { client, admin, a, b in
            // The operator's own tools refuse it.
            for taken in ["x.go.example.com", "example.com", "deep.x.go.example.com"] {
                await #expect(throws: StoreConflict.self, "\(taken) given to B by the operator") {
                    _ = try await admin.updateApp(id: b.app.id) { $0.domains.append(taken) }
                }
            }
            // The dashboard's settings form no longer carries domains: a list sent with it changes nothing.
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: b.key(.secret, .live)))
            let form = "csrf=\(csrf)&name=Beta&attributionWindow=24&domains=other.test%0D%0Ax.go.example.com&teamID=ABCDE12345&bundleIDs=com.b.app"
            _ = try await DashboardTests.post(client, "/dashboard/settings", cookie: cookie, body: form)
            #expect(try await admin.store.app(id: b.app.id)?.domains == ["other.test"])
            // The API and the dashboard refuse to even wait for a proof of such a domain.
            for taken in ["x.go.example.com", "example.com", "GO.EXAMPLE.COM"] {
                let claim = try await client.execute(uri: "/v1/domains", method: .post, headers: headers(key: b.key(.secret, .live), json: true),
                                                     body: jsonBody(AddDomainRequest(domain: taken)))
                #expect(claim.status == .conflict && claim.error?.code == .domainTaken, "\(taken): \(claim.text)")
            }
            let dashboard = try await DashboardTests.post(client, "/dashboard/domains", cookie: cookie, body: "csrf=\(csrf)&domain=x.go.example.com")
            #expect(dashboard.status == .conflict)
            #expect(try await admin.store.domainClaims(appID: b.app.id).isEmpty)
            // A's links still answer on every host under its domain, and only there.
            let link = try #require(a.links[.live])
            for host in ["go.example.com", "x.go.example.com"] {
                let path = host == "go.example.com" ? "/\(link.slug)" : "/link/\(link.slug)"
                let click = try await client.execute(uri: path, method: .get, headers: headers(host: host, userAgent: UA.desktop))
                #expect(click.status == .found && click.headers[.location]?.hasPrefix(link.destination) == true, "\(host): \(click.status)")
            }
        }
    }

    @Test func singleLabelsAndPublicSuffixesAreNobodysDomain() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        for name in ["com", "co.uk", "github.io", "s3.amazonaws.com", "example", "xn--55qx5d.cn", "any.kawasaki.jp", "any.ck"] {
            let refused: ValidationError? = await {
                do { _ = try await fixture.admin.createApp(.init(name: "Greedy", domains: [name])) } catch let error as ValidationError { return error } catch {}
                return nil
            }()
            #expect(refused?.field == "domain", "\(name) was accepted")
        }
        // Registrable names under those suffixes, development hosts and addresses are fine.
        for name in ["example.co.uk", "me.github.io", "www.ck", "city.kawasaki.jp", "localhost:9000", "dev.localhost:9001", "203.0.113.7"] {
            let app = try await fixture.admin.createApp(.init(name: "Fine", domains: [name]))
            #expect(app.domains == [name])
        }
        #expect(try await fixture.store.listApps().allSatisfy { !$0.domains.contains("com") })
        try await fixture.application().testLive { client in
            let claim = try await client.execute(uri: "/v1/domains", method: .post, headers: headers(key: fixture.secret, json: true),
                                                 body: jsonBody(AddDomainRequest(domain: "co.uk")))
            #expect(claim.status == .conflict && claim.error?.code == .domainUnavailable && claim.error?.field == "domain" && claim.text.contains("public suffix"))
        }
    }

    @Test(arguments: backends)
    func aLinkAnswersOnlyOnAHostOfItsOwnApp(backend: String) async throws {
        try await Self.withTenants(backend) { client, admin, a, b in
            let link = try #require(a.links[.live])
            #expect(try await Self.desktopClick(client, host: "go.example.com", slug: link.slug).status == .found)
            // A moves its links to a new domain and drops the old one (the server sees the change within its refresh
            // interval, as any other process's change); its links there stop.
            _ = try await admin.updateApp(id: a.app.id) { $0.domains = ["new.example.com"] }
            #expect(try await Self.eventually { try await Self.desktopClick(client, host: "go.example.com", slug: link.slug).status == .gone })
            for round in 0..<2 {  // the first answer was read from the store, these come from memory (the fast path)
                let dropped = try await Self.desktopClick(client, host: "go.example.com", slug: link.slug)
                #expect(dropped.status == .gone && dropped.headers[.location] == nil, "round \(round): \(dropped.status)")
            }
            // B takes the old domain, and serves its own links there…
            _ = try await admin.updateApp(id: b.app.id) { $0.domains.append("go.example.com") }
            let own = try await admin.createLink(CreateLinkRequest(domain: "go.example.com", slug: "b-on-go", destination: "https://example.com/b-go"),
                                                 app: try #require(try await admin.store.app(id: b.app.id)), environment: .live)
            #expect(try await Self.eventually {
                try await Self.desktopClick(client, host: "go.example.com", slug: own.slug).headers[.location]?.hasPrefix(own.destination) == true
            })
            // …but never A's.
            for round in 0..<3 {
                let inherited = try await Self.desktopClick(client, host: "go.example.com", slug: link.slug)
                #expect(inherited.status == .gone && inherited.headers[.location] == nil && !inherited.text.contains(link.destination),
                        "round \(round): B's host answered A's link with \(inherited.status)")
                let bot = try await client.execute(uri: "/\(link.slug)", method: .get, headers: headers(host: "go.example.com", userAgent: UA.slackBot))
                #expect(bot.status == .gone && !bot.text.contains("a-campaign"))
            }
            // A's link is not found by B's key either, and A's own key does not find it on the domain it dropped.
            let resolve = try await client.execute(uri: "/v1/links/resolve/\(link.slug)?domain=go.example.com", method: .get,
                                                   headers: headers(key: b.key(.publishable, .live)))
            #expect(resolve.status == .notFound)
        }
    }

    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        try await TenantIsolationTests.eventually(condition)
    }
}
#endif
