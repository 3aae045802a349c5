import FerryAPI
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A URL of the app's that receives signed `POST`s about its links.
package struct Webhook: Sendable, Hashable {
    /// `wh_…`.
    package var id: String
    /// The app.
    package var appID: String
    /// Only events of this environment are sent.
    package var environment: APIEnvironment
    /// Where deliveries go.
    package var url: String
    /// The HMAC-SHA256 key deliveries are signed with (`whsec_…`).
    package var secret: String
    /// What is sent.
    package var events: [WebhookEventType]
    /// When it was made.
    package var createdAt: Date

    /// Creates a webhook.
    package init(id: String, appID: String, environment: APIEnvironment, url: String, secret: String, events: [WebhookEventType], createdAt: Date) {
        self.id = id
        self.appID = appID
        self.environment = environment
        self.url = url
        self.secret = secret
        self.events = events
        self.createdAt = createdAt
    }

    /// As the API shows it (with the secret only when asked, right after creation).
    package func response(showingSecret: Bool = false) -> WebhookResponse {
        WebhookResponse(id: id, url: url, events: events, createdAt: createdAt, secret: showingSecret ? secret : nil)
    }
}

/// One event to send to one webhook, until it is accepted or given up.
package struct WebhookDelivery: Sendable, Hashable {
    /// `dlv_…`.
    package var id: String
    /// The webhook.
    package var webhookID: String
    /// The app (for listing).
    package var appID: String
    /// What happened.
    package var event: WebhookEventType
    /// The JSON body, fixed when the event happened (the same on every attempt).
    package var payload: String
    /// Attempts made so far.
    package var attempts: Int
    /// When the next attempt is due.
    package var nextAttemptAt: Date
    /// When it was accepted (a 2xx answer), if it was.
    package var deliveredAt: Date?
    /// When it was given up, if it was.
    package var failedAt: Date?
    /// The last answer's status, if any.
    package var lastStatus: Int?
    /// What went wrong the last time, if anything.
    package var lastError: String?
    /// When the event happened.
    package var createdAt: Date

    /// Creates a delivery.
    package init(id: String, webhookID: String, appID: String, event: WebhookEventType, payload: String, attempts: Int = 0, nextAttemptAt: Date,
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
package enum WebhookRules {
    /// Webhooks an app may have per environment.
    package static let maxPerApp = 10
    /// Attempts before a delivery is given up.
    package static let maxAttempts = 8
    /// Longest URL accepted.
    package static let maxURLLength = 2048

    /// Checks a create request: an absolute http(s) URL without credentials or fragment, and known events (all when
    /// none are named; duplicates removed, order kept).
    /// With `allowingPrivateDestinations` false, a URL ``destinationRefusal(url:)`` refuses is refused too, and so is one
    /// whose host is not a name (an IP address in any form).
    package static func validate(_ request: CreateWebhookRequest, allowingPrivateDestinations: Bool = false) throws(ValidationError)
        -> (url: String, events: [WebhookEventType]) {
        guard request.url.utf8.count <= maxURLLength else {
            throw ValidationError(field: "url", "url must be at most \(maxURLLength) bytes")
        }
        try URLRules.validateWebURL(request.url, field: "url")
        if request.url.contains("#") { throw ValidationError(field: "url", "url must not have a fragment") }
        if !allowingPrivateDestinations {
            if let refusal = destinationRefusal(url: request.url) { throw ValidationError(field: "url", refusal) }
            // A host whose last label starts with a letter is a name in every resolver; a digit or a bracket starts an
            // address in one of its many forms, which could be internal however it is written.
            guard let host = URLComponents(string: request.url)?.host, let last = host.split(separator: ".").last?.utf8.first,
                  URLRules.isLetter(last) else {
                throw ValidationError(field: "url", "url must name its host (a name whose last label starts with a letter); IP addresses are refused")
            }
        }
        var events: [WebhookEventType] = []
        for event in request.events ?? WebhookEventType.allCases where !events.contains(event) { events.append(event) }
        guard !events.isEmpty else { throw ValidationError(field: "events", "events must name at least one event, or be left out for all") }
        return (request.url, events)
    }

    /// Why a webhook may not be sent to `url`, or nil when it may: a host named `localhost` (or under it), or an
    /// address — written in any form a resolver reads as one, such as `127.1` or `0x7f000001` — that is not public.
    /// Names are judged by what they resolve to when a delivery is made (``refusal(addresses:)``).
    package static func destinationRefusal(url: String) -> String? {
        guard var host = URLComponents(string: url)?.host?.lowercased() else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        if host == "localhost" || host.hasSuffix(".localhost") {
            return "url must not point at this server or its network (\(host)); webhooks go to public addresses"
        }
        if let addresses = NumericHost.addresses(host), let refusal = refusal(addresses: addresses) { return refusal }
        return nil
    }

    /// Why a delivery may not go to a host that resolved to `addresses`, or nil when all of them are public.
    package static func refusal(addresses: [IPAddress]) -> String? {
        guard let inside = addresses.first(where: { !$0.isPublic }) else { return nil }
        return "url must not point at this server or its network (\(inside) is not a public address); webhooks go to public addresses"
    }

    /// When attempt `attempts + 1` is due after `attempts` failed ones: `base` × 3^(attempts − 1), at most six
    /// hours apart (with the default base of ten seconds: 10 s, 30 s, 1.5 min, 4.5 min, 13.5 min, 40 min, 2 h), or
    /// nil when the delivery is given up.
    package static func retryDelay(afterAttempts attempts: Int, base: Double) -> Double? {
        guard attempts < maxAttempts else { return nil }
        var delay = base
        for _ in 1..<max(1, attempts) { delay *= 3 }
        return min(delay, 6 * 3600)
    }

    /// The body of a delivery.
    package static func payload(id: String, type: WebhookEventType, at date: Date, environment: APIEnvironment, data: WebhookEventData) -> String {
        let body = (try? FerryJSON.makeEncoder().encode(WebhookPayload(id: id, type: type, createdAt: date, environment: environment, data: data))) ?? Data("{}".utf8)
        return String(decoding: body, as: UTF8.self)
    }
}

/// The system resolver's view of host names: numeric forms without a lookup, names with one.
package enum NumericHost {
    /// The addresses a host is when it is written as an address in any form the resolver accepts (`127.1`,
    /// `0x7f.0.0.1`, `2130706433`, `::1`); nil for a name, which only a lookup can turn into addresses.
    package static func addresses(_ host: String) -> [IPAddress]? {
        let found = lookUp(host, numericOnly: true)
        return found.isEmpty ? nil : found
    }

    /// Every address a name resolves to (a DNS lookup: blocking, call it off the event loops); empty when it
    /// resolves to none.
    package static func resolve(_ host: String) -> [IPAddress] {
        lookUp(host, numericOnly: false)
    }

    private static func lookUp(_ host: String, numericOnly: Bool) -> [IPAddress] {
        guard !host.isEmpty, host.utf8.count <= 253, !host.utf8.contains(0) else { return [] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = numericOnly ? AI_NUMERICHOST : 0
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socket = current.pointee.ai_addr {
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
                let family = Int32(socket.pointee.sa_family)
                let ok: Bool = switch family {
                case AF_INET:
                    socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                        var raw = address.pointee.sin_addr
                        return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
                    }
                case AF_INET6:
                    socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                        var raw = address.pointee.sin6_addr
                        return inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil
                    }
                default: false
                }
                if ok, let address = IPAddress(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) { addresses.append(address) }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
