import Foundation

/// What a webhook is told about.
package enum WebhookEventType: String, Codable, Sendable, Hashable, CaseIterable {
    /// A click on one of the app's links (sent after the click is stored, off the redirect's path).
    case linkClicked = "link.clicked"
    /// A first launch matched to a link (deterministic or probabilistic).
    case installAttributed = "install.attributed"
}

/// `POST /v1/webhooks`: where to send which events.
package struct CreateWebhookRequest: Codable, Sendable, Hashable {
    /// An absolute `https` (or `http`) URL; it receives signed `POST`s.
    package var url: String
    /// The events to send; all of them when absent.
    package var events: [WebhookEventType]?

    /// Creates a request.
    package init(url: String, events: [WebhookEventType]? = nil) {
        self.url = url
        self.events = events
    }
}

/// A webhook as the API shows it. `secret` (`whsec_…`) is shown only in the answer that created it: keep it to check
/// the `Ferry-Signature` header of each delivery.
package struct WebhookResponse: Codable, Sendable, Hashable {
    /// `wh_…`.
    package var id: String
    /// Where deliveries go.
    package var url: String
    /// What is sent.
    package var events: [WebhookEventType]
    /// When it was made.
    package var createdAt: Date
    /// The signing secret, only when just created.
    package var secret: String?

    /// Creates a response.
    package init(id: String, url: String, events: [WebhookEventType], createdAt: Date, secret: String? = nil) {
        self.id = id
        self.url = url
        self.events = events
        self.createdAt = createdAt
        self.secret = secret
    }
}

/// `GET /v1/webhooks`.
package struct WebhookListResponse: Codable, Sendable, Hashable {
    /// The app's webhooks of the key's environment, oldest first.
    package var data: [WebhookResponse]

    /// Creates a list.
    package init(data: [WebhookResponse]) { self.data = data }
}

/// The body of a delivery: `{"id": "evt_…", "type": "link.clicked", "createdAt": …, "data": {…}}`.
package struct WebhookPayload: Codable, Sendable, Hashable {
    /// The event's id (the same on every retry of it).
    package var id: String
    /// What happened.
    package var type: WebhookEventType
    /// When it happened.
    package var createdAt: Date
    /// Live or test.
    package var environment: APIEnvironment
    /// The details.
    package var data: WebhookEventData

    /// Creates a payload.
    package init(id: String, type: WebhookEventType, createdAt: Date, environment: APIEnvironment, data: WebhookEventData) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.environment = environment
        self.data = data
    }
}

/// The details of a webhook event; which fields are set depends on its type.
package struct WebhookEventData: Codable, Sendable, Hashable {
    /// The link involved.
    package var linkID: String?
    /// The click (both events).
    package var clickID: String?
    /// `link.clicked`: `ios`, `android`, `desktop`, `bot`, `other`.
    package var platform: String?
    /// `link.clicked`: the referring page's host.
    package var referrer: String?
    /// `install.attributed`: the install.
    package var installID: String?
    /// `install.attributed`: how it was matched.
    package var matchType: MatchType?
    /// `install.attributed`: how sure the match is.
    package var confidence: Double?

    /// Creates details.
    package init(linkID: String? = nil, clickID: String? = nil, platform: String? = nil, referrer: String? = nil, installID: String? = nil,
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
package struct WebhookDeliveryResponse: Codable, Sendable, Hashable {
    /// `dlv_…` (the `Ferry-Delivery` header).
    package var id: String
    /// What it tells.
    package var event: WebhookEventType
    /// Attempts made.
    package var attempts: Int
    /// When the event happened.
    package var createdAt: Date
    /// When a 2xx answer came.
    package var deliveredAt: Date?
    /// When it was given up (after eight failed attempts).
    package var failedAt: Date?
    /// When the next attempt is due, while pending.
    package var nextAttemptAt: Date?
    /// The status of the last answer.
    package var lastStatus: Int?
    /// What went wrong the last time.
    package var lastError: String?

    /// Creates a delivery view.
    package init(id: String, event: WebhookEventType, attempts: Int, createdAt: Date, deliveredAt: Date?, failedAt: Date?, nextAttemptAt: Date?,
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
package struct WebhookDeliveryListResponse: Codable, Sendable, Hashable {
    /// Newest first, at most 50.
    package var data: [WebhookDeliveryResponse]

    /// Creates a list.
    package init(data: [WebhookDeliveryResponse]) { self.data = data }
}
