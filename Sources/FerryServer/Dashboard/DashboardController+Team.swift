#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// People and their access: one's own account (sessions, password), the app's members and invitations (owners), the
/// audit log (admins and owners), switching between one's apps, and joining by an invitation's link.
extension DashboardController {
    func registerTeamPages(on group: RouterGroup<FerryRequestContext>) {
        group.get("/account") { request, context in try await guarded(request, context, needs: .read) { viewer, _ in try await accountPage(viewer, notice: nil, error: nil) } }
        group.post("/account/password") { request, context in
            try await guarded(request, context, needs: .read) { viewer, form in
                guard let person = viewer.person else { return redirect("/dashboard") }
                do {
                    try await accounts.changePassword(of: person.user, current: form.value(of: "currentPassword") ?? "", new: form.value(of: "password") ?? "",
                                                      keeping: person.session.hash, by: viewer.actor)
                } catch let error as ValidationError {
                    return try await accountPage(viewer, notice: nil, error: error.message, status: .badRequest)
                }
                return try await accountPage(viewer, notice: "Your password was changed; your other sessions ended.", error: nil)
            }
        }
        group.post("/account/sessions/:hash/end") { request, context in
            try await guarded(request, context, needs: .read) { viewer, _ in
                guard let person = viewer.person else { return redirect("/dashboard") }
                let hash = context.parameters.get("hash") ?? ""
                guard hash.utf8.count == 64, try await accounts.endSession(hash: hash, of: person.user, by: viewer.actor) else {
                    return try await accountPage(viewer, notice: nil, error: "That session has ended already.", status: .notFound)
                }
                return redirect(hash == person.session.hash ? "/dashboard/sign-in" : "/dashboard/account", clearing: hash == person.session.hash)
            }
        }
        group.post("/switch") { request, context in
            try await guarded(request, context, needs: .read) { viewer, form in
                let parts = (form.value(of: "to") ?? "").split(separator: ".").map(String.init)
                guard let person = viewer.person, parts.count == 2, APIEnvironment(rawValue: parts[1]) != nil,
                      person.apps.contains(where: { $0.app.id == parts[0] }) else {
                    return html(status: .badRequest, title: "Not one of your apps", body: "<p>Choose one of your apps.</p>", viewer: viewer)
                }
                var response = redirect("/dashboard")
                response.setCookie(Self.cookie(Self.appCookie, "\(parts[0]).\(parts[1])", request: request, maxAge: 400 * 86400))
                return response
            }
        }
        group.get("/members") { request, context in
            try await guarded(request, context, needs: .manageMembers) { viewer, _ in try await membersPage(viewer) }
        }
        group.post("/members/invite") { request, context in
            try await guarded(request, context, needs: .manageMembers) { viewer, form in
                guard let role = MemberRole(rawValue: form.value(of: "role") ?? "") else {
                    return try await membersPage(viewer, error: "Choose a role: viewer, editor, admin or owner.", status: .badRequest)
                }
                do {
                    let (invitation, token) = try await accounts.invite(email: form.value(of: "email") ?? "", role: role, to: viewer.app.id, by: viewer.actor)
                    let host = EdgeController.host(of: request) ?? "localhost"
                    let scheme = DomainName.isLoopback(host) ? "http" : "https"
                    return try await membersPage(viewer, invited: (invitation.email, "\(scheme)://\(host)/dashboard/invitations/\(token)"))
                } catch let error as ValidationError {
                    return try await membersPage(viewer, error: error.message, status: .badRequest)
                }
            }
        }
        group.post("/members/:id/role") { request, context in
            try await guarded(request, context, needs: .manageMembers) { viewer, form in
                guard let member = try await member(context, of: viewer) else { return try await membersPage(viewer, error: "No such member.", status: .notFound) }
                guard let role = MemberRole(rawValue: form.value(of: "role") ?? "") else {
                    return try await membersPage(viewer, error: "Choose a role: viewer, editor, admin or owner.", status: .badRequest)
                }
                do {
                    try await accounts.changeRole(of: member, in: viewer.app.id, to: role, by: viewer.actor)
                } catch let error as ValidationError {
                    return try await membersPage(viewer, error: error.message, status: .conflict)
                }
                return redirect("/dashboard/members")
            }
        }
        group.post("/members/:id/remove") { request, context in
            try await guarded(request, context, needs: .manageMembers) { viewer, _ in
                guard let member = try await member(context, of: viewer) else { return try await membersPage(viewer, error: "No such member.", status: .notFound) }
                do {
                    try await accounts.changeRole(of: member, in: viewer.app.id, to: nil, by: viewer.actor)
                } catch let error as ValidationError {
                    return try await membersPage(viewer, error: error.message, status: .conflict)
                }
                return redirect("/dashboard/members")
            }
        }
        group.post("/members/invitations/:hash/withdraw") { request, context in
            try await guarded(request, context, needs: .manageMembers) { viewer, _ in
                let hash = context.parameters.get("hash") ?? ""
                guard hash.utf8.count == 64, try await accounts.withdraw(invitationHash: hash, from: viewer.app.id, by: viewer.actor) else {
                    return try await membersPage(viewer, error: "That invitation was used or withdrawn already.", status: .notFound)
                }
                return redirect("/dashboard/members")
            }
        }
        group.get("/audit") { request, context in
            try await guarded(request, context, needs: .manageSettings) { viewer, _ in try await auditPage(viewer, request) }
        }
        group.get("/audit.csv") { request, context in
            try await guarded(request, context, needs: .manageSettings) { viewer, _ in
                var query = AuditQuery(appID: viewer.app.id, environment: viewer.environment)
                query.objectType = Self.auditType(request)
                return AuditController.csv(query, from: admin.store)
            }
        }
        group.get("/invitations/:token") { request, context in try await invitationPage(request, token: context.parameters.get("token") ?? "", error: nil) }
        group.post("/invitations/:token") { request, context in try await acceptInvitation(request, context, token: context.parameters.get("token") ?? "") }
    }

