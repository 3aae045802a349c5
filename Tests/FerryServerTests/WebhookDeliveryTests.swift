#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOSSL
import Testing

/// How deliveries reach receivers that misbehave, over real sockets: the address that was checked is the one
/// connected to, and no answer — empty, endless, never finished, or from a receiver that hangs — costs more than
/// its own attempt.
@Suite("Webhook delivery", .takesTurns)
struct WebhookDeliveryTests {
    /// One attempt per delivery within a test (a failed one is retried an hour later), the receivers on this machine.
    static func configuration(_ change: (inout WebhookDeliverySettings) -> Void = { _ in }) -> FerryConfiguration {
        var configuration = Fixture.configuration
        configuration.webhookPollInterval = .milliseconds(50)
        configuration.webhookRetryBase = 3600
        configuration.webhookAllowPrivateDestinations = true
        configuration.webhookDelivery.deadline = .seconds(2)
        change(&configuration.webhookDelivery)
        return configuration
    }

    /// Stores a webhook of `appID` that posts to `url`, and queues `count` deliveries to it.
    @discardableResult
    static func queue(_ fixture: Fixture, appID: String, webhookID: String, url: String, count: Int = 1) async throws -> [String] {
        if try await fixture.store.webhooks(appID: appID, environment: .live).allSatisfy({ $0.id != webhookID }) {
            try await fixture.store.createWebhook(Webhook(id: webhookID, appID: appID, environment: .live, url: url, secret: "whsec_test",
                                                          events: [.linkClicked], createdAt: Date()))
        }
        let ids = (0..<count).map { "dlv_\(webhookID)_\($0)_\(UUID().uuidString.prefix(8))" }
        try await fixture.store.enqueueDeliveries(ids.map { id in
            WebhookDelivery(id: id, webhookID: webhookID, appID: appID, event: .linkClicked, payload: #"{"id":"\#(id)"}"#,
                            nextAttemptAt: Date(), createdAt: Date())
        })
        return ids
    }

    /// A webhook's deliveries once `condition` holds of them, or as they are after twenty seconds.
    static func deliveries(_ fixture: Fixture, appID: String, webhookID: String,
                           until condition: ([WebhookDelivery]) -> Bool) async throws -> [WebhookDelivery] {
        var deliveries: [WebhookDelivery] = []
        for _ in 0..<400 {
            deliveries = try await fixture.store.deliveries(webhookID: webhookID, appID: appID, limit: 50)
            if condition(deliveries) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return deliveries
    }

    /// Waits until `condition` holds, for at most twenty seconds; whether it did.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<400 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    static func attempted(_ deliveries: [WebhookDelivery]) -> Bool { !deliveries.isEmpty && deliveries.allSatisfy { $0.attempts > 0 } }

    /// Queues one delivery of the fixture's app to `url`, runs the server until it has been attempted, then runs
    /// `then` (the server still running), and answers with the delivery as the attempt left it.
    static func attemptOnce(_ fixture: Fixture, url: String, configuration: FerryConfiguration = configuration(),
                            then: @escaping @Sendable () async throws -> Void = {}) async throws -> WebhookDelivery? {
        try await queue(fixture, appID: fixture.app.id, webhookID: "wh_once", url: url)
        return try await fixture.application(configuration).test(.live) { _ in
            let delivery = try await deliveries(fixture, appID: fixture.app.id, webhookID: "wh_once", until: attempted).first
            try await then()
            return delivery
        }
    }

    /// The name is resolved once per attempt, and the connection goes to the address that answer gave (and was
    /// checked), even though asking again would give another: no second lookup happens behind the check's back.
    @Test func theConnectionGoesToTheAddressTheNameResolvedToOnce() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let receiver = try await WebhookTestReceiver.start(.answer(200))
        let port = receiver.port
        // Asked again, the name would point where nothing listens (TEST-NET-1).
        let resolver = ScriptedResolver(["hooks.test": [IPAddress("127.0.0.1")!]], later: [IPAddress("192.0.2.1")!])
        let ids = try await Self.queue(fixture, appID: fixture.app.id, webhookID: "wh_named", url: "http://hooks.test:\(port)/hooks?from=ferry")
        try await fixture.application(Self.configuration { $0.resolver = resolver }).test(.live) { _ in
            let deliveries = try await Self.deliveries(fixture, appID: fixture.app.id, webhookID: "wh_named", until: Self.attempted)
            #expect(deliveries.first?.deliveredAt != nil && deliveries.first?.lastStatus == 200, "\(deliveries)")
        }
        #expect(resolver.asked.withLock { $0 } == ["hooks.test"], "one lookup for one attempt")
        let requests = receiver.requests
        #expect(requests.count == 1)
        if let request = requests.first {
            #expect(request.head.method == .POST && request.head.uri == "/hooks?from=ferry")
            #expect(request.head.headers["Host"] == ["hooks.test:\(port)"], "the URL's host and port, not the address")
            #expect(request.head.headers["Content-Type"] == ["application/json"])
            #expect(request.head.headers["User-Agent"] == ["Ferry-Webhooks/1"])
            #expect(request.head.headers["Ferry-Event"] == ["link.clicked"])
            #expect(request.head.headers["Ferry-Delivery"] == ids)
            #expect(request.body == #"{"id":"\#(ids[0])"}"#)
            let signature = request.head.headers["Ferry-Signature"].first ?? ""
            let timestamp = Int(signature.split(separator: ",").first?.dropFirst(2) ?? "") ?? 0
            #expect(signature == WebhookSignature.header(secret: "whsec_test", timestamp: timestamp, body: Data(request.body.utf8)))
        }
        await receiver.stop()
    }

