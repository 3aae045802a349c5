import FerryAPI
import Foundation

/// A URL of the app's that receives signed `POST`s about its links.
public struct Webhook: Sendable, Hashable {
    /// `wh_…`.
    public var id: String
    /// The app.
    public var appID: String
    /// Only events of this environment are sent.
    public var environment: APIEnvironment
    /// Where deliveries go.
    public var url: String
    /// The HMAC-SHA256 key deliveries are signed with (`whsec_…`).
    public var secret: String
    /// What is sent.
    public var events: [WebhookEventType]
    /// When it was made.
    public var createdAt: Date

    /// Creates a webhook.
    public init(id: String, appID: String, environment: APIEnvironment, url: String, secret: String, events: [WebhookEventType], createdAt: Date) {
        self.id = id
        self.appID = appID
        self.environment = environment
        self.url = url
        self.secret = secret
        self.events = events
        self.createdAt = createdAt
    }

    /// As the API shows it (with the secret only when asked, right after creation).
    public func response(showingSecret: Bool = false) -> WebhookResponse {
        WebhookResponse(id: id, url: url, events: events, createdAt: createdAt, secret: showingSecret ? secret : nil)
    }
}

/// One event to send to one webhook, until it is accepted or given up.
public struct WebhookDelivery: Sendable, Hashable {
    /// `dlv_…`.
    public var id: String
    /// The webhook.
    public var webhookID: String
    /// The app (for listing).
    public var appID: String
    /// What happened.
    public var event: WebhookEventType
    /// The JSON body, fixed when the event happened (the same on every attempt).
    public var payload: String
    /// Attempts made so far.
    public var attempts: Int
    /// When the next attempt is due.
    public var nextAttemptAt: Date
    /// When it was accepted (a 2xx answer), if it was.
    public var deliveredAt: Date?
    /// When it was given up, if it was.
    public var failedAt: Date?
    /// The last answer's status, if any.
    public var lastStatus: Int?
    /// What went wrong the last time, if anything.
    public var lastError: String?
    /// When the event happened.
    public var createdAt: Date

    /// Creates a delivery.
    public init(id: String, webhookID: String, appID: String, event: WebhookEventType, payload: String, attempts: Int = 0, nextAttemptAt: Date,
                deliveredAt: Date? = nil, failedAt: Date? = nil, lastStatus: Int? = nil, lastError: String? = nil, createdAt: Date) {
        self.id = id
        self.webhookID = webhookID
        self.appID = appID
        self.event = event
        self.payload = payload
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.deliveredAt = deliveredAt
        self.failedAt = failedAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.createdAt = createdAt
    }
}

/// What webhooks accept and how deliveries are retried.
public enum WebhookRules {
    /// Webhooks an app may have per environment.
    public static let maxPerApp = 10
    /// Attempts before a delivery is given up.
    public static let maxAttempts = 8
    /// Longest URL accepted.
    public static let maxURLLength = 2048

    /// Checks a create request: an absolute http(s) URL without credentials or fragment, and known events (all when
    /// none are named; duplicates removed, order kept).
    public static func validate(_ request: CreateWebhookRequest) throws(ValidationError) -> (url: String, events: [WebhookEventType]) {
        guard request.url.utf8.count <= maxURLLength else {
            throw ValidationError(field: "url", "url must be at most \(maxURLLength) bytes")
        }
        try URLRules.validateWebURL(request.url, field: "url")
        if request.url.contains("#") { throw ValidationError(field: "url", "url must not have a fragment") }
        var events: [WebhookEventType] = []
        for event in request.events ?? WebhookEventType.allCases where !events.contains(event) { events.append(event) }
        guard !events.isEmpty else { throw ValidationError(field: "events", "events must name at least one event, or be left out for all") }
        return (request.url, events)
    }

    /// When attempt `attempts + 1` is due after `attempts` failed ones: `base` × 3^(attempts − 1), at most six
    /// hours apart (with the default base of ten seconds: 10 s, 30 s, 1.5 min, 4.5 min, 13.5 min, 40 min, 2 h), or
    /// nil when the delivery is given up.
    public static func retryDelay(afterAttempts attempts: Int, base: Double) -> Double? {
        guard attempts < maxAttempts else { return nil }
        var delay = base
        for _ in 1..<max(1, attempts) { delay *= 3 }
        return min(delay, 6 * 3600)
    }

    /// The body of a delivery.
    public static func payload(id: String, type: WebhookEventType, at date: Date, environment: APIEnvironment, data: WebhookEventData) -> String {
        let body = (try? FerryJSON.makeEncoder().encode(WebhookPayload(id: id, type: type, createdAt: date, environment: environment, data: data))) ?? Data("{}".utf8)
        return String(decoding: body, as: UTF8.self)
    }
}
