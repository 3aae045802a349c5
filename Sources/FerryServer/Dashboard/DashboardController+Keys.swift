#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// The app's API keys (admins and owners): listed with their hint, kind, environment, scopes and state; made (the
/// key shown once) and revoked. Changing them needs the live environment, as the app's other settings do.
extension DashboardController {
    func registerKeyPages(on group: RouterGroup<FerryRequestContext>) {
        group.get("/keys") { request, context in try await guarded(request, context, needs: .manageSettings) { viewer, _ in try await keysPage(viewer) } }
        group.post("/keys") { request, context in
            try await guarded(request, context, needs: .manageSettings) { viewer, form in
                guard Self.mayChangeSettings(viewer) else { return try await keysPage(viewer, error: Self.liveOnly, status: .forbidden) }
                guard let kind = APIKeyKind(rawValue: form.value(of: "kind") ?? ""),
                      let environment = APIEnvironment(rawValue: form.value(of: "environment") ?? "") else {
                    return try await keysPage(viewer, error: "Choose a kind (secret or publishable) and an environment (live or test).", status: .badRequest)
                }
                let scopes = APIKeyScope.allCases.filter { form.value(of: "scope-\($0.rawValue)") == "on" }
                do {
                    let made = try await admin.createKey(appID: viewer.app.id, kind: kind, environment: environment,
                                                         scopes: kind == .secret && !scopes.isEmpty ? Set(scopes) : nil, by: viewer.actor)
                    return try await keysPage(viewer, newKey: made.key)
                } catch let error as ValidationError {
                    return try await keysPage(viewer, error: error.message, status: .badRequest)
                }
            }
        }
        group.post("/keys/:id/revoke") { request, context in
            try await guarded(request, context, needs: .manageSettings) { viewer, _ in
                guard Self.mayChangeSettings(viewer) else { return try await keysPage(viewer, error: Self.liveOnly, status: .forbidden) }
                let id = context.parameters.get("id") ?? ""
                guard try await admin.keys(appID: viewer.app.id).contains(where: { $0.id == id && $0.revokedAt == nil }),
                      try await admin.revokeKey(id: id, by: viewer.actor) else {
                    return try await keysPage(viewer, error: "That key is revoked already, or is not this app's.", status: .notFound)
                }
                return redirect("/dashboard/keys")
            }
        }
    }

    static let liveOnly = "Keys are changed in the live environment: switch to it (or sign in with a live secret key)."

    func keysPage(_ viewer: Viewer, newKey: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let keys = try await admin.keys(appID: viewer.app.id).reversed().map { key -> [String: Any] in
            ["id": key.id, "hint": key.hint, "kind": key.kind.rawValue, "environment": key.environment.rawValue,
             "scopes": key.kind == .publishable ? "—" : key.scopes.map { APIKeyScope.text($0) } ?? "all",
             "created": FerryJSON.formatDate(key.createdAt), "active": key.revokedAt == nil, "csrf": viewer.csrf]
        }
        let body = render("keys", ["keys": keys, "csrf": viewer.csrf, "canEdit": Self.mayChangeSettings(viewer), "newKey": newKey as Any,
                                   "scopes": APIKeyScope.allCases.map(\.rawValue)])
        return html(status: status, title: "API keys", body: body, viewer: viewer, error: error)
    }
}
#endif
