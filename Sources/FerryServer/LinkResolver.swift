#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import FerryStore

/// Finds what a click on a host and a slug is answered from: the app that serves the host (the host, the host
/// without its port, then the domains it is a subdomain of), that app's link domain for the host, and the slug's
/// link there; on a host no app serves, whether a link was made on the host before its app dropped it.
///
/// The edge's fast path asks without waiting (`resolveNow`: the cache, and on SQLite a point read on the calling
/// thread) and the router, the API and the compatible routes ask waiting for the database where the cache does not
/// know (`resolve`, with the lookups' deadline and the stale entries of an outage). Both walk the same steps
/// (`LinkLookup`), so that the two paths cannot come to different answers for one request.
struct LinkResolver: Sendable {
    let store: any FerryDatabase
    let cache: LinkCache
    /// The store's lookups, each with its deadline.
    let lookups: EdgeLookups
    /// The store, when it can read a link without suspending (SQLite), for answers that may not wait.
    let immediateReader: (any ImmediateLinkReading)?
    /// Where lookups of slugs the cache does not know are counted per client address.
    let limits: RequestLimits

    /// Whose lookups of unknown slugs count against the `unknown-slugs` limit of a client address.
    enum Asker {
        /// A known subject, or nobody (nil: lookups for the API are not counted here).
        case subject(RateLimitSubject?)
        /// A click's origin; its address is worked out only when a slug the cache does not know is looked up.
        case origin(ClickOrigin)
    }

    /// The steps for one question about a slug, not taken yet.
    func lookup(_ goal: LinkLookup.Goal, host: String, slug: String, asker: Asker, countingMisses: Bool) -> LinkLookup {
        lookup(goal, host: host, target: .slug(slug), asker: asker, countingMisses: countingMisses)
    }

    /// The steps for one question, not taken yet.
    func lookup(_ goal: LinkLookup.Goal, host: String, target: LinkLookup.Target, asker: Asker, countingMisses: Bool) -> LinkLookup {
        LinkLookup(goal: goal, host: host, target: target, asker: asker, cache: cache, limits: limits, countingMisses: countingMisses)
    }

    /// What a click on a slug finds without waiting (see `resolveNow(_:host:origin:)`).
    func resolveNow(host: String, slug: String, origin: ClickOrigin) -> LinkResolution? {
        resolveNow(.slug(slug), host: host, origin: origin)
    }

    /// What a click on a request path finds without waiting (see `resolveNow(_:host:origin:)`); what the path names
    /// is read with the path prefix of the host's domain (`LinkPath`).
    func resolveNow(host: String, path: String, origin: ClickOrigin) -> LinkResolution? {
        resolveNow(.path(path), host: host, origin: origin)
    }

    /// What a click finds without waiting: from the cache, or, for a link the cache does not hold on a store that can
    /// read one at once (SQLite), from a point read on the calling thread. Nil when that cannot be told without
    /// waiting (a host the cache does not know, a link on a store that cannot read it at once or whose reader is
    /// busy): then `resolve` answers.
    func resolveNow(_ target: LinkLookup.Target, host: String, origin: ClickOrigin) -> LinkResolution? {
        let immediate = immediateReader
        // Without a reader a miss is given up here and counted by the path that reads it.
        var lookup = self.lookup(.click, host: host, target: target, asker: .origin(origin), countingMisses: immediate != nil)
        while true {
            switch lookup.next() {
            case .done(let resolution):
                return resolution
            case .readApp:
                return nil
            case .readLink(let domain, let slug):
                guard let immediate else { return nil }
                let link: Link?
                do { link = try immediate.linkImmediately(domain: domain, slug: slug) } catch { return nil }
                lookup.found(link: link)
            }
        }
    }

    /// What a question finds, asking the database (with the lookups' deadline) what the cache does not know; while
    /// the database is away, from what the cache knew before it was last emptied, else `.unavailable`.
    func resolve(_ goal: LinkLookup.Goal, host: String, slug: String = "", asker: Asker = .subject(nil)) async throws -> LinkResolution {
        try await resolve(goal, host: host, target: .slug(slug), asker: asker)
    }

    /// What a question about a request path finds (see `resolve(_:host:slug:asker:)`); what the path names is read
    /// with the path prefix of the host's domain (`LinkPath`).
    func resolve(_ goal: LinkLookup.Goal, host: String, path: String, asker: Asker = .subject(nil)) async throws -> LinkResolution {
        try await resolve(goal, host: host, target: .path(path), asker: asker)
    }

    private func resolve(_ goal: LinkLookup.Goal, host: String, target: LinkLookup.Target, asker: Asker) async throws -> LinkResolution {
        var lookup = self.lookup(goal, host: host, target: target, asker: asker, countingMisses: true)
        let store = store
        while true {
            switch lookup.next() {
            case .done(let resolution):
                return resolution
            case .readApp(let host):
                do {
                    lookup.found(app: try await lookups.run { try await Self.app(serving: host, in: store) })
                } catch let error as DatabaseUnavailable {
                    lookup.readFailed(error)
                }
            case .readLink(let domain, let slug):
                do {
                    lookup.found(link: try await lookups.run { try await store.link(domain: domain, slug: slug) })
                } catch let error as DatabaseUnavailable {
                    lookup.readFailed(error)
                }
            }
        }
    }

