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

/// Proving control of a link domain with a file on its web server, read over real sockets from a web server on this
/// machine: `hooks.test` resolves to 127.0.0.1, and the server's certificate for it comes from the test authority.
extension TenancyTests {
    /// Reads proof files the way a server in service does, but from this machine: `hooks.test` resolves to
    /// 127.0.0.1 at every read, the test authority is trusted, and TXT records are asked of `dns` (which has none).
    static func readingProofFiles(dns: TestDNSServer, allowPrivate: Bool = true, deadline: Duration = .seconds(10)) throws
        -> (inout FerryConfiguration) -> Void {
        let authority = try WebhookTestReceiver.testCA()
        return { configuration in
            let loopback = [IPAddress("127.0.0.1")!]
            configuration.dnsServer = dns.address
            configuration.webhookAllowPrivateDestinations = allowPrivate
            configuration.webhookDelivery.resolver = ScriptedResolver(["hooks.test": loopback], later: loopback)
            configuration.webhookDelivery.trustRoots = .certificates([authority])
            configuration.webhookDelivery.deadline = deadline
        }
    }

    /// Asks for `domain` with `key` and answers with its proof.
    static func claim(_ client: some TestClientProtocol, _ domain: String, key: String) async throws -> DomainVerification {
        let asked = try await client.execute(uri: "/v1/domains", method: .post, headers: headers(key: key, json: true),
                                             body: jsonBody(AddDomainRequest(domain: domain)))
        return try #require(try asked.decode(DomainResponse.self).verification, "\(asked.text)")
    }

    static func verify(_ client: some TestClientProtocol, _ domain: String, key: String) async throws -> TestResponse {
        try await client.execute(uri: "/v1/domains/\(domain)/verify", method: .post, headers: headers(key: key))
    }

