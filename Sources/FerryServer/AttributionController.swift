import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Deferred deep links and attribution: the match, resolve, SDK validation, events and user binding routes.
struct AttributionController: Sendable {
    let store: any FerryDatabase
    let recorder: ClickRecorder
    let authenticator: KeyAuthenticator
    let matcher: AttributionMatcher
    let addresses: ClientAddressResolver
    let hasher: AddressHasher
    let maxBodyBytes: Int
    let now: @Sendable () -> Date
    let logger: Logger
    let outbox: WebhookOutbox

    func register(on router: Router<FerryRequestContext>) {
        router.post(RouterPath(FerryRoutes.attributionMatch)) { request, context in try await match(request, context: context) }
        router.post(RouterPath(FerryRoutes.attributionUser)) { request, _ in try await bindUser(request) }
        router.post(RouterPath(FerryRoutes.sdkValidate)) { request, _ in try await validate(request) }
        router.post(RouterPath(FerryRoutes.events)) { request, _ in try await events(request) }
        router.get("\(FerryRoutes.links)/resolve/:slug") { request, context in
            try await resolve(request, slug: context.parameters.get("slug") ?? "")
        }
    }

    // MARK: Match

    func match(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request)
        let body = try await JSONBody.decode(MatchRequest.self, from: request, limit: maxBodyBytes)
        let installID: String
        let signals: DeviceSignals
        do {
            installID = try AttributionRules.validateIdentifier(body.installID, field: "installID", max: AttributionRules.maxInstallIDLength)
            signals = try AttributionRules.validate(body.signals)
            if let token = body.clickToken { try LinkRules.checkText(token, field: "clickToken", max: 64) }
            if let referrer = body.referrer { try LinkRules.checkText(referrer, field: "referrer", max: 2048) }
        } catch { throw APIError(error) }