    /// The app that serves a host, through the cache; nil when none does. Throws `DatabaseUnavailable` when the
    /// database is away and the cache knew nothing of the host before.
    func app(forHost host: String) async throws -> Shared<App>? {
        switch try await resolve(.app, host: host) {
        case .app(let app): return app
        case .unavailable(let error): throw error
        default: return nil
        }
    }

    /// The link of a slug on the app that serves a host (which may not be served on it: see `isServedHere`), or nil.
    /// With a subject, a slug the cache does not know counts against the subject's limit of unknown slugs, and a
    /// subject over it gets `UnknownSlugFlood` instead of a database read.
    func link(host: String, slug: String, clickFrom subject: RateLimitSubject? = nil) async throws -> ResolvedLink? {
        switch try await resolve(.link, host: host, slug: slug, asker: .subject(subject)) {
        case .link(let resolved): return resolved
        case .tooManyUnknownSlugs(let wait): throw UnknownSlugFlood(retryAfter: wait)
        case .unavailable(let error): throw error
        default: return nil
        }
    }

    /// The store's app for a host: the host as it is, without its port, then the domains it is a subdomain of (with
    /// the host's port, then without). A public suffix or a single label is never a link domain (an app that kept
    /// one from before that rule would otherwise answer for every host under it).
    static func app(serving host: String, in store: any FerryDatabase) async throws -> App? {
        var app = try await store.app(forDomain: host)
        if app == nil, !host.hasPrefix("["), host.contains(":") {
            app = try await store.app(forDomain: String(DomainName.hostPart(of: host)))
        }
        let port = host.hasPrefix("[") ? nil : host.split(separator: ":").dropFirst().first
        for parent in App.parentDomains(of: host) where app == nil && DomainName.ownershipRefusal(parent, suffixes: .bundled) == nil {
            if let port { app = try await store.app(forDomain: "\(parent):\(port)") }
            if app == nil { app = try await store.app(forDomain: parent) }
        }
        return app
    }
}

/// What the steps from a host and a slug came to.
enum LinkResolution {
    /// The host's app, for a question about the app alone (nil when no app serves the host); for a click, the host's
    /// app when the path is the root of a domain with a path prefix (`LinkPath.root`).
    case app(Shared<App>?)
    /// The slug's link on the app that serves the host; answered only when `isServedHere`.
    case link(ResolvedLink)
    /// No such link: none on the host's app, none made on a host no app serves, or (asking for a link) no app.
    case unknown
    /// A host no app serves where a link of the slug was made: its app dropped the domain since.
    case retired
    /// The client's address is over its limit of unknown slugs; nothing was looked up.
    case tooManyUnknownSlugs(retryAfter: Int)
    /// The database is away and the cache knew nothing of what was asked before it was last emptied.
    case unavailable(DatabaseUnavailable)
}

/// One walk through `LinkResolver`'s steps, as a value: `next()` takes every step the cache answers and stops at the
/// first that needs the store, which the caller reads (at once, waiting, or not at all) and hands back with
/// `found(app:)`, `found(link:)` or `readFailed(_:)` before asking `next()` again. The walk holds the rules — which
/// host's app, which link domain, when an unknown slug is refused or counted, what a failed read falls back to —
/// and the callers only how they read.
struct LinkLookup {
    /// What a walk is for.
    enum Goal {
        /// The app that serves the host.
        case app
        /// The slug's link on the host's app (nothing more when no app serves the host).
        case link
        /// A click: on a host no app serves, also whether a link of the slug was made there.
        case click
    }

    /// What the walk needs next.
    enum Step {
        /// The store's app for the host (`LinkResolver.app(serving:in:)`): the cache does not know it.
        case readApp(host: String)
        /// The store's link of a slug on a domain: the cache does not know it.
        case readLink(domain: String, slug: String)
        /// The end of the walk.
        case done(LinkResolution)
    }

    private enum Phase {
        case app
        /// Looking for the slug on a domain: the app's link domain for the host, or the host when no app serves it.
        case link(app: Shared<App>?, domain: String)
        case done(LinkResolution)
    }

    /// What is looked for on the host's app.
    enum Target {
        /// A slug (already in its canonical form).
        case slug(String)
        /// Whatever a raw request path names on the host (`LinkPath.parse`), once the host's app, and so the path
        /// prefix of its domain, is known.
        case path(String)
    }

    let goal: Goal
    let host: String
    private let target: Target
    /// The slug looked up: the target's, or the one its path names (empty until then, and for a path that names none).
    private(set) var slug: String
    private var asker: LinkResolver.Asker
    private let cache: LinkCache
    private let limits: RequestLimits
    /// Whether a link the cache does not know counts as a cache miss (not for a caller that gives up rather than
    /// read it: the caller that then reads it counts it).
    private let countingMisses: Bool
    private var phase = Phase.app
    /// The cache's generation when a read began: what the read finds is kept only if the cache was not emptied since.
    private var generation: UInt64 = 0