    /// The member a path's `:id` names, among the viewer's app's members.
    func member(_ context: FerryRequestContext, of viewer: Viewer) async throws -> UserRecord? {
        let id = context.parameters.get("id") ?? ""
        return try await admin.store.members(appID: viewer.app.id).first { $0.user.id == id }?.user
    }

    func accountPage(_ viewer: Viewer, notice: String?, error: String?, status: HTTPResponse.Status = .ok) async throws -> Response {
        guard let person = viewer.person else {
            return html(status: .ok, title: "Your account", body: "<h1>Your account</h1><p>You signed in with a secret key: it has no account.</p>", viewer: viewer)
        }
        let sessions = try await admin.store.userSessions(userID: person.user.id, now: admin.now()).map { session -> [String: Any] in
            ["id": session.hash, "created": FerryJSON.formatDate(session.createdAt), "address": session.address ?? "unknown",
             "agent": session.userAgent ?? "unknown", "current": session.hash == person.session.hash, "csrf": viewer.csrf]
        }
        return html(status: status, title: "Your account", body: render("account", ["email": person.user.email, "sessions": sessions, "csrf": viewer.csrf]),
                    viewer: viewer, error: error, notice: notice)
    }

    func membersPage(_ viewer: Viewer, invited: (email: String, link: String)? = nil, error: String? = nil,
                     status: HTTPResponse.Status = .ok) async throws -> Response {
        let members = try await admin.store.members(appID: viewer.app.id).map { entry -> [String: Any] in
            ["id": entry.user.id, "email": entry.user.email, "csrf": viewer.csrf,
             "roles": MemberRole.allCases.reversed().map { ["name": $0.rawValue, "selected": $0 == entry.membership.role] as [String: Any] }]
        }
        let invitations = try await admin.store.pendingInvitations(appID: viewer.app.id, now: admin.now()).map { invitation -> [String: Any] in
            ["id": invitation.tokenHash, "email": invitation.email, "role": invitation.role.rawValue, "expires": FerryJSON.formatDate(invitation.expiresAt),
             "csrf": viewer.csrf]
        }
        var values: [String: Any] = ["members": members, "invitations": invitations, "hasInvitations": !invitations.isEmpty, "csrf": viewer.csrf,
                                     "allRoles": MemberRole.allCases.map(\.rawValue)]
        if let invited {
            values["inviteLink"] = invited.link
            values["invitedEmail"] = invited.email
        }
        return html(status: status, title: "Members", body: render("members", values), viewer: viewer, error: error)
    }

