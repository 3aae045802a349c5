#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation

/// The links of one app and environment as the API, the dashboard and the compatible routes read and change them:
/// `FerryAdmin`'s rules, then this node's cache forgets what changed (other nodes see it through the store's change
/// counter). A link of another app or environment is not found, whatever its id. The command line and the importer
/// use it too, without a cache.
package struct LinkEditor: Sendable {
    /// The rules and the store.
    package let admin: FerryAdmin
    let cache: LinkCache?

    var store: any FerryDatabase { admin.store }

    /// An editor for a process that serves no links (the command line): a running server sees the changes through the
    /// store's change counter within a second.
    package init(admin: FerryAdmin) {
        self.init(admin: admin, cache: nil)
    }

    init(admin: FerryAdmin, cache: LinkCache?) {
        self.admin = admin
        self.cache = cache
    }

    /// Validates and stores a new link; an imported link keeps its age (`createdAt`). Every change here is recorded in
    /// the audit log as `actor`'s (nil only where nobody acts: tests of the rules).
    package func create(_ request: CreateLinkRequest, app: App, environment: APIEnvironment, createdAt: Date? = nil,
                        by actor: AuditActor?) async throws -> Link {
        let link = try await admin.createLink(request, app: app, environment: environment, createdAt: createdAt, by: actor)
        cache?.invalidate(domain: link.domain, slug: link.slug)
        return link
    }

    /// A link that the same request within a day gets again (`created` false, nothing stored): one made inside the
    /// app with a publishable key (`inApp`, held to `ClientLinkRules`), or one made through Firebase's REST API, which
    /// made one short link of one long link.
    func createOnce(_ request: CreateLinkRequest, app: App, environment: APIEnvironment, slugLength: Int = Slug.generatedLength,
                    inApp: Bool, by actor: AuditActor?) async throws -> (link: Link, created: Bool) {
        let made = inApp
            ? try await admin.createClientLink(request, app: app, environment: environment, slugLength: slugLength)
            : try await admin.createOnce(request, app: app, environment: environment, slugLength: slugLength, inApp: false, by: actor)
        if made.created { cache?.invalidate(domain: made.link.domain, slug: made.link.slug) }
        return made
    }

    /// Deletes the links the app's installs made in one environment before `before`, a batch at a time; how many.
    /// The audit log records it as one event (`purged`, object `links` `createdInApp`) with the count and the cutoff.
    package func deleteCreatedInApp(app: App, environment: APIEnvironment, before: Date, by actor: AuditActor?) async throws -> Int {
        let batch = 500
        var total = 0
        while true {
            let places = try await store.deleteLinksCreatedInApp(appID: app.id, environment: environment, createdBefore: before, limit: batch)
            for place in places { cache?.invalidate(domain: place.domain, slug: place.slug) }
            total += places.count
            if places.count < batch { break }
        }
        if total > 0 {
            try await admin.audit(actor, "purged", "links", "createdInApp", app: app.id, environment: environment, changes: [
                "deleted": AuditChange(before: nil, after: String(total)),
                "createdBefore": AuditChange(before: nil, after: FerryJSON.formatDate(before)),
            ])
        }
        return total
    }

    /// The link on a domain under a slug, of any app.
    package func existing(domain: String, slug: String) async throws -> Link? {
        try await store.link(domain: domain, slug: slug)
    }

    /// A page of the links that meet `filter`, newest first.
    package func page(app: App, environment: APIEnvironment, filter: LinkFilter, limit: Int, after cursor: Int64?) async throws -> LinkPage {
        try await store.listLinks(appID: app.id, environment: environment, filter: filter, limit: limit, after: cursor)
    }

    /// A link of the app and environment; anything else is simply not found (404 `not_found`).
    func find(_ id: String, app: App, environment: APIEnvironment) async throws -> Link {
        guard let link = try await existing(id, app: app, environment: environment) else {
            throw ValidationError.linkNotFound(id)
        }
        return link
    }

    /// A link of the app and environment, or nil.
    func existing(_ id: String, app: App, environment: APIEnvironment) async throws -> Link? {
        guard id.utf8.count <= 64, let link = try await store.link(id: id, appID: app.id), link.environment == environment else { return nil }
        return link
    }

    /// Applies a change to a link of the app and environment.
    func update(_ id: String, with update: UpdateLinkRequest, app: App, environment: APIEnvironment, by actor: AuditActor?) async throws -> Link {
        let link = try await find(id, app: app, environment: environment)
        guard let next = try await change(link, update, by: actor) else {
            throw ValidationError.linkNotFound(id)
        }
        return next
    }

    /// Applies a change to a link and stores it; nil when the link is gone meanwhile. Throws `ValidationError` for a
    /// change the rules refuse.
    func change(_ link: Link, _ update: UpdateLinkRequest, by actor: AuditActor?) async throws -> Link? {
        let next = try LinkRules.apply(update, to: link, now: admin.now())
        guard try await store.updateLink(next) else { return nil }
        cache?.invalidate(domain: next.domain, slug: next.slug)
        let changes = AuditChange.between(AuditSnapshot.link(link), AuditSnapshot.link(next))
        if !changes.isEmpty {
            try await admin.audit(actor, "updated", "link", link.id, app: link.appID, environment: link.environment, changes: changes)
        }
        return next
    }

    /// Deletes a link of the app and environment.
    func delete(_ id: String, app: App, environment: APIEnvironment, by actor: AuditActor?) async throws {
        let link = try await find(id, app: app, environment: environment)
        guard try await store.deleteLink(id: link.id, appID: app.id) else {
            throw ValidationError.linkNotFound(id)
        }
        cache?.invalidate(domain: link.domain, slug: link.slug)
        try await admin.audit(actor, "deleted", "link", link.id, app: link.appID, environment: link.environment,
                              changes: AuditChange.removed(AuditSnapshot.link(link)))
    }
}

extension ValidationError {
    /// 404 `not_found` for a link id or slug the asker has no link of (the name cut to 64 characters).
    static func linkNotFound(_ name: some StringProtocol) -> ValidationError {
        ValidationError(code: .notFound, field: nil, "link '\(name.prefix(Slug.maxPathLength))' not found")
    }
}
#endif
