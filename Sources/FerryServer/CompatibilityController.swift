#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Routes that answer apps written for other deep-linking platforms as those platforms document it, so that a team
/// can migrate by changing a base URL. They are adapters only: links, clicks, events and the matcher are Ferry's own
/// (the services `LinkOpener`, `Attributor` and `LinkEditor` that the native routes use too).
struct CompatibilityController: Sendable {
    let opener: LinkOpener
    let attributor: Attributor
    let links: LinkEditor
    let classifier: UserAgentClassifier
    let authenticator: KeyAuthenticator
    let addresses: ClientAddressResolver
    let maxBodyBytes: Int
    /// How errors become answers, shared with every other route.
    let errors: ErrorMiddleware

    // LimeLink-style.
    static let dynamicLink = "/api/v1/app/dynamic_link/:slug"
    static let deferredDeepLink = "/api/v1/deferred-deep-link"
    static let statsEvent = "/api/v1/stats/event"
    // LinkTrace-style.
    static let referralLinks = "/api/v1/referral-links"
    static let attributions = "/api/v1/attributions"

    static let allowedMethods: [(path: String, allowed: [String])] = [(dynamicLink, ["GET"]), (deferredDeepLink, ["GET"]), (statsEvent, ["POST"])]

    func register(on router: Router<FerryRequestContext>) {
        // Wrong methods on the LinkTrace-style routes are answered in their envelope too.
        for path in [Self.referralLinks, Self.attributions] {
            for method in MethodGuard.methods where method != .post {
                router.on(RouterPath(path), method: method) { request, _ in
                    try await LinkTraceEnvelope.wrap(request, errors: errors) {
                        throw APIError(.methodNotAllowed, message: "use POST on this route", headers: [.allow: "POST"])
                    }
                }
            }
        }
        router.get(RouterPath(Self.dynamicLink)) { request, context in
            try await dynamicLink(request, slug: context.parameters.get("slug") ?? "")
        }
        router.get(RouterPath(Self.deferredDeepLink)) { request, context in try await deferredDeepLink(request, context: context) }
        router.post(RouterPath(Self.statsEvent)) { request, _ in try await statsEvent(request) }
        router.post(RouterPath(Self.referralLinks)) { request, context in
            try await LinkTraceEnvelope.wrap(request, errors: errors) { try await referralLink(request, context: context) }
        }
        router.post(RouterPath(Self.attributions)) { request, context in
            try await LinkTraceEnvelope.wrap(request, errors: errors) { try await attribute(request, context: context) }
        }
    }

    // MARK: LimeLink-style

    /// `GET /api/v1/app/dynamic_link/{slug}?full_request_url=…[&event_type=setup]` → `{"uri": "…"}`: the link's app URL
    /// with the query of the URL the app was opened with carried over. `event_type=setup` records an install for the
    /// link (the deferred flow's last step); any other call records an open.
    func dynamicLink(_ request: Request, slug rawSlug: String) async throws -> Response {
        let fullRequestURL = CompatibilityRules.fullRequestURL(inRawQuery: request.uri.query)
        var host: String?
        if let fullRequestURL {
            // A web URL by the rules of a link's destination, so that the query carried over to the app URL is one too.
            let url = fullRequestURL.utf8.count <= 2048 ? (try? URLRules.validateWebURL(fullRequestURL, field: "full_request_url")).flatMap(URLComponents.init(string:)) : nil
            guard let url, let name = url.host, !name.isEmpty,
                  let urlHost = DomainName.normalizeHostHeader(url.port.map { "\(name):\($0)" } ?? name) else {
                throw APIError(.invalidField, message: "full_request_url must be the http or https URL the app was opened with, at most 2048 bytes", field: "full_request_url")
            }
            host = urlHost
        }
        let eventType = request.uri.queryParameters["event_type"].map(String.init)
        if let eventType, eventType != "setup" {
            throw APIError(.invalidField, message: "event_type may only be 'setup' (the first launch after an install)", field: "event_type")
        }
        guard let slug = Slug.normalize(rawSlug) else { throw ValidationError.linkNotFound(rawSlug) }
        let auth = KeyAuthenticator.presentedKey(request) != nil ? try await authenticator.authenticate(request, scope: .linksRead) : nil
        guard let resolved = try await opener.find(slug: slug, host: host ?? EdgeController.host(of: request), auth: auth) else {
            throw ValidationError.linkNotFound(slug)
        }
        let link = resolved.link, time = opener.now()
        try LinkOpener.checkActive(link, slug: slug, at: time)
        let agent = request.headers[.userAgent]
        let android = classifier.classify(agent).platform == .android
            || CompatibilityRules.appClientSignals(userAgent: agent, acceptLanguage: nil).platform == "android"
        let appURL = (android ? link.androidURL ?? link.iosURL : link.iosURL ?? link.androidURL) ?? link.destination
        try await opener.record(eventType == "setup" ? "install" : "link_open", link: link, properties: ["via": "dynamic_link"], at: time)
        return try JSONBody.response(["uri": CompatibilityRules.appURI(appURL, carryingQueryOf: fullRequestURL)])
    }

