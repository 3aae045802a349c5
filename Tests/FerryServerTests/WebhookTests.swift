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
import Synchronization
import Testing

/// A receiver of webhooks on a real port: it keeps what it got and answers 500 to the first `failures` requests.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        var headers: HTTPFields
        var body: Data
    }

    let failures: Int
    let received = Mutex<[Received]>([])

    init(failures: Int) { self.failures = failures }

    func application() -> some ApplicationProtocol {
        let router = Router()
        router.post("/hooks") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let count = self.received.withLock { received in
                received.append(Received(headers: request.headers, body: Data(buffer: body)))
                return received.count
            }
            return Response(status: count <= self.failures ? .internalServerError : .ok)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }
}

@Suite("Webhooks", .takesTurns)
struct WebhookTests {
    static var configuration: FerryConfiguration {
        var configuration = Fixture.configuration
        configuration.webhookPollInterval = .milliseconds(50)
        configuration.webhookRetryBase = 0.2
        // The receiver runs on this machine.
        configuration.webhookAllowPrivateDestinations = true
        return configuration
    }

    @Test func clicksAndInstallsArePostedSignedAndRetriedUntilAccepted() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        let receiver = WebhookReceiver(failures: 2)
        try await receiver.application().test(.live) { hooks in
            let port = try #require(hooks.port)
            try await fixture.application(Self.configuration).testLive { client in
                let created = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                                       body: jsonBody(CreateWebhookRequest(url: "http://127.0.0.1:\(port)/hooks")))
                #expect(created.status == .created)
                let webhook = try created.decode(WebhookResponse.self)
                let secret = try #require(webhook.secret)
                #expect(secret.hasPrefix("whsec_"))
                #expect(webhook.events == [.linkClicked, .installAttributed])
                let listed = try await client.execute(uri: "/v1/webhooks", method: .get, headers: headers(key: fixture.secret)).decode(WebhookListResponse.self)
                #expect(listed.data.map(\.id) == [webhook.id] && listed.data[0].secret == nil, "the secret is shown once")

                let clickID = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.10")
                let match = try await client.execute(
                    uri: "/v1/attribution/match", method: .post, headers: headers(key: fixture.publishable, json: true),
                    body: jsonBody(MatchRequest(installID: "IDFV-1", signals: iPhoneSignals, clickToken: "ferry:\(clickID)")))
                #expect(try match.decode(MatchResponse.self).matched, "\(match.text)")

                // Two 500s, then accepted: each event arrives (at least) once successfully, after retries.
                var done = false
                for _ in 0..<200 where !done {
                    let deliveries = try await fixture.store.deliveries(webhookID: webhook.id, appID: fixture.app.id, limit: 10)
                    done = deliveries.count == 2 && deliveries.allSatisfy { $0.deliveredAt != nil }
                    if !done { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(done, "both deliveries were accepted in the end")
                let deliveries = try await client.execute(uri: "/v1/webhooks/\(webhook.id)/deliveries", method: .get, headers: headers(key: fixture.secret))
                    .decode(WebhookDeliveryListResponse.self)
                #expect(deliveries.data.map(\.attempts).reduce(0, +) == 4, "two failures and two successes")
                #expect(deliveries.data.allSatisfy { $0.lastStatus == 200 && $0.nextAttemptAt == nil })

                let received = receiver.received.withLock { $0 }
                #expect(received.count == 4)
                var events: [WebhookEventType: WebhookPayload] = [:]
                for request in received {
                    let header = try #require(request.headers[HTTPField.Name("Ferry-Signature")!])
                    let parts = Dictionary(uniqueKeysWithValues: header.split(separator: ",").compactMap { part -> (String, String)? in
                        let pair = part.split(separator: "=", maxSplits: 1)
                        return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
                    })
                    let timestamp = try #require(parts["t"].flatMap { Int($0) })
                    #expect(parts["v1"] == WebhookSignature.signature(secret: secret, timestamp: timestamp, body: request.body), "signed with the secret")
                    #expect(abs(Double(timestamp) - Date().timeIntervalSince1970) < 300)
                    #expect(request.headers[.contentType] == "application/json")
                    let payload = try FerryJSON.makeDecoder().decode(WebhookPayload.self, from: request.body)
                    #expect(request.headers[HTTPField.Name("Ferry-Event")!] == payload.type.rawValue)
                    if let earlier = events[payload.type] { #expect(earlier == payload, "a retry sends the same event") }
                    events[payload.type] = payload
                }
                #expect(events[.linkClicked]?.data.clickID == clickID)
                #expect(events[.linkClicked]?.data.linkID == link.id)
                #expect(events[.linkClicked]?.data.platform == "ios")
                #expect(events[.installAttributed]?.data.installID == "IDFV-1")
                #expect(events[.installAttributed]?.data.matchType == .deterministic)
                #expect(events[.installAttributed]?.environment == .live)

                // A wrong secret does not verify.
                #expect(WebhookSignature.signature(secret: "whsec_other", timestamp: 1, body: Data("{}".utf8))
                        != WebhookSignature.signature(secret: secret, timestamp: 1, body: Data("{}".utf8)))
            }
        }
    }

