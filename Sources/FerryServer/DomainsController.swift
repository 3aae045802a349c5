#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `/v1/domains`: an app's link domains (secret key to read; a live secret key to change them).
struct DomainsController: Sendable {
    let domains: AppDomains
    let authenticator: KeyAuthenticator
    let maxBodyBytes: Int

    func register(on router: Router<FerryRequestContext>) {
        router.get(RouterPath(FerryRoutes.domains)) { request, _ in try await list(request) }
        router.post(RouterPath(FerryRoutes.domains)) { request, context in try await add(request, context: context) }
        router.post("\(FerryRoutes.domains)/:domain/verify") { request, context in try await verify(request, domain: context.parameters.get("domain") ?? "", context: context) }
        router.delete("\(FerryRoutes.domains)/:domain") { request, context in try await remove(request, domain: context.parameters.get("domain") ?? "", context: context) }
        router.patch("\(FerryRoutes.domains)/:domain") { request, context in try await update(request, domain: context.parameters.get("domain") ?? "", context: context) }
    }

    func list(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .settingsRead)
        return try JSONBody.response(try await domains.list(app: auth.app))
    }

    func add(_ request: Request, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .settingsWrite)
        let body = try await JSONBody.decode(AddDomainRequest.self, from: request, limit: maxBodyBytes)
        let claim = try await domains.claim(body.domain, app: auth.app, environment: auth.key.environment, by: authenticator.actor(auth, request: request, context: context))
        var headers = HTTPFields()
        headers[.location] = FerryRoutes.domain(claim.domain)
        return try JSONBody.response(AppDomains.response(claim), status: .accepted, headers: headers)
    }

    func verify(_ request: Request, domain: String, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .settingsWrite)
        // A check that finds no proof is an answer too: the domain still waits, with what was found.
        let actor = authenticator.actor(auth, request: request, context: context)
        return try JSONBody.response(try await domains.verify(domain, app: auth.app, environment: auth.key.environment, by: actor).response)
    }

    func update(_ request: Request, domain: String, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .settingsWrite)
        let body = try await JSONBody.decode(UpdateDomainRequest.self, from: request, limit: maxBodyBytes)
        let app = try await domains.setPathPrefix(body.pathPrefix, of: domain, app: auth.app, environment: auth.key.environment,
                                                  by: authenticator.actor(auth, request: request, context: context))
        return try JSONBody.response(AppDomains.response(domain: domain.lowercased(), app: app))
    }

    func remove(_ request: Request, domain: String, context: FerryRequestContext) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .settingsWrite)
        try await domains.remove(domain, app: auth.app, environment: auth.key.environment, by: authenticator.actor(auth, request: request, context: context))
        return Response(status: .noContent)
    }
}
#endif
