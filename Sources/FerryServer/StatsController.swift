#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import Hummingbird

/// `/v1/stats` and `/v1/links/{id}/stats`: what links did, from the daily roll-ups (secret key).
struct StatsController: Sendable {
    let reports: Reports
    let authenticator: KeyAuthenticator
    let now: @Sendable () -> Date

    func register(on router: Router<FerryRequestContext>) {
        router.get(RouterPath(FerryRoutes.stats)) { request, _ in try await appStats(request) }
        router.get("\(FerryRoutes.links)/:id/stats") { request, context in try await linkStats(request, id: context.parameters.get("id") ?? "") }
    }

    func appStats(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .statsRead)
        let range = try Self.range(of: request, now: now())
        return try JSONBody.response(try await reports.stats(app: auth.app, environment: auth.key.environment, range: range))
    }

    func linkStats(_ request: Request, id: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .statsRead)
        let link = try await reports.links.find(id, app: auth.app, environment: auth.key.environment)
        let range = try Self.range(of: request, now: now())
        return try JSONBody.response(try await reports.stats(app: auth.app, environment: auth.key.environment, link: link, range: range))
    }

    /// The `to`/`days` range of a request, or a 400 naming the parameter at fault.
    static func range(of request: Request, now: Date) throws -> StatsRange {
        let query = request.uri.queryParameters
        func text(_ name: String) -> String? { query[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 } }
        if text("from") != nil {
            // Ranges were once `from` and `to`; a client still sending `from` would otherwise get another range silently.
            throw APIError(.invalidField, message: "from is no longer read: ask for the days that end with to (default today) with days (1 to \(StatsRange.maxDays), default \(StatsRange.defaultDays))", field: "from")
        }
        switch StatsRange.parse(to: text("to"), days: text("days"), now: now) {
        case .success(let range): return range
        case .failure(let error): throw APIError(.invalidField, message: error.message, field: error.field)
        }
    }
}
#endif
