import Crypto
import FerryAPI
import FerryCore
import FerryStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import ServiceLifecycle
import Synchronization

/// Turns stored clicks and answered installs into queued webhook deliveries. Which webhooks an app has is cached
/// for two seconds, so the click recorder's batches do not ask the database each time.
public final class WebhookOutbox: Sendable {
    let store: any FerryDatabase
    let now: @Sendable () -> Date
    let logger: Logger
    /// Whether webhooks may point at loopback, private and link-local addresses (`FERRY_WEBHOOK_ALLOW_PRIVATE`).
    let allowPrivateDestinations: Bool
    private let cache = Mutex<[String: (webhooks: [Webhook], until: ContinuousClock.Instant)]>([:])

    /// Creates an outbox.
    public init(store: any FerryDatabase, now: @escaping @Sendable () -> Date, logger: Logger, allowPrivateDestinations: Bool = false) {
        self.store = store
        self.now = now
        self.logger = logger
        self.allowPrivateDestinations = allowPrivateDestinations
    }

    /// Validates and stores a new webhook for an app's environment (its secret made here); throws the rules'
    /// `ValidationError`, with the code `too_many_webhooks` when the app has ``WebhookRules/maxPerApp`` already.
    public func addWebhook(_ request: CreateWebhookRequest, appID: String, environment: APIEnvironment) async throws -> Webhook {
        let (url, events) = try WebhookRules.validate(request, allowingPrivateDestinations: allowPrivateDestinations)
        guard try await store.webhooks(appID: appID, environment: environment).count < WebhookRules.maxPerApp else {
            throw ValidationError(code: "too_many_webhooks", field: nil, "an app has at most \(WebhookRules.maxPerApp) webhooks per environment")
        }
        var generator = SystemRandomNumberGenerator()
        let webhook = Webhook(id: Identifiers.make(prefix: "wh", using: &generator), appID: appID, environment: environment, url: url,
                              secret: "whsec_" + Identifiers.apiKeySecret(using: &generator), events: events, createdAt: now())
        try await store.createWebhook(webhook)
        forget(appID: appID)
        return webhook
    }

    /// Removes a webhook of an app's environment; false when there is none.
    public func removeWebhook(id: String, appID: String, environment: APIEnvironment) async throws -> Bool {
        guard id.utf8.count <= 64, try await store.deleteWebhook(id: id, appID: appID, environment: environment) else { return false }
        forget(appID: appID)
        return true
    }

    /// Forgets cached webhooks of an app (after one was added or removed here).
    public func forget(appID: String) {
        cache.withLock { cache in cache = cache.filter { !$0.key.hasPrefix(appID + "/") } }
    }

    func webhooks(appID: String, environment: APIEnvironment, event: WebhookEventType) async throws -> [Webhook] {
        let key = "\(appID)/\(environment.rawValue)"
        if let cached = cache.withLock({ $0[key] }), ContinuousClock.now < cached.until {
            return cached.webhooks.filter { $0.events.contains(event) }
        }
        let webhooks = try await store.webhooks(appID: appID, environment: environment)
        cache.withLock { $0[key] = (webhooks, .now + .seconds(2)) }
        return webhooks.filter { $0.events.contains(event) }
    }

    /// Queues `link.clicked` for the clicks of apps that want it. The event id is made from the click id, so a
    /// receiver can tell a repeat from a new click.
    public func clicksStored(_ clicks: [Click]) async {
        let groups = Dictionary(grouping: clicks) { "\($0.appID)/\($0.environment.rawValue)" }
        for group in groups.values {
            guard let first = group.first else { continue }
            do {
                let webhooks = try await webhooks(appID: first.appID, environment: first.environment, event: .linkClicked)
                guard !webhooks.isEmpty else { continue }
                var deliveries: [WebhookDelivery] = []
                for click in group {
                    let payload = WebhookRules.payload(
                        id: "evt_" + click.id.dropFirst(4), type: .linkClicked, at: click.createdAt, environment: click.environment,
                        data: WebhookEventData(linkID: click.linkID, clickID: click.id, platform: click.platform.rawValue,
                                               referrer: click.referer.map { StatsRollup.referrerHost($0) }))
                    for webhook in webhooks { deliveries.append(delivery(webhook, .linkClicked, payload)) }
                }
                try await store.enqueueDeliveries(deliveries)
            } catch {
                logger.error("webhook deliveries not queued", metadata: ["event": "link.clicked", "error": "\(error)"])
            }
        }
    }

