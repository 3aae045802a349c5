import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Hummingbird

/// `/v1/stats` and `/v1/links/{id}/stats`: what links did, from the daily roll-ups (secret key).
struct StatsController: Sendable {
    let links: LinksController
    let authenticator: KeyAuthenticator

    var store: any FerryDatabase { links.store }

    func register(on router: Router<FerryRequestContext>) {
        router.get(RouterPath(FerryRoutes.stats)) { request, _ in try await appStats(request) }
        router.get("\(FerryRoutes.links)/:id/stats") { request, context in try await linkStats(request, id: context.parameters.get("id") ?? "") }
    }

    func appStats(_ request: Request) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret)
        let range = try Self.range(of: request, now: links.admin.now())
        let rows = try await store.statsRows(appID: auth.app.id, environment: auth.key.environment, linkID: nil, range: range)
        return try JSONBody.response(StatsReport(rows: rows, range: range, linkID: nil))
    }

    func linkStats(_ request: Request, id: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret)
        let link = try await links.find(id, auth)
        let range = try Self.range(of: request, now: links.admin.now())
        let rows = try await store.statsRows(appID: auth.app.id, environment: auth.key.environment, linkID: link.id, range: range)
        return try JSONBody.response(StatsReport(rows: rows, range: range, linkID: link.id))
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
