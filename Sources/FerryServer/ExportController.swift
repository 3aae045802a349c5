#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/exports/clicks` and `GET /v1/exports/attributions`: raw rows of a range of days as CSV, streamed page by
/// page (secret key). Client addresses are never exported; user agents only while the attribution window keeps them.
struct ExportController: Sendable {
    let reports: Reports
    let authenticator: KeyAuthenticator
    let now: @Sendable () -> Date

    func register(on router: Router<FerryRequestContext>) {
        router.get(RouterPath(FerryRoutes.exportClicks)) { request, _ in try await clicks(request) }
        router.get(RouterPath(FerryRoutes.exportAttributions)) { request, _ in try await attributions(request) }
    }

    static let clickColumns = ["click_id", "time", "link_id", "platform", "os_version", "device", "referrer", "query", "accept_language", "user_agent", "traffic"]
    static let attributionColumns = ["install_id", "time", "link_id", "click_id", "match_type", "confidence"]

    func clicks(_ request: Request) async throws -> Response {
        let reports = reports
        return try await export(request, name: "clicks", header: Self.clickColumns,
            page: { try await reports.clicks(app: $0, environment: $1, range: $2, after: $3) },
            fields: { click in
                [click.id, Self.timestamp(click.createdAt), click.linkID, click.platform.rawValue, click.osVersion, click.appleDevice,
                 click.referer, click.query, click.acceptLanguage, click.userAgent, click.traffic.rawValue]
            },
            cursor: { ExportCursor(time: $0.createdAt.timeIntervalSince1970, id: $0.id) })
    }

    func attributions(_ request: Request) async throws -> Response {
        let reports = reports
        return try await export(request, name: "attributions", header: Self.attributionColumns,
            page: { try await reports.attributions(app: $0, environment: $1, range: $2, after: $3) },
            fields: { record in
                [record.installID, Self.timestamp(record.createdAt), record.linkID, record.clickID, record.matchType?.rawValue ?? "organic",
                 record.confidence.map { String(format: "%.3f", $0) }]
            },
            cursor: { ExportCursor(time: $0.createdAt.timeIntervalSince1970, id: $0.installID) })
    }

    /// The CSV of one kind of row over the request's range, read page by page for the key's app and environment.
    func export<Row: Sendable>(
        _ request: Request, name: String, header: [String],
        page: @escaping @Sendable (App, APIEnvironment, StatsRange, ExportCursor?) async throws -> [Row],
        fields: @escaping @Sendable (Row) -> [String?], cursor: @escaping @Sendable (Row) -> ExportCursor
    ) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .statsRead)
        let range = try StatsController.range(of: request, now: now())
        let app = auth.app, environment = auth.key.environment
        return Self.csv(name: name, range: range, header: header) { after in
            let rows = try await page(app, environment, range, after)
            return (rows.map { CSV.line(fields($0)) }, rows.last.map(cursor), rows.count < Reports.pageSize)
        }
    }

    /// ISO 8601 in UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// A CSV response written page by page: `next` gets the cursor after the previous page and answers lines, the
    /// cursor after them, and whether it was the last page.
    static func csv(name: String, range: StatsRange, header: [String],
                    next: @escaping @Sendable (ExportCursor?) async throws -> ([String], ExportCursor?, Bool)) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(name)-\(StatsRange.text(ofDay: range.fromDay))-\(StatsRange.text(ofDay: range.toDay)).csv\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: CSV.line(header)))
            var cursor: ExportCursor?
            while true {
                let (lines, after, last) = try await next(cursor)
                if !lines.isEmpty { try await writer.write(ByteBuffer(string: lines.joined())) }
                if last || after == nil { break }
                cursor = after
            }
            try await writer.finish(nil)
        })
    }
}
#endif