    static func auditType(_ request: Request) -> String? {
        request.uri.queryParameters["type"].map(String.init).flatMap { AuditEvent.objectTypes.contains($0) ? $0 : nil }
    }

    func auditPage(_ viewer: Viewer, _ request: Request) async throws -> Response {
        let type = Self.auditType(request)
        let events = try await admin.store.auditEvents(AuditQuery(appID: viewer.app.id, environment: viewer.environment, objectType: type, limit: 200))
        let rows = events.map { event -> [String: Any] in
            ["at": FerryJSON.formatDate(event.at), "actor": event.actor.label.map { "\(event.actor.kind.rawValue) \($0)" } ?? "\(event.actor.kind.rawValue) \(event.actor.id)",
             "address": event.actor.address ?? "—", "action": event.action, "type": event.objectType, "object": event.objectID,
             "changes": event.changes.keys.sorted().map { ["field": $0, "before": event.changes[$0]?.before ?? "∅", "after": event.changes[$0]?.after ?? "∅"] }]
        }
        let values: [String: Any] = [
            "events": rows, "hasEvents": !rows.isEmpty, "typeQuery": type as Any,
            "types": AuditEvent.objectTypes.map { ["name": $0, "selected": $0 == type] as [String: Any] },
        ]
        return html(title: "Audit log", body: render("audit", values), viewer: viewer)
    }

    func invitationPage(_ request: Request, token: String, error: String?, status: HTTPResponse.Status? = nil) async throws -> Response {
        guard let invitation = try await accounts.pendingInvitation(token: token), let app = try await admin.app(id: invitation.appID) else {
            return html(status: .notFound, title: "Invitation", body: "<p id=\"invitation-gone\">This invitation was used, withdrawn or has expired. Ask for a new one.</p>",
                        viewer: nil)
        }
        var generator = SystemRandomNumberGenerator()
        let nonce = Identifiers.apiKeySecret(using: &generator)
        let hasAccount = try await admin.store.user(email: invitation.email) != nil
        let body = render("invitation", ["appName": app.name, "role": invitation.role.rawValue, "email": invitation.email, "hasAccount": hasAccount,
                                         "token": token, "csrf": sessions.csrfToken(nonce: nonce)])
        var response = html(status: status ?? (error == nil ? .ok : .badRequest), title: "Join \(app.name)", body: body, viewer: nil, error: error)
        response.setCookie(Self.cookie(DashboardSessions.signInCookie, nonce, request: request, maxAge: 3600))
        return response
    }

    func acceptInvitation(_ request: Request, _ context: FerryRequestContext, token: String) async throws -> Response {
        let form = try await Self.form(of: request, limit: 8192)
        guard Self.sameOrigin(request), let nonce = request.cookies[DashboardSessions.signInCookie]?.value,
              sessions.checkCSRF(form.value(of: "csrf"), nonce: nonce) else {
            return try await invitationPage(request, token: token, error: "The form expired. Try again.")
        }
        let accepted: (user: UserRecord, session: String)
        do {
            accepted = try await accounts.accept(token: token, password: form.value(of: "password") ?? "",
                                                 address: authenticator.clientAddress(request, context: context),
                                                 userAgent: request.headers[.userAgent].map { String($0.prefix(256)) })
        } catch let error as ValidationError {
            return try await invitationPage(request, token: token, error: error.message)
        }
        var response = redirect("/dashboard")
        response.setCookie(Self.cookie(DashboardSessions.cookie, accepted.session, request: request, maxAge: Int(Accounts.sessionLifetime)))
        response.setCookie(Self.cookie(DashboardSessions.signInCookie, "", request: request, maxAge: 0))
        if let invitation = try await admin.store.invitation(tokenHash: Secrets.digest(token)) {
            response.setCookie(Self.cookie(Self.appCookie, "\(invitation.appID).live", request: request, maxAge: 400 * 86400))
        }
        return response
    }
}
#endif
