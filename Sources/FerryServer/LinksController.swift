import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `/v1/links`: create, list, read, change and delete links with a secret key.
struct LinksController: Sendable {
    let admin: FerryAdmin
    let authenticator: KeyAuthenticator
    let cache: LinkCache
    let maxBodyBytes: Int

    var store: any FerryDatabase { admin.store }

    func register(on router: Router<FerryRequestContext>) {
        router.post(RouterPath(FerryRoutes.links)) { request, _ in try await create(request) }
        router.get(RouterPath(FerryRoutes.links)) { request, _ in try await list(request) }
        router.get("\(FerryRoutes.links)/:id") { request, context in try await read(request, id: context.parameters.get("id") ?? "") }
        router.patch("\(FerryRoutes.links)/:id") { request, context in try await update(request, id: context.parameters.get("id") ?? "") }
        router.delete("\(FerryRoutes.links)/:id") { request, context in try await delete(request, id: context.parameters.get("id") ?? "") }
    }

    func create(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret)
        let body = try await JSONBody.decode(CreateLinkRequest.self, from: request, limit: maxBodyBytes)
        do {
            let link = try await admin.createLink(body, app: auth.app, environment: auth.key.environment)
            cache.invalidate(domain: link.domain, slug: link.slug)
            var headers = HTTPFields()
            headers[.location] = FerryRoutes.link(id: link.id)
            return try JSONBody.response(link.response, status: .created, headers: headers)
        } catch let error as ValidationError {
            throw APIError(error)
        } catch let conflict as StoreConflict {
            throw APIError(.conflict, message: conflict.message, field: conflict.field)
        }
    }

    func list(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret)
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
        let page = try await store.listLinks(appID: auth.app.id, environment: auth.key.environment, limit: limit, after: cursor)
        return try JSONBody.response(LinkListResponse(data: page.links.map(\.response), nextCursor: page.nextCursor.map(String.init)))
    }

    func read(_ request: Request, id: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret)
        return try JSONBody.response(try await find(id, auth).response)
    }

    func update(_ request: Request, id: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret)
        let body = try await JSONBody.decode(UpdateLinkRequest.self, from: request, limit: maxBodyBytes)
        let link = try await find(id, auth)
        let next: Link?
        do { next = try await change(link, body) } catch let error as ValidationError { throw APIError(error) }
        guard let next else { throw APIError.notFound("link '\(id)'") }
        return try JSONBody.response(next.response)
    }

    func delete(_ request: Request, id: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret)
        let link = try await find(id, auth)
        guard try await store.deleteLink(id: link.id, appID: auth.app.id) else { throw APIError.notFound("link '\(id)'") }
        cache.invalidate(domain: link.domain, slug: link.slug)
        return Response(status: .noContent)
    }

    /// Applies a change to a link, stores it and forgets the cached copy; nil when the link is gone meanwhile.
    /// Throws `ValidationError` for a change the rules refuse.
    func change(_ link: Link, _ update: UpdateLinkRequest) async throws -> Link? {
        let next = try LinkRules.apply(update, to: link, now: admin.now())
        guard try await store.updateLink(next) else { return nil }
        cache.invalidate(domain: next.domain, slug: next.slug)
        return next
    }

    /// A link of the key's app and environment; anything else is simply not found.
    func find(_ id: String, _ auth: AuthenticatedKey) async throws -> Link {
        guard id.utf8.count <= 64, let link = try await store.link(id: id, appID: auth.app.id), link.environment == auth.key.environment else {
            throw APIError.notFound("link '\(id.prefix(64))'")
        }
        return link
    }
}