    /// With internal destinations refused, one internal address among a name's answers is enough to refuse the
    /// attempt, and nothing is connected to.
    @Test func aNameWithAnInternalAddressIsRefusedWithoutConnecting() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let receiver = try await WebhookTestReceiver.start(.answer(200))
        let resolver = ScriptedResolver(["hooks.test": [IPAddress("203.0.113.9")!, IPAddress("127.0.0.1")!]])
        try await Self.queue(fixture, appID: fixture.app.id, webhookID: "wh_inside", url: "http://hooks.test:\(receiver.port)/hooks")
        var configuration = Self.configuration { $0.resolver = resolver }
        configuration.webhookAllowPrivateDestinations = false
        try await fixture.application(configuration).test(.live) { _ in
            let deliveries = try await Self.deliveries(fixture, appID: fixture.app.id, webhookID: "wh_inside", until: Self.attempted)
            #expect(deliveries.first?.lastError?.contains("127.0.0.1 is not a public address") == true, "\(deliveries)")
            #expect(deliveries.first?.deliveredAt == nil)
        }
        #expect(resolver.asked.withLock { $0 } == ["hooks.test"])
        #expect(receiver.log.withLock { $0.mostOpen } == 0, "no connection was made")
        await receiver.stop()
    }

    /// A receiver that takes the request and closes without a status line has not accepted it.
    @Test(.timeLimit(.minutes(10))) func anEmptyAnswerIsAFailedAttempt() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let receiver = try await WebhookTestReceiver.start(.closeWithoutAnswering)
        let delivery = try await Self.attemptOnce(fixture, url: "http://127.0.0.1:\(receiver.port)/hooks")
        #expect(delivery?.attempts == 1 && delivery?.deliveredAt == nil && delivery?.lastStatus == nil, "\(String(describing: delivery))")
        #expect(delivery?.lastError?.isEmpty == false && delivery?.nextAttemptAt != nil, "a failure, retried later")
        #expect(receiver.log.withLock { $0.mostOpen } == 1, "the receiver was reached")
        await receiver.stop()
    }

    /// A receiver that streams a body without end gets its status read and its connection closed after a few KiB:
    /// the attempt ends long before its deadline, while the receiver still has nearly all of its 64 MiB to send
    /// (socket buffers hold a few MiB at most).
    @Test(.timeLimit(.minutes(10))) func anEndlessAnswerIsCutAtTheCap() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let receiver = try await WebhookTestReceiver.start(.endlessBody)
        // A deadline far beyond how long the test waits: only the cap can end this attempt in time.
        let delivery = try await Self.attemptOnce(fixture, url: "http://127.0.0.1:\(receiver.port)/hooks",
                                                  configuration: Self.configuration { $0.deadline = .seconds(60) }) {
            let closed = try await Self.eventually { receiver.log.withLock { $0.ended } == 1 }
            #expect(closed, "Ferry closed the connection")
            // Let go, so that the server's shutdown finds no attempt to wait for.
            await receiver.stop()
        }
        #expect(delivery?.attempts == 1 && delivery?.lastStatus == 200 && delivery?.deliveredAt != nil, "\(String(describing: delivery))")
        #expect(receiver.log.withLock { !$0.sentWholeBody }, "the body was cut, not read to its end")
    }

    /// A receiver that keeps a connection busy with an answer that never ends its head — a byte now and then, so
    /// that the connection is never idle — fails at the attempt's deadline.
    @Test(.timeLimit(.minutes(10))) func anAnswerThatNeverCompletesFailsAtTheDeadline() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let receiver = try await WebhookTestReceiver.start(.trickle)
        let delivery = try await Self.attemptOnce(fixture, url: "http://127.0.0.1:\(receiver.port)/hooks",
                                                  configuration: Self.configuration { $0.deadline = .seconds(1) }) {
            let closed = try await Self.eventually { receiver.log.withLock { $0.ended } == 1 }
            #expect(closed, "Ferry closed the connection")
            await receiver.stop()
        }
        #expect(delivery?.attempts == 1 && delivery?.deliveredAt == nil && delivery?.lastStatus == nil, "\(String(describing: delivery))")
        #expect(delivery?.lastError?.contains("no answer within") == true, "\(String(describing: delivery))")
    }

    /// While every delivery of one app hangs on its receiver, another app's delivery queued after them still
    /// arrives, and the hanging app holds no more than its share of the attempts.
    @Test(.timeLimit(.minutes(10))) func aHangingReceiverDelaysOnlyItsOwnApp() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let hanging = try await WebhookTestReceiver.start(.trickle)
        let healthy = try await WebhookTestReceiver.start(.answer(200))
        try await Self.queue(fixture, appID: fixture.app.id, webhookID: "wh_hanging", url: "http://127.0.0.1:\(hanging.port)/hooks", count: 6)
        let configuration = Self.configuration { settings in
            settings.deadline = .seconds(50)
            settings.maxConcurrentAttempts = 4
            settings.maxConcurrentAttemptsPerApp = 2
        }
        try await fixture.application(configuration).test(.live) { _ in
            #expect(try await Self.eventually { hanging.log.withLock { $0.open } >= 2 }, "the first app's attempts hang")
            try await Self.queue(fixture, appID: fixture.otherApp.id, webhookID: "wh_healthy", url: "http://127.0.0.1:\(healthy.port)/hooks")
            #expect(try await Self.eventually { healthy.requests.count == 1 }, "the other app's delivery arrived")
            let log = hanging.log.withLock { $0 }
            #expect(log.open == 2 && log.ended == 0, "the first app's attempts still hang")
            #expect(log.mostOpen == 2, "an app holds at most its share of the attempts")
            await hanging.stop()
        }
        await healthy.stop()
    }

    /// Over https the receiver's certificate must come from a trusted authority and name the URL's host, though the
    /// connection goes to an address: a certificate for another name fails the attempt.
    @Test(.timeLimit(.minutes(10))) func httpsChecksTheCertificateAgainstTheURLsHost() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let receiver = try await WebhookTestReceiver.start(.answer(200), tls: try WebhookTestReceiver.serverTLS())
        let port = receiver.port
        let loopback = [IPAddress("127.0.0.1")!]
        let resolver = ScriptedResolver(["hooks.test": loopback, "other.test": loopback], later: loopback)
        try await Self.queue(fixture, appID: fixture.app.id, webhookID: "wh_tls", url: "https://hooks.test:\(port)/hooks")
        try await Self.queue(fixture, appID: fixture.app.id, webhookID: "wh_wrong_name", url: "https://other.test:\(port)/hooks")
        let authority = try WebhookTestReceiver.testCA()
        let configuration = Self.configuration { settings in
            settings.resolver = resolver
            settings.trustRoots = .certificates([authority])
            // A TLS handshake and an answer took over 2 s on a loaded two-core machine; the wrong name fails at the
            // handshake whatever the deadline.
            settings.deadline = .seconds(10)
        }
        try await fixture.application(configuration).test(.live) { _ in
            let good = try await Self.deliveries(fixture, appID: fixture.app.id, webhookID: "wh_tls", until: Self.attempted)
            #expect(good.first?.deliveredAt != nil && good.first?.lastStatus == 200, "\(good)")
            let wrong = try await Self.deliveries(fixture, appID: fixture.app.id, webhookID: "wh_wrong_name", until: Self.attempted)
            #expect(wrong.first?.attempts == 1 && wrong.first?.deliveredAt == nil && wrong.first?.lastStatus == nil, "\(wrong)")
            #expect(wrong.first?.lastError?.contains("other.test") == true, "\(wrong)")
        }
        #expect(receiver.requests.map { $0.head.headers["Host"] } == [["hooks.test:\(port)"]], "only the verified receiver got the request")
        await receiver.stop()
    }

    /// The system's authorities do not vouch for the test authority: the same receiver is refused without it.
    @Test(.timeLimit(.minutes(10))) func httpsRefusesAnAuthorityNotTrusted() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let receiver = try await WebhookTestReceiver.start(.answer(200), tls: try WebhookTestReceiver.serverTLS())
        let resolver = ScriptedResolver(["hooks.test": [IPAddress("127.0.0.1")!]])
        // As above: the refusal comes at the handshake whatever the deadline, which a loaded machine can pass first.
        let delivery = try await Self.attemptOnce(fixture, url: "https://hooks.test:\(receiver.port)/hooks", configuration: Self.configuration {
            $0.resolver = resolver
            $0.deadline = .seconds(10)
        })
        #expect(delivery?.attempts == 1 && delivery?.deliveredAt == nil, "\(String(describing: delivery))")
        #expect(delivery?.lastError == "TLS failed: CERTIFICATE_VERIFY_FAILED", "\(String(describing: delivery))")
        #expect(receiver.requests.isEmpty)
        await receiver.stop()
    }

    /// A redirect is an answer that is not a 2xx: the attempt fails and the redirect is not followed.
    @Test(.timeLimit(.minutes(10))) func redirectsAreFailedAttemptsAndNotFollowed() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let elsewhere = try await WebhookTestReceiver.start(.answer(200))
        let redirecting = try await WebhookTestReceiver.start(.answer(307, location: "http://127.0.0.1:\(elsewhere.port)/hooks"))
        let delivery = try await Self.attemptOnce(fixture, url: "http://127.0.0.1:\(redirecting.port)/hooks")
        #expect(delivery?.lastStatus == 307 && delivery?.lastError == "answered 307" && delivery?.deliveredAt == nil, "\(String(describing: delivery))")
        #expect(redirecting.requests.count == 1 && elsewhere.requests.isEmpty)
        await redirecting.stop()
        await elsewhere.stop()
    }
}
#endif