    /// `GET /api/v1/deferred-deep-link?width=&height=&user_agent=` → `{"suffix", "full_request_url"}`: the click that led
    /// to this install, found by the same matcher as `/v1/attribution/match` (and consumed the same way), or a 404.
    func deferredDeepLink(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        var signals: DeviceSignals
        do {
            // `+` is a space in a query, as form encoding writes `iOS+18_7`.
            let userAgent = query["user_agent"].map { $0.replacingOccurrences(of: "+", with: " ") }
            signals = try CompatibilityRules.deviceSignals(
                width: query["width"].map(String.init), height: query["height"].map(String.init), userAgent: userAgent,
                acceptLanguage: request.headers[.acceptLanguage])
            if userAgent == nil {
                // No user_agent parameter: the app's own HTTP client tells the system.
                let client = CompatibilityRules.appClientSignals(userAgent: request.headers[.userAgent], acceptLanguage: nil)
                signals.platform = client.platform
                signals.osVersion = client.osVersion
            }
        }
        signals = AttributionRules.sanitize(signals)
        var app: App?
        var environment = APIEnvironment.live
        if KeyAuthenticator.presentedKey(request) != nil {
            let auth = try await authenticator.authenticate(request, scope: .attributionWrite)
            app = auth.app
            environment = auth.key.environment
        } else if let host = EdgeController.host(of: request) {
            app = try await opener.resolver.app(forHost: host)?.value
        }
        if app == nil { app = try await opener.admin.soleApp() }
        guard let app else {
            throw APIError(.notFound, message: "no app answers on this host; call it on one of the app's link domains")
        }
        let address = addresses.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[values: EdgeController.forwardedFor])
        guard let (link, fullRequestURL) = try await attributor.deviceClick(app: app, environment: environment, signals: signals, address: address) else {
            throw APIError(.notFound, message: "no recent click from this device")
        }
        return try JSONBody.response(["suffix": link.slug, "full_request_url": fullRequestURL])
    }

    /// The body of the stats call an SDK makes when a link opened the app.
    struct StatsEvent: Decodable {
        var private_key: String?
        var suffix: String?
        var handle: String?
        var event_type: String?
        var operating_system: String?
    }

    /// `POST /api/v1/stats/event` with `{"private_key", "suffix", "handle", "event_type": "first_run"|"rerun"}`: records
    /// the SDK's report that the app was opened from the link (a `link_stats` event; the lookup of that open is the
    /// `link_open`), the first run of an install marked as such.
    func statsEvent(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(StatsEvent.self, from: request, limit: maxBodyBytes)
        guard let key = body.private_key, !key.isEmpty else {
            throw APIError(.unauthorized, message: "private_key is required: the app's Ferry key")
        }
        let auth = try await authenticator.authenticate(key: key, scope: .attributionWrite)
        guard let eventType = body.event_type, ["first_run", "rerun"].contains(eventType) else {
            throw APIError(.invalidField, message: "event_type must be 'first_run' or 'rerun'", field: "event_type")
        }
        guard let suffix = body.suffix, let slug = Slug.normalize(suffix) else {
            throw APIError(.invalidField, message: "suffix must be the link's slug", field: "suffix")
        }
        var properties = ["via": "stats", "event_type": eventType]
        try LinkRules.checkText(body.handle, field: "handle", max: 256)
        try LinkRules.checkText(body.operating_system, field: "operating_system", max: 32)
        if let handle = body.handle, !handle.isEmpty { properties["handle"] = handle }
        if let system = body.operating_system, !system.isEmpty { properties["operating_system"] = system }
        let link = try await opener.link(slug: slug, app: auth.app, environment: auth.key.environment)
        // The lookup of the same open already recorded a `link_open`: this is the SDK's own report of it.
        try await opener.record("link_stats", link: link, properties: properties, at: opener.now())
        return try JSONBody.response(["success": true])
    }

    // MARK: LinkTrace-style

    /// The body of `POST /api/v1/referral-links`.
    struct ReferralLinkBody: Decodable {
        var referrerIdentifier: String?
        var campaign: String?
        var customPayload: [String: String]?
        var environment: String?

        private enum CodingKeys: String, CodingKey { case referrerIdentifier, campaign, customPayload, environment }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            referrerIdentifier = try c.decodeIfPresent(String.self, forKey: .referrerIdentifier)
            campaign = try c.decodeIfPresent(String.self, forKey: .campaign)
            environment = try c.decodeIfPresent(String.self, forKey: .environment)
            guard c.contains(.customPayload), try !c.decodeNil(forKey: .customPayload) else { return }
            // Read values of any JSON type, to say which one is not a string rather than fail on the whole object.
            let raw = try c.decode([String: JSONValue].self, forKey: .customPayload)
            var payload: [String: String] = [:]
            for (key, value) in raw.sorted(by: { $0.key < $1.key }) {
                guard case .string(let text) = value else {
                    throw ValidationError(field: "customPayload.\(key.prefix(64))", "customPayload values must be strings; \(key.prefix(64)) is \(value.kind) (send \"42\", not 42)")
                }
                payload[key] = text
            }
            customPayload = payload
        }
    }

    /// `POST /api/v1/referral-links` (secret key): a Ferry link that carries the referrer, the campaign and up to three
    /// strings of payload, on the app's first domain; `"environment": "stage"` makes a test link.
    func referralLink(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .linksWrite)
        let body = try await JSONBody.decode(ReferralLinkBody.self, from: request, limit: maxBodyBytes)
        let environment = try Self.environment(body.environment, key: auth.key)
        try CompatibilityRules.checkReferral(referrerIdentifier: body.referrerIdentifier, campaign: body.campaign, customPayload: body.customPayload)
        guard let destination = auth.app.fallbackURL ?? auth.app.ios.appStoreURL else {
            throw APIError(.conflict, message: "the app has neither a fallback URL nor an App Store id for visitors without the app; set one with 'ferry app update'")
        }
        let create = CreateLinkRequest(destination: destination, params: body.customPayload, campaign: body.campaign, referrer: body.referrerIdentifier)
        let link = try await links.create(create, app: auth.app, environment: environment,
                                          by: authenticator.actor(auth, request: request, context: context))
        return try LinkTraceEnvelope.success(
            ["shortCode": link.slug, "referralLink": link.shortURL(in: auth.app), "referrerIdentifier": link.referrer ?? ""], status: .created)
    }

    /// LinkTrace-style `environment`: absent or `production` is the key's own; `stage` is test data, never mixed with live.
    static func environment(_ text: String?, key: APIKeyRecord) throws -> APIEnvironment {
        switch text {
        case nil, "production", "prod", "live": return key.environment
        case "stage", "staging", "test": return .test
        default: throw APIError(.invalidField, message: "environment must be 'production' or 'stage'", field: "environment")
        }
    }

    /// The posterior an attribution from an app's own HTTP client needs. Such a request tells only its address, OS
    /// version and languages (no screen, no time zone), so the same matcher is less sure than with the SDK's
    /// signals: a phone that clicked and signed up on the same network with nobody else clicking from it reaches
    /// about 0.79. The answer carries the calibrated `confidence` so that an app can ask for more.
    static let appClientAcceptThreshold = 0.75

    struct AttributionBody: Decodable {
        var userId: String?
        var environment: String?
    }

    /// `POST /api/v1/attributions` with `{"userId"}`: the click this device made within the app's attribution window
    /// (see ``Attributor/attributeUser(_:app:environment:key:signals:address:userAgent:acceptThreshold:)``).
    func attribute(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, scope: .attributionWrite)
        let body = try await JSONBody.decode(AttributionBody.self, from: request, limit: maxBodyBytes)
        let environment = try Self.environment(body.environment, key: auth.key)
        let userID = try AttributionRules.validateIdentifier(body.userId ?? "", field: "userId", max: AttributionRules.maxUserIDLength)
        // The app's own HTTP client is the device: its address, system and languages stand for the install.
        let signals = CompatibilityRules.appClientSignals(userAgent: request.headers[.userAgent], acceptLanguage: request.headers[.acceptLanguage])
        let address = addresses.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[values: EdgeController.forwardedFor])
        let (record, link) = try await attributor.attributeUser(
            userID, app: auth.app, environment: environment, key: auth.key, signals: AttributionRules.sanitize(signals), address: address,
            userAgent: request.headers[.userAgent] ?? "", acceptThreshold: Self.appClientAcceptThreshold)
        struct Data: Encodable {
            var attributed: Bool
            var referrerIdentifier: String?
            var campaign: String?
            var source: String?
            var customPayload: [String: String]?
            var matchType: MatchType?
            var confidence: Double?
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(attributed, forKey: .attributed)
                try c.encode(referrerIdentifier, forKey: .referrerIdentifier)
                try c.encode(campaign, forKey: .campaign)
                try c.encode(source, forKey: .source)
                try c.encode(customPayload, forKey: .customPayload)
                try c.encode(matchType, forKey: .matchType)
                try c.encode(confidence, forKey: .confidence)
            }
            enum CodingKeys: String, CodingKey { case attributed, referrerIdentifier, campaign, source, customPayload, matchType, confidence }
        }
        let data = link.map { link in
            Data(attributed: true, referrerIdentifier: link.referrer, campaign: link.campaign ?? link.utm.campaign,
                 source: link.utm.source ?? "referral_link", customPayload: link.params, matchType: record?.matchType, confidence: record?.confidence)
        } ?? Data(attributed: false)
        return try LinkTraceEnvelope.success(data)
    }
}

/// LinkTrace-style answers: `{"success": true, "data": …}`, and errors as `{"success": false, "error": {code, message, field}}`.
enum LinkTraceEnvelope {
    struct Success<T: Encodable>: Encodable {
        var success = true
        var data: T
    }

    struct Failure: Encodable {
        var success = false
        var error: ErrorResponse.Detail
    }

    static func success(_ data: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        try JSONBody.response(Success(data: data), status: status)
    }

    /// Runs a handler, answering its errors in this envelope: its own, the framework's, an outage's 503 and the
    /// 500 of anything unexpected (as `errors` classifies them for every other route).
    static func wrap(_ request: Request, errors: ErrorMiddleware, _ handler: () async throws -> Response) async throws -> Response {
        do {
            return try await handler()
        } catch {
            let error = errors.apiError(for: error, path: request.uri.path)
            var headers = error.headers
            headers[.cacheControl] = "no-store"
            return try JSONBody.response(Failure(error: error.body.error), status: error.status, headers: headers)
        }
    }
}
#endif
