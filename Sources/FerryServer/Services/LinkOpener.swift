#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation

/// An app opened with a link asks what the link holds: the link of a slug, checked to be the asker's and active, with
/// the open recorded as an event. `/v1/links/resolve/{slug}` and the compatible routes come here; the events an app
/// sends itself (`/v1/events`) are recorded here too.
struct LinkOpener: Sendable {
    let store: any FerryDatabase
    let resolver: LinkResolver
    let admin: FerryAdmin
    /// Firebase Dynamic Links long links, for `open(url:…)`.
    let longLinks: LongLinks

    var now: @Sendable () -> Date { admin.now }

    /// The link of a slug on one of the app's domains (the default one when `domain` is nil), active, of the key's
    /// environment; its open is recorded as a `link_open` of the install when one is named. `rawSlug` is the slug, or
    /// the link's path on the domain as the app was opened with it, without its leading `/` (`links/promo` on a domain
    /// with the path prefix `/links`, `link/promo`): what the path names there (`LinkPath`) comes first.
    func open(slug rawSlug: String, domain requested: String?, installID text: String?, app: App, environment: APIEnvironment) async throws -> Link {
        // What no slug nor link path can be is named before the domain is judged.
        guard (1...LinkPath.maxRequestPathLength).contains(rawSlug.utf8.count),
              rawSlug.utf8.allSatisfy({ Slug.isSlugByte(LinkPath.lowercase($0)) || $0 == UInt8(ascii: "/") }) else {
            throw ValidationError.linkNotFound(rawSlug)
        }
        let domain: String
        if let requested {
            // Any host that is not one of the app's has no link of this key, as a link of another app does not.
            guard let normalized = DomainName.normalizeHostHeader(requested), let own = app.linkDomain(forHost: normalized) else {
                throw ValidationError(code: .notFound, field: "domain", "domain is not one of this app's link domains")
            }
            domain = own
        } else {
            guard let first = app.domains.first else { throw ValidationError.linkNotFound(rawSlug.lowercased()) }
            domain = first
        }
        let slug: String
        if case .slug(let named)? = LinkPath.parse(path: "/" + rawSlug, prefix: app.pathPrefixes[domain]) {
            slug = named
        } else if let bare = Slug.normalize(rawSlug) {
            slug = bare
        } else {
            throw ValidationError.linkNotFound(rawSlug)
        }
        // Checked before the link is looked up, so that a malformed id is named whatever the link's state.
        let installID = try text.map { t throws(ValidationError) in
            try AttributionRules.validateIdentifier(t, field: "installID", max: AttributionRules.maxInstallIDLength)
        }
        guard let link = try await store.link(domain: domain, slug: slug), link.appID == app.id, link.environment == environment else {
            throw ValidationError.linkNotFound(slug)
        }
        let time = now()
        try Self.checkActive(link, slug: slug, at: time)
        try await record("link_open", link: link, installID: installID, properties: [:], at: time)
        return link
    }

    /// The longest URL `open(url:…)` reads (sent in a query, it must fit a request line whatever its escaping).
    static let maxURLLength = 4096

