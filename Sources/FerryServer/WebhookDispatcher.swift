#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Crypto
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Tracing

/// Turns stored clicks and answered installs into queued webhook deliveries. Which webhooks an app has is cached
/// for two seconds, so the click recorder's batches do not ask the database each time.
package final class WebhookOutbox: Sendable {
    let store: any FerryDatabase
    let now: @Sendable () -> Date
    let logger: Logger
    /// Whether webhooks may point at loopback, private and link-local addresses (`FERRY_WEBHOOK_ALLOW_PRIVATE`).
    let allowPrivateDestinations: Bool
    private let cache = Mutex<[String: (webhooks: [Webhook], until: ContinuousClock.Instant)]>([:])

    /// Creates an outbox.
    package init(store: any FerryDatabase, now: @escaping @Sendable () -> Date, logger: Logger, allowPrivateDestinations: Bool = false) {
        self.store = store
        self.now = now
        self.logger = logger
        self.allowPrivateDestinations = allowPrivateDestinations
    }

    /// Validates and stores a new webhook for an app's environment (its secret made here); throws the rules'
    /// `ValidationError`, with the code `too_many_webhooks` when the app has ``WebhookRules/maxPerApp`` already.
    package func addWebhook(_ request: CreateWebhookRequest, appID: String, environment: APIEnvironment, by actor: AuditActor?) async throws -> Webhook {
        let (url, events) = try WebhookRules.validate(request, allowingPrivateDestinations: allowPrivateDestinations)
        guard try await store.webhooks(appID: appID, environment: environment).count < WebhookRules.maxPerApp else {
            throw ValidationError(code: .tooManyWebhooks, field: nil, "an app has at most \(WebhookRules.maxPerApp) webhooks per environment")
        }
        var generator = SystemRandomNumberGenerator()
        let webhook = Webhook(id: Identifiers.make(prefix: "wh", using: &generator), appID: appID, environment: environment, url: url,
                              secret: "whsec_" + Identifiers.apiKeySecret(using: &generator), events: events, createdAt: now())
        try await store.createWebhook(webhook)
        forget(appID: appID)
        try await audit(actor, "created", webhook, changes: AuditChange.created(AuditSnapshot.webhook(webhook)))
        return webhook
    }

    /// Removes a webhook of an app's environment; false when there is none.
    package func removeWebhook(id: String, appID: String, environment: APIEnvironment, by actor: AuditActor?) async throws -> Bool {
        guard id.utf8.count <= 64, let webhook = try await store.webhooks(appID: appID, environment: environment).first(where: { $0.id == id }),
              try await store.deleteWebhook(id: id, appID: appID, environment: environment) else { return false }
        forget(appID: appID)
        try await audit(actor, "deleted", webhook, changes: AuditChange.removed(AuditSnapshot.webhook(webhook)))
        return true
    }

    /// Records a change of a webhook in the audit log.
    private func audit(_ actor: AuditActor?, _ action: String, _ webhook: Webhook, changes: [String: AuditChange]) async throws {
        guard let actor else { return }
        _ = try await store.recordAuditEvent(AuditEvent(appID: webhook.appID, environment: webhook.environment, at: now(), actor: actor,
                                                        action: action, objectType: "webhook", objectID: webhook.id, changes: changes))
    }

    /// Forgets cached webhooks of an app (after one was added or removed here).
    /// The app's webhooks in one environment.
    func webhooks(appID: String, environment: APIEnvironment) async throws -> [Webhook] {
        try await store.webhooks(appID: appID, environment: environment)
    }

    /// The latest deliveries of a webhook of the app and environment, newest first; nil when it has no such webhook.
    func deliveries(webhookID: String, appID: String, environment: APIEnvironment, limit: Int) async throws -> [WebhookDelivery]? {
        guard webhookID.utf8.count <= 64, try await webhooks(appID: appID, environment: environment).contains(where: { $0.id == webhookID }) else {
            return nil
        }
        return try await store.deliveries(webhookID: webhookID, appID: appID, limit: limit)
    }

    package func forget(appID: String) {
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

    /// Queues `link.clicked` for the people's clicks of apps that want it (a bot's, a prefetch's or a scanner's is not
    /// sent). The event id is made from the click id, so a receiver can tell a repeat from a new click.
    package func clicksStored(_ clicks: [Click]) async {
        let groups = Dictionary(grouping: clicks.filter { $0.traffic == .person }) { "\($0.appID)/\($0.environment.rawValue)" }
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
    package func installAttributed(_ record: AttributionRecord) async {
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
///
/// Attempts run side by side, up to ``WebhookDeliverySettings/maxConcurrentAttempts`` in all and
/// ``WebhookDeliverySettings/maxConcurrentAttemptsPerApp`` for one app: the dispatcher claims more as soon as a slot
/// is free, leaving out apps that hold their share, so a receiver that is slow to answer delays its own app's
/// deliveries and no one else's. Each attempt ends by its deadline (``WebhookClient``), well within the lease.
package struct WebhookDispatcher: Service {
    let store: any FerryDatabase
    let pollInterval: Duration
    let retryBase: Double
    let now: @Sendable () -> Date
    let logger: Logger
    let client: WebhookClient
    let maxConcurrentAttempts: Int
    let maxConcurrentAttemptsPerApp: Int
    /// Where each attempt's result, time and the event's age go.
    var metrics: ServerMetrics? = nil

    /// How long a taken delivery is left to this node before another may take it: longer than an attempt may take
    /// (``WebhookClient/deadline``, at most a minute) and the recording of its outcome.
    static let lease = 120.0

    /// Creates a dispatcher. With `allowPrivateDestinations` false, a webhook's host is resolved at each attempt and
    /// the attempt fails if any of its addresses is internal.
    package init(store: any FerryDatabase, pollInterval: Duration, retryBase: Double, now: @escaping @Sendable () -> Date, logger: Logger,
                allowPrivateDestinations: Bool = false, settings: WebhookDeliverySettings = WebhookDeliverySettings()) {
        self.store = store
        self.pollInterval = pollInterval
        self.retryBase = retryBase
        self.now = now
        self.logger = logger
        client = WebhookClient(settings: settings, allowPrivateDestinations: allowPrivateDestinations)
        maxConcurrentAttempts = max(1, settings.maxConcurrentAttempts)
        maxConcurrentAttemptsPerApp = max(1, min(settings.maxConcurrentAttemptsPerApp, settings.maxConcurrentAttempts))
    }

    package func run() async throws {
        let slots = WebhookSlots(total: maxConcurrentAttempts, perApp: maxConcurrentAttemptsPerApp)
        // A round of claiming starts at every poll interval, whenever an attempt ends, and right away after a round
        // that may have left due deliveries behind.
        let (rounds, next) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                defer { next.finish() }
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    next.yield()
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.pollInterval) }
                }
            }
            for await _ in rounds {
                guard !Task.isShuttingDownGracefully else { break }
                let (free, busyApps) = slots.available()
                guard free > 0 else { continue }
                let claimedAt = now()
                let claimed: [ClaimedDelivery]
                do {
                    claimed = try await store.claimDeliveries(now: claimedAt, lease: Self.lease, limit: free, excludingApps: busyApps)
                } catch {
                    logger.warning("cannot read webhook deliveries", metadata: ["error": "\(error)"])
                    continue
                }
                var released: [String] = []
                for item in claimed {
                    let app = item.delivery.appID
                    guard slots.take(app: app) else {
                        released.append(item.delivery.id)
                        continue
                    }
                    group.addTask {
                        await self.attempt(item)
                        slots.give(app: app)
                        next.yield()
                    }
                }
                if !released.isEmpty {
                    // Beyond the app's share: given back unattempted and due at once, for a slot here or on another node.
                    do {
                        try await store.releaseDeliveries(ids: released, dueAt: claimedAt)
                    } catch {
                        logger.warning("cannot give back webhook deliveries", metadata: ["error": "\(error)"])
                    }
                }
                if claimed.count == free { next.yield() }
            }
        }
    }

    /// One attempt: POST, then record what came of it. With tracing on, the attempt is a client span and the
    /// receiver gets its `traceparent`.
    func attempt(_ item: ClaimedDelivery) async {
        let delivery = item.delivery
        let started = ContinuousClock.now
        let queued = now().timeIntervalSince(delivery.createdAt)
        let (status, failure): (Int?, String?) = await FerryTracing.span("webhook delivery", kind: .client, attributes: [
            "ferry.webhook.event": delivery.event.rawValue, "ferry.app_id": delivery.appID,
        ]) { span in
            var status: Int?
            var failure: String?
            let timestamp = Int(now().timeIntervalSince1970)
            var headers = [
                ("Content-Type", "application/json"),
                ("User-Agent", "Ferry-Webhooks/1"),
                ("Ferry-Event", delivery.event.rawValue),
                ("Ferry-Delivery", delivery.id),
                ("Ferry-Signature", WebhookSignature.header(secret: item.webhook.secret, timestamp: timestamp, body: Data(delivery.payload.utf8))),
            ]
            if span != nil, let context = ServiceContext.current {
                InstrumentationSystem.instrument.inject(context, into: &headers, using: HeaderListInjector())
            }
            do {
                let answered = try await client.post(url: item.webhook.url, headers: headers, body: ByteBuffer(string: delivery.payload))
                status = answered
                if !(200..<300).contains(answered) { failure = "answered \(answered)" }
            } catch {
                failure = String(String(describing: error).prefix(500))
            }
            span?.attributes["ferry.webhook.attempt"] = delivery.attempts + 1
            if let status { span?.attributes["http.response.status_code"] = status }
            if failure != nil { span?.setStatus(SpanStatus(code: .error)) }
            return (status, failure)
        }
        let time = now()
        let attempts = delivery.attempts + 1
        let result = failure == nil ? "delivered" : WebhookRules.retryDelay(afterAttempts: attempts, base: retryBase) == nil ? "failed" : "retrying"
        metrics?.delivered(result: result, age: queued, nanoseconds: (ContinuousClock.now - started).wholeNanoseconds)
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

/// The dispatcher's attempt slots: how many attempts run, in all and for each app.
final class WebhookSlots: Sendable {
    private let total: Int
    private let perApp: Int
    private let running = Mutex<(all: Int, apps: [String: Int])>((0, [:]))

    init(total: Int, perApp: Int) {
        self.total = total
        self.perApp = perApp
    }

    /// Free slots, and the apps that hold their share of them.
    func available() -> (free: Int, busyApps: [String]) {
        running.withLock { running in
            (total - running.all, running.apps.filter { $0.value >= perApp }.map(\.key).sorted())
        }
    }

    /// Takes a slot for an attempt for `app`; false when none is free for it.
    func take(app: String) -> Bool {
        running.withLock { running in
            guard running.all < total, running.apps[app, default: 0] < perApp else { return false }
            running.all += 1
            running.apps[app, default: 0] += 1
            return true
        }
    }

    /// Gives back a slot taken for `app`.
    func give(app: String) {
        running.withLock { running in
            running.all -= 1
            let left = running.apps[app, default: 1] - 1
            running.apps[app] = left > 0 ? left : nil
        }
    }
}

/// `Ferry-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the webhook's secret>`.
/// Receivers recompute it, compare in constant time, and refuse timestamps older than a few minutes.
package enum WebhookSignature {
    /// The header value for a body sent at `timestamp`.
    package static func header(secret: String, timestamp: Int, body: Data) -> String {
        "t=\(timestamp),v1=\(signature(secret: secret, timestamp: timestamp, body: body))"
    }

    /// The hex signature alone.
    package static func signature(secret: String, timestamp: Int, body: Data) -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }
}
#endif