    /// Queues `install.attributed` for a matched install.
    public func installAttributed(_ record: AttributionRecord) async {
        guard let matchType = record.matchType else { return }
        do {
            let webhooks = try await webhooks(appID: record.appID, environment: record.environment, event: .installAttributed)
            guard !webhooks.isEmpty else { return }
            var generator = SystemRandomNumberGenerator()
            let payload = WebhookRules.payload(
                id: Identifiers.make(prefix: "evt", using: &generator), type: .installAttributed, at: record.createdAt, environment: record.environment,
                data: WebhookEventData(linkID: record.linkID, clickID: record.clickID, installID: record.installID, matchType: matchType,
                                       confidence: record.confidence))
            try await store.enqueueDeliveries(webhooks.map { delivery($0, .installAttributed, payload) })
        } catch {
            logger.error("webhook deliveries not queued", metadata: ["event": "install.attributed", "error": "\(error)"])
        }
    }

    func delivery(_ webhook: Webhook, _ event: WebhookEventType, _ payload: String) -> WebhookDelivery {
        var generator = SystemRandomNumberGenerator()
        let time = now()
        return WebhookDelivery(id: Identifiers.make(prefix: "dlv", using: &generator), webhookID: webhook.id, appID: webhook.appID, event: event,
                               payload: payload, nextAttemptAt: time, createdAt: time)
    }
}

/// Sends queued deliveries: signed `POST`s, retried with growing delays (``WebhookRules/retryDelay(afterAttempts:base:)``)
/// until a 2xx answer or eight attempts. Every node runs one; a delivery is claimed by one node at a time.
public struct WebhookDispatcher: Service {
    let store: any FerryDatabase
    let pollInterval: Duration
    let retryBase: Double
    let timeout: Double
    let now: @Sendable () -> Date
    let logger: Logger
    /// Whether deliveries may go to loopback, private and link-local addresses; when not, a webhook's host is
    /// resolved before each attempt and the attempt fails if any of its addresses is internal.
    let allowPrivateDestinations: Bool

    /// Deliveries taken per round.
    static let batch = 32
    /// How long a taken delivery is left to this node before another may take it.
    static let lease = 120.0

    /// Creates a dispatcher.
    public init(store: any FerryDatabase, pollInterval: Duration, retryBase: Double, timeout: Double = 10, now: @escaping @Sendable () -> Date,
                logger: Logger, allowPrivateDestinations: Bool = false) {
        self.allowPrivateDestinations = allowPrivateDestinations
        self.store = store
        self.pollInterval = pollInterval
        self.retryBase = retryBase
        self.timeout = timeout
        self.now = now
        self.logger = logger
    }