    @Test(arguments: TenancyTests.backends)
    func aDomainIsProvedByAFileOnItsWebServer(backend: String) async throws {
        let dns = try await TestDNSServer.start()
        defer { Task { await dns.stop() } }
        let site = try await WebhookTestReceiver.start(.answer(404), tls: try WebhookTestReceiver.serverTLS())
        let elsewhere = try await WebhookTestReceiver.start(.answer(200), tls: try WebhookTestReceiver.serverTLS())
        // A domain with a port is proved by a file on that port.
        let domain = "hooks.test:\(site.port)"
        try await Self.withTenants(backend, configure: try Self.readingProofFiles(dns: dns)) { client, admin, a, b in
            let secret = a.key(.secret, .live)
            let proof = try await Self.claim(client, domain, key: secret)
            let rivalProof = try await Self.claim(client, domain, key: b.key(.secret, .live))
            #expect(proof.httpURL == "https://\(domain)/.well-known/ferry-verification.txt" && proof.httpBody == proof.dnsValue)

            // Ferry never serves the file itself, on a pending domain or an active one.
            for host in [domain, "go.example.com"] {
                let served = try await client.execute(uri: "/.well-known/ferry-verification.txt", method: .get, headers: headers(host: host))
                #expect(served.status == .notFound && !served.text.contains("ferry-verification="), "\(host): \(served.status)")
            }

            // No file: both proofs are reported missing.
            let missing = try await Self.verify(client, domain, key: secret)
            #expect((try? missing.decode(DomainResponse.self))?.status == .pending, "\(missing.text)")
            #expect(missing.text.contains("DNS: _ferry-challenge.hooks.test has no TXT record"), "\(missing.text)")
            #expect(missing.text.contains("HTTP: \(proof.httpURL) answered 404"), "\(missing.text)")

            // Another app's token proves nothing for this one.
            site.answer(200, body: rivalProof.httpBody + "\n")
            let wrong = try await Self.verify(client, domain, key: secret)
            #expect((try? wrong.decode(DomainResponse.self))?.status == .pending)
            #expect(wrong.text.contains("HTTP: \(proof.httpURL) has no line \(proof.httpBody)"), "\(wrong.text)")

            // A redirect, even to where the right file is, is not followed.
            elsewhere.answer(200, body: proof.httpBody)
            site.answer(301, location: "https://hooks.test:\(elsewhere.port)/.well-known/ferry-verification.txt")
            let redirected = try await Self.verify(client, domain, key: secret)
            #expect((try? redirected.decode(DomainResponse.self))?.status == .pending)
            #expect(redirected.text.contains("answered 301, a redirect, which is not followed"), "\(redirected.text)")
            #expect(elsewhere.requests.isEmpty)

            // Only the first 4 KiB of the body are read: a proof after them is not seen, and neither is one in the
            // line they end in the middle of.
            site.answer(200, body: String(repeating: "#\n", count: 3000) + proof.httpBody + "\n")
            let late = try await Self.verify(client, domain, key: secret)
            #expect((try? late.decode(DomainResponse.self))?.status == .pending && late.text.contains("has no line \(proof.httpBody) in its first 4096 bytes"), "\(late.text)")
            let padding = String(repeating: "#", count: 4096 - proof.httpBody.utf8.count - 1) + "\n"
            site.answer(200, body: padding + proof.httpBody + "-and-more\n")
            let cut = try await Self.verify(client, domain, key: secret)
            #expect((try? cut.decode(DomainResponse.self))?.status == .pending && cut.text.contains("in its first 4096 bytes"), "\(cut.text)")

            // Nothing is served on it while it waits.
            let link = try #require(a.links[.live])
            #expect(try await Self.desktopClick(client, host: domain, slug: link.slug).status == .notFound)
            #expect(try await admin.store.app(id: a.app.id)?.domains == ["go.example.com"])

            // The proof on a line of its own, among others, with spaces and CRLF line ends, proves control.
            site.answer(200, body: "# verification for other services\r\nother-verification=abc\r\n  \(proof.httpBody) \r\n")
            let verified = try await Self.verify(client, domain, key: secret)
            #expect(verified.status == .ok && (try? verified.decode(DomainResponse.self).status) == .active, "\(verified.text)")
            #expect(try await admin.store.app(id: a.app.id)?.domains == ["go.example.com", domain])
            let onIt = try await admin.createLink(CreateLinkRequest(domain: domain, slug: "on-hooks", destination: "https://example.com/hooks"),
                                                  app: try #require(try await admin.store.app(id: a.app.id)), environment: .live)
            #expect(try await Self.desktopClick(client, host: domain, slug: onIt.slug).status == .found)

            // The rival's proof, served too, no longer wins it anything.
            site.answer(200, body: proof.httpBody + "\n" + rivalProof.httpBody + "\n")
            let taken = try await Self.verify(client, domain, key: b.key(.secret, .live))
            #expect(taken.status == .conflict && taken.error?.code == .domainTaken, "\(taken.text)")
            #expect(try await admin.store.app(id: b.app.id)?.domains == ["other.test"])
        }
        // Each check was one plain GET of the file, naming the domain in Host.
        let requests = site.requests
        #expect(requests.count == 7)
        for request in requests {
            #expect(request.head.method == .GET && request.head.uri == "/.well-known/ferry-verification.txt" && request.body.isEmpty)
            #expect(request.head.headers["Host"] == [domain] && request.head.headers["User-Agent"] == ["Ferry-Verification/1"])
        }
        await site.stop()
        await elsewhere.stop()
    }

    /// Claims `hooks.test` on `site`'s port for A, with the file serving A's proof when `servingProof`, and checks it
    /// once on a server reading proof files with these settings: the check must fail, leaving A's domains as they
    /// were, and `expect` judges what it says.
    static func failingCheck(_ site: WebhookTestReceiver, servingProof: Bool = false, allowPrivate: Bool = true, deadline: Duration = .seconds(10),
                             _ expect: @escaping @Sendable (_ proof: DomainVerification, _ answer: TestResponse) -> Void) async throws {
        let dns = try await TestDNSServer.start()
        defer { Task { await dns.stop() } }
        let domain = "hooks.test:\(site.port)"
        try await withTenants("sqlite", configure: try readingProofFiles(dns: dns, allowPrivate: allowPrivate, deadline: deadline)) { client, admin, a, _ in
            let proof = try await claim(client, domain, key: a.key(.secret, .live))
            if servingProof { site.answer(200, body: proof.httpBody) }
            let answer = try await verify(client, domain, key: a.key(.secret, .live))
            #expect((try? answer.decode(DomainResponse.self))?.status == .pending, "\(answer.text)")
            #expect(try await admin.store.app(id: a.app.id)?.domains == ["go.example.com"])
            expect(proof, answer)
        }
    }

    /// With internal destinations refused, a domain that resolves to this machine gets no request, whatever its file
    /// would say.
    @Test(.timeLimit(.minutes(10))) func aProofFileOnAnInternalAddressIsNotRead() async throws {
        let site = try await WebhookTestReceiver.start(.answer(200), tls: try WebhookTestReceiver.serverTLS())
        try await Self.failingCheck(site, servingProof: true, allowPrivate: false) { proof, answer in
            #expect(answer.text.contains("HTTP: \(proof.httpURL) could not be read (127.0.0.1 is not a public address"), "\(answer.text)")
        }
        #expect(site.log.withLock { $0.mostOpen } == 0, "no connection was made")
        await site.stop()
    }

    /// A web server that never finishes its answer is given up at the deadline, and the check says so.
    @Test(.timeLimit(.minutes(10))) func aProofFileThatNeverArrivesIsGivenUpAtTheDeadline() async throws {
        let site = try await WebhookTestReceiver.start(.trickle, tls: try WebhookTestReceiver.serverTLS())
        // Long enough for connecting and TLS on a machine the whole suite keeps busy; the answer never comes.
        try await Self.failingCheck(site, deadline: .seconds(4)) { proof, answer in
            #expect(answer.text.contains("HTTP: \(proof.httpURL) could not be read (no answer within 4"), "\(answer.text)")
        }
        #expect(try await WebhookDeliveryTests.eventually { site.log.withLock { $0.ended } == 1 }, "Ferry closed the connection")
        await site.stop()
    }

    /// A file without end is read to its cap and the connection closed: the check ends long before its deadline,
    /// while the web server still has nearly all of its 64 MiB to send.
    @Test(.timeLimit(.minutes(10))) func anEndlessProofFileIsCutAtItsCap() async throws {
        let site = try await WebhookTestReceiver.start(.endlessBody, tls: try WebhookTestReceiver.serverTLS())
        // A deadline far beyond how long the test waits: only the cap can end this read in time.
        try await Self.failingCheck(site, deadline: .seconds(60)) { proof, answer in
            #expect(answer.text.contains("HTTP: \(proof.httpURL) has no line \(proof.httpBody) in its first 4096 bytes"), "\(answer.text)")
        }
        #expect(try await WebhookDeliveryTests.eventually { site.log.withLock { $0.ended } == 1 }, "Ferry closed the connection")
        #expect(site.log.withLock { !$0.sentWholeBody }, "the body was cut, not read to its end")
        await site.stop()
    }
}
#endif