    /// The link behind a whole URL the app was opened with: a long link (`https://domain/?link=…`, stored now if it
    /// is new) or a short link (`https://domain/slug`, `https://sub.domain/link/slug`), on one of the app's domains;
    /// its open is recorded as for `open(slug:…)`. Long links are live links: a test key finds none.
    func open(url text: String, installID: String?, app: App, environment: APIEnvironment) async throws -> Link {
        guard text.utf8.count <= Self.maxURLLength, let parts = URLComponents(string: text),
              let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https", let rawHost = parts.host, !rawHost.isEmpty
        else {
            throw ValidationError(field: "url", "url must be the http or https URL of a link")
        }
        let hostText = rawHost.lowercased() + (parts.port.map { ":\($0)" } ?? "")
        guard let host = DomainName.normalizeHostHeader(hostText), let domain = app.linkDomain(forHost: host) else {
            throw ValidationError(code: .notFound, field: "url", "the url is not on one of this app's link domains")
        }
        // A long link is at the domain's root (`/`, or its path prefix); any other path is a short link's.
        guard LinkPath.parse(path: parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath, host: host, app: app) == .root,
              let query = parts.percentEncodedQuery, LongLink.isLongLink(query: query)
        else {
            let path = parts.percentEncodedPath.drop { $0 == "/" }
            return try await open(slug: String(path), domain: domain, installID: installID, app: app, environment: environment)
        }
        let installID = try installID.map { t throws(ValidationError) in
            try AttributionRules.validateIdentifier(t, field: "installID", max: AttributionRules.maxInstallIDLength)
        }
        let link: Link
        switch try await longLinks.resolve(host: host, query: query, asker: .subject(nil), storing: .now) {
        case .link(let resolved) where resolved.link.appID == app.id && resolved.link.environment == environment:
            link = resolved.link
        case .refused(let refusal):
            throw ValidationError(field: "url", "the long link cannot be followed: \(refusal.message)")
        case .resolution(.unavailable(let error)):
            throw error
        default:
            throw ValidationError(code: .notFound, field: "url", "the url names no link of this key")
        }
        let time = now()
        try Self.checkActive(link, slug: link.slug, at: time)
        try await record("link_open", link: link, installID: installID, properties: [:], at: time)
        return link
    }

    /// The link behind a slug for the LimeLink-style routes: on the host's app (a link domain or a subdomain of one),
    /// else on the app of the key the request carries, else on the only app there is. With a key, only a link of the
    /// key's app and environment.
    func find(slug: String, host: String?, auth: AuthenticatedKey?) async throws -> ResolvedLink? {
        if let host, let resolved = try await resolver.link(host: host, slug: slug) {
            guard let auth else { return resolved }
            return resolved.link.appID == auth.app.id && resolved.link.environment == auth.key.environment ? resolved : nil
        }
        let fallback: App?
        if let auth { fallback = auth.app } else { fallback = try await admin.soleApp() }
        guard let app = fallback, let link = try await link(slug: slug, on: app, environment: auth?.key.environment) else { return nil }
        return ResolvedLink(link: link, app: app)
    }

    /// The link of a slug on any of the app's domains, of the environment.
    func link(slug: String, app: App, environment: APIEnvironment) async throws -> Link {
        guard let link = try await link(slug: slug, on: app, environment: environment) else { throw ValidationError.linkNotFound(slug) }
        return link
    }

    /// The first link of a slug on the app's domains, in their order, of the environment when one is given.
    private func link(slug: String, on app: App, environment: APIEnvironment?) async throws -> Link? {
        for domain in app.domains {
            if let link = try await store.link(domain: domain, slug: slug), link.appID == app.id, environment.map({ link.environment == $0 }) ?? true {
                return link
            }
        }
        return nil
    }

    /// 404, not 410: the link may come back (a PATCH), which 410 would deny; the code tells it from an unknown slug.
    static func checkActive(_ link: Link, slug: String, at time: Date) throws(ValidationError) {
        switch link.status(at: time) {
        case .expired: throw ValidationError(code: .gone, field: nil, "link '\(slug)' has expired")
        case .disabled: throw ValidationError(code: .gone, field: nil, "link '\(slug)' is disabled")
        case .active: break
        }
    }

    /// Records one event of a link.
    func record(_ name: String, link: Link, installID: String? = nil, properties: [String: String], at time: Date) async throws {
        try await store.recordEvents([EventRecord(appID: link.appID, environment: link.environment, name: name, installID: installID,
                                                  linkID: link.id, properties: properties, occurredAt: time, receivedAt: time)])
    }

    /// `POST /v1/events`: validates an app's events, each link they name being the app's, and stores them.
    func record(_ body: EventsRequest, app: App, environment: APIEnvironment) async throws -> Int {
        let records = try AttributionRules.events(body, appID: app.id, environment: environment, now: now())
        for (index, record) in records.enumerated() {
            guard let linkID = record.linkID else { continue }
            guard let link = try await store.link(id: linkID, appID: app.id), link.environment == environment else {
                throw ValidationError(code: .notFound, field: "events[\(index)].linkID", "events[\(index)].linkID names no link of this app")
            }
        }
        try await store.recordEvents(records)
        return records.count
    }
}
#endif
