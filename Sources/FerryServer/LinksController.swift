#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `/v1/links`: create, list, read, change, delete and debug links with a secret key; create links made in the app
/// with a publishable key.
struct LinksController: Sendable {
    let links: LinkEditor
    let authenticator: KeyAuthenticator
    let maxBodyBytes: Int
    let debugger: LinkDebugger

    func register(on router: Router<FerryRequestContext>) {
        router.post(RouterPath(FerryRoutes.links)) { request, context in try await create(request, context: context) }
        router.get(RouterPath(FerryRoutes.links)) { request, _ in try await list(request) }
        router.get("\(FerryRoutes.links)/:id") { request, context in try await read(request, id: context.parameters.get("id") ?? "") }
        router.patch("\(FerryRoutes.links)/:id") { request, context in try await update(request, id: context.parameters.get("id") ?? "", context: context) }
        router.delete(RouterPath(FerryRoutes.links)) { request, context in try await deleteCreatedInApp(request, context: context) }
        router.delete("\(FerryRoutes.links)/:id") { request, context in try await delete(request, id: context.parameters.get("id") ?? "", context: context) }
        router.get("\(FerryRoutes.links)/:id/debug") { request, context in try await debug(request, id: context.parameters.get("id") ?? "") }
    }

    /// A secret key creates any link of its app; a publishable key, a link made in the app (`ClientLinkRules`), which
    /// an identical request within a day gets again (200 instead of 201).
    func create(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, scope: .linksWrite)
        let link: Link, created: Bool
        if auth.key.kind == .publishable {
            let body = try await JSONBody.decode(CreateLinkRequest.self, from: request, limit: min(maxBodyBytes, ClientLinkLimits.maxBodyBytes))
            (link, created) = try await links.createOnce(body, app: auth.app, environment: auth.key.environment, inApp: true, by: nil)
        } else {
            let body = try await JSONBody.decode(CreateLinkRequest.self, from: request, limit: maxBodyBytes)
            (link, created) = (try await links.create(body, app: auth.app, environment: auth.key.environment,
                                                     by: authenticator.actor(auth, request: request, context: context)), true)
        }
        var headers = HTTPFields()
        headers[.location] = FerryRoutes.link(id: link.id)
        return try JSONBody.response(link.response(in: auth.app), status: created ? .created : .ok, headers: headers)
    }

    /// Deletes the links the app's installs made (`createdInApp=true`), all of them or those made before
    /// `createdBefore`: what its owner does with share links nobody uses any more.
    func deleteCreatedInApp(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .linksWrite)
        let query = request.uri.queryParameters
        guard query["createdInApp"] == "true" else {
            throw APIError(.invalidField, message: "deleting links in bulk takes only the links made in the app: add createdInApp=true", field: "createdInApp")
        }
        var before = links.admin.now()
        if let text = query["createdBefore"] {
            guard text.utf8.count <= 64, let date = FerryJSON.parseDate(String(text)) else {
                throw APIError(.invalidField, message: "createdBefore must be a date and time such as 2026-01-31T00:00:00Z", field: "createdBefore")
            }
            before = min(before, date)
        }
        let deleted = try await links.deleteCreatedInApp(app: auth.app, environment: auth.key.environment, before: before,
                                                         by: authenticator.actor(auth, request: request, context: context))
        return try JSONBody.response(DeletedLinksResponse(deleted: deleted))
    }

    func list(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .linksRead)
        let query = request.uri.queryParameters
        var limit = 20
        if let text = query["limit"] {
            guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int(String(text)), (1...100).contains(value) else {
                throw APIError(.invalidField, message: "limit must be a whole number from 1 to 100", field: "limit")
            }
            limit = value
        }
        // A cursor is a position: the page holds the links before it. Any position is one (0 is before every link).
        var cursor: Int64?
        if let text = query["cursor"], !text.isEmpty {
            guard text.utf8.count <= 19, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = UInt64(String(text)) else {
                throw APIError(.invalidField, message: "cursor must be a value from a previous page's nextCursor (1 to 19 digits)", field: "cursor")
            }
            cursor = Int64(clamping: value)
        }
        var createdInApp: Bool?
        if let text = query["createdInApp"] {
            guard let value = Bool(String(text)) else {
                throw APIError(.invalidField, message: "createdInApp must be true or false", field: "createdInApp")
            }
            createdInApp = value
        }
        let filter = try LinkFilterQuery.parse({ name in query[Substring(name)].map(String.init) }, createdInApp: createdInApp, now: links.admin.now())
        let page = try await links.page(app: auth.app, environment: auth.key.environment, filter: filter, limit: limit, after: cursor)
        return try JSONBody.response(LinkListResponse(data: page.links.map { $0.response(in: auth.app) }, nextCursor: page.nextCursor.map(String.init)))
    }

    func read(_ request: Request, id: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .linksRead)
        return try JSONBody.response(try await links.find(id, app: auth.app, environment: auth.key.environment).response(in: auth.app))
    }

    func update(_ request: Request, id: String, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .linksWrite)
        let body = try await JSONBody.decode(UpdateLinkRequest.self, from: request, limit: maxBodyBytes)
        let actor = authenticator.actor(auth, request: request, context: context)
        return try JSONBody.response(try await links.update(id, with: body, app: auth.app, environment: auth.key.environment, by: actor).response(in: auth.app))
    }

    /// Where the link sends each kind of visitor and what is wrong with its setup (what `?d=1` on the link shows).
    func debug(_ request: Request, id: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .linksRead)
        let link = try await links.find(id, app: auth.app, environment: auth.key.environment)
        return try JSONBody.response(await debugger.report(for: link, app: auth.app).response)
    }

    func delete(_ request: Request, id: String, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .linksWrite)
        try await links.delete(id, app: auth.app, environment: auth.key.environment, by: authenticator.actor(auth, request: request, context: context))
        return Response(status: .noContent)
    }
}
#endif
