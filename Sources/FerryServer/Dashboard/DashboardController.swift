#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// `/dashboard`: what the marketing side uses. Server-rendered pages (no script at all), a signed session cookie
/// (HttpOnly, SameSite=Strict, Secure behind https), a CSRF token in every form, a strict CSP, nothing from a CDN.
struct DashboardController: Sendable {
    let links: LinkEditor
    let reports: Reports
    let admin: FerryAdmin
    let authenticator: KeyAuthenticator
    let outbox: WebhookOutbox
    let domains: AppDomains
    let sessions: DashboardSessions
    /// People's accounts, sessions and invitations.
    let accounts: Accounts
    let library: MustacheLibrary
    let maxBodyBytes: Int
    /// Failed sign-ins and link creations per client address.
    let limits: RequestLimits
    /// The attribution page's reports, and its refits.
    let attributionReports: AttributionReports
    let refitter: AttributionRefitter
    /// Where a link sends each kind of visitor: the link form's preview.
    let debugger: LinkDebugger
    /// The link imports running or finished on this node.
    let imports: ImportJobs

    static let contentSecurityPolicy = contentSecurityPolicy(imagesFrom: nil)

    /// The pages' policy: nothing but their own stylesheet and images, and with `imagesFrom` (an origin such as
    /// `https://cdn.example.com`) that origin's images too, for a preview card's picture.
    static func contentSecurityPolicy(imagesFrom origin: String?) -> String {
        "default-src 'none'; style-src 'self'; img-src 'self' data:\(origin.map { " " + $0 } ?? ""); form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    /// Who is signed in.
    struct Viewer: Sendable {
        /// The app and environment the pages show.
        var app: App
        var environment: APIEnvironment
        /// What the viewer may do there: a key signs in as the owner of its app.
        var role: MemberRole
        /// The person signed in, with their session, roles and the apps they are members of (nil for a key).
        var person: Person?
        var csrf: String
        /// Who the viewer's changes are recorded as in the audit log.
        var actor: AuditActor
        /// A person who is a member of no app: only their account's pages.
        var memberOfNone = false

        /// A person's account as the pages see it.
        struct Person: Sendable {
            var user: UserRecord
            var session: UserSessionRecord
            /// Each app the person is a member of, with the role there, in the order of their memberships.
            var apps: [(app: App, role: MemberRole)]
        }

        func may(_ action: MemberAction) -> Bool { role.may(action) }
    }

    /// A page to show instead of the one asked for (the sign-in page, a redirect).
    struct Detour: Error {
        var response: Response
    }

    func register(on router: Router<FerryRequestContext>) {
        let group = router.group("/dashboard")
        group.get("/assets/dashboard.css") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/css; charset=utf-8"
            headers[.cacheControl] = "public, max-age=3600"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: DashboardTemplates.stylesheet)))
        }
        group.get("/sign-in") { request, _ in signInPage(request, error: nil) }
        group.post("/sign-in") { request, context in try await signIn(request, context: context) }
        group.post("/sign-out") { request, context in
            try await guarded(request, context, needs: .read) { viewer, _ in
                if let person = viewer.person {
                    _ = try await accounts.endSession(hash: person.session.hash, of: person.user, by: viewer.actor)
                } else {
                    try await sessions.end(request.cookies[DashboardSessions.cookie]?.value)
                }
                return redirect("/dashboard/sign-in", clearing: true)
            }
        }
        registerTeamPages(on: group)
        registerKeyPages(on: group)
        group.get("/") { request, context in try await guarded(request, context, needs: .read) { viewer, _ in try await linksPage(request, viewer) } }
        group.get("/links/new") { request, context in try await guarded(request, context, needs: .editLinks) { viewer, _ in linkForm(viewer, link: nil, error: nil) } }
        group.post("/links") { request, context in
            try await guarded(request, context, needs: .editLinks) { viewer, form in
                if form.value(of: "preview") == "1" { return await previewLink(viewer, nil, form) }
                if let error = limits.take(.linksAddress, nil, request: request, context: context) {
                    var response = linkForm(viewer, link: nil, error: error.body.error.message, values: form)
                    response.status = .tooManyRequests
                    response.headers[.retryAfter] = error.headers[.retryAfter]
                    return response
                }
                return try await createLink(viewer, form)
            }
        }
        group.get("/import") { request, context in try await guarded(request, context, needs: .editLinks) { viewer, _ in importPage(viewer) } }
        group.post("/import") { request, context in
            try await guarded(request, context, needs: .editLinks, upload: Self.importMaxBytes) { viewer, form, parts in startImport(viewer, form, parts) }
        }
        group.get("/import/:id") { request, context in
            try await guarded(request, context, needs: .editLinks) { viewer, _ in importJobPage(viewer, try importJob(context, viewer)) }
        }
        group.get("/import/:id/skipped.csv") { request, context in
            try await guarded(request, context, needs: .editLinks) { viewer, _ in importSkippedCSV(try importJob(context, viewer)) }
        }
        group.post("/links/bulk") { request, context in
            try await guarded(request, context, needs: .editLinks) { viewer, form in try await bulkChange(viewer, form) }
        }
        group.post("/links/delete-made-in-app") { request, context in
            try await guarded(request, context, needs: .editLinks) { viewer, form in try await deleteLinksMadeInApp(viewer, form) }
        }
        group.get("/links/:id") { request, context in
            try await guarded(request, context, needs: .read) { viewer, _ in try await linkPage(viewer, try await link(context, viewer)) }
        }
        group.get("/links/:id/edit") { request, context in
            try await guarded(request, context, needs: .editLinks) { viewer, _ in
                let link = try await link(context, viewer)
                return linkForm(viewer, link: link, error: nil, preview: await preview(of: link, viewer))
            }
        }
        group.post("/links/:id") { request, context in
            try await guarded(request, context, needs: .editLinks) { viewer, form in
                let link = try await link(context, viewer)
                if form.value(of: "preview") == "1" { return await previewLink(viewer, link, form) }
                return try await updateLink(viewer, link, form)
            }
        }
        group.post("/links/:id/disable") { request, context in
            try await guarded(request, context, needs: .editLinks) { viewer, _ in try await setDisabled(viewer, try await link(context, viewer), true) }
        }
        group.post("/links/:id/enable") { request, context in
            try await guarded(request, context, needs: .editLinks) { viewer, _ in try await setDisabled(viewer, try await link(context, viewer), false) }
        }
        group.get("/links/:id/qr.svg") { request, context in
            try await guarded(request, context, needs: .read) { viewer, _ in
                try QRCodeController.response(try await link(context, viewer), app: viewer.app, png: false, pixels: 320, level: .quartile, disposition: "inline")
            }
        }
        group.get("/links/:id/qr.png") { request, context in
            try await guarded(request, context, needs: .read) { viewer, _ in
                try QRCodeController.response(try await link(context, viewer), app: viewer.app, png: true, pixels: 1024, level: .quartile, disposition: "attachment")
            }
        }
        group.get("/attribution") { request, context in try await guarded(request, context, needs: .read) { viewer, _ in try await attributionPage(viewer) } }
        group.post("/attribution/refit") { request, context in try await guarded(request, context, needs: .manageSettings) { viewer, _ in try await refitAttribution(viewer) } }
        group.get("/settings") { request, context in try await guarded(request, context, needs: .manageSettings) { viewer, _ in try await settingsPage(viewer, error: nil, notice: nil) } }
        group.post("/settings") { request, context in try await guarded(request, context, needs: .manageSettings) { viewer, form in try await saveSettings(viewer, form) } }
        group.get("/webhooks") { request, context in
            try await guarded(request, context, needs: .manageSettings) { viewer, _ in try await webhooksPage(viewer, error: nil, notice: nil, secret: nil) }
        }
        group.post("/webhooks") { request, context in try await guarded(request, context, needs: .manageSettings) { viewer, form in try await addWebhook(viewer, form) } }
        // Domains: ask for one, verify it, drop it, make it the default; each answers the settings page with a notice.
        let domainChanges: [(path: String, change: @Sendable (Viewer, String) async throws -> String)] = [
            ("", { viewer, domain in
                let claim = try await domains.claim(domain, app: viewer.app, environment: viewer.environment, by: viewer.actor)
                return "Prove you control \(claim.domain) to make it serve links (below)."
            }),
            ("/verify", { viewer, domain in
                switch try await domains.verify(domain, app: viewer.app, environment: viewer.environment, by: viewer.actor) {
                case .active: return "\(domain) is verified and serves the app's links."
                case .pending(let claim, let findings):
                    throw ValidationError(code: .domainNotVerified, field: nil,
                                             "Control of \(claim.domain) is not proven yet: " + findings.joined(separator: "; "))
                }
            }),
            ("/remove", { viewer, domain in
                try await domains.remove(domain, app: viewer.app, environment: viewer.environment, by: viewer.actor)
                return "\(domain) was removed; its links no longer open."
            }),
            ("/default", { viewer, domain in
                _ = try await domains.makeDefault(domain, app: viewer.app, environment: viewer.environment, by: viewer.actor)
                return "New links go on \(domain) unless another domain is chosen."
            }),
        ]
        // A domain's path prefix: the form's `pathPrefix`, empty for none.
        group.post("/domains/prefix") { request, context in
            try await guarded(request, context, needs: .manageDomains) { viewer, form in
                try await changeDomains(viewer, form) { domain in
                    let text = (form.value(of: "pathPrefix") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                    let app = try await domains.setPathPrefix(text.isEmpty ? nil : text, of: domain, app: viewer.app, environment: viewer.environment,
                                                              by: viewer.actor)
                    guard let prefix = app.pathPrefixes[domain.lowercased()] else { return "Links on \(domain) are served at /{slug} again." }
                    return "Links on \(domain) are served under \(prefix)/ from now on."
                }
            }
        }
        for (path, change) in domainChanges {
            group.post(RouterPath("/domains" + path)) { request, context in
                try await guarded(request, context, needs: .manageDomains) { viewer, form in try await changeDomains(viewer, form) { try await change(viewer, $0) } }
            }
        }
        group.post("/webhooks/:id/delete") { request, context in
            try await guarded(request, context, needs: .manageSettings) { viewer, _ in
                _ = try await outbox.removeWebhook(id: context.parameters.get("id") ?? "", appID: viewer.app.id, environment: viewer.environment,
                                                   by: viewer.actor)
                return redirect("/dashboard/webhooks")
            }
        }
    }
}
#endif