        let address = addresses.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[values: EdgeController.forwardedFor])
        let record = try await attribute(app: auth.app, environment: auth.key.environment, installID: installID, signals: signals,
                                         clickToken: body.clickToken, referrer: body.referrer, address: address)
        return try JSONBody.response(try await answer(for: record, appID: auth.app.id))
    }

    /// The click that led to an install, found once and stored: the answer given before to this install, else a
    /// pasteboard token, else the Play Store referrer, else the probabilistic matcher; "not matched" is stored too.
    /// Every route that attributes installs (the native match and the compatibility routes) comes here;
    /// `acceptThreshold` lowers or raises the posterior a probabilistic match needs (the model's by default);
    /// `keepsMisses: false` leaves a "not matched" answer unstored, for callers whose install id is only a guess
    /// (a later click from the same device may then still be found).
    func attribute(app: App, environment: APIEnvironment, installID: String, signals: DeviceSignals, clickToken: String?, referrer: String?,
                   address: IPAddress?, acceptThreshold: Double? = nil, keepsMisses: Bool = true) async throws -> AttributionRecord {
        if let previous = try await store.attribution(appID: app.id, environment: environment, installID: installID) {
            return previous
        }
        let time = now()
        let window = app.attribution.window
        let install = InstallEvidence(addressHash: address.map(hasher.hash), networkHash: address.map(hasher.hashNetwork), signals: signals, at: time)

        // Deterministic tiers: a pasteboard token, then the Play Store referrer.
        let tokens = [clickToken.flatMap(AttributionRules.clickID(fromToken:)), referrer.flatMap(AttributionRules.clickID(fromReferrer:))]
        for clickID in tokens.compactMap({ $0 }) {
            let since = time.addingTimeInterval(-window)
            var found = try await store.unconsumedClick(id: clickID, appID: app.id, environment: environment, since: since)
            if found == nil {
                // The click happened moments ago and still waits in the recorder (or is being written, or was written
                // between the read and now): write it now, and read again.
                if recorder.isPending(clickID: clickID) { _ = await recorder.waitUntilWritten(clickID: clickID) }
                found = try await store.unconsumedClick(id: clickID, appID: app.id, environment: environment, since: since)
            }
            guard let click = found else {
                continue  // another app's token, a replay, or too old: fall through to the other tiers
            }
            let record = AttributionRecord(appID: app.id, environment: environment, installID: installID, clickID: click.clickID,
                                           linkID: click.linkID, matchType: .deterministic, confidence: 1, createdAt: time)
            if let stored = try await bind(record) { return stored }
        }

        // The probabilistic tier; a click taken by a concurrent install is left out and the match tried again.
        let platform: ClientPlatform? = switch signals.platform {
        case "ios", "iphone", "ipad", "ipados": .iOS
        case "android": .android
        default: nil
        }
        var excluded = Set<String>()
        for _ in 0..<3 {
            var candidates = try await store.candidates(CandidateQuery(appID: app.id, environment: environment, install: install, window: window), platform: platform)
            candidates.clicks.removeAll { excluded.contains($0.clickID) }
            switch matcher.match(install: install, candidates: candidates, window: window, acceptThreshold: acceptThreshold) {
            case .matched(let clickID, let linkID, let confidence):
                let record = AttributionRecord(appID: app.id, environment: environment, installID: installID, clickID: clickID,
                                               linkID: linkID, matchType: .probabilistic, confidence: confidence, createdAt: time)
                if let stored = try await bind(record) { return stored }
                excluded.insert(clickID)
            case .declined(let reason):
                logger.debug("install not matched", metadata: ["reason": "\(reason.rawValue)", "candidates": "\(candidates.clicks.count)"])
                return try await miss(app: app, environment: environment, installID: installID, at: time, keep: keepsMisses)
            }
        }
        return try await miss(app: app, environment: environment, installID: installID, at: time, keep: keepsMisses)
    }

    func miss(app: App, environment: APIEnvironment, installID: String, at time: Date, keep: Bool) async throws -> AttributionRecord {
        if keep { return try await bindNoMatch(app: app, environment: environment, installID: installID, at: time) }
        return AttributionRecord(appID: app.id, environment: environment, installID: installID, clickID: nil, linkID: nil,
                                 matchType: nil, confidence: nil, createdAt: time)
    }

    /// Stores a match; nil when the click went to another install first. When the same install raced itself,
    /// the answer stored first is returned.
    func bind(_ record: AttributionRecord) async throws -> AttributionRecord? {
        do {
            try await store.insertAttribution(record)
            await outbox.installAttributed(record)
            return record
        } catch let conflict as StoreConflict where conflict.field == "installID" {
            return try await store.attribution(appID: record.appID, environment: record.environment, installID: record.installID)
        } catch is StoreConflict {
            return nil
        }
    }

    func bindNoMatch(app: App, environment: APIEnvironment, installID: String, at time: Date) async throws -> AttributionRecord {
        let record = AttributionRecord(appID: app.id, environment: environment, installID: installID, clickID: nil, linkID: nil,
                                       matchType: nil, confidence: nil, createdAt: time)
        return try await bind(record) ?? record
    }

    func answer(for record: AttributionRecord, appID: String) async throws -> MatchResponse {
        guard record.matched, let linkID = record.linkID, let link = try await store.link(id: linkID, appID: appID) else { return .notMatched }
        return MatchResponse(matched: true, matchType: record.matchType, confidence: record.confidence, isDeferred: true, link: link.data)
    }

    // MARK: Users

    func bindUser(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request)
        let body = try await JSONBody.decode(AttributeUserRequest.self, from: request, limit: maxBodyBytes)
        let installID: String, userID: String
        do {
            installID = try AttributionRules.validateIdentifier(body.installID, field: "installID", max: AttributionRules.maxInstallIDLength)
            userID = try AttributionRules.validateIdentifier(body.userID, field: "userID", max: AttributionRules.maxUserIDLength)
        } catch { throw APIError(error) }
        // A secret key is the app's backend, which knows who signed in where; a publishable key is any copy of the app,
        // which may name any user id: its binding is provisional, and it is shown only its own install's.
        let authority: UserBinding.Authority = auth.key.kind == .secret ? .server : .device
        let binding = try await store.bindUser(appID: auth.app.id, environment: auth.key.environment, userID: userID, installID: installID,
                                               authority: authority, now: now())
        let bound = binding.installID == installID
        guard bound || authority == .server else {
            return try JSONBody.response(AttributeUserResponse(userID: userID, attributed: false, boundToThisInstall: false))
        }
        let matched = try await answer(for: binding.attribution, appID: auth.app.id)
        return try JSONBody.response(AttributeUserResponse(
            userID: binding.userID, attributed: matched.matched, matchType: matched.matchType, confidence: matched.confidence, link: matched.link,
            boundToThisInstall: bound))
    }

    // MARK: SDK

    func validate(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .publishable)
        let app = auth.app
        return try JSONBody.response(SDKValidateResponse(
            valid: true, appID: app.id, appName: app.name, domains: app.domains, environment: auth.key.environment,
            urlScheme: app.ios.urlScheme, attributionWindowSeconds: Int(app.attribution.window)))
    }

    func events(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request)
        let body = try await JSONBody.decode(EventsRequest.self, from: request, limit: maxBodyBytes)
        let records: [EventRecord]
        do {
            records = try AttributionRules.events(body, appID: auth.app.id, environment: auth.key.environment, now: now())
        } catch { throw APIError(error) }
        for (index, record) in records.enumerated() {
            guard let linkID = record.linkID else { continue }
            guard let link = try await store.link(id: linkID, appID: auth.app.id), link.environment == auth.key.environment else {
                throw APIError(.notFound, message: "events[\(index)].linkID names no link of this app", field: "events[\(index)].linkID")
            }
        }
        try await store.recordEvents(records)
        return try JSONBody.response(EventsResponse(accepted: records.count))
    }

    func resolve(_ request: Request, slug rawSlug: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request)
        let query = request.uri.queryParameters
        guard let slug = Slug.normalize(rawSlug) else { throw APIError.notFound("link '\(rawSlug.prefix(64))'") }
        let domain: String
        if let requested = query["domain"].map(String.init) {
            // Any host that is not one of the app's has no link of this key, as a link of another app does not.
            guard let normalized = DomainName.normalizeHostHeader(requested), let own = auth.app.linkDomain(forHost: normalized) else {
                throw APIError(.notFound, message: "domain is not one of this app's link domains", field: "domain")
            }
            domain = own
        } else {
            guard let first = auth.app.domains.first else { throw APIError.notFound("link '\(slug)'") }
            domain = first
        }
        // Checked before the link is looked up, so that a malformed id is named whatever the link's state.
        var installID: String?
        if let text = query["installID"].map(String.init) {
            do { installID = try AttributionRules.validateIdentifier(text, field: "installID", max: AttributionRules.maxInstallIDLength) } catch { throw APIError(error) }
        }
        guard let link = try await store.link(domain: domain, slug: slug), link.appID == auth.app.id, link.environment == auth.key.environment else {
            throw APIError.notFound("link '\(slug)'")
        }
        let time = now()
        switch link.status(at: time) {
        // 404, not 410: the link may come back (a PATCH), which 410 would deny; the code tells it from an unknown slug.
        case .expired: throw APIError(.gone, message: "link '\(slug)' has expired")
        case .disabled: throw APIError(.gone, message: "link '\(slug)' is disabled")
        case .active: break
        }
        try await store.recordEvents([EventRecord(appID: auth.app.id, environment: link.environment, name: "link_open", installID: installID,
                                                  linkID: link.id, properties: [:], occurredAt: time, receivedAt: time)])
        return try JSONBody.response(ResolveResponse(link: link.data))
    }
}
