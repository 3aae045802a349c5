#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Adding a link domain through the API or the dashboard: nothing is served on it before its proof of control.
extension TenancyTests {
    @Test(arguments: TenancyTests.backends)
    func aDomainServesNothingUntilItsControlIsProvedByDNS(backend: String) async throws {
        let dns = try await TestDNSServer.start()
        defer { Task { await dns.stop() } }
        try await Self.withTenants(backend, configure: { $0.dnsServer = dns.address }) { client, admin, a, b in
            let secret = a.key(.secret, .live)
            let asked = try await client.execute(uri: "/v1/domains", method: .post, headers: headers(key: secret, json: true),
                                                 body: jsonBody(AddDomainRequest(domain: "Links.Example.NET")))
            #expect(asked.status == .accepted, "\(asked.text)")
            let pending = try asked.decode(DomainResponse.self)
            let proof = try #require(pending.verification)
            #expect(pending.domain == "links.example.net" && pending.status == .pending)
            #expect(proof.dnsName == "_ferry-challenge.links.example.net" && proof.dnsType == "TXT" && proof.dnsValue.hasPrefix("ferry-verification="))
            // Asking again gives the same proof; another app may ask too, with a proof of its own.
            let again = try await client.execute(uri: "/v1/domains", method: .post, headers: headers(key: secret, json: true),
                                                 body: jsonBody(AddDomainRequest(domain: "links.example.net")))
            #expect(try again.decode(DomainResponse.self).verification == proof)
            let rival = try await client.execute(uri: "/v1/domains", method: .post, headers: headers(key: b.key(.secret, .live), json: true),
                                                 body: jsonBody(AddDomainRequest(domain: "links.example.net")))
            let rivalProof = try #require(try rival.decode(DomainResponse.self).verification)
            #expect(rivalProof.dnsValue != proof.dnsValue)

            // Nothing is served on it while it waits.
            let link = try #require(a.links[.live])
            #expect(try await Self.desktopClick(client, host: "links.example.net", slug: link.slug).status == .notFound)
            let association = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: headers(host: "links.example.net"))
            #expect(association.status == .notFound)
            let list = try await client.execute(uri: "/v1/domains", method: .get, headers: headers(key: secret))
            #expect(try list.decode(DomainListResponse.self).data.map(\.status) == [.active, .pending])

            // Without the record, or with the rival's, the check fails and says what it found.
            let early = try await client.execute(uri: "/v1/domains/links.example.net/verify", method: .post, headers: headers(key: secret))
            #expect(early.status == .ok && (try? early.decode(DomainResponse.self))?.status == .pending, "\(early.text)")
            #expect((try? early.decode(DomainResponse.self))?.findings?.contains { $0.contains("no TXT record") } == true, "\(early.text)")
            // The dashboard says the same, as a refusal.
            let (cookie, csrf) = try #require(try await DashboardTests.signIn(client, key: secret))
            let page = try await DashboardTests.post(client, "/dashboard/domains/verify", cookie: cookie, body: "csrf=\(csrf)&domain=links.example.net")
            #expect(page.status == .badRequest && page.text.contains("not proven yet") && page.text.contains("no TXT record"))
            dns.publish(proof.dnsName, [rivalProof.dnsValue])
            let wrong = try await client.execute(uri: "/v1/domains/links.example.net/verify", method: .post, headers: headers(key: secret))
            #expect((try? wrong.decode(DomainResponse.self))?.status == .pending)
            #expect(try await Self.desktopClick(client, host: "links.example.net", slug: link.slug).status == .notFound)

            // With it, the domain is A's and serves A's association file and links (created on it from now on).
            dns.publish(proof.dnsName, ["v=spf1 -all", proof.dnsValue])
            let verified = try await client.execute(uri: "/v1/domains/links.example.net/verify", method: .post, headers: headers(key: secret))
            #expect(verified.status == .ok && (try? verified.decode(DomainResponse.self).status) == .active, "\(verified.text)")
            #expect(try await admin.store.app(id: a.app.id)?.domains == ["go.example.com", "links.example.net"])
            let served = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: headers(host: "links.example.net"))
            #expect(served.status == .ok && served.text.contains("com.a.app"))
            let onIt = try await admin.createLink(CreateLinkRequest(domain: "links.example.net", slug: "on-net", destination: "https://example.com/net"),
                                                  app: try #require(try await admin.store.app(id: a.app.id)), environment: .live)
            #expect(try await Self.desktopClick(client, host: "links.example.net", slug: onIt.slug).status == .found)

            // The rival's proof, published too, no longer wins it anything.
            dns.publish(rivalProof.dnsName, [rivalProof.dnsValue])
            let late = try await client.execute(uri: "/v1/domains/links.example.net/verify", method: .post, headers: headers(key: b.key(.secret, .live)))
            #expect(late.status == .conflict && late.error?.code == .domainTaken)
            #expect(try await admin.store.app(id: b.app.id)?.domains == ["other.test"])

            // Dropping it stops its links; the last domain of an app stays.
            let dropped = try await client.execute(uri: "/v1/domains/links.example.net", method: .delete, headers: headers(key: secret))
            #expect(dropped.status == .noContent)
            #expect(try await Self.desktopClick(client, host: "links.example.net", slug: onIt.slug).status == .gone)
            let last = try await client.execute(uri: "/v1/domains/other.test", method: .delete, headers: headers(key: b.key(.secret, .live)))
            #expect(last.status == .conflict && last.error?.code == .lastDomain)
            #expect(dns.questions >= 3)
        }
    }

    @Test func theOperatorMayKeepDomainsToItself() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        var configuration = Fixture.configuration
        try configuration.apply(environment: ["FERRY_DOMAIN_SELF_SERVICE": "off"])
        #expect(configuration.domainSelfService == .off)
        #expect(throws: ConfigurationError.self) { try configuration.apply(environment: ["FERRY_DOMAIN_SELF_SERVICE": "open"]) }
        try await fixture.application(configuration).testLive { client in
            let asked = try await client.execute(uri: "/v1/domains", method: .post, headers: headers(key: fixture.secret, json: true),
                                                 body: jsonBody(AddDomainRequest(domain: "links.example.net")))
            #expect(asked.status == .forbidden && asked.error?.code == .domainSelfServiceOff)
            let list = try await client.execute(uri: "/v1/domains", method: .get, headers: headers(key: fixture.secret))
            #expect(try list.decode(DomainListResponse.self).selfService == false)
            let (cookie, _) = try #require(try await DashboardTests.signIn(client, key: fixture.secret))
            let settings = try await client.execute(uri: "/dashboard/settings", method: .get, headers: headers(extra: [(.cookie, "ferry_session=\(cookie)")]))
            #expect(settings.text.contains("ferry app update --add-domain") && !settings.text.contains("action=\"/dashboard/domains\""))
        }
        // The operator's command still adds domains.
        _ = try await fixture.admin.updateApp(id: fixture.app.id) { $0.domains.append("links.example.net") }
        #expect(try await fixture.store.app(id: fixture.app.id)?.domains.contains("links.example.net") == true)
    }
}
#endif
