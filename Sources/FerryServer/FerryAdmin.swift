#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation

/// The operations shared by the API and the command-line tool: creating apps, keys and links with every rule
/// applied. One implementation, so `ferry link create` and `POST /v1/links` cannot disagree.
package struct FerryAdmin: Sendable {
    /// The store changed.
    package let store: any FerryDatabase
    /// The clock.
    package let now: @Sendable () -> Date

    /// Creates the admin over a store.
    package init(store: any FerryDatabase, now: @escaping @Sendable () -> Date = { FerryAdmin.wallClock() }) {
        self.store = store
        self.now = now
    }

    /// Now, to the millisecond (what the API prints is what is stored).
    package static func wallClock() -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    /// What an app is created from.
    package struct AppSpec: Sendable {
        package var name: String
        package var domains: [String]
        package var teamID: String?
        package var bundleIDs: [String] = []
        package var appStoreID: String?
        package var urlScheme: String?
        package var androidPackage: String?
        package var androidFingerprints: [String] = []
        package var fallbackURL: String?
        package var social = SocialMetadata()
        package var attribution = AttributionSettings()
        /// Patterns a long link's URLs must match (see `URLAllowlist`).
        package var allowedURLPatterns: [String] = []
        /// Path prefixes of the app's domains, domain → prefix (`go.example.com` → `/links`).
        package var pathPrefixes: [String: String] = [:]
        /// Whether the app's publishable keys may create links (see `ClientLinkRules`).
        package var clientLinks = false

        /// Creates a spec with a name and domains.
        package init(name: String, domains: [String]) {
            self.name = name
            self.domains = domains
        }

        /// The spec an existing app was made from.
        package init(app: App) {
            name = app.name
            domains = app.domains
            teamID = app.ios.teamID
            bundleIDs = app.ios.bundleIDs
            appStoreID = app.ios.appStoreID
            urlScheme = app.ios.urlScheme
            androidPackage = app.android.packageName
            androidFingerprints = app.android.sha256Fingerprints
            fallbackURL = app.fallbackURL
            social = app.social
            attribution = app.attribution
            allowedURLPatterns = app.allowedURLPatterns
            pathPrefixes = app.pathPrefixes
            clientLinks = app.clientLinks
        }
    }

    /// Appends what `actor` did to the audit log; without an actor (the server's first start, a test of the rules)
    /// nothing is recorded.
    package func audit(_ actor: AuditActor?, _ action: String, _ objectType: String, _ objectID: String, app: String?,
                       environment: APIEnvironment?, changes: [String: AuditChange]) async throws {
        guard let actor else { return }
        _ = try await store.recordAuditEvent(AuditEvent(appID: app, environment: environment, at: now(), actor: actor, action: action,
                                                        objectType: objectType, objectID: objectID, changes: changes))
    }

    /// Validates a spec and stores the app.
    package func createApp(_ spec: AppSpec, by actor: AuditActor? = nil) async throws -> App {
        var generator = SystemRandomNumberGenerator()
        let app = try Self.makeApp(spec, id: Identifiers.make(prefix: "app", using: &generator), createdAt: now())
        try await store.createApp(app)
        try await audit(actor, "created", "app", app.id, app: app.id, environment: nil, changes: AuditChange.created(AuditSnapshot.app(app)))
        return app
    }

    /// Validates a changed spec and replaces the app's settings and domains.
    package func updateApp(id: String, by actor: AuditActor? = nil, _ change: (inout AppSpec) -> Void) async throws -> App {
        guard let current = try await store.app(id: id) else { throw ValidationError(code: .notFound, field: "app", "no app with id '\(id)'") }
        var spec = AppSpec(app: current)
        change(&spec)
        let app = try Self.makeApp(spec, id: current.id, createdAt: current.createdAt, keeping: current.domains)
        guard try await store.updateApp(app) else { throw ValidationError(code: .notFound, field: "app", "no app with id '\(id)'") }
        let changes = AuditChange.between(AuditSnapshot.app(current), AuditSnapshot.app(app))
        if !changes.isEmpty { try await audit(actor, "updated", "app", app.id, app: app.id, environment: nil, changes: changes) }
        return app
    }

    /// Every rule an app's settings follow, whether new or changed. A domain the app has already (`keeping`) is not
    /// judged again by the ownership rules, which may be stricter than when it was added.
    static func makeApp(_ spec: AppSpec, id: String, createdAt: Date, keeping existing: [String] = [],
                        suffixes: PublicSuffixList? = .bundled) throws(ValidationError) -> App {
        let trimmed = spec.name.trimmingCharacters(in: .whitespaces)
        guard (1...200).contains(trimmed.count) else { throw ValidationError(field: "name", "name must be 1 to 200 characters") }
        try LinkRules.checkText(trimmed, field: "name", max: 800)
        guard !spec.domains.isEmpty else { throw ValidationError(field: "domain", "an app needs at least one link domain") }
        var domains: [String] = []
        for domain in spec.domains {
            let normalized = try DomainName.validate(domain)
            if !existing.contains(normalized), let refusal = DomainName.ownershipRefusal(normalized, suffixes: suffixes) {
                throw ValidationError(field: "domain", refusal)
            }
            if !domains.contains(normalized) { domains.append(normalized) }
        }
        var ios = IOSSettings()
        ios.teamID = try spec.teamID.map { t throws(ValidationError) in try AppRules.validateTeamID(t) }
        ios.bundleIDs = try spec.bundleIDs.map { b throws(ValidationError) in try AppRules.validateBundleID(b) }
        ios.appStoreID = try spec.appStoreID.map { a throws(ValidationError) in try AppRules.validateAppStoreID(a) }
        ios.urlScheme = try spec.urlScheme.map { u throws(ValidationError) in try AppRules.validateURLScheme(u) }
        if ios.teamID == nil, !ios.bundleIDs.isEmpty {
            throw ValidationError(field: "teamID", "bundle ids need the Apple team id to build the association file")
        }
        var android = AndroidSettings()
        android.packageName = try spec.androidPackage.map { p throws(ValidationError) in try AppRules.validateBundleID(p, field: "androidPackage") }
        android.sha256Fingerprints = try spec.androidFingerprints.map { f throws(ValidationError) in try AppRules.normalizeFingerprint(f) }
        if android.packageName == nil, !android.sha256Fingerprints.isEmpty {
            throw ValidationError(field: "androidPackage", "signing fingerprints need the Android package name to build assetlinks.json")
        }
        if let fallback = spec.fallbackURL { try URLRules.validateWebURL(fallback, field: "fallbackURL") }
        try LinkRules.validateSocial(spec.social, field: "social")
        try URLAllowlist.validate(spec.allowedURLPatterns)
        let window = spec.attribution.window
        guard window.isFinite, (AttributionSettings.minimumWindow...AttributionSettings.maximumWindow).contains(window) else {
            throw ValidationError(field: "attributionWindow", "the attribution window must be from 1 hour to 7 days")
        }
        if let minimum = spec.attribution.minConfidence { _ = try AttributionRules.validateMinConfidence(minimum) }
        return App(
            id: id, name: trimmed, domains: domains, ios: ios, android: android,
            fallbackURL: spec.fallbackURL, social: spec.social, attribution: spec.attribution,
            allowedURLPatterns: spec.allowedURLPatterns, clientLinks: spec.clientLinks,
            pathPrefixes: try pathPrefixes(spec.pathPrefixes, domains: domains, existing: existing), createdAt: createdAt
        )
    }

    /// An app's path prefixes, each checked (`LinkPath.validatePrefix`) and on one of its domains. The prefix of a
    /// domain the app drops goes with it; one for a domain the app never had is refused.
    static func pathPrefixes(_ prefixes: [String: String], domains: [String], existing: [String]) throws(ValidationError) -> [String: String] {
        var valid: [String: String] = [:]
        for (domain, prefix) in prefixes.sorted(by: { $0.key < $1.key }) {
            let normalized = try DomainName.validate(domain, field: "pathPrefix")
            guard domains.contains(normalized) else {
                if existing.contains(normalized) { continue }
                throw ValidationError(field: "pathPrefix", "domain '\(normalized)' is not one of this app's link domains")
            }
            valid[normalized] = try LinkPath.validatePrefix(prefix)
        }
        return valid
    }

    /// Creates a key for an app, limited to `scopes` when given (secret keys only); returns the record and the key
    /// text, which is never stored and never shown again.
    package func createKey(appID: String, kind: APIKeyKind, environment: APIEnvironment, scopes: Set<APIKeyScope>? = nil,
                           by actor: AuditActor? = nil) async throws -> (record: APIKeyRecord, key: String) {
        if let scopes {
            guard kind == .secret else {
                throw ValidationError(field: "scope", "publishable keys have no scopes: what they may do is fixed (resolve links, match installs, send events)")
            }
            guard !scopes.isEmpty else { throw ValidationError(field: "scope", APIKeyScope.ScopeListError.empty.description) }
        }
        guard try await store.app(id: appID) != nil else { throw ValidationError(code: .notFound, field: "app", "no app with id '\(appID)'") }
        var generator = SystemRandomNumberGenerator()
        let key = APIKeyFormat(kind: kind, environment: environment).prefix + Identifiers.apiKeySecret(using: &generator)
        let record = APIKeyRecord(
            id: Identifiers.make(prefix: "key", using: &generator), appID: appID, kind: kind, environment: environment,
            hash: Secrets.hashKey(key), hint: String(key.prefix(12)) + "…", createdAt: now(), scopes: scopes
        )
        try await store.createKey(record)
        try await audit(actor, "created", "key", record.id, app: appID, environment: environment, changes: AuditChange.created(AuditSnapshot.key(record)))
        return (record, key)
    }

    /// Validates a request and stores the link; a generated slug (`slugLength` characters) that collides is drawn again.
    package func createLink(_ request: CreateLinkRequest, app: App, environment: APIEnvironment, createdAt: Date? = nil,
                            slugLength: Int = Slug.generatedLength, by actor: AuditActor? = nil) async throws -> Link {
        let link = try await withFreshSlug(request, app: app, environment: environment, slugLength: slugLength) { link in
            var link = link
            if let createdAt, createdAt < link.createdAt { link.createdAt = createdAt }  // an imported link keeps its age
            try await store.createLink(link)
            return link
        }
        try await auditCreated(link, by: actor)
        return link
    }

    /// Records a new link in the audit log.
    func auditCreated(_ link: Link, by actor: AuditActor?) async throws {
        try await audit(actor, "created", "link", link.id, app: link.appID, environment: link.environment, changes: AuditChange.created(AuditSnapshot.link(link)))
    }

    /// How long the same request from the app returns the link it made, rather than a new one.
    package static let clientLinkReuse: TimeInterval = 24 * 3600

    /// Stores a link made inside the app with a publishable key, held to `ClientLinkRules`. The same request for the
    /// same app and environment within `clientLinkReuse` returns the link the first one made (`created` false): a
    /// share button tapped twice, a retried request or a replayed one make one link.
    package func createClientLink(_ request: CreateLinkRequest, app: App, environment: APIEnvironment,
                                  slugLength: Int = Slug.generatedLength) async throws -> (link: Link, created: Bool) {
        try ClientLinkRules.admit(request, app: app)
        return try await createOnce(request, app: app, environment: environment, slugLength: slugLength, inApp: true)
    }

    /// Stores a link unless the same request (for the same app and environment, made in the app or not, for a slug of
    /// the same length) made one within `clientLinkReuse`: then that link, `created` false. Links made in the app
    /// (`inApp`) are held to `ClientLinkRules` too; they are the app's users' own, not the team's changes, and the audit
    /// log leaves them out (they are listed by `createdInApp`).
    package func createOnce(_ request: CreateLinkRequest, app: App, environment: APIEnvironment, slugLength: Int = Slug.generatedLength,
                            inApp: Bool, by actor: AuditActor? = nil) async throws -> (link: Link, created: Bool) {
        let body = String(decoding: try FerryJSON.makeEncoder().encode(request), as: UTF8.self)
        let digest = Secrets.digest("\(app.id)\n\(environment.rawValue)\n\(inApp)\n\(slugLength)\n\(body)")
        let made = try await withFreshSlug(request, app: app, environment: environment, slugLength: slugLength) { link in
            var link = link
            if inApp {
                link.createdInApp = true
                try ClientLinkRules.check(link, app: app)
            }
            return try await store.createLink(link, requestDigest: digest, reusingSince: link.createdAt.addingTimeInterval(-Self.clientLinkReuse))
        }
        if made.created, !inApp { try await auditCreated(made.link, by: actor) }
        return made
    }

    /// Builds the link a request describes under a fresh random slug and hands it to `store`; a generated slug taken
    /// meanwhile is drawn again (a little longer every second try).
    private func withFreshSlug<Result>(_ request: CreateLinkRequest, app: App, environment: APIEnvironment, slugLength: Int,
                                       store: (Link) async throws -> Result) async throws -> Result {
        var generator = SystemRandomNumberGenerator()
        let id = Identifiers.make(prefix: "lnk", using: &generator)
        for attempt in 0..<6 {
            let slug = Identifiers.slug(length: slugLength + attempt / 2, using: &generator)
            if Slug.reserved.contains(slug) { continue }
            let context = LinkRules.Context(app: app, environment: environment, id: id, generatedSlug: slug, now: now())
            let link = try LinkRules.makeLink(from: request, context: context)
            do {
                return try await store(link)
            } catch is StoreConflict where request.slug == nil {
                continue  // a generated slug collided: draw another
            }
        }
        throw StoreConflict(field: "slug", message: "could not find a free slug; try again")
    }

    /// An app by id.
    package func app(id: String) async throws -> App? {
        try await store.app(id: id)
    }

    /// Every app.
    package func listApps() async throws -> [App] {
        try await store.listApps()
    }

    /// An app's keys, revoked ones included.
    package func keys(appID: String) async throws -> [APIKeyRecord] {
        try await store.keys(appID: appID)
    }

    /// Revokes a key; false when there is no active key with that id.
    package func revokeKey(id: String, by actor: AuditActor? = nil) async throws -> Bool {
        guard id.utf8.count <= 64, let before = try await store.key(id: id) else { return false }
        let at = now()
        guard try await store.revokeKey(id: id, at: at) else { return false }
        var after = before
        after.revokedAt = at
        try await audit(actor, "revoked", "key", id, app: before.appID, environment: before.environment,
                        changes: AuditChange.between(AuditSnapshot.key(before), AuditSnapshot.key(after)))
        return true
    }

    /// The first app, when there is exactly one: what the CLI uses when `--app` is left out.
    package func soleApp() async throws -> App? {
        let apps = try await store.listApps()
        return apps.count == 1 ? apps[0] : nil
    }

    /// What `ferry serve` prints the first time it starts on an empty database.
    package struct Bootstrap: Sendable {
        package var app: App
        package var secretKey: String
        package var publishableKey: String
    }

    /// On a database with no app, creates a default app for `domains` with a live secret and publishable key.
    /// Returns nil when an app exists already.
    package func bootstrapIfEmpty(domains: [String]) async throws -> Bootstrap? {
        guard try await store.listApps().isEmpty else { return nil }
        // Several nodes may start together on one empty database: the one whose mark is stored first sets up.
        let mark = UUID().uuidString
        guard try await store.insertSettingIfAbsent("bootstrapped_by", value: mark) == mark else { return nil }
        let app = try await createApp(AppSpec(name: "Default", domains: domains), by: .system)
        let secret = try await createKey(appID: app.id, kind: .secret, environment: .live, by: .system)
        let publishable = try await createKey(appID: app.id, kind: .publishable, environment: .live, by: .system)
        return Bootstrap(app: app, secretKey: secret.key, publishableKey: publishable.key)
    }
}
#endif