    init(goal: Goal, host: String, target: Target, asker: LinkResolver.Asker, cache: LinkCache, limits: RequestLimits, countingMisses: Bool) {
        self.goal = goal
        self.host = host
        self.target = target
        if case .slug(let slug) = target { self.slug = slug } else { slug = "" }
        self.asker = asker
        self.cache = cache
        self.limits = limits
        self.countingMisses = countingMisses
    }

    /// The next step: a read the cache cannot stand in for, or the end. Asked once at the start and once after each
    /// read's result.
    mutating func next() -> Step {
        while true {
            switch phase {
            case .done(let resolution):
                return .done(resolution)
            case .app:
                guard let entry = cache.app(host: host) else {
                    generation = cache.generation
                    return .readApp(host: host)
                }
                appKnown(entry.value)
            case .link(let app, let domain):
                guard let entry = cache.link(domain: domain, slug: slug, countingMisses: countingMisses) else {
                    if case .limited(let wait)? = subject().map({ limits.limiter.check(.unknownSlugs, for: $0) }) {
                        phase = .done(.tooManyUnknownSlugs(retryAfter: wait))
                        continue
                    }
                    generation = cache.generation
                    return .readLink(domain: domain, slug: slug)
                }
                linkKnown(entry, app: app)
            }
        }
    }

    /// The store's answer to `.readApp`.
    mutating func found(app: App?) {
        appKnown(cache.store(app.map { .found($0) } ?? .missing, host: host, generation: generation).value)
    }

    /// The store's answer to `.readLink`. A link that does not exist counts against the asker's limit of unknown
    /// slugs (it is now cached as missing, so the same slug again costs nothing).
    mutating func found(link: Link?) {
        guard case .link(let app, let domain) = phase else { return }
        if link == nil, let subject = subject() { _ = limits.limiter.take(.unknownSlugs, for: subject) }
        linkKnown(cache.store(link.map { .found($0) } ?? .missing, domain: domain, slug: slug, generation: generation), app: app)
    }

    /// The database was away for the last read: what the cache knew before it was last emptied stands in (a link is
    /// better redirected to where it pointed a moment ago than not at all), else the walk ends `.unavailable`. On a
    /// host no app serves, a link that cannot be read is taken as unknown.
    mutating func readFailed(_ error: DatabaseUnavailable) {
        switch phase {
        case .app:
            guard let stale = cache.staleApp(host: host) else {
                phase = .done(.unavailable(error))
                return
            }
            appKnown(stale.value)
        case .link(nil, _):
            phase = .done(.unknown)
        case .link(let app, let domain):
            guard let stale = cache.staleLink(domain: domain, slug: slug) else {
                phase = .done(.unavailable(error))
                return
            }
            linkKnown(stale, app: app)
        case .done:
            break
        }
    }

    private mutating func appKnown(_ app: Shared<App>?) {
        switch (goal, app) {
        case (.app, _):
            phase = .done(.app(app))
        case (.link, nil):
            phase = .done(.unknown)
        case (_, let app?):
            let domain = app.value.linkDomain(forHost: host) ?? host
            switch named(prefix: app.value.pathPrefixes.isEmpty ? nil : app.value.pathPrefixes[domain]) {
            case .slug?: phase = .link(app: app, domain: domain)
            case .root? where goal == .click: phase = .done(.app(app))
            case .root?, nil: phase = .done(.unknown)
            }
        case (.click, nil):
            // A host no app serves has no path prefix: a link made on it before its app dropped it is `/{slug}`.
            if case .slug? = named(prefix: nil) { phase = .link(app: nil, domain: host) } else { phase = .done(.unknown) }
        }
    }

    /// What the target names on a domain with `prefix`; the slug, when it names one, becomes the walk's.
    private mutating func named(prefix: String?) -> LinkPath? {
        switch target {
        case .slug(let slug):
            return .slug(slug)
        case .path(let path):
            let named = LinkPath.parse(path: path, prefix: prefix)
            if case .slug(let slug)? = named { self.slug = slug }
            return named
        }
    }

    private mutating func linkKnown(_ entry: LinkCache.Entry<Shared<Link>>, app: Shared<App>?) {
        switch (entry, app) {
        case (.found(let link), let app?): phase = .done(.link(ResolvedLink(link: link, app: app)))
        case (.found, nil): phase = .done(.retired)
        case (.missing, _): phase = .done(.unknown)
        }
    }

    /// The asker's subject, worked out from a click's origin the first time it is needed.
    private mutating func subject() -> RateLimitSubject? {
        switch asker {
        case .subject(let subject):
            return subject
        case .origin(let origin):
            let subject = limits.addressSubject(origin)
            asker = .subject(subject)
            return subject
        }
    }
}

extension LinkCache.Entry {
    /// The value, or nil for a known absence.
    var value: Value? {
        if case .found(let value) = self { value } else { nil }
    }
}
#endif