    @Test func webhooksAreTheKeysAppsAndRefuseBadInputByName() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            for (body, field) in [(#"{"url": "javascript:alert(1)"}"#, "url"), (#"{"url": "ftp://example.com/x"}"#, "url"),
                                  (#"{"url": "https://user:pw@example.com/"}"#, "url"), (#"{"url": "https://example.com/#x"}"#, "url"),
                                  (#"{"url": "https://example.com/", "events": []}"#, "events"),
                                  (#"{"url": "https://example.com/", "events": ["link.deleted"]}"#, "events"), (#"{"events": []}"#, "url")] {
                let response = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true), body: jsonBody(body))
                #expect(response.status == .badRequest, "\(body)")
                #expect(response.error?.field?.hasPrefix(field) == true, "\(body): \(response.text)")
            }
            let created = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                                   body: jsonBody(#"{"url": "https://hooks.example.com/ferry", "events": ["install.attributed"]}"#))
            let webhook = try created.decode(WebhookResponse.self)
            #expect(webhook.events == [.installAttributed])
            // Other apps, the test environment and publishable keys see nothing of it and cannot delete it.
            let foreign = try await client.execute(uri: "/v1/webhooks", method: .get, headers: headers(key: fixture.otherSecret)).decode(WebhookListResponse.self)
            #expect(foreign.data.isEmpty)
            let test = try await client.execute(uri: "/v1/webhooks", method: .get, headers: headers(key: fixture.testSecret)).decode(WebhookListResponse.self)
            #expect(test.data.isEmpty)
            #expect(try await client.execute(uri: "/v1/webhooks/\(webhook.id)", method: .delete, headers: headers(key: fixture.otherSecret)).status == .notFound)
            #expect(try await client.execute(uri: "/v1/webhooks/\(webhook.id)/deliveries", method: .get, headers: headers(key: fixture.otherSecret)).status == .notFound)
            #expect(try await client.execute(uri: "/v1/webhooks", method: .get, headers: headers(key: fixture.publishable)).status == .forbidden)
            #expect(try await client.execute(uri: "/v1/webhooks/\(webhook.id)", method: .delete, headers: headers(key: fixture.secret)).status == .noContent)
            #expect(try await client.execute(uri: "/v1/webhooks/\(webhook.id)", method: .delete, headers: headers(key: fixture.secret)).status == .notFound)
            for index in 0..<WebhookRules.maxPerApp {
                let response = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(#"{"url": "https://hooks.example.com/\#(index)"}"#))
                #expect(response.status == .created)
            }
            let tooMany = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                                   body: jsonBody(#"{"url": "https://hooks.example.com/more"}"#))
            #expect(tooMany.status == .conflict && tooMany.error?.code == .tooManyWebhooks)
        }
    }

    /// An app's owner cannot make the server call into its own network: internal destinations are refused when the
    /// webhook is made, in every form a resolver reads as an address, and again at delivery; a receiver is named by
    /// its host name, never by an address.
    @Test func webhooksToInternalAddressesAreRefused() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        try await fixture.application().test(.router) { client in
            let inside = [
                "http://127.0.0.1:8080/hooks", "http://localhost/hooks", "http://LocalHost/hooks", "http://api.localhost/hooks",
                "http://[::1]/hooks", "http://[::ffff:127.0.0.1]/hooks", "http://169.254.169.254/latest/meta-data/", "http://10.1.2.3/",
                "http://172.16.0.1/", "http://192.168.1.1/", "http://100.64.0.1/", "http://0.0.0.0/", "http://[fd00::1]/", "http://[fe80::1]/",
                "http://127.1/", "http://2130706433/", "http://0x7f000001/", "https://[64:ff9b::a9fe:a9fe]/",
            ]
            for url in inside {
                let response = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(CreateWebhookRequest(url: url)))
                #expect(response.status == .badRequest, "\(url)")
                #expect(response.error?.field == "url" && response.error?.message.contains("public addresses") == true, "\(url): \(response.text)")
            }
            // A public address is refused too: a receiver is named by its host name.
            for url in ["https://93.184.216.34/hooks", "https://[2606:2800:220:1:248:1893:25c8:1946]/", "https://0x5db8d822/", "https://hooks.1b/"] {
                let response = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(CreateWebhookRequest(url: url)))
                #expect(response.status == .badRequest, "\(url)")
                #expect(response.error?.field == "url" && response.error?.message.contains("IP addresses are refused") == true, "\(url): \(response.text)")
            }
            for url in ["https://hooks.example.com/ferry", "https://hooks.example.com:8443/ferry?app=1", "http://x1.example/"] {
                let response = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                                        body: jsonBody(CreateWebhookRequest(url: url)))
                #expect(response.status == .created, "\(url): \(response.text)")
            }
            #expect(try await fixture.store.webhooks(appID: fixture.app.id, environment: .live).count == 3)
        }
    }

    @Test func aDeliveryToAnInternalAddressFailsWithoutBeingSent() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        _ = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        let receiver = WebhookReceiver(failures: 0)
        try await receiver.application().test(.live) { hooks in
            let port = try #require(hooks.port)
            // Stored as an older server, or one that allowed internal receivers, would have kept it.
            let webhook = Webhook(id: "wh_internal", appID: fixture.app.id, environment: .live, url: "http://127.0.0.1:\(port)/hooks",
                                  secret: "whsec_test", events: [.linkClicked], createdAt: Date())
            try await fixture.store.createWebhook(webhook)
            var configuration = Self.configuration
            configuration.webhookAllowPrivateDestinations = false
            try await fixture.application(configuration).testLive { client in
                _ = try await clickOnIPhone(client, slug: "promo", address: "203.0.113.10")
                var failed: [WebhookDeliveryResponse] = []
                for _ in 0..<200 where failed.isEmpty {
                    let listed = try await client.execute(uri: "/v1/webhooks/wh_internal/deliveries", method: .get, headers: headers(key: fixture.secret))
                        .decode(WebhookDeliveryListResponse.self)
                    failed = listed.data.filter { $0.attempts > 0 }
                    if failed.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(failed.first?.lastError?.contains("not a public address") == true, "\(failed)")
                #expect(failed.first?.deliveredAt == nil)
                #expect(receiver.received.withLock { $0.isEmpty }, "nothing reached the internal receiver")
            }
        }
    }

    @Test func retriesWaitLongerEachTimeAndStopAfterEightAttempts() {
        let delays = (1...8).map { WebhookRules.retryDelay(afterAttempts: $0, base: 10) }
        #expect(delays.prefix(4) == [10, 30, 90, 270])
        #expect(delays[7] == nil)
        #expect(WebhookRules.retryDelay(afterAttempts: 7, base: 10_000) == 21_600.0)
    }
}
#endif