    public func run() async throws {
        // The session is made when the first delivery is due: a node whose apps have no webhooks never makes one.
        var session: URLSession?
        defer { session?.finishTasksAndInvalidate() }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var claimed: [ClaimedDelivery] = []
            do {
                claimed = try await store.claimDeliveries(now: now(), lease: Self.lease, limit: Self.batch)
            } catch {
                logger.warning("cannot read webhook deliveries", metadata: ["error": "\(error)"])
            }
            if !claimed.isEmpty {
                let sender = session ?? makeSession()
                session = sender
                await withTaskGroup(of: Void.self) { group in
                    for item in claimed { group.addTask { await self.attempt(item, session: sender) } }
                }
            }
            if claimed.count < Self.batch {
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.pollInterval) }
            }
        }
    }

    /// An ephemeral session that keeps no cookies or cache and follows no redirects.
    func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return URLSession(configuration: configuration, delegate: RefuseRedirects(), delegateQueue: nil)
    }

    /// One attempt: POST, then record what came of it.
    func attempt(_ item: ClaimedDelivery, session: URLSession) async {
        let delivery = item.delivery
        var status: Int?
        var failure: String?
        let url = URL(string: item.webhook.url)
        if let url { failure = await destinationRefusal(url) } else { failure = "not a URL" }
        if failure == nil, let url {
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            let body = Data(delivery.payload.utf8)
            let timestamp = Int(now().timeIntervalSince1970)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("Ferry-Webhooks/1", forHTTPHeaderField: "User-Agent")
            request.setValue(delivery.event.rawValue, forHTTPHeaderField: "Ferry-Event")
            request.setValue(delivery.id, forHTTPHeaderField: "Ferry-Delivery")
            request.setValue(WebhookSignature.header(secret: item.webhook.secret, timestamp: timestamp, body: body), forHTTPHeaderField: "Ferry-Signature")
            do {
                let (_, response) = try await session.upload(for: request, from: body)
                status = (response as? HTTPURLResponse)?.statusCode
                if let status, !(200..<300).contains(status) { failure = "answered \(status)" }
            } catch {
                failure = String(describing: error).prefix(500).description
            }
        }
        let time = now()
        let attempts = delivery.attempts + 1
        do {
            if failure == nil {
                try await store.recordAttempt(deliveryID: delivery.id, status: status, error: nil, deliveredAt: time, nextAttemptAt: nil, failedAt: nil)
            } else if let delay = WebhookRules.retryDelay(afterAttempts: attempts, base: retryBase) {
                try await store.recordAttempt(deliveryID: delivery.id, status: status, error: failure, deliveredAt: nil,
                                              nextAttemptAt: time.addingTimeInterval(delay), failedAt: nil)
            } else {
                logger.warning("webhook delivery given up", metadata: ["delivery": "\(delivery.id)", "error": "\(failure ?? "")"])
                try await store.recordAttempt(deliveryID: delivery.id, status: status, error: failure, deliveredAt: nil, nextAttemptAt: nil, failedAt: time)
            }
        } catch {
            logger.warning("webhook attempt not recorded", metadata: ["delivery": "\(delivery.id)", "error": "\(error)"])
        }
    }
}

extension WebhookDispatcher {
    /// Why a delivery may not go to `url` now (its host is, or resolves to, an internal address), or nil. The name is
    /// resolved on a thread of its own: a lookup blocks. The connection resolves it again, so a name whose answers
    /// change between the two (DNS rebinding) is not fully covered; refusing internal literals and checking names
    /// stops the plain cases.
    func destinationRefusal(_ url: URL) async -> String? {
        guard !allowPrivateDestinations else { return nil }
        if let refusal = WebhookRules.destinationRefusal(url: url.absoluteString) { return refusal }
        guard let host = url.host else { return nil }
        let addresses = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: NumericHost.resolve(host)) }.start()
        }
        return WebhookRules.refusal(addresses: addresses)
    }
}

/// `Ferry-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the webhook's secret>`.
/// Receivers recompute it, compare in constant time, and refuse timestamps older than a few minutes.
public enum WebhookSignature {
    /// The header value for a body sent at `timestamp`.
    public static func header(secret: String, timestamp: Int, body: Data) -> String {
        "t=\(timestamp),v1=\(signature(secret: secret, timestamp: timestamp, body: body))"
    }

    /// The hex signature alone.
    public static func signature(secret: String, timestamp: Int, body: Data) -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }
}

/// Answers a redirect with the redirect itself: a delivery goes where it was configured to go or fails.
final class RefuseRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
                    completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
