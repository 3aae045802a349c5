import Foundation

/// What a webhook is told about.
public enum WebhookEventType: String, Codable, Sendable, Hashable, CaseIterable {
    /// A click on one of the app's links (sent after the click is stored, off the redirect's path).
    case linkClicked = "link.clicked"
    /// A first launch matched to a link (deterministic or probabilistic).
    case installAttributed = "install.attributed"
}

/// `POST /v1/webhooks`: where to send which events.
public struct CreateWebhookRequest: Codable, Sendable, Hashable {
    /// An absolute `https` (or `http`) URL; it receives signed `POST`s.
    public var url: String
    /// The events to send; all of them when absent.
    public var events: [WebhookEventType]?

    /// Creates a request.
    public init(url: String, events: [WebhookEventType]? = nil) {
        self.url = url
        self.events = events
    }
}

/// A webhook as the API shows it. `secret` (`whsec_…`) is shown only in the answer that created it: keep it to check
/// the `Ferry-Signature` header of each delivery.
public struct WebhookResponse: Codable, Sendable, Hashable {
    /// `wh_…`.
    public var id: String
    /// Where deliveries go.
    public var url: String
    /// What is sent.
    public var events: [WebhookEventType]
    /// When it was made.
    public var createdAt: Date
    /// The signing secret, only when just created.
    public var secret: String?

    /// Creates a response.
    public init(id: String, url: String, events: [WebhookEventType], createdAt: Date, secret: String? = nil) {
        self.id = id
        self.url = url
        self.events = events
        self.createdAt = createdAt
        self.secret = secret
    }
}

/// `GET /v1/webhooks`.
public struct WebhookListResponse: Codable, Sendable, Hashable {
    /// The app's webhooks of the key's environment, oldest first.
    public var data: [WebhookResponse]

    /// Creates a list.
    public init(data: [WebhookResponse]) { self.data = data }
}

/// The body of a delivery: `{"id": "evt_…", "type": "link.clicked", "createdAt": …, "data": {…}}`.
public struct WebhookPayload: Codable, Sendable, Hashable {
    /// The event's id (the same on every retry of it).
    public var id: String
    /// What happened.
    public var type: WebhookEventType
    /// When it happened.
    public var createdAt: Date
    /// Live or test.
    public var environment: APIEnvironment
    /// The details.
    public var data: WebhookEventData

    /// Creates a payload.
    public init(id: String, type: WebhookEventType, createdAt: Date, environment: APIEnvironment, data: WebhookEventData) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.environment = environment
        self.data = data
    }
}

/// The details of a webhook event; which fields are set depends on its type.
public struct WebhookEventData: Codable, Sendable, Hashable {
    /// The link involved.
    public var linkID: String?
    /// The click (both events).
    public var clickID: String?
    /// `link.clicked`: `ios`, `android`, `desktop`, `bot`, `other`.
    public var platform: String?
    /// `link.clicked`: the referring page's host.
    public var referrer: String?
    /// `install.attributed`: the install.
    public var installID: String?
    /// `install.attributed`: how it was matched.
    public var matchType: MatchType?
    /// `install.attributed`: how sure the match is.
    public var confidence: Double?

    /// Creates details.
    public init(linkID: String? = nil, clickID: String? = nil, platform: String? = nil, referrer: String? = nil, installID: String? = nil,
                matchType: MatchType? = nil, confidence: Double? = nil) {
        self.linkID = linkID
        self.clickID = clickID
        self.platform = platform
        self.referrer = referrer
        self.installID = installID
        self.matchType = matchType
        self.confidence = confidence
    }
}

/// One delivery of a webhook, as `GET /v1/webhooks/{id}/deliveries` shows it.
public struct WebhookDeliveryResponse: Codable, Sendable, Hashable {
    /// `dlv_…` (the `Ferry-Delivery` header).
    public var id: String
    /// What it tells.
    public var event: WebhookEventType
    /// Attempts made.
    public var attempts: Int
    /// When the event happened.
    public var createdAt: Date
    /// When a 2xx answer came.
    public var deliveredAt: Date?
    /// When it was given up (after eight failed attempts).
    public var failedAt: Date?
    /// When the next attempt is due, while pending.
    public var nextAttemptAt: Date?
    /// The status of the last answer.
    public var lastStatus: Int?
    /// What went wrong the last time.
    public var lastError: String?

    /// Creates a delivery view.
    public init(id: String, event: WebhookEventType, attempts: Int, createdAt: Date, deliveredAt: Date?, failedAt: Date?, nextAttemptAt: Date?,
                lastStatus: Int?, lastError: String?) {
        self.id = id
        self.event = event
        self.attempts = attempts
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.failedAt = failedAt
        self.nextAttemptAt = nextAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
    }
}

/// `GET /v1/webhooks/{id}/deliveries`.
public struct WebhookDeliveryListResponse: Codable, Sendable, Hashable {
    /// Newest first, at most 50.
    public var data: [WebhookDeliveryResponse]

    /// Creates a list.
    public init(data: [WebhookDeliveryResponse]) { self.data = data }
}
