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
    let library: MustacheLibrary
    let maxBodyBytes: Int
    /// Failed sign-ins and link creations per client address.
    let limits: RequestLimits

    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// Who is signed in.
    struct Viewer: Sendable {
        var auth: AuthenticatedKey
        var csrf: String
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
        group.post("/sign-out") { request, _ in
            try await guarded(request) { _, _ in
                try await sessions.end(request.cookies[DashboardSessions.cookie]?.value)
                return redirect("/dashboard/sign-in", clearing: true)
            }
        }
        group.get("/") { request, _ in try await guarded(request) { viewer, _ in try await linksPage(request, viewer) } }
        group.get("/links/new") { request, _ in try await guarded(request) { viewer, _ in linkForm(viewer, link: nil, error: nil) } }
        group.post("/links") { request, context in
            try await guarded(request) { viewer, form in
                if let error = limits.take(.linksAddress, nil, request: request, context: context) {
                    var response = linkForm(viewer, link: nil, error: error.body.error.message, values: form)
                    response.status = .tooManyRequests
                    response.headers[.retryAfter] = error.headers[.retryAfter]
                    return response
                }
                return try await createLink(viewer, form)
            }
        }
        group.get("/links/:id") { request, context in
            try await guarded(request) { viewer, _ in try await linkPage(viewer, try await link(context, viewer)) }
        }
        group.get("/links/:id/edit") { request, context in
            try await guarded(request) { viewer, _ in linkForm(viewer, link: try await link(context, viewer), error: nil) }
        }
        group.post("/links/:id") { request, context in
            try await guarded(request) { viewer, form in try await updateLink(viewer, try await link(context, viewer), form) }
        }
        group.post("/links/:id/disable") { request, context in
            try await guarded(request) { viewer, _ in try await setDisabled(viewer, try await link(context, viewer), true) }
        }
        group.post("/links/:id/enable") { request, context in
            try await guarded(request) { viewer, _ in try await setDisabled(viewer, try await link(context, viewer), false) }
        }
        group.get("/links/:id/qr.svg") { request, context in
            try await guarded(request) { viewer, _ in
                try QRCodeController.response(try await link(context, viewer), png: false, pixels: 320, level: .quartile, disposition: "inline")
            }
        }
        group.get("/links/:id/qr.png") { request, context in
            try await guarded(request) { viewer, _ in
                try QRCodeController.response(try await link(context, viewer), png: true, pixels: 1024, level: .quartile, disposition: "attachment")
            }
        }
        group.get("/settings") { request, _ in try await guarded(request) { viewer, _ in try await settingsPage(viewer, error: nil, notice: nil, secret: nil) } }
        group.post("/settings") { request, _ in try await guarded(request) { viewer, form in try await saveSettings(viewer, form) } }
        group.post("/webhooks") { request, _ in try await guarded(request) { viewer, form in try await addWebhook(viewer, form) } }
        // Domains: ask for one, verify it, drop it, make it the default; each answers the settings page with a notice.
        let domainChanges: [(path: String, change: @Sendable (Viewer, String) async throws -> String)] = [
            ("", { viewer, domain in
                let claim = try await domains.claim(domain, app: viewer.auth.app, key: viewer.auth.key)
                return "Prove you control \(claim.domain) to make it serve links (below)."
            }),
            ("/verify", { viewer, domain in
                switch try await domains.verify(domain, app: viewer.auth.app, key: viewer.auth.key) {
                case .active: return "\(domain) is verified and serves the app's links."
                case .pending(let claim, let findings):
                    throw ValidationError(code: .domainNotVerified, field: nil,
                                             "Control of \(claim.domain) is not proven yet: " + findings.joined(separator: "; "))
                }
            }),
            ("/remove", { viewer, domain in
                try await domains.remove(domain, app: viewer.auth.app, key: viewer.auth.key)
                return "\(domain) was removed; its links no longer open."
            }),
            ("/default", { viewer, domain in
                _ = try await domains.makeDefault(domain, app: viewer.auth.app, key: viewer.auth.key)
                return "New links go on \(domain) unless another domain is chosen."
            }),
        ]
        for (path, change) in domainChanges {
            group.post(RouterPath("/domains" + path)) { request, _ in
                try await guarded(request) { viewer, form in try await changeDomains(viewer, form) { try await change(viewer, $0) } }
            }
        }
        group.post("/webhooks/:id/delete") { request, context in
            try await guarded(request) { viewer, _ in
                _ = try await outbox.removeWebhook(id: context.parameters.get("id") ?? "", appID: viewer.auth.app.id, environment: viewer.auth.key.environment)
                return redirect("/dashboard/settings")
            }
        }
    }

    // MARK: Sessions

    /// Runs a page for a signed-in viewer: the session cookie must be valid and its key still active; a POST must
    /// come from this site with the session's CSRF token. Otherwise, the sign-in page (or a 403).
    func guarded(_ request: Request, _ page: (Viewer, QueryString) async throws -> Response) async throws -> Response {
        let now = admin.now()
        guard let session = try await sessions.read(request.cookies[DashboardSessions.cookie]?.value, now: now),
              let auth = try await authenticator.signedIn(keyHash: session.record.keyHash)
        else {
            if request.method == .get, request.uri.path == "/dashboard" || request.uri.path == "/dashboard/" {
                return redirect("/dashboard/sign-in")
            }
            return redirect("/dashboard/sign-in", clearing: true)
        }
        let viewer = Viewer(auth: auth, csrf: sessions.csrfToken(nonce: session.id))
        var form = QueryString("")
        if request.method == .post {
            form = try await Self.form(of: request, limit: maxBodyBytes)
            guard Self.sameOrigin(request), sessions.checkCSRF(form.value(of: "csrf"), nonce: session.id) else {
                return html(status: .forbidden, title: "Refused", body: "<p>This form is out of date or did not come from this site. Go back, reload the page and try again.</p>", viewer: nil)
            }
        }
        do {
            return try await page(viewer, form)
        } catch let detour as Detour {
            return detour.response
        }
    }

    func signInPage(_ request: Request, error: String?, status: HTTPResponse.Status? = nil) -> Response {
        var generator = SystemRandomNumberGenerator()
        let nonce = Identifiers.apiKeySecret(using: &generator)
        let body = render("signIn", ["csrf": sessions.csrfToken(nonce: nonce)])
        var response = html(status: status ?? (error == nil ? .ok : .unauthorized), title: "Sign in", body: body, viewer: nil, error: error)
        response.setCookie(Self.cookie(DashboardSessions.signInCookie, nonce, request: request, maxAge: 3600))
        return response
    }

    func signIn(_ request: Request, context: FerryRequestContext) async throws -> Response {
        // Only failures count: guessing keys is what the limit stops, and a wrong key is what guessing produces.
        let subject = limits.addressSubject(request, context: context)
        if let subject, case .limited(let wait) = limits.limiter.check(.signIn, for: subject) {
            var response = signInPage(request, error: "Too many failed sign-ins from this address. Try again in \(Self.minutes(wait)).",
                                      status: .tooManyRequests)
            response.headers[.retryAfter] = String(wait)
            return response
        }
        func failed(_ message: String) -> Response {
            if let subject { _ = limits.limiter.take(.signIn, for: subject) }
            return signInPage(request, error: message)
        }
        let form = try await Self.form(of: request, limit: 8192)
        guard Self.sameOrigin(request), let nonce = request.cookies[DashboardSessions.signInCookie]?.value,
              sessions.checkCSRF(form.value(of: "csrf"), nonce: nonce)
        else {
            return signInPage(request, error: "The sign-in form expired. Try again.")
        }
        let key = (form.value(of: "key") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let auth: AuthenticatedKey
        do {
            auth = try await authenticator.authenticate(key: key, requiring: .secret)
        } catch let error as APIError where error.status == .forbidden {
            return failed("That is a publishable key. Sign in with a secret key (fs_…).")
        } catch is APIError {
            return failed("That key is not a valid secret key of this server.")
        }
        var response = redirect("/dashboard")
        response.setCookie(Self.cookie(DashboardSessions.cookie, try await sessions.issue(keyHash: auth.key.hash, now: admin.now()), request: request,
                                       maxAge: Int(sessions.lifetime)))
        response.setCookie(Self.cookie(DashboardSessions.signInCookie, "", request: request, maxAge: 0))
        return response
    }

    /// "3 minutes", "1 minute", "40 seconds".
    static func minutes(_ seconds: Int) -> String {
        if seconds < 60 { return seconds == 1 ? "1 second" : "\(seconds) seconds" }
        let minutes = (seconds + 59) / 60
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }

    /// A dashboard cookie: `Secure` (sent over https only) unless the dashboard is reached on this machine itself
    /// (`localhost`, a loopback address), where development runs over plain http. A deployment reached by any other
    /// name serves the dashboard over https, behind a TLS-terminating proxy.
    static func cookie(_ name: String, _ value: String, request: Request, maxAge: Int) -> Cookie {
        let host = EdgeController.host(of: request) ?? ""
        return Cookie(name: name, value: value, maxAge: maxAge, path: "/dashboard", secure: !DomainName.isLoopback(host), httpOnly: true,
                      sameSite: .strict)
    }

    /// A POST's `Origin` (or, without one, `Referer`) must name the host it was sent to; browsers send one of them.
    static func sameOrigin(_ request: Request) -> Bool {
        let host = request.headers[EdgeController.hostHeader] ?? request.head.authority ?? ""
        guard let source = request.headers[HTTPField.Name("Origin")!] ?? request.headers[.referer] else { return false }
        guard let components = URLComponents(string: source), let sourceHost = components.host else { return false }
        let authority = components.port.map { "\(sourceHost):\($0)" } ?? sourceHost
        return authority.lowercased() == host.lowercased()
    }

    /// A form's fields; a form that is not UTF-8 text, raw or once decoded, is refused rather than stored with
    /// replacement characters in place of what was typed.
    static func form(of request: Request, limit: Int) async throws -> QueryString {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch {
            throw APIError(.bodyTooLarge, message: "the form is larger than \(limit) bytes")
        }
        let bytes = buffer.readableBytesView
        let form = QueryString.form(String(decoding: bytes, as: UTF8.self))
        guard QueryString.isUTF8(bytes), form.decodesAsUTF8 else {
            throw APIError(.invalidForm, message: "the form is not valid UTF-8 text")
        }
        return form
    }

    // MARK: Pages

    func linksPage(_ request: Request, _ viewer: Viewer) async throws -> Response {
        let query = request.uri.queryParameters
        let search = (query["q"].map(String.init) ?? "").trimmingCharacters(in: .whitespaces)
        let links: [Link]
        var next: Int64?
        if !search.isEmpty {
            links = try await self.links.search(String(search.prefix(200)), app: viewer.auth.app, environment: viewer.auth.key.environment, limit: 100)
        } else {
            let cursor = query["cursor"].flatMap { Int64(String($0)) }
            let page = try await self.links.page(app: viewer.auth.app, environment: viewer.auth.key.environment, limit: 50, after: cursor)
            links = page.links
            next = page.nextCursor
        }
        let range = StatsRange(fromDay: StatsRollup.day(of: admin.now()) - 29, toDay: StatsRollup.day(of: admin.now()))
        let totals = try await reports.stats(app: viewer.auth.app, environment: viewer.auth.key.environment, range: range).totals
        let body = render("links", [
            "query": (search.isEmpty ? nil : search) as Any, "hasLinks": !links.isEmpty, "next": next.map(String.init) as Any,
            "totals": ["clicks": totals.clicks, "uniqueVisitors": totals.uniqueVisitors, "installs": totals.installs],
            "links": links.map { link in
                ["id": link.id, "url": link.shortURL, "destination": link.destination, "campaign": link.campaign ?? link.utm.campaign ?? "",
                 "status": status(link), "created": Self.day(link.createdAt)] as [String: Any]
            },
        ])
        return html(title: "Links", body: body, viewer: viewer)
    }

    func link(_ context: FerryRequestContext, _ viewer: Viewer) async throws -> Link {
        let id = context.parameters.get("id") ?? ""
        guard let link = try await links.existing(id, app: viewer.auth.app, environment: viewer.auth.key.environment) else {
            throw Detour(response: html(status: .notFound, title: "Not found", body: "<h1>No such link</h1><p><a href=\"/dashboard\">All links</a></p>", viewer: viewer))
        }
        return link
    }

    func linkPage(_ viewer: Viewer, _ link: Link) async throws -> Response {
        let today = StatsRollup.day(of: admin.now())
        let range = StatsRange(fromDay: today - 29, toDay: today)
        let report = try await reports.stats(app: viewer.auth.app, environment: viewer.auth.key.environment, link: link, range: range)
        func rows(_ counts: [String: Int]) -> [String: Any] {
            let sorted = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(10).map { ["label": $0.key, "count": $0.value] as [String: Any] }
            return ["hasRows": !sorted.isEmpty, "rows": sorted]
        }
        let breakdowns: [[String: Any]] = [
            ["name": "Platforms"].merging(rows(report.platforms)) { $1 },
            ["name": "Campaigns"].merging(rows(report.utmCampaigns)) { $1 },
            ["name": "Sources"].merging(rows(report.utmSources)) { $1 },
            ["name": "Referrers"].merging(rows(report.referrers)) { $1 },
        ]
        let totals = report.totals
        let body = render("link", [
            "id": link.id, "slug": link.slug, "url": link.shortURL, "destination": link.destination, "campaign": link.campaign as Any,
            "status": status(link), "created": Self.day(link.createdAt), "csrf": viewer.csrf,
            "toggle": link.disabled ? "enable" : "disable", "toggleLabel": link.disabled ? "Enable" : "Disable",
            "totals": ["clicks": totals.clicks, "uniqueVisitors": totals.uniqueVisitors, "installs": totals.installs,
                       "deterministicInstalls": totals.deterministicInstalls, "probabilisticInstalls": totals.probabilisticInstalls, "opens": totals.opens],
            "chart": StatsChart.svg(days: report.days), "breakdowns": breakdowns,
        ])
        return html(title: link.slug, body: body, viewer: viewer)
    }

    func linkForm(_ viewer: Viewer, link: Link?, error: String?, values: QueryString? = nil) -> Response {
        func value(_ name: String, _ stored: String?) -> String { values?.value(of: name) ?? stored ?? "" }
        let chosenDomain = values?.value(of: "domain") ?? viewer.auth.app.domains.first
        let body = render("linkForm", [
            "heading": link == nil ? "New link" : "Edit \(link!.slug)", "creating": link == nil, "csrf": viewer.csrf,
            "action": link.map { "/dashboard/links/\($0.id)" } ?? "/dashboard/links",
            "cancel": link.map { "/dashboard/links/\($0.id)" } ?? "/dashboard", "button": link == nil ? "Create link" : "Save",
            "domains": viewer.auth.app.domains.map { ["name": $0, "selected": $0 == chosenDomain] as [String: Any] },
            "slug": value("slug", nil), "destination": value("destination", link?.destination), "iosURL": value("iosURL", link?.iosURL),
            "androidURL": value("androidURL", link?.androidURL), "campaign": value("campaign", link?.campaign),
            "utmSource": value("utmSource", link?.utm.source), "utmMedium": value("utmMedium", link?.utm.medium),
            "utmCampaign": value("utmCampaign", link?.utm.campaign), "title": value("title", link?.social.title),
            "imageURL": value("imageURL", link?.social.imageURL), "description": value("description", link?.social.description),
            "params": value("params", link.map { $0.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n") }),
        ])
        return html(status: error == nil ? .ok : .badRequest, title: link == nil ? "New link" : "Edit link", body: body, viewer: viewer, error: error)
    }

    /// The link fields of a form; nil for empty ones. Params come one `key=value` per line.
    static func fields(_ form: QueryString) throws(ValidationError) -> (request: CreateLinkRequest, params: [String: String]) {
        func text(_ name: String) -> String? {
            let value = form.value(of: name)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return value.isEmpty ? nil : value
        }
        var params: [String: String] = [:]
        for line in (form.value(of: "params") ?? "").split(whereSeparator: \.isNewline) where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let eq = line.firstIndex(of: "="), eq != line.startIndex else { throw ValidationError(field: "params", "params must be one key=value per line") }
            params[String(line[..<eq]).trimmingCharacters(in: .whitespaces)] = String(line[line.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
        }
        let utm = UTMParameters(source: text("utmSource"), medium: text("utmMedium"), campaign: text("utmCampaign"))
        let social = SocialMetadata(title: text("title"), description: text("description"), imageURL: text("imageURL"))
        let request = CreateLinkRequest(domain: text("domain"), slug: text("slug"), destination: text("destination") ?? "", iosURL: text("iosURL"),
                                        androidURL: text("androidURL"), params: params.isEmpty ? nil : params, utm: utm.isEmpty ? nil : utm,
                                        campaign: text("campaign"), social: social.isEmpty ? nil : social)
        return (request, params)
    }

    func createLink(_ viewer: Viewer, _ form: QueryString) async throws -> Response {
        do {
            let (request, _) = try Self.fields(form)
            let link = try await links.create(request, app: viewer.auth.app, environment: viewer.auth.key.environment)
            return redirect("/dashboard/links/\(link.id)")
        } catch let error as ValidationError {
            return linkForm(viewer, link: nil, error: error.message, values: form)
        } catch let conflict as StoreConflict {
            return linkForm(viewer, link: nil, error: conflict.message, values: form)
        }
    }

    func updateLink(_ viewer: Viewer, _ link: Link, _ form: QueryString) async throws -> Response {
        do {
            let (request, params) = try Self.fields(form)
            var update = UpdateLinkRequest()
            update.destination = .set(request.destination)
            update.iosURL = request.iosURL.map { .set($0) } ?? .clear
            update.androidURL = request.androidURL.map { .set($0) } ?? .clear
            update.campaign = request.campaign.map { .set($0) } ?? .clear
            update.utm = request.utm.map { .set($0) } ?? .clear
            update.social = request.social.map { .set($0) } ?? .clear
            update.params = params.isEmpty ? .clear : .set(params)
            guard try await links.change(link, update) != nil else { return redirect("/dashboard") }
            return redirect("/dashboard/links/\(link.id)")
        } catch let error as ValidationError {
            return linkForm(viewer, link: link, error: error.message, values: form)
        }
    }

    func setDisabled(_ viewer: Viewer, _ link: Link, _ disabled: Bool) async throws -> Response {
        var update = UpdateLinkRequest()
        update.disabled = .set(disabled)
        _ = try await links.change(link, update)
        return redirect("/dashboard/links/\(link.id)")
    }

    func settingsPage(_ viewer: Viewer, error: String?, notice: String?, secret: String?, values: QueryString? = nil,
                      status: HTTPResponse.Status? = nil) async throws -> Response {
        let app = viewer.auth.app
        func value(_ name: String, _ stored: String) -> String { values?.value(of: name) ?? stored }
        let webhooks = try await outbox.webhooks(appID: app.id, environment: viewer.auth.key.environment)
        let listing = try await domains.list(app: app)
        let domainRows: [[String: Any]] = listing.data.map { domain in
            var row: [String: Any] = [
                "name": domain.domain, "pending": domain.status == .pending,
                "status": domain.status == .pending ? "waiting for proof" : domain.isDefault ? "active, default" : "active",
                "canMakeDefault": domain.status == .active && !domain.isDefault,
                "canRemove": domain.status == .pending || app.domains.count > 1,
            ]
            if let verification = domain.verification {
                row["dnsName"] = verification.dnsName
                row["proof"] = verification.dnsValue
                row["httpURL"] = verification.httpURL
            }
            return row
        }
        let body = render("settings", [
            "csrf": viewer.csrf, "name": value("name", app.name), "windowHours": value("attributionWindow", String(Int(app.attribution.window / 3600))),
            "canEdit": Self.mayChangeSettings(viewer), "selfService": listing.selfService, "domains": domainRows,
            "teamID": value("teamID", app.ios.teamID ?? ""),
            "bundleIDs": value("bundleIDs", app.ios.bundleIDs.joined(separator: "\n")), "appStoreID": value("appStoreID", app.ios.appStoreID ?? ""),
            "urlScheme": value("urlScheme", app.ios.urlScheme ?? ""), "androidPackage": value("androidPackage", app.android.packageName ?? ""),
            "androidFingerprints": value("androidFingerprints", app.android.sha256Fingerprints.joined(separator: "\n")),
            "fallbackURL": value("fallbackURL", app.fallbackURL ?? ""), "newSecret": secret as Any,
            "webhooks": webhooks.map { ["id": $0.id, "url": $0.url, "events": $0.events.map(\.rawValue).joined(separator: ", "), "csrf": viewer.csrf] as [String: Any] },
        ])
        return html(status: status ?? (error == nil ? .ok : .badRequest), title: "Settings", body: body, viewer: viewer, error: error, notice: notice)
    }

    /// Only a live secret key changes an app's settings (a test key is for trying things out; the settings serve live
    /// links).
    static func mayChangeSettings(_ viewer: Viewer) -> Bool {
        viewer.auth.key.kind == .secret && viewer.auth.key.environment == .live
    }

    /// The settings page after a domain change (`change` returns its notice), or with the refusal.
    func changeDomains(_ viewer: Viewer, _ form: QueryString, _ change: (String) async throws -> String) async throws -> Response {
        let domain = (form.value(of: "domain") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            let notice = try await change(domain)
            var refreshed = viewer
            if let app = try await admin.app(id: viewer.auth.app.id) { refreshed.auth.app = app }
            return try await settingsPage(refreshed, error: nil, notice: notice, secret: nil)
        } catch let refusal as ValidationError {
            return try await settingsPage(viewer, error: refusal.message, notice: nil, secret: nil, status: APIError(refusal).status)
        }
    }

    func saveSettings(_ viewer: Viewer, _ form: QueryString) async throws -> Response {
        guard Self.mayChangeSettings(viewer) else {
            return try await settingsPage(viewer, error: "Only a live secret key (fs_live_…) changes the app's settings.", notice: nil, secret: nil,
                                          status: .forbidden)
        }
        func text(_ name: String) -> String? {
            let value = form.value(of: name)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return value.isEmpty ? nil : value
        }
        func lines(_ name: String) -> [String] {
            (form.value(of: name) ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        guard let hours = Double(text("attributionWindow") ?? "24"), hours.isFinite else {
            return try await settingsPage(viewer, error: "The attribution window must be a number of hours from 1 to 168.", notice: nil, secret: nil, values: form)
        }
        do {
            let app = try await domains.updateSettings(appID: viewer.auth.app.id) { spec in
                spec.name = text("name") ?? ""
                spec.teamID = text("teamID")
                spec.bundleIDs = lines("bundleIDs")
                spec.appStoreID = text("appStoreID")
                spec.urlScheme = text("urlScheme")
                spec.androidPackage = text("androidPackage")
                spec.androidFingerprints = lines("androidFingerprints")
                spec.fallbackURL = text("fallbackURL")
                spec.attribution.window = hours * 3600
            }
            var refreshed = viewer
            refreshed.auth.app = app
            return try await settingsPage(refreshed, error: nil, notice: "Settings saved.", secret: nil)
        } catch let error as ValidationError {
            return try await settingsPage(viewer, error: error.message, notice: nil, secret: nil, values: form)
        } catch let conflict as StoreConflict {
            return try await settingsPage(viewer, error: conflict.message, notice: nil, secret: nil, values: form)
        }
    }

    func addWebhook(_ viewer: Viewer, _ form: QueryString) async throws -> Response {
        let request = CreateWebhookRequest(url: form.value(of: "url")?.trimmingCharacters(in: .whitespaces) ?? "",
                                           events: WebhookEventType.allCases.filter { form.value(of: $0.rawValue) != nil })
        do {
            let webhook = try await outbox.addWebhook(request, appID: viewer.auth.app.id, environment: viewer.auth.key.environment)
            return try await settingsPage(viewer, error: nil, notice: "Webhook added.", secret: webhook.secret)
        } catch let error as ValidationError {
            return try await settingsPage(viewer, error: error.message, notice: nil, secret: nil)
        }
    }

    // MARK: Rendering

    func status(_ link: Link) -> String {
        switch link.status(at: admin.now()) {
        case .active: "active"
        case .expired: "expired"
        case .disabled: "disabled"
        }
    }

    static func day(_ date: Date) -> String { StatsRange.text(ofDay: StatsRollup.day(of: date)) }

    func render(_ template: String, _ values: [String: Any]) -> String {
        library.render(values, withTemplate: template) ?? ""
    }

    func html(status: HTTPResponse.Status = .ok, title: String, body: String, viewer: Viewer?, error: String? = nil, notice: String? = nil) -> Response {
        var values: [String: Any] = ["title": title, "body": body, "signedIn": viewer != nil]
        if let error { values["error"] = error }
        if let notice { values["notice"] = notice }
        if let viewer {
            values["appName"] = viewer.auth.app.name
            values["environment"] = viewer.auth.key.environment.rawValue
            values["csrf"] = viewer.csrf
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[EdgeController.contentSecurityPolicy] = Self.contentSecurityPolicy
        headers[EdgeController.contentTypeOptions] = "nosniff"
        headers[EdgeController.frameOptions] = "DENY"
        headers[EdgeController.referrerPolicy] = "same-origin"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: render("layout", values))))
    }

    func redirect(_ location: String, clearing: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        var response = Response(status: .seeOther, headers: headers)
        if clearing {
            response.setCookie(Cookie(name: DashboardSessions.cookie, value: "", maxAge: 0, path: "/dashboard", httpOnly: true, sameSite: .strict))
        }
        return response
    }
}
