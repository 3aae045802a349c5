#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import HTTPTypes
import Hummingbird

/// Signing in and out, and the guard every page of the dashboard goes through.
extension DashboardController {
    // MARK: Sessions

    /// The cookie that remembers which app and environment a person works in (`APP_ID.live`).
    static let appCookie = "ferry_app"

    /// Runs a page for a signed-in viewer whose role may do `action`: the session cookie must be valid (a key's with the
    /// key still active, or a person's with the account still there); a POST must come from this site with the
    /// session's CSRF token. Otherwise, the sign-in page, or a 403 (a role that may not do it included, whatever the
    /// form says).
    func guarded(_ request: Request, _ context: FerryRequestContext, needs action: MemberAction,
                 _ page: (Viewer, QueryString) async throws -> Response) async throws -> Response {
        try await guarded(request, context, needs: action, upload: nil) { viewer, form, _ in try await page(viewer, form) }
    }

    /// `guarded` for a form that may carry files (`multipart/form-data`, at most `upload` bytes in all): the page gets
    /// the text fields as a form and the parts. The role is judged before the body is read.
    func guarded(_ request: Request, _ context: FerryRequestContext, needs action: MemberAction, upload: Int?,
                 _ page: (Viewer, QueryString, [MultipartForm.Part]) async throws -> Response) async throws -> Response {
        guard let (viewer, nonce) = try await signedIn(request, context) else {
            if request.method == .get, request.uri.path == "/dashboard" || request.uri.path == "/dashboard/" {
                return redirect("/dashboard/sign-in")
            }
            return redirect("/dashboard/sign-in", clearing: true)
        }
        let path = request.uri.path
        if viewer.memberOfNone, !path.hasPrefix("/dashboard/account"), path != "/dashboard/sign-out" {
            return html(status: .forbidden, title: "No app yet", body: render("noApp", [:]), viewer: viewer)
        }
        guard viewer.may(action) else {
            return html(status: .forbidden, title: "Not allowed",
                        body: render("notAllowed", ["role": viewer.role.rawValue, "least": action.leastRole.rawValue]), viewer: viewer)
        }
        var form = QueryString("")
        var parts: [MultipartForm.Part] = []
        if request.method == .post {
            if let upload, let boundary = request.headers[.contentType].flatMap(MultipartForm.boundary(contentType:)) {
                parts = try await Self.multipart(of: request, boundary: boundary, limit: upload)
                form = MultipartForm(parts: parts).fields
            } else {
                form = try await Self.form(of: request, limit: maxBodyBytes)
            }
            guard Self.sameOrigin(request), sessions.checkCSRF(form.value(of: "csrf"), nonce: nonce) else {
                return html(status: .forbidden, title: "Refused", body: "<p>This form is out of date or did not come from this site. Go back, reload the page and try again.</p>", viewer: nil)
            }
        }
        do {
            return try await page(viewer, form, parts)
        } catch let detour as Detour {
            return detour.response
        }
    }

    /// The parts of a `multipart/form-data` body of at most `limit` bytes.
    static func multipart(of request: Request, boundary: String, limit: Int) async throws -> [MultipartForm.Part] {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch {
            throw APIError(.bodyTooLarge, message: "the form is larger than \(limit / (1024 * 1024)) MiB")
        }
        do {
            return try MultipartForm(body: Array(buffer.readableBytesView), boundary: boundary).parts
        } catch {
            throw APIError(.invalidForm, message: error.message)
        }
    }

    /// The viewer of a request's session and the nonce its forms' CSRF tokens are made from; nil when signed out.
    /// A key signs in as the owner of its app and environment; a person works in the app and environment the
    /// `ferry_app` cookie names among their memberships (the first, live, by default).
    func signedIn(_ request: Request, _ context: FerryRequestContext) async throws -> (Viewer, nonce: String)? {
        let cookie = request.cookies[DashboardSessions.cookie]?.value
        if let session = try await sessions.read(cookie, now: admin.now()), let auth = try await authenticator.signedIn(keyHash: session.record.keyHash) {
            let viewer = Viewer(app: auth.app, environment: auth.key.environment, role: .owner, person: nil, csrf: sessions.csrfToken(nonce: session.id),
                                actor: authenticator.actor(auth, request: request, context: context))
            return (viewer, session.id)
        }
        guard let cookie, let (user, session) = try await accounts.session(id: cookie) else { return nil }
        var apps: [(app: App, role: MemberRole)] = []
        for membership in try await admin.store.memberships(userID: user.id) {
            if let app = try await admin.app(id: membership.appID) { apps.append((app, membership.role)) }
        }
        let actor = AuditActor(kind: .user, id: user.id, label: user.email, address: authenticator.clientAddress(request, context: context))
        let person = Viewer.Person(user: user, session: session, apps: apps)
        let chosen = request.cookies[Self.appCookie]?.value.split(separator: ".").map(String.init) ?? []
        let environment = chosen.count == 2 ? APIEnvironment(rawValue: chosen[1]) ?? .live : .live
        guard let (app, role) = apps.first(where: { chosen.first == $0.app.id }) ?? apps.first else {
            // A member of no app yet: only their own account's pages.
            let placeholder = App(id: "", name: "No app yet", domains: [], createdAt: user.createdAt)
            return (Viewer(app: placeholder, environment: .live, role: .viewer, person: person, csrf: sessions.csrfToken(nonce: cookie), actor: actor,
                           memberOfNone: true), cookie)
        }
        return (Viewer(app: app, environment: environment, role: role, person: person, csrf: sessions.csrfToken(nonce: cookie), actor: actor), cookie)
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
        if let email = form.value(of: "email") {
            return try await signInPerson(request, context, email: email, password: form.value(of: "password") ?? "", addressSubject: subject)
        }
        let key = (form.value(of: "key") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let auth: AuthenticatedKey
        do {
            auth = try await authenticator.authenticate(key: key, requiring: .secret, scope: nil)
        } catch let error as APIError where error.body.error.code == .missingScope {
            return failed("That key is limited to scopes. Sign in with a secret key made without scopes.")
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

    /// Signs a person in by email and password. Failures count against the address and against the account (whose
    /// limit holds whatever address a guesser comes from); the answer does not say which of the two was wrong.
    func signInPerson(_ request: Request, _ context: FerryRequestContext, email: String, password: String,
                      addressSubject: RateLimitSubject?) async throws -> Response {
        let account = RateLimitSubject.account(email.trimmingCharacters(in: .whitespaces).lowercased().prefix(254).description)
        if case .limited(let wait) = limits.limiter.check(.signInAccount, for: account) {
            var response = signInPage(request, error: "Too many failed sign-ins to this account. Try again in \(Self.minutes(wait)).",
                                      status: .tooManyRequests)
            response.headers[.retryAfter] = String(wait)
            return response
        }
        let agent = request.headers[.userAgent].map { String($0.prefix(256)) }
        guard let signedIn = try await accounts.signIn(email: email, password: password, address: authenticator.clientAddress(request, context: context),
                                                       userAgent: agent) else {
            if let addressSubject { _ = limits.limiter.take(.signIn, for: addressSubject) }
            _ = limits.limiter.take(.signInAccount, for: account)
            return signInPage(request, error: "That email and password do not match an account.")
        }
        var response = redirect("/dashboard")
        response.setCookie(Self.cookie(DashboardSessions.cookie, signedIn.session, request: request, maxAge: Int(Accounts.sessionLifetime)))
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
}
#endif
